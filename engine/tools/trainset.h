/* Training positions for the learned evaluation (issue #26): one position, its search score and its
 * game's result in a 32-byte record, so that hundreds of millions fit on a disk and stream fast.
 *
 * The record, little-endian:
 *   bytes  0-7   the occupied squares, a bitboard (bit i = square i, a1 = 0, h8 = 63)
 *   bytes  8-23  their pieces, in the order of the occupied squares (lowest first), 4 bits each, the
 *                first in the low half of byte 8: colour * 8 + type (type: pawn 1 ... king 6)
 *   bytes 24-25  the score: the search's, from the side to move's view, in centipawns (int16)
 *   byte  26     the game's result from the side to move's view: 0 lost, 1 drawn, 2 won
 *   byte  27     the side to move: 0 White, 1 Black
 *   bytes 28-29  the fullmove number (uint16)
 *   byte  30     the halfmove clock
 *   byte  31     0 (reserved)
 * Castling rights and the en-passant square are not kept: the evaluation does not read them. */
#ifndef FEELFISH_TRAINSET_H
#define FEELFISH_TRAINSET_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/position.h"

#define TRAINSET_RECORD_SIZE 32

typedef struct {
    uint8_t bytes[TRAINSET_RECORD_SIZE];
} TrainRecord;

/* What a record holds, read back. */
typedef struct {
    Bitboard occupied;
    Piece board[SQUARE_NB];
    Color side;
    int score;  /* centipawns, side to move's view */
    int result; /* 0 lost, 1 drawn, 2 won: side to move's view */
    int fullmove, halfmove;
} TrainPosition;

/* The record for p with its score (centipawns, side to move's view, clamped to int16) and result (0,
 * 1, 2 as above). */
void trainset_encode(const Position *p, int score_cp, int result, TrainRecord *out);
/* False when the record is not one (more than 32 pieces, a piece code out of range, a result or
 * side out of range, a reserved byte set). */
bool trainset_decode(const TrainRecord *r, TrainPosition *out);
/* The position's FEN (no castling, no en-passant square), for reading it back into a Position. */
void trainset_fen(const TrainPosition *t, char *fen, size_t size);

#endif
