/* Search jobs: a job is a position, limits and an evaluator; a backend runs it (today the local
 * pool of worker threads, jobs/local.c) and its events come back to the loop thread as structs.
 * What a client sees of an event is made by the render hook, on the worker, so the loop never
 * formats a search's output; this layer knows no JSON and no transport. */
#ifndef FEELFISH_JOBS_H
#define FEELFISH_JOBS_H

#include <stdatomic.h>
#include <uv.h>

#include "../../engine/adapt/adaptive.h"
#include "../../engine/engine.h"
#include "../../engine/eval/affective.h"
#include "../net/redis.h"

typedef enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_CANCELLED, JOB_FAILED } JobStatus;
extern const char *const JobStatusNames[];

typedef enum { JOB_EVENT_STARTED, JOB_EVENT_INFO, JOB_EVENT_FINAL } JobEventKind;

/* What a job's listeners hear, on the loop thread. Pointers are valid during the call only. */
typedef struct {
    JobEventKind kind;
    JobStatus status;           /* FINAL: done, cancelled or failed; otherwise running */
    int line;                   /* INFO: the MultiPV line it reports */
    const SearchResult *result; /* FINAL: the search's result; NULL when it never ran */
    void *rendered;             /* what the render hook made of it (the job keeps FINAL's as its result) */
    bool stopping;              /* the server is shutting down (a cancel then is not the client's) */
} JobEvent;

typedef struct Job Job;
typedef void (*JobListener)(Job *job, const JobEvent *event, void *user);

struct Job {
    char id[24];
    JobStatus status; /* owned by the loop thread */
    Position *pos;
    SearchLimits limits;
    Evaluator eval;
    EvalParams params; /* the evaluator's vector when it is not the default (eval.params points here) */
    char mode[16];
    bool compare;     /* also run the classical search on the same position and budget */
    bool has_emotion; /* affective mode: the emotion appraised at the root, fixed for the search */
    Emotion emotion;
    bool has_bayes; /* bayesian mode: phase, target and why, chosen at the root */
    BayesChoice bayes;
    bool durable;    /* the layer above stored it as queued, so its end is stored too (REST jobs) */
    bool background; /* nobody waits for it as such (a game analysis's positions): never quick */
    bool quick_slot; /* a cluster worker's quick slot took it: the quick lane runs it, whatever its rules */
    bool unlisted;   /* its id is never given out (a game analysis's positions, a stateless play): its
                      * result is not stored, nobody could ask for it */
    char client[48]; /* who asked for it (a token's name or an address): its owner, served fairly */
    bool counted;    /* submitted and not yet finished: in its client's count (jobs_client_count) */
    int64_t created_ms, started_ms, finished_ms; /* wall clock (clock_wall_ms) */
    void *result;                                /* the rendered final event, once finished (loop thread) */
    atomic_bool cancel;
    bool taken; /* a worker took it, so its final event will come (guarded by the backend's lock) */
    /* Who hears about this job (loop thread only): a waiting request, WebSocket subscribers, a game. */
    struct JobListenerEntry {
        JobListener fn;
        void *user;
    } * listeners;
    int listener_count;
    int refs; /* loop thread only: the table's reference plus one per holder */
    Job *next_in_table;
};

/* The layer above: how events are shown (called on worker threads, and on the loop for a job
 * cancelled before it ran, with result NULL) and what the loop does with every event (storage,
 * metrics) before the job's listeners hear it. */
typedef struct {
    void *(*render_info)(const Job *job, const SearchInfo *info);
    void *(*render_result)(const Job *job, const SearchResult *r, const SearchResult *classical, JobStatus status);
    void (*free_rendered)(void *rendered);
    void (*on_event)(Job *job, const JobEvent *event);
    /* What render made, from the text a cluster worker sent of it (jobs/cluster.c); NULL if unreadable. */
    void *(*rendered_from_text)(const char *text, size_t len);
    /* A cluster front: whether its other link to Redis (shared state) is up too. A frozen Redis is
     * noticed by whichever link probes first; a job sent then would wait on a link about to drop, so
     * it is refused at once. (A subscription being renewed does not count: finals are read back.) */
    bool (*cluster_ready)(void);
} JobHooks;

typedef struct {
    int workers;
    size_t hash_mb;
    int queue_capacity;
    int64_t timeout_ms;
    int threads;                 /* threads per search (0: 1) */
    const RedisAddress *cluster; /* set: a front, the searches run on workers through Redis (cluster.h) */
    int quick_workers;           /* the quick lane: workers beyond `workers` for quick jobs (local.c) */
} JobsSettings;

/* A quick job: bounded small (depth up to JOBS_QUICK_DEPTH, nodes up to JOBS_QUICK_NODES or a
 * movetime up to JOBS_QUICK_MS), at most JOBS_QUICK_MULTIPV lines, no compare run, and someone waits
 * for it (not background). The quick lane (`quick_workers`, --quick-workers) takes such jobs when the
 * regular workers are all busy, so a short analysis does not wait behind long searches or
 * background work. */
#define JOBS_QUICK_DEPTH 10
#define JOBS_QUICK_NODES 2000000
#define JOBS_QUICK_MS 1500   /* a game's engine move at any level is quick */
#define JOBS_QUICK_MULTIPV 5 /* the most lines Lichess's analysis board shows (a rated move asks 1) */
bool job_is_quick(const Job *job);
/* A quick job that ends by its work (depth or nodes within those bounds, or a rating's node budget),
 * not by running its whole movetime (a full-strength game move): the last free quick worker of two
 * or more takes only these, so an analysis never waits behind a game move. */
bool job_is_short(const Job *job);

/* Starts the local backend (worker threads with their own Search each) on `loop`. */
bool jobs_start(uv_loop_t *loop, const JobsSettings *settings, const JobHooks *hooks);
/* Stops every search, answers what waited as cancelled, frees the jobs. Loop thread. */
void jobs_shutdown(void);

/* A new job for pos (copied) with its limits. The caller (loop thread) then submits it. */
Job *job_new(const Position *pos, const SearchLimits *limits, const Evaluator *eval, const char *mode);
/* Gives a new job the id it had before a restart; false if that id is taken or too long. */
bool job_set_id(Job *job, const char *id);
/* Queues the job; false when the queue is full (nothing changed: release the job, or keep it and
 * submit it later; until then it is "queued" and a cancel ends it). */
bool jobs_submit(Job *job);
/* Stops a queued or running job; it ends as cancelled. Loop thread. */
void jobs_cancel(Job *job);
Job *jobs_find(const char *id);
void job_retain(Job *job);
void job_add_listener(Job *job, JobListener fn, void *user);
void job_remove_listener(Job *job, JobListener fn, void *user);
void job_release(Job *job);

/* How many of a client's jobs are submitted and not finished (queued or running), whatever started
 * them (an analysis, a play, a game's engine move, a game analysis's position), and how many of
 * those are infinite: what per-client quotas are checked against. Loop thread. */
int jobs_client_count(const char *client, int *infinite);

typedef struct {
    int workers, busy, queued, capacity; /* the regular workers */
    int quick_workers, quick_busy;       /* the quick lane (--quick-workers) */
    unsigned long long done, cancelled, failed, nodes;
} JobsStats;
void jobs_stats(JobsStats *s);

/* Loop thread: handles the events workers have published, if any (a cheap check otherwise). For
 * code that may keep the loop busy for long between its iterations. */
void jobs_deliver_pending(void);

#endif
