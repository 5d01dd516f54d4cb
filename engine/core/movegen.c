/* Legal move generation with check and pin masks (no make/unmake to test legality).
 * One inline generator serves four callers: storing moves of a kind, counting them for perft's
 * last ply (whole target sets are popcounted instead of stored), and testing one move (the
 * generator limited to its from- and to-square, so only that piece's moves are looked at). */
#include "movegen.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

typedef struct {
    Move *out;
    int count;
    bool count_only;
} Sink;

static ALWAYS_INLINE void sink_targets(Sink *s, Square from, Bitboard targets)
{
    if (s->count_only) {
        s->count += popcount(targets);
        return;
    }
    while (targets)
        *s->out++ = move_make(from, pop_lsb(&targets), MOVE_NORMAL, 0);
}

/* Pawn moves of a set-wise group: to-squares shifted by `delta` from their from-squares. */
static ALWAYS_INLINE void sink_pawns(Sink *s, Bitboard targets, int delta)
{
    if (s->count_only) {
        s->count += popcount(targets);
        return;
    }
    while (targets) {
        Square to = pop_lsb(&targets);
        *s->out++ = move_make(to - delta, to, MOVE_NORMAL, 0);
    }
}

static ALWAYS_INLINE void sink_promotions(Sink *s, Bitboard targets, int delta)
{
    if (s->count_only) {
        s->count += 4 * popcount(targets);
        return;
    }
    while (targets) {
        Square to = pop_lsb(&targets);
        for (PieceType pt = QUEEN; pt >= KNIGHT; pt--)
            *s->out++ = move_make(to - delta, to, MOVE_PROMOTION, pt);
    }
}

/* Pawns in `pawns` whose destination must lie in `allowed` (check mask or pin line). */
static ALWAYS_INLINE void gen_pawns(Sink *s, const Position *p, Color us, Bitboard pawns, Bitboard allowed,
                                    GenType type)
{
    Bitboard empty = ~occupied(p), enemies = p->by_color[color_flip(us)];
    Bitboard rank7 = us == WHITE ? RANK_7_BB : RANK_2_BB;
    Bitboard rank3 = us == WHITE ? RANK_3_BB : RANK_6_BB;
    int up = us == WHITE ? 8 : -8, up_west = us == WHITE ? 7 : -9, up_east = us == WHITE ? 9 : -7;
    Bitboard promo = pawns & rank7, rest = pawns & ~rank7;

    if (type != GEN_NOISY) {
        Bitboard push1 = pawn_push(us, rest) & empty;
        Bitboard push2 = pawn_push(us, push1 & rank3) & empty & allowed;
        sink_pawns(s, push1 & allowed, up);
        sink_pawns(s, push2, 2 * up);
    }
    if (type != GEN_QUIET) {
        Bitboard west = us == WHITE ? (rest & ~FILE_A_BB) << 7 : (rest & ~FILE_A_BB) >> 9;
        Bitboard east = us == WHITE ? (rest & ~FILE_H_BB) << 9 : (rest & ~FILE_H_BB) >> 7;
        sink_pawns(s, west & enemies & allowed, up_west);
        sink_pawns(s, east & enemies & allowed, up_east);
        if (promo) {
            Bitboard pw = us == WHITE ? (promo & ~FILE_A_BB) << 7 : (promo & ~FILE_A_BB) >> 9;
            Bitboard pe = us == WHITE ? (promo & ~FILE_H_BB) << 9 : (promo & ~FILE_H_BB) >> 7;
            sink_promotions(s, pawn_push(us, promo) & empty & allowed, up);
            sink_promotions(s, pw & enemies & allowed, up_west);
            sink_promotions(s, pe & enemies & allowed, up_east);
        }
    }
}

/* Moves of the given kind from a square in from_mask to a square in to_mask (both ~0 but when
 * one move is tested). */
static ALWAYS_INLINE int generate(const Position *p, Move *list, GenType type, bool count_only, Bitboard from_mask,
                                 Bitboard to_mask)
{
    Sink s = {list, 0, count_only};
    Color us = p->side, them = color_flip(us);
    Bitboard ours = p->by_color[us], theirs = p->by_color[them], occ = ours | theirs;
    Square ksq = king_square(p, us);
    Bitboard checkers = p->st->checkers;
    Bitboard target = (type == GEN_ALL ? ~ours : type == GEN_NOISY ? theirs : ~occ) & to_mask;

    /* King steps: the king itself must not shield the square it steps to along a ray. */
    Bitboard kt = from_mask & square_bb(ksq) ? KingAttacks[ksq] & target : 0, occ_no_king = occ ^ square_bb(ksq);
    while (kt) {
        Square to = pop_lsb(&kt);
        if (!position_attacked_by(p, them, to, occ_no_king)) {
            if (count_only)
                s.count++;
            else
                *s.out++ = move_make(ksq, to, MOVE_NORMAL, 0);
        }
    }
    if (more_than_one(checkers))
        goto done;

    Bitboard checkmask = checkers ? BetweenBB[ksq][lsb(checkers)] | checkers : ~0ULL;
    Bitboard their_rq = theirs & (p->by_type[ROOK] | p->by_type[QUEEN]);
    Bitboard their_bq = theirs & (p->by_type[BISHOP] | p->by_type[QUEEN]);
    Bitboard pinned = 0;
    Bitboard snipers = (rook_attacks(ksq, theirs) & their_rq) | (bishop_attacks(ksq, theirs) & their_bq);
    while (snipers) {
        Bitboard b = BetweenBB[ksq][pop_lsb(&snipers)] & occ;
        if (b && !more_than_one(b))
            pinned |= b & ours;
    }

    Bitboard movable = target & checkmask;
    Bitboard b = pieces(p, us, KNIGHT) & ~pinned & from_mask;
    while (b) {
        Square from = pop_lsb(&b);
        sink_targets(&s, from, KnightAttacks[from] & movable);
    }
    b = ours & (p->by_type[BISHOP] | p->by_type[QUEEN]) & from_mask;
    while (b) {
        Square from = pop_lsb(&b);
        Bitboard att = bishop_attacks(from, occ) & movable;
        if (pinned & square_bb(from))
            att &= LineBB[ksq][from];
        sink_targets(&s, from, att);
    }
    b = ours & (p->by_type[ROOK] | p->by_type[QUEEN]) & from_mask;
    while (b) {
        Square from = pop_lsb(&b);
        Bitboard att = rook_attacks(from, occ) & movable;
        if (pinned & square_bb(from))
            att &= LineBB[ksq][from];
        sink_targets(&s, from, att);
    }

    Bitboard pawns = pieces(p, us, PAWN) & from_mask;
    gen_pawns(&s, p, us, pawns & ~pinned, checkmask & to_mask, type);
    if (!checkers) {
        Bitboard pinned_pawns = pawns & pinned;
        while (pinned_pawns) {
            Square from = pop_lsb(&pinned_pawns);
            gen_pawns(&s, p, us, square_bb(from), LineBB[ksq][from] & to_mask, type);
        }
    }

    Square ep = p->st->ep;
    if (ep != NO_SQUARE && type != GEN_QUIET && (to_mask & square_bb(ep))) {
        Square victim = us == WHITE ? ep - 8 : ep + 8;
        Bitboard capturers = PawnAttacks[them][ep] & pawns;
        while (capturers) {
            Square from = pop_lsb(&capturers);
            Bitboard o = (occ ^ square_bb(from) ^ square_bb(victim)) | square_bb(ep);
            if ((rook_attacks(ksq, o) & their_rq) || (bishop_attacks(ksq, o) & their_bq) ||
                (KnightAttacks[ksq] & pieces(p, them, KNIGHT)) ||
                (PawnAttacks[us][ksq] & pieces(p, them, PAWN) & ~square_bb(victim)))
                continue;
            if (count_only)
                s.count++;
            else
                *s.out++ = move_make(from, ep, MOVE_EN_PASSANT, 0);
        }
    }

    Square k = us == WHITE ? E1 : E8;
    if (!checkers && type != GEN_NOISY && (from_mask & square_bb(k))) {
        int cr = p->st->castling & (us == WHITE ? WHITE_OO | WHITE_OOO : BLACK_OO | BLACK_OOO);
        if ((cr & (WHITE_OO | BLACK_OO)) && (to_mask & square_bb(k + 2)) &&
            !(occ & (square_bb(k + 1) | square_bb(k + 2))) &&
            !position_attacked_by(p, them, k + 1, occ) && !position_attacked_by(p, them, k + 2, occ)) {
            if (count_only)
                s.count++;
            else
                *s.out++ = move_make(k, k + 2, MOVE_CASTLING, 0);
        }
        if ((cr & (WHITE_OOO | BLACK_OOO)) && (to_mask & square_bb(k - 2)) &&
            !(occ & (square_bb(k - 1) | square_bb(k - 2) | square_bb(k - 3))) &&
            !position_attacked_by(p, them, k - 1, occ) && !position_attacked_by(p, them, k - 2, occ)) {
            if (count_only)
                s.count++;
            else
                *s.out++ = move_make(k, k - 2, MOVE_CASTLING, 0);
        }
    }
done:
    return count_only ? s.count : (int)(s.out - list);
}

int movegen_legal(const Position *p, MoveList *list, GenType type)
{
    switch (type) {
    case GEN_NOISY: list->count = generate(p, list->moves, GEN_NOISY, false, ~0ULL, ~0ULL); break;
    case GEN_QUIET: list->count = generate(p, list->moves, GEN_QUIET, false, ~0ULL, ~0ULL); break;
    default: list->count = generate(p, list->moves, GEN_ALL, false, ~0ULL, ~0ULL); break;
    }
    return list->count;
}

int movegen_count(const Position *p) { return generate(p, NULL, GEN_ALL, true, ~0ULL, ~0ULL); }

bool movegen_is_legal(const Position *p, Move m)
{
    Move moves[4]; /* one from- and to-square: at most the four promotions */
    int n = generate(p, moves, GEN_ALL, false, square_bb(move_from(m)), square_bb(move_to(m)));
    for (int i = 0; i < n; i++)
        if (moves[i] == m)
            return true;
    return false;
}
