/* Storage in one SQLite file: a versioned schema migrated at start, writes on a writer thread in
 * transactions, reads on libuv's thread pool, so the loop thread never touches the disk. */
#ifndef FEELFISH_STORE_H
#define FEELFISH_STORE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <uv.h>

#define STORE_SCHEMA_VERSION 10

/* Opens (creating and migrating) a database file on the calling thread, for the command-line tools
 * that share the server's file (learn, bayes). NULL with a message in err on failure. */
sqlite3 *store_open_db(const char *path, char *err, size_t err_size);

/* Runs SQL statements; false with SQLite's message in err. */
bool store_exec(sqlite3 *db, const char *sql, char *err, size_t err_size);

bool store_open(uv_loop_t *loop, const char *path, char *err, size_t err_size);
/* Writes what is queued and closes. Loop thread, at shutdown. */
void store_close(void);

/* Called on the loop thread when a row has been committed (ok) or could not be (the batch it was
 * in was rolled back: a full disk, an I/O error). A row is acknowledged to a client only then. */
typedef void (*StoreSaved)(bool ok, void *user);

/* Queues a job's row for writing: with status "queued", `result` is the job's request (JSON text,
 * taken over), kept until the job is done so a restart can run it again; otherwise its result.
 * `owner` is whose it is (the API's client). `saved` (may be NULL) hears how it went. Loop thread. */
void store_save_job(const char *id, const char *owner, const char *status, long long created_ms, long long finished_ms,
                    char *result, StoreSaved saved, void *user);

/* Queues a game's whole state (JSON text, taken over) for writing, as store_save_job; a game whose
 * engine is to move is marked so a restart starts its move again. */
void store_save_game(const char *id, long long updated_ms, char *game, bool engine_to_move, StoreSaved saved,
                     void *user);

/* At start, before serving (synchronous, on the calling thread): every job stored as queued or
 * running with its request, and every game waiting for the engine (either callback may be NULL). */
void store_scan_unfinished(void (*job)(const char *id, const char *owner, const char *request, long long created_ms,
                                       void *user),
                           void (*game)(const char *data, void *user), void *user);

/* Called on the writer thread inside each batch's transaction, after its writes, with how many it
 * made (games and jobs rows, new ones and updates, and queued functions such as the evaluation
 * cache's): retention keeps up with a client that writes fast.
 * Set before the first write (NULL: none). */
void store_set_batch_hook(void (*hook)(sqlite3 *db, int rows, void *arg), void *arg);

/* Whether the last batch was committed, the counts, the database's size and the last error. */
typedef struct {
    bool writing;
    unsigned long long commits, failures;
    long long size_bytes;
    char last_error[256];
} StoreHealth;
void store_health(StoreHealth *h);

/* Queues a function to run on the writer thread inside its transaction (with the write connection);
 * `arg` is passed to both calls, `done` (may be NULL) frees it. Any thread. */
void store_write(void (*write)(sqlite3 *db, void *arg), void (*done)(void *arg), void *arg);
/* store_write with an acknowledgement: `saved` (may be NULL) is called on the loop thread, as a
 * row's, once the batch the function ran in is committed or rolled back (false at once when storage
 * is closed). Loop thread. */
void store_write_acked(void (*write)(sqlite3 *db, void *arg), void (*done)(void *arg), void *arg, StoreSaved saved,
                       void *user);

/* Looks a job (or a game) up off the loop thread; `done` is called later on the loop thread with
 * the stored JSON text (NULL if unknown; the callee frees it), a job's owner ("" for a game) and
 * `user`, or NULL as user when the look-up was forgotten meanwhile. NULL when storage is closed
 * (done is never called). */
typedef struct StoreLoad StoreLoad;
typedef void (*StoreLoaded)(char *text, const char *owner, void *user);
StoreLoad *store_load_job(const char *id, StoreLoaded done, void *user);
StoreLoad *store_load_game(const char *id, StoreLoaded done, void *user);
void store_load_forget(StoreLoad *l);

/* Runs `read` on libuv's thread pool with the read connection, then `done` on the loop thread
 * (both get arg). False when storage is closed (neither is called). */
bool store_read(void (*read)(sqlite3 *db, void *arg), void (*done)(void *arg), void *arg);
/* Runs `read` now on the calling thread (at start, before serving). */
void store_read_now(void (*read)(sqlite3 *db, void *arg), void *arg);

/* Retention: finished jobs and games untouched for `days` (0: no limit) go, and beyond the newest
 * `jobs` finished jobs and `games` games (0: no cap). Jobs queued or running are kept. */
typedef struct {
    long days, jobs, games, evals; /* 0: no such limit */
} StoreRetention;
typedef struct {
    long long jobs, games, evals;
} StorePruned;
/* Deletes up to `limit` rows of each kind that the retention lets go, on `db` (inside the caller's
 * transaction, if any); false with SQLite's message. */
bool store_prune_db(sqlite3 *db, const StoreRetention *r, long long now_ms, int limit, StorePruned *out, char *err,
                    size_t err_size);

#endif
