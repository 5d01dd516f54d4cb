/* The server's live models (loop thread only): the Bayesian model, loaded from the database at
 * start and added to by every finished game; the opponent-style model; the choice per search
 * (engine/adaptive.h) against them; and the routes GET /api/bayes/model and POST /api/style. */
#ifndef FEELFISH_MODELS_H
#define FEELFISH_MODELS_H

#include <jansson.h>

#include "../../engine/adapt/adaptive.h"
#include "../base/config.h"
#include "../net/http.h"

bool models_init(const ServerConfig *cfg, char *err, size_t err_size);
void models_shutdown(void);

/* adaptive_choose with the live models. */
void models_choose(const Position *root, const MoveHistory *history, BayesTarget requested, bool automatic,
                   uint64_t seed, BayesChoice *choice, EvalParams *storage, Evaluator *e);
void models_levels(const BayesChoice *choice, uint8_t *levels);
json_t *models_choice_json(const BayesChoice *c);

/* A finished game's records (the engine's levels in each phase it reached, and its result) go to
 * the live model and, through the writer thread, to the database. */
void models_game_finished(const char *result, const char *reason, int plies, GameResult engine_result,
                          uint8_t *const levels[BAYES_PHASE_NB]);

void models_bayes_get(Request *r, const char *param);  /* GET /api/bayes/model[?detail=counts] */
void models_style_post(Request *r, const char *param); /* POST /api/style */

#endif
