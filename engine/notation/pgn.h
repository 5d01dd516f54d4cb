/* PGN: a streaming reader over a file of many games (tags, comments, NAGs, variations, escapes,
 * SetUp/FEN) that replays every move legally, and a writer in export format. */
#ifndef FEELFISH_PGN_H
#define FEELFISH_PGN_H

#include <stdio.h>

#include "../core/position.h"
#include "san.h"

typedef struct {
    char *name;
    char *value;
} PgnTag;

typedef struct {
    Move move;
    char san[SAN_STRING_SIZE];       /* as this engine writes it */
    char input[SAN_STRING_SIZE + 6]; /* the token as read (annotation glyphs included) */
    uint8_t nags[4];
    int nag_count;
    char *comment;    /* comment after the move, or NULL */
    char *variations; /* the variations after the move, as PGN text "(...) (...)", or NULL */
} PgnMove;

typedef struct {
    PgnTag *tags;
    int tag_count;
    char *start_fen; /* from the FEN tag, or NULL for the standard start */
    char *comment;   /* comment before the first move, or NULL */
    PgnMove *moves;
    int move_count;
    char result[8]; /* the movetext's termination (the Result tag's if it has none): 1-0, 0-1, 1/2-1/2 or * */
    int line;       /* line where the game starts in its file */
    bool lichess_style; /* pgn_write as Lichess exports: NAGs 1-6 as !, ?, !!, ??, !?, ?! after the
                         * move (not $1..$6), comments as "{ text }" */
    int tag_capacity, move_capacity;
} PgnGame;

typedef struct PgnReader PgnReader;

PgnReader *pgn_reader_open(FILE *f);                 /* does not take ownership of f */
PgnReader *pgn_reader_open_string(const char *text); /* copies nothing: text must outlive the reader */
void pgn_reader_close(PgnReader *r);

typedef enum { PGN_GAME, PGN_END, PGN_BAD_GAME } PgnResult;

/* Reads the next game. PGN_BAD_GAME: the game was skipped (err names the line and reason) and the
 * reader is positioned to go on with the next one. The game must be freed with pgn_game_free in
 * every case. */
PgnResult pgn_read_game(PgnReader *r, PgnGame *g, char *err, size_t err_size);
void pgn_game_free(PgnGame *g);

const char *pgn_tag(const PgnGame *g, const char *name); /* NULL if absent */

/* Building a game (the game owns copies of everything given). */
void pgn_game_add_tag(PgnGame *g, const char *name, const char *value);
PgnMove *pgn_game_add_move(PgnGame *g); /* a zeroed move at the end */

/* The game in export format (seven-tag roster first, movetext wrapped at 80 columns, comments,
 * NAGs and variations kept). The Result tag is written from g->result and the SetUp/FEN tags from
 * g->start_fen, so they always agree with the movetext. Returns a malloc'd string. */
char *pgn_write(const PgnGame *g);

/* Sets *p to the game's start (standard or its FEN tag). Returns false with msg if the FEN is bad. */
bool pgn_start_position(const PgnGame *g, Position *p, char *msg, size_t msg_size);

#endif
