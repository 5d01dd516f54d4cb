/* Training records: see trainset.h. */
#include "trainset.h"

#include <stdio.h>
#include <string.h>

#include "../core/bitboard.h"

static void put16(uint8_t *at, unsigned v)
{
    at[0] = (uint8_t)(v & 0xff);
    at[1] = (uint8_t)(v >> 8);
}

static unsigned get16(const uint8_t *at) { return (unsigned)at[0] | (unsigned)at[1] << 8; }

void trainset_encode(const Position *p, int score_cp, int result, TrainRecord *out)
{
    memset(out, 0, sizeof *out);
    Bitboard occupied = p->by_type[0];
    for (int i = 0; i < 8; i++)
        out->bytes[i] = (uint8_t)(occupied >> (8 * i));
    int n = 0;
    for (Bitboard b = occupied; b && n < 32; n++) {
        Square s = pop_lsb(&b);
        out->bytes[8 + n / 2] |= (uint8_t)((p->board[s] & 15) << (4 * (n & 1)));
    }
    int score = score_cp > 32767 ? 32767 : score_cp < -32767 ? -32767 : score_cp;
    put16(out->bytes + 24, (unsigned)(uint16_t)(int16_t)score);
    out->bytes[26] = (uint8_t)result;
    out->bytes[27] = (uint8_t)p->side;
    int fullmove = 1 + p->game_ply / 2;
    put16(out->bytes + 28, (unsigned)(fullmove > 65535 ? 65535 : fullmove));
    out->bytes[30] = (uint8_t)(p->st->rule50 > 255 ? 255 : p->st->rule50);
}

bool trainset_decode(const TrainRecord *r, TrainPosition *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 8; i++)
        out->occupied |= (Bitboard)r->bytes[i] << (8 * i);
    if (popcount(out->occupied) > 32 || r->bytes[26] > 2 || r->bytes[27] > 1 || r->bytes[31])
        return false;
    int n = 0;
    for (Bitboard b = out->occupied; b; n++) {
        Square s = pop_lsb(&b);
        int code = (r->bytes[8 + n / 2] >> (4 * (n & 1))) & 15;
        if (piece_type((Piece)code) < PAWN || piece_type((Piece)code) > KING)
            return false;
        out->board[s] = (Piece)code;
    }
    out->score = (int16_t)(uint16_t)get16(r->bytes + 24);
    out->result = r->bytes[26];
    out->side = (Color)r->bytes[27];
    out->fullmove = (int)get16(r->bytes + 28);
    out->halfmove = r->bytes[30];
    return true;
}

void trainset_fen(const TrainPosition *t, char *fen, size_t size)
{
    static const char Letters[] = " PNBRQK  pnbrqk";
    char board[80];
    int k = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            Piece pc = t->board[rank * 8 + file];
            if (!pc) {
                empty++;
                continue;
            }
            if (empty)
                board[k++] = (char)('0' + empty);
            empty = 0;
            board[k++] = Letters[pc];
        }
        if (empty)
            board[k++] = (char)('0' + empty);
        if (rank)
            board[k++] = '/';
    }
    board[k] = 0;
    snprintf(fen, size, "%s %c - - %d %d", board, t->side == WHITE ? 'w' : 'b', t->halfmove,
             t->fullmove ? t->fullmove : 1);
}
