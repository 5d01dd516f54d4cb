/* Static exchange evaluation by the swap method: both sides recapture on the target square with
 * their least valuable attacker, x-ray attackers joining as pieces leave their lines. */
#include "see.h"

const int SeeValue[PIECE_TYPE_NB] = {0, 100, 325, 335, 500, 975, 20000};

bool see_ge(const Position *p, Move m, int threshold)
{
    if (move_kind(m) != MOVE_NORMAL)
        return 0 >= threshold; /* castling, en passant, promotions: treated as even */
    Square from = move_from(m), to = move_to(m);
    int swap = SeeValue[piece_type(p->board[to])] - threshold;
    if (swap < 0)
        return false;
    swap = SeeValue[piece_type(p->board[from])] - swap;
    if (swap <= 0)
        return true;

    Bitboard occ = occupied(p) ^ square_bb(from) ^ square_bb(to);
    Bitboard attackers = position_attackers_to(p, to, occ);
    Bitboard diag = p->by_type[BISHOP] | p->by_type[QUEEN], straight = p->by_type[ROOK] | p->by_type[QUEEN];
    Color stm = p->side;
    int res = 1;
    for (;;) {
        stm = color_flip(stm);
        attackers &= occ;
        Bitboard mine = attackers & p->by_color[stm];
        if (!mine)
            break;
        res ^= 1;
        PieceType pt;
        Bitboard b = 0;
        for (pt = PAWN; pt <= KING; pt++)
            if ((b = mine & p->by_type[pt]))
                break;
        if (pt == KING)
            /* The king may take only if nothing defends the square any more. */
            return (attackers & p->by_color[color_flip(stm)]) ? res ^ 1 : res;
        swap = SeeValue[pt] - swap;
        if (swap < res)
            break;
        occ ^= b & -b;
        if (pt == PAWN || pt == BISHOP || pt == QUEEN)
            attackers |= bishop_attacks(to, occ) & diag;
        if (pt == ROOK || pt == QUEEN)
            attackers |= rook_attacks(to, occ) & straight;
    }
    return res;
}
