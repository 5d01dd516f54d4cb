/* The learned evaluation: loading, accumulators, the forward pass. See nnue.h. The three kernels
 * (an accumulator from its parent's, a refresh, the SCReLU dot product) have an AVX2 version chosen
 * at run time and a portable one; both give the same integers. */
#include "nnue.h"
#include "../core/embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NNUE_X86 1
#endif

static uint64_t fnv1a(const uint8_t *b, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint32_t get32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }
static void put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

#define HEADER_SIZE 16

static size_t file_size_for(int hidden, int buckets, int kings)
{
    return HEADER_SIZE + 2 * ((size_t)NNUE_INPUTS * kings * hidden + hidden + 2 * (size_t)hidden * buckets) + 4 * (size_t)buckets +
           4 * NNUE_INPUTS + 8;
}

void nnue_free(Network *net)
{
    if (!net)
        return;
    free(net->ft_weight);
    free(net->ft_bias);
    free(net->out_weight);
    free(net);
}

static void *aligned(size_t bytes)
{
    size_t rounded = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, rounded ? rounded : 64);
}

static void read16(int16_t *dst, const uint8_t *src, size_t count)
{
    for (size_t i = 0; i < count; i++)
        dst[i] = (int16_t)(uint16_t)(src[2 * i] | src[2 * i + 1] << 8);
}

Network *nnue_load_memory(const void *bytes, size_t size, char *err, size_t err_size)
{
    const uint8_t *b = bytes;
    if (size < HEADER_SIZE || memcmp(b, "FFNN", 4)) {
        snprintf(err, err_size, "not a feelfish network (no FFNN header)");
        return NULL;
    }
    uint32_t version = get32(b + 4), hidden = get32(b + 8), flags = get32(b + 12);
    if (version != NNUE_VERSION || (flags & ~(NNUE_FLAG_BUCKETS | NNUE_FLAG_KINGS))) {
        snprintf(err, err_size, "network version %u (flags %u) is not the version this build reads (%d)", version,
                 flags, NNUE_VERSION);
        return NULL;
    }
    if (hidden < 16 || hidden > NNUE_HIDDEN_MAX || hidden % 16) {
        snprintf(err, err_size, "hidden size %u is not a multiple of 16 in 16..%d", hidden, NNUE_HIDDEN_MAX);
        return NULL;
    }
    int buckets = flags & NNUE_FLAG_BUCKETS ? NNUE_BUCKETS : 1, kings = flags & NNUE_FLAG_KINGS ? NNUE_KING_BUCKETS : 1;
    size_t want = file_size_for((int)hidden, buckets, kings);
    if (size != want) {
        snprintf(err, err_size, "%s: %zu bytes where a %u-wide network has %zu", size < want ? "truncated" : "too long",
                 size, hidden, want);
        return NULL;
    }
    uint64_t stored = (uint64_t)get32(b + want - 8) | (uint64_t)get32(b + want - 4) << 32;
    uint64_t sum = fnv1a(b, want - 8);
    if (stored != sum) {
        snprintf(err, err_size, "checksum mismatch: the file is corrupt");
        return NULL;
    }
    Network *net = calloc(1, sizeof *net);
    if (!net) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    net->hidden = (int)hidden;
    net->buckets = buckets;
    net->kings = kings;
    net->ft_weight = aligned(2 * (size_t)NNUE_INPUTS * kings * hidden);
    net->ft_bias = aligned(2 * (size_t)hidden);
    net->out_weight = aligned(4 * (size_t)hidden * buckets);
    if (!net->ft_weight || !net->ft_bias || !net->out_weight) {
        nnue_free(net);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    const uint8_t *at = b + HEADER_SIZE;
    read16(net->ft_weight, at, (size_t)NNUE_INPUTS * kings * hidden);
    at += 2 * (size_t)NNUE_INPUTS * kings * hidden;
    read16(net->ft_bias, at, hidden);
    at += 2 * (size_t)hidden;
    read16(net->out_weight, at, 2 * (size_t)hidden * buckets);
    at += 4 * (size_t)hidden * buckets;
    for (int k = 0; k < buckets; k++, at += 4)
        net->out_bias[k] = (int32_t)get32(at);
    for (int i = 0; i < NNUE_INPUTS; i++)
        net->psqt[i] = (int32_t)get32(at + 4 * i);
    for (size_t i = 0; i < 2 * (size_t)hidden * buckets; i++)
        if (net->out_weight[i] > 127 || net->out_weight[i] < -127) {
            nnue_free(net);
            snprintf(err, err_size, "output weight %zu out of range (|w| <= 127)", i);
            return NULL;
        }
    net->checksum = sum;
    return net;
}

Network *nnue_load_file(const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open %s", path);
        return NULL;
    }
    size_t cap = 1 << 20, len = 0, max = file_size_for(NNUE_HIDDEN_MAX, NNUE_BUCKETS, NNUE_KING_BUCKETS) + 1;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0 || len > max)
            break;
        if (len == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    bool read_error = ferror(f);
    fclose(f);
    if (!buf || read_error) {
        free(buf);
        snprintf(err, err_size, "cannot read %s", path);
        return NULL;
    }
    char why[200];
    Network *net = nnue_load_memory(buf, len, why, sizeof why);
    free(buf);
    if (!net)
        snprintf(err, err_size, "%s: %s", path, why);
    return net;
}

static void write16(uint8_t *dst, const int16_t *src, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        dst[2 * i] = (uint8_t)((uint16_t)src[i] & 0xff);
        dst[2 * i + 1] = (uint8_t)((uint16_t)src[i] >> 8);
    }
}

uint8_t *nnue_serialize(const Network *net, size_t *size)
{
    size_t n = (size_t)net->hidden, buckets = (size_t)net->buckets, kings = net->kings > 1 ? NNUE_KING_BUCKETS : 1,
           total = file_size_for(net->hidden, net->buckets, (int)kings);
    *size = 0;
    uint8_t *b = calloc(1, total);
    if (!b)
        return NULL;
    memcpy(b, "FFNN", 4);
    put32(b + 4, NNUE_VERSION);
    put32(b + 8, (uint32_t)n);
    put32(b + 12, (buckets > 1 ? NNUE_FLAG_BUCKETS : 0) | (kings > 1 ? NNUE_FLAG_KINGS : 0));
    uint8_t *at = b + HEADER_SIZE;
    write16(at, net->ft_weight, NNUE_INPUTS * kings * n);
    at += 2 * NNUE_INPUTS * kings * n;
    write16(at, net->ft_bias, n);
    at += 2 * n;
    write16(at, net->out_weight, 2 * n * buckets);
    at += 4 * n * buckets;
    for (size_t k = 0; k < buckets; k++, at += 4)
        put32(at, (uint32_t)net->out_bias[k]);
    for (int i = 0; i < NNUE_INPUTS; i++)
        put32(at + 4 * i, (uint32_t)net->psqt[i]);
    uint64_t sum = fnv1a(b, total - 8);
    put32(b + total - 8, (uint32_t)sum);
    put32(b + total - 4, (uint32_t)(sum >> 32));
    *size = total;
    return b;
}

/* ---- the default network ---- */

#ifdef FEELFISH_NET_FILE
/* The committed network, built in by the assembler (Makefile: FEELFISH_NET_FILE). */
EMBED_FILE(feelfish_net, FEELFISH_NET_FILE, 64);
#endif

static const Network *embedded;
static const Network *current;
static bool initialised;
static bool has_avx2, simd_allowed = true;

const Network *nnue_embedded(void)
{
#ifdef FEELFISH_NET_FILE
    /* Loaded once, from main() before any thread runs (nnue_default's first call). */
    if (!embedded) {
        char err[200];
        embedded = nnue_load_memory(feelfish_net_data, (size_t)feelfish_net_size, err, sizeof err);
        if (!embedded) {
            fprintf(stderr, "feelfish: the built-in network is unreadable (%s)\n", err);
            abort();
        }
    }
#endif
    return embedded;
}

void nnue_init(void)
{
    if (!initialised) {
        current = nnue_embedded();
        initialised = true;
    }
#ifdef NNUE_X86
    has_avx2 = __builtin_cpu_supports("avx2");
#endif
}

const Network *nnue_default(void)
{
    if (!initialised) /* engine_init ran nnue_init: this is only for a caller that did not */
        nnue_init();
    return current;
}

void nnue_set_default(const Network *net)
{
    initialised = true;
    current = net;
}

static Network *loaded; /* the file nnue_select read last, while it is the default */

bool nnue_select(const char *spec, char *err, size_t err_size)
{
    Network *net = NULL;
    if (!strcmp(spec, "none"))
        nnue_set_default(NULL);
    else if (!strcmp(spec, "embedded") || !*spec) {
        if (!nnue_embedded()) {
            snprintf(err, err_size, "this build has no network built in");
            return false;
        }
        nnue_set_default(nnue_embedded());
    } else {
        net = nnue_load_file(spec, err, err_size);
        if (!net)
            return false;
        nnue_set_default(net);
    }
    nnue_free(loaded);
    loaded = net;
    return true;
}

void nnue_describe(char *out, size_t size)
{
    const Network *net = nnue_default();
    if (!net)
        snprintf(out, size, "none (the hand-written evaluation)");
    else
        snprintf(out, size, "%s 768->%dx2->1%s%s (checksum %016llx)", net == nnue_embedded() ? "embedded" : "file",
                 net->hidden, net->kings > 1 ? ", 4 king buckets" : "", net->buckets > 1 ? ", 8 output buckets" : "",
                 (unsigned long long)net->checksum);
}

/* ---- kernels ---- */

typedef struct {
    int add[2], sub[2];
    int adds, subs;
} Delta;

/* dst = src + the rows add[] - the rows sub[] of w (a king bucket's feature weights), n wide. */
static void update_portable(int16_t *dst, const int16_t *src, const int16_t *w, int n, const int *add, int adds,
                            const int *sub, int subs)
{
    for (int i = 0; i < n; i++) {
        int v = src[i];
        for (int k = 0; k < adds; k++)
            v += w[(size_t)add[k] * n + i];
        for (int k = 0; k < subs; k++)
            v -= w[(size_t)sub[k] * n + i];
        dst[i] = (int16_t)v;
    }
}

static int32_t dot_portable(const int16_t *us, const int16_t *them, const int16_t *w, int n)
{
    int32_t sum = 0;
    for (int half = 0; half < 2; half++) {
        const int16_t *a = half ? them : us, *ww = w + half * n;
        for (int i = 0; i < n; i++) {
            int v = a[i] < 0 ? 0 : a[i] > NNUE_QA ? NNUE_QA : a[i];
            sum += (int16_t)(v * ww[i]) * v;
        }
    }
    return sum;
}

#ifdef NNUE_X86
/* dst = src + the rows in add − the rows in sub, 16 lanes at a time. Inlined with constant counts
 * (and the built-in width) the loops unroll and each lane is loaded and stored once. */
__attribute__((target("avx2"), always_inline)) static inline void
add_rows_avx2(int16_t *dst, const int16_t *src, const int16_t *w, const int *add, int adds, const int *sub, int subs,
              int n)
{
    for (int i = 0; i < n; i += 16) {
        __m256i v = _mm256_load_si256((const __m256i *)(src + i));
        for (int k = 0; k < adds; k++)
            v = _mm256_add_epi16(v, _mm256_load_si256((const __m256i *)(w + (size_t)add[k] * n + i)));
        for (int k = 0; k < subs; k++)
            v = _mm256_sub_epi16(v, _mm256_load_si256((const __m256i *)(w + (size_t)sub[k] * n + i)));
        _mm256_store_si256((__m256i *)(dst + i), v);
    }
}

__attribute__((target("avx2"))) static void update_avx2(int16_t *dst, const int16_t *src, const int16_t *w, int n,
                                                        const int *add, int adds, const int *sub, int subs)
{
    /* The usual widths and a move's usual changes (a quiet move, a capture, castling): constant
     * counts, unrolled. */
#define UPDATE_UNROLLED(N)                                                                                             \
    if (n == N) {                                                                                                      \
        if (adds == 1 && subs == 1)                                                                                    \
            return add_rows_avx2(dst, src, w, add, 1, sub, 1, N);                                                      \
        if (adds == 1 && subs == 2)                                                                                    \
            return add_rows_avx2(dst, src, w, add, 1, sub, 2, N);                                                      \
        if (adds == 2 && subs == 2)                                                                                    \
            return add_rows_avx2(dst, src, w, add, 2, sub, 2, N);                                                      \
    }
    UPDATE_UNROLLED(128)
    UPDATE_UNROLLED(256)
#undef UPDATE_UNROLLED
    add_rows_avx2(dst, src, w, add, adds, sub, subs, n);
}

__attribute__((target("avx2"))) static int32_t dot_avx2(const int16_t *us, const int16_t *them, const int16_t *w,
                                                        int n)
{
    const __m256i zero = _mm256_setzero_si256(), qa = _mm256_set1_epi16(NNUE_QA);
    __m256i sum = _mm256_setzero_si256();
    for (int half = 0; half < 2; half++) {
        const int16_t *a = half ? them : us, *ww = w + half * n;
        for (int i = 0; i < n; i += 16) {
            __m256i v = _mm256_load_si256((const __m256i *)(a + i));
            v = _mm256_min_epi16(_mm256_max_epi16(v, zero), qa);
            __m256i vw = _mm256_mullo_epi16(v, _mm256_load_si256((const __m256i *)(ww + i)));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}
#endif

void nnue_allow_simd(bool allow) { simd_allowed = allow; }

/* Set by nnue_init before any thread runs; read-only after. */
static bool use_avx2(void) { return has_avx2 && simd_allowed; }

static void update(int16_t *dst, const int16_t *src, const int16_t *w, int n, const int *add, int adds,
                   const int *sub, int subs)
{
#ifdef NNUE_X86
    if (use_avx2()) {
        update_avx2(dst, src, w, n, add, adds, sub, subs);
        return;
    }
#endif
    update_portable(dst, src, w, n, add, adds, sub, subs);
}

static int32_t dot(const int16_t *us, const int16_t *them, const int16_t *w, int n)
{
#ifdef NNUE_X86
    if (use_avx2())
        return dot_avx2(us, them, w, n);
#endif
    return dot_portable(us, them, w, n);
}

/* ---- accumulators ---- */

/* Perspective c's feature weights in p: its king bucket's. */
static const int16_t *weights_for(const Network *net, const Position *p, Color c)
{
    int bucket = nnue_king_bucket(net->kings, c, king_square(p, c));
    return net->ft_weight + (size_t)bucket * NNUE_INPUTS * (size_t)net->hidden;
}

/* The pieces the move that led to state st added and removed, from perspective c. */
static void delta_of(const StateInfo *st, Color c, Delta *d)
{
    d->adds = d->subs = 0;
    Move m = st->move;
    if (m == MOVE_NONE || m == MOVE_NULL)
        return;
    Piece pc = st->moved;
    Color us = piece_color(pc);
    Square from = move_from(m), to = move_to(m);
    if (move_kind(m) == MOVE_CASTLING) {
        Square rfrom = to > from ? from + 3 : from - 4, rto = to > from ? from + 1 : from - 1;
        Piece rook = piece_make(us, ROOK);
        d->add[d->adds++] = nnue_feature(c, pc, to);
        d->add[d->adds++] = nnue_feature(c, rook, rto);
        d->sub[d->subs++] = nnue_feature(c, pc, from);
        d->sub[d->subs++] = nnue_feature(c, rook, rfrom);
        return;
    }
    Piece placed = move_kind(m) == MOVE_PROMOTION ? piece_make(us, move_promo(m)) : pc;
    d->add[d->adds++] = nnue_feature(c, placed, to);
    d->sub[d->subs++] = nnue_feature(c, pc, from);
    if (st->captured) {
        Square capsq = move_kind(m) == MOVE_EN_PASSANT ? (us == WHITE ? to - 8 : to + 8) : to;
        d->sub[d->subs++] = nnue_feature(c, st->captured, capsq);
    }
}

/* Whether perspective c's king moved to another king bucket in the moves that led to states
 * (from, top]: then the ancestor's accumulator for c holds the other bucket's weights. */
static bool king_bucket_changed(const Network *net, const StateInfo *states, int from, int top, Color c)
{
    if (net->kings == 1)
        return false;
    for (int i = from + 1; i <= top; i++) {
        Move m = states[i].move;
        if (m == MOVE_NONE || m == MOVE_NULL || states[i].moved != piece_make(c, KING))
            continue;
        if (nnue_king_bucket(net->kings, c, move_from(m)) != nnue_king_bucket(net->kings, c, move_to(m)))
            return true;
    }
    return false;
}

static bool holds(const Accumulator *a, Key key, const Network *net)
{
    return a->key == key && a->net == net && a->checksum == net->checksum;
}

static void mark(Accumulator *a, Key key, const Network *net)
{
    a->key = key;
    a->net = net;
    a->checksum = net->checksum;
}

/* Perspective c of acc from the boards, through e: a refresh table's entry for c's king bucket in p
 * (or an empty one, net NULL), brought to p's pieces by adding and removing those that differ, then
 * copied. */
static void refresh_through(const Network *net, const Position *p, NnueRefreshEntry *e, Accumulator *acc, Color c)
{
    int n = net->hidden;
    if (e->net != net || e->checksum != net->checksum) {
        memcpy(e->v, net->ft_bias, (size_t)n * sizeof *e->v);
        e->psqt = 0;
        memset(e->by_color, 0, sizeof e->by_color);
        memset(e->by_type, 0, sizeof e->by_type);
        e->net = net;
        e->checksum = net->checksum;
    }
    int add[32], sub[32], adds = 0, subs = 0;
    for (Color col = WHITE; col <= BLACK; col++)
        for (PieceType pt = PAWN; pt <= KING; pt++) {
            Bitboard now = pieces(p, col, pt), was = e->by_color[col] & e->by_type[pt];
            Piece pc = piece_make(col, pt);
            for (Bitboard b = now & ~was; b && adds < 32;) {
                Square s = pop_lsb(&b);
                add[adds++] = nnue_feature(c, pc, s);
            }
            for (Bitboard b = was & ~now; b && subs < 32;) {
                Square s = pop_lsb(&b);
                sub[subs++] = nnue_feature(c, pc, s);
            }
        }
    const int16_t *w = weights_for(net, p, c);
    for (int i = 0, j = 0; i < adds || j < subs;) {
        int a = adds - i < 2 ? adds - i : 2, r = subs - j < 2 ? subs - j : 2;
        update(e->v, e->v, w, n, add + i, a, sub + j, r);
        i += a, j += r;
    }
    for (int i = 0; i < adds; i++)
        e->psqt += net->psqt[add[i]];
    for (int i = 0; i < subs; i++)
        e->psqt -= net->psqt[sub[i]];
    memcpy(e->by_color, p->by_color, sizeof e->by_color);
    memcpy(e->by_type, p->by_type, sizeof e->by_type);
    memcpy(acc->v[c], e->v, (size_t)n * sizeof *e->v);
    acc->psqt[c] = e->psqt;
}

/* Perspective c of acc through the stack's refresh table. */
static void refresh_cached(const Network *net, const Position *p, NnueStack *stack, Accumulator *acc, Color c)
{
    refresh_through(net, p, &stack->refresh[c][nnue_king_bucket(net->kings, c, king_square(p, c))], acc, c);
}

void nnue_refresh(const Network *net, const Position *p, Accumulator *acc)
{
    for (Color c = WHITE; c <= BLACK; c++) {
        NnueRefreshEntry empty;
        empty.net = NULL;
        refresh_through(net, p, &empty, acc, c);
    }
    mark(acc, p->st->key, net);
}

/* The current position's accumulator in the stack: found there, derived from the nearest ancestor's
 * with the moves since, or computed from the boards. */
static const Accumulator *current_accumulator(const Network *net, const Position *p, NnueStack *stack)
{
    int top = p->stack_len - stack->base;
    if (top < 0 || top >= NNUE_STACK_SIZE) {
        stack->base = p->stack_len; /* a new root: start the stack here */
        top = 0;
    }
    Accumulator *acc = stack->acc;
    const StateInfo *states = p->st - top; /* states[i] is the state at stack slot i */
    if (holds(&acc[top], p->st->key, net))
        return &acc[top];
    /* The nearest valid ancestor, no further back than a refresh costs. */
    int from = top - 1;
    while (from >= 0 && top - from <= 12 && !holds(&acc[from], states[from].key, net))
        from--;
    if (from < 0 || top - from > 12) {
        for (Color c = WHITE; c <= BLACK; c++)
            refresh_cached(net, p, stack, &acc[top], c);
        mark(&acc[top], p->st->key, net);
        return &acc[top];
    }
    /* A perspective whose king changed bucket since the ancestor is computed from the boards at the
     * top alone (the accumulators between are left invalid); the other is derived move by move, each
     * with the bucket it has now. */
    bool fresh[COLOR_NB] = {king_bucket_changed(net, states, from, top, WHITE),
                            king_bucket_changed(net, states, from, top, BLACK)};
    const int16_t *w[COLOR_NB] = {weights_for(net, p, WHITE), weights_for(net, p, BLACK)};
    for (int i = from + 1; i <= top; i++) {
        for (Color c = WHITE; c <= BLACK; c++) {
            if (fresh[c])
                continue;
            Delta d;
            delta_of(&states[i], c, &d);
            update(acc[i].v[c], acc[i - 1].v[c], w[c], net->hidden, d.add, d.adds, d.sub, d.subs);
            acc[i].psqt[c] = acc[i - 1].psqt[c];
            for (int k = 0; k < d.adds; k++)
                acc[i].psqt[c] += net->psqt[d.add[k]];
            for (int k = 0; k < d.subs; k++)
                acc[i].psqt[c] -= net->psqt[d.sub[k]];
        }
        mark(&acc[i], fresh[WHITE] || fresh[BLACK] ? 0 : states[i].key, net);
    }
    for (Color c = WHITE; c <= BLACK; c++)
        if (fresh[c])
            refresh_cached(net, p, stack, &acc[top], c);
    mark(&acc[top], p->st->key, net);
    return &acc[top];
}

int nnue_evaluate(const Network *net, const Position *p, NnueStack *stack)
{
    Accumulator local;
    const Accumulator *acc;
    if (stack)
        acc = current_accumulator(net, p, stack);
    else {
        nnue_refresh(net, p, &local);
        acc = &local;
    }
    int bucket = nnue_bucket(popcount(occupied(p)), net->buckets);
    int32_t sum = dot(acc->v[p->side], acc->v[color_flip(p->side)], net->out_weight + 2 * (size_t)net->hidden * bucket,
                      net->hidden);
    int64_t out = (int64_t)sum / NNUE_QA + net->out_bias[bucket] +
                  ((int64_t)acc->psqt[p->side] - acc->psqt[color_flip(p->side)]) / 2;
    return (int)(out * NNUE_SCALE / (NNUE_QA * NNUE_QB));
}
