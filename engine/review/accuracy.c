/* Win%, accuracy and ACPL as Lichess computes them: see accuracy.h. */
#include "accuracy.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#define WIN_K 0.00368208 /* lila's multiplier (PR #11148) */
#define ACC_A 103.1668100711649
#define ACC_K 0.04354415386753951
#define ACC_B -3.166924740191411

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

double review_winning_chances(double cp) { return clampd(2 / (1 + exp(-WIN_K * cp)) - 1, -1, 1); }

double review_win_percent(double cp)
{
    return 50 + 50 * review_winning_chances(clampd(cp, -REVIEW_CP_CEILING, REVIEW_CP_CEILING));
}

double review_force_cp(const ReviewEval *e)
{
    if (!e->has)
        return 0;
    if (!e->is_mate)
        return e->cp;
    /* Mate.signum: 1 if positive, else -1 (so a mate in 0 counts as Black's) */
    return e->mate > 0 ? (double)INT_MAX - e->mate : (double)INT_MIN - e->mate;
}

double review_move_accuracy(double before, double after)
{
    if (after >= before)
        return 100;
    double diff = before - after;
    return clampd(ACC_A * exp(-ACC_K * diff) + ACC_B + 1, 0, 100);
}

static double std_dev(const double *v, int n)
{
    double mean = 0, sq = 0;
    for (int i = 0; i < n; i++)
        mean += v[i];
    mean /= n;
    for (int i = 0; i < n; i++)
        sq += (v[i] - mean) * (v[i] - mean);
    return sqrt(sq / n);
}

bool review_game_accuracy(const double *cps, int n, bool white_first, double *white, double *black)
{
    if (n <= 0)
        return false;
    double *w = malloc(sizeof *w * (size_t)(n + 1));
    double *weight = malloc(sizeof *weight * (size_t)(n + 1));
    if (!w || !weight) {
        free(w);
        free(weight);
        return false;
    }
    w[0] = review_win_percent(REVIEW_CP_INITIAL);
    for (int i = 0; i < n; i++)
        w[i + 1] = review_win_percent(cps[i]);
    int window = n / 10 < 2 ? 2 : n / 10 > 8 ? 8 : n / 10;
    /* The windows: the first one repeated (min(window, n+1) - 2) times, then every sliding window
     * (one holding everything when the list is shorter than a window). */
    int count = 0, first_len = window < n + 1 ? window : n + 1;
    for (int k = 0; k < first_len - 2 && count < n + 1; k++)
        weight[count++] = clampd(std_dev(w, first_len), 0.5, 12);
    if (n + 1 < window)
        weight[count++] = clampd(std_dev(w, n + 1), 0.5, 12);
    else
        for (int j = 0; j + window <= n + 1 && count < n + 1; j++)
            weight[count++] = clampd(std_dev(w + j, window), 0.5, 12);
    double sum_aw[2] = {0, 0}, sum_w[2] = {0, 0}, inv[2] = {0, 0};
    int moves[2] = {0, 0};
    for (int i = 0; i < n && i < count; i++) {          /* zip: as many as the shorter list */
        int side = (i % 2 == 0) == white_first ? 0 : 1; /* 0 White, 1 Black */
        double acc =
            side == 0 ? review_move_accuracy(w[i], w[i + 1]) : review_move_accuracy(100 - w[i], 100 - w[i + 1]);
        sum_aw[side] += acc * weight[i];
        sum_w[side] += weight[i];
        inv[side] += 1 / (acc > 1 ? acc : 1);
        moves[side]++;
    }
    free(w);
    free(weight);
    if (!moves[0] || !moves[1] || sum_w[0] == 0 || sum_w[1] == 0)
        return false;
    *white = (sum_aw[0] / sum_w[0] + moves[0] / inv[0]) / 2;
    *black = (sum_aw[1] / sum_w[1] + moves[1] / inv[1]) / 2;
    return true;
}

bool review_acpl(const ReviewEval *evals, int n, bool white, bool white_first, double *acpl)
{
    /* (before, after) pairs of this player's moves: the start's eval before the first mover's first */
    ReviewEval start = {true, false, REVIEW_CP_INITIAL, 0};
    bool first = white == white_first;
    double sum = 0;
    int count = 0;
    for (int i = first ? -1 : 0; i + 1 < n; i += 2) {
        const ReviewEval *before = i < 0 ? &start : &evals[i], *after = &evals[i + 1];
        if (!before->has || !after->has)
            continue;
        double b = clampd(review_force_cp(before), -REVIEW_CP_CEILING, REVIEW_CP_CEILING);
        double a = clampd(review_force_cp(after), -REVIEW_CP_CEILING, REVIEW_CP_CEILING);
        double loss = white ? b - a : a - b;
        sum += loss > 0 ? loss : 0;
        count++;
    }
    if (!count)
        return false;
    *acpl = sum / count;
    return true;
}
