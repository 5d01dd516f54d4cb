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

/* How much of the optimum an iteration may end past, from what the search has seen so far: less when
 * the best move took most of the root's nodes (`best_nodes` of `total`), more when it took few, and
 * more when the score fell since the last iteration (engine units). 1.0 is neutral. */
double timeman_scale(uint64_t best_nodes, uint64_t total, int previous_score, int score);

/* After a completed iteration at time `now`: true when the search should stop, having used 0.6 of the
 * optimum times the best move's instability (1 + half its recent changes, at most 2.5) times
 * timeman_scale. */
bool timeman_iteration_done(const TimeManager *tm, int64_t now, int best_move_changes, uint64_t best_nodes,
                            uint64_t total, int previous_score, int score);

#endif
