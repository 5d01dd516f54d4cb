/* `feelfish epd FILE.epd --movetime MS`: runs a bm/am test suite and counts the solved positions. */
#ifndef FEELFISH_EPD_H
#define FEELFISH_EPD_H

#include <stdio.h>

#include "../core/position.h"

#define EPD_MAX_MOVES MAX_MOVES /* a list may name every legal move */

typedef struct {
    char fen[128];
    char id[64];
    Move bm[EPD_MAX_MOVES], am[EPD_MAX_MOVES];
    int bm_count, am_count;
    char bm_text[96], am_text[96]; /* as written in the file */
} EpdEntry;

/* Parses one EPD line into e (and p, set to its position). Returns false with msg on a bad line. */
bool epd_parse(const char *line, EpdEntry *e, Position *p, char *msg, size_t msg_size);

int epd_command(int argc, char **argv, FILE *out);

#endif
