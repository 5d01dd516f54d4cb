/* FEN: a parser that checks everything a client could get wrong, and the writer. */
#include "fen.h"
#include "../core/movegen.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ErrorCodes[FEN_ERROR_NB] = {
    "ok",
    "fen_empty",
    "fen_too_long",
    "fen_field_count",
    "fen_bad_piece",
    "fen_rank_count",
    "fen_rank_length",
    "fen_bad_side",
    "fen_bad_castling",
    "fen_impossible_castling",
    "fen_bad_en_passant",
    "fen_impossible_en_passant",
    "fen_bad_halfmove",
    "fen_bad_fullmove",
    "fen_missing_king",
    "fen_too_many_kings",
    "fen_pawn_on_back_rank",
    "fen_too_many_pieces",
    "fen_opponent_in_check",
    "fen_impossible_check",
};

const char *fen_error_code(FenError e) { return (e >= 0 && e < FEN_ERROR_NB) ? ErrorCodes[e] : "fen_unknown"; }

static FenError fail(char *msg, size_t size, FenError e, const char *fmt, ...)
{
    if (msg && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, size, fmt, ap);
        va_end(ap);
    }
    return e;
}

static const char PieceChars[] = " PNBRQK  pnbrqk";

static Piece piece_from_char(char c)
{
    const char *at = c ? strchr(PieceChars, c) : NULL;
    return (at && c != ' ') ? (Piece)(at - PieceChars) : NO_PIECE;
}

/* Parses a decimal field of at most 4 digits; -1 if it is anything else. */
static int parse_number(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 4)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return -1;
    return atoi(s);
}

/* Printable version of a field for messages: cut and with odd bytes replaced. */
static const char *shown(const char *s, char *buf, size_t size)
{
    size_t i = 0;
    for (; s[i] && i + 4 < size; i++)
        buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
    if (s[i]) {
        memcpy(buf + i, "...", 3);
        i += 3;
    }
    buf[i] = 0;
    return buf;
}

FenError fen_read(Position *out, const char *fen, char *msg, size_t msg_size)
{
    char copy[FEN_MAX_LENGTH + 1], tmp[40];
    char *fields[7];
    int nfields = 0;

    if (!fen)
        return fail(msg, msg_size, FEN_EMPTY, "the FEN is empty");
    size_t len = strnlen(fen, FEN_MAX_LENGTH + 1);
    if (len > FEN_MAX_LENGTH)
        return fail(msg, msg_size, FEN_TOO_LONG, "the FEN is longer than %d characters", FEN_MAX_LENGTH);
    memcpy(copy, fen, len + 1);
    for (char *s = copy; *s;) {
        while (*s && isspace((unsigned char)*s))
            *s++ = 0;
        if (!*s)
            break;
        if (nfields == 7)
            break;
        fields[nfields++] = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
    }
    if (nfields == 0)
        return fail(msg, msg_size, FEN_EMPTY, "the FEN is empty");
    if (nfields < 4 || nfields > 6)
        return fail(msg, msg_size, FEN_FIELD_COUNT,
                    "a FEN has 6 fields (board, side, castling, en passant, halfmove, fullmove; the last two "
                    "may be omitted), this one has %s%d",
                    nfields > 6 ? "more than " : "", nfields > 6 ? 6 : nfields);

    /* Board: ranks 8 to 1, separated by '/'. */
    Piece board[SQUARE_NB] = {0};
    int rank = 7, file = 0;
    for (const char *c = fields[0];; c++) {
        if (*c == '/' || *c == 0) {
            if (file != 8)
                return fail(msg, msg_size, FEN_RANK_LENGTH, "rank %d has %d squares, it needs 8", rank + 1, file);
            if (*c == 0)
                break;
            if (--rank < 0)
                return fail(msg, msg_size, FEN_RANK_COUNT, "the board has more than 8 ranks");
            file = 0;
        } else if (*c >= '1' && *c <= '8') {
            if (c > fields[0] && c[-1] >= '1' && c[-1] <= '8')
                return fail(msg, msg_size, FEN_RANK_LENGTH,
                            "rank %d has two digits in a row ('%c%c'): empty squares are one digit", rank + 1, c[-1],
                            *c);
            file += *c - '0';
            if (file > 8)
                return fail(msg, msg_size, FEN_RANK_LENGTH, "rank %d has more than 8 squares", rank + 1);
        } else {
            Piece pc = piece_from_char(*c);
            if (!pc)
                return fail(msg, msg_size, FEN_BAD_PIECE,
                            isprint((unsigned char)*c) ? "'%c' is not a piece (use PNBRQK/pnbrqk or 1-8)"
                                                       : "byte 0x%02x is not a piece (use PNBRQK/pnbrqk or 1-8)",
                            (unsigned char)*c);
            if (file >= 8)
                return fail(msg, msg_size, FEN_RANK_LENGTH, "rank %d has more than 8 squares", rank + 1);
            board[square_make(file++, rank)] = pc;
        }
    }
    if (rank != 0)
        return fail(msg, msg_size, FEN_RANK_COUNT, "the board has %d ranks, it needs 8", 8 - rank);

    Color side;
    if (!strcmp(fields[1], "w"))
        side = WHITE;
    else if (!strcmp(fields[1], "b"))
        side = BLACK;
    else
        return fail(msg, msg_size, FEN_BAD_SIDE, "side to move is '%s', it must be 'w' or 'b'",
                    shown(fields[1], tmp, sizeof tmp));

    int castling = 0;
    if (strcmp(fields[2], "-")) {
        for (const char *c = fields[2]; *c; c++) {
            const char *at = strchr("KQkq", *c);
            int bit = at && *c ? 1 << (at - "KQkq") : 0;
            if (!bit || (castling & bit))
                return fail(msg, msg_size, FEN_BAD_CASTLING,
                            "castling field '%s' must be '-' or each of K, Q, k, q at most once",
                            shown(fields[2], tmp, sizeof tmp));
            castling |= bit;
        }
    }

    Square ep = NO_SQUARE;
    if (strcmp(fields[3], "-")) {
        const char *e = fields[3];
        if (strlen(e) != 2 || e[0] < 'a' || e[0] > 'h' || (e[1] != '3' && e[1] != '6'))
            return fail(msg, msg_size, FEN_BAD_EN_PASSANT,
                        "en-passant field '%s' must be '-' or a square on rank 3 or 6", shown(e, tmp, sizeof tmp));
        ep = square_make(e[0] - 'a', e[1] - '1');
    }

    int halfmove = 0, fullmove = 1;
    if (nfields >= 5 && (halfmove = parse_number(fields[4])) < 0)
        return fail(msg, msg_size, FEN_BAD_HALFMOVE, "halfmove clock '%s' must be a number from 0 to 9999",
                    shown(fields[4], tmp, sizeof tmp));
    if (nfields == 6 && (fullmove = parse_number(fields[5])) < 0)
        return fail(msg, msg_size, FEN_BAD_FULLMOVE, "fullmove number '%s' must be a number from 1 to 9999",
                    shown(fields[5], tmp, sizeof tmp));
    if (fullmove == 0)
        fullmove = 1; /* common in the wild; read as the first move */

    /* Material sanity. */
    int count[PIECE_NB] = {0};
    for (Square s = 0; s < SQUARE_NB; s++) {
        count[board[s]]++;
        if (piece_type(board[s]) == PAWN && (square_rank(s) == RANK_1 || square_rank(s) == RANK_8))
            return fail(msg, msg_size, FEN_PAWN_ON_BACK_RANK, "a pawn stands on %c%d: pawns never stand on rank 1 or 8",
                        'a' + square_file(s), square_rank(s) + 1);
    }
    static const char *const ColorName[COLOR_NB] = {"white", "black"};
    for (Color c = WHITE; c <= BLACK; c++) {
        int k = count[piece_make(c, KING)];
        if (k == 0)
            return fail(msg, msg_size, FEN_MISSING_KING, "%s has no king", ColorName[c]);
        if (k > 1)
            return fail(msg, msg_size, FEN_TOO_MANY_KINGS, "%s has %d kings, it needs exactly one", ColorName[c], k);
        int pawns = count[piece_make(c, PAWN)], total = 0, promoted = 0;
        for (PieceType pt = PAWN; pt <= KING; pt++)
            total += count[piece_make(c, pt)];
        static const int Initial[PIECE_TYPE_NB] = {0, 8, 2, 2, 2, 1, 1};
        for (PieceType pt = KNIGHT; pt <= QUEEN; pt++)
            if (count[piece_make(c, pt)] > Initial[pt])
                promoted += count[piece_make(c, pt)] - Initial[pt];
        if (pawns > 8 || total > 16 || promoted > 8 - pawns)
            return fail(msg, msg_size, FEN_TOO_MANY_PIECES,
                        "%s has %d pieces with %d pawns: at most 16 pieces, 8 pawns, and no more promoted pieces "
                        "than missing pawns",
                        ColorName[c], total, pawns);
    }

    static const struct {
        int right;
        Square king, rook;
        Piece k, r;
        const char *name;
    } Rights[4] = {{WHITE_OO, E1, H1, W_KING, W_ROOK, "K"},
                   {WHITE_OOO, E1, A1, W_KING, W_ROOK, "Q"},
                   {BLACK_OO, E8, H8, B_KING, B_ROOK, "k"},
                   {BLACK_OOO, E8, A8, B_KING, B_ROOK, "q"}};
    for (int i = 0; i < 4; i++)
        if ((castling & Rights[i].right) &&
            (board[Rights[i].king] != Rights[i].k || board[Rights[i].rook] != Rights[i].r))
            return fail(msg, msg_size, FEN_IMPOSSIBLE_CASTLING,
                        "castling right '%s' needs the king on %c%d and a rook on %c%d", Rights[i].name,
                        'a' + square_file(Rights[i].king), square_rank(Rights[i].king) + 1,
                        'a' + square_file(Rights[i].rook), square_rank(Rights[i].rook) + 1);

    if (ep != NO_SQUARE) {
        /* The pawn that just moved stands in front of ep; ep and the square it left are empty. */
        int want_rank = side == WHITE ? RANK_6 : RANK_3;
        Square pawn_sq = side == WHITE ? ep - 8 : ep + 8, origin = side == WHITE ? ep + 8 : ep - 8;
        if (square_rank(ep) != want_rank)
            return fail(msg, msg_size, FEN_IMPOSSIBLE_EN_PASSANT,
                        "en-passant square %s is on the wrong rank: with %s to move it must be on rank %d", fields[3],
                        ColorName[side], want_rank + 1);
        if (board[pawn_sq] != piece_make(color_flip(side), PAWN) || board[ep] || board[origin])
            return fail(msg, msg_size, FEN_IMPOSSIBLE_EN_PASSANT,
                        "en-passant square %s needs a %s pawn on %c%d that has just moved there from %c%d", fields[3],
                        ColorName[color_flip(side)], 'a' + square_file(pawn_sq), square_rank(pawn_sq) + 1,
                        'a' + square_file(origin), square_rank(origin) + 1);
    }

    /* Build the position in a scratch header, check the checks, then commit. */
    Position *p = out;
    Position saved_header;
    StateInfo saved_state = out->stack[0];
    memcpy(&saved_header, out, offsetof(Position, stack));
    memset(p, 0, offsetof(Position, stack));
    for (Square s = 0; s < SQUARE_NB; s++) {
        Piece pc = board[s];
        p->board[s] = pc;
        if (pc) {
            p->by_type[0] |= square_bb(s);
            p->by_type[piece_type(pc)] |= square_bb(s);
            p->by_color[piece_color(pc)] |= square_bb(s);
            p->piece_count[pc]++;
        }
    }
    p->side = side;
    p->game_ply = 2 * (fullmove - 1) + (side == BLACK);
    p->stack_len = 0;
    p->st = &p->stack[0];
    memset(p->st, 0, sizeof *p->st);
    p->st->castling = castling;
    p->st->rule50 = halfmove;
    p->st->ep = NO_SQUARE;

    FenError err = FEN_OK;
    Color them = color_flip(side);
    if (position_attacked_by(p, side, king_square(p, them), occupied(p)))
        err = fail(msg, msg_size, FEN_OPPONENT_IN_CHECK, "%s is not to move but is in check", ColorName[them]);
    else {
        Bitboard checkers = position_attackers_to(p, king_square(p, side), occupied(p)) & p->by_color[them];
        if (popcount(checkers) > 2)
            err = fail(msg, msg_size, FEN_IMPOSSIBLE_CHECK, "%s is in check by %d pieces; at most two is possible",
                       ColorName[side], popcount(checkers));
    }
    if (err != FEN_OK) {
        memcpy(out, &saved_header, offsetof(Position, stack));
        out->stack[0] = saved_state;
        return err;
    }

    /* Keep the ep square only if a legal capture exists there (the normal form). */
    if (ep != NO_SQUARE) {
        p->st->ep = ep;
        position_refresh_state(p);
        MoveList list;
        movegen_legal(p, &list, GEN_NOISY);
        bool legal = false;
        for (int i = 0; i < list.count; i++)
            legal |= move_kind(list.moves[i]) == MOVE_EN_PASSANT;
        if (!legal)
            p->st->ep = NO_SQUARE;
    }
    position_refresh_state(p);
    return FEN_OK;
}

char *fen_write(const Position *p, char *buf)
{
    char *o = buf;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            Piece pc = p->board[square_make(file, rank)];
            if (!pc) {
                empty++;
                continue;
            }
            if (empty)
                *o++ = (char)('0' + empty), empty = 0;
            *o++ = PieceChars[pc];
        }
        if (empty)
            *o++ = (char)('0' + empty);
        if (rank)
            *o++ = '/';
    }
    *o++ = ' ';
    *o++ = p->side == WHITE ? 'w' : 'b';
    *o++ = ' ';
    int cr = p->st->castling;
    if (!cr)
        *o++ = '-';
    for (int i = 0; i < 4; i++)
        if (cr & (1 << i))
            *o++ = "KQkq"[i];
    *o++ = ' ';
    if (p->st->ep == NO_SQUARE)
        *o++ = '-';
    else {
        *o++ = (char)('a' + square_file(p->st->ep));
        *o++ = (char)('1' + square_rank(p->st->ep));
    }
    sprintf(o, " %d %d", p->st->rule50, 1 + p->game_ply / 2);
    return buf;
}
