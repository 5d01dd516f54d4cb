/* Transposition table storage, replacement (prefer the same position, then the shallowest or
 * oldest entry) and the hashfull estimate. */
#include "tt.h"

#include "hugepages.h"

#include <stdlib.h>
#include <string.h>

/* data: move 16 | score 16 | eval 16 | depth 8 | bound 2 | generation 6 */
static inline uint64_t pack(Move move, int score, int eval, int depth, int bound, int gen)
{
    return (uint64_t)move | (uint64_t)(uint16_t)(int16_t)score << 16 | (uint64_t)(uint16_t)(int16_t)eval << 32 |
           (uint64_t)(uint8_t)(depth + 16) << 48 | (uint64_t)(bound & 3) << 56 | (uint64_t)(gen & 63) << 58;
}
static inline int data_depth(uint64_t d) { return (int)((d >> 48) & 0xFF) - 16; }
static inline int data_gen(uint64_t d) { return (int)(d >> 58); }

bool tt_resize(TT *tt, size_t size_mb)
{
    if (size_mb < 1)
        size_mb = 1;
    size_t count = size_mb * 1024 * 1024 / sizeof(TTBucket);
    if (tt->buckets && count == tt->count) {
        /* The same size (a server's workers are made at 16 MB, then set to --hash): a new table
         * would leave the old one's touched pages in the heap, freed but still resident. */
        tt_clear(tt);
        return true;
    }
    TTBucket *b = huge_alloc(count * sizeof(TTBucket));
    if (!b)
        return false;
    free(tt->buckets);
    tt->buckets = b;
    tt->count = count;
    tt_clear(tt);
    return true;
}

void tt_free(TT *tt)
{
    free(tt->buckets);
    tt->buckets = NULL;
    tt->count = 0;
}

void tt_clear(TT *tt)
{
    memset(tt->buckets, 0, tt->count * sizeof(TTBucket));
    tt->generation = 0;
}

void tt_new_search(TT *tt) { tt->generation = (uint8_t)((tt->generation + 1) & 63); }

bool tt_probe(const TT *tt, Key key, TTData *out)
{
    TTBucket *b = tt_bucket(tt, key);
    for (int i = 0; i < TT_BUCKET_SIZE; i++) {
        uint64_t d = atomic_load_explicit(&b->entry[i].data, memory_order_relaxed);
        uint64_t k = atomic_load_explicit(&b->entry[i].key_xor_data, memory_order_relaxed);
        if ((k ^ d) == key && d) {
            out->move = (Move)(d & 0xFFFF);
            out->score = (int16_t)(d >> 16);
            out->eval = (int16_t)(d >> 32);
            out->depth = data_depth(d);
            out->bound = (int)((d >> 56) & 3);
            return true;
        }
    }
    return false;
}

void tt_store(TT *tt, Key key, Move move, int score, int eval, int depth, int bound)
{
    TTBucket *b = tt_bucket(tt, key);
    int gen = tt->generation;
    TTEntry *replace = &b->entry[0];
    int worst = 1 << 30;
    uint64_t old = 0;
    for (int i = 0; i < TT_BUCKET_SIZE; i++) {
        TTEntry *e = &b->entry[i];
        uint64_t d = atomic_load_explicit(&e->data, memory_order_relaxed);
        uint64_t k = atomic_load_explicit(&e->key_xor_data, memory_order_relaxed);
        if (!d || (k ^ d) == key) {
            replace = e;
            old = (k ^ d) == key ? d : 0;
            break;
        }
        /* Value of keeping an entry: its depth, minus 8 per generation of age. */
        int age = (gen - data_gen(d)) & 63;
        int value = data_depth(d) - 8 * age;
        if (value < worst) {
            worst = value;
            replace = e;
        }
    }
    /* Same position: keep the old move when we have none, and a deeper exact result. */
    if (old) {
        if (!move)
            move = (Move)(old & 0xFFFF);
        if (bound != BOUND_EXACT && data_depth(old) > depth + 4 && data_gen(old) == gen)
            return;
    }
    uint64_t d = pack(move, score, eval, depth, bound, gen);
    atomic_store_explicit(&replace->data, d, memory_order_relaxed);
    atomic_store_explicit(&replace->key_xor_data, key ^ d, memory_order_relaxed);
}

int tt_hashfull(const TT *tt)
{
    int used = 0, buckets = tt->count < 250 ? (int)tt->count : 250;
    for (int i = 0; i < buckets; i++)
        for (int k = 0; k < TT_BUCKET_SIZE; k++) {
            uint64_t d = atomic_load_explicit(&tt->buckets[i].entry[k].data, memory_order_relaxed);
            used += d && data_gen(d) == tt->generation;
        }
    return buckets ? used * 1000 / (buckets * TT_BUCKET_SIZE) : 0;
}
