/* Bitboard helpers and the attack tables (leapers, rays, sliding pieces).
 * Sliding attacks use PEXT where the CPU has a fast one, magic multiplication otherwise;
 * the choice is made once in bitboard_init() and never changes afterwards. */
#ifndef FEELFISH_BITBOARD_H
#define FEELFISH_BITBOARD_H

#include <stddef.h>

#include "types.h"

#define FILE_A_BB 0x0101010101010101ULL
#define FILE_H_BB 0x8080808080808080ULL
#define RANK_1_BB 0x00000000000000FFULL
#define RANK_2_BB 0x000000000000FF00ULL
#define RANK_3_BB 0x0000000000FF0000ULL
#define RANK_4_BB 0x00000000FF000000ULL
#define RANK_5_BB 0x000000FF00000000ULL
#define RANK_6_BB 0x0000FF0000000000ULL
#define RANK_7_BB 0x00FF000000000000ULL
#define RANK_8_BB 0xFF00000000000000ULL
#define DARK_SQUARES 0xAA55AA55AA55AA55ULL /* a1, c1 ... h8 */

static inline Bitboard square_bb(Square s) { return 1ULL << s; }
static inline int popcount(Bitboard b) { return __builtin_popcountll(b); }
static inline Square lsb(Bitboard b) { return __builtin_ctzll(b); }
static inline Square msb(Bitboard b) { return 63 ^ __builtin_clzll(b); }
static inline Square pop_lsb(Bitboard *b)
{
    Square s = lsb(*b);
    *b &= *b - 1;
    return s;
}
static inline bool more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }
static inline Bitboard file_bb(int file) { return FILE_A_BB << file; }
static inline Bitboard rank_bb(int rank) { return RANK_1_BB << (8 * rank); }

static inline Bitboard shift_north(Bitboard b) { return b << 8; }
static inline Bitboard shift_south(Bitboard b) { return b >> 8; }
static inline Bitboard shift_east(Bitboard b) { return (b & ~FILE_H_BB) << 1; }
static inline Bitboard shift_west(Bitboard b) { return (b & ~FILE_A_BB) >> 1; }
/* One step forward for colour c. */
static inline Bitboard pawn_push(Color c, Bitboard b) { return c == WHITE ? b << 8 : b >> 8; }
/* Squares attacked by all pawns of colour c in b. */
static inline Bitboard pawn_attacks_bb(Color c, Bitboard b)
{
    return c == WHITE ? ((b & ~FILE_A_BB) << 7) | ((b & ~FILE_H_BB) << 9)
                      : ((b & ~FILE_A_BB) >> 9) | ((b & ~FILE_H_BB) >> 7);
}

typedef struct {
    Bitboard mask;     /* relevant occupancy: the rays without their last square */
    Bitboard magic;    /* multiplier, unused under PEXT */
    Bitboard *attacks; /* this square's slice of the shared table */
    unsigned shift;
} Magic;

/* Read-only after bitboard_init(). */
extern Magic RookMagics[SQUARE_NB];
extern Magic BishopMagics[SQUARE_NB];
extern Bitboard PawnAttacks[COLOR_NB][SQUARE_NB];
extern Bitboard KnightAttacks[SQUARE_NB];
extern Bitboard KingAttacks[SQUARE_NB];
extern Bitboard BetweenBB[SQUARE_NB][SQUARE_NB]; /* squares strictly between, 0 if not aligned */
extern Bitboard LineBB[SQUARE_NB][SQUARE_NB];    /* the whole line through both, 0 if not aligned */
extern bool AttacksUsePext;

static inline uint64_t pext_u64(uint64_t src, uint64_t mask)
{
#if defined(__x86_64__)
    uint64_t r;
    __asm__("pextq %2, %1, %0" : "=r"(r) : "r"(src), "rm"(mask));
    return r;
#else
    (void)src;
    (void)mask;
    return 0; /* never reached: AttacksUsePext is false off x86-64 */
#endif
}

static inline unsigned magic_index(const Magic *m, Bitboard occupied)
{
    if (AttacksUsePext)
        return (unsigned)pext_u64(occupied, m->mask);
    return (unsigned)(((occupied & m->mask) * m->magic) >> m->shift);
}

static inline Bitboard bishop_attacks(Square s, Bitboard occupied)
{
    const Magic *m = &BishopMagics[s];
    return m->attacks[magic_index(m, occupied)];
}
static inline Bitboard rook_attacks(Square s, Bitboard occupied)
{
    const Magic *m = &RookMagics[s];
    return m->attacks[magic_index(m, occupied)];
}
static inline Bitboard queen_attacks(Square s, Bitboard occupied)
{
    return bishop_attacks(s, occupied) | rook_attacks(s, occupied);
}

/* Attacks of a piece type (not pawns) from s with the given occupancy. */
Bitboard piece_attacks(PieceType pt, Square s, Bitboard occupied);

/* Builds every table. force: "pext", "magic" or NULL (decide from the CPU). Idempotent
 * for the same choice; call it from main() before anything else in engine/. */
void bitboard_init(const char *force);

#endif
