/* Lichess's numbers for a reviewed game (shared/spec/game-analysis.md §2-§4, §6): Win% from
 * centipawns, a move's accuracy from the Win% before and after it, a player's game accuracy
 * (volatility-weighted mean and harmonic mean of the move accuracies) and the average centipawn
 * loss. Scores here are White's point of view unless said otherwise; a mate is turned into
 * centipawns by review_force_cp as lila's forceAsCp does. Pure functions, no state. */
#ifndef FEELFISH_REVIEW_ACCURACY_H
#define FEELFISH_REVIEW_ACCURACY_H

#include <stdbool.h>

#define REVIEW_CP_CEILING 1000
#define REVIEW_CP_INITIAL 15 /* lila's eval of a game's start (Info.start) */

/* An evaluation as reviews carry it: centipawns or a mate in `mate` moves (positive: White mates). */
typedef struct {
    bool has;     /* false: the position has no evaluation */
    bool is_mate; /* mate holds the score, else cp */
    int cp;
    int mate;
} ReviewEval;

/* lila's winning chances in [-1, 1] of raw centipawns (no clamp). */
double review_winning_chances(double cp);
/* Win% in [0, 100]: centipawns clamped to +-1000 first. */
double review_win_percent(double cp);
/* Centipawns of an eval, mates as +-2^31 (lila's forceAsCp); 0 if it has none. */
double review_force_cp(const ReviewEval *e);
/* A move's accuracy from the mover's Win% before and after it, +1 uncertainty bonus, in [0, 100]. */
double review_move_accuracy(double before, double after);

/* Both players' game accuracy from the White-view centipawns after each of n plies (plies without
 * an eval left out beforehand, as lila does); white_first says who made the first move. False when
 * a player has no move (lila's None). */
bool review_game_accuracy(const double *cps, int n, bool white_first, double *white, double *black);

/* A player's average centipawn loss: `evals` are White-view evals after each of n plies (missing
 * ones allowed: their moves are skipped); the player moves first iff mover_first. Loss per move
 * clamped to [0, 2000] as lila's AccuracyCP; false when the player has no scored move. */
bool review_acpl(const ReviewEval *evals, int n, bool white, bool white_first, double *acpl);

#endif
