/* The Bayesian model in SQLite (schema in store.c, version 3) (its JSON export format is
 * server/api's encode_bayes_model / decode_bayes_model). Every function
 * here is synchronous on the connection it is given: the server calls them on its writer thread
 * (through store_write) or at start-up, the command-line tools on their own connection. */
#ifndef FEELFISH_BAYES_STORE_H
#define FEELFISH_BAYES_STORE_H

#include <sqlite3.h>

#include "../../engine/eval/bayes.h"

#define BAYES_GAME_RECORDS_MAX 6 /* three phases, two sides */

/* One side's levels in one phase, and that side's result. */
typedef struct {
    char side; /* 'A' default side of self-play, 'B' perturbed side, 'E' the engine in a real game */
    GamePhase phase;
    GameResult result;
    uint8_t *levels; /* BayesParamCount entries */
} BayesRecord;

/* Whether a record goes into the counts. The default side's self-play records ('A': every level
 * the default, mostly wins) are kept in bayes_records for the experiments but not counted: the
 * choice compares each level's rate of results (engine/eval/bayes.h), which only records whose
 * levels were drawn at random can tell (docs/bayesian.md, "The grouped variables"). */
static inline bool bayes_record_counted(const BayesRecord *r) { return r->side != 'A'; }

typedef struct {
    const char *source; /* "selfplay" or "game" */
    int selfplay_index; /* the learn run's game number, or -1 */
    const char *result; /* "1-0", "0-1", "1/2-1/2" */
    const char *reason;
    int plies;
    int records;
    BayesRecord record[BAYES_GAME_RECORDS_MAX];
} BayesGame;

/* Adds a game, its records and their counts in one savepoint (nested in the caller's transaction
 * when there is one). False with a message on failure, and nothing is written. */
bool bayes_store_add_game(sqlite3 *db, const BayesGame *g, char *err, size_t err_size);
/* Also adds g to the in-memory model m (the caller's copy of what the store holds). */
void bayes_model_add_game(BayesModel *m, const BayesGame *g);

/* Reads the counts into m (cleared first). */
bool bayes_store_load(sqlite3 *db, BayesModel *m, char *err, size_t err_size);
/* Opens path read-only (never creating it) and reads its counts: UCI's model reader. */
bool bayes_store_load_file(const char *path, BayesModel *m, char *err, size_t err_size);
/* Rebuilds a model from the records of the first `games` self-play games (by index), for the
 * experiments (with perturbed_only, the perturbed side's records alone); returns how many games it
 * found. */
int bayes_store_load_selfplay_prefix(sqlite3 *db, int games, bool perturbed_only, BayesModel *m);
/* The learning curve, as the stored games tell it (imports, which add counts without games, are not
 * in it). A point: after how many games, how many parameters (over the three phases) each target
 * moves from the default, replaying the counted records in the order the games were stored; points
 * at 10, 20, 50, 100, 200, 500, ... games and at the total. Returns how many (at most max). */
typedef struct {
    int64_t games;
    int changed[BAYES_TARGET_NB];
} BayesCurvePoint;
int bayes_store_change_curve(sqlite3 *db, BayesCurvePoint *out, int max);
/* A measured point: the model learned from `games` games against the default (`feelfish
 * bayes-experiment` writes one per size into the database it learns from). */
typedef struct {
    int64_t games;
    char target[16], rule[16], records[16], control[32];
    int wins, draws, losses;
    double elo, elo_margin; /* match_stats_elo's; NAN where not finite (stored as NULL) */
    int64_t created_ms;
} BayesMatchPoint;
bool bayes_store_add_match(sqlite3 *db, const BayesMatchPoint *p, char *err, size_t err_size);
/* The newest max measured points, oldest first. Returns how many. */
int bayes_store_matches(sqlite3 *db, BayesMatchPoint *out, int max);
#define BAYES_CURVE_MAX 40
/* What the curve is read from: the newest stored game's and measured point's row ids (0: none). */
typedef struct {
    int64_t games, matches;
} BayesCurveKey;
bool bayes_store_curve_key(sqlite3 *db, BayesCurveKey *key);

/* Which self-play indices below n are stored (done[i] = 1). Returns how many. */
int bayes_store_selfplay_done(sqlite3 *db, int n, uint8_t *done);
/* Adds a whole model's counts (an import) in one transaction. */
bool bayes_store_merge(sqlite3 *db, const BayesModel *m, char *err, size_t err_size);

#endif
