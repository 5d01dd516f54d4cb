/* Moves in UCI notation (e2e4, e7e8q): reading against the legal moves, and writing. */
#ifndef FEELFISH_MOVE_H
#define FEELFISH_MOVE_H

#include "../core/position.h"

#define MOVE_STRING_SIZE 6

/* Writes m as UCI ("e2e4", "e7e8q", castling "e1g1", the null move "0000"); returns buf. */
char *move_to_uci(Move m, char *buf);

/* The legal move the UCI string names, or MOVE_NONE. Castling is read as e1g1 and as e1h1. */
Move move_from_uci(const Position *p, const char *s);

#endif
