/* The Bayesian-adaptive evaluator's network (shared/spec/bayesian.md, after the BayesChess paper):
 * every parameter of the classical evaluator is a discrete variable with five levels, a child of
 * two class variables, phase and result. Counts from self-play (and every finished game) give
 * P(level | phase, result) with Laplace smoothing; a search picks, per phase, the most probable
 * level of each parameter for the result it wants. With no data every choice is the default level,
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

/* §1: levels are default x {0.6, 0.8, 1.0, 1.2, 1.4}; a square-table component that is 0 moves
 * by an additive step instead, so it can move at all. */
extern const double BayesFactors[BAYES_LEVELS];
extern const int BayesSteps[BAYES_LEVELS];

/* One variable: a slot of EvalParams (a middlegame/endgame pair, both scaled by the level). */
typedef struct {
    char name[BAYES_NAME_MAX]; /* e.g. "piece_value.knight", "psq.pawn.e4", "passed.5" */
    int slot;
    bool square_table; /* zero components take the additive step */
} BayesParam;

/* Built by bayes_init() from ParamTable; read-only afterwards. Slots that the evaluation never
 * reads (the king's material, pawns on the first and last ranks, zero weights outside the square
 * tables such as the rank-8 passed-pawn entry) are not variables. */
extern BayesParam BayesParams[];
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
} BayesModel;

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
/* The most probable level of every parameter; ties go to the level nearest the default. Returns
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
