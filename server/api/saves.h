/* Acknowledged means committed. Every row the API stores (a job's request or result, a game's
 * state) is tracked here until the writer thread says how it went, and a reply that acknowledges
 * it waits for that: `saves_wait` runs its callback once the latest save of a key (a job or game
 * id) is committed, or tells it the save failed (the client then gets 503 storage_unavailable and
 * nothing is acknowledged). Loop thread. */
#ifndef FEELFISH_SAVES_H
#define FEELFISH_SAVES_H

#include <stdbool.h>

#include "../net/http.h"
#include "../store/store.h"

/* Starts tracking a save of `key`: pass the result as the `user` of store_save_job/store_save_game
 * with saves_done as their callback. */
void *saves_begin(const char *key);
void saves_done(bool ok, void *save);

typedef void (*SavedFn)(Request *r, bool ok, void *arg);
/* Calls fn(r, ok, arg) when everything saved so far for key is committed (ok) or the latest save
 * failed (!ok); at once when nothing is in flight. The request is suspended meanwhile and stops
 * waiting if it goes away (then fn is not called; `gone(arg)` is, if not NULL). */
void saves_wait(Request *r, const char *key, SavedFn fn, void *arg, void (*gone)(void *arg));

/* Nothing saved for key is in flight, and its latest save did not fail. */
bool saves_settled(const char *key);
/* Whether the key's latest save failed (and none is in flight): what memory holds of it was never
 * stored. saves_forget_failure: memory holds the stored copy again. */
bool saves_failed(const char *key);
void saves_forget_failure(const char *key);

/* The answer when a save failed: 503 storage_unavailable with Retry-After. */
void saves_reply_unavailable(Request *r);

#endif
