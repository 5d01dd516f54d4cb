/* One small deterministic generator for everything seeded (splitmix64): openings drawn at random,
 * shuffles, perturbed levels. Same seed, same sequence, on every machine. */
#ifndef FEELFISH_RANDOM_H
#define FEELFISH_RANDOM_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A draw's top 53 bits as a double in [0, 1): every value equally likely. */
static inline double random_unit(uint64_t bits) { return (double)(bits >> 11) * (1.0 / 9007199254740992.0); }

#endif
