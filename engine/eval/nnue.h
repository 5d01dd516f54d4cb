/* The learned evaluation (issue #26): a perspective network 768 -> N x 2 -> 1 with SCReLU and a
 * linear piece-square path beside it, trained on feelfish's own self-play (engine/tools/train.c,
 * docs/nnue.md).
 *
 * Inputs: for each perspective (White's, Black's), 768 = 2 x 6 x 64 one-hot features, one per piece:
 * (the piece is the perspective's own or the other side's, its type, its square as the perspective
 * sees it: Black's view flips the ranks). Both perspectives share the feature weights. With king
 * buckets (flag 2) there are four sets of feature weights, and each perspective uses the one of its
 * own king's square (nnue_king_bucket: on its first rank files a-c, d-e or f-h, or further up); the
 * piece-square path has one set.
 * Hidden: acc[c] = bias + sum of the weight rows of c's active features, int16, kept per ply and
 * updated from the parent's with the move's few changed pieces (NnueStack).
 * Output: sum over the side to move's then the other side's accumulator of screlu(a) * w, where
 * screlu(a) = clamp(a, 0, 1)^2, plus the bias, plus (psqt[side to move] - psqt[other side]) / 2,
 * the output weights and bias those of the position's bucket: one for every position, or (flag 1)
 * eight by the number of pieces on the board (nnue_bucket: 2-5 pieces, 6-9, ..., 30-32),
 * psqt[c] the sum of one weight per active feature of perspective c (the piece-square path: material
 * and placement, learnt from few positions); the score in centipawns is output * NNUE_SCALE.
 *
 * Quantisation: feature weights and biases x NNUE_QA (255), output weights x NNUE_QB (64), the
 * output bias and the piece-square weights x QA x QB (int32). The clamp-multiply-madd trick needs |output weight| <= 127 (the trainer
 * clips at 127 / 64): clamp(a) * w fits in int16, then times clamp(a) summed in int32.
 *
 * The file (little-endian), "FFNN" then:
 *   uint32 version (2), uint32 N (16..NNUE_HIDDEN_MAX, a multiple of 16), uint32 flags (bit 0,
 *   NNUE_FLAG_BUCKETS: B = 8 output buckets, else B = 1; bit 1, NNUE_FLAG_KINGS: K = 4 king buckets,
 *   else K = 1), int16 feature weights [K][768][N], int16
 *   feature biases [N], int16 output weights [B][2N], int32 output biases [B], int32 piece-square
 *   weights [768], uint64 FNV-1a of every byte before it.
 * Anything else (a short file, a long one, a bad magic, version, size or checksum) is refused. */
#ifndef FEELFISH_NNUE_H
#define FEELFISH_NNUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/position.h"

#define NNUE_INPUTS 768
#define NNUE_HIDDEN_MAX 1024
#define NNUE_QA 255
#define NNUE_QB 64
#define NNUE_SCALE 400
#define NNUE_VERSION 2
#define NNUE_FLAG_BUCKETS 1u
#define NNUE_BUCKETS 8 /* output buckets of a network with NNUE_FLAG_BUCKETS */
#define NNUE_FLAG_KINGS 2u
#define NNUE_KING_BUCKETS 4 /* feature weight sets of a network with NNUE_FLAG_KINGS */
/* Accumulators kept per search thread: one per ply from the root. */
#define NNUE_STACK_SIZE 160

typedef struct Network {
    int hidden;
    int buckets;         /* output buckets: 1 or NNUE_BUCKETS */
    int kings;           /* king buckets: 1 or NNUE_KING_BUCKETS */
    int16_t *ft_weight;  /* [kings][NNUE_INPUTS][hidden] */
    int16_t *ft_bias;    /* [hidden] */
    int16_t *out_weight; /* [buckets][2 * hidden]: the side to move's half, then the other side's */
    int32_t out_bias[NNUE_BUCKETS];
    int32_t psqt[NNUE_INPUTS];
    uint64_t checksum; /* the file's FNV-1a: its identity in `info string` and /api/config */
} Network;

typedef struct {
    _Alignas(64) int16_t v[COLOR_NB][NNUE_HIDDEN_MAX];
    int32_t psqt[COLOR_NB];
    Key key; /* the position it was computed for (0: none) */
    const Network *net;
    uint64_t checksum; /* net's: a network freed and another made at its address is not taken for it */
} Accumulator;

/* One perspective's accumulator in one king bucket as it was last computed, with the pieces it holds:
 * a refresh in that bucket adds and removes only the pieces that differ (a king that changes bucket
 * costs a few rows, not thirty). */
typedef struct {
    _Alignas(64) int16_t v[NNUE_HIDDEN_MAX];
    int32_t psqt;
    Bitboard by_color[COLOR_NB], by_type[PIECE_TYPE_NB];
    const Network *net; /* NULL: empty */
    uint64_t checksum;  /* net's: a network freed and another made at its address is not taken for it */
} NnueRefreshEntry;

/* A search thread's accumulators, indexed by the position's stack_len minus base (the root's), and
 * its refresh table. Zeroed before first use. */
typedef struct {
    int base;
    Accumulator acc[NNUE_STACK_SIZE];
    NnueRefreshEntry refresh[COLOR_NB][NNUE_KING_BUCKETS];
} NnueStack;

/* The network a file's bytes describe, or NULL with a reason in err ("truncated", "checksum
 * mismatch" ...). The bytes are copied. */
Network *nnue_load_memory(const void *bytes, size_t size, char *err, size_t err_size);
Network *nnue_load_file(const char *path, char *err, size_t err_size);
void nnue_free(Network *net);
/* The file's bytes for a network (what the trainer writes); malloc'd, *size set. */
uint8_t *nnue_serialize(const Network *net, size_t *size);

/* Loads the built-in network and picks the kernels: engine_init calls it, before any thread. */
void nnue_init(void);
/* The network built into the binary (docs/nnue.md), or NULL when it was built without one. */
const Network *nnue_embedded(void);
/* The network the classical evaluator uses: the embedded one unless nnue_set_default changed it
 * (EvalFile, --net); NULL means the hand-written evaluation. */
const Network *nnue_default(void);
void nnue_set_default(const Network *net);
/* The default network from now on: "embedded" (the one built in), "none" (the hand-written
 * evaluation) or a file's path. False with the reason when that is no network; the previous choice
 * stays. Not while a search runs: a network read from a file before is freed. */
bool nnue_select(const char *spec, char *err, size_t err_size);
/* The default network in words: "embedded 768->256x2->1, 8 output buckets (checksum ...)", "none (...)". */
void nnue_describe(char *out, size_t size);

/* The score for the side to move, in centipawns. With a stack the accumulators are updated
 * incrementally from the nearest ancestor's; without one they are computed from the boards. */
int nnue_evaluate(const Network *net, const Position *p, NnueStack *stack);

/* Feature index of piece pc on square s from perspective c. */
static inline int nnue_feature(Color c, Piece pc, Square s)
{
    int side = piece_color(pc) != c;
    return side * 384 + (piece_type(pc) - 1) * 64 + (c == WHITE ? s : square_flip(s));
}

/* The king bucket (which set of feature weights) of perspective c whose king stands on king: on
 * the perspective's first rank, files a-c, d-e or f-h (0, 1, 2), or any square further up (3).
 * Symmetric left-right and between the colours. */
static inline int nnue_king_bucket(int kings, Color c, Square king)
{
    if (kings <= 1)
        return 0;
    Square k = c == WHITE ? king : square_flip(king);
    int file = k & 7;
    return k >= 8 ? 3 : file < 3 ? 0 : file < 5 ? 1 : 2;
}

/* The output bucket of a position with `pieces` pieces on the board (kings included). */
static inline int nnue_bucket(int pieces, int buckets)
{
    if (buckets == 1)
        return 0;
    int b = (pieces - 2) / 4;
    return b < 0 ? 0 : b >= buckets ? buckets - 1 : b;
}

/* Tests: false makes the kernels portable C even where AVX2 runs (both must agree). */
void nnue_allow_simd(bool allow);

/* From scratch: both perspectives' accumulators (for tests and refreshes). */
void nnue_refresh(const Network *net, const Position *p, Accumulator *acc);

#endif
