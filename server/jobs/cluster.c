/* The front's jobs backend over Redis (cluster.h): submit adds to the stream, events come back on
 * this front's channel and are handed to the job table as the local pool's are. Loop thread only. */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>

#include "../base/ids.h"
#include "../base/log.h"
#include "wire.h"

static struct {
    RedisLink *cmd, *sub;
    char front[24];
    int capacity, queued, running;
    unsigned long long lost_events; /* events for jobs this front does not hold (any more) */
} C;

const char *cluster_front(void) { return C.front; }

void cluster_create_group(RedisLink *link)
{
    /* "0": entries added before the group existed are delivered too; BUSYGROUP (it exists) is fine. */
    redis_link_command(link, NULL, NULL, "XGROUP CREATE %s %s 0 MKSTREAM", CLUSTER_STREAM, CLUSTER_GROUP);
}

static void on_event_message(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac, (void)priv;
    const redisReply *payload = redis_message_payload(r);
    if (!payload)
        return;
    WireEvent e;
    static SearchResult result; /* loop thread */
    if (!wire_event_decode(payload->str, payload->len, &e, &result)) {
        log_msg(LOG_WARN, "cluster: an event message that does not read (another build of feelfish?)");
        return;
    }
    Job *job = jobs_find(e.id);
    if (!job || (job->status != JOB_QUEUED && job->status != JOB_RUNNING)) {
        C.lost_events++;
        return;
    }
    const JobHooks *hooks = jobs_hooks();
    void *rendered =
        e.rendered && hooks->rendered_from_text ? hooks->rendered_from_text(e.rendered, e.rendered_len) : NULL;
    if (e.kind == JOB_EVENT_STARTED) {
        if (job->status == JOB_QUEUED) {
            C.queued--;
            C.running++;
            jobs_started(job);
        }
        if (rendered && hooks->free_rendered)
            hooks->free_rendered(rendered);
    } else if (e.kind == JOB_EVENT_INFO) {
        if (job->status == JOB_QUEUED) { /* its STARTED went missing (Redis restarted meanwhile) */
            C.queued--;
            C.running++;
            jobs_started(job);
        }
        jobs_info(job, e.line, rendered);
    } else {
        if (job->status == JOB_QUEUED)
            C.queued--;
        else
            C.running--;
        if (!rendered && hooks->render_result) /* ended before it ran (cancelled, unreadable): rendered here */
            rendered = hooks->render_result(job, NULL, NULL, e.status);
        if (job->unlisted) /* nobody asks another front for it: the worker's copy can go */
            redis_link_command(C.cmd, NULL, NULL, "DEL %s%s", CLUSTER_RESULT, job->id);
        jobs_finished(job, e.status, e.result, rendered);
    }
}

static void on_sub_ready(RedisLink *link, void *user)
{
    (void)user;
    redis_link_command(link, on_event_message, NULL, "SUBSCRIBE %s%s", CLUSTER_EVENTS, C.front);
}

static void on_cmd_ready(RedisLink *link, void *user)
{
    (void)user;
    cluster_create_group(link);
}

static bool cluster_submit(Job *job)
{
    if (!redis_link_ready(C.cmd) || C.queued + C.running >= C.capacity)
        return false;
    char *bytes;
    size_t len;
    if (!wire_job_encode(job, &bytes, &len))
        return false;
    bool ok = redis_link_command(C.cmd, NULL, NULL, "XADD %s * id %s front %s job %b", CLUSTER_STREAM, job->id, C.front,
                                 bytes, len);
    free(bytes);
    if (ok)
        C.queued++;
    return ok;
}

bool cluster_cancel(const char *id)
{
    return C.cmd && redis_link_command(C.cmd, NULL, NULL, "SET %s%s 1 EX %d", CLUSTER_CANCELLED, id, CLUSTER_KEEP_S) &&
           redis_link_command(C.cmd, NULL, NULL, "PUBLISH %s %s", CLUSTER_CANCEL, id);
}

static void mark_cancelled(const Job *job) { cluster_cancel(job->id); }

/* Not started as far as this front knows: a worker that takes it finds the mark and skips it (one
 * that took it just now hears the cancel and stops it; its events then find the job finished). */
static bool cluster_unqueue(Job *job)
{
    if (job->status != JOB_QUEUED)
        return false;
    mark_cancelled(job);
    C.queued--;
    return true;
}

static bool cluster_stop(Job *job)
{
    mark_cancelled(job);
    return job->status == JOB_RUNNING;
}

static void cluster_stats(JobsStats *s)
{
    s->workers = 0; /* other processes' */
    s->busy = C.running;
    s->queued = C.queued;
    s->capacity = C.capacity;
}

static void cluster_deliver_pending(void) {}

static void cluster_shutdown(void)
{
    redis_link_free(C.sub);
    redis_link_free(C.cmd);
    C.sub = C.cmd = NULL;
}

static const JobsBackend Cluster = {cluster_submit, cluster_unqueue,         cluster_stop,
                                    cluster_stats,  cluster_deliver_pending, cluster_shutdown};

const JobsBackend *jobs_cluster_start(uv_loop_t *loop, const JobsSettings *settings, const RedisAddress *redis)
{
    memset(&C, 0, sizeof C);
    ids_random_hex(C.front, 12);
    C.capacity = settings->queue_capacity;
    C.cmd = redis_link_new(loop, redis, "jobs", on_cmd_ready, NULL);
    C.sub = redis_link_new(loop, redis, "events", on_sub_ready, NULL);
    if (!C.cmd || !C.sub)
        return NULL;
    log_msg(LOG_INFO, "cluster: front %s, jobs through redis %s:%d/%d", C.front, redis->host, redis->port, redis->db);
    return &Cluster;
}
