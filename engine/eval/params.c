/* The default parameter vector and its table of names. The starting point is hand-set (material
 * and piece-square values in centipawns, smooth formulas for mobility, round numbers elsewhere);
 * the tuned vector from `feelfish tune` (engine/eval/tuned.c) replaces it when present, and the
 * hand-set one stays available (the tuning starts from it). */
#include "params.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

EvalParams DefaultParams, HandSetParams;

#define P(field)                                                                                                       \
    {                                                                                                                  \
#field, (int)(offsetof(EvalParams, field) / sizeof(Score)),                                                    \
            (int)(sizeof(((EvalParams *)0)->field) / sizeof(Score))                                                    \
    }
const ParamInfo ParamTable[] = {
    P(piece_value),
    P(psq),
    P(mobility_knight),
    P(mobility_bishop),
    P(mobility_rook),
    P(mobility_queen),
    P(pawn_isolated),
    P(pawn_doubled),
    P(pawn_backward),
    P(pawn_weak_unopposed),
    P(pawn_connected),
    P(passed),
    P(passed_free_path),
    P(passed_own_king_distance),
    P(passed_enemy_king_distance),
    P(passed_stop_safe),
    P(passed_stop_defended),
    P(shelter),
    P(storm),
    P(storm_blocked),
    P(king_open_file),
    P(king_pawnless_flank),
    P(attack_weight),
    P(safe_check),
    P(unsafe_check),
    P(king_ring_weak),
    P(flank_attack),
    P(attack_scale),
    P(bishop_pair),
    P(bishop_pawns),
    P(bishop_long_diagonal),
    P(minor_behind_pawn),
    P(king_protector),
    P(rook_open_file),
    P(rook_semi_open_file),
    P(rook_seventh),
    P(rook_trapped),
    P(knight_outpost),
    P(bishop_outpost),
    P(threat_by_pawn),
    P(threat_by_pawn_push),
    P(threat_by_minor),
    P(threat_by_rook),
    P(threat_by_king),
    P(hanging),
    P(space),
    P(initiative),
    P(tempo),
};
#undef P
const int ParamTableCount = (int)(sizeof ParamTable / sizeof ParamTable[0]);

const ParamInfo *param_table_find(const char *name)
{
    for (int t = 0; t < ParamTableCount; t++)
        if (!strcmp(ParamTable[t].name, name))
            return &ParamTable[t];
    return NULL;
}

/* Piece-square bonuses, White's view, [rank][file] from a1. */
static const int PawnMg[8][8] = {{0, 0, 0, 0, 0, 0, 0, 0},         {-6, 2, -4, -12, -12, 8, 14, -6},
                                 {-6, -2, 4, 6, 6, 2, 6, -6},      {-6, 0, 8, 20, 20, 8, 0, -6},
                                 {2, 8, 12, 24, 24, 12, 8, 2},     {14, 20, 28, 34, 34, 28, 20, 14},
                                 {50, 56, 60, 66, 66, 60, 56, 50}, {0, 0, 0, 0, 0, 0, 0, 0}};
static const int PawnEg[8][8] = {{0, 0, 0, 0, 0, 0, 0, 0},         {10, 8, 8, 6, 6, 8, 8, 10},
                                 {6, 6, 2, 2, 2, 2, 6, 6},         {12, 10, 6, 4, 4, 6, 10, 12},
                                 {26, 22, 18, 16, 16, 18, 22, 26}, {50, 46, 42, 40, 40, 42, 46, 50},
                                 {80, 76, 70, 66, 66, 70, 76, 80}, {0, 0, 0, 0, 0, 0, 0, 0}};
static const int KingMg[8][8] = {{16, 36, 14, -16, 0, -16, 36, 22},        {6, 6, -10, -36, -36, -10, 6, 6},
                                 {-24, -30, -36, -44, -44, -36, -30, -24}, {-40, -46, -52, -60, -60, -52, -46, -40},
                                 {-50, -56, -62, -70, -70, -62, -56, -50}, {-56, -62, -68, -76, -76, -68, -62, -56},
                                 {-60, -66, -72, -80, -80, -72, -66, -60}, {-64, -70, -76, -84, -84, -76, -70, -64}};
static const int Centre[8] = {-3, -1, 1, 3, 3, 1, -1, -3};

static Score psq_default(PieceType pt, int file, int rank)
{
    int c = Centre[file] + Centre[rank]; /* -6 .. 6 */
    int cf = Centre[file];
    switch (pt) {
    case PAWN: return S(PawnMg[rank][file], PawnEg[rank][file]);
    case KNIGHT: return S(7 * c + (rank == 0 ? -12 : 0) + (rank >= 3 && rank <= 5 ? 6 : 0), 6 * c);
    case BISHOP: return S(3 * c + (rank == 0 ? -8 : 0), 3 * c);
    case ROOK: return S((cf >= 1 ? 6 : 0) + (rank == 6 ? 10 : 0), (rank == 6 ? 8 : 0));
    case QUEEN: return S(2 * c - (rank == 0 ? 0 : 2), 5 * c);
    case KING: return S(KingMg[rank][file], 9 * c + (rank >= 2 && rank <= 5 ? 8 : 0));
    default: return 0;
    }
}

static void mobility_default(Score *table, int n, double mg_weight, double eg_weight, double average)
{
    for (int i = 0; i < n; i++) {
        double d = sqrt((double)i) - sqrt(average);
        table[i] = S((int)lround(mg_weight * d), (int)lround(eg_weight * d));
    }
}

void params_init(void)
{
    EvalParams *p = &HandSetParams;
    const Score values[PIECE_TYPE_NB] = {0, S(90, 120), S(340, 310), S(360, 330), S(490, 560), S(1020, 1000), 0};
    for (PieceType pt = PAWN; pt <= KING; pt++) {
        p->piece_value[pt] = values[pt];
        for (Square s = 0; s < SQUARE_NB; s++)
            p->psq[pt][s] = psq_default(pt, square_file(s), square_rank(s));
    }
    mobility_default(p->mobility_knight, 9, 28, 30, 4);
    mobility_default(p->mobility_bishop, 14, 26, 34, 6);
    mobility_default(p->mobility_rook, 15, 16, 44, 7);
    mobility_default(p->mobility_queen, 28, 10, 22, 12);

    p->pawn_isolated = S(-8, -14);
    p->pawn_doubled = S(-8, -24);
    p->pawn_backward = S(-8, -10);
    static const int connected[RANK_NB] = {0, 4, 7, 12, 22, 40, 70, 0};
    static const int passed_mg[RANK_NB] = {0, 2, 6, 12, 30, 55, 90, 0};
    static const int passed_eg[RANK_NB] = {0, 8, 14, 28, 50, 90, 150, 0};
    static const int free_eg[RANK_NB] = {0, 0, 2, 6, 14, 30, 60, 0};
    for (int r = 0; r < RANK_NB; r++) {
        p->pawn_connected[r] = S(connected[r], connected[r] * 3 / 4);
        p->passed[r] = S(passed_mg[r], passed_eg[r]);
        p->passed_free_path[r] = S(free_eg[r] / 3, free_eg[r]);
    }
    p->passed_own_king_distance = S(0, -5);
    p->passed_enemy_king_distance = S(0, 10);

    p->pawn_weak_unopposed = S(-8, -14);
    p->passed_stop_safe = S(2, 4);
    p->passed_stop_defended = S(1, 1);

    /* Shelter and storm by the file's distance from the edge and the pawn's relative rank (0: no
     * pawn). The shape follows the classical engines: a pawn one or two steps ahead of the king
     * shelters best; an enemy pawn close to the king storms most, less when our pawn blocks it. */
    static const int shelter[4][RANK_NB] = {{-4, 48, 56, 34, 24, 10, 14, 0},
                                            {-26, 36, 20, -30, -18, -6, -38, 0},
                                            {-6, 45, 14, -2, 20, 2, -28, 0},
                                            {-24, -8, -18, -32, -30, -40, -100, 0}};
    static const int storm[4][RANK_NB] = {{-54, 170, 110, -56, -34, -28, -30, 0},
                                          {-26, 10, -74, -28, -24, 4, -14, 0},
                                          {-2, -30, -98, -22, -4, 8, 2, 0},
                                          {6, 8, -54, -10, -2, 4, 10, 0}};
    for (int d = 0; d < 4; d++)
        for (int r = 0; r < RANK_NB; r++) {
            p->shelter[d][r] = S(shelter[d][r], 0);
            p->storm[d][r] = S(storm[d][r], 0);
        }
    p->storm_blocked[RANK_3] = S(-50, -45);
    p->king_open_file = S(-18, 0);
    p->king_pawnless_flank = S(-10, -50);

    p->attack_weight[KNIGHT] = S(8, 0);
    p->attack_weight[BISHOP] = S(6, 0);
    p->attack_weight[ROOK] = S(8, 0);
    p->attack_weight[QUEEN] = S(12, 0);
    p->safe_check[KNIGHT] = S(40, 0);
    p->safe_check[BISHOP] = S(24, 0);
    p->safe_check[ROOK] = S(40, 0);
    p->safe_check[QUEEN] = S(30, 0);
    p->unsafe_check = S(8, 0);
    p->king_ring_weak = S(10, 0);
    p->flank_attack = S(2, 0);
    p->attack_scale = S(640, 320);

    p->bishop_pair = S(28, 52);
    p->bishop_pawns = S(-2, -4);
    p->bishop_long_diagonal = S(26, 0);
    p->minor_behind_pawn = S(10, 2);
    p->king_protector = S(-4, -4);
    p->rook_open_file = S(30, 8);
    p->rook_semi_open_file = S(14, 6);
    p->rook_seventh = S(6, 24);
    p->rook_trapped = S(-30, -6);
    p->knight_outpost = S(22, 12);
    p->bishop_outpost = S(12, 6);
    p->threat_by_pawn = S(50, 40);
    p->threat_by_pawn_push = S(28, 20);
    const Score by_minor[PIECE_TYPE_NB] = {0, S(3, 18), S(32, 22), S(44, 30), S(50, 64), S(45, 88), 0};
    const Score by_rook[PIECE_TYPE_NB] = {0, S(2, 24), S(22, 38), S(24, 34), 0, S(34, 24), 0};
    for (PieceType pt = PAWN; pt <= KING; pt++) {
        p->threat_by_minor[pt] = by_minor[pt];
        p->threat_by_rook[pt] = by_rook[pt];
    }
    p->threat_by_king = S(14, 50);
    p->hanging = S(18, 12);
    p->space = S(1, 0);
    p->initiative[0] = S(0, 5);   /* per passed pawn */
    p->initiative[1] = S(0, 6);   /* per pawn */
    p->initiative[2] = S(0, 12);  /* pawns on both flanks */
    p->initiative[3] = S(0, 28);  /* no pieces: a pawn ending */
    p->initiative[4] = S(0, -56); /* bias */
    p->tempo = S(18, 6);

    DefaultParams = HandSetParams;
    if (TunedSlotCount == PARAM_SLOT_COUNT) {
        Score *slots = params_slots_mut(&DefaultParams);
        for (int i = 0; i < PARAM_SLOT_COUNT; i++)
            slots[i] = S(TunedSlots[i][0], TunedSlots[i][1]);
    }
}

uint64_t params_fingerprint(const EvalParams *p)
{
    /* FNV-1a over the slots; the default vector maps to 0 so classical keys stay unsalted. */
    if (p == &DefaultParams)
        return 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    const Score *s = params_slots(p), *d = params_slots(&DefaultParams);
    bool same = true;
    for (int i = 0; i < PARAM_SLOT_COUNT; i++) {
        same &= s[i] == d[i];
        h = (h ^ (uint32_t)s[i]) * 0x100000001b3ULL;
    }
    return same ? 0 : h;
}
