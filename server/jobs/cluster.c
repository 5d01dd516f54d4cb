/* The front's jobs backend over Redis (cluster.h): submit adds to the stream, events come back on
 * this front's channel and are handed to the job table as the local pool's are. Loop thread only. */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>

#include "../base/ids.h"
#include "../base/log.h"
#include "wire.h"

/* A job this front sent and has not seen end. Its entry may not have reached Redis (the link
 * dropped before Redis answered, or Redis refused it): it is sent again every second until Redis
 * takes it. Its final event may have been published while this front's subscription was down: the
 * result the worker stored is read whenever the links come back (recheck). */
typedef struct {
    Job *job;     /* retained */
    bool added;   /* Redis took the entry */
    bool sending; /* an entry is on its way, not answered yet */
    bool quick;   /* its entry goes to the quick lane's stream */
} Flight;

static struct {
    RedisLink *cmd, *sub;
    bool subscribed; /* the subscription is confirmed on the current connection */
    char front[24];
    int capacity, queued, running;
    unsigned long long lost_events; /* events for jobs this front does not hold (any more) */
    Flight *flights;
    int flight_count, flight_cap;
    uv_timer_t resend;
} C;

const char *cluster_front(void) { return C.front; }
bool cluster_up(void) { return redis_link_ready(C.cmd) && redis_link_ready(C.sub) && C.subscribed; }

void cluster_create_group(RedisLink *link)
{
    /* "0": entries added before the group existed are delivered too; BUSYGROUP (it exists) is fine. */
    redis_link_command(link, NULL, NULL, "XGROUP CREATE %s %s 0 MKSTREAM", CLUSTER_STREAM, CLUSTER_GROUP);
    redis_link_command(link, NULL, NULL, "XGROUP CREATE %s %s 0 MKSTREAM", CLUSTER_QUICK_STREAM, CLUSTER_GROUP);
}

static void recheck(void);

/* ---- jobs in flight ---- */

static Flight *flight_of(const char *id)
{
    for (int i = 0; i < C.flight_count; i++)
        if (!strcmp(C.flights[i].job->id, id))
            return &C.flights[i];
    return NULL;
}

static bool unfinished(const Job *job) { return job->status == JOB_QUEUED || job->status == JOB_RUNNING; }

/* Lets go of the jobs that have ended (here, or by a cancel). */
static void flights_sweep(void)
{
    int kept = 0;
    for (int i = 0; i < C.flight_count; i++)
        if (unfinished(C.flights[i].job))
            C.flights[kept++] = C.flights[i];
        else
            job_release(C.flights[i].job);
    C.flight_count = kept;
}

static bool flight_add(Job *job)
{
    flights_sweep();
    if (C.flight_count == C.flight_cap) {
        int cap = C.flight_cap ? 2 * C.flight_cap : 16;
        Flight *f = realloc(C.flights, (size_t)cap * sizeof *f);
        if (!f)
            return false;
        C.flights = f;
        C.flight_cap = cap;
    }
    job_retain(job);
    C.flights[C.flight_count++] = (Flight){job, false, false, false};
    return true;
}

/* The job's end, from its final event or from the result a worker stored. Takes `rendered`. */
static void finish(Job *job, JobStatus status, const SearchResult *result, void *rendered)
{
    const JobHooks *hooks = jobs_hooks();
    if (job->status == JOB_QUEUED)
        C.queued--;
    else
        C.running--;
    if (!rendered && hooks->render_result) /* ended before it ran (cancelled, unreadable): rendered here */
        rendered = hooks->render_result(job, NULL, NULL, status);
    if (job->unlisted) /* nobody asks another front for it: the worker's copy can go */
        redis_link_command(C.cmd, NULL, NULL, "DEL %s%s", CLUSTER_RESULT, job->id);
    jobs_finished(job, status, result, rendered);
}

/* Whether Redis took the entry; if not (the link dropped first, or Redis refused it), it goes
 * again. The entry is added once per job id (a mark that lasts an hour), so sending it again is safe. */
static void on_added(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    const redisReply *reply = r;
    Flight *f = flight_of(priv);
    if (reply && reply->type == REDIS_REPLY_ERROR)
        log_msg(LOG_WARN, "cluster: job %s: Redis refused its entry: %s (sent again in a second)", (char *)priv,
                reply->str);
    if (f) {
        f->sending = false;
        f->added = reply && reply->type != REDIS_REPLY_ERROR;
    }
    free(priv);
}

static const char EntryAdd[] =
    "if redis.call('SET', KEYS[2], '1', 'NX', 'EX', 3600) then "
    "return redis.call('XADD', KEYS[1], '*', 'id', ARGV[1], 'front', ARGV[2], 'job', ARGV[3]) "
    "end return 0";

static bool send_entry(Flight *f)
{
    Job *job = f->job;
    char *bytes, *id = strdup(job->id);
    size_t len;
    if (!id || !wire_job_encode(job, &bytes, &len)) {
        free(id);
        return false;
    }
    f->sending = redis_link_command(C.cmd, on_added, id, "EVAL %s 2 %s %s%s %s %s %b", EntryAdd,
                                    f->quick ? CLUSTER_QUICK_STREAM : CLUSTER_STREAM, CLUSTER_SUBMITTED, job->id,
                                    job->id, C.front, bytes, len);
    free(bytes);
    if (!f->sending)
        free(id);
    return f->sending;
}

static void resend(void)
{
    flights_sweep();
    for (int i = 0; i < C.flight_count; i++)
        if (!C.flights[i].added && !C.flights[i].sending)
            send_entry(&C.flights[i]);
}

static void on_resend(uv_timer_t *t)
{
    (void)t;
    resend();
}

static JobStatus status_named(const char *name)
{
    for (int s = JOB_DONE; s <= JOB_FAILED; s++)
        if (!strcmp(JobStatusNames[s], name))
            return (JobStatus)s;
    return JOB_FAILED;
}

/* What the worker stored of a job's end (its status and rendered result, and the final event itself
 * if it was published while this front was not subscribed), and whether the entry's mark is still there. */
static const char StoredResult[] = "local r = redis.call('HMGET', KEYS[1], 'status', 'result') "
                                   "return {r[1] or '', r[2] or '', redis.call('GET', KEYS[3]) or '', "
                                   "redis.call('EXISTS', KEYS[2])}";

/* Read because the job's final event may have gone while the subscription was down. */
static void on_stored_result(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    const redisReply *reply = r;
    Flight *f = flight_of(priv);
    free(priv);
    if (!f || !unfinished(f->job) || !reply || reply->type != REDIS_REPLY_ARRAY || reply->elements != 4)
        return; /* (Redis went away again: checked once more when it is back) */
    const redisReply *status = reply->element[0], *text = reply->element[1], *event = reply->element[2];
    if (!*redis_text(status)) {
        if (!redis_number(reply->element[3]) && f->added && !f->sending)
            f->added = false; /* no result and no mark: Redis lost the entry (restarted without its data) */
        return;               /* still to run, or running */
    }
    const JobHooks *hooks = jobs_hooks();
    WireEvent e;
    static SearchResult result; /* loop thread */
    bool whole = event->type == REDIS_REPLY_STRING && event->len &&
                 wire_event_decode(event->str, event->len, &e, &result) && e.kind == JOB_EVENT_FINAL;
    void *rendered = NULL;
    if (whole && e.rendered && hooks->rendered_from_text)
        rendered = hooks->rendered_from_text(e.rendered, e.rendered_len);
    else if (!whole && text->len && hooks->rendered_from_text)
        rendered = hooks->rendered_from_text(text->str, text->len);
    if (whole)
        redis_link_command(C.cmd, NULL, NULL, "DEL %s%s", CLUSTER_FINAL, f->job->id);
    finish(f->job, whole ? e.status : status_named(status->str), whole ? e.result : NULL, rendered);
}

/* Both links are up again: entries Redis never took go again, then (in order, on the same link) each
 * job's stored result is read, in case its end was missed. */
static void recheck(void)
{
    if (!redis_link_ready(C.cmd) || !C.subscribed)
        return;
    resend();
    for (int i = 0; i < C.flight_count; i++) {
        const char *job_id = C.flights[i].job->id;
        char *id = strdup(job_id);
        if (id && !redis_link_command(C.cmd, on_stored_result, id, "EVAL %s 3 %s%s %s%s %s%s", StoredResult,
                                      CLUSTER_RESULT, job_id, CLUSTER_SUBMITTED, job_id, CLUSTER_FINAL, job_id))
            free(id);
    }
}

/* ---- events in ---- */

static void on_event_message(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac, (void)priv;
    const redisReply *reply = r, *payload = redis_message_payload(reply);
    if (!reply)
        C.subscribed = false; /* the link dropped */
    else if (!payload && reply->type == REDIS_REPLY_ARRAY && reply->elements >= 1 &&
             reply->element[0]->type == REDIS_REPLY_STRING && !strcmp(reply->element[0]->str, "subscribe")) {
        C.subscribed = true;
        recheck();
    }
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
    } else
        finish(job, e.status, e.result, rendered);
}

static void on_sub_ready(RedisLink *link, void *user)
{
    (void)user;
    C.subscribed = false;
    redis_link_command(link, on_event_message, NULL, "SUBSCRIBE %s%s", CLUSTER_EVENTS, C.front);
}

static void on_cmd_ready(RedisLink *link, void *user)
{
    (void)user;
    cluster_create_group(link);
    recheck();
}

/* Whether the client has a job on this front that has not ended (flights swept). */
static bool client_busy(const char *client)
{
    for (int i = 0; i < C.flight_count; i++)
        if (!strcmp(C.flights[i].job->client, client))
            return true;
    return false;
}

static bool cluster_submit(Job *job)
{
    const JobHooks *hooks = jobs_hooks();
    if (!redis_link_ready(C.cmd) || (hooks->cluster_ready && !hooks->cluster_ready()) ||
        C.queued + C.running >= C.capacity)
        return false;
    flights_sweep();
    bool quick = job_is_quick(job) && !client_busy(job->client); /* one quick entry per client at a time */
    if (!flight_add(job))
        return false;
    C.flights[C.flight_count - 1].quick = quick;
    if (!send_entry(&C.flights[C.flight_count - 1])) {
        C.flights[--C.flight_count].job = NULL;
        job_release(job);
        return false;
    }
    C.queued++;
    return true;
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
    uv_timer_stop(&C.resend);
    uv_close((uv_handle_t *)&C.resend, NULL);
    redis_link_free(C.sub);
    redis_link_free(C.cmd);
    C.sub = C.cmd = NULL;
    for (int i = 0; i < C.flight_count; i++)
        job_release(C.flights[i].job);
    free(C.flights);
    C.flights = NULL;
    C.flight_count = C.flight_cap = 0;
}

static const JobsBackend Cluster = {cluster_submit, cluster_unqueue,         cluster_stop,
                                    cluster_stats,  cluster_deliver_pending, cluster_shutdown};

const JobsBackend *jobs_cluster_start(uv_loop_t *loop, const JobsSettings *settings, const RedisAddress *redis)
{
    memset(&C, 0, sizeof C);
    ids_random_hex(C.front, 12);
    C.capacity = settings->queue_capacity;
    uv_timer_init(loop, &C.resend);
    uv_timer_start(&C.resend, on_resend, 1000, 1000);
    C.cmd = redis_link_new(loop, redis, "jobs", on_cmd_ready, NULL);
    C.sub = redis_link_new(loop, redis, "events", on_sub_ready, NULL);
    if (!C.cmd || !C.sub)
        return NULL;
    log_msg(LOG_INFO, "cluster: front %s, jobs through redis %s:%d/%d", C.front, redis->host, redis->port, redis->db);
    return &Cluster;
}
