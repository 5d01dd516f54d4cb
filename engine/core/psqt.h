/* Piece-square tables (material included) for the position's incremental accumulator. */
#ifndef FEELFISH_PSQT_H
#define FEELFISH_PSQT_H

#include "types.h"

/* Read-only after psqt_init(): PsqTable[piece][square], White's point of view. */
extern Score PsqTable[PIECE_NB][SQUARE_NB];

/* Fills the table from material values and square bonuses (White's view), mirrored for Black. */
void psqt_init(const Score piece_value[PIECE_TYPE_NB], const Score psq[PIECE_TYPE_NB][SQUARE_NB]);

#endif
