/* One encoder per JSON shape of the API: errors, a search line (moves, SAN, score), an info event,
 * a search result, the emotion, the Bayesian choice, a style reading, a game. Scores are from
 * White's point of view. The emotion, the choice and the style reading are written by the engine
 * (its UCI adapter shows them too) and read here, so each shape has one writer. Info and result
 * encoders run on worker threads and touch only their job. */
#ifndef FEELFISH_ENCODE_H
#define FEELFISH_ENCODE_H

#include <jansson.h>

#include "../../engine/search/lab.h"
#include "../base/error.h"
#include "../bot/bot.h"
#include "../domain/games.h"
#include "../domain/models.h"
#include "../jobs/jobs.h"
#include "../store/bayes_store.h"

json_t *encode_error(const ApiError *e); /* {"code", "message", "field"?} */
json_t *encode_emotion(const Emotion *e);
json_t *encode_choice(const BayesChoice *c);
json_t *encode_style(Style s, const double posterior[STYLE_NB], const StyleFeatures *f);
/* A line from p (unchanged on return): {"moves"|"pv": UCI, "san", "cp"|"mate"}. */
json_t *encode_line(Position *p, const SearchInfo *info, bool with_moves);
json_t *encode_info(const Job *job, const SearchInfo *info);
/* A job known only by its status: {"id", "status"} (queued, cancelling, a job that never ran...). */
json_t *encode_job_status(const char *id, const char *status);
/* r NULL: a job that never ran ({"id", "status"}). */
json_t *encode_result(const Job *job, const SearchResult *r, const SearchResult *classical, JobStatus status);
/* The analysis result outside any job (the analyse command): no id. */
json_t *encode_analysis(const Position *pos, const char *mode, const SearchResult *r, const SearchResult *classical,
                        const Emotion *emotion, const BayesChoice *choice);
/* Who sees a game: anyone (its public id), its player (adds "fullId"), or storage (adds who created
 * it and whether they may teach the model). */
typedef enum { GAME_FOR_ANYONE, GAME_FOR_PLAYER, GAME_FOR_STORAGE } GameView;
json_t *encode_game(const Game *g, GameView view);
/* The Bayesian model: {"format": "feelfish-bayes", "version": 1, "games", "updated", "records":
 * {phase: {result: n}}, "levels": [...], "params": {name: {phase: {result: [n0..n4]}}}}; with
 * full false, params are summarised (per parameter: the selected levels per phase and target). */
json_t *encode_bayes_model(const BayesModel *m, bool full);
/* GET /api/bayes/curve: {games, gamesStored, rule, changes: [{games, changedParams: {aggressive,
 * conservative}}], matches: [{games, target, rule, records, control, wins, draws, losses, score, elo,
 * eloMargin, at}]}. */
json_t *encode_bayes_curve(const BayesModel *m, const BayesCurvePoint *changes, int nchanges,
                           const BayesMatchPoint *matches, int nmatches);
/* The Lichess bot (GET /api/bot): {"running", "connected", "account", "url", "mode", "fatal"?,
 * "games": [{"id", "url", "game", "job"?, "opponent", "opponentBot", "color", "plies", "fen",
 * "status"}], "record": {"wins", "losses", "draws", "aborted"}, "counts": {"moves",
 * "challengesAccepted", "challengesDeclined", "reconnects", "rateLimited", "calls"}, "errors": [...],
 * "opponentStyle"?: {"opponent", "style"}}. */
json_t *encode_bot_status(const BotStatus *s);
/* One textbook algorithm's run in the search lab: {"algorithm", "value", "bestMove", "nodes",
 * "leaves", "timeMs", "passes"? (SSS*, MTD(f))}. */
json_t *encode_lab(LabAlgorithm a, const LabResult *r, int64_t time_ms);

#endif
