/* The classical evaluation: tapered middlegame/endgame terms accumulated per group from White's
 * point of view (White's term minus Black's), then tapered per group and weighted. Because every
 * term is computed the same way for both colours, a position and its colour-flipped mirror get
 * opposite scores. */
#include "eval.h"

#include <stdlib.h>

#include "../core/psqt.h"

const char *const EvalGroupNames[EVAL_GROUP_NB] = {"material",          "mobility",       "king_safety",
                                                   "opp_king_exposure", "pawn_structure", "other"};

void evaluator_hand(Evaluator *e)
{
    e->params = &DefaultParams;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        e->weight[g] = EVAL_WEIGHT_ONE;
    e->fingerprint = 0;
    e->reweighted = false;
    e->net = NULL;
}

void evaluator_classical(Evaluator *e)
{
    evaluator_hand(e);
    e->net = nnue_default();
}

void evaluator_update_fingerprint(Evaluator *e)
{
    uint64_t h = params_fingerprint(e->params);
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        if (e->weight[g] != EVAL_WEIGHT_ONE)
            h = (h ^ (uint64_t)(e->weight[g] + 7 * g)) * 0x100000001b3ULL + 0x9E3779B97F4A7C15ULL;
    e->fingerprint = h;
    e->reweighted = e->params != &DefaultParams;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        e->reweighted |= e->weight[g] != EVAL_WEIGHT_ONE;
}

typedef struct {
    const Position *pos;
    const EvalParams *prm;
    Bitboard attacked[COLOR_NB][PIECE_TYPE_NB]; /* [0]: by anything */
    Bitboard attacked2[COLOR_NB];               /* by at least two pieces */
    Bitboard mobility_area[COLOR_NB];
    Bitboard king_zone[COLOR_NB];
    Bitboard passed;            /* passed pawns of both colours */
    bool all;                   /* every group wanted (else only those a re-weighting changes) */
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
static inline int edge_distance(int file) { return file < 7 - file ? file : 7 - file; }

#define FILES_ABC (FILE_A_BB | FILE_A_BB << 1 | FILE_A_BB << 2)
#define FILES_CDEF (FILE_A_BB << 2 | FILE_A_BB << 3 | FILE_A_BB << 4 | FILE_A_BB << 5)
#define FILES_FGH (FILE_A_BB << 5 | FILE_A_BB << 6 | FILE_A_BB << 7)
#define QUEEN_SIDE (FILE_A_BB | FILE_A_BB << 1 | FILE_A_BB << 2 | FILE_A_BB << 3)
#define KING_SIDE (~QUEEN_SIDE)
/* The files around a king on each file: where its shelter is and an attack on it happens. */
static const Bitboard KingFlank[8] = {
    FILES_ABC | FILE_A_BB << 3, FILES_ABC | FILE_A_BB << 3, FILES_ABC | FILE_A_BB << 3, FILES_CDEF, FILES_CDEF,
    FILES_FGH | FILE_A_BB << 4, FILES_FGH | FILE_A_BB << 4, FILES_FGH | FILE_A_BB << 4};
#define CENTER_FILES (FILE_A_BB << 2 | FILE_A_BB << 3 | FILE_A_BB << 4 | FILE_A_BB << 5)
#define CENTER_SQUARES ((FILE_A_BB << 3 | FILE_A_BB << 4) & (RANK_4_BB | RANK_5_BB))

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

        bool opposed = (front & theirs) != 0;
        if (!(adj & ours)) {
            add(es, GROUP_PAWN_STRUCTURE, c, prm->pawn_isolated);
            if (!opposed)
                add(es, GROUP_PAWN_STRUCTURE, c, prm->pawn_weak_unopposed);
        } else if (!supported && !phalanx && !(adj & ours & ~forward_ranks(c, s)) &&
                   (pawn_attacks_bb(them, theirs) & stop)) {
            add(es, GROUP_PAWN_STRUCTURE, c, prm->pawn_backward); /* no pawn can come to its aid */
            if (!opposed)
                add(es, GROUP_PAWN_STRUCTURE, c, prm->pawn_weak_unopposed);
        }
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
            /* The stop square: free and safe, and whether we hold it (or a major backs the pawn). */
            Bitboard behind = forward_ranks(them, s) & file_bb(square_file(s));
            Bitboard majors = p->by_type[ROOK] | p->by_type[QUEEN];
            Bitboard backers = rook_attacks(s, occupied(p)) & behind & majors;
            if (!(occupied(p) & square_bb(stop)) &&
                (!(es->attacked[them][0] & square_bb(stop)) || (backers & p->by_color[c])))
                bonus += prm->passed_stop_safe * w;
            if ((es->attacked[c][0] & square_bb(stop)) || (backers & p->by_color[c]))
                bonus += prm->passed_stop_defended * w;
        }
        add(es, GROUP_PAWN_STRUCTURE, c, bonus);
    }
}

/* Own king shelter: on the king's file and the two beside it, our nearest pawn in front of the
 * king (or level with it) shelters and their nearest pawn storms, both by relative rank and by
 * the file's distance from the edge; a file with no pawn at all is open towards the king. */
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
    Bitboard front = p->by_type[PAWN] & ~forward_ranks(them, k);
    Bitboard ours = front & p->by_color[c], theirs = front & p->by_color[them];
    Score bonus = 0;
    for (int f = kf - 1; f <= kf + 1; f++) {
        Bitboard o = ours & file_bb(f), t = theirs & file_bb(f);
        int our_rank = o ? relative_rank(c, c == WHITE ? lsb(o) : msb(o)) : 0;
        int their_rank = t ? relative_rank(c, c == WHITE ? lsb(t) : msb(t)) : 0;
        int d = edge_distance(f);
        bonus += prm->shelter[d][our_rank];
        if (our_rank && our_rank == their_rank - 1)
            bonus += prm->storm_blocked[their_rank];
        else
            bonus += prm->storm[d][their_rank];
        if (!(p->by_type[PAWN] & file_bb(f)))
            bonus += prm->king_open_file;
    }
    if (!(p->by_type[PAWN] & KingFlank[square_file(k)]))
        bonus += prm->king_pawnless_flank;
    add(es, GROUP_KING_SAFETY, c, bonus);
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
    Score mobility = 0, other = 0;
    int blocked_centre = popcount(our_pawns & pawn_push(them, occ) & CENTER_FILES); /* for the bishops */

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
            if (!es->all)
                continue;
            if (pt == KNIGHT || pt == BISHOP) {
                /* An outpost: in the enemy half, defended by a pawn, no enemy pawn can chase it. */
                if ((square_bb(s) & outpost_ranks) && (PawnAttacks[them][s] & our_pawns) &&
                    !(passed_span(c, s) & adjacent_files(s) & their_pawns))
                    other += pt == KNIGHT ? prm->knight_outpost : prm->bishop_outpost;
                if (pawn_push(c, square_bb(s)) & p->by_type[PAWN])
                    other += prm->minor_behind_pawn;
                other += prm->king_protector * distance(s, king_square(p, c));
                if (pt == BISHOP) {
                    /* Own pawns on its colour hem it in, the more so with the centre blocked. */
                    Bitboard colour = (square_bb(s) & DARK_SQUARES) ? DARK_SQUARES : ~DARK_SQUARES;
                    other += prm->bishop_pawns * (popcount(our_pawns & colour) * (1 + blocked_centre));
                    if (more_than_one(bishop_attacks(s, p->by_type[PAWN]) & CENTER_SQUARES))
                        other += prm->bishop_long_diagonal;
                }
            } else if (pt == ROOK) {
                Bitboard file = file_bb(square_file(s));
                if (!(file & (our_pawns | their_pawns)))
                    other += prm->rook_open_file;
                else if (!(file & our_pawns))
                    other += prm->rook_semi_open_file;
                if (relative_rank(c, s) == RANK_7 &&
                    (relative_rank(c, king_square(p, them)) == RANK_8 || (their_pawns & rank_bb(square_rank(s)))))
                    other += prm->rook_seventh;
                /* Shut in by its own king on the same wing; worse when the king can no longer castle. */
                int kf = square_file(king_square(p, c));
                if (mob <= 3 && (kf < FILE_E) == (square_file(s) < kf) && square_file(s) != kf) {
                    int rights = p->st->castling & (c == WHITE ? (WHITE_OO | WHITE_OOO) : (BLACK_OO | BLACK_OOO));
                    other += prm->rook_trapped * (1 + !rights);
                }
            }
        }
    }
    add(es, GROUP_MOBILITY, c, mobility);
    add(es, GROUP_OTHER, c, other);
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
    Bitboard bishop_lines = bishop_attacks(k, occ), rook_lines = rook_attacks(k, occ);
    int danger = es->attack_units[c] * es->attackers[c] / 2;
    Bitboard checks[PIECE_TYPE_NB] = {0};
    checks[KNIGHT] = KnightAttacks[k] & es->attacked[c][KNIGHT];
    checks[BISHOP] = bishop_lines & es->attacked[c][BISHOP];
    checks[ROOK] = rook_lines & es->attacked[c][ROOK];
    checks[QUEEN] = (bishop_lines | rook_lines) & es->attacked[c][QUEEN];
    Bitboard unsafe = 0;
    for (PieceType pt = KNIGHT; pt <= QUEEN; pt++) {
        Bitboard b = checks[pt] & ~p->by_color[c];
        if (b & safe)
            danger += score_mg(prm->safe_check[pt]);
        else
            unsafe |= b;
    }
    danger += score_mg(prm->unsafe_check) * popcount(unsafe);
    /* Squares next to the king we attack and they defend only with the king or queen, if at all. */
    Bitboard weak = es->attacked[c][0] & ~es->attacked2[them] &
                    (~es->attacked[them][0] | es->attacked[them][KING] | es->attacked[them][QUEEN]);
    danger += score_mg(prm->king_ring_weak) * popcount(KingAttacks[k] & weak);
    /* Attacks on the king's flank in its own camp (their five ranks), twice-attacked squares twice. */
    Bitboard camp = them == WHITE ? ~0ULL >> 24 : ~0ULL << 24;
    Bitboard flank = es->attacked[c][0] & KingFlank[square_file(k)] & camp;
    danger += score_mg(prm->flank_attack) * (popcount(flank) + popcount(flank & es->attacked2[c]));
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

/* Threats against their pieces: safe pawns and safe pawn pushes hitting pieces, minors and rooks
 * hitting pieces by victim, the king hitting a weak piece, and pieces left hanging. */
static void eval_threats(EvalState *es, Color c)
{
    const Position *p = es->pos;
    const EvalParams *prm = es->prm;
    Color them = color_flip(c);
    Bitboard occ = occupied(p);
    Bitboard non_pawn = p->by_color[them] & ~p->by_type[PAWN] & ~p->by_type[KING];
    Bitboard strongly = es->attacked[them][PAWN] | (es->attacked2[them] & ~es->attacked2[c]);
    Bitboard defended = non_pawn & strongly;
    Bitboard weak = p->by_color[them] & ~strongly & es->attacked[c][0] & ~p->by_type[KING];
    Score bonus = 0;
    if (defended | weak) {
        Bitboard b = (defended | weak) & (es->attacked[c][KNIGHT] | es->attacked[c][BISHOP]);
        while (b)
            bonus += prm->threat_by_minor[piece_type(p->board[pop_lsb(&b)])];
        b = weak & es->attacked[c][ROOK];
        while (b)
            bonus += prm->threat_by_rook[piece_type(p->board[pop_lsb(&b)])];
        if (weak & es->attacked[c][KING])
            bonus += prm->threat_by_king;
        b = ~es->attacked[them][0] | (non_pawn & es->attacked2[c]);
        bonus += prm->hanging * popcount(weak & b);
    }
    /* Pawns that are safe (not attacked, or defended) hitting pieces; and safe pushes that would. */
    Bitboard safe = ~es->attacked[them][0] | es->attacked[c][0];
    Bitboard ours = pieces(p, c, PAWN);
    bonus += prm->threat_by_pawn * popcount(pawn_attacks_bb(c, ours & safe) & non_pawn);
    Bitboard push = pawn_push(c, ours) & ~occ;
    push |= pawn_push(c, push & (c == WHITE ? RANK_3_BB : RANK_6_BB)) & ~occ;
    push &= ~es->attacked[them][PAWN] & safe;
    bonus += prm->threat_by_pawn_push * popcount(pawn_attacks_bb(c, push) & non_pawn);
    add(es, GROUP_OTHER, c, bonus);
}

/* Space in the middlegame: safe central squares on our side, those behind our pawns twice,
 * weighted by our piece count squared. */
static void eval_space(EvalState *es, Color c)
{
    const Position *p = es->pos;
    Color them = color_flip(c);
    if (p->st->material[WHITE] + p->st->material[BLACK] <
        2 * (PieceValueMg[QUEEN] + PieceValueMg[ROOK] + PieceValueMg[BISHOP] + PieceValueMg[KNIGHT]))
        return;
    Bitboard mask =
        CENTER_FILES & (c == WHITE ? (RANK_2_BB | RANK_3_BB | RANK_4_BB) : (RANK_5_BB | RANK_6_BB | RANK_7_BB));
    Bitboard ours = pieces(p, c, PAWN);
    Bitboard safe = mask & ~ours & ~es->attacked[them][PAWN];
    Bitboard behind = ours | pawn_push(them, ours);
    behind |= pawn_push(them, pawn_push(them, ours));
    int bonus = popcount(safe) + popcount(behind & safe & ~es->attacked[them][0]);
    int weight = popcount(p->by_color[c]) - 1;
    add(es, GROUP_OTHER, c, es->prm->space * (bonus * weight * weight / 16));
}

/* The endgame's initiative: with passed pawns, many pawns and pawns on both wings the side ahead
 * can press; without them (or in a pawn ending, for that matter) less so. It moves the endgame
 * score towards or away from zero, never past it. */
static int initiative(const EvalState *es, int eg)
{
    const Position *p = es->pos;
    const EvalParams *prm = es->prm;
    Bitboard pawns = p->by_type[PAWN];
    bool both_flanks = (pawns & QUEEN_SIDE) && (pawns & KING_SIDE);
    bool pawn_ending = p->st->material[WHITE] + p->st->material[BLACK] == 0;
    int complexity = score_eg(prm->initiative[0]) * popcount(es->passed) +
                     score_eg(prm->initiative[1]) * popcount(pawns) + score_eg(prm->initiative[2]) * both_flanks +
                     score_eg(prm->initiative[3]) * pawn_ending + score_eg(prm->initiative[4]);
    int sign = (eg > 0) - (eg < 0);
    int v = complexity > -abs(eg) ? complexity : -abs(eg);
    return sign * v;
}

/* Endgame scale (of 64): drawish material lowers the endgame part. 0 where no win can be forced by the side
 * ahead (eg's sign): no pawns and a minor piece at most (bar the other side's own pawns boxing its king in, which
 * the search sees as mates); two knights against a bare king; a bishop and rook pawns on one file against a bare
 * king on or beside the queening square the bishop does not cover. */
static int endgame_scale(const Position *p, int eg)
{
    Color strong = eg > 0 ? WHITE : BLACK, weak = color_flip(strong);
    int strong_npm = p->st->material[strong], weak_npm = p->st->material[weak];
    Bitboard pawns = pieces(p, strong, PAWN);
    if (!pawns && strong_npm - weak_npm <= PieceValueMg[BISHOP])
        return strong_npm < PieceValueMg[ROOK] ? 0 : 16;
    if (strong_npm == PieceValueMg[BISHOP] && weak_npm == PieceValueMg[BISHOP] && popcount(p->by_type[BISHOP]) == 2) {
        Bitboard b = p->by_type[BISHOP];
        if ((b & DARK_SQUARES) && (b & ~DARK_SQUARES))
            return 32; /* opposite-coloured bishops */
    }
    if (weak_npm || pieces(p, weak, PAWN))
        return 64; /* the rules below are against a bare king; most positions end here, at every node */
    if (!pawns && strong_npm == 2 * PieceValueMg[KNIGHT] && popcount(pieces(p, strong, KNIGHT)) == 2)
        return 0;
    Bitboard bishops = pieces(p, strong, BISHOP);
    int file = !(pawns & ~FILE_A_BB) ? 0 : !(pawns & ~FILE_H_BB) ? 7 : -1;
    if (pawns && file >= 0 && strong_npm == PieceValueMg[BISHOP] && bishops) {
        Square queening = (Square)(strong == WHITE ? 56 + file : file);
        if (!(bishops & DARK_SQUARES) != !(square_bb(queening) & DARK_SQUARES) &&
            distance(king_square(p, weak), queening) <= 1)
            return 0; /* the bishop does not cover the corner the defending king holds */
    }
    return 64;
}

/* The groups the affective mode re-weights. A re-weighting that leaves the others at one needs only
 * these (and what they are computed from) to know what it changes. */
#define REWEIGHTABLE                                                                                   \
    (1u << GROUP_MATERIAL | 1u << GROUP_MOBILITY | 1u << GROUP_KING_SAFETY | 1u << GROUP_OPP_KING_EXPOSURE)

/* Fills the groups of es (White's view, middlegame and endgame parts): every group when all, else
 * only the REWEIGHTABLE ones (the others are left at zero). */
static void eval_groups(EvalState *es, const Position *p, const EvalParams *prm, bool all)
{
    es->all = all;
    es->pos = p;
    es->prm = prm;
    es->passed = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        es->g[g] = 0;

    /* Material, and piece-square from the accumulator when the weights are the defaults. */
    Score material = 0;
    for (PieceType pt = PAWN; pt <= QUEEN; pt++)
        material += prm->piece_value[pt] * (popcount(pieces(p, WHITE, pt)) - popcount(pieces(p, BLACK, pt)));
    es->g[GROUP_MATERIAL] = material;
    if (all && prm == &DefaultParams)
        es->g[GROUP_OTHER] = p->st->psq - material;
    else if (all) {
        for (Bitboard b = occupied(p); b;) {
            Square s = pop_lsb(&b);
            Piece pc = p->board[s];
            Score v = prm->psq[piece_type(pc)][piece_color(pc) == WHITE ? s : square_flip(s)];
            es->g[GROUP_OTHER] += piece_color(pc) == WHITE ? v : -v;
        }
    }

    for (Color c = WHITE; c <= BLACK; c++) {
        Square k = king_square(p, c);
        es->attacked[c][PAWN] = pawn_attacks_bb(c, pieces(p, c, PAWN));
        es->attacked[c][KING] = KingAttacks[k];
        es->attacked[c][0] = es->attacked[c][PAWN] | es->attacked[c][KING];
        es->attacked2[c] = es->attacked[c][PAWN] & es->attacked[c][KING];
        for (PieceType pt = KNIGHT; pt <= QUEEN; pt++)
            es->attacked[c][pt] = 0;
        es->king_zone[c] = KingAttacks[k] | square_bb(k);
        es->king_zone[c] |= pawn_push(c, es->king_zone[c]);
        es->attackers[c] = es->attack_units[c] = 0;
    }
    for (Color c = WHITE; c <= BLACK; c++)
        es->mobility_area[c] = ~(pieces(p, c, PAWN) | pieces(p, c, KING) | es->attacked[color_flip(c)][PAWN]);

    if (all) {
        eval_pawns(es, WHITE);
        eval_pawns(es, BLACK);
    }
    eval_pieces(es, WHITE);
    eval_pieces(es, BLACK);
    eval_king_shelter(es, WHITE);
    eval_king_shelter(es, BLACK);
    eval_king_attack(es, WHITE);
    eval_king_attack(es, BLACK);
    if (!all)
        return;
    eval_passed(es, WHITE);
    eval_passed(es, BLACK);
    eval_threats(es, WHITE);
    eval_threats(es, BLACK);
    eval_space(es, WHITE);
    eval_space(es, BLACK);
    if (pieces(p, WHITE, BISHOP) && more_than_one(pieces(p, WHITE, BISHOP)))
        es->g[GROUP_OTHER] += prm->bishop_pair;
    if (pieces(p, BLACK, BISHOP) && more_than_one(pieces(p, BLACK, BISHOP)))
        es->g[GROUP_OTHER] -= prm->bishop_pair;
    es->g[GROUP_OTHER] += p->side == WHITE ? prm->tempo : -prm->tempo;
}

/* Tapers each group by the phase and scales its endgame part (the initiative, into "other", only
 * when every group is there) into v[]: centipawns, White's view. Returns the phase. */
static int blend(EvalState *es, int v[EVAL_GROUP_NB])
{
    const Position *p = es->pos;
    int phase = popcount(p->by_type[KNIGHT] | p->by_type[BISHOP]) + 2 * popcount(p->by_type[ROOK]) +
                4 * popcount(p->by_type[QUEEN]);
    if (phase > 24)
        phase = 24;
    int eg_sum = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        eg_sum += score_eg(es->g[g]);
    if (es->all) {
        int push = initiative(es, eg_sum);
        es->g[GROUP_OTHER] += S(0, push);
        eg_sum += push;
    }
    int scale = endgame_scale(p, eg_sum);
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        v[g] = (int)(((long)score_mg(es->g[g]) * phase + (long)score_eg(es->g[g]) * (24 - phase) * scale / 64) / 24);
    return phase;
}

int evaluate_terms(const Position *p, const Evaluator *e, EvalTerms *terms)
{
    EvalState es;
    int v[EVAL_GROUP_NB];
    eval_groups(&es, p, e->params, true);
    int phase = blend(&es, v);
    long total = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        total += (long)v[g] * e->weight[g];
    int white = (int)(total / EVAL_WEIGHT_ONE);
    if (terms) {
        for (int g = 0; g < EVAL_GROUP_NB; g++)
            terms->group[g] = v[g];
        terms->total = white;
        terms->phase = phase;
    }
    return p->side == WHITE ? white : -white;
}

/* What a re-weighting changes in the hand-written evaluation, side to move's view. Only weights
 * differ (the affective mode): the sum of (weight - 1) x group, the groups computed alone when those
 * the affective mode re-weights are all it touches (pawn structure, passed pawns, threats, space, the
 * initiative and the pieces' other terms skipped). Other parameters (the Bayesian mode): the changed
 * score less the default one, two whole passes. */
static int reweighting(const Position *p, const Evaluator *e)
{
    if (e->params != &DefaultParams) {
        Evaluator hand;
        evaluator_hand(&hand);
        return evaluate_terms(p, e, NULL) - evaluate_terms(p, &hand, NULL);
    }
    /* The endgame scale needs to know which side is ahead only in a few endings (a side without
     * pawns); there every group is computed, so the change is always the whole evaluation's. */
    bool all = endgame_scale(p, 1) != endgame_scale(p, -1);
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        all |= !(REWEIGHTABLE & 1u << g) && e->weight[g] != EVAL_WEIGHT_ONE;
    EvalState es;
    int v[EVAL_GROUP_NB];
    eval_groups(&es, p, e->params, all);
    blend(&es, v);
    long change = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        change += (long)v[g] * (e->weight[g] - EVAL_WEIGHT_ONE);
    int white = (int)(change / EVAL_WEIGHT_ONE);
    return p->side == WHITE ? white : -white;
}

bool eval_drawn_ending(const Position *p, int white_v)
{
    return endgame_scale(p, white_v) == 0;
}

int evaluate_with(const Position *p, const Evaluator *e, NnueStack *stack)
{
    int v;
    if (!e->net)
        v = evaluate_terms(p, e, NULL);
    else {
        v = nnue_evaluate(e->net, p, stack) * EVAL_PAWN / 100;
        if (eval_drawn_ending(p, p->side == WHITE ? v : -v))
            v = 0; /* whatever the emotion or the parameters */
        else if (e->reweighted)
            v += reweighting(p, e);
    }
    return v > EVAL_MAX ? EVAL_MAX : v < -EVAL_MAX ? -EVAL_MAX : v;
}

int evaluate(const Position *p, const Evaluator *e) { return evaluate_with(p, e, NULL); }
