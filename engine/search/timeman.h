/* Time management: how long the current move may take, from the clock and the move overhead. */
#ifndef FEELFISH_TIMEMAN_H
#define FEELFISH_TIMEMAN_H

#include <stdint.h>

#include "search.h"

typedef struct {
    int64_t start;   /* ms, monotonic */
    int64_t optimum; /* aim to finish an iteration before this (0: no time limit) */
    int64_t maximum; /* never search past this (0: no time limit) */
} TimeManager;

void timeman_init(TimeManager *tm, const SearchLimits *l, Color us, int game_ply, int move_overhead, int64_t start);

#endif
