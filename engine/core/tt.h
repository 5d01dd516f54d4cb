/* The transposition table: shared by a search's threads without locks. An entry is two 64-bit
 * words written with relaxed atomics, the first being key ^ data, so a torn entry (one word from
 * each of two writers) fails the key check instead of returning garbage. */
#ifndef FEELFISH_TT_H
#define FEELFISH_TT_H

#include <stdatomic.h>
#include <stddef.h>

#include "types.h"

enum { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

typedef struct {
    Move move;
    int16_t score; /* as stored: mate scores relative to this node (see tt_score_to) */
    int16_t eval;
    int depth;
    int bound;
} TTData;

typedef struct {
    _Atomic uint64_t key_xor_data;
    _Atomic uint64_t data;
} TTEntry;

#define TT_BUCKET_SIZE 4
typedef struct {
    TTEntry entry[TT_BUCKET_SIZE];
} TTBucket;

typedef struct {
    TTBucket *buckets;
    size_t count;
    uint8_t generation; /* 6 bits used; bumped every search so old entries age out */
} TT;

/* Allocates size_mb megabytes (at least 1); returns false if memory is short (table unchanged). */
bool tt_resize(TT *tt, size_t size_mb);
void tt_free(TT *tt);
void tt_clear(TT *tt);
void tt_new_search(TT *tt);
bool tt_probe(const TT *tt, Key key, TTData *out);
void tt_store(TT *tt, Key key, Move move, int score, int eval, int depth, int bound);
/* Per mille of sampled entries written in the current search. */
int tt_hashfull(const TT *tt);

static inline TTBucket *tt_bucket(const TT *tt, Key key)
{
    return &tt->buckets[(size_t)(((unsigned __int128)key * tt->count) >> 64)];
}
static inline void tt_prefetch(const TT *tt, Key key) { __builtin_prefetch(tt_bucket(tt, key)); }

#endif
