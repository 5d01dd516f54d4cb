/* Shared chess types: squares, pieces, colours, moves and the bitboard type.
 * Every enum has a *_NB count; squares run a1 = 0 .. h8 = 63 (little-endian rank-file). */
#ifndef FEELFISH_TYPES_H
#define FEELFISH_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t Bitboard;
typedef uint64_t Key;
typedef uint16_t Move;

enum { WHITE, BLACK, COLOR_NB };
typedef int Color;

enum { PAWN = 1, KNIGHT, BISHOP, ROOK, QUEEN, KING, PIECE_TYPE_NB };
typedef int PieceType;

/* A piece is colour << 3 | type; 0 is the empty square. */
enum {
    NO_PIECE = 0,
    W_PAWN = PAWN,
    W_KNIGHT,
    W_BISHOP,
    W_ROOK,
    W_QUEEN,
    W_KING,
    B_PAWN = PAWN + 8,
    B_KNIGHT,
    B_BISHOP,
    B_ROOK,
    B_QUEEN,
    B_KING,
    PIECE_NB = 16
};
typedef int Piece;

enum {
    A1,
    B1,
    C1,
    D1,
    E1,
    F1,
    G1,
    H1,
    A2,
    B2,
    C2,
    D2,
    E2,
    F2,
    G2,
    H2,
    A3,
    B3,
    C3,
    D3,
    E3,
    F3,
    G3,
    H3,
    A4,
    B4,
    C4,
    D4,
    E4,
    F4,
    G4,
    H4,
    A5,
    B5,
    C5,
    D5,
    E5,
    F5,
    G5,
    H5,
    A6,
    B6,
    C6,
    D6,
    E6,
    F6,
    G6,
    H6,
    A7,
    B7,
    C7,
    D7,
    E7,
    F7,
    G7,
    H7,
    A8,
    B8,
    C8,
    D8,
    E8,
    F8,
    G8,
    H8,
    SQUARE_NB,
    NO_SQUARE = 64
};
typedef int Square;

enum { FILE_A, FILE_B, FILE_C, FILE_D, FILE_E, FILE_F, FILE_G, FILE_H, FILE_NB };
enum { RANK_1, RANK_2, RANK_3, RANK_4, RANK_5, RANK_6, RANK_7, RANK_8, RANK_NB };

/* Castling rights as four bits. */
enum { WHITE_OO = 1, WHITE_OOO = 2, BLACK_OO = 4, BLACK_OOO = 8, CASTLING_NB = 16 };

/* A move in 16 bits: from (0-5), to (6-11), promotion piece minus KNIGHT (12-13), kind (14-15).
 * Castling is stored as the king's own move (e1g1); MOVE_NONE is 0 (a1a1 is never a move). */
enum { MOVE_NORMAL = 0, MOVE_PROMOTION = 1, MOVE_EN_PASSANT = 2, MOVE_CASTLING = 3 };
#define MOVE_NONE ((Move)0)
#define MOVE_NULL ((Move)(65)) /* b1b1: used by the search for a null move */

static inline Move move_make(Square from, Square to, int kind, PieceType promo)
{
    return (Move)(from | (to << 6) | ((promo ? promo - KNIGHT : 0) << 12) | (kind << 14));
}
static inline Square move_from(Move m) { return m & 63; }
static inline Square move_to(Move m) { return (m >> 6) & 63; }
static inline int move_kind(Move m) { return m >> 14; }
static inline PieceType move_promo(Move m) { return ((m >> 12) & 3) + KNIGHT; }

static inline Color color_flip(Color c) { return c ^ 1; }
static inline Piece piece_make(Color c, PieceType t) { return (c << 3) | t; }
static inline PieceType piece_type(Piece p) { return p & 7; }
static inline Color piece_color(Piece p) { return p >> 3; }

static inline int square_file(Square s) { return s & 7; }
static inline int square_rank(Square s) { return s >> 3; }
static inline Square square_make(int file, int rank) { return rank * 8 + file; }
/* The same square seen from Black's side (a1 <-> a8). */
static inline Square square_flip(Square s) { return s ^ 56; }
/* Rank as seen by colour c (RANK_1 is c's own back rank). */
static inline int relative_rank(Color c, Square s) { return c == WHITE ? s >> 3 : 7 - (s >> 3); }

#define MAX_MOVES 256

typedef struct {
    Move moves[MAX_MOVES];
    int count;
} MoveList;

static inline bool movelist_contains(const MoveList *l, Move m)
{
    for (int i = 0; i < l->count; i++)
        if (l->moves[i] == m)
            return true;
    return false;
}

/* A middlegame/endgame pair packed in one int (endgame in the high half), added as one. */
typedef int32_t Score;
static inline Score score_make(int mg, int eg) { return (Score)((uint32_t)eg << 16) + mg; }
static inline int score_mg(Score s) { return (int16_t)(uint16_t)(uint32_t)s; }
static inline int score_eg(Score s) { return (int16_t)(uint16_t)((uint32_t)(s + 0x8000) >> 16); }

#endif
