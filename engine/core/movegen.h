/* Legal move generation: every move, only captures and promotions ("noisy"), or only the rest. */
#ifndef FEELFISH_MOVEGEN_H
#define FEELFISH_MOVEGEN_H

#include "position.h"

typedef enum {
    GEN_ALL,   /* every legal move */
    GEN_NOISY, /* captures, en passant and every promotion */
    GEN_QUIET, /* the rest: non-captures that do not promote, castling included */
} GenType;

/* Fills list with the legal moves of the given kind; returns the count. Never allocates. */
int movegen_legal(const Position *p, MoveList *list, GenType type);

/* Number of legal moves, without storing them (perft's last ply). */
int movegen_count(const Position *p);

/* Whether m is legal here; m may be any 16-bit value (from a table or a client). */
bool movegen_is_legal(const Position *p, Move m);

#endif
