/* SAN reading and writing, both against the legal move list. */
#include "san.h"

#include <string.h>

#include "../core/movegen.h"

static const char PieceLetter[] = "  NBRQK";

char *san_write(Position *p, Move m, char *buf)
{
    char *o = buf;
    Square from = move_from(m), to = move_to(m);
    PieceType pt = piece_type(p->board[from]);

    if (move_kind(m) == MOVE_CASTLING) {
        strcpy(o, to > from ? "O-O" : "O-O-O");
        o += strlen(o);
    } else {
        bool capture = is_capture(p, m);
        if (pt == PAWN) {
            if (capture)
                *o++ = (char)('a' + square_file(from));
        } else {
            *o++ = PieceLetter[pt];
            /* Other pieces of the same type that can also reach `to`. */
            MoveList list;
            movegen_legal(p, &list, GEN_ALL);
            bool ambiguous = false, same_file = false, same_rank = false;
            for (int i = 0; i < list.count; i++) {
                Move o2 = list.moves[i];
                Square f2 = move_from(o2);
                if (f2 == from || move_to(o2) != to || piece_type(p->board[f2]) != pt)
                    continue;
                ambiguous = true;
                same_file |= square_file(f2) == square_file(from);
                same_rank |= square_rank(f2) == square_rank(from);
            }
            if (ambiguous) {
                if (!same_file)
                    *o++ = (char)('a' + square_file(from));
                else if (!same_rank)
                    *o++ = (char)('1' + square_rank(from));
                else {
                    *o++ = (char)('a' + square_file(from));
                    *o++ = (char)('1' + square_rank(from));
                }
            }
        }
        if (capture)
            *o++ = 'x';
        *o++ = (char)('a' + square_file(to));
        *o++ = (char)('1' + square_rank(to));
        if (move_kind(m) == MOVE_PROMOTION) {
            *o++ = '=';
            *o++ = PieceLetter[move_promo(m)];
        }
    }
    position_make_move(p, m);
    if (in_check(p))
        *o++ = movegen_count(p) ? '+' : '#';
    position_unmake_move(p);
    *o = 0;
    return buf;
}

Move san_read(const Position *p, const char *s) { return san_read_ambiguous(p, s, NULL); }

Move san_read_ambiguous(const Position *p, const char *s, bool *ambiguous)
{
    if (ambiguous)
        *ambiguous = false;
    char t[16];
    size_t n = 0;
    /* Copy without the check/mate marks and annotation glyphs at the end. */
    size_t len = strlen(s);
    while (len && strchr("+#!?", s[len - 1]))
        len--;
    if (len == 0 || len >= sizeof t)
        return MOVE_NONE;
    memcpy(t, s, len);
    t[len] = 0;
    n = len;

    MoveList list;
    movegen_legal(p, &list, GEN_ALL);

    if (!strcmp(t, "O-O") || !strcmp(t, "0-0") || !strcmp(t, "O-O-O") || !strcmp(t, "0-0-0")) {
        bool king_side = n == 3;
        for (int i = 0; i < list.count; i++) {
            Move m = list.moves[i];
            if (move_kind(m) == MOVE_CASTLING && (move_to(m) > move_from(m)) == king_side)
                return m;
        }
        return MOVE_NONE;
    }

    PieceType pt = PAWN, promo = 0;
    const char *c = t;
    const char *letter = strchr(PieceLetter + 2, *c);
    if (*c && letter) {
        pt = KNIGHT + (PieceType)(letter - (PieceLetter + 2));
        c++;
    }
    /* Promotion at the end: "=Q" or "Q", in either case ("exd8q", as python-chess reads it: after the
     * rank or '=' a letter can only be the piece). */
    char *end = t + n;
    if (pt == PAWN && n >= 2) {
        char last = end[-1];
        const char *pl = strchr("NBRQ", last);
        if (last == 'n' || last == 'b' || last == 'r' || last == 'q') {
            if (n >= 3 && (end[-2] == '=' || end[-2] == '1' || end[-2] == '8'))
                pl = strchr("NBRQ", last - 32);
        }
        if (pl && last && (end[-2] == '=' || (end[-2] >= '1' && end[-2] <= '8'))) {
            promo = KNIGHT + (PieceType)(pl - "NBRQ");
            end -= (end[-2] == '=') ? 2 : 1;
        }
    }
    /* What remains: [file][rank][x]file rank. */
    if (end - c < 2)
        return MOVE_NONE;
    const char *dst = end - 2;
    if (dst[0] < 'a' || dst[0] > 'h' || dst[1] < '1' || dst[1] > '8')
        return MOVE_NONE;
    Square to = square_make(dst[0] - 'a', dst[1] - '1');
    int from_file = -1, from_rank = -1;
    bool capture = false;
    for (const char *q = c; q < dst; q++) {
        if (*q >= 'a' && *q <= 'h' && from_file < 0 && from_rank < 0 && !capture)
            from_file = *q - 'a';
        else if (*q >= '1' && *q <= '8' && from_rank < 0 && !capture)
            from_rank = *q - '1';
        else if ((*q == 'x' || *q == ':') && !capture)
            capture = true;
        else
            return MOVE_NONE;
    }

    Move found = MOVE_NONE;
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        Square from = move_from(m);
        if (move_to(m) != to || piece_type(p->board[from]) != pt || move_kind(m) == MOVE_CASTLING)
            continue;
        if (from_file >= 0 && square_file(from) != from_file)
            continue;
        if (from_rank >= 0 && square_rank(from) != from_rank)
            continue;
        if (move_kind(m) == MOVE_PROMOTION ? move_promo(m) != promo : promo != 0)
            continue;
        if (capture && !is_capture(p, m))
            continue;
        if (found) {
            if (ambiguous)
                *ambiguous = true;
            return MOVE_NONE;
        }
        found = m;
    }
    return found;
}
