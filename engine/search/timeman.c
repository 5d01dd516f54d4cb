/* Time allocation: an optimum share of the remaining time (plus most of the increment) that the
 * iterative deepening loop aims for, scaled after each iteration by what the search has seen (the
 * best move's share of the root's nodes, a falling score), and a hard maximum it never passes. */
#include "timeman.h"

void timeman_init(TimeManager *tm, const SearchLimits *l, Color us, int game_ply, int move_overhead, int64_t start)
{
    tm->start = start;
    tm->optimum = tm->maximum = 0;
    if (l->movetime) {
        tm->optimum = tm->maximum = l->movetime - move_overhead > 1 ? l->movetime - move_overhead : 1;
        return;
    }
    if (!l->use_clock)
        return;
    int64_t time = l->time[us], inc = l->inc[us];
    int64_t left = time - move_overhead;
    if (left < 1)
        left = 1;
    /* Expected moves still to play: fewer as the game goes on, never more than the control's. */
    int moves = l->movestogo ? (l->movestogo < 40 ? l->movestogo : 40) : (game_ply < 60 ? 34 - game_ply / 6 : 24);
    if (moves < 1)
        moves = 1;
    int64_t optimum = left / moves + inc * 3 / 4;
    int64_t maximum = l->movestogo == 1 ? left * 9 / 10 : left * 2 / 5 + inc / 2;
    if (maximum > left - 5)
        maximum = left - 5 > 1 ? left - 5 : 1;
    if (optimum > maximum)
        optimum = maximum;
    if (maximum > optimum * 5)
        maximum = optimum * 5;
    tm->optimum = optimum > 1 ? optimum : 1;
    tm->maximum = maximum > 1 ? maximum : 1;
}

double timeman_scale(uint64_t best_nodes, uint64_t total, int previous_score, int score)
{
    double effort = total ? (double)best_nodes / (double)total : 0.5;
    double node_factor = (1.5 - effort) * 1.35;
    node_factor = node_factor < 0.65 ? 0.65 : node_factor > 1.6 ? 1.6 : node_factor;
    /* A fall of a pawn and a half or more gives the most; a rise gives a little less than neutral. */
    double fall = (double)(previous_score - score) / (3.0 * EVAL_PAWN);
    double falling = 1.0 + (fall < -0.15 ? -0.15 : fall > 0.5 ? 0.5 : fall);
    return node_factor * falling;
}

bool timeman_iteration_done(const TimeManager *tm, int64_t now, int best_move_changes, uint64_t best_nodes,
                            uint64_t total, int previous_score, int score)
{
    double instability = 1.0 + 0.5 * best_move_changes;
    if (instability > 2.5)
        instability = 2.5;
    double share = 0.6 * instability * timeman_scale(best_nodes, total, previous_score, score);
    return now - tm->start > (int64_t)((double)tm->optimum * share);
}
