/* The evaluation interface: the learned network (nnue.h) when one is loaded, and the hand-written
 * evaluation whose terms are reported in groups, with a per-group weight the affective evaluator sets
 * and a parameter vector the Bayesian evaluator swaps. With a network, an evaluator that re-weights
 * (affective) or swaps parameters (Bayesian) adds what that changes in the hand-written evaluation to
 * the network's score: net + hand(weights, params) - hand(classical). The evaluator travels with the
 * search, never in globals. */
#ifndef FEELFISH_EVAL_H
#define FEELFISH_EVAL_H

#include "../core/position.h"
#include "nnue.h"
#include "params.h"

/* One pawn in the engine's own units: the hand-written evaluation's pawn, and the unit of the network's
 * output (its centipawns, times EVAL_PAWN / 100). Training records keep scores as eval_cp(score), so data
 * made in any session trains one scale; what feelfish *shows* is search.h's search_cp, on the scale
 * calibrated to its games (SCORE_PAWN). */
#define EVAL_PAWN 64
/* v engine units in centipawns of a pawn worth `pawn` units, rounded half away from zero. */
static inline int units_to_cp(int v, int pawn) { return (100 * v + (v >= 0 ? pawn / 2 : -pawn / 2)) / pawn; }
static inline int eval_cp(int v) { return units_to_cp(v, EVAL_PAWN); }
/* No static evaluation goes beyond this, far from the mate scores. */
#define EVAL_MAX 12000

typedef enum {
    GROUP_MATERIAL,
    GROUP_MOBILITY,
    GROUP_KING_SAFETY,       /* each side's own king shelter */
    GROUP_OPP_KING_EXPOSURE, /* each side's attack on the enemy king */
    GROUP_PAWN_STRUCTURE,
    GROUP_OTHER, /* piece-square, bishop pair, rooks, outposts, threats, tempo */
    EVAL_GROUP_NB
} EvalGroup;

extern const char *const EvalGroupNames[EVAL_GROUP_NB];

#define EVAL_WEIGHT_ONE 1024

typedef struct {
    const EvalParams *params;
    int weight[EVAL_GROUP_NB]; /* EVAL_WEIGHT_ONE = the classical weight */
    uint64_t fingerprint;      /* salts transposition-table keys; 0 for the classical evaluator */
    bool reweighted;           /* weights or params differ from the classical evaluator's */
    const Network *net;        /* NULL: the hand-written evaluation alone */
} Evaluator;

/* Every group in centipawns from White's point of view, tapered and scaled, unweighted. */
typedef struct {
    int group[EVAL_GROUP_NB];
    int total; /* weighted sum, White's view */
    int phase; /* 0 (bare kings and pawns) .. 24 (all pieces) */
} EvalTerms;

/* The classical evaluator: the default network (nnue_default()), else the hand-written evaluation. */
void evaluator_classical(Evaluator *e);
/* The hand-written evaluation alone (no network), unit weights, default parameters. */
void evaluator_hand(Evaluator *e);
/* After changing params or weights: recompute the fingerprint. */
void evaluator_update_fingerprint(Evaluator *e);

/* Score for the side to move, in engine units (EVAL_PAWN a pawn), within +-EVAL_MAX. */
int evaluate(const Position *p, const Evaluator *e);
/* The same with a search thread's accumulators (NULL: computed from the boards). */
int evaluate_with(const Position *p, const Evaluator *e, NnueStack *stack);
/* Whether p is an ending the side ahead (white_v's sign, White's view) cannot win: the hand-written endgame
 * scale's 0s (its rules are listed in eval.c). The network's score, which calls some of them wins, is 0 there
 * (docs/nnue.md, "Endings the net misjudges"). */
bool eval_drawn_ending(const Position *p, int white_v);
/* The hand-written evaluation alone, filling every group (White's view); terms may be NULL. */
int evaluate_terms(const Position *p, const Evaluator *e, EvalTerms *terms);

#endif
