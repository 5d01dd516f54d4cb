/* The evaluation interface: a classical hand-crafted evaluation whose terms are reported in
 * groups, with a per-group weight the affective evaluator sets and a parameter vector the
 * Bayesian evaluator swaps. The evaluator travels with the search, never in globals. */
#ifndef FEELFISH_EVAL_H
#define FEELFISH_EVAL_H

#include "../core/position.h"
#include "params.h"

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
} Evaluator;

/* Every group in centipawns from White's point of view, tapered and scaled, unweighted. */
typedef struct {
    int group[EVAL_GROUP_NB];
    int total; /* weighted sum, White's view */
    int phase; /* 0 (bare kings and pawns) .. 24 (all pieces) */
} EvalTerms;

void evaluator_classical(Evaluator *e);
/* After changing params or weights: recompute the fingerprint. */
void evaluator_update_fingerprint(Evaluator *e);

/* Score for the side to move, in centipawns. */
int evaluate(const Position *p, const Evaluator *e);
/* The same, also filling every group (White's view). */
int evaluate_terms(const Position *p, const Evaluator *e, EvalTerms *terms);

#endif
