/* The classical evaluation: tapered middlegame/endgame terms accumulated per group from White's
 * point of view (White's term minus Black's), then tapered per group and weighted. Because every
 * term is computed the same way for both colours, a position and its colour-flipped mirror get
 * opposite scores. */
#include "eval.h"

#include <stdlib.h>

#include "../psqt.h"

const char *const EvalGroupNames[EVAL_GROUP_NB] = {"material",          "mobility",       "king_safety",
                                                   "opp_king_exposure", "pawn_structure", "other"};

void evaluator_classical(Evaluator *e)
{
    e->params = &DefaultParams;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        e->weight[g] = EVAL_WEIGHT_ONE;
    e->fingerprint = 0;
}

void evaluator_update_fingerprint(Evaluator *e)
{
    uint64_t h = params_fingerprint(e->params);
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        if (e->weight[g] != EVAL_WEIGHT_ONE)
            h = (h ^ (uint64_t)(e->weight[g] + 7 * g)) * 0x100000001b3ULL + 0x9E3779B97F4A7C15ULL;
    e->fingerprint = h;
}

typedef struct {
    const Position *pos;
    const EvalParams *prm;
    Bitboard attacked[COLOR_NB][PIECE_TYPE_NB]; /* [0]: by anything */
    Bitboard attacked2[COLOR_NB];               /* by at least two pieces */
    Bitboard mobility_area[COLOR_NB];
    Bitboard king_zone[COLOR_NB];
    Bitboard passed;            /* passed pawns of both colours */
    int attack_units[COLOR_NB]; /* c's weighted attacks on the enemy king zone */
    int attackers[COLOR_NB];    /* c's pieces attacking it */
    Score g[EVAL_GROUP_NB];
} EvalState;

static inline void add(EvalState *es, EvalGroup g, Color c, Score v) { es->g[g] += c == WHITE ? v : -v; }

static inline Bitboard forward_ranks(Color c, Square s)
{
    return c == WHITE ? ~0ULL << 8 << (8 * square_rank(s)) : ~0ULL >> 8 >> (8 * (7 - square_rank(s)));
}
static inline Bitboard adjacent_files(Square s)
{
    Bitboard f = file_bb(square_file(s));
    return shift_east(f) | shift_west(f);
}
/* Squares in front of s on its file and the two beside it: where enemy pawns stop a passer. */
static inline Bitboard passed_span(Color c, Square s)
{
    return forward_ranks(c, s) & (adjacent_files(s) | file_bb(square_file(s)));
}
static inline int distance(Square a, Square b)
{
    int df = abs(square_file(a) - square_file(b)), dr = abs(square_rank(a) - square_rank(b));
    return df > dr ? df : dr;
}

static void eval_pawns(EvalState *es, Color c)
{
    const Position *p = es->pos;
    const EvalParams *prm = es->prm;
    Color them = color_flip(c);
    Bitboard ours = pieces(p, c, PAWN), theirs = pieces(p, them, PAWN);
    Bitboard b = ours;
    while (b) {
        Square s = pop_lsb(&b);
        int rr = relative_rank(c, s);
        Bitboard adj = adjacent_files(s);
        Bitboard front = forward_ranks(c, s) & file_bb(square_file(s));
        Bitboard stop = pawn_push(c, square_bb(s));
        bool supported = (PawnAttacks[them][s] & ours) != 0;
        bool phalanx = (adj & rank_bb(square_rank(s)) & ours) != 0;

        if (!(adj & ours))
            add(es, GROUP_PAWN_STRUCTURE, c, prm->pawn_isolated);
        else if (!supported && !phalanx && !(adj & ours & ~forward_ranks(c, s)) &&
                 (pawn_attacks_bb(them, theirs) & stop))
            add(es, GROUP_PAWN_STRUCTURE, c, prm->pawn_backward); /* no pawn can come to its aid */
        if (front & ours)
            add(es, GROUP_PAWN_STRUCTURE, c, prm->pawn_doubled);
        if (supported || phalanx)
            add(es, GROUP_PAWN_STRUCTURE, c, prm->pawn_connected[rr]);
        if (!(passed_span(c, s) & theirs) && !(front & ours))
            es->passed |= square_bb(s);
    }
}

static void eval_passed(EvalState *es, Color c)
{
    const Position *p = es->pos;
    const EvalParams *prm = es->prm;
    Color them = color_flip(c);
    Bitboard b = es->passed & p->by_color[c];
    Square own_king = king_square(p, c), their_king = king_square(p, them);
    while (b) {
        Square s = pop_lsb(&b);
        int rr = relative_rank(c, s);
        Score bonus = prm->passed[rr];
        Square stop = c == WHITE ? s + 8 : s - 8;
        if (rr >= RANK_4) {
            int w = rr - RANK_3; /* king distances matter more the further the pawn */
            bonus += prm->passed_own_king_distance * (distance(own_king, stop) * w);
            bonus += prm->passed_enemy_king_distance * (distance(their_king, stop) * w);
            Bitboard path = forward_ranks(c, s) & file_bb(square_file(s));
            if (!(path & occupied(p)) && !(path & es->attacked[them][0]))
                bonus += prm->passed_free_path[rr];
        }
        add(es, GROUP_PAWN_STRUCTURE, c, bonus);
    }
}

/* Own king shelter: pawns in front of the king on its file and the two beside it. */
static void eval_king_shelter(EvalState *es, Color c)
{
    const Position *p = es->pos;
    const EvalParams *prm = es->prm;
    Color them = color_flip(c);
    Square k = king_square(p, c);
    int kf = square_file(k);
    if (kf == FILE_A)
        kf = FILE_B;
    if (kf == FILE_H)
        kf = FILE_G;
    Bitboard ours = pieces(p, c, PAWN) & ~forward_ranks(them, k), theirs = pieces(p, them, PAWN);
    for (int f = kf - 1; f <= kf + 1; f++) {
        Bitboard on_file = ours & file_bb(f);
        if (on_file) {
            Square nearest = c == WHITE ? lsb(on_file) : msb(on_file);
            int rr = relative_rank(c, nearest) - relative_rank(c, k);
            if (rr <= 1)
                add(es, GROUP_KING_SAFETY, c, prm->shield_rank2);
            else if (rr == 2)
                add(es, GROUP_KING_SAFETY, c, prm->shield_rank3);
        } else {
            add(es, GROUP_KING_SAFETY, c, prm->shield_missing);
            if (!(theirs & file_bb(f)))
                add(es, GROUP_KING_SAFETY, c, prm->king_open_file);
        }
        Bitboard storm = theirs & file_bb(f);
        while (storm) {
            Square s = pop_lsb(&storm);
            int rr = relative_rank(c, s);
            if (rr == RANK_4 || rr == RANK_5)
                add(es, GROUP_KING_SAFETY, c, prm->storm_near);
        }
    }
}

static void eval_pieces(EvalState *es, Color c)
{
    const Position *p = es->pos;
    const EvalParams *prm = es->prm;
    Color them = color_flip(c);
    Bitboard occ = occupied(p);
    Bitboard enemy_zone = es->king_zone[them];
    Bitboard outpost_ranks = c == WHITE ? (RANK_4_BB | RANK_5_BB | RANK_6_BB) : (RANK_3_BB | RANK_4_BB | RANK_5_BB);
    Bitboard their_pawns = pieces(p, them, PAWN), our_pawns = pieces(p, c, PAWN);
    Score mobility = 0;

    for (PieceType pt = KNIGHT; pt <= QUEEN; pt++) {
        Bitboard b = pieces(p, c, pt);
        while (b) {
            Square s = pop_lsb(&b);
            Bitboard att;
            switch (pt) {
            case KNIGHT: att = KnightAttacks[s]; break;
            case BISHOP: att = bishop_attacks(s, occ ^ pieces(p, c, QUEEN)); break;
            case ROOK: att = rook_attacks(s, occ ^ pieces(p, c, QUEEN) ^ pieces(p, c, ROOK)); break;
            default: att = queen_attacks(s, occ); break;
            }
            es->attacked2[c] |= es->attacked[c][0] & att;
            es->attacked[c][0] |= att;
            es->attacked[c][pt] |= att;
            int mob = popcount(att & es->mobility_area[c]);
            switch (pt) {
            case KNIGHT: mobility += prm->mobility_knight[mob]; break;
            case BISHOP: mobility += prm->mobility_bishop[mob]; break;
            case ROOK: mobility += prm->mobility_rook[mob]; break;
            default: mobility += prm->mobility_queen[mob]; break;
            }
            Bitboard zone_hits = att & enemy_zone;
            if (zone_hits) {
                es->attackers[c]++;
                es->attack_units[c] += score_mg(prm->attack_weight[pt]) * popcount(zone_hits);
            }
            if (pt == KNIGHT || pt == BISHOP) {
                /* An outpost: in the enemy half, defended by a pawn, no enemy pawn can chase it. */
                if ((square_bb(s) & outpost_ranks) && (PawnAttacks[them][s] & our_pawns) &&
                    !(passed_span(c, s) & adjacent_files(s) & their_pawns))
                    add(es, GROUP_OTHER, c, pt == KNIGHT ? prm->knight_outpost : prm->bishop_outpost);
            } else if (pt == ROOK) {
                Bitboard file = file_bb(square_file(s));
                if (!(file & (our_pawns | their_pawns)))
                    add(es, GROUP_OTHER, c, prm->rook_open_file);
                else if (!(file & our_pawns))
                    add(es, GROUP_OTHER, c, prm->rook_semi_open_file);
                if (relative_rank(c, s) == RANK_7 &&
                    (relative_rank(c, king_square(p, them)) == RANK_8 || (their_pawns & rank_bb(square_rank(s)))))
                    add(es, GROUP_OTHER, c, prm->rook_seventh);
            }
        }
    }
    add(es, GROUP_MOBILITY, c, mobility);
}

/* c's attack on the enemy king: weighted zone attacks plus safe checks, growing quadratically. */
static void eval_king_attack(EvalState *es, Color c)
{
    const Position *p = es->pos;
    const EvalParams *prm = es->prm;
    Color them = color_flip(c);
    if (es->attackers[c] < 2 && !(pieces(p, c, QUEEN) && es->attackers[c] >= 1))
        return;
    Square k = king_square(p, them);
    Bitboard occ = occupied(p);
    Bitboard safe = ~p->by_color[c] & (~es->attacked[them][0] | (es->attacked2[c] & ~es->attacked2[them]));
    Bitboard knight_checks = KnightAttacks[k] & es->attacked[c][KNIGHT] & safe;
    Bitboard bishop_lines = bishop_attacks(k, occ), rook_lines = rook_attacks(k, occ);
    int danger = es->attack_units[c] * es->attackers[c] / 2;
    if (knight_checks)
        danger += score_mg(prm->safe_check[KNIGHT]);
    if (bishop_lines & es->attacked[c][BISHOP] & safe)
        danger += score_mg(prm->safe_check[BISHOP]);
    if (rook_lines & es->attacked[c][ROOK] & safe)
        danger += score_mg(prm->safe_check[ROOK]);
    if ((bishop_lines | rook_lines) & es->attacked[c][QUEEN] & safe)
        danger += score_mg(prm->safe_check[QUEEN]);
    if (!pieces(p, c, QUEEN))
        danger /= 2;
    if (danger <= 0)
        return;
    int mg_div = score_mg(prm->attack_scale), eg_div = score_eg(prm->attack_scale);
    int mg = mg_div > 0 ? danger * danger / mg_div : 0;
    int eg = eg_div > 0 ? danger * 16 / eg_div : 0;
    if (mg > 1200)
        mg = 1200;
    add(es, GROUP_OPP_KING_EXPOSURE, c, S(mg, eg));
}

static void eval_threats(EvalState *es, Color c)
{
    const Position *p = es->pos;
    const EvalParams *prm = es->prm;
    Color them = color_flip(c);
    Bitboard targets = p->by_color[them] & ~p->by_type[PAWN] & ~p->by_type[KING];
    int n = popcount(targets & es->attacked[c][PAWN]);
    if (n)
        add(es, GROUP_OTHER, c, prm->threat_by_pawn * n);
    Bitboard major = p->by_color[them] & (p->by_type[ROOK] | p->by_type[QUEEN]);
    n = popcount(major & (es->attacked[c][KNIGHT] | es->attacked[c][BISHOP]));
    if (n)
        add(es, GROUP_OTHER, c, prm->threat_by_minor * n);
    n = popcount(pieces(p, them, QUEEN) & es->attacked[c][ROOK]);
    if (n)
        add(es, GROUP_OTHER, c, prm->threat_by_rook * n);
    n = popcount((targets | pieces(p, them, PAWN)) & es->attacked[c][0] & ~es->attacked[them][0]);
    if (n)
        add(es, GROUP_OTHER, c, prm->hanging * n);
}

/* Endgame scale (of 64): drawish material lowers the endgame part. */
static int endgame_scale(const Position *p, int eg)
{
    Color strong = eg > 0 ? WHITE : BLACK, weak = color_flip(strong);
    int strong_npm = p->st->material[strong], weak_npm = p->st->material[weak];
    if (!pieces(p, strong, PAWN) && strong_npm - weak_npm <= PieceValueMg[BISHOP])
        return strong_npm < PieceValueMg[ROOK] ? 0 : 16;
    if (popcount(p->by_type[BISHOP]) == 2 && strong_npm == PieceValueMg[BISHOP] && weak_npm == PieceValueMg[BISHOP]) {
        const Bitboard dark = 0xAA55AA55AA55AA55ULL;
        Bitboard b = p->by_type[BISHOP];
        if ((b & dark) && (b & ~dark))
            return 32; /* opposite-coloured bishops */
    }
    return 64;
}

int evaluate_terms(const Position *p, const Evaluator *e, EvalTerms *terms)
{
    EvalState es;
    const EvalParams *prm = e->params;
    es.pos = p;
    es.prm = prm;
    es.passed = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        es.g[g] = 0;

    /* Material, and piece-square from the accumulator when the weights are the defaults. */
    Score material = 0;
    for (PieceType pt = PAWN; pt <= QUEEN; pt++)
        material += prm->piece_value[pt] * (popcount(pieces(p, WHITE, pt)) - popcount(pieces(p, BLACK, pt)));
    es.g[GROUP_MATERIAL] = material;
    if (prm == &DefaultParams)
        es.g[GROUP_OTHER] = p->st->psq - material;
    else {
        for (Bitboard b = occupied(p); b;) {
            Square s = pop_lsb(&b);
            Piece pc = p->board[s];
            Score v = prm->psq[piece_type(pc)][piece_color(pc) == WHITE ? s : square_flip(s)];
            es.g[GROUP_OTHER] += piece_color(pc) == WHITE ? v : -v;
        }
    }

    for (Color c = WHITE; c <= BLACK; c++) {
        Square k = king_square(p, c);
        es.attacked[c][PAWN] = pawn_attacks_bb(c, pieces(p, c, PAWN));
        es.attacked[c][KING] = KingAttacks[k];
        es.attacked[c][0] = es.attacked[c][PAWN] | es.attacked[c][KING];
        es.attacked2[c] = es.attacked[c][PAWN] & es.attacked[c][KING];
        for (PieceType pt = KNIGHT; pt <= QUEEN; pt++)
            es.attacked[c][pt] = 0;
        es.king_zone[c] = KingAttacks[k] | square_bb(k);
        es.king_zone[c] |= pawn_push(c, es.king_zone[c]);
        es.attackers[c] = es.attack_units[c] = 0;
    }
    for (Color c = WHITE; c <= BLACK; c++)
        es.mobility_area[c] = ~(pieces(p, c, PAWN) | pieces(p, c, KING) | es.attacked[color_flip(c)][PAWN]);

    eval_pawns(&es, WHITE);
    eval_pawns(&es, BLACK);
    eval_pieces(&es, WHITE);
    eval_pieces(&es, BLACK);
    eval_king_shelter(&es, WHITE);
    eval_king_shelter(&es, BLACK);
    eval_king_attack(&es, WHITE);
    eval_king_attack(&es, BLACK);
    eval_passed(&es, WHITE);
    eval_passed(&es, BLACK);
    eval_threats(&es, WHITE);
    eval_threats(&es, BLACK);
    if (pieces(p, WHITE, BISHOP) && more_than_one(pieces(p, WHITE, BISHOP)))
        es.g[GROUP_OTHER] += prm->bishop_pair;
    if (pieces(p, BLACK, BISHOP) && more_than_one(pieces(p, BLACK, BISHOP)))
        es.g[GROUP_OTHER] -= prm->bishop_pair;
    es.g[GROUP_OTHER] += p->side == WHITE ? prm->tempo : -prm->tempo;

    int phase = popcount(p->by_type[KNIGHT] | p->by_type[BISHOP]) + 2 * popcount(p->by_type[ROOK]) +
                4 * popcount(p->by_type[QUEEN]);
    if (phase > 24)
        phase = 24;
    int eg_sum = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        eg_sum += score_eg(es.g[g]);
    int scale = endgame_scale(p, eg_sum);

    long total = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++) {
        long v = ((long)score_mg(es.g[g]) * phase + (long)score_eg(es.g[g]) * (24 - phase) * scale / 64) / 24;
        if (terms)
            terms->group[g] = (int)v;
        total += v * e->weight[g];
    }
    int white = (int)(total / EVAL_WEIGHT_ONE);
    if (terms) {
        terms->total = white;
        terms->phase = phase;
    }
    return p->side == WHITE ? white : -white;
}

int evaluate(const Position *p, const Evaluator *e) { return evaluate_terms(p, e, NULL); }
