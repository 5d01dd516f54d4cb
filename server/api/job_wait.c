/* A request waiting for its job: see job_wait.h. */
#include "job_wait.h"

#include <stdlib.h>

typedef struct {
    Request *r;
    Job *job;
    JobWaitDone done;
    void *arg;
} Wait;

static void listener(Job *job, const JobEvent *ev, void *user)
{
    Wait *w = user;
    if (ev->kind != JOB_EVENT_FINAL)
        return;
    job_remove_listener(job, listener, w);
    http_end_wait(w->r);
    w->done(w->r, job, ev, w->arg);
    job_release(job);
    free(w);
}

static void gone(Request *r)
{
    Wait *w = r->waiter;
    job_remove_listener(w->job, listener, w);
    jobs_cancel(w->job);
    job_release(w->job);
    free(w);
}

void job_wait(Request *r, Job *job, JobWaitDone done, void *arg)
{
    Wait *w = malloc(sizeof *w);
    if (!w)
        abort(); /* as the rest of the request path: no answer can be promised without it */
    *w = (Wait){r, job, done, arg};
    job_retain(job);
    job_add_listener(job, listener, w);
    http_suspend(r, w, gone);
}
