/* A request that waits, suspended, for its job's end: POST /api/analyse, cloud-eval, POST /api/play.
 * Loop thread. */
#ifndef FEELFISH_JOB_WAIT_H
#define FEELFISH_JOB_WAIT_H

#include "../jobs/jobs.h"
#include "../net/http.h"

/* Called at the job's final event, the request no longer waiting: it answers and calls
 * http_resume, or makes the request wait again (saves_wait). */
typedef void (*JobWaitDone)(Request *r, Job *job, const JobEvent *final, void *arg);

/* r waits for job (holding a reference meanwhile); if the client leaves first, the job is
 * cancelled and the worker freed for others (done is then not called). */
void job_wait(Request *r, Job *job, JobWaitDone done, void *arg);

#endif
