/* The position's piece-square accumulator: material plus square bonus from the parameter vector
 * engine_init gives it, mirrored for Black so it is colour-symmetric by construction. */
#include "psqt.h"

Score PsqTable[PIECE_NB][SQUARE_NB];

/* Fixed values for the non-pawn-material accumulator, game phase and exchange evaluation. */
const int PieceValueMg[PIECE_TYPE_NB] = {0, 100, 325, 335, 500, 975, 0};
const int PieceValueEg[PIECE_TYPE_NB] = {0, 100, 325, 335, 500, 975, 0};

void psqt_init(const Score piece_value[PIECE_TYPE_NB], const Score psq[PIECE_TYPE_NB][SQUARE_NB])
{
    for (PieceType pt = PAWN; pt <= KING; pt++)
        for (Square s = 0; s < SQUARE_NB; s++) {
            Score v = piece_value[pt] + psq[pt][s];
            PsqTable[piece_make(WHITE, pt)][s] = v;
            PsqTable[piece_make(BLACK, pt)][square_flip(s)] = -v;
        }
}
