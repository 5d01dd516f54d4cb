/* The search lab: textbook minimax, alpha-beta, SCOUT, NegaScout, SSS* and MTD(f) on the same tree
 * (fixed depth, no pruning, no extensions, static evaluation at the leaves), to compare their values
 * and node counts. They must agree on the value; only the work differs. */
#ifndef FEELFISH_LAB_H
#define FEELFISH_LAB_H

#include <stdatomic.h>

#include "../eval/eval.h"
#include "../core/position.h"

/* The order of the API and the page: each newer algorithm after the one it refines (NegaScout after
 * SCOUT, MTD(f) after SSS*). */
typedef enum { LAB_MINIMAX, LAB_ALPHABETA, LAB_SCOUT, LAB_NEGASCOUT, LAB_SSS, LAB_MTDF, LAB_ALGORITHM_NB } LabAlgorithm;

extern const char *const LabAlgorithmNames[LAB_ALGORITHM_NB];

typedef struct {
    int value; /* side to move's view, centipawns (mate scores as in the search) */
    Move best;
    uint64_t nodes;  /* positions searched (a look-up in SSS*'s or MTD(f)'s memory is not one) */
    uint64_t leaves; /* of which evaluated statically or found terminal */
    int passes;      /* SSS* and MTD(f): null-window searches made */
    bool complete;   /* false: stopped before the end (value and best move are then meaningless) */
} LabResult;

/* Runs one algorithm to depth (1..8) on a copy of p; `stop` (may be NULL), once set from another
 * thread, ends it within a few thousand nodes, incomplete. */
void lab_run(LabAlgorithm a, const Position *p, int depth, const Evaluator *e, const atomic_bool *stop, LabResult *out);
/* SSS* and MTD(f): a sequence of null-window passes (LabResult.passes counts them; the others make one). */
static inline bool lab_makes_passes(LabAlgorithm a) { return a == LAB_SSS || a == LAB_MTDF; }
/* The algorithm named, or -1. */
int lab_algorithm_from_name(const char *name);

#endif
