/* The evaluation cache's storage: the `evals` table of the server's database (made by store.c's
 * migration), read and written through the storage's threads (store.h). */
#ifndef FEELFISH_STORE_EVALS_H
#define FEELFISH_STORE_EVALS_H

#include <stdbool.h>

#include "store.h"

/* The evaluation cache: values (text) by key (a position, mode and limits; the caller makes
 * both). store_cache_get fills values[i] (malloc'd, or NULL when not cached) for keys[0..n-1], on
 * the thread pool, then calls done on the loop thread (NULL-safe as store_read: false when
 * storage is closed). store_cache_put queues one entry for writing (taken over); `saved` (may be
 * NULL) is called on the loop thread with the outcome of the batch it was written in (committed or
 * rolled back: the entry itself is best effort, its own failed insert is not reported). */
bool store_cache_get(char **keys, char **values, int n, void (*done)(void *arg), void *arg);
void store_cache_put(char *key, char *value, StoreSaved saved, void *user);
/* The same on a connection of the caller's (store_open_db: the command-line tools). lookup: the
 * value (malloc'd) or NULL; store: false if it could not be written. */
char *store_cache_lookup(sqlite3 *db, const char *key);
bool store_cache_store(sqlite3 *db, const char *key, const char *value);
/* Every entry whose key starts with prefix (at most STORE_CACHE_SCAN_MAX), the same way: keys and
 * values are malloc'd arrays of *n malloc'd strings, the caller's from done on. */
#define STORE_CACHE_SCAN_MAX 64
typedef struct {
    char *prefix; /* the caller's */
    char *keys[STORE_CACHE_SCAN_MAX], *values[STORE_CACHE_SCAN_MAX];
    int n;
} StoreCacheScan;
bool store_cache_scan(StoreCacheScan *scan, void (*done)(void *arg), void *arg);

#endif
