/* A rating as a node budget and a temperature (strength.h). */
#include "strength.h"

#include <math.h>

#include "../core/random.h"
#include "search.h"

// clang-format off
/* Measured rows, weakest first: the rating each (budget, temperature) scored against Stockfish's
 * UCI_Elo ladder (docs/levels.md says how; `make bench-levels` measures it again). */
static const struct {
    int elo;
    uint64_t nodes;
    int temperature;
} Rows[] = {
    {STRENGTH_ELO_MIN, 100, 90},
    {1200, 2100, 52},
    {1350, 3600, 43},
    {1500, 10600, 35},
    {1700, 17800, 27},
    {1900, 96000, 17},
    {2100, 217000, 9},
    {STRENGTH_ELO_MAX, 513000, 3},
};
// clang-format on
#define ROWS ((int)(sizeof Rows / sizeof Rows[0]))

void strength_of(int elo, Strength *s)
{
    if (elo < Rows[0].elo)
        elo = Rows[0].elo;
    if (elo > Rows[ROWS - 1].elo)
        elo = Rows[ROWS - 1].elo;
    int i = 0;
    while (i < ROWS - 2 && elo > Rows[i + 1].elo)
        i++;
    double f = (double)(elo - Rows[i].elo) / (Rows[i + 1].elo - Rows[i].elo);
    s->elo = elo;
    s->nodes = (uint64_t)llround(exp(log((double)Rows[i].nodes) * (1 - f) + log((double)Rows[i + 1].nodes) * f));
    s->temperature = (int)lround(Rows[i].temperature * (1 - f) + Rows[i + 1].temperature * f);
}

int strength_choose(const Strength *s, const int *scores, int count, int legal, uint64_t random)
{
    int n = count < STRENGTH_LINES ? count : STRENGTH_LINES, top = 0;
    for (int i = 1; i < n; i++)
        if (scores[i] > scores[top])
            top = i;
    int best = scores[top];
    if (n < 2 || best <= -VALUE_INFINITE || best >= VALUE_MATE_IN_MAX_PLY)
        return top;
    if (legal > 60)
        legal = 60;
    double t = s->temperature * (0.5 + legal / 40.0), weight[STRENGTH_LINES], total = 0;
    for (int i = 0; i < n; i++) {
        bool unsearched = scores[i] <= -VALUE_INFINITE;
        bool mated = scores[i] <= -VALUE_MATE_IN_MAX_PLY && best > -VALUE_MATE_IN_MAX_PLY;
        weight[i] = unsearched || mated ? 0 : t <= 0 ? (i == top) : exp(-(best - scores[i]) / t);
        total += weight[i];
    }
    double x = random_unit(random) * total;
    for (int i = 0; i < n; i++) {
        if (weight[i] > 0 && x < weight[i])
            return i;
        x -= weight[i];
    }
    return top;
}
