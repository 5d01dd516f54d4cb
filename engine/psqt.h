/* Piece-square tables (material included) for the position's incremental accumulator. */
#ifndef FEELFISH_PSQT_H
#define FEELFISH_PSQT_H

#include "position.h"

/* Read-only after psqt_init(): PsqTable[piece][square], White's point of view. */
extern Score PsqTable[PIECE_NB][SQUARE_NB];

void psqt_init(void);

#endif
