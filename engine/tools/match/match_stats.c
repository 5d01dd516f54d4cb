/* Match statistics for `feelfish match`: Elo from the mean score through the logistic curve, its
 * interval from the per-game variance of the trinomial results, LOS and a normal-approximation
 * GSPRT, and the tally of results and failures they start from. No state of their own. */
#include "match_stats.h"

#include <math.h>
#include <stdio.h>

#define Z95 1.959963984540054 /* two-sided 95% quantile of the normal distribution */

const char *const MatchTermination[MATCH_END_NB] = {"normal",    "adjudication",       "time forfeit", "illegal move",
                                                    "abandoned", "stalled connection", "unterminated"};

void match_tally_add(MatchTally *t, int winner, MatchEndKind kind, int culprit)
{
    if (winner < 0)
        t->d++;
    else if (winner == 0)
        t->w++;
    else
        t->l++;
    if (culprit >= 0) {
        t->time_losses[culprit] += kind == MATCH_END_TIME;
        t->illegal[culprit] += kind == MATCH_END_ILLEGAL;
        t->crashes[culprit] += kind == MATCH_END_CRASH;
        t->stalls[culprit] += kind == MATCH_END_STALL;
    }
}

static double elo_of_score(double s)
{
    if (s <= 0)
        return -INFINITY;
    if (s >= 1)
        return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0);
}

static double score_of_elo(double elo) { return 1.0 / (1.0 + pow(10.0, -elo / 400.0)); }

/* Mean score and per-game variance of a result triple (counts may be fractional). */
static void moments(double w, double d, double l, double *mean, double *var)
{
    double n = w + d + l;
    double s = (w + 0.5 * d) / n;
    *mean = s;
    *var = (w * (1 - s) * (1 - s) + d * (0.5 - s) * (0.5 - s) + l * s * s) / n;
}

void match_stats_elo(long w, long d, long l, double *elo, double *margin)
{
    long n = w + d + l;
    *elo = 0;
    *margin = INFINITY;
    if (n == 0)
        return;
    double s, var;
    moments((double)w, (double)d, (double)l, &s, &var);
    *elo = elo_of_score(s);
    if (s <= 0 || s >= 1 || var <= 0)
        return; /* all wins, all losses or all draws: the spread is unknown, so is the interval */
    double half = Z95 * sqrt(var / (double)n);
    double lo = elo_of_score(s - half), hi = elo_of_score(s + half);
    if (isfinite(lo) && isfinite(hi))
        *margin = (hi - lo) / 2;
}

void match_stats_format_elo(double elo, double margin, char *buf, size_t size)
{
    char e[32], m[32];
    if (isinf(elo))
        snprintf(e, sizeof e, "%sinf", elo > 0 ? "+" : "-");
    else
        snprintf(e, sizeof e, "%+.1f", fabs(elo) < 0.05 ? 0.0 : elo); /* never "-0.0" */
    if (isinf(margin))
        snprintf(m, sizeof m, "inf");
    else
        snprintf(m, sizeof m, "%.1f", margin);
    snprintf(buf, size, "%s +/- %s", e, m);
}

double match_stats_los(long w, long d, long l)
{
    (void)d; /* draws say nothing about which side is stronger */
    if (w + l == 0)
        return 0.5;
    return 0.5 * (1.0 + erf((double)(w - l) / sqrt(2.0 * (double)(w + l))));
}

double match_stats_llr(const MatchSprt *p, long w, long d, long l)
{
    if (w + d + l == 0)
        return 0;
    /* A prior of one pseudo-game (a quarter win, half a draw, a quarter loss) keeps the variance
     * above zero: otherwise a run of nothing but wins has zero variance and an infinite ratio
     * after the first game. Its weight fades as games come in. */
    double s, var;
    double wf = (double)w + 0.25, df = (double)d + 0.5, lf = (double)l + 0.25, n = wf + df + lf;
    moments(wf, df, lf, &s, &var);
    double s0 = score_of_elo(p->elo0), s1 = score_of_elo(p->elo1);
    /* log of N(s; s1, var/n) / N(s; s0, var/n) */
    return (s1 - s0) * (2 * s - s0 - s1) / (2 * var / n);
}

void match_stats_sprt_bounds(const MatchSprt *s, double *lower, double *upper)
{
    *lower = log(s->beta / (1 - s->alpha));
    *upper = log((1 - s->beta) / s->alpha);
}
