/* Storage in one SQLite file: a versioned schema migrated at start, writes on a writer thread in
 * transactions, reads on libuv's thread pool, so the loop thread never touches the disk. */
#ifndef FEELFISH_STORE_H
#define FEELFISH_STORE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <uv.h>

#define STORE_SCHEMA_VERSION 3

/* Opens (creating and migrating) a database file on the calling thread, for the command-line tools
 * that share the server's file (learn, bayes). NULL with a message in err on failure. */
sqlite3 *store_open_db(const char *path, char *err, size_t err_size);

/* Runs SQL statements; false with SQLite's message in err. */
bool store_exec(sqlite3 *db, const char *sql, char *err, size_t err_size);

bool store_open(uv_loop_t *loop, const char *path, char *err, size_t err_size);
/* Writes what is queued and closes. Loop thread, at shutdown. */
void store_close(void);

/* Queues a finished job's result (JSON text, taken over) for writing. Any thread. */
void store_save_job(const char *id, const char *status, long long created_ms, long long finished_ms, char *result);

/* Queues a game's whole state (JSON text, taken over) for writing. Any thread. */
void store_save_game(const char *id, long long updated_ms, char *game);

/* Queues a function to run on the writer thread inside its transaction (with the write connection);
 * `arg` is passed to both calls, `done` (may be NULL) frees it. Any thread. */
void store_write(void (*write)(sqlite3 *db, void *arg), void (*done)(void *arg), void *arg);

/* Looks a job (or a game) up off the loop thread; `done` is called later on the loop thread with
 * the stored JSON text (NULL if unknown; the callee frees it) and `user`, or NULL as user when the
 * look-up was forgotten meanwhile. NULL when storage is closed (done is never called). */
typedef struct StoreLoad StoreLoad;
typedef void (*StoreJobCallback)(char *result, void *user);
StoreLoad *store_load_job(const char *id, StoreJobCallback done, void *user);
StoreLoad *store_load_game(const char *id, StoreJobCallback done, void *user);
void store_load_forget(StoreLoad *l);

#endif
