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
#include <sys/stat.h>

#include "../base/log.h"

typedef struct Pending {
    void (*write)(sqlite3 *db, void *arg); /* a queued function rather than a row */
    void (*done)(void *arg);
    void *arg;
    bool game; /* a games row (id, finished_ms = updated, result = data) rather than a jobs row */
    char id[24];
    char status[16];
    long long created_ms, finished_ms;
    char *result;
    struct Pending *next;
} Pending;

static struct {
    uv_loop_t *loop;
    sqlite3 *writer_db, *reader_db;
    pthread_t writer;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    Pending *pending, *tail;
    bool quit, open;
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

static void *writer_main(void *arg)
{
    (void)arg;
    sqlite3_stmt *insert = NULL, *insert_game = NULL;
    sqlite3_prepare_v2(S.writer_db,
                       "INSERT OR REPLACE INTO jobs(id, status, created_ms, finished_ms, result) VALUES (?,?,?,?,?)",
                       -1, &insert, NULL);
    sqlite3_prepare_v2(S.writer_db, "INSERT OR REPLACE INTO games(id, updated_ms, data) VALUES (?,?,?)", -1,
                       &insert_game, NULL);
    for (;;) {
        pthread_mutex_lock(&S.lock);
        while (!S.quit && !S.pending)
            pthread_cond_wait(&S.cond, &S.lock);
        Pending *batch = S.pending;
        S.pending = S.tail = NULL;
        bool quit = S.quit;
        pthread_mutex_unlock(&S.lock);
        if (batch) {
            char err[256];
            store_exec(S.writer_db, "BEGIN", err, sizeof err);
            for (Pending *p = batch; p; p = p->next) {
                if (p->write) {
                    p->write(S.writer_db, p->arg);
                    continue;
                }
                if (p->game) {
                    sqlite3_bind_text(insert_game, 1, p->id, -1, SQLITE_STATIC);
                    sqlite3_bind_int64(insert_game, 2, p->finished_ms);
                    sqlite3_bind_text(insert_game, 3, p->result, -1, SQLITE_STATIC);
                    if (sqlite3_step(insert_game) != SQLITE_DONE)
                        log_msg(LOG_ERROR, "storing game %s: %s", p->id, sqlite3_errmsg(S.writer_db));
                    sqlite3_reset(insert_game);
                    continue;
                }
                sqlite3_bind_text(insert, 1, p->id, -1, SQLITE_STATIC);
                sqlite3_bind_text(insert, 2, p->status, -1, SQLITE_STATIC);
                sqlite3_bind_int64(insert, 3, p->created_ms);
                sqlite3_bind_int64(insert, 4, p->finished_ms);
                sqlite3_bind_text(insert, 5, p->result, -1, SQLITE_STATIC);
                if (sqlite3_step(insert) != SQLITE_DONE)
                    log_msg(LOG_ERROR, "storing job %s: %s", p->id, sqlite3_errmsg(S.writer_db));
                sqlite3_reset(insert);
            }
            if (!store_exec(S.writer_db, "COMMIT", err, sizeof err))
                log_msg(LOG_ERROR, "storing jobs: %s", err);
            while (batch) {
                Pending *next = batch->next;
                if (batch->done)
                    batch->done(batch->arg);
                free(batch->result);
                free(batch);
                batch = next;
            }
        }
        if (quit)
            break;
    }
    sqlite3_finalize(insert);
    sqlite3_finalize(insert_game);
    return NULL;
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
    if (!store_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err, size) || !migrate(db, err, size)) {
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
    pthread_cond_init(&S.cond, NULL);
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
    sqlite3_close(S.reader_db);
    sqlite3_close(S.writer_db);
    S.open = false;
}

static void enqueue(Pending *p)
{
    pthread_mutex_lock(&S.lock);
    if (S.tail)
        S.tail->next = p;
    else
        S.pending = p;
    S.tail = p;
    pthread_cond_signal(&S.cond);
    pthread_mutex_unlock(&S.lock);
}

void store_write(void (*write)(sqlite3 *db, void *arg), void (*done)(void *arg), void *arg)
{
    Pending *p = S.open ? calloc(1, sizeof *p) : NULL;
    if (!p) {
        if (done)
            done(arg);
        return;
    }
    p->write = write;
    p->done = done;
    p->arg = arg;
    enqueue(p);
}

void store_save_game(const char *id, long long updated_ms, char *game)
{
    store_save_job(id, "game", 0, updated_ms, game); /* status "game": a games row */
}

void store_save_job(const char *id, const char *status, long long created_ms, long long finished_ms, char *text)
{
    if (!S.open) {
        free(text);
        return;
    }
    Pending *p = calloc(1, sizeof *p);
    if (!p || !text) {
        free(p);
        free(text);
        return;
    }
    snprintf(p->id, sizeof p->id, "%s", id);
    snprintf(p->status, sizeof p->status, "%s", status);
    p->created_ms = created_ms;
    p->finished_ms = finished_ms;
    p->result = text;
    p->game = !strcmp(status, "game");
    enqueue(p);
}

struct StoreLoad {
    uv_work_t work;
    char id[64];
    bool game;
    char *result;
    StoreJobCallback done;
    void *user;
};

static void load_work(uv_work_t *w)
{
    StoreLoad *l = w->data;
    sqlite3_stmt *st;
    const char *sql = l->game ? "SELECT data FROM games WHERE id = ?" : "SELECT result FROM jobs WHERE id = ?";
    if (sqlite3_prepare_v2(S.reader_db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, l->id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        l->result = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

static void load_done(uv_work_t *w, int status)
{
    (void)status;
    StoreLoad *l = w->data;
    l->done(l->result, l->user);
    free(l);
}

static StoreLoad *load(const char *id, bool game, StoreJobCallback done, void *user)
{
    StoreLoad *l = calloc(1, sizeof *l);
    if (!l || !S.open) {
        free(l);
        return NULL;
    }
    snprintf(l->id, sizeof l->id, "%s", id);
    l->game = game;
    l->done = done;
    l->user = user;
    l->work.data = l;
    uv_queue_work(S.loop, &l->work, load_work, load_done);
    return l;
}

StoreLoad *store_load_job(const char *id, StoreJobCallback done, void *user) { return load(id, false, done, user); }
StoreLoad *store_load_game(const char *id, StoreJobCallback done, void *user) { return load(id, true, done, user); }
void store_load_forget(StoreLoad *l) { l->user = NULL; }
