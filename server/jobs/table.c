/* The job table and its listeners, on the loop thread: a job is created here, handed to the
 * backend, and each event the backend reports is given to the layer above's hook and then to the
 * job's listeners. Finished jobs stay in memory for a while (a ring), then only in storage. */
#include "jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/hash.h"
#include "../base/clock.h"
#include "../base/ids.h"
#include "backend.h"
#include "cluster.h"

const char *const JobStatusNames[] = {"queued", "running", "done", "cancelled", "failed"};

#define TABLE_SIZE 4096
#define KEEP_FINISHED 2000
#define CLIENT_SLOTS 1024

/* A client with unfinished jobs; forgotten when it has none. */
typedef struct ClientCount {
    char name[48];
    int jobs, infinite;
    struct ClientCount *next;
} ClientCount;

static struct {
    const JobsBackend *backend;
    JobHooks hooks;
    bool stopping; /* jobs_shutdown has begun */
    Job *table[TABLE_SIZE];
    Job *finished[KEEP_FINISHED]; /* ring of finished jobs still kept in memory */
    ClientCount *clients[CLIENT_SLOTS];
    int finished_next;
    unsigned long long done, cancelled, failed, nodes;
} J;

static unsigned hash_id(const char *id) { return hash_text(id) % TABLE_SIZE; }

static ClientCount **client_slot(const char *name)
{
    ClientCount **at = &J.clients[hash_text(name) % CLIENT_SLOTS];
    while (*at && strcmp((*at)->name, name))
        at = &(*at)->next;
    return at;
}

/* Adds a job to its client's count (+1) or takes it away (-1). */
static void count_job(Job *job, int delta)
{
    ClientCount **at = client_slot(job->client);
    if (!*at && delta > 0 && (*at = calloc(1, sizeof **at)))
        snprintf((*at)->name, sizeof(*at)->name, "%s", job->client);
    ClientCount *c = *at;
    if (!c)
        return; /* out of memory: not counted rather than refused */
    c->jobs += delta;
    c->infinite += job->limits.infinite ? delta : 0;
    job->counted = delta > 0;
    if (c->jobs <= 0) {
        *at = c->next;
        free(c);
    }
}

/* Whether a search ends by its work within the quick bounds, whatever its movetime. */
static bool work_bounded(const SearchLimits *l)
{
    return l->elo > 0 || (l->depth > 0 && l->depth <= JOBS_QUICK_DEPTH) ||
           (l->nodes > 0 && l->nodes <= JOBS_QUICK_NODES);
}

bool job_is_quick(const Job *job)
{
    const SearchLimits *l = &job->limits;
    bool bounded = work_bounded(l) || (l->movetime > 0 && l->movetime <= JOBS_QUICK_MS);
    return bounded && !l->infinite && l->multipv <= JOBS_QUICK_MULTIPV && !job->compare && !job->background;
}

bool job_is_short(const Job *job) { return job_is_quick(job) && work_bounded(&job->limits); }

int jobs_client_count(const char *client, int *infinite)
{
    ClientCount *c = *client_slot(client);
    if (infinite)
        *infinite = c ? c->infinite : 0;
    return c ? c->jobs : 0;
}

Job *jobs_find(const char *id)
{
    for (Job *j = J.table[hash_id(id)]; j; j = j->next_in_table)
        if (!strcmp(j->id, id))
            return j;
    return NULL;
}

static void table_remove(Job *job)
{
    Job **at = &J.table[hash_id(job->id)];
    while (*at && *at != job)
        at = &(*at)->next_in_table;
    if (*at)
        *at = job->next_in_table;
}

void job_retain(Job *job) { job->refs++; }

bool job_set_id(Job *job, const char *id)
{
    if (strlen(id) >= sizeof job->id || jobs_find(id))
        return false;
    table_remove(job);
    snprintf(job->id, sizeof job->id, "%s", id);
    job->next_in_table = J.table[hash_id(job->id)];
    J.table[hash_id(job->id)] = job;
    return true;
}

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
    table_remove(job); /* a job never submitted is still there */
    free(job->listeners);
    free(job->pos);
    if (job->result && J.hooks.free_rendered)
        J.hooks.free_rendered(job->result);
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
    ids_random_hex(j->id, 16); /* 64 random bits: nobody walks others' jobs */
    j->status = JOB_QUEUED;
    j->created_ms = clock_wall_ms();
    j->refs = 1; /* the table's */
    j->next_in_table = J.table[hash_id(j->id)];
    J.table[hash_id(j->id)] = j;
    return j;
}

static void deliver(Job *job, const JobEvent *ev)
{
    if (J.hooks.on_event)
        J.hooks.on_event(job, ev);
    /* Listeners may remove themselves while called: walk a copy. */
    int n = job->listener_count;
    if (!n)
        return;
    struct JobListenerEntry copy[n];
    memcpy(copy, job->listeners, (size_t)n * sizeof copy[0]);
    for (int i = 0; i < n; i++)
        copy[i].fn(job, ev, copy[i].user);
}

static void remember_finished(Job *job)
{
    Job *old = J.finished[J.finished_next];
    if (old) {
        table_remove(old);
        job_release(old);
    }
    J.finished[J.finished_next] = job; /* takes over the table's reference */
    J.finished_next = (J.finished_next + 1) % KEEP_FINISHED;
}

void jobs_started(Job *job)
{
    job->status = JOB_RUNNING;
    job->started_ms = clock_wall_ms();
    JobEvent ev = {.kind = JOB_EVENT_STARTED, .status = JOB_RUNNING};
    deliver(job, &ev);
}

void jobs_info(Job *job, int line, void *rendered)
{
    JobEvent ev = {.kind = JOB_EVENT_INFO, .status = JOB_RUNNING, .line = line, .rendered = rendered};
    deliver(job, &ev);
    if (J.hooks.free_rendered)
        J.hooks.free_rendered(rendered);
}

void jobs_finished(Job *job, JobStatus status, const SearchResult *result, void *rendered)
{
    job->status = status;
    job->finished_ms = clock_wall_ms();
    if (job->counted)
        count_job(job, -1);
    if (job->result && J.hooks.free_rendered)
        J.hooks.free_rendered(job->result);
    job->result = rendered;
    if (status == JOB_DONE)
        J.done++;
    else if (status == JOB_CANCELLED)
        J.cancelled++;
    else
        J.failed++;
    if (result)
        J.nodes += result->nodes;
    JobEvent ev = {
        .kind = JOB_EVENT_FINAL, .status = status, .result = result, .rendered = rendered, .stopping = J.stopping};
    deliver(job, &ev);
    remember_finished(job);
}

const JobHooks *jobs_hooks(void) { return &J.hooks; }

bool jobs_start(uv_loop_t *loop, const JobsSettings *settings, const JobHooks *hooks)
{
    memset(&J, 0, sizeof J);
    J.hooks = *hooks;
    J.backend =
        settings->cluster ? jobs_cluster_start(loop, settings, settings->cluster) : jobs_local_start(loop, settings);
    return J.backend != NULL;
}

bool jobs_submit(Job *job)
{
    bool counting = !job->counted; /* counted before, in case its end comes at once */
    if (counting)
        count_job(job, +1);
    bool ok = J.backend->submit(job);
    if (!ok && counting && job->counted)
        count_job(job, -1);
    return ok;
}

static void finish_unrun(Job *job)
{
    void *rendered = J.hooks.render_result ? J.hooks.render_result(job, NULL, NULL, JOB_CANCELLED) : NULL;
    jobs_finished(job, JOB_CANCELLED, NULL, rendered);
}

void jobs_cancel(Job *job)
{
    if (job->status != JOB_QUEUED && job->status != JOB_RUNNING)
        return;
    atomic_store(&job->cancel, true);
    /* Queued: it never runs. Running: its final event follows. Neither (never submitted, or
     * waiting for room): it ends here. */
    if (J.backend->unqueue(job) || !J.backend->stop(job))
        finish_unrun(job);
}

void jobs_stats(JobsStats *s)
{
    *s = (JobsStats){0};
    J.backend->stats(s);
    s->done = J.done;
    s->cancelled = J.cancelled;
    s->failed = J.failed;
    s->nodes = J.nodes;
}

void jobs_deliver_pending(void) { J.backend->deliver_pending(); }

void jobs_shutdown(void)
{
    J.stopping = true;
    /* What waits in the queue never runs: it is answered as cancelled. Collected first, since
     * finishing a job may evict another from the table. */
    int n = 0;
    for (int i = 0; i < TABLE_SIZE; i++)
        for (Job *j = J.table[i]; j; j = j->next_in_table)
            n += j->status == JOB_QUEUED;
    Job **queued = calloc((size_t)n + 1, sizeof *queued);
    n = 0;
    for (int i = 0; queued && i < TABLE_SIZE; i++)
        for (Job *j = J.table[i]; j; j = j->next_in_table)
            if (j->status == JOB_QUEUED)
                queued[n++] = j;
    for (int i = 0; i < n; i++) {
        atomic_store(&queued[i]->cancel, true);
        if (J.backend->unqueue(queued[i]))
            finish_unrun(queued[i]);
    }
    free(queued);
    J.backend->shutdown();
    memset(J.finished, 0, sizeof J.finished); /* the table's references, released below */
    for (int i = 0; i < TABLE_SIZE; i++)
        for (Job *j = J.table[i], *next; j; j = next) {
            next = j->next_in_table;
            job_release(j);
        }
    memset(J.table, 0, sizeof J.table);
}
