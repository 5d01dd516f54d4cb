/* SQLite storage.
 * Design: `writer` owns the write connection; the loop thread (or any) appends to `pending` under
 * `lock` and signals `cond`; the writer takes the whole list and writes it in one transaction.
 * Reads use a second connection opened in serialized mode, from uv_queue_work callbacks. WAL
 * mode lets them proceed while the writer writes. */
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "../base/clock.h"
#include "../base/log.h"

typedef struct Pending {
    void (*write)(sqlite3 *db, void *arg); /* a queued function rather than a row */
    void (*done)(void *arg);
    void *arg;
    StoreSaved saved; /* a row's acknowledgement, on the loop thread once committed or failed */
    void *user;
    bool ok;
    bool game; /* a games row (id, finished_ms = updated, result = data) rather than a jobs row */
    char id[24];
    char owner[48]; /* a jobs row: whose it is */
    char status[16];
    long long created_ms, finished_ms;
    char *result;
    bool engine_to_move; /* a games row */
    struct Pending *next;
} Pending;

static struct {
    uv_loop_t *loop;
    sqlite3 *writer_db, *reader_db;
    pthread_t writer;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    Pending *pending, *tail;
    Pending *completed, *completed_tail; /* rows written or failed, for the loop (under lock) */
    uv_async_t completed_async;
    bool quit, open;
    void (*batch_hook)(sqlite3 *db, int rows, void *arg); /* store_set_batch_hook */
    void *batch_hook_arg;
    /* Health, written by the writer thread, read by the loop. */
    atomic_bool healthy;
    atomic_ullong failures, commits;
    atomic_llong size_bytes;
    pthread_mutex_t error_lock;
    char last_error[256];
} S;

/* Each entry moves the schema from version i to i + 1. */
static const char *const Migrations[STORE_SCHEMA_VERSION] = {
    "CREATE TABLE jobs ("
    "  id TEXT PRIMARY KEY,"
    "  status TEXT NOT NULL,"
    "  created_ms INTEGER NOT NULL,"
    "  finished_ms INTEGER NOT NULL,"
    "  result TEXT NOT NULL);"
    "CREATE INDEX jobs_finished ON jobs(finished_ms);",
    "CREATE TABLE games ("
    "  id TEXT PRIMARY KEY,"
    "  updated_ms INTEGER NOT NULL,"
    "  data TEXT NOT NULL);",
    /* 3: the Bayesian model (server/bayes_store.c): games learned from, each game's records (the
     * levels one side used in one phase, and its result), and the counts they add up to. */
    "CREATE TABLE bayes_games ("
    "  id INTEGER PRIMARY KEY,"
    "  source TEXT NOT NULL,"
    "  selfplay_index INTEGER UNIQUE,"
    "  finished_ms INTEGER NOT NULL,"
    "  result TEXT NOT NULL,"
    "  reason TEXT NOT NULL,"
    "  plies INTEGER NOT NULL);"
    "CREATE TABLE bayes_records ("
    "  game_id INTEGER NOT NULL REFERENCES bayes_games(id),"
    "  side TEXT NOT NULL,"
    "  phase INTEGER NOT NULL,"
    "  result INTEGER NOT NULL,"
    "  levels BLOB NOT NULL);"
    "CREATE INDEX bayes_records_game ON bayes_records(game_id);"
    "CREATE TABLE bayes_counts ("
    "  param TEXT NOT NULL, phase INTEGER NOT NULL, result INTEGER NOT NULL,"
    "  n0 INTEGER NOT NULL, n1 INTEGER NOT NULL, n2 INTEGER NOT NULL, n3 INTEGER NOT NULL, n4 INTEGER NOT NULL,"
    "  PRIMARY KEY (param, phase, result)) WITHOUT ROWID;"
    "CREATE TABLE bayes_classes ("
    "  phase INTEGER NOT NULL, result INTEGER NOT NULL, n INTEGER NOT NULL,"
    "  PRIMARY KEY (phase, result)) WITHOUT ROWID;"
    "CREATE TABLE bayes_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);",
    /* 4: what a restart must pick up again: a queued job's request, a game waiting for the engine. */
    "ALTER TABLE jobs ADD COLUMN request TEXT;"
    "ALTER TABLE games ADD COLUMN engine_to_move INTEGER NOT NULL DEFAULT 0;"
    "CREATE INDEX jobs_unfinished ON jobs(status) WHERE status IN ('queued', 'running');"
    "CREATE INDEX games_engine_to_move ON games(engine_to_move) WHERE engine_to_move = 1;",
    /* 5: API tokens (store/tokens.c: only their SHA-256 is kept), and whose a job is. */
    "CREATE TABLE tokens ("
    "  id TEXT PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  hash TEXT NOT NULL UNIQUE,"
    "  scopes TEXT NOT NULL,"
    "  created_ms INTEGER NOT NULL);"
    "ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';"
    "CREATE INDEX games_updated ON games(updated_ms);",
    /* 6: the evaluation cache (a position, mode and limits -> what the search found). */
    "CREATE TABLE evals ("
    "  key TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL,"
    "  created_ms INTEGER NOT NULL);",
    /* 7: centipawns are reported on the calibrated scale (SCORE_PAWN) and a value also says its
     * depth and nodes: the entries of the old scale and format go. */
    "DELETE FROM evals;",
    /* 8: the evaluation cache has a count cap too (--retention-evals): its newest entries are kept. */
    "CREATE INDEX evals_created ON evals(created_ms);",
    /* 9: the Bayesian model's variables are piece values and term groups (tens, not one per weight:
     * engine/eval/bayes.h); counts and records of the old ones mean nothing to it, and self-play
     * games kept would make `learn` skip their numbers. */
    "DELETE FROM bayes_counts; DELETE FROM bayes_classes;"
    "DELETE FROM bayes_records; DELETE FROM bayes_games;"
    "DELETE FROM bayes_meta;",
    /* 10: the learning curve's measured points (bayes-experiment: the learned model against the default). */
    "CREATE TABLE IF NOT EXISTS bayes_matches ("
    "  id INTEGER PRIMARY KEY,"
    "  games INTEGER NOT NULL,"
    "  target TEXT NOT NULL, rule TEXT NOT NULL, records TEXT NOT NULL, control TEXT NOT NULL,"
    "  wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL,"
    "  elo REAL, elo_margin REAL,"
    "  created_ms INTEGER NOT NULL);",
};

bool store_exec(sqlite3 *db, const char *sql, char *err, size_t size)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return true;
    snprintf(err, size, "%s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return false;
}

/* Brings the schema up to date in one write transaction. BEGIN IMMEDIATE takes the write lock first
 * (waiting out the busy timeout), and the version is read inside it, so two processes opening a new
 * file at once (the server and `feelfish learn`, say) never both migrate it. */
static bool migrate(sqlite3 *db, char *err, size_t size)
{
    if (!store_exec(db, "BEGIN IMMEDIATE", err, size))
        return false;
    sqlite3_stmt *st;
    int version = 0, from;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (version > STORE_SCHEMA_VERSION) {
        snprintf(err, size, "the database has schema version %d, newer than this server's %d", version,
                 STORE_SCHEMA_VERSION);
        store_exec(db, "ROLLBACK", err + strlen(err), 0);
        return false;
    }
    for (from = version; version < STORE_SCHEMA_VERSION; version++) {
        char sql[4096];
        snprintf(sql, sizeof sql, "%s PRAGMA user_version = %d;", Migrations[version], version + 1);
        if (!store_exec(db, sql, err, size)) {
            store_exec(db, "ROLLBACK", err + strlen(err), 0);
            return false;
        }
    }
    if (!store_exec(db, "COMMIT", err, size)) {
        store_exec(db, "ROLLBACK", err + strlen(err), 0);
        return false;
    }
    if (version != from)
        log_msg(LOG_INFO, "database migrated from schema version %d to %d", from, version);
    return true;
}

/* Appends the chain first..last to a list (under S.lock). */
static void append(Pending **head, Pending **tail, Pending *first, Pending *last)
{
    if (*tail)
        (*tail)->next = first;
    else
        *head = first;
    *tail = last;
}

/* Rows go in one transaction per batch; if any row or the commit fails (a full disk, an I/O
 * error), the whole batch is rolled back and every row in it is answered as failed, so a row is
 * acknowledged only when it is committed. */
static bool write_row(sqlite3_stmt *insert, sqlite3_stmt *insert_game, const Pending *p, char *err, size_t size)
{
    sqlite3_stmt *st = p->game ? insert_game : insert;
    sqlite3_bind_text(st, 1, p->id, -1, SQLITE_STATIC);
    if (p->game) {
        sqlite3_bind_int64(st, 2, p->finished_ms);
        sqlite3_bind_text(st, 3, p->result, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, p->engine_to_move);
    } else {
        bool queued = !strcmp(p->status, "queued");
        sqlite3_bind_text(st, 2, p->status, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, p->created_ms);
        sqlite3_bind_int64(st, 4, p->finished_ms);
        sqlite3_bind_text(st, 5, queued ? "" : p->result, -1, SQLITE_STATIC);
        if (queued)
            sqlite3_bind_text(st, 6, p->result, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 6);
        sqlite3_bind_text(st, 7, p->owner, -1, SQLITE_STATIC);
    }
    bool ok = sqlite3_step(st) == SQLITE_DONE;
    if (!ok)
        snprintf(err, size, "storing %s %s: %s", p->game ? "game" : "job", p->id, sqlite3_errmsg(S.writer_db));
    sqlite3_reset(st);
    return ok;
}

static void note_size(void)
{
    sqlite3_stmt *st;
    long long pages = 0, page_size = 0;
    if (sqlite3_prepare_v2(S.writer_db, "PRAGMA page_count", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        pages = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(S.writer_db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        page_size = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    atomic_store(&S.size_bytes, pages * page_size);
}

typedef struct {
    void (*fn)(sqlite3 *db, int rows, void *arg);
    void *arg;
} BatchHook;

static void write_batch(Pending *batch, sqlite3_stmt *insert, sqlite3_stmt *insert_game, BatchHook hook)
{
    char err[256] = "";
    bool ok = store_exec(S.writer_db, "BEGIN", err, sizeof err);
    int writes = 0;
    for (Pending *p = batch; ok && p; p = p->next, writes++)
        if (p->write)
            p->write(S.writer_db, p->arg);
        else
            ok = write_row(insert, insert_game, p, err, sizeof err);
    if (ok && writes && hook.fn)
        hook.fn(S.writer_db, writes, hook.arg);
    if (ok)
        ok = store_exec(S.writer_db, "COMMIT", err, sizeof err);
    if (!ok) {
        char ignored[64];
        store_exec(S.writer_db, "ROLLBACK", ignored, sizeof ignored);
        /* The queued functions (a finished game's Bayesian records) rolled back with the rows: they
         * get a transaction of their own, so a bad row does not take them along. */
        bool any = false;
        for (Pending *p = batch; p; p = p->next)
            any |= p->write != NULL;
        if (any && store_exec(S.writer_db, "BEGIN", ignored, sizeof ignored)) {
            for (Pending *p = batch; p; p = p->next)
                if (p->write)
                    p->write(S.writer_db, p->arg);
            if (!store_exec(S.writer_db, "COMMIT", ignored, sizeof ignored)) {
                store_exec(S.writer_db, "ROLLBACK", ignored, sizeof ignored);
                log_msg(LOG_ERROR, "storage: a finished game's Bayesian records could not be written either");
            }
        }
        log_msg(LOG_ERROR, "storage: %s (the batch was not written)", err);
        /* A full disk: what the write-ahead log holds beyond the database goes back into it, and the
         * log is cut to nothing, which gives its space back (to the next write, and to readers). */
        if (sqlite3_errcode(S.writer_db) == SQLITE_FULL || strstr(err, "full"))
            store_exec(S.writer_db, "PRAGMA wal_checkpoint(TRUNCATE)", ignored, sizeof ignored);
        pthread_mutex_lock(&S.error_lock);
        snprintf(S.last_error, sizeof S.last_error, "%s", err);
        pthread_mutex_unlock(&S.error_lock);
        atomic_fetch_add(&S.failures, 1);
    } else {
        atomic_fetch_add(&S.commits, 1);
        note_size();
    }
    if (atomic_exchange(&S.healthy, ok) != ok && ok)
        log_msg(LOG_INFO, "storage: writing again");
    for (Pending *p = batch; p; p = p->next)
        p->ok = ok;
}

static void *writer_main(void *arg)
{
    (void)arg;
    sqlite3_stmt *insert = NULL, *insert_game = NULL;
    sqlite3_prepare_v2(S.writer_db,
                       "INSERT OR REPLACE INTO jobs(id, status, created_ms, finished_ms, result, request, owner) "
                       "VALUES (?,?,?,?,?,?,?)",
                       -1, &insert, NULL);
    sqlite3_prepare_v2(S.writer_db,
                       "INSERT OR REPLACE INTO games(id, updated_ms, data, engine_to_move) VALUES (?,?,?,?)", -1,
                       &insert_game, NULL);
    note_size();
    for (;;) {
        pthread_mutex_lock(&S.lock);
        while (!S.quit && !S.pending)
            pthread_cond_wait(&S.cond, &S.lock);
        Pending *batch = S.pending;
        S.pending = S.tail = NULL;
        BatchHook hook = {S.batch_hook, S.batch_hook_arg};
        bool quit = S.quit;
        pthread_mutex_unlock(&S.lock);
        if (batch) {
            write_batch(batch, insert, insert_game, hook);
            /* Queued functions are done here; rows are acknowledged on the loop thread. */
            Pending *rows = NULL, *last = NULL;
            while (batch) {
                Pending *next = batch->next;
                batch->next = NULL;
                if (batch->done)
                    batch->done(batch->arg);
                if (batch->saved) {
                    if (last)
                        last->next = batch;
                    else
                        rows = batch;
                    last = batch;
                } else {
                    free(batch->result);
                    free(batch);
                }
                batch = next;
            }
            if (rows) {
                pthread_mutex_lock(&S.lock);
                append(&S.completed, &S.completed_tail, rows, last);
                pthread_mutex_unlock(&S.lock);
                uv_async_send(&S.completed_async);
            }
        }
        if (quit)
            break;
    }
    sqlite3_finalize(insert);
    sqlite3_finalize(insert_game);
    return NULL;
}

/* The loop's side: every completed row's acknowledgement. */
static void deliver_completed(void)
{
    pthread_mutex_lock(&S.lock);
    Pending *p = S.completed;
    S.completed = S.completed_tail = NULL;
    pthread_mutex_unlock(&S.lock);
    while (p) {
        Pending *next = p->next;
        p->saved(p->ok, p->user);
        free(p->result);
        free(p);
        p = next;
    }
}

static void on_completed(uv_async_t *a)
{
    (void)a;
    deliver_completed();
}

/* Creates the database's folder if needed (one level, like data/). */
static void make_parent(const char *path)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = 0;
    if (mkdir(dir, 0755) && errno != EEXIST)
        log_msg(LOG_WARN, "cannot create %s: %s", dir, strerror(errno));
}

sqlite3 *store_open_db(const char *path, char *err, size_t size)
{
    sqlite3 *db;
    make_parent(path);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        snprintf(err, size, "cannot open %s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    /* The write-ahead log is checkpointed every 256 pages (1 MiB) and cut back to 1 MiB after, so it
     * never takes much of a small disk (SQLite's defaults let it grow to 4 MiB and keep it there). */
    if (!store_exec(db,
                    "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=256; "
                    "PRAGMA journal_size_limit=1048576;",
                    err, size) ||
        !migrate(db, err, size)) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

bool store_open(uv_loop_t *loop, const char *path, char *err, size_t size)
{
    memset(&S, 0, sizeof S);
    S.loop = loop;
    if (!(S.writer_db = store_open_db(path, err, size)))
        return false;
    if (sqlite3_open_v2(path, &S.reader_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, size, "cannot open %s for reading: %s", path, sqlite3_errmsg(S.reader_db));
        sqlite3_close(S.reader_db);
        sqlite3_close(S.writer_db);
        return false;
    }
    sqlite3_busy_timeout(S.reader_db, 5000);
    pthread_mutex_init(&S.lock, NULL);
    pthread_mutex_init(&S.error_lock, NULL);
    pthread_cond_init(&S.cond, NULL);
    atomic_store(&S.healthy, true);
    uv_async_init(loop, &S.completed_async, on_completed);
    uv_unref((uv_handle_t *)&S.completed_async); /* acknowledgements never keep the loop alive */
    if (pthread_create(&S.writer, NULL, writer_main, NULL)) {
        snprintf(err, size, "cannot start the storage thread");
        return false;
    }
    S.open = true;
    return true;
}

void store_close(void)
{
    if (!S.open)
        return;
    pthread_mutex_lock(&S.lock);
    S.quit = true;
    pthread_cond_signal(&S.cond);
    pthread_mutex_unlock(&S.lock);
    pthread_join(S.writer, NULL);
    deliver_completed(); /* the last batch's acknowledgements */
    uv_close((uv_handle_t *)&S.completed_async, NULL);
    uv_run(S.loop, UV_RUN_NOWAIT); /* finishes closing it */
    sqlite3_close(S.reader_db);
    sqlite3_close(S.writer_db);
    S.open = false;
}

static void enqueue(Pending *p)
{
    pthread_mutex_lock(&S.lock);
    append(&S.pending, &S.tail, p, p);
    pthread_cond_signal(&S.cond);
    pthread_mutex_unlock(&S.lock);
}

void store_write_acked(void (*write)(sqlite3 *db, void *arg), void (*done)(void *arg), void *arg, StoreSaved saved,
                       void *user)
{
    Pending *p = S.open ? calloc(1, sizeof *p) : NULL;
    if (!p) {
        if (done)
            done(arg);
        if (saved)
            saved(false, user);
        return;
    }
    p->write = write;
    p->done = done;
    p->arg = arg;
    p->saved = saved;
    p->user = user;
    enqueue(p);
}

void store_write(void (*write)(sqlite3 *db, void *arg), void (*done)(void *arg), void *arg)
{
    store_write_acked(write, done, arg, NULL, NULL);
}

static Pending *row(const char *id, const char *status, long long created_ms, long long finished_ms, char *text,
                    StoreSaved saved, void *user)
{
    Pending *p = S.open && text ? calloc(1, sizeof *p) : NULL;
    if (!p) {
        free(text);
        if (saved)
            saved(false, user);
        return NULL;
    }
    snprintf(p->id, sizeof p->id, "%s", id);
    snprintf(p->status, sizeof p->status, "%s", status);
    p->created_ms = created_ms;
    p->finished_ms = finished_ms;
    p->result = text;
    p->saved = saved;
    p->user = user;
    return p;
}

void store_save_game(const char *id, long long updated_ms, char *game, bool engine_to_move, StoreSaved saved,
                     void *user)
{
    Pending *p = row(id, "game", 0, updated_ms, game, saved, user);
    if (!p)
        return;
    p->game = true;
    p->engine_to_move = engine_to_move;
    enqueue(p);
}

void store_save_job(const char *id, const char *owner, const char *status, long long created_ms, long long finished_ms,
                    char *text, StoreSaved saved, void *user)
{
    Pending *p = row(id, status, created_ms, finished_ms, text, saved, user);
    if (!p)
        return;
    snprintf(p->owner, sizeof p->owner, "%s", owner);
    enqueue(p);
}

void store_scan_unfinished(void (*job)(const char *id, const char *owner, const char *request, long long created_ms,
                                       void *user),
                           void (*game)(const char *data, void *user), void *user)
{
    sqlite3_stmt *st = NULL;
    if (job && sqlite3_prepare_v2(S.reader_db,
                                  "SELECT id, owner, request, created_ms FROM jobs WHERE status IN ('queued', "
                                  "'running') AND request IS NOT NULL ORDER BY created_ms",
                                  -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            job((const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
                (const char *)sqlite3_column_text(st, 2), sqlite3_column_int64(st, 3), user);
    sqlite3_finalize(st);
    st = NULL;
    if (game && sqlite3_prepare_v2(S.reader_db, "SELECT data FROM games WHERE engine_to_move = 1 ORDER BY updated_ms",
                                   -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            game((const char *)sqlite3_column_text(st, 0), user);
    sqlite3_finalize(st);
    st = NULL;
}

void store_set_batch_hook(void (*hook)(sqlite3 *db, int rows, void *arg), void *arg)
{
    pthread_mutex_lock(&S.lock); /* the writer reads it with each batch it takes */
    S.batch_hook = hook;
    S.batch_hook_arg = arg;
    pthread_mutex_unlock(&S.lock);
}

void store_health(StoreHealth *h)
{
    h->writing = atomic_load(&S.healthy);
    h->commits = atomic_load(&S.commits);
    h->failures = atomic_load(&S.failures);
    h->size_bytes = atomic_load(&S.size_bytes);
    pthread_mutex_lock(&S.error_lock);
    snprintf(h->last_error, sizeof h->last_error, "%s", S.last_error);
    pthread_mutex_unlock(&S.error_lock);
}

typedef struct {
    uv_work_t work;
    void (*read)(sqlite3 *db, void *arg);
    void (*done)(void *arg);
    void *arg;
} StoreRead;

static void read_work(uv_work_t *w)
{
    StoreRead *r = w->data;
    r->read(S.reader_db, r->arg);
}

static void read_done(uv_work_t *w, int status)
{
    (void)status;
    StoreRead *r = w->data;
    r->done(r->arg);
    free(r);
}

void store_read_now(void (*read)(sqlite3 *db, void *arg), void *arg)
{
    if (S.open)
        read(S.reader_db, arg);
}

bool store_read(void (*read)(sqlite3 *db, void *arg), void (*done)(void *arg), void *arg)
{
    StoreRead *r = S.open ? calloc(1, sizeof *r) : NULL;
    if (!r)
        return false;
    *r = (StoreRead){.read = read, .done = done, .arg = arg};
    r->work.data = r;
    uv_queue_work(S.loop, &r->work, read_work, read_done);
    return true;
}

/* A job's or game's row, read on the thread pool through store_read. */
struct StoreLoad {
    char id[64];
    bool game;
    char *result;
    char owner[48];
    StoreLoaded done;
    void *user;
};

static void load_read(sqlite3 *db, void *arg)
{
    StoreLoad *l = arg;
    sqlite3_stmt *st;
    const char *sql =
        l->game ? "SELECT data, '' FROM games WHERE id = ?" : "SELECT result, owner FROM jobs WHERE id = ?";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, l->id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        l->result = strdup((const char *)sqlite3_column_text(st, 0));
        snprintf(l->owner, sizeof l->owner, "%s", (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
}

static void load_done(void *arg)
{
    StoreLoad *l = arg;
    l->done(l->result, l->owner, l->user);
    free(l);
}

static StoreLoad *load(const char *id, bool game, StoreLoaded done, void *user)
{
    StoreLoad *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    snprintf(l->id, sizeof l->id, "%s", id);
    l->game = game;
    l->done = done;
    l->user = user;
    if (!store_read(load_read, load_done, l)) {
        free(l);
        return NULL;
    }
    return l;
}

StoreLoad *store_load_job(const char *id, StoreLoaded done, void *user) { return load(id, false, done, user); }
StoreLoad *store_load_game(const char *id, StoreLoaded done, void *user) { return load(id, true, done, user); }
void store_load_forget(StoreLoad *l) { l->user = NULL; }

/* Deletes up to `limit` rows that `select` names (its ids; ?1 is the cutoff, ?2 how many to keep,
 * whichever it uses); -1 on error. */
static int prune_rows(sqlite3 *db, const char *table, const char *select, long long cutoff, long long keep, int limit,
                      char *err, size_t size)
{
    char sql[512];
    snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s IN (%s LIMIT %d)", table, strcmp(table, "evals") ? "id" : "key",
             select, limit);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, size, "%s", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(st, 1, cutoff);
    sqlite3_bind_int64(st, 2, keep);
    int n = sqlite3_step(st) == SQLITE_DONE ? sqlite3_changes(db) : -1;
    if (n < 0)
        snprintf(err, size, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return n;
}

bool store_prune_db(sqlite3 *db, const StoreRetention *r, long long now_ms, int limit, StorePruned *out, char *err,
                    size_t size)
{
    memset(out, 0, sizeof *out);
    long long cutoff = r->days > 0 ? now_ms - r->days * 86400000LL : 0;
    /* A job that is queued or running is never pruned: a restart runs it again. */
    static const char Old_jobs[] = "SELECT id FROM jobs WHERE status NOT IN ('queued', 'running') AND finished_ms < ?1";
    static const char Extra_jobs[] =
        "SELECT id FROM (SELECT id FROM jobs WHERE status NOT IN ('queued', 'running') ORDER BY finished_ms DESC "
        "LIMIT -1 OFFSET ?2)";
    static const char Old_games[] = "SELECT id FROM games WHERE updated_ms < ?1";
    static const char Extra_games[] =
        "SELECT id FROM (SELECT id FROM games ORDER BY updated_ms DESC LIMIT -1 OFFSET ?2)";
    static const char Old_evals[] = "SELECT key FROM evals WHERE created_ms < ?1"; /* the cache ages too */
    static const char Extra_evals[] =
        "SELECT key FROM (SELECT key FROM evals ORDER BY created_ms DESC LIMIT -1 OFFSET ?2)";
    const struct {
        bool on;
        const char *table, *select;
        long long *count;
    } Steps[] = {{cutoff > 0, "jobs", Old_jobs, &out->jobs},    {r->jobs > 0, "jobs", Extra_jobs, &out->jobs},
                 {cutoff > 0, "games", Old_games, &out->games}, {r->games > 0, "games", Extra_games, &out->games},
                 {cutoff > 0, "evals", Old_evals, &out->evals}, {r->evals > 0, "evals", Extra_evals, &out->evals}};
    for (size_t i = 0; i < sizeof Steps / sizeof Steps[0]; i++) {
        long long keep = !strcmp(Steps[i].table, "jobs")    ? r->jobs
                         : !strcmp(Steps[i].table, "games") ? r->games
                                                            : r->evals;
        int n = Steps[i].on ? prune_rows(db, Steps[i].table, Steps[i].select, cutoff, keep, limit, err, size) : 0;
        if (n < 0)
            return false;
        *Steps[i].count += n;
    }
    return true;
}
