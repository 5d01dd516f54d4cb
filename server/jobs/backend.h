/* The seam between the job table (jobs/table.c) and what runs the searches: the local worker pool
 * today (local.c); a cluster backend implements the same calls. Loop thread unless noted. */
#ifndef FEELFISH_JOBS_BACKEND_H
#define FEELFISH_JOBS_BACKEND_H

#include "jobs.h"

typedef struct {
    bool (*submit)(Job *job);    /* false: no room (the job is untouched) */
    bool (*unqueue)(Job *job);   /* removes a job that has not started; false if it has */
    bool (*stop)(Job *job);      /* stops its search if running; false if no worker ever took it (no final will come) */
    void (*stats)(JobsStats *s); /* workers, busy, queued, capacity */
    void (*deliver_pending)(void);
    void (*shutdown)(void); /* stops and joins; running jobs have pushed their finals */
} JobsBackend;

/* What a backend reports, on the loop thread; table.c turns them into events for listeners. */
void jobs_started(Job *job);
void jobs_info(Job *job, int line, void *rendered);
/* Takes `rendered`; `result` is read during the call only. */
void jobs_finished(Job *job, JobStatus status, const SearchResult *result, void *rendered);

/* The hooks of the layer above, for backends to render on their workers. */
const JobHooks *jobs_hooks(void);

/* The local backend. */
const JobsBackend *jobs_local_start(uv_loop_t *loop, const JobsSettings *settings);

#endif
