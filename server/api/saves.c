/* Tracking saves until they are committed: see saves.h. In-flight saves are few (one writer
 * batch's worth), so they are a list; keys whose latest save failed are remembered until one
 * succeeds, so a reply never acknowledges what is not stored. */
#include "saves.h"

#include <stdlib.h>
#include <string.h>

#include "reply.h"

typedef struct Waiter {
    Request *r;
    SavedFn fn;
    void *arg;
    void (*gone)(void *arg);
    struct Save *save; /* NULL once answered */
    struct Waiter *next;
} Waiter;

typedef struct Save {
    char key[64];
    Waiter *waiters;
    struct Save *next;
} Save;

typedef struct Failed {
    char key[64];
    struct Failed *next;
} Failed;

static Save *InFlight;
static Failed *FailedKeys;

static Save *latest(const char *key)
{
    Save *found = NULL;
    for (Save *s = InFlight; s; s = s->next) /* newest first */
        if (!strcmp(s->key, key))
            return s;
    return found;
}

static void set_failed(const char *key, bool failed)
{
    Failed **at = &FailedKeys;
    while (*at && strcmp((*at)->key, key))
        at = &(*at)->next;
    if (failed && !*at && (*at = calloc(1, sizeof **at)))
        snprintf((*at)->key, sizeof (*at)->key, "%s", key);
    else if (!failed && *at) {
        Failed *f = *at;
        *at = f->next;
        free(f);
    }
}

static bool failed(const char *key)
{
    for (Failed *f = FailedKeys; f; f = f->next)
        if (!strcmp(f->key, key))
            return true;
    return false;
}

void *saves_begin(const char *key)
{
    Save *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    snprintf(s->key, sizeof s->key, "%s", key);
    s->next = InFlight;
    InFlight = s;
    return s;
}

void saves_done(bool ok, void *save)
{
    Save *s = save;
    Save **at = &InFlight;
    while (*at && *at != s)
        at = &(*at)->next;
    if (*at)
        *at = s->next;
    /* Saves of a key commit in order, so the latest outcome is the key's state. */
    if (!latest(s->key))
        set_failed(s->key, !ok);
    while (s->waiters) {
        Waiter *w = s->waiters;
        s->waiters = w->next;
        w->save = NULL;
        Request *r = w->r;
        SavedFn fn = w->fn;
        void *arg = w->arg;
        free(w);
        http_end_wait(r);
        fn(r, ok, arg);
        if (!r->waiter) /* answered (not waiting for something else now) */
            http_resume(r);
    }
    free(s);
}

static void waiter_gone(Request *r)
{
    Waiter *w = r->waiter;
    Waiter **at = &w->save->waiters;
    while (*at && *at != w)
        at = &(*at)->next;
    if (*at)
        *at = w->next;
    if (w->gone)
        w->gone(w->arg);
    free(w);
}

void saves_wait(Request *r, const char *key, SavedFn fn, void *arg, void (*gone)(void *arg))
{
    Save *s = latest(key);
    if (!s) {
        bool was_suspended = r->suspended;
        fn(r, !failed(key), arg);
        if (was_suspended && !r->waiter)
            http_resume(r);
        return;
    }
    Waiter *w = calloc(1, sizeof *w);
    if (!w)
        abort();
    *w = (Waiter){r, fn, arg, gone, s, s->waiters};
    s->waiters = w;
    http_suspend(r, w, waiter_gone);
}

void saves_reply_unavailable(Request *r)
{
    http_add_header(r, "Retry-After", "5");
    api_reply_fail(r, 503, "storage_unavailable", NULL,
                   "the database cannot be written just now (disk full?); nothing was changed for good: retry later");
}
