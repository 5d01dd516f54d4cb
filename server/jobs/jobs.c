/* The worker pool and the job table.
 * Design: the loop thread owns every Job's status, result, listeners and the table. Workers only
 * read a job's position and limits, and speak through events. `pool_lock` guards the queue, each
 * job's `worker` pointer and the counters; `event_lock` guards the event list. Lock order:
 * pool_lock before event_lock (never the other way). A worker pushes an event and rings the
 * doorbell (an eventfd under a uv_poll) only when the list goes from empty to non-empty; the loop detaches the whole
 * list at once and handles it unlocked; code that keeps the loop busy with a burst of input (many
 * WebSocket messages in one loop iteration) calls jobs_deliver_pending() between items, so events
 * published meanwhile do not wait for the whole burst. Intermediate info events are coalesced per
 * job and line (latest wins); final events are never dropped. */
#include "jobs.h"

#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "../api/api.h"
#include "../base/log.h"

const char *const JobStatusNames[] = {"queued", "running", "done", "cancelled", "failed"};

typedef struct Worker {
    pthread_t thread;
    Search *search;
    Job *job; /* guarded by pool_lock */
} Worker;

typedef struct Event {
    Job *job;
    json_t *body;
    int kind; /* 0 info, 1 status, 2 final */
    int line; /* info: multipv line, for coalescing */
    struct Event *next;
} Event;

#define TABLE_SIZE 4096
#define KEEP_FINISHED 2000

static struct {
    uv_loop_t *loop;
    /* The doorbell. Not a uv_async: its sender marks itself busy across the eventfd write and the
     * loop spins until it is done, so a low-priority worker preempted there (see WORKER_NICE) had
     * the loop thread spinning (7 % of its time with 1,000 clients). A plain eventfd has no such
     * handshake: workers write to it, the loop reads it. */
    int bell_fd;
    uv_poll_t bell;
    uv_timer_t timeout_timer;
    JobsHooks hooks;
    pthread_mutex_t pool_lock, event_lock;
    pthread_cond_t pool_cond;
    Worker *workers;
    int worker_count, busy;
    Job **queue;
    int capacity, head, count;
    bool quit;
    Event *events, *events_tail;
    atomic_bool pending; /* events wait: the list is non-empty (a cheap check for the loop) */
    Job *table[TABLE_SIZE];
    Job *finished[KEEP_FINISHED]; /* ring of finished jobs still kept in memory */
    int finished_next;
    unsigned long long done, cancelled, failed, nodes, serial;
    int64_t timeout_ms;
} P;

static unsigned hash_id(const char *id)
{
    unsigned h = 2166136261u;
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h % TABLE_SIZE;
}

Job *jobs_find(const char *id)
{
    for (Job *j = P.table[hash_id(id)]; j; j = j->next_in_table)
        if (!strcmp(j->id, id))
            return j;
    return NULL;
}

static void table_remove(Job *job)
{
    Job **at = &P.table[hash_id(job->id)];
    while (*at && *at != job)
        at = &(*at)->next_in_table;
    if (*at)
        *at = job->next_in_table;
}

void job_retain(Job *job) { job->refs++; }

void job_add_listener(Job *job, JobListener fn, void *user)
{
    struct JobListenerEntry *l = realloc(job->listeners, (size_t)(job->listener_count + 1) * sizeof *l);
    if (!l)
        abort();
    l[job->listener_count++] = (struct JobListenerEntry){fn, user};
    job->listeners = l;
}

void job_remove_listener(Job *job, JobListener fn, void *user)
{
    for (int i = 0; i < job->listener_count; i++)
        if (job->listeners[i].fn == fn && job->listeners[i].user == user) {
            job->listeners[i] = job->listeners[--job->listener_count];
            return;
        }
}

void job_release(Job *job)
{
    if (--job->refs > 0)
        return;
    free(job->listeners);
    free(job->pos);
    json_decref(job->result);
    free(job);
}

Job *job_new(const Position *pos, const SearchLimits *limits, const Evaluator *eval, const char *mode)
{
    Job *j = calloc(1, sizeof *j);
    Position *p = j ? malloc(sizeof *p) : NULL;
    if (!p) {
        free(j);
        return NULL;
    }
    position_copy(p, pos);
    j->pos = p;
    j->limits = *limits;
    j->eval = *eval;
    if (eval->params != &DefaultParams) { /* the job owns a copy: the caller's may not outlive it */
        j->params = *eval->params;
        j->eval.params = &j->params;
    }
    snprintf(j->mode, sizeof j->mode, "%s", mode);
    /* Ids: a counter and random bits, unguessable enough that clients cannot walk others' jobs. */
    uint64_t r = ((uint64_t)rand() << 32) ^ (uint64_t)rand() ^ (uint64_t)uv_hrtime();
    snprintf(j->id, sizeof j->id, "%06llx%010llx", ++P.serial & 0xFFFFFF, (unsigned long long)(r & 0xFFFFFFFFFFULL));
    j->status = JOB_QUEUED;
    j->created_ms = time_now_ms();
    j->refs = 1; /* the table's */
    j->next_in_table = P.table[hash_id(j->id)];
    P.table[hash_id(j->id)] = j;
    return j;
}

/* ---- events (any thread in, loop thread out) ---- */

static void push_event(Job *job, json_t *body, int kind, int line)
{
    pthread_mutex_lock(&P.event_lock);
    if (kind == 0)
        for (Event *e = P.events; e; e = e->next)
            if (e->job == job && e->kind == 0 && e->line == line) {
                json_decref(e->body); /* a newer info for the same line: latest wins */
                e->body = body;
                pthread_mutex_unlock(&P.event_lock);
                return;
            }
    Event *e = malloc(sizeof *e);
    if (!e)
        abort();
    *e = (Event){job, body, kind, line, NULL};
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

static void remember_finished(Job *job)
{
    Job *old = P.finished[P.finished_next];
    if (old) {
        table_remove(old);
        job_release(old);
    }
    P.finished[P.finished_next] = job; /* takes over the table's reference */
    P.finished_next = (P.finished_next + 1) % KEEP_FINISHED;
}

static void deliver(Job *job, json_t *body, bool final)
{
    if (P.hooks.on_event)
        P.hooks.on_event(job, body, final);
    /* Listeners may remove themselves while called: walk a copy. */
    int n = job->listener_count;
    if (!n)
        return;
    struct JobListenerEntry copy[n];
    memcpy(copy, job->listeners, (size_t)n * sizeof copy[0]);
    for (int i = 0; i < n; i++)
        copy[i].fn(job, body, final, copy[i].user);
}

static void finish(Job *job, JobStatus status, json_t *result)
{
    job->status = status;
    job->finished_ms = time_now_ms();
    json_decref(job->result);
    job->result = result;
    if (status == JOB_DONE)
        P.done++;
    else if (status == JOB_CANCELLED)
        P.cancelled++;
    else
        P.failed++;
    deliver(job, result, true);
    remember_finished(job);
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
        Job *job = e->job;
        if (e->kind == 1) {
            job->status = JOB_RUNNING;
            job->started_ms = time_now_ms();
            deliver(job, e->body, false);
            json_decref(e->body);
        } else if (e->kind == 0) {
            deliver(job, e->body, false);
            json_decref(e->body);
        } else {
            const char *st = json_string_value(json_object_get(e->body, "status"));
            JobStatus status = st && !strcmp(st, "cancelled") ? JOB_CANCELLED
                               : st && !strcmp(st, "failed")  ? JOB_FAILED
                                                              : JOB_DONE;
            json_int_t nodes = json_integer_value(json_object_get(e->body, "nodes"));
            P.nodes += (unsigned long long)(nodes > 0 ? nodes : 0);
            finish(job, status, e->body);
        }
        /* Events hold no reference: a job stays in the table at least until its final event has been
         * handled (it is evicted from the finished ring much later), and the final is its last. */
        free(e);
        e = next;
    }
}

void jobs_deliver_pending(void)
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

typedef struct {
    Job *job;
} InfoContext;

static void on_info(void *user, const SearchInfo *info)
{
    InfoContext *c = user;
    json_t *body = api_info_json(c->job, info);
    push_event(c->job, body, 0, info->multipv);
}

/* Searches are background work: the workers run below the loop thread's priority, so that with
 * every core searching the loop still gets a core the moment a frame is ready to go out (on two
 * cores at nice 0 an info event waited up to a time slice for it). Threads a search starts inherit
 * it. Linux applies nice per thread. */
enum { WORKER_NICE = 10 };

static void *worker_main(void *arg)
{
    Worker *w = arg;
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE) != 0)
        log_msg(LOG_DEBUG, "could not lower a search worker's priority");
    for (;;) {
        pthread_mutex_lock(&P.pool_lock);
        while (!P.quit && P.count == 0)
            pthread_cond_wait(&P.pool_cond, &P.pool_lock);
        if (P.quit) {
            pthread_mutex_unlock(&P.pool_lock);
            break;
        }
        Job *job = P.queue[P.head];
        P.head = (P.head + 1) % P.capacity;
        P.count--;
        P.busy++;
        w->job = job;
        /* Armed under the lock: a cancel from now on reaches this search, even before it starts. */
        search_prepare(w->search, &job->limits);
        if (atomic_load(&job->cancel))
            search_stop(w->search);
        pthread_mutex_unlock(&P.pool_lock);

        push_event(job, json_pack("{s:s, s:s}", "type", "status", "status", "running"), 1, 0);
        InfoContext ctx = {job};
        SearchCallbacks cb = {on_info, &ctx};
        SearchResult r;
        search_run(w->search, job->pos, &job->limits, &job->eval, &cb, &r);
        /* Compare mode: the classical search on the same position and budget, silently. */
        SearchResult classical;
        bool compared = job->compare && !atomic_load(&job->cancel);
        if (compared) {
            Evaluator plain;
            evaluator_classical(&plain);
            pthread_mutex_lock(&P.pool_lock);
            search_prepare(w->search, &job->limits);
            if (atomic_load(&job->cancel))
                search_stop(w->search);
            pthread_mutex_unlock(&P.pool_lock);
            search_run(w->search, job->pos, &job->limits, &plain, NULL, &classical);
        }
        json_t *result = api_result_json(job, &r, compared ? &classical : NULL, atomic_load(&job->cancel));

        pthread_mutex_lock(&P.pool_lock);
        w->job = NULL;
        P.busy--;
        pthread_mutex_unlock(&P.pool_lock);
        push_event(job, result, 2, 0);
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
        /* started_ms is the loop's; created_ms bounds it from below and is safe to read here. */
        if (j && !atomic_load(&j->cancel) && now - j->created_ms > P.timeout_ms) {
            atomic_store(&j->cancel, true);
            search_stop(P.workers[i].search);
            log_msg(LOG_WARN, "job %s stopped after the %lld ms job timeout", j->id, (long long)P.timeout_ms);
        }
    }
    pthread_mutex_unlock(&P.pool_lock);
}

bool jobs_start(uv_loop_t *loop, int workers, size_t hash_mb, int queue_capacity, int64_t timeout_ms,
                const JobsHooks *hooks)
{
    memset(&P, 0, sizeof P);
    P.loop = loop;
    P.hooks = *hooks;
    P.capacity = queue_capacity;
    P.timeout_ms = timeout_ms;
    P.queue = calloc((size_t)queue_capacity, sizeof *P.queue);
    P.workers = calloc((size_t)workers, sizeof *P.workers);
    if (!P.queue || !P.workers)
        return false;
    pthread_mutex_init(&P.pool_lock, NULL);
    pthread_mutex_init(&P.event_lock, NULL);
    pthread_cond_init(&P.pool_cond, NULL);
    P.bell_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (P.bell_fd < 0 || uv_poll_init(loop, &P.bell, P.bell_fd) || uv_poll_start(&P.bell, UV_READABLE, on_bell))
        return false;
    uv_timer_init(loop, &P.timeout_timer);
    uv_timer_start(&P.timeout_timer, on_timeout_check, 500, 500);
    for (int i = 0; i < workers; i++) {
        Worker *w = &P.workers[i];
        w->search = search_new();
        if (!w->search || !search_set_hash(w->search, hash_mb)) {
            log_msg(LOG_ERROR, "worker %d: cannot allocate a %zu MB hash table", i, hash_mb);
            return false;
        }
        if (pthread_create(&w->thread, NULL, worker_main, w)) {
            search_free(w->search);
            w->search = NULL;
            return false;
        }
        P.worker_count++;
    }
    return true;
}

bool jobs_submit(Job *job)
{
    pthread_mutex_lock(&P.pool_lock);
    bool room = P.count < P.capacity && !P.quit;
    if (room) {
        P.queue[(P.head + P.count) % P.capacity] = job;
        P.count++;
        pthread_cond_signal(&P.pool_cond);
    }
    pthread_mutex_unlock(&P.pool_lock);
    if (!room) {
        table_remove(job);
        job->status = JOB_FAILED;
    }
    return room;
}

void jobs_cancel(Job *job)
{
    if (job->status != JOB_QUEUED && job->status != JOB_RUNNING)
        return;
    bool was_queued = false;
    pthread_mutex_lock(&P.pool_lock);
    atomic_store(&job->cancel, true);
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
    if (!was_queued)
        for (int i = 0; i < P.worker_count; i++)
            if (P.workers[i].job == job)
                search_stop(P.workers[i].search);
    pthread_mutex_unlock(&P.pool_lock);
    if (was_queued)
        finish(job, JOB_CANCELLED, json_pack("{s:s, s:s}", "id", job->id, "status", "cancelled"));
}

void jobs_stats(JobsStats *s)
{
    pthread_mutex_lock(&P.pool_lock);
    s->workers = P.worker_count;
    s->busy = P.busy;
    s->queued = P.count;
    s->capacity = P.capacity;
    pthread_mutex_unlock(&P.pool_lock);
    s->done = P.done;
    s->cancelled = P.cancelled;
    s->failed = P.failed;
    s->nodes = P.nodes;
}

void jobs_shutdown(void)
{
    pthread_mutex_lock(&P.pool_lock);
    P.quit = true;
    Job *waiting[P.count > 0 ? P.count : 1];
    int n = P.count;
    for (int i = 0; i < n; i++)
        waiting[i] = P.queue[(P.head + i) % P.capacity];
    P.count = 0;
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
    /* What waited in the queue is answered as cancelled; what ran has pushed its final event. */
    for (int i = 0; i < n; i++)
        finish(waiting[i], JOB_CANCELLED, json_pack("{s:s, s:s}", "id", waiting[i]->id, "status", "cancelled"));
    handle_events();
    uv_timer_stop(&P.timeout_timer);
    uv_close((uv_handle_t *)&P.timeout_timer, NULL);
    uv_poll_stop(&P.bell);
    uv_close((uv_handle_t *)&P.bell, NULL);
    close(P.bell_fd);
    for (int i = 0; i < TABLE_SIZE; i++)
        for (Job *j = P.table[i], *next; j; j = next) {
            next = j->next_in_table;
            job_release(j);
        }
    free(P.queue);
    free(P.workers);
}
