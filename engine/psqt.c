/* Piece-square tables: material plus a bonus per square, written for White from a1 and mirrored
 * for Black, so the accumulator is colour-symmetric by construction. */
#include "psqt.h"

Score PsqTable[PIECE_NB][SQUARE_NB];

const int PieceValueMg[PIECE_TYPE_NB] = {0, 82, 337, 365, 477, 1025, 0};
const int PieceValueEg[PIECE_TYPE_NB] = {0, 94, 281, 297, 512, 936, 0};

/* Bonuses by (file distance from the centre, rank): pieces like the centre and, for pawns and
 * kings, the rank matters most. Indexed [rank][file] from White's side, a1 first. */
static const int PawnMg[8][8] = {{0, 0, 0, 0, 0, 0, 0, 0},         {-10, -2, -6, -14, -14, 8, 14, -8},
                                 {-8, -4, 2, 4, 4, 0, 6, -8},      {-6, 0, 6, 18, 18, 6, 0, -8},
                                 {0, 6, 10, 22, 22, 10, 6, 0},     {10, 16, 24, 30, 30, 24, 16, 10},
                                 {40, 46, 50, 56, 56, 50, 46, 40}, {0, 0, 0, 0, 0, 0, 0, 0}};
static const int PawnEg[8][8] = {{0, 0, 0, 0, 0, 0, 0, 0},
                                 {8, 6, 6, 4, 4, 6, 6, 8},
                                 {6, 6, 2, 2, 2, 2, 6, 6},
                                 {12, 10, 6, 4, 4, 6, 10, 12},
                                 {28, 24, 20, 18, 18, 20, 24, 28},
                                 {60, 56, 52, 48, 48, 52, 56, 60},
                                 {110, 106, 100, 96, 96, 100, 106, 110},
                                 {0, 0, 0, 0, 0, 0, 0, 0}};
static const int Centre[8] = {-3, -1, 1, 3, 3, 1, -1, -3};
static const int KingMg[8][8] = {{10, 30, 14, -10, 0, -10, 30, 20},        {0, 0, -10, -30, -30, -10, 0, 0},
                                 {-20, -30, -30, -40, -40, -30, -30, -20}, {-30, -40, -40, -50, -50, -40, -40, -30},
                                 {-40, -50, -50, -60, -60, -50, -50, -40}, {-40, -50, -50, -60, -60, -50, -50, -40},
                                 {-40, -50, -50, -60, -60, -50, -50, -40}, {-40, -50, -50, -60, -60, -50, -50, -40}};

static Score bonus(PieceType pt, int file, int rank)
{
    int c = Centre[file] + Centre[rank]; /* -6 .. 6 */
    switch (pt) {
    case PAWN: return score_make(PawnMg[rank][file], PawnEg[rank][file]);
    case KNIGHT: return score_make(6 * c + (rank == 0 ? -10 : 0), 5 * c);
    case BISHOP: return score_make(3 * c + (rank == 0 ? -6 : 0), 3 * c);
    case ROOK: return score_make((file == 3 || file == 4 ? 4 : 0) + (rank == 6 ? 12 : 0), c);
    case QUEEN: return score_make(2 * c, 4 * c);
    case KING: return score_make(KingMg[rank][file], 8 * c);
    default: return 0;
    }
}

void psqt_init(void)
{
    for (PieceType pt = PAWN; pt <= KING; pt++)
        for (Square s = 0; s < SQUARE_NB; s++) {
            Score v = score_make(PieceValueMg[pt], PieceValueEg[pt]) + bonus(pt, square_file(s), square_rank(s));
            PsqTable[piece_make(WHITE, pt)][s] = v;
            PsqTable[piece_make(BLACK, pt)][square_flip(s)] = -v;
        }
}
