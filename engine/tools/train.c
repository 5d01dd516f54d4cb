/* `feelfish train`: fits the learned evaluation (engine/eval/nnue.h) to datagen's records
 * (engine/tools/trainset.h), in float, on every core, then writes it quantised.
 *
 * The model: acc[c] = b + sum of W[f] over perspective c's features; a = clamp(acc, 0, 1)^2;
 * out = a[side to move] . w[0..N) + a[other] . w[N..2N) + bias + (psqt[us] - psqt[them]) / 2, w and
 * bias those of the position's output bucket (--buckets 8: by the number of pieces, nnue_bucket), with
 * psqt[c] = sum of P[f] over c's features (the piece-square path, started from the hand-written
 * evaluation's piece values so that material is known from the first step); the score is
 * out * NNUE_SCALE cp. Training positions are mirrored left-right at random (chess is symmetric that
 * way once castling rights are gone, and the records keep none): twice the positions for free.
 * The loss: (sigmoid(score / K) - target)^2 with target = lambda * sigmoid(record score / K) +
 * (1 - lambda) * result, K the Win% scale (--wdl-scale, centipawns). AdamW-style Adam, the learning
 * rate on a cosine from --lr down to --lr / 100 over every step of every epoch; weights clipped to
 * +-1.98 so the quantised net cannot overflow (nnue.h).
 *
 * Threads split each batch; each keeps its own gradients, summed row by row before the step.
 * The last --val fraction of the records (whole games: they are written in game order) is held out.
 * After each epoch: a progress line (losses, positions/s, ETA), a CSV row (--log), a checkpoint
 * (OUT.ckpt: the float weights and the optimiser's moments); a run given the same OUT resumes from it.
 * --init NET starts from a network's weights (dequantised) instead of random ones: a generation
 * fine-tuned on new games keeps what it learnt from the earlier ones. With a --hidden wider than
 * NET's, NET's neurons are the first ones and the new ones start with random feature weights and
 * zero output weights (the same function at the start: a generation widened).
 * --king-buckets 4 (a set of feature weights per king bucket, nnue_king_bucket) trains them factorised:
 * each bucket's weights are a factor every bucket shares plus the bucket's own, the factor learnt from
 * every position and the bucket's part from the positions with its kings; the written net holds the
 * sums. A NET without buckets becomes the factor (the buckets' own parts start at zero): the same
 * function to start from.
 * At the end: OUT (the quantised net) and the quantisation error on the validation positions. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/bitboard.h"
#include "../core/random.h"
#include "../eval/nnue.h"
#include "../notation/fen.h"
#include "../search/search.h"
#include "tools.h"
#include "trainset.h"

#define CLIP 1.98f
#define CKPT_MAGIC 0x46464b5054303031ULL /* "FFKPT001" */

typedef struct {
    int hidden, buckets, kings;
    float *ft_w;  /* [kings][768][N] */
    float *ft_f;  /* with king buckets, [768][N]: the factor every bucket's weights add (NULL: none) */
    float *ft_b;  /* [N] */
    float *out_w; /* [buckets][2N] */
    float *out_b; /* [buckets] */
    float *psqt;  /* [768] */
} Model;

typedef struct {
    const char *out, *log, *init;
    int hidden, buckets, kings, epochs, batch, threads;
    double lr, lambda, wdl_scale, val_fraction;
    uint64_t seed;
    long max_positions;
    bool mirror;
} TrainOptions;

typedef struct {
    TrainRecord *records;
    size_t count, train_count;
} Data;

/* One thread's share of a batch and its gradients. */
typedef struct {
    const Model *m;
    const TrainOptions *o;
    const TrainRecord *records;
    const uint32_t *order;
    size_t from, to;
    bool backward;
    uint64_t mirror_salt; /* 0: never mirror; else a position is mirrored when its hash with this is odd */
    Model grad; /* this worker's row of gradients, laid out as the model */
    double loss;
    float *acc; /* [2][N] scratch */
} Worker;

static size_t params_count(int n, int buckets, int kings)
{
    return (size_t)NNUE_INPUTS * (kings + (kings > 1)) * n + (size_t)n + (2 * (size_t)n + 1) * (size_t)buckets + NNUE_INPUTS;
}

static float *fcalloc(size_t n)
{
    float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    if (!p)
        abort();
    memset(p, 0, n * sizeof(float));
    return p;
}

/* The record's features: for each perspective, the indexes of its active inputs (into the feature
 * weights, king bucket included) and of their piece-square weights. */
static int record_features(const TrainRecord *r, bool mirror, int kings, int features[COLOR_NB][32],
                           int psq[COLOR_NB][32], Color *side)
{
    Bitboard occ = 0;
    for (int i = 0; i < 8; i++)
        occ |= (Bitboard)r->bytes[i] << (8 * i);
    int n = 0;
    Square king[COLOR_NB] = {0, 0};
    while (occ && n < 32) {
        Square s = pop_lsb(&occ);
        Piece pc = (r->bytes[8 + n / 2] >> (4 * (n & 1))) & 15;
        if (mirror)
            s ^= 7;
        if (piece_type(pc) == KING)
            king[piece_color(pc)] = s;
        psq[WHITE][n] = nnue_feature(WHITE, pc, s);
        psq[BLACK][n] = nnue_feature(BLACK, pc, s);
        n++;
    }
    for (Color c = WHITE; c <= BLACK; c++) {
        int base = nnue_king_bucket(kings, c, king[c]) * NNUE_INPUTS; /* 0 without king buckets */
        for (int i = 0; i < n; i++)
            features[c][i] = base + psq[c][i];
    }
    *side = r->bytes[27] ? BLACK : WHITE;
    return n;
}

static float sigmoidf_(float x) { return 1.0f / (1.0f + expf(-x)); }

/* The three loops every position runs, twice: for AVX2 (chosen at run time) and portable. (Not
 * target_clones: its ifunc resolver runs before ThreadSanitizer's runtime and crashes that build.) */
#define TRAIN_KERNELS(SUFFIX, ATTR)                                                                                    \
    ATTR static void add_row_##SUFFIX(float *dst, const float *row, int n)                                             \
    {                                                                                                                  \
        for (int i = 0; i < n; i++)                                                                                    \
            dst[i] += row[i];                                                                                          \
    }                                                                                                                  \
    ATTR static float forward_half_##SUFFIX(const float *acc, const float *w, int n)                                   \
    {                                                                                                                  \
        float sum = 0;                                                                                                 \
        for (int i = 0; i < n; i++) {                                                                                  \
            float a = acc[i] < 0 ? 0 : acc[i] > 1 ? 1 : acc[i];                                                        \
            sum += a * a * w[i];                                                                                       \
        }                                                                                                              \
        return sum;                                                                                                    \
    }                                                                                                                  \
    /* The gradient through one perspective: into its output weights, and d acc (left in acc). */                      \
    ATTR static void backward_half_##SUFFIX(float *acc, const float *w, float *g_w, float dout, int n)                 \
    {                                                                                                                  \
        for (int i = 0; i < n; i++) {                                                                                  \
            float x = acc[i], a = x < 0 ? 0 : x > 1 ? 1 : x;                                                           \
            g_w[i] += dout * a * a;                                                                                    \
            acc[i] = x > 0 && x < 1 ? dout * w[i] * 2 * x : 0;                                                         \
        }                                                                                                              \
    }

TRAIN_KERNELS(portable, )
#if defined(__x86_64__) || defined(__i386__)
TRAIN_KERNELS(avx2, __attribute__((target("avx2,fma"))))
static bool have_avx2; /* set by train_command before its threads start */
static bool avx2(void) { return have_avx2; }
#define DISPATCH(name, ...) (avx2() ? name##_avx2(__VA_ARGS__) : name##_portable(__VA_ARGS__))
#else
#define DISPATCH(name, ...) name##_portable(__VA_ARGS__)
#endif

static void add_row(float *dst, const float *row, int n) { DISPATCH(add_row, dst, row, n); }
static float forward_half(const float *acc, const float *w, int n) { return DISPATCH(forward_half, acc, w, n); }
static void backward_half(float *acc, const float *w, float *g_w, float dout, int n)
{
    DISPATCH(backward_half, acc, w, g_w, dout, n);
}

/* The model's output (before the scale) for a record; acc gets both perspectives' accumulators,
 * bucket the output bucket used. */
static float forward(const Model *m, const TrainRecord *r, bool mirror, float *acc, int features[COLOR_NB][32],
                     int psq[COLOR_NB][32], int *count, Color *side, int *bucket)
{
    int n = m->hidden;
    *count = record_features(r, mirror, m->kings, features, psq, side);
    *bucket = nnue_bucket(*count, m->buckets);
    float psqt = 0;
    for (int k = 0; k < *count; k++)
        psqt += m->psqt[psq[*side][k]] - m->psqt[psq[1 - *side][k]];
    for (Color c = WHITE; c <= BLACK; c++) {
        float *a = acc + c * n;
        memcpy(a, m->ft_b, (size_t)n * sizeof(float));
        for (int k = 0; k < *count; k++)
            add_row(a, m->ft_w + (size_t)features[c][k] * n, n);
        if (m->ft_f)
            for (int k = 0; k < *count; k++)
                add_row(a, m->ft_f + (size_t)psq[c][k] * n, n);
    }
    float *us = acc + *side * n, *them = acc + (1 - *side) * n;
    const float *w = m->out_w + 2 * (size_t)n * *bucket;
    return forward_half(us, w, n) + forward_half(them, w + n, n) + m->out_b[*bucket] + psqt / 2;
}

static float target_of(const TrainOptions *o, const TrainRecord *r)
{
    int score = (int16_t)(uint16_t)(r->bytes[24] | r->bytes[25] << 8);
    float result = r->bytes[26] / 2.0f;
    return (float)(o->lambda * sigmoidf_((float)(score / o->wdl_scale)) + (1 - o->lambda) * result);
}

static void *work(void *arg)
{
    Worker *w = arg;
    const Model *m = w->m;
    int n = m->hidden;
    float k = (float)(NNUE_SCALE / w->o->wdl_scale);
    w->loss = 0;
    for (size_t i = w->from; i < w->to; i++) {
        const TrainRecord *r = &w->records[w->order ? w->order[i] : i];
        int features[COLOR_NB][32], psq[COLOR_NB][32], count, bucket;
        Color side;
        size_t index = w->order ? w->order[i] : i;
        bool mirror = w->mirror_salt && (splitmix64(&(uint64_t){index ^ w->mirror_salt}) & 1);
        float out = forward(m, r, mirror, w->acc, features, psq, &count, &side, &bucket);
        float pred = sigmoidf_(out * k), err = pred - target_of(w->o, r);
        w->loss += (double)err * err;
        if (!w->backward)
            continue;
        float dout = 2 * err * pred * (1 - pred) * k;
        w->grad.out_b[bucket] += dout;
        for (int f = 0; f < count; f++) {
            w->grad.psqt[psq[side][f]] += dout / 2;
            w->grad.psqt[psq[1 - side][f]] -= dout / 2;
        }
        for (int half = 0; half < 2; half++) {
            Color c = half ? (Color)(1 - side) : side;
            float *a = w->acc + c * n;
            size_t at = (2 * (size_t)bucket + (size_t)half) * (size_t)n;
            backward_half(a, m->out_w + at, w->grad.out_w + at, dout, n);
            add_row(w->grad.ft_b, a, n);
            for (int f = 0; f < count; f++)
                add_row(w->grad.ft_w + (size_t)features[c][f] * n, a, n);
            if (m->ft_f)
                for (int f = 0; f < count; f++)
                    add_row(w->grad.ft_f + (size_t)psq[c][f] * n, a, n);
        }
    }
    return NULL;
}

/* Adam over params [from, to) of the flat vector, the gradient summed over the workers. */
typedef struct {
    float *param, *m1, *m2;
    float **grads;
    int workers;
    size_t from, to;
    size_t psqt_from; /* the piece-square weights, from here on, are not clipped to CLIP */
    float lr, b1t, b2t;
} AdamSlice;

static void *adam(void *arg)
{
    AdamSlice *a = arg;
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    for (size_t i = a->from; i < a->to; i++) {
        float g = 0;
        for (int t = 0; t < a->workers; t++) {
            g += a->grads[t][i];
            a->grads[t][i] = 0;
        }
        if (g == 0 && a->m1[i] == 0 && a->m2[i] == 0)
            continue; /* an input never seen yet */
        a->m1[i] = b1 * a->m1[i] + (1 - b1) * g;
        a->m2[i] = b2 * a->m2[i] + (1 - b2) * g * g;
        float v = a->param[i] - a->lr * (a->m1[i] / a->b1t) / (sqrtf(a->m2[i] / a->b2t) + eps);
        float clip = i >= a->psqt_from ? 16.0f : CLIP;
        a->param[i] = v > clip ? clip : v < -clip ? -clip : v;
    }
    return NULL;
}

/* The model lives in one flat vector (ft_w, ft_b, out_w, out_b, psqt), as do each worker's
 * gradients and the optimiser's moments. */
static void model_view(Model *m, float *flat, int n, int buckets, int kings)
{
    m->hidden = n;
    m->buckets = buckets;
    m->kings = kings;
    m->ft_w = flat;
    m->ft_f = kings > 1 ? flat + (size_t)NNUE_INPUTS * kings * n : NULL;
    m->ft_b = flat + (size_t)NNUE_INPUTS * (kings + (kings > 1)) * n;
    m->out_w = m->ft_b + n;
    m->out_b = m->out_w + 2 * (size_t)n * buckets;
    m->psqt = m->out_b + buckets;
}

static Network *quantise(const Model *m)
{
    int n = m->hidden;
    Network *net = calloc(1, sizeof *net);
    net->hidden = n;
    net->buckets = m->buckets;
    net->kings = m->kings;
    net->ft_weight = aligned_alloc(64, (size_t)NNUE_INPUTS * m->kings * n * 2);
    net->ft_bias = aligned_alloc(64, ((size_t)n * 2 + 63) / 64 * 64);
    net->out_weight = aligned_alloc(64, ((size_t)n * 4 * m->buckets + 63) / 64 * 64);
    if (!net->ft_weight || !net->ft_bias || !net->out_weight)
        abort();
    for (size_t i = 0; i < (size_t)NNUE_INPUTS * m->kings * n; i++) {
        float v = m->ft_w[i] + (m->ft_f ? m->ft_f[i % ((size_t)NNUE_INPUTS * n)] : 0);
        net->ft_weight[i] = (int16_t)lrintf((v > CLIP ? CLIP : v < -CLIP ? -CLIP : v) * NNUE_QA);
    }
    for (int i = 0; i < n; i++)
        net->ft_bias[i] = (int16_t)lrintf(m->ft_b[i] * NNUE_QA);
    for (int i = 0; i < 2 * n * m->buckets; i++) {
        long v = lrintf(m->out_w[i] * NNUE_QB);
        net->out_weight[i] = (int16_t)(v > 127 ? 127 : v < -127 ? -127 : v);
    }
    for (int k = 0; k < m->buckets; k++)
        net->out_bias[k] = (int32_t)lrintf(m->out_b[k] * NNUE_QA * NNUE_QB);
    for (int i = 0; i < NNUE_INPUTS; i++)
        net->psqt[i] = (int32_t)lrintf(m->psqt[i] * NNUE_QA * NNUE_QB);
    return net;
}

/* The float model a quantised network stands for: quantise's inverse (up to its rounding). A model
 * wider than net (a generation widened) takes net's neurons as its first ones and leaves the rest as
 * they are (the caller's random feature weights, zero output weights): the same function to begin
 * with, and room to learn more. */
static void dequantise(const Network *net, Model *m)
{
    int n = m->hidden, k = net->hidden;
    /* A net without king buckets into a model with them: its weights are the factor, the buckets'
     * own start at zero. */
    bool factor = m->ft_f && net->kings == 1;
    float *dst = factor ? m->ft_f : m->ft_w;
    for (size_t f = 0; f < (size_t)NNUE_INPUTS * net->kings; f++)
        for (int i = 0; i < k; i++)
            dst[f * n + i] = (float)net->ft_weight[f * k + i] / NNUE_QA;
    if (m->ft_f && !factor) /* a king-bucketed net's sets are whole: no factor for its neurons (new ones keep theirs) */
        for (size_t f = 0; f < NNUE_INPUTS; f++)
            memset(m->ft_f + f * n, 0, (size_t)k * sizeof(float));
    for (int i = 0; i < k; i++)
        m->ft_b[i] = (float)net->ft_bias[i] / NNUE_QA;
    for (int b = 0; b < 2 * m->buckets; b++)
        for (int i = 0; i < n; i++)
            m->out_w[b * n + i] = i < k ? (float)net->out_weight[b * k + i] / NNUE_QB : 0;
    for (int b = 0; b < m->buckets; b++)
        m->out_b[b] = (float)net->out_bias[b] / (NNUE_QA * NNUE_QB);
    for (int i = 0; i < NNUE_INPUTS; i++)
        m->psqt[i] = (float)net->psqt[i] / (NNUE_QA * NNUE_QB);
}

/* Writes the pieces one after another to PATH.part, then renames it to PATH: a file is whole or absent. */
typedef struct {
    const void *bytes;
    size_t size;
} Piece_;
static bool write_whole(const char *path, const Piece_ *pieces, int count)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return false;
    bool ok = true;
    for (int i = 0; i < count && ok; i++)
        ok = fwrite(pieces[i].bytes, 1, pieces[i].size, f) == pieces[i].size;
    ok = fclose(f) == 0 && ok;
    return ok && rename(tmp, path) == 0;
}

static bool load_data(int argc, char **argv, const TrainOptions *o, Data *d)
{
    size_t cap = 1 << 20;
    d->records = malloc(cap * sizeof *d->records);
    d->count = 0;
    for (int i = 0; i < argc && d->records; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "train: cannot read %s\n", argv[i]);
            return false;
        }
        TrainRecord r;
        size_t bad = 0;
        while (fread(r.bytes, 1, sizeof r.bytes, f) == sizeof r.bytes) {
            TrainPosition t;
            if (!trainset_decode(&r, &t)) {
                bad++;
                continue;
            }
            if (o->max_positions && (long)d->count >= o->max_positions)
                break;
            if (d->count == cap) {
                cap *= 2;
                TrainRecord *grown = realloc(d->records, cap * sizeof *grown);
                if (!grown) {
                    fclose(f);
                    fprintf(stderr, "train: out of memory\n");
                    return false;
                }
                d->records = grown;
            }
            d->records[d->count++] = r;
        }
        fclose(f);
        if (bad)
            fprintf(stderr, "train: %s: %zu records that are not records skipped\n", argv[i], bad);
    }
    if (!d->records || d->count < 100) {
        fprintf(stderr, "train: %zu positions: too few to train on\n", d->count);
        return false;
    }
    d->train_count = d->count - (size_t)(d->count * o->val_fraction);
    return true;
}

/* What a checkpoint must match to be resumed: every option that shapes the run, and the data. */
static uint64_t run_key(const TrainOptions *o, const Data *d, uint64_t init)
{
    char text[512];
    snprintf(text, sizeof text, "%d %d %d %d %d %.9g %.9g %.9g %.9g %llu %zu %zu %d %llu", o->hidden, o->buckets, o->kings,
             o->epochs, o->batch, o->lr, o->lambda, o->wdl_scale, o->val_fraction, (unsigned long long)o->seed,
             d->count, d->train_count, o->mirror, (unsigned long long)init);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *c = text; *c; c++)
        h = (h ^ (uint8_t)*c) * 0x100000001b3ULL;
    for (size_t i = 0; i < d->count; i += 997) /* a sample of the records themselves */
        for (int b = 0; b < TRAINSET_RECORD_SIZE; b++)
            h = (h ^ d->records[i].bytes[b]) * 0x100000001b3ULL;
    return h;
}

static double run_pass(Worker *w, int threads, const Model *m, const TrainOptions *o, const TrainRecord *records,
                       const uint32_t *order, size_t from, size_t to, bool backward, uint64_t mirror_salt)
{
    pthread_t h[64];
    size_t span = to - from;
    for (int t = 0; t < threads; t++) {
        w[t].m = m, w[t].o = o, w[t].records = records, w[t].order = order, w[t].backward = backward;
        w[t].mirror_salt = mirror_salt;
        w[t].from = from + span * t / threads;
        w[t].to = from + span * (t + 1) / threads;
        if (t > 0)
            pthread_create(&h[t], NULL, work, &w[t]);
    }
    work(&w[0]);
    double loss = w[0].loss;
    for (int t = 1; t < threads; t++) {
        pthread_join(h[t], NULL);
        loss += w[t].loss;
    }
    return loss;
}

static double validation_loss(Worker *w, int threads, const Model *m, const TrainOptions *o, const Data *d)
{
    size_t n = d->count - d->train_count;
    if (!n)
        return 0;
    return run_pass(w, threads, m, o, d->records, NULL, d->train_count, d->count, false, 0) / (double)n;
}

/* Float model against the quantised net over the validation positions, in centipawns. */
static void quantisation_error(const Model *m, const Network *net, const Data *d, FILE *out)
{
    Position *p = malloc(sizeof *p);
    float *acc = fcalloc(2 * (size_t)m->hidden);
    double sum = 0, worst = 0;
    size_t count = 0, from = d->train_count < d->count ? d->train_count : 0;
    for (size_t i = from; i < d->count && count < 20000; i++, count++) {
        TrainPosition t;
        char fen[128], err[64];
        trainset_decode(&d->records[i], &t);
        trainset_fen(&t, fen, sizeof fen);
        if (fen_read(p, fen, err, sizeof err) != FEN_OK) {
            count--;
            continue;
        }
        int features[COLOR_NB][32], psq[COLOR_NB][32], n, bucket;
        Color side;
        double f = forward(m, &d->records[i], false, acc, features, psq, &n, &side, &bucket) * NNUE_SCALE;
        double diff = fabs(f - nnue_evaluate(net, p, NULL));
        sum += diff;
        if (diff > worst)
            worst = diff;
    }
    fprintf(out, "quantisation: float vs int over %zu positions: mean %.2f cp, max %.2f cp\n", count,
            count ? sum / (double)count : 0, worst);
    free(acc);
    free(p);
}

static int usage(void)
{
    fprintf(stderr, "usage: feelfish train --out NET [--hidden N] [--buckets 1|8] [--king-buckets 1|4] [--epochs E]\n"
                    "                      [--batch B] [--lr X]\n"
                    "                      [--lambda L] [--wdl-scale CP] [--val F] [--threads T] [--seed S] [--max-positions N]\n"
                    "                      [--no-mirror] [--init NET] [--log FILE.csv] DATA.bin...\n");
    return 2;
}

int train_command(int argc, char **argv, FILE *out)
{
    TrainOptions o = {.hidden = 128, .buckets = 1, .kings = 1, .epochs = 12, .batch = 4096, .threads = 2, .lr = 0.001, .lambda = 1.0,
                      .wdl_scale = 272, .val_fraction = 0.02, .seed = 1, .mirror = true};
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    bool hidden_given = false, buckets_given = false, kings_given = false;
    for (int i = 0; i < argc; i++) {
        bool has = i + 1 < argc;
        const char *v = has ? argv[i + 1] : "";
        char *end = NULL;
        double x = has ? strtod(v, &end) : 0;
        bool number = has && end && !*end && end != v;
        if (!strcmp(argv[i], "--out") && has)
            o.out = argv[++i];
        else if (!strcmp(argv[i], "--log") && has)
            o.log = argv[++i];
        else if (!strcmp(argv[i], "--init") && has)
            o.init = argv[++i];
        else if (!strcmp(argv[i], "--hidden") && number && x >= 16 && x <= NNUE_HIDDEN_MAX && (int)x % 16 == 0)
            o.hidden = (int)x, i++, hidden_given = true;
        else if (!strcmp(argv[i], "--buckets") && number && (x == 1 || x == NNUE_BUCKETS))
            o.buckets = (int)x, i++, buckets_given = true;
        else if (!strcmp(argv[i], "--king-buckets") && number && (x == 1 || x == NNUE_KING_BUCKETS))
            o.kings = (int)x, i++, kings_given = true;
        else if (!strcmp(argv[i], "--epochs") && number && x >= 1 && x <= 10000)
            o.epochs = (int)x, i++;
        else if (!strcmp(argv[i], "--batch") && number && x >= 16 && x <= 1 << 20)
            o.batch = (int)x, i++;
        else if (!strcmp(argv[i], "--threads") && number && x >= 1 && x <= 64)
            o.threads = (int)x, i++;
        else if (!strcmp(argv[i], "--lr") && number && x > 0 && x < 1)
            o.lr = x, i++;
        else if (!strcmp(argv[i], "--lambda") && number && x >= 0 && x <= 1)
            o.lambda = x, i++;
        else if (!strcmp(argv[i], "--wdl-scale") && number && x >= 50 && x <= 2000)
            o.wdl_scale = x, i++;
        else if (!strcmp(argv[i], "--val") && number && x >= 0 && x < 0.5)
            o.val_fraction = x, i++;
        else if (!strcmp(argv[i], "--seed") && number && x >= 0)
            o.seed = (uint64_t)x, i++;
        else if (!strcmp(argv[i], "--no-mirror"))
            o.mirror = false;
        else if (!strcmp(argv[i], "--max-positions") && number && x >= 100)
            o.max_positions = (long)x, i++;
        else if (argv[i][0] != '-')
            files[nfiles++] = argv[i];
        else {
            fprintf(stderr, "train: bad or incomplete argument '%s'\n", argv[i]);
            free(files);
            return usage();
        }
    }
    if (!o.out || !nfiles) {
        free(files);
        return usage();
    }
#if defined(__x86_64__) || defined(__i386__)
    have_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    /* --init: the starting network, whose shape the run takes. */
    Network *init = NULL;
    if (o.init) {
        char err[200], why[260] = "";
        if (!(init = nnue_load_file(o.init, err, sizeof err)))
            snprintf(why, sizeof why, ": %s", err);
        else if (hidden_given && o.hidden < init->hidden)
            snprintf(why, sizeof why, " is %d wide, more than --hidden %d", init->hidden, o.hidden);
        else if (buckets_given && o.buckets != init->buckets)
            snprintf(why, sizeof why, " has %d output buckets, not --buckets %d", init->buckets, o.buckets);
        else if (kings_given && init->kings > 1 && o.kings != init->kings)
            snprintf(why, sizeof why, " has %d king buckets, not --king-buckets %d", init->kings, o.kings);
        if (why[0]) {
            fprintf(stderr, "train: --init %s%s\n", o.init, why);
            free(files);
            nnue_free(init);
            return 1;
        }
        if (!hidden_given)
            o.hidden = init->hidden;
        o.buckets = init->buckets;
        if (init->kings > 1)
            o.kings = init->kings;
    }
    Data d;
    bool loaded = load_data(nfiles, files, &o, &d);
    free(files);
    if (!loaded) {
        free(d.records);
        nnue_free(init);
        return 1;
    }
    int n = o.hidden;
    size_t np = params_count(n, o.buckets, o.kings);
    float *flat = fcalloc(np), *m1 = fcalloc(np), *m2 = fcalloc(np);
    Model m;
    model_view(&m, flat, n, o.buckets, o.kings);
    uint64_t rng = o.seed * 0x9E3779B97F4A7C15ULL + 1;
    int start_epoch = 0;
    long step = 0;

    /* Resume from OUT.ckpt when it is for this shape; otherwise a fresh start. */
    char ckpt[4096];
    snprintf(ckpt, sizeof ckpt, "%s.ckpt", o.out);
    FILE *cf = fopen(ckpt, "rb");
    uint64_t head[4], run = run_key(&o, &d, init ? init->checksum : 0);
    if (cf && fread(head, sizeof head, 1, cf) == 1 && head[0] == CKPT_MAGIC && head[1] != run) {
        fprintf(stderr, "train: %s is from another run (other options or data): remove it or choose another --out\n",
                ckpt);
        fclose(cf);
        free(flat), free(m1), free(m2), free(d.records);
        nnue_free(init);
        return 1;
    }
    if (cf && head[0] == CKPT_MAGIC && fread(flat, sizeof(float), np, cf) == np &&
        fread(m1, sizeof(float), np, cf) == np && fread(m2, sizeof(float), np, cf) == np) {
        start_epoch = (int)head[2];
        step = (long)head[3];
        fprintf(out, "resuming %s after epoch %d\n", ckpt, start_epoch);
    } else {
        memset(flat, 0, np * sizeof(float));
        memset(m1, 0, np * sizeof(float));
        memset(m2, 0, np * sizeof(float));
        float a = 1.0f / sqrtf(32.0f), b = 1.0f / sqrtf((float)(2 * n));
        /* Random feature weights: with king buckets in the factor, the buckets' own at zero. */
        float *ft = m.ft_f ? m.ft_f : m.ft_w;
        for (size_t i = 0; i < (size_t)NNUE_INPUTS * (m.ft_f ? 1 : o.kings) * n; i++)
            ft[i] = (float)(random_unit(splitmix64(&rng)) * 2 - 1) * a;
        if (init) {
            dequantise(init, &m);
            fprintf(out, "starting from %s (checksum %016llx%s%s)\n", o.init, (unsigned long long)init->checksum,
                    n > init->hidden ? ", widened: its neurons first, the new ones' output weights zero" : "",
                    o.kings > init->kings ? ", its feature weights the factor the four king buckets share" : "");
        } else {
            for (int i = 0; i < 2 * n * o.buckets; i++)
                m.out_w[i] = (float)(random_unit(splitmix64(&rng)) * 2 - 1) * b;
            for (PieceType t = PAWN; t <= QUEEN; t++)
                for (Square sq = 0; sq < SQUARE_NB; sq++) {
                    float v = (float)PieceValueMg[t] / NNUE_SCALE;
                    m.psqt[nnue_feature(WHITE, piece_make(WHITE, t), sq)] = v;
                    m.psqt[nnue_feature(WHITE, piece_make(BLACK, t), sq)] = -v;
                }
        }
    }
    nnue_free(init);
    if (cf)
        fclose(cf);

    int threads = o.threads;
    Worker *w = calloc((size_t)threads, sizeof *w);
    float **grads = calloc((size_t)threads, sizeof *grads);
    for (int t = 0; t < threads; t++) {
        grads[t] = fcalloc(np);
        model_view(&w[t].grad, grads[t], n, o.buckets, o.kings);
        w[t].acc = fcalloc(2 * (size_t)n);
    }
    uint32_t *order = malloc(d.train_count * sizeof *order);
    for (size_t i = 0; i < d.train_count; i++)
        order[i] = (uint32_t)i;
    long steps_per_epoch = (long)((d.train_count + (size_t)o.batch - 1) / (size_t)o.batch);
    long total_steps = steps_per_epoch * o.epochs;
    fprintf(out, "training 768->%dx2->1%s%s on %zu positions (%zu held out), %d epochs of %ld batches of %d, %d threads\n",
            n, o.buckets > 1 ? " (8 output buckets)" : "", o.kings > 1 ? " (4 king buckets)" : "", d.train_count, d.count - d.train_count, o.epochs, steps_per_epoch, o.batch, threads);
    FILE *log = o.log ? fopen(o.log, start_epoch ? "a" : "w") : NULL;
    if (!start_epoch) { /* the untrained net's losses: epoch 0 */
        double train0 = run_pass(w, threads, &m, &o, d.records, NULL, 0, d.train_count, false, 0) / (double)d.train_count;
        double val0 = validation_loss(w, threads, &m, &o, &d);
        fprintf(out, "epoch 0/%d  train loss %.6f  validation loss %.6f\n", o.epochs, train0, val0);
        if (log)
            fprintf(log, "epoch,train_loss,val_loss,seconds\n0,%.6f,%.6f,0\n", train0, val0);
    }
    int64_t t0 = time_now_ms();
    int status = 0;
    for (int epoch = start_epoch; epoch < o.epochs; epoch++) {
        uint64_t erng = o.seed * 0x100000001B3ULL ^ (uint64_t)(epoch + 1) * 0x9E3779B97F4A7C15ULL;
        for (size_t i = d.train_count; i > 1; i--) {
            size_t j = splitmix64(&erng) % i;
            uint32_t tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
        int64_t e0 = time_now_ms();
        double loss = 0;
        for (size_t from = 0; from < d.train_count; from += (size_t)o.batch, step++) {
            size_t to = from + (size_t)o.batch < d.train_count ? from + (size_t)o.batch : d.train_count;
            loss += run_pass(w, threads, &m, &o, d.records, order, from, to, true,
                             o.mirror ? erng | 1 : 0);
            double progress = (double)step / (double)total_steps;
            float lr = (float)(o.lr / 100 + 0.5 * (o.lr - o.lr / 100) * (1 + cos(M_PI * progress)));
            /* Gradients are sums over the batch: the mean's step is lr with grads scaled. */
            AdamSlice s[64];
            pthread_t h[64];
            for (int t = 0; t < threads; t++) {
                s[t] = (AdamSlice){.param = flat, .m1 = m1, .m2 = m2, .grads = grads, .workers = threads,
                                   .from = np * (size_t)t / (size_t)threads, .to = np * (size_t)(t + 1) / (size_t)threads,
                                   .psqt_from = np - NNUE_INPUTS,
                                   .lr = lr,
                                   .b1t = 1 - powf(0.9f, (float)(step + 1)),
                                   .b2t = 1 - powf(0.999f, (float)(step + 1))};
                if (t > 0)
                    pthread_create(&h[t], NULL, adam, &s[t]);
            }
            adam(&s[0]);
            for (int t = 1; t < threads; t++)
                pthread_join(h[t], NULL);
        }
        double train_loss = loss / (double)d.train_count, val = validation_loss(w, threads, &m, &o, &d);
        double secs = (double)(time_now_ms() - e0) / 1000.0, all = (double)(time_now_ms() - t0) / 1000.0;
        double eta = all / (epoch + 1 - start_epoch) * (o.epochs - epoch - 1);
        fprintf(out, "epoch %d/%d  train loss %.6f  validation loss %.6f  %.0f positions/s  %.0f s  ETA %.0f s\n",
                epoch + 1, o.epochs, train_loss, val, (double)d.train_count / (secs > 0 ? secs : 1), secs, eta);
        fflush(out);
        if (log) {
            fprintf(log, "%d,%.6f,%.6f,%.1f\n", epoch + 1, train_loss, val, secs);
            fflush(log);
        }
        /* The checkpoint, written whole then renamed. */
        uint64_t hd[4] = {CKPT_MAGIC, run, (uint64_t)(epoch + 1), (uint64_t)step};
        Piece_ ck[] = {{hd, sizeof hd}, {flat, np * sizeof(float)}, {m1, np * sizeof(float)}, {m2, np * sizeof(float)}};
        if (!write_whole(ckpt, ck, 4)) {
            fprintf(stderr, "train: cannot write the checkpoint %s\n", ckpt);
            status = 1;
            break;
        }
    }
    if (log)
        fclose(log);
    if (!status) {
        Network *net = quantise(&m);
        size_t size;
        uint8_t *bytes = nnue_serialize(net, &size);
        char err[200];
        Network *back = bytes ? nnue_load_memory(bytes, size, err, sizeof err) : NULL;
        if (!back || !write_whole(o.out, &(Piece_){bytes, size}, 1)) {
            fprintf(stderr, "train: cannot write %s\n", o.out);
            status = 1;
        } else {
            fprintf(out, "wrote %s (%zu bytes, checksum %016llx)\n", o.out, size, (unsigned long long)back->checksum);
            quantisation_error(&m, back, &d, out);
        }
        free(bytes);
        nnue_free(back);
        nnue_free(net);
    }
    for (int t = 0; t < threads; t++) {
        free(grads[t]);
        free(w[t].acc);
    }
    free(grads);
    free(w);
    free(order);
    free(flat);
    free(m1);
    free(m2);
    free(d.records);
    return status;
}
