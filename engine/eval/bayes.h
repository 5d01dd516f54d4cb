/* The Bayesian-adaptive evaluator's network (shared/spec/bayesian.md, after the BayesChess paper):
 * the classical evaluator's piece values and term groups are discrete variables with five levels,
 * each a child of two class variables, phase and result. Counts from self-play (and every finished
 * game) give P(level | phase, result) with Laplace smoothing; a search picks, per phase, each
 * parameter's level for the result it wants (bayes_select). With no data every choice is the default level,
 * so an untrained model plays exactly like the classical evaluator. Pure C: storage is the
 * server's. */
#ifndef FEELFISH_BAYES_H
#define FEELFISH_BAYES_H

#include <stddef.h>
#include <stdint.h>

#include "eval.h"

#define BAYES_LEVELS 5
#define BAYES_DEFAULT_LEVEL 2 /* factor 1.0 (or step 0) */
#define BAYES_NAME_MAX 32

typedef enum { PHASE_OPENING, PHASE_MIDDLEGAME, PHASE_ENDGAME, BAYES_PHASE_NB } GamePhase;
typedef enum { RESULT_WIN, RESULT_DRAW, RESULT_LOSS, BAYES_RESULT_NB } GameResult;
typedef enum { TARGET_AGGRESSIVE, TARGET_CONSERVATIVE, BAYES_TARGET_NB } BayesTarget;

extern const char *const GamePhaseNames[BAYES_PHASE_NB];   /* opening, middlegame, endgame */
extern const char *const GameResultNames[BAYES_RESULT_NB]; /* win, draw, loss */
extern const char *const BayesTargetNames[BAYES_TARGET_NB];

/* §1: levels are default x {0.6, 0.8, 1.0, 1.2, 1.4} (the paper's Table 5). */
extern const double BayesFactors[BAYES_LEVELS];

/* One variable (issue #28: tens of variables that self-play can estimate, not one per weight):
 * a piece's value, or one term group (every slot of its ParamTable runs, middlegame and endgame),
 * scaled by the level's factor. A run that is a divisor is divided by it instead, so the term it
 * divides grows with the factor (king attack: danger^2 / attack_scale). */
#define BAYES_GROUP_RUNS 8
typedef struct {
    char name[BAYES_NAME_MAX]; /* "piece_value.knight", "mobility", "king_attack", ... */
    int slot;                  /* a single slot (piece values), or -1: the runs below */
    const ParamInfo *runs[BAYES_GROUP_RUNS];
    int run_count;
    unsigned divisors; /* bit r: runs[r] is divided by the factor */
} BayesParam;

/* Built by bayes_init() from ParamTable; read-only afterwards. Every ParamTable run is in exactly
 * one variable (piece_value by its pieces, the king's material, never read, in none). */
#define BAYES_PARAM_MAX 32
extern BayesParam BayesParams[BAYES_PARAM_MAX];
extern int BayesParamCount;

void bayes_init(void);
int bayes_param_find(const char *name); /* index or -1 */

/* §2 phase rule: opening while fewer than 10 full moves have been played; endgame when there are
 * no queens or fewer than 10 pieces other than kings and pawns; otherwise middlegame. */
GamePhase bayes_phase(const Position *p);

/* The vector for the given levels (one per parameter, 0..4). */
void bayes_apply(const uint8_t *levels, EvalParams *out);

/* counts[((param * PHASE_NB + phase) * RESULT_NB + result) * LEVELS + level]; records[phase][result]
 * is how many records (one per phase of a side of a game) the counts hold. Additive: two models
 * merge by adding. */
typedef struct {
    uint32_t *counts;
    uint64_t records[BAYES_PHASE_NB][BAYES_RESULT_NB];
    uint64_t games;     /* finished games whose records are in */
    uint64_t version;   /* bumped by every change, for caches */
    int64_t updated_ms; /* wall clock of the last change, 0 if never */
    double evidence_z;  /* the selection rule (bayes_select): 0 the spec's argmax, else this many standard errors */
} BayesModel;

/* The selection's default: a level replaces the default one only when its rate for the target beats
 * the default level's by this many standard errors (with 15 variables x 4 other levels x 3 phases,
 * 2 would let about five noise winners through a model of nothing). */
#define BAYES_EVIDENCE_Z 3.0
/* The selection rules by name: "evidence" (BAYES_EVIDENCE_Z) and "argmax" (the spec's, 0). */
const char *bayes_rule_name(double evidence_z);
bool bayes_rule_parse(const char *name, double *evidence_z); /* false: neither name */

bool bayes_model_init(BayesModel *m); /* empty; false when out of memory */
void bayes_model_free(BayesModel *m);
void bayes_model_clear(BayesModel *m);
size_t bayes_model_count_index(int param, GamePhase ph, GameResult r, int level);
/* One record: the levels a side used in one phase, and that side's result. */
void bayes_model_add(BayesModel *m, GamePhase ph, GameResult r, const uint8_t *levels);
void bayes_model_merge(BayesModel *into, const BayesModel *from);

/* P(level | phase, target): for aggressive the result is win; for conservative win and draw are
 * pooled (§4). Laplace: (n + 1) / (N + 5). */
double bayes_probability(const BayesModel *m, int param, GamePhase ph, BayesTarget t, int level);
/* The level of every parameter for a phase and target. With evidence_z 0, the spec's §4: the most
 * probable level given the target's results (ties nearest the default). Otherwise (the default,
 * issue #28: the argmax of a few hundred games is noise, and plays 150-240 Elo worse): the level
 * whose records reach the target most often, (n + 1) / (N + 2) over all its records, if that beats
 * the default level's rate by evidence_z standard errors; else the default. Both read rates per
 * level, so they suit records whose levels were drawn at random (the perturbed side's). Returns
 * how many parameters differ from the default level. */
int bayes_select(const BayesModel *m, GamePhase ph, BayesTarget t, uint8_t *levels);

/* The evaluator for a phase and target: the selected vector in *storage (which must outlive the
 * evaluator), or the classical evaluator itself when every level is the default. Returns how many
 * parameters differ from the default level. */
int bayes_evaluator(const BayesModel *m, GamePhase ph, BayesTarget t, EvalParams *storage, Evaluator *out);

/* Reading a stored model: the engine has no database code, so the program supplies the reader
 * once at start (feelfish's reads the server's SQLite file). False with a message if it cannot. */
typedef bool (*BayesModelReader)(const char *path, BayesModel *m, char *err, size_t err_size);
void bayes_set_reader(BayesModelReader reader);
bool bayes_read_model(const char *path, BayesModel *m, char *err, size_t err_size);

#endif
