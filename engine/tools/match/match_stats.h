/* Match statistics for `feelfish match`: logistic Elo with a 95% interval from the trinomial
 * (win/draw/loss) results, likelihood of superiority, a GSPRT in the normal approximation, and the
 * tally they are computed from. */
#ifndef FEELFISH_MATCH_STATS_H
#define FEELFISH_MATCH_STATS_H

#include <stddef.h>

typedef struct {
    double elo0, elo1;  /* H0: the difference is elo0; H1: it is elo1 (elo1 > elo0) */
    double alpha, beta; /* false-positive and false-negative rates */
} MatchSprt;

/* How a game ended; MatchTermination names each kind as the PGN's Termination tag does. */
typedef enum {
    MATCH_END_RULES,
    MATCH_END_ADJUDICATION,
    MATCH_END_TIME,
    MATCH_END_ILLEGAL,
    MATCH_END_CRASH,
    MATCH_END_STALL,
    MATCH_END_ABORTED,
    MATCH_END_NB
} MatchEndKind;
extern const char *const MatchTermination[MATCH_END_NB];

/* A match's score from the first engine's side, and each engine's failures. */
typedef struct {
    long w, d, l;
    long time_losses[2], illegal[2], crashes[2], stalls[2];
} MatchTally;

/* Counts a finished game: winner 0 (the first engine), 1 (the second) or -1 (a draw); culprit the
 * engine whose flag or failure ended it, -1 for none. */
void match_tally_add(MatchTally *t, int winner, MatchEndKind kind, int culprit);

/* Elo difference and the half-width of its 95% interval (the mean of its two sides: in Elo the
 * interval is not symmetric), from the first player's wins, draws and losses. elo is +-INFINITY at a 100% or 0% score,
 * margin INFINITY when the interval is unbounded (no games, every game with the same result, or too few games for the
 * interval to stay inside 0..100%). */
void match_stats_elo(long w, long d, long l, double *elo, double *margin);

/* "+18.8 +/- 45.1", "+inf +/- inf": the format every report uses. */
void match_stats_format_elo(double elo, double margin, char *buf, size_t size);

/* Likelihood of superiority: the probability that the first player is the stronger, 0..1. */
double match_stats_los(long w, long d, long l);

/* Log-likelihood ratio of H1 against H0. */
double match_stats_llr(const MatchSprt *s, long w, long d, long l);

/* The stopping bounds: accept H0 at llr <= lower, H1 at llr >= upper. */
void match_stats_sprt_bounds(const MatchSprt *s, double *lower, double *upper);

#endif
