/* The local backend: a bounded queue feeding a pool of worker threads, each owning its own Search.
 * Design: the loop thread owns every Job's status, result, listeners and the table (table.c).
 * Workers only read a job's position and limits, and speak through events. `pool_lock` guards the
 * queue, each worker's `job` pointer and `busy`; `event_lock` guards the event list. Lock order:
 * pool_lock before event_lock (never the other way). A worker pushes an event and rings the
 * doorbell (an eventfd under a uv_poll) only when the list goes from empty to non-empty; the loop
 * detaches the whole list at once and handles it unlocked; code that keeps the loop busy with a
 * burst of input (many WebSocket messages in one loop iteration) calls jobs_deliver_pending()
 * between items, so events published meanwhile do not wait for the whole burst. Intermediate info
 * events are coalesced per job and line (latest wins); final events are never dropped. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../base/hash.h"
#include "../base/log.h"
#include "backend.h"

typedef struct Worker {
    pthread_t thread;
    Search *search;
    Job *job;           /* guarded by pool_lock */
    int64_t started_ms; /* when it took the job (monotonic, this process); guarded by pool_lock */
} Worker;

typedef struct Event {
    Job *job;
    JobEventKind kind;
    JobStatus status;     /* final */
    int line;             /* info: multipv line, for coalescing */
    void *rendered;       /* info and final */
    SearchResult *result; /* final: the search's result (owned) */
    struct Event *next;
} Event;

static struct {
    uv_loop_t *loop;
    /* The doorbell. Not a uv_async: its sender marks itself busy across the eventfd write and the
     * loop spins until it is done, so a low-priority worker preempted there (see WORKER_NICE) had
     * the loop thread spinning (7 % of its time with 1,000 clients). A plain eventfd has no such
     * handshake: workers write to it, the loop reads it. */
    int bell_fd;
    uv_poll_t bell;
    uv_timer_t timeout_timer;
    pthread_mutex_t pool_lock, event_lock;
    pthread_cond_t pool_cond;
    Worker *workers; /* the regular workers, then the quick lane's */
    int worker_count, busy;
    int regular;      /* how many of `workers` are regular (the rest are the quick lane; set before any starts) */
    int regular_busy; /* of `busy`, the regular workers' */
    Job **queue;
    int capacity, head, count;
    /* What each client (by a hash of its name) has had of the workers lately: worker milliseconds,
     * halved every USAGE_HALF_LIFE_MS (as of `at`), plus what its running jobs have had so far. */
    struct {
        double ms;
        int64_t at;
    } usage[1024];
    bool quit;
    Event *events, *events_tail;
    atomic_bool pending; /* events wait: the list is non-empty (a cheap check for the loop) */
    int64_t timeout_ms;
} P;

/* ---- events (any thread in, loop thread out) ---- */

static void push_event(Event *proto)
{
    const JobHooks *hooks = jobs_hooks();
    pthread_mutex_lock(&P.event_lock);
    if (proto->kind == JOB_EVENT_INFO)
        for (Event *e = P.events; e; e = e->next)
            if (e->job == proto->job && e->kind == JOB_EVENT_INFO && e->line == proto->line) {
                void *old = e->rendered; /* a newer info for the same line: latest wins */
                e->rendered = proto->rendered;
                pthread_mutex_unlock(&P.event_lock);
                if (old && hooks->free_rendered)
                    hooks->free_rendered(old);
                return;
            }
    Event *e = malloc(sizeof *e);
    if (!e)
        abort();
    *e = *proto;
    e->next = NULL;
    bool was_empty = P.events == NULL;
    if (P.events_tail)
        P.events_tail->next = e;
    else
        P.events = e;
    P.events_tail = e;
    if (was_empty)
        atomic_store_explicit(&P.pending, true, memory_order_release);
    pthread_mutex_unlock(&P.event_lock);
    if (was_empty) {
        uint64_t one = 1;
        ssize_t ignored = write(P.bell_fd, &one, sizeof one); /* an eventfd counter: never full in practice */
        (void)ignored;
    }
}

static void handle_events(void)
{
    pthread_mutex_lock(&P.event_lock);
    Event *e = P.events;
    P.events = P.events_tail = NULL;
    atomic_store_explicit(&P.pending, false, memory_order_relaxed);
    pthread_mutex_unlock(&P.event_lock);
    while (e) {
        Event *next = e->next;
        /* Events hold no reference: a job stays in the table at least until its final event has
         * been handled (it is evicted from the finished ring much later), and the final is its last. */
        if (e->kind == JOB_EVENT_STARTED)
            jobs_started(e->job);
        else if (e->kind == JOB_EVENT_INFO)
            jobs_info(e->job, e->line, e->rendered);
        else
            jobs_finished(e->job, e->status, e->result, e->rendered);
        free(e->result);
        free(e);
        e = next;
    }
}

static void local_deliver_pending(void)
{
    if (atomic_load_explicit(&P.pending, memory_order_acquire))
        handle_events();
}

static void on_bell(uv_poll_t *h, int status, int events)
{
    (void)h, (void)status, (void)events;
    uint64_t rings;
    ssize_t ignored = read(P.bell_fd, &rings, sizeof rings); /* resets it; EAGAIN if nobody rang */
    (void)ignored;
    handle_events();
}

/* ---- workers ---- */

static void on_info(void *user, const SearchInfo *info)
{
    Job *job = user;
    const JobHooks *hooks = jobs_hooks();
    Event e = {.job = job, .kind = JOB_EVENT_INFO, .status = JOB_RUNNING, .line = info->multipv};
    e.rendered = hooks->render_info ? hooks->render_info(job, info) : NULL;
    push_event(&e);
}

/* Arms the worker's search for the job under the lock: a cancel from then on reaches it, even
 * before it starts. */
static void arm(Worker *w, Job *job)
{
    search_prepare(w->search, &job->limits);
    if (atomic_load(&job->cancel))
        search_stop(w->search);
}

/* Fair share: a free worker takes the queued job of the client that has had the least of the workers
 * lately (its usage, decayed, plus its running jobs' time so far), the oldest of that client's jobs;
 * among clients with none, the oldest job. So one client's 60 queued analyses, or its long
 * searches, take turns behind whoever has used little, and a light client's short analysis goes
 * first. Clients whose names share a slot of `usage` share it. Under pool_lock. */
enum { USAGE_HALF_LIFE_MS = 10000, QUICK_HASH_MB = 16 };

static unsigned usage_slot(const Job *job) { return hash_text(job->client) % (sizeof P.usage / sizeof P.usage[0]); }

static double usage_of(unsigned slot, int64_t now)
{
    double ms = P.usage[slot].ms * exp2(-(double)(now - P.usage[slot].at) / USAGE_HALF_LIFE_MS);
    for (int w = 0; w < P.worker_count; w++)
        if (P.workers[w].job && usage_slot(P.workers[w].job) == slot)
            ms += (double)(now - P.workers[w].started_ms);
    return ms;
}

/* A job's run is added to its client's usage (under pool_lock). */
static void charge(const Job *job, int64_t ran_ms, int64_t now)
{
    unsigned slot = usage_slot(job);
    P.usage[slot].ms = P.usage[slot].ms * exp2(-(double)(now - P.usage[slot].at) / USAGE_HALF_LIFE_MS) + (double)ran_ms;
    P.usage[slot].at = now;
}

/* The quick lane (--quick-workers): workers beyond the regular ones, running above their priority,
 * that take only a quick job (job_is_quick) of a client with nothing running, and only while every
 * regular worker is busy. The long searches then share their cores with it (the kernel gives the
 * higher priority most of a core) instead of making it wait: preemption without stopping anyone,
 * and no capacity kept idle for quick jobs that may never come. A client whose job runs already
 * waits its turn in the regular lane, so one client can hold at most one quick worker at a time. */
static bool quick_lane(const Worker *w) { return w - P.workers >= P.regular; }

static bool client_running(const Job *job)
{
    for (int w = 0; w < P.worker_count; w++)
        if (P.workers[w].job && !strcmp(P.workers[w].job->client, job->client))
            return true;
    return false;
}

/* Whether the worker may take the queued job (under pool_lock). */
static bool may_take(const Worker *w, const Job *job)
{
    if (job->quick_slot) /* placed by a cluster worker, which keeps a quick worker free for it */
        return quick_lane(w);
    if (!quick_lane(w))
        return true;
    if (P.regular_busy < P.regular || !job_is_quick(job) || client_running(job))
        return false;
    int quick = P.worker_count - P.regular, quick_busy = P.busy - P.regular_busy;
    /* Of two or more, the last free one takes a short job only (job_is_short): under a flood of
     * level-8 moves from many addresses, a depth-8 analysis waited up to 2 s for a lane of one. */
    return quick < 2 || quick_busy < quick - 1 || job_is_short(job);
}

static bool has_work(const Worker *w)
{
    for (int i = 0; i < P.count; i++)
        if (may_take(w, P.queue[(P.head + i) % P.capacity]))
            return true;
    return false;
}

static Job *take_fairly(const Worker *w)
{
    int best = -1;
    double best_usage = 0;
    int64_t now = time_now_ms();
    for (int i = 0; i < P.count; i++) {
        const Job *j = P.queue[(P.head + i) % P.capacity];
        if (!may_take(w, j))
            continue;
        double u = usage_of(usage_slot(j), now);
        if (best < 0 || u < best_usage) {
            best_usage = u;
            best = i;
        }
    }
    Job *job = P.queue[(P.head + best) % P.capacity];
    for (int k = best; k > 0; k--) /* close the gap: the others keep their order */
        P.queue[(P.head + k) % P.capacity] = P.queue[(P.head + k - 1) % P.capacity];
    P.head = (P.head + 1) % P.capacity;
    P.count--;
    return job;
}

/* Searches are background work: the workers run below the loop thread's priority, so that with
 * every core searching the loop still gets a core the moment a frame is ready to go out (on two
 * cores at nice 0 an info event waited up to a time slice for it). Threads a search starts inherit
 * it. Linux applies nice per thread. */
enum { WORKER_NICE = 10, QUICK_WORKER_NICE = 4 };

static void *worker_main(void *arg)
{
    Worker *w = arg;
    const JobHooks *hooks = jobs_hooks();
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), quick_lane(w) ? QUICK_WORKER_NICE : WORKER_NICE) != 0)
        log_msg(LOG_DEBUG, "could not lower a search worker's priority");
    for (;;) {
        pthread_mutex_lock(&P.pool_lock);
        while (!P.quit && !has_work(w))
            pthread_cond_wait(&P.pool_cond, &P.pool_lock);
        if (P.quit) {
            pthread_mutex_unlock(&P.pool_lock);
            break;
        }
        Job *job = take_fairly(w);
        P.busy++;
        P.regular_busy += !quick_lane(w);
        w->job = job;
        job->taken = true;
        w->started_ms = time_now_ms();
        arm(w, job);
        if (P.count > 0 && P.regular_busy == P.regular)
            pthread_cond_broadcast(&P.pool_cond); /* the quick lane may take what waits now */
        pthread_mutex_unlock(&P.pool_lock);

        push_event(&(Event){.job = job, .kind = JOB_EVENT_STARTED, .status = JOB_RUNNING});
        SearchResult *r = malloc(sizeof *r);
        if (!r)
            abort();
        SearchCallbacks cb = {on_info, job};
        search_run(w->search, job->pos, &job->limits, &job->eval, &cb, r);
        /* Compare mode: the classical search on the same position and budget, silently. */
        SearchResult classical;
        bool compared = job->compare && !atomic_load(&job->cancel);
        if (compared) {
            Evaluator plain;
            evaluator_classical(&plain);
            pthread_mutex_lock(&P.pool_lock);
            arm(w, job);
            pthread_mutex_unlock(&P.pool_lock);
            search_run(w->search, job->pos, &job->limits, &plain, NULL, &classical);
        }
        JobStatus status = atomic_load(&job->cancel) ? JOB_CANCELLED : JOB_DONE;
        Event e = {.job = job, .kind = JOB_EVENT_FINAL, .status = status, .result = r};
        e.rendered = hooks->render_result ? hooks->render_result(job, r, compared ? &classical : NULL, status) : NULL;

        pthread_mutex_lock(&P.pool_lock);
        int64_t now = time_now_ms();
        charge(job, now - w->started_ms, now);
        w->job = NULL;
        P.busy--;
        P.regular_busy -= !quick_lane(w);
        pthread_mutex_unlock(&P.pool_lock);
        push_event(&e);
    }
    return NULL;
}

/* ---- the loop side ---- */

static void on_timeout_check(uv_timer_t *t)
{
    (void)t;
    int64_t now = time_now_ms();
    pthread_mutex_lock(&P.pool_lock);
    for (int i = 0; i < P.worker_count; i++) {
        Job *j = P.workers[i].job;
        /* Timed from when this process's worker took it: a job run again after a restart gets
         * its whole time. */
        if (j && !atomic_load(&j->cancel) && now - P.workers[i].started_ms > P.timeout_ms) {
            atomic_store(&j->cancel, true);
            search_stop(P.workers[i].search);
            log_msg(LOG_WARN, "job %s stopped after the %lld ms job timeout", j->id, (long long)P.timeout_ms);
        }
    }
    pthread_mutex_unlock(&P.pool_lock);
}

static bool local_submit(Job *job)
{
    pthread_mutex_lock(&P.pool_lock);
    bool room = P.count < P.capacity && !P.quit;
    if (room) {
        P.queue[(P.head + P.count) % P.capacity] = job;
        P.count++;
        pthread_cond_broadcast(&P.pool_cond); /* the quick lane waits for some jobs only: wake the lot */
    }
    pthread_mutex_unlock(&P.pool_lock);
    return room;
}

static bool local_unqueue(Job *job)
{
    bool was_queued = false;
    pthread_mutex_lock(&P.pool_lock);
    for (int i = 0; i < P.count; i++) {
        int at = (P.head + i) % P.capacity;
        if (P.queue[at] == job) {
            /* Close the gap, keeping the order of the others. */
            for (int k = i; k < P.count - 1; k++)
                P.queue[(P.head + k) % P.capacity] = P.queue[(P.head + k + 1) % P.capacity];
            P.count--;
            was_queued = true;
            break;
        }
    }
    pthread_mutex_unlock(&P.pool_lock);
    return was_queued;
}

static bool local_stop(Job *job)
{
    pthread_mutex_lock(&P.pool_lock);
    bool taken = job->taken;
    for (int i = 0; i < P.worker_count; i++)
        if (P.workers[i].job == job)
            search_stop(P.workers[i].search);
    pthread_mutex_unlock(&P.pool_lock);
    return taken;
}

static void local_stats(JobsStats *s)
{
    pthread_mutex_lock(&P.pool_lock);
    s->workers = P.regular;
    s->busy = P.regular_busy;
    s->quick_workers = P.worker_count - P.regular;
    s->quick_busy = P.busy - P.regular_busy;
    s->queued = P.count;
    s->capacity = P.capacity;
    pthread_mutex_unlock(&P.pool_lock);
}

static void local_shutdown(void)
{
    pthread_mutex_lock(&P.pool_lock);
    P.quit = true;
    for (int i = 0; i < P.worker_count; i++)
        if (P.workers[i].job) {
            atomic_store(&P.workers[i].job->cancel, true);
            search_stop(P.workers[i].search);
        }
    pthread_cond_broadcast(&P.pool_cond);
    pthread_mutex_unlock(&P.pool_lock);
    for (int i = 0; i < P.worker_count; i++) {
        pthread_join(P.workers[i].thread, NULL);
        search_free(P.workers[i].search);
    }
    handle_events(); /* what ran has pushed its final event */
    uv_timer_stop(&P.timeout_timer);
    uv_close((uv_handle_t *)&P.timeout_timer, NULL);
    uv_poll_stop(&P.bell);
    uv_close((uv_handle_t *)&P.bell, NULL);
    close(P.bell_fd);
    free(P.queue);
    free(P.workers);
    P.queue = NULL;
    P.workers = NULL;
    P.worker_count = P.count = P.capacity = 0;
}

static const JobsBackend Local = {local_submit, local_unqueue,         local_stop,
                                  local_stats,  local_deliver_pending, local_shutdown};

const JobsBackend *jobs_local_start(uv_loop_t *loop, const JobsSettings *settings)
{
    memset(&P, 0, sizeof P);
    P.loop = loop;
    P.capacity = settings->queue_capacity;
    P.timeout_ms = settings->timeout_ms;
    P.queue = calloc((size_t)P.capacity, sizeof *P.queue);
    int all = settings->workers + settings->quick_workers;
    P.workers = calloc((size_t)all, sizeof *P.workers);
    P.regular = settings->workers;
    if (!P.queue || !P.workers)
        return NULL;
    pthread_mutex_init(&P.pool_lock, NULL);
    pthread_mutex_init(&P.event_lock, NULL);
    pthread_cond_init(&P.pool_cond, NULL);
    P.bell_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (P.bell_fd < 0 || uv_poll_init(loop, &P.bell, P.bell_fd) || uv_poll_start(&P.bell, UV_READABLE, on_bell))
        return NULL;
    uv_timer_init(loop, &P.timeout_timer);
    uv_timer_start(&P.timeout_timer, on_timeout_check, 500, 500);
    for (int i = 0; i < all; i++) {
        Worker *w = &P.workers[i];
        w->search = search_new();
        /* A quick job is small: the quick lane's hash tables need not be large. */
        size_t hash_mb = i < P.regular || settings->hash_mb < QUICK_HASH_MB ? settings->hash_mb : QUICK_HASH_MB;
        if (!w->search || !search_set_hash(w->search, hash_mb) ||
            !search_set_threads(w->search, settings->threads > 1 ? settings->threads : 1)) {
            log_msg(LOG_ERROR, "worker %d: cannot allocate a %zu MB hash table", i, hash_mb);
            return NULL;
        }
        if (pthread_create(&w->thread, NULL, worker_main, w)) {
            search_free(w->search);
            w->search = NULL;
            return NULL;
        }
        P.worker_count++;
    }
    return &Local;
}
