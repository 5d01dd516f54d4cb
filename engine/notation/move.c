/* UCI move notation. */
#include "move.h"

#include <string.h>

#include "../core/movegen.h"

char *move_to_uci(Move m, char *buf)
{
    if (m == MOVE_NONE || m == MOVE_NULL) {
        strcpy(buf, "0000");
        return buf;
    }
    Square from = move_from(m), to = move_to(m);
    buf[0] = (char)('a' + square_file(from));
    buf[1] = (char)('1' + square_rank(from));
    buf[2] = (char)('a' + square_file(to));
    buf[3] = (char)('1' + square_rank(to));
    buf[4] = move_kind(m) == MOVE_PROMOTION ? " pnbrqk"[move_promo(m)] : 0;
    buf[5] = 0;
    return buf;
}

static Square parse_square(const char *s)
{
    if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
        return NO_SQUARE;
    return square_make(s[0] - 'a', s[1] - '1');
}

Move move_from_uci(const Position *p, const char *s)
{
    size_t n = strlen(s);
    if (n < 4 || n > 5)
        return MOVE_NONE;
    Square from = parse_square(s), to = parse_square(s + 2);
    if (from == NO_SQUARE || to == NO_SQUARE)
        return MOVE_NONE;
    PieceType promo = 0;
    if (n == 5) {
        const char *at = strchr("nbrq", s[4] | 0x20); /* (either case: a7a8Q as Stockfish reads it) */
        if (!at || !s[4])
            return MOVE_NONE;
        promo = KNIGHT + (PieceType)(at - "nbrq");
    }
    /* King takes own rook: the castling move towards that rook. */
    Piece mover = p->board[from], target = p->board[to];
    if (piece_type(mover) == KING && target && piece_color(target) == piece_color(mover) &&
        piece_type(target) == ROOK && square_rank(from) == square_rank(to))
        to = to > from ? from + 2 : from - 2;

    MoveList list;
    movegen_legal(p, &list, GEN_ALL);
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        if (move_from(m) != from || move_to(m) != to)
            continue;
        if (move_kind(m) == MOVE_PROMOTION ? move_promo(m) == promo : promo == 0)
            return m;
    }
    return MOVE_NONE;
}
