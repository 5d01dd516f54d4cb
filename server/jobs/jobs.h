/* Search jobs: a bounded queue feeding a pool of worker threads, each owning its own Search, and
 * the way their events get back to the loop thread. */
#ifndef FEELFISH_JOBS_H
#define FEELFISH_JOBS_H

#include <jansson.h>
#include <stdatomic.h>
#include <uv.h>

#include "../../engine/engine.h"
#include "../../engine/eval/affective.h"
#include "../../engine/adapt/adaptive.h"

typedef enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_CANCELLED, JOB_FAILED } JobStatus;
extern const char *const JobStatusNames[];

typedef struct Job Job;
typedef void (*JobListener)(Job *job, json_t *event, bool final, void *user);

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
    int64_t created_ms, started_ms, finished_ms;
    json_t *result; /* set when done (loop thread) */
    atomic_bool cancel;
    struct Worker *worker; /* while running; guarded by the pool lock */
    /* Who hears about this job (loop thread only): a waiting HTTP request, WebSocket subscribers. */
    struct JobListenerEntry {
        JobListener fn;
        void *user;
    } * listeners;
    int listener_count;
    int refs; /* loop thread only: the table's reference plus one per listener */
    Job *next_in_table;
};

typedef struct {
    void (*on_event)(Job *job, json_t *event, bool final); /* loop thread */
} JobsHooks;

/* Starts `workers` threads with hash_mb each; events are delivered on `loop` through hooks. */
bool jobs_start(uv_loop_t *loop, int workers, size_t hash_mb, int queue_capacity, int64_t timeout_ms,
                const JobsHooks *hooks);
/* Stops every search, joins the workers, frees what is left. Loop thread. */
void jobs_shutdown(void);

/* A new job for pos (copied) with its limits. The caller (loop thread) then submits it. */
Job *job_new(const Position *pos, const SearchLimits *limits, const Evaluator *eval, const char *mode);
/* Queues the job; false when the queue is full (the job is not queued: free it with job_release). */
bool jobs_submit(Job *job);
/* Stops a queued or running job; it ends as cancelled. Loop thread. */
void jobs_cancel(Job *job);
Job *jobs_find(const char *id);
void job_retain(Job *job);
void job_add_listener(Job *job, JobListener fn, void *user);
void job_remove_listener(Job *job, JobListener fn, void *user);
void job_release(Job *job);

typedef struct {
    int workers, busy, queued, capacity;
    unsigned long long done, cancelled, failed, nodes;
} JobsStats;
void jobs_stats(JobsStats *s);

/* Loop thread: handles the events workers have published, if any (a cheap check otherwise). For
 * code that may keep the loop busy for long between its iterations. */
void jobs_deliver_pending(void);

#endif
