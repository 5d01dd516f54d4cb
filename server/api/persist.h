/* Where the API's rows live: the store (SQLite) always; in a cluster (serve --redis) also a shared
 * copy in Redis that every front reads, so that any front answers any client. Saves are tracked by
 * saves.c: a reply that acknowledges a write waits for both commits (Redis runs with AOF,
 * appendfsync always, in the compose file). Loop thread.
 *
 * Redis keys:
 *   feelfish:job:ID     owner, status, text (the stored row: the request while queued, the result
 *                       once finished), live (what another front answers while it runs); kept a
 *                       day (the front that ran it keeps it for --retention-days)
 *   feelfish:game:ID    v (its version: every save adds one, and a save that does not start from
 *                       the version it read is refused), state (the stored game), thinker (the
 *                       front whose engine move it waits for, "" if none)
 *   feelfish:eval:FEN   the evaluation cache's entries of one position (key -> value, eval_cache.h)
 */
#ifndef FEELFISH_API_PERSIST_H
#define FEELFISH_API_PERSIST_H

#include <jansson.h>

#include "../base/config.h"
#include "../domain/games.h"
#include "../store/evals.h"
#include "../store/store.h"

void persist_init(const ServerConfig *cfg);

/* A job's row (store_save_job's, text taken over); its save is tracked under its id. */
void persist_job(const char *id, const char *owner, const char *status, long long created_ms, long long finished_ms,
                 char *text);
/* What other fronts answer for a job this front runs (a snapshot, not acknowledged: no tracking). */
void persist_job_live(const char *id, const char *text);
/* A job's stored row: done(row, owner, user) later, row the JSON stored (the caller's), NULL if there
 * is none (the store's row when Redis has none or is away). In a cluster, a job of another front
 * that has not finished answers its live snapshot, or {"id", "status"}. NULL: cannot look now (done
 * is not called). */
typedef struct PersistLoad PersistLoad;
typedef void (*PersistJobLoaded)(json_t *row, const char *owner, void *user);
PersistLoad *persist_load_job(const char *id, PersistJobLoaded done, void *user);
/* The caller has gone: done is not called. */
void persist_load_forget(PersistLoad *l);

/* A game's state (text taken over); its save is tracked under its id. In a cluster, a save that
 * finds the shared copy changed by another front fails (the game then reloads at its next use). */
void persist_game(Game *g, char *text, bool engine_to_move);
/* Whether g in memory may be used without asking the shared copy: always outside a cluster; in one,
 * while this front runs its engine move or it is played elsewhere, and while Redis is away (what this
 * front holds is all it can serve then). */
bool persist_game_current(const Game *g);
/* A game's stored state: done(state, version, orphaned, user), state (the caller's) NULL when what
 * this front holds at `known_version` is current (NULL and version 0: no such game;
 * PERSIST_UNREACHABLE: Redis could not be asked). `orphaned`: its engine is to move but the front
 * that started that move is gone. NULL: cannot look now (in a cluster: Redis is unreachable). */
#define PERSIST_UNREACHABLE (-2)
typedef void (*PersistGameLoaded)(json_t *state, long long version, bool orphaned, void *user);
PersistLoad *persist_load_game(const char *id, long long known_version, PersistGameLoaded done, void *user);

/* The evaluation cache, shared (store_cache_get/put/scan's contract; a cluster looks in Redis for
 * what this front's own cache does not have). */
bool persist_cache_get(char **keys, char **values, int n, void (*done)(void *arg), void *arg);
void persist_cache_put(char *key, char *value, StoreSaved saved, void *user);
bool persist_cache_scan(StoreCacheScan *scan, void (*done)(void *arg), void *arg);

#endif
