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
    unsigned long long seq; /* saves are numbered as begun: a key's outcome is its latest save's */
    Waiter *waiters;
    struct Save *next;
} Save;

typedef struct Failed {
    char key[64];
    unsigned long long seq; /* the failed save */
    struct Failed *next;
} Failed;

static Save *InFlight; /* newest first */
static Failed *FailedKeys;
static unsigned long long Seq;

static Save *latest(const char *key)
{
    for (Save *s = InFlight; s; s = s->next) /* newest first */
        if (!strcmp(s->key, key))
            return s;
    return NULL;
}

/* Records a save's outcome for its key: a failure is remembered until a later save succeeds (a
 * save can fail at once, out of order, when the store cannot even queue it). */
static void set_outcome(const char *key, unsigned long long seq, bool ok)
{
    Failed **at = &FailedKeys;
    while (*at && strcmp((*at)->key, key))
        at = &(*at)->next;
    if (!ok) {
        if (!*at && (*at = calloc(1, sizeof **at)))
            snprintf((*at)->key, sizeof(*at)->key, "%s", key);
        if (*at && (*at)->seq < seq)
            (*at)->seq = seq;
    } else if (*at && (*at)->seq < seq) {
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

bool saves_settled(const char *key) { return !latest(key) && !failed(key); }

bool saves_failed(const char *key) { return !latest(key) && failed(key); }

void saves_forget_failure(const char *key) { set_outcome(key, Seq + 1, true); }

/* Calls fn; a suspended request that fn answered (and did not leave waiting for something else)
 * is resumed; one that was never suspended is answered by its route's return. */
static void answer(Request *r, SavedFn fn, bool ok, void *arg)
{
    fn(r, ok, arg);
    if (r->suspended && !r->waiter)
        http_resume(r);
}

void *saves_begin(const char *key)
{
    Save *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    snprintf(s->key, sizeof s->key, "%s", key);
    s->seq = ++Seq;
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
    set_outcome(s->key, s->seq, ok);
    Save *newer = latest(s->key);
    while (s->waiters) {
        Waiter *w = s->waiters;
        s->waiters = w->next;
        if (ok && newer) {
            /* Committed, but the key has changed since (a job finished, the engine moved): what
             * the answer would show is the newer save's, so it waits for that one. */
            w->save = newer;
            w->next = newer->waiters;
            newer->waiters = w;
            continue;
        }
        Request *r = w->r;
        SavedFn fn = w->fn;
        void *arg = w->arg;
        free(w);
        http_end_wait(r);
        answer(r, fn, ok, arg);
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
        answer(r, fn, !failed(key), arg);
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
    api_reply_fail(r, 503, "storage_unavailable", NULL,
                   "the database cannot be written just now (disk full?), so this is not stored; retry later");
}
