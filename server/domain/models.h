/* The server's live models (loop thread only): the Bayesian model, loaded from the database at
 * start and added to by every finished game; the opponent-style model; the choice per search
 * (engine/adaptive.h) against them; and the routes GET /api/bayes/model and POST /api/style. */
#ifndef FEELFISH_MODELS_H
#define FEELFISH_MODELS_H

#include "../../engine/adapt/adaptive.h"
#include "../base/config.h"
#include "../base/error.h"

bool models_init(const ServerConfig *cfg, char *err, size_t err_size);
void models_shutdown(void);
/* In a cluster (after shared_start): every front's learning adds up in the Redis hash feelfish:bayes:v2
 * (HINCRBY) instead of this front's database, and the live model is the stored one plus those
 * shared counts, read again whenever they change (checked every second). */
void models_share(void);

/* adaptive_choose with the live models. */
void models_choose(const Position *root, const MoveHistory *history, BayesTarget requested, bool automatic,
                   uint64_t seed, BayesChoice *choice, EvalParams *storage, Evaluator *e);
void models_levels(const BayesChoice *choice, uint8_t *levels);

/* A finished game's records (the engine's levels in each phase it reached, and its result) go to
 * the live model and, through the writer thread, to the database (in a cluster: to Redis, once per
 * game id). */
void models_game_finished(const char *game_id, const char *result, const char *reason, int plies,
                          GameResult engine_result, uint8_t *const levels[BAYES_PHASE_NB]);

/* The live Bayesian model; the style model, NULL when the server has none. */
const BayesModel *models_bayes(void);
const StyleModel *models_style(void);

/* A player's style over the games of a PGN text where they play (player: white, black, or a name
 * found in the White/Black tags). */
typedef struct {
    Style style;
    double posterior[STYLE_NB];
    StyleFeatures last; /* the features of the last sample */
    int games, samples, skipped;
} StyleReading;
bool models_read_style(const char *pgn, const char *player, StyleReading *out, ApiError *e);

#endif
