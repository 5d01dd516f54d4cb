/* The evaluation cache's table (`evals`): look-ups and writes on a caller's connection, and the
 * same through the storage's reader pool and writer thread (store.h). See evals.h. */
#include "evals.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

/* A read on the storage's pool for a caller on the loop: what to read into, and whom to tell. */
typedef struct {
    char **keys, **values; /* a get */
    int n;
    StoreCacheScan *scan; /* a scan */
    void (*done)(void *arg);
    void *arg;
} CacheRead;

char *store_cache_lookup(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st = NULL;
    char *value = NULL;
    if (sqlite3_prepare_v2(db, "SELECT value FROM evals WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        value = v ? strdup(v) : NULL;
    }
    sqlite3_finalize(st);
    return value;
}

bool store_cache_store(sqlite3 *db, const char *key, const char *value)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO evals (key, value, created_ms) VALUES (?, ?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, clock_wall_ms());
    bool ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    return ok;
}

static void cache_read_done(void *arg)
{
    CacheRead *c = arg;
    c->done(c->arg);
    free(c);
}

/* Runs `read` with a copy of `what` on the pool, then what.done on the loop (false: not started). */
static bool cache_read_start(void (*read)(sqlite3 *db, void *arg), CacheRead what)
{
    CacheRead *c = malloc(sizeof *c);
    if (!c)
        return false;
    *c = what;
    if (!store_read(read, cache_read_done, c)) {
        free(c);
        return false;
    }
    return true;
}

static void cache_get_read(sqlite3 *db, void *arg)
{
    CacheRead *g = arg;
    for (int i = 0; i < g->n; i++)
        g->values[i] = store_cache_lookup(db, g->keys[i]);
}

bool store_cache_get(char **keys, char **values, int n, void (*done)(void *arg), void *arg)
{
    return cache_read_start(cache_get_read,
                            (CacheRead){.keys = keys, .values = values, .n = n, .done = done, .arg = arg});
}

/* The keys from prefix up to prefix with its last byte incremented: a range on the primary key. */
static void cache_scan_read(sqlite3 *db, void *arg)
{
    CacheRead *c = arg;
    StoreCacheScan *s = c->scan;
    size_t len = strlen(s->prefix);
    char *end = strdup(s->prefix);
    sqlite3_stmt *st = NULL;
    if (!end || !len ||
        sqlite3_prepare_v2(db, "SELECT key, value FROM evals WHERE key >= ?1 AND key < ?2 LIMIT ?3", -1, &st, NULL) !=
            SQLITE_OK) {
        free(end);
        return;
    }
    end[len - 1]++;
    sqlite3_bind_text(st, 1, s->prefix, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, end, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, STORE_CACHE_SCAN_MAX);
    while (s->n < STORE_CACHE_SCAN_MAX && sqlite3_step(st) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
        if (!k || !v || !(s->keys[s->n] = strdup(k)))
            continue;
        if (!(s->values[s->n] = strdup(v))) {
            free(s->keys[s->n]);
            continue;
        }
        s->n++;
    }
    sqlite3_finalize(st);
    free(end);
}

bool store_cache_scan(StoreCacheScan *scan, void (*done)(void *arg), void *arg)
{
    scan->n = 0;
    return cache_read_start(cache_scan_read, (CacheRead){.scan = scan, .done = done, .arg = arg});
}

typedef struct {
    char *key, *value;
} CachePut;

static void cache_write(sqlite3 *db, void *arg)
{
    CachePut *p = arg;
    store_cache_store(db, p->key, p->value); /* best effort: the acknowledgement is the batch's */
}

/* Frees the entry on the writer thread; `saved` hears of the batch on the loop thread (store.h). */
static void cache_put_done(void *arg)
{
    CachePut *p = arg;
    free(p->key);
    free(p->value);
    free(p);
}

void store_cache_put(char *key, char *value, StoreSaved saved, void *user)
{
    CachePut *p = malloc(sizeof *p);
    if (!p) {
        free(key);
        free(value);
        if (saved)
            saved(false, user);
        return;
    }
    *p = (CachePut){key, value};
    store_write_acked(cache_write, cache_put_done, p, saved, user);
}
