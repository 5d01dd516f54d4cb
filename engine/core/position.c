/* Make/unmake with incremental Zobrist keys and accumulators, attack queries and draw rules. */
#include "position.h"

#include <assert.h>
#include <limits.h>
#include <string.h>

#include "psqt.h"

static Key ZobristPsq[PIECE_NB][SQUARE_NB];
static Key ZobristEp[FILE_NB];
static Key ZobristCastling[CASTLING_NB];
static Key ZobristSide;
/* Rights that survive a move touching each square (e1 clears both white rights, h1 one...). */
static int CastlingKeep[SQUARE_NB];

void position_init(void)
{
    uint64_t s = 0x5A17F00DCAFEBABEULL;
    for (int p = 0; p < PIECE_NB; p++)
        for (Square sq = 0; sq < SQUARE_NB; sq++) {
            s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
            ZobristPsq[p][sq] = (p == NO_PIECE) ? 0 : s * 2685821657736338717ULL;
        }
    for (int f = 0; f < FILE_NB; f++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        ZobristEp[f] = s * 2685821657736338717ULL;
    }
    Key single[4];
    for (int i = 0; i < 4; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        single[i] = s * 2685821657736338717ULL;
    }
    for (int cr = 0; cr < CASTLING_NB; cr++) {
        ZobristCastling[cr] = 0;
        for (int i = 0; i < 4; i++)
            if (cr & (1 << i))
                ZobristCastling[cr] ^= single[i];
    }
    s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
    ZobristSide = s * 2685821657736338717ULL;

    for (Square sq = 0; sq < SQUARE_NB; sq++)
        CastlingKeep[sq] = CASTLING_NB - 1;
    CastlingKeep[E1] &= ~(WHITE_OO | WHITE_OOO);
    CastlingKeep[H1] &= ~WHITE_OO;
    CastlingKeep[A1] &= ~WHITE_OOO;
    CastlingKeep[E8] &= ~(BLACK_OO | BLACK_OOO);
    CastlingKeep[H8] &= ~BLACK_OO;
    CastlingKeep[A8] &= ~BLACK_OOO;
}

Bitboard position_attackers_to(const Position *p, Square s, Bitboard occ)
{
    return (PawnAttacks[BLACK][s] & pieces(p, WHITE, PAWN)) | (PawnAttacks[WHITE][s] & pieces(p, BLACK, PAWN)) |
           (KnightAttacks[s] & p->by_type[KNIGHT]) | (KingAttacks[s] & p->by_type[KING]) |
           (bishop_attacks(s, occ) & (p->by_type[BISHOP] | p->by_type[QUEEN])) |
           (rook_attacks(s, occ) & (p->by_type[ROOK] | p->by_type[QUEEN]));
}

bool position_attacked_by(const Position *p, Color c, Square s, Bitboard occ)
{
    Bitboard them = p->by_color[c];
    return (PawnAttacks[color_flip(c)][s] & them & p->by_type[PAWN]) ||
           (KnightAttacks[s] & them & p->by_type[KNIGHT]) || (KingAttacks[s] & them & p->by_type[KING]) ||
           (bishop_attacks(s, occ) & them & (p->by_type[BISHOP] | p->by_type[QUEEN])) ||
           (rook_attacks(s, occ) & them & (p->by_type[ROOK] | p->by_type[QUEEN]));
}

static inline void put_piece(Position *p, Piece pc, Square s)
{
    Bitboard b = square_bb(s);
    p->board[s] = pc;
    p->by_type[0] |= b;
    p->by_type[piece_type(pc)] |= b;
    p->by_color[piece_color(pc)] |= b;
    p->piece_count[pc]++;
}

static inline void remove_piece(Position *p, Square s)
{
    Piece pc = p->board[s];
    Bitboard b = square_bb(s);
    p->board[s] = NO_PIECE;
    p->by_type[0] ^= b;
    p->by_type[piece_type(pc)] ^= b;
    p->by_color[piece_color(pc)] ^= b;
    p->piece_count[pc]--;
}

static inline void move_piece(Position *p, Square from, Square to)
{
    Piece pc = p->board[from];
    Bitboard b = square_bb(from) | square_bb(to);
    p->board[from] = NO_PIECE;
    p->board[to] = pc;
    p->by_type[0] ^= b;
    p->by_type[piece_type(pc)] ^= b;
    p->by_color[piece_color(pc)] ^= b;
}

/* Whether the side to move has a legal en-passant capture onto ep (the pawn that just moved two
 * squares stands on victim). Kept exact so keys and FENs mention ep only when it matters. */
static bool ep_capture_legal(const Position *p, Square ep, Square victim)
{
    Color us = p->side, them = color_flip(us);
    Bitboard capturers = PawnAttacks[them][ep] & pieces(p, us, PAWN);
    Square ksq = king_square(p, us);
    while (capturers) {
        Square from = pop_lsb(&capturers);
        Bitboard occ = (occupied(p) ^ square_bb(from) ^ square_bb(victim)) | square_bb(ep);
        Bitboard rq = pieces(p, them, ROOK) | pieces(p, them, QUEEN);
        Bitboard bq = pieces(p, them, BISHOP) | pieces(p, them, QUEEN);
        Bitboard others = (pieces(p, them, KNIGHT) & KnightAttacks[ksq]) |
                          (pieces(p, them, PAWN) & ~square_bb(victim) & PawnAttacks[us][ksq]);
        if (!(rook_attacks(ksq, occ) & rq) && !(bishop_attacks(ksq, occ) & bq) && !others)
            return true;
    }
    return false;
}

bool position_gives_check(const Position *p, Move m)
{
    Color us = p->side, them = color_flip(us);
    Square from = move_from(m), to = move_to(m), ksq = king_square(p, them);
    PieceType pt = piece_type(p->board[from]);
    int kind = move_kind(m);
    Bitboard occ = occupied(p) ^ square_bb(from);
    Bitboard ours = p->by_color[us] ^ square_bb(from);
    Bitboard moved = 0, diag = (p->by_type[BISHOP] | p->by_type[QUEEN]) & ours,
             straight = (p->by_type[ROOK] | p->by_type[QUEEN]) & ours;

    if (kind == MOVE_CASTLING) {
        Square rfrom = to > from ? from + 3 : from - 4, rto = to > from ? from + 1 : from - 1;
        occ = (occ ^ square_bb(rfrom)) | square_bb(to) | square_bb(rto);
        return (rook_attacks(rto, occ) & square_bb(ksq)) != 0;
    }
    if (kind == MOVE_EN_PASSANT)
        occ ^= square_bb(us == WHITE ? to - 8 : to + 8);
    occ |= square_bb(to);
    if (kind == MOVE_PROMOTION)
        pt = move_promo(m);
    /* Direct check by the piece on its new square. */
    switch (pt) {
    case PAWN: moved = PawnAttacks[us][to]; break;
    case KNIGHT: moved = KnightAttacks[to]; break;
    case BISHOP: moved = bishop_attacks(to, occ); break;
    case ROOK: moved = rook_attacks(to, occ); break;
    case QUEEN: moved = queen_attacks(to, occ); break;
    default: break;
    }
    if (moved & square_bb(ksq))
        return true;
    /* Discovered check by a slider whose line the move opened (captured pieces leave it too). */
    diag &= ~square_bb(to);
    straight &= ~square_bb(to);
    return (bishop_attacks(ksq, occ) & diag) || (rook_attacks(ksq, occ) & straight);
}

void position_check_info(const Position *p, CheckInfo *ci)
{
    Color us = p->side, them = color_flip(us);
    Square k = king_square(p, them);
    Bitboard occ = occupied(p);
    ci->ksq = k;
    ci->check_squares[0] = ci->check_squares[KING] = 0;
    ci->check_squares[PAWN] = PawnAttacks[them][k];
    ci->check_squares[KNIGHT] = KnightAttacks[k];
    ci->check_squares[BISHOP] = bishop_attacks(k, occ);
    ci->check_squares[ROOK] = rook_attacks(k, occ);
    ci->check_squares[QUEEN] = ci->check_squares[BISHOP] | ci->check_squares[ROOK];
    /* Our sliders that see their king on an empty board; one piece of ours between: a discoverer. */
    Bitboard snipers = ((bishop_attacks(k, 0) & (p->by_type[BISHOP] | p->by_type[QUEEN])) |
                        (rook_attacks(k, 0) & (p->by_type[ROOK] | p->by_type[QUEEN]))) &
                       p->by_color[us];
    ci->discoverers = 0;
    while (snipers) {
        Bitboard between = BetweenBB[k][pop_lsb(&snipers)] & occ;
        if (between && !more_than_one(between))
            ci->discoverers |= between & p->by_color[us];
    }
}

void position_make_move(Position *p, Move m)
{
    assert(p->stack_len + 1 < POSITION_STACK_SIZE);
    StateInfo *prev = p->st, *st = prev + 1;
    Color us = p->side, them = color_flip(us);
    Square from = move_from(m), to = move_to(m);
    Piece pc = p->board[from];
    int kind = move_kind(m);

    st->key = prev->key ^ ZobristSide;
    st->pawn_key = prev->pawn_key;
    st->psq = prev->psq;
    st->material[WHITE] = prev->material[WHITE];
    st->material[BLACK] = prev->material[BLACK];
    st->rule50 = prev->rule50 + 1;
    st->plies_from_null = prev->plies_from_null + 1;
    st->move = m;
    st->moved = pc;
    st->ep = NO_SQUARE;
    if (prev->ep != NO_SQUARE)
        st->key ^= ZobristEp[square_file(prev->ep)];

    Piece captured = NO_PIECE;
    if (kind == MOVE_CASTLING) {
        Square rfrom = to > from ? from + 3 : from - 4, rto = to > from ? from + 1 : from - 1;
        Piece rook = p->board[rfrom];
        move_piece(p, from, to);
        move_piece(p, rfrom, rto);
        st->key ^= ZobristPsq[pc][from] ^ ZobristPsq[pc][to] ^ ZobristPsq[rook][rfrom] ^ ZobristPsq[rook][rto];
        st->pawn_key ^= ZobristPsq[pc][from] ^ ZobristPsq[pc][to];
        st->psq += PsqTable[pc][to] - PsqTable[pc][from] + PsqTable[rook][rto] - PsqTable[rook][rfrom];
    } else {
        Square capsq = kind == MOVE_EN_PASSANT ? (us == WHITE ? to - 8 : to + 8) : to;
        captured = p->board[capsq];
        if (captured) {
            remove_piece(p, capsq);
            st->key ^= ZobristPsq[captured][capsq];
            st->psq -= PsqTable[captured][capsq];
            if (piece_type(captured) == PAWN)
                st->pawn_key ^= ZobristPsq[captured][capsq];
            else
                st->material[them] -= PieceValueMg[piece_type(captured)];
            st->rule50 = 0;
        }
        move_piece(p, from, to);
        st->key ^= ZobristPsq[pc][from] ^ ZobristPsq[pc][to];
        st->psq += PsqTable[pc][to] - PsqTable[pc][from];
        if (piece_type(pc) == PAWN || piece_type(pc) == KING)
            st->pawn_key ^= ZobristPsq[pc][from] ^ ZobristPsq[pc][to];
        if (piece_type(pc) == PAWN) {
            st->rule50 = 0;
            if (kind == MOVE_PROMOTION) {
                Piece promo = piece_make(us, move_promo(m));
                remove_piece(p, to);
                put_piece(p, promo, to);
                st->key ^= ZobristPsq[pc][to] ^ ZobristPsq[promo][to];
                st->pawn_key ^= ZobristPsq[pc][to];
                st->psq += PsqTable[promo][to] - PsqTable[pc][to];
                st->material[us] += PieceValueMg[move_promo(m)];
            }
        }
    }
    st->captured = captured;

    int cr = prev->castling & CastlingKeep[from] & CastlingKeep[to];
    if (cr != prev->castling)
        st->key ^= ZobristCastling[prev->castling] ^ ZobristCastling[cr];
    st->castling = cr;

    p->side = them;
    p->game_ply++;
    p->stack_len++;
    p->st = st;

    /* A double push sets the ep square only if the opponent can really capture there. */
    if (piece_type(pc) == PAWN && (to ^ from) == 16 && (PawnAttacks[us][(from + to) / 2] & pieces(p, them, PAWN)) &&
        ep_capture_legal(p, (from + to) / 2, to)) {
        st->ep = (from + to) / 2;
        st->key ^= ZobristEp[square_file(st->ep)];
    }
    st->checkers = position_attackers_to(p, king_square(p, them), occupied(p)) & p->by_color[us];
}

void position_unmake_move(Position *p)
{
    StateInfo *st = p->st;
    Move m = st->move;
    Color them = p->side, us = color_flip(them);
    Square from = move_from(m), to = move_to(m);
    int kind = move_kind(m);

    if (kind == MOVE_CASTLING) {
        Square rfrom = to > from ? from + 3 : from - 4, rto = to > from ? from + 1 : from - 1;
        move_piece(p, to, from);
        move_piece(p, rto, rfrom);
    } else {
        if (kind == MOVE_PROMOTION) {
            remove_piece(p, to);
            put_piece(p, piece_make(us, PAWN), to);
        }
        move_piece(p, to, from);
        if (st->captured) {
            Square capsq = kind == MOVE_EN_PASSANT ? (us == WHITE ? to - 8 : to + 8) : to;
            put_piece(p, st->captured, capsq);
        }
    }
    p->side = us;
    p->game_ply--;
    p->stack_len--;
    p->st = st - 1;
}

void position_make_null(Position *p)
{
    assert(p->stack_len + 1 < POSITION_STACK_SIZE);
    StateInfo *prev = p->st, *st = prev + 1;
    *st = *prev;
    st->key ^= ZobristSide;
    if (prev->ep != NO_SQUARE)
        st->key ^= ZobristEp[square_file(prev->ep)];
    st->ep = NO_SQUARE;
    st->rule50++;
    st->plies_from_null = 0;
    st->captured = NO_PIECE;
    st->move = MOVE_NULL;
    st->checkers = 0;
    p->side = color_flip(p->side);
    p->game_ply++;
    p->stack_len++;
    p->st = st;
}

void position_unmake_null(Position *p)
{
    p->side = color_flip(p->side);
    p->game_ply--;
    p->stack_len--;
    p->st--;
}

void position_trim_history(Position *p)
{
    /* Repetitions further back than a quarter of the stack are forgotten: such a game has gone
     * hundreds of plies without a capture or pawn move. */
    int keep = p->st->rule50 < p->stack_len ? p->st->rule50 : p->stack_len;
    if (keep > POSITION_STACK_SIZE / 4)
        keep = POSITION_STACK_SIZE / 4;
    if (keep == p->stack_len)
        return;
    memmove(p->stack, p->st - keep, (size_t)(keep + 1) * sizeof(StateInfo));
    p->stack_len = keep;
    p->st = &p->stack[keep];
}

Key position_key_after(const Position *p, Move m)
{
    Square from = move_from(m), to = move_to(m);
    Piece pc = p->board[from], cap = p->board[to];
    Key k = p->st->key ^ ZobristSide ^ ZobristPsq[pc][from] ^ ZobristPsq[pc][to];
    if (cap && move_kind(m) != MOVE_CASTLING)
        k ^= ZobristPsq[cap][to];
    return k;
}

void position_refresh_state(Position *p)
{
    StateInfo *st = p->st;
    st->key = p->side == BLACK ? ZobristSide : 0;
    st->pawn_key = 0;
    st->psq = 0;
    st->material[WHITE] = st->material[BLACK] = 0;
    for (Square s = 0; s < SQUARE_NB; s++) {
        Piece pc = p->board[s];
        if (!pc)
            continue;
        st->key ^= ZobristPsq[pc][s];
        if (piece_type(pc) == PAWN || piece_type(pc) == KING)
            st->pawn_key ^= ZobristPsq[pc][s];
        if (piece_type(pc) != PAWN)
            st->material[piece_color(pc)] += PieceValueMg[piece_type(pc)];
        st->psq += PsqTable[pc][s];
    }
    st->key ^= ZobristCastling[st->castling];
    if (st->ep != NO_SQUARE)
        st->key ^= ZobristEp[square_file(st->ep)];
    st->checkers = position_attackers_to(p, king_square(p, p->side), occupied(p)) & p->by_color[color_flip(p->side)];
}

bool position_is_repetition(const Position *p, int count)
{
    int end = p->st->rule50 < p->st->plies_from_null ? p->st->rule50 : p->st->plies_from_null;
    if (end > p->stack_len)
        end = p->stack_len;
    int seen = 0;
    for (int i = 4; i <= end; i += 2)
        if ((p->st - i)->key == p->st->key && ++seen >= count)
            return true;
    return false;
}

bool position_insufficient_material(const Position *p)
{
    if (p->by_type[PAWN] | p->by_type[ROOK] | p->by_type[QUEEN])
        return false;
    Bitboard minors = p->by_type[KNIGHT] | p->by_type[BISHOP];
    if (popcount(minors) <= 1)
        return true; /* K v K, K+minor v K */
    /* Only bishops, all on squares of one colour: no mate is possible. */
    if (!p->by_type[KNIGHT]) {
        const Bitboard dark = 0xAA55AA55AA55AA55ULL;
        Bitboard b = p->by_type[BISHOP];
        return !(b & dark) || !(b & ~dark);
    }
    return false;
}

void position_copy_root(Position *dst, const Position *src)
{
    memcpy(dst, src, offsetof(Position, stack));
    dst->stack[0] = *src->st;
    dst->stack_len = 0;
    dst->st = &dst->stack[0];
}

void position_copy(Position *dst, const Position *src)
{
    memcpy(dst, src, offsetof(Position, stack));
    memcpy(dst->stack, src->stack, (size_t)(src->stack_len + 1) * sizeof(StateInfo));
    dst->st = &dst->stack[src->stack_len];
}
