/* The attack tables: leapers by direct computation, sliders by PEXT or by magics found at start
 * with a fixed-seed random search (the same magics on every run). */
#include "bitboard.h"

#include <stdlib.h>
#include <string.h>

Magic RookMagics[SQUARE_NB];
Magic BishopMagics[SQUARE_NB];
Bitboard PawnAttacks[COLOR_NB][SQUARE_NB];
Bitboard KnightAttacks[SQUARE_NB];
Bitboard KingAttacks[SQUARE_NB];
Bitboard BetweenBB[SQUARE_NB][SQUARE_NB];
Bitboard LineBB[SQUARE_NB][SQUARE_NB];
bool AttacksUsePext;

static Bitboard RookTable[0x19000];  /* 102,400 entries: sum of 2^bits over squares */
static Bitboard BishopTable[0x1480]; /* 5,248 entries */

static const int RookDirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int BishopDirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static bool on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

/* Ray attacks by walking the board: slow, used only to build the tables. */
static Bitboard slide(const int dirs[4][2], Square s, Bitboard occupied)
{
    Bitboard att = 0;
    for (int d = 0; d < 4; d++) {
        int f = square_file(s) + dirs[d][0], r = square_rank(s) + dirs[d][1];
        while (on_board(f, r)) {
            Square t = square_make(f, r);
            att |= square_bb(t);
            if (occupied & square_bb(t))
                break;
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return att;
}

static Bitboard leaper(Square s, const int (*steps)[2], int n)
{
    Bitboard b = 0;
    for (int i = 0; i < n; i++) {
        int f = square_file(s) + steps[i][0], r = square_rank(s) + steps[i][1];
        if (on_board(f, r))
            b |= square_bb(square_make(f, r));
    }
    return b;
}

static bool cpu_has_bmi2(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2");
#else
    return false;
#endif
}

static bool cpu_has_fast_pext(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("bmi2"))
        return false;
    /* AMD before Zen 3 (family 0x19) implements PEXT in microcode: slower than magics. */
    if (__builtin_cpu_is("amd")) {
        unsigned eax, ebx, ecx, edx;
        __asm__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(1), "c"(0));
        unsigned family = ((eax >> 8) & 0xF) + ((eax >> 20) & 0xFF);
        return family >= 0x19;
    }
    return true;
#else
    return false;
#endif
}

/* xorshift64*: a fixed seed per square makes the magic search reproducible. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

static void init_sliders(Magic *magics, Bitboard *table, const int dirs[4][2])
{
    static Bitboard occ[4096], ref[4096];
    static int epoch[4096];
    int cur_epoch = 0;
    Bitboard *next = table;

    for (Square s = 0; s < SQUARE_NB; s++) {
        Magic *m = &magics[s];
        Bitboard edges =
            ((RANK_1_BB | RANK_8_BB) & ~rank_bb(square_rank(s))) | ((FILE_A_BB | FILE_H_BB) & ~file_bb(square_file(s)));
        m->mask = slide(dirs, s, 0) & ~edges;
        int bits = popcount(m->mask);
        m->shift = 64 - bits;
        m->attacks = next;
        int size = 1 << bits;
        next += size;

        /* Carry-Rippler enumeration of every subset of the mask. */
        Bitboard b = 0;
        int n = 0;
        do {
            occ[n] = b;
            ref[n] = slide(dirs, s, b);
            n++;
            b = (b - m->mask) & m->mask;
        } while (b);

        if (AttacksUsePext) {
            m->magic = 0;
            for (int i = 0; i < n; i++)
                m->attacks[pext_u64(occ[i], m->mask)] = ref[i];
            continue;
        }

        uint64_t seed = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(s + 1) * 0xD1B54A32D192ED03ULL;
        for (;;) {
            do
                m->magic = rng_next(&seed) & rng_next(&seed) & rng_next(&seed);
            while (popcount((m->mask * m->magic) >> 56) < 6);
            cur_epoch++;
            int i;
            for (i = 0; i < n; i++) {
                unsigned idx = (unsigned)(((occ[i] & m->mask) * m->magic) >> m->shift);
                if (epoch[idx] < cur_epoch) {
                    epoch[idx] = cur_epoch;
                    m->attacks[idx] = ref[i];
                } else if (m->attacks[idx] != ref[i])
                    break;
            }
            if (i == n)
                break;
        }
    }
}

Bitboard piece_attacks(PieceType pt, Square s, Bitboard occupied)
{
    switch (pt) {
    case KNIGHT: return KnightAttacks[s];
    case BISHOP: return bishop_attacks(s, occupied);
    case ROOK: return rook_attacks(s, occupied);
    case QUEEN: return queen_attacks(s, occupied);
    case KING: return KingAttacks[s];
    default: return 0;
    }
}

void bitboard_init(const char *force)
{
    static const int knight[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int king[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    static const int wpawn[2][2] = {{-1, 1}, {1, 1}};
    static const int bpawn[2][2] = {{-1, -1}, {1, -1}};

    bool pext = cpu_has_fast_pext();
    if (force && strcmp(force, "magic") == 0)
        pext = false;
    else if (force && strcmp(force, "pext") == 0)
        pext = cpu_has_bmi2();
    AttacksUsePext = pext;

    for (Square s = 0; s < SQUARE_NB; s++) {
        KnightAttacks[s] = leaper(s, knight, 8);
        KingAttacks[s] = leaper(s, king, 8);
        PawnAttacks[WHITE][s] = leaper(s, wpawn, 2);
        PawnAttacks[BLACK][s] = leaper(s, bpawn, 2);
    }
    init_sliders(RookMagics, RookTable, RookDirs);
    init_sliders(BishopMagics, BishopTable, BishopDirs);

    for (Square a = 0; a < SQUARE_NB; a++)
        for (Square b = 0; b < SQUARE_NB; b++) {
            BetweenBB[a][b] = LineBB[a][b] = 0;
            if (a == b)
                continue;
            if (slide(BishopDirs, a, 0) & square_bb(b)) {
                LineBB[a][b] = (slide(BishopDirs, a, 0) & slide(BishopDirs, b, 0)) | square_bb(a) | square_bb(b);
                BetweenBB[a][b] = slide(BishopDirs, a, square_bb(b)) & slide(BishopDirs, b, square_bb(a));
            } else if (slide(RookDirs, a, 0) & square_bb(b)) {
                LineBB[a][b] = (slide(RookDirs, a, 0) & slide(RookDirs, b, 0)) | square_bb(a) | square_bb(b);
                BetweenBB[a][b] = slide(RookDirs, a, square_bb(b)) & slide(RookDirs, b, square_bb(a));
            }
        }
}
