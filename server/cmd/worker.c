/* `feelfish worker --redis URL [--threads N] [--quick-threads N] [--hash MB] [--job-timeout MS] [--reclaim-ms MS]`:
 * a cluster's search worker (jobs/cluster.h). It reads jobs from the streams in the workers' group while
 * it has a free search thread, runs them on the local pool (jobs/local.c, as `serve` does) with the
 * API's renderers, and publishes each job's events to the front that holds its clients; a final
 * result is written to Redis before it is published, then the stream entry is acknowledged. Its
 * running entries are kept fresh; entries idle past --reclaim-ms (a dead worker's) are taken over.
 * SIGINT/SIGTERM: stops reading, and the jobs it was running are left unacknowledged for another
 * worker to take over. Its slots are --threads regular ones, which read both streams (the quick lane's
 * first), and --quick-threads quick ones, which read the quick lane's stream only, and only while every
 * regular slot is busy (their searches run above the regular ones' priority: jobs/local.c). Four
 * connections: a blocking read for each kind of slot, one for commands, one for the cancel channel. */
#include "worker.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../api/api.h"
#include "../api/encode.h"
#include "../api/reply.h"
#include "../base/log.h"
#include "../domain/shared.h"
#include "../jobs/cluster.h"
#include "../jobs/wire.h"
#include "../net/metrics_http.h"
#include "args.h"

#define MAX_SLOTS 256
#define RECENT_CANCELS 64
#define TAKE_WAIT_MS 3000 /* an entry's cancel check waits this long for the command link */

typedef struct {
    Job *job; /* NULL: free */
    char entry[48], front[24];
    const char *stream; /* where its entry is: CLUSTER_STREAM or CLUSTER_QUICK_STREAM */
} Slot;

/* Where an entry is read from and which kind of slot runs it. */
typedef struct {
    const char *stream;
    bool quick_slot;
} Lane;
static const Lane Regular = {CLUSTER_STREAM, false}, QuickInRegular = {CLUSTER_QUICK_STREAM, false},
                  QuickInQuick = {CLUSTER_QUICK_STREAM, true};

static struct {
    uv_loop_t *loop;
    RedisLink *block, *quick_block, *cmd, *sub;
    char me[96];
    int threads, quick;         /* regular slots (slots[0, threads)), then quick ones */
    int running, quick_running; /* slots of each kind in use or reserved */
    long reclaim_ms;
    bool reading, quick_reading, stopping;
    Slot slots[2 * MAX_SLOTS];
    uv_timer_t heartbeat, reclaim;
    uv_signal_t sigint, sigterm;
    unsigned long long taken, reclaimed, finished;
    /* Cancels heard for jobs not running here: one may be on its way in (its cancel mark was read
     * just before the mark was set, and the cancel came before it took a slot). */
    char recent_cancels[RECENT_CANCELS][24];
    int next_cancel;
} W;

static Slot *slot_of(const Job *job)
{
    for (int i = 0; i < W.threads + W.quick; i++)
        if (W.slots[i].job == job)
            return &W.slots[i];
    return NULL;
}

/* ---- events out ---- */

/* A final event: its result stored (what any front answers), then published; when no one heard it
 * (its front's subscription was down) the event itself is kept a while, for that front to read back
 * once it is subscribed again. One script, so that a front subscribes either before it (and hears
 * it) or after it (and finds the event kept). */
static const char FinalPublish[] = "redis.call('HSET', KEYS[1], 'status', ARGV[1], 'result', ARGV[2]) "
                                   "redis.call('EXPIRE', KEYS[1], ARGV[5]) "
                                   "if redis.call('PUBLISH', ARGV[3], ARGV[4]) == 0 then "
                                   "redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[6]) end "
                                   "return 1";

static void publish(const Slot *s, const WireEvent *e)
{
    char *bytes, channel[64];
    size_t len;
    if (!wire_event_encode(e, &bytes, &len))
        return;
    snprintf(channel, sizeof channel, "%s%s", CLUSTER_EVENTS, s->front);
    if (e->kind != JOB_EVENT_FINAL)
        redis_link_command(W.cmd, NULL, NULL, "PUBLISH %s %b", channel, bytes, len);
    else {
        json_t *status = e->rendered ? NULL : encode_job_status(e->id, JobStatusNames[e->status]); /* never ran */
        char *result = status ? api_dumps(status, false) : NULL;
        json_decref(status);
        redis_link_command(W.cmd, NULL, NULL, "EVAL %s 2 %s%s %s%s %s %s %s %b %d %d", FinalPublish, CLUSTER_RESULT,
                           e->id, CLUSTER_FINAL, e->id, JobStatusNames[e->status],
                           e->rendered ? e->rendered
                           : result    ? result
                                       : "",
                           channel, bytes, len, CLUSTER_KEEP_S, CLUSTER_FINAL_KEEP_S);
        free(result);
    }
    free(bytes);
}

static void read_more(void);

/* Done with an entry: acknowledged, and deleted so that the stream holds only what waits or runs. */
static void acknowledge(const char *stream, const char *entry)
{
    redis_link_command(W.cmd, NULL, NULL, "XACK %s %s %s", stream, CLUSTER_GROUP, entry);
    redis_link_command(W.cmd, NULL, NULL, "XDEL %s %s", stream, entry);
}

static bool quick_slot(const Slot *s) { return s - W.slots >= W.threads; }

/* Takes a slot of the kind (a reservation or a job), and gives it back. */
static void slot_take(bool quick)
{
    if (quick)
        W.quick_running++;
    else
        W.running++;
}

static void slot_free(bool quick)
{
    if (quick)
        W.quick_running--;
    else
        W.running--;
}

/* The table's hook, before any listener: what the front must hear. */
static void on_job_event(Job *job, const JobEvent *ev)
{
    Slot *s = slot_of(job);
    if (!s)
        return;
    WireEvent e = {.kind = ev->kind, .status = ev->status, .line = ev->line, .result = ev->result};
    snprintf(e.id, sizeof e.id, "%s", job->id);
    char *text = ev->rendered ? json_dumps(ev->rendered, JSON_COMPACT) : NULL;
    e.rendered = text;
    e.rendered_len = text ? strlen(text) : 0;
    if (ev->kind != JOB_EVENT_FINAL)
        publish(s, &e);
    else if (!ev->stopping) {
        /* Stored, then announced, then acknowledged: one connection keeps the order. */
        publish(s, &e);
        acknowledge(s->stream, s->entry);
        W.finished++;
    } /* else: shutting down; left pending, another worker takes it over */
    free(text);
    if (ev->kind == JOB_EVENT_FINAL) { /* the table keeps the job a while, then lets it go */
        s->job = NULL;
        slot_free(quick_slot(s));
        read_more();
    }
}

/* ---- jobs in ---- */

typedef struct {
    char entry[48], id[24], front[24];
    char *bytes;
    size_t len;
    Lane lane;
} Taking;

/* A job taken but not run (cancelled meanwhile, or unreadable): its front hears how it ended. */
static void end_taken(Taking *t, JobStatus status)
{
    Slot s = {0};
    snprintf(s.front, sizeof s.front, "%s", t->front);
    WireEvent e = {.kind = JOB_EVENT_FINAL, .status = status};
    snprintf(e.id, sizeof e.id, "%s", t->id);
    publish(&s, &e);
    acknowledge(t->lane.stream, t->entry);
}

static void fail_taken(Taking *t, const char *why)
{
    log_msg(LOG_ERROR, "worker: job %s (entry %s): %s", t->id, t->entry, why);
    end_taken(t, JOB_FAILED);
}

static void on_cancel_checked(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    redisReply *reply = r;
    Taking *t = priv;
    slot_free(t->lane.quick_slot); /* the reservation take_entry made */
    int free_slot = -1, first = t->lane.quick_slot ? W.threads : 0,
        end = first + (t->lane.quick_slot ? W.quick : W.threads);
    for (int i = first; i < end && free_slot < 0; i++)
        if (!W.slots[i].job)
            free_slot = i;
    bool heard = false;
    for (int i = 0; i < RECENT_CANCELS && !heard; i++)
        heard = !strcmp(W.recent_cancels[i], t->id);
    if (heard || (reply && reply->type == REDIS_REPLY_INTEGER && reply->integer == 1)) /* cancelled before it ran */
        end_taken(t, JOB_CANCELLED); /* (cancelled by another front, its own does not know yet) */
    else if (reply && free_slot >= 0 && !W.stopping) {
        char err[200];
        Job *job = wire_job_decode(t->bytes, t->len, err, sizeof err);
        Slot *s = &W.slots[free_slot];
        if (!job)
            fail_taken(t, err);
        else {
            snprintf(s->entry, sizeof s->entry, "%s", t->entry);
            snprintf(s->front, sizeof s->front, "%s", t->front);
            s->stream = t->lane.stream;
            s->job = job;
            job->quick_slot = t->lane.quick_slot;
            slot_take(t->lane.quick_slot);
            W.taken++;
            log_msg(LOG_INFO, "worker: job %s started (entry %s%s, front %s)", job->id, s->entry,
                    t->lane.quick_slot                              ? ", quick slot"
                    : !strcmp(t->lane.stream, CLUSTER_QUICK_STREAM) ? ", quick stream"
                                                                    : "",
                    s->front);
            if (!jobs_submit(job)) {
                s->job = NULL;
                slot_free(t->lane.quick_slot);
                job_release(job);
                fail_taken(t, "no room in the local pool");
            }
        }
    } /* else: Redis went away, or stopping: the entry stays pending and is taken over later */
    free(t->bytes);
    free(t);
    read_more();
}

/* A stream entry (id, [field, value, ...]) read; NULL when it is not one (deleted meanwhile). */
static Taking *taking_of(const redisReply *entry, Lane lane)
{
    if (entry->type != REDIS_REPLY_ARRAY || entry->elements != 2 || entry->element[0]->type != REDIS_REPLY_STRING ||
        entry->element[1]->type != REDIS_REPLY_ARRAY)
        return NULL;
    Taking *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->lane = lane;
    snprintf(t->entry, sizeof t->entry, "%s", entry->element[0]->str);
    const redisReply *f = entry->element[1];
    for (size_t i = 0; i + 1 < f->elements; i += 2) {
        const redisReply *k = f->element[i], *v = f->element[i + 1];
        if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING)
            continue;
        if (!strcmp(k->str, "id"))
            snprintf(t->id, sizeof t->id, "%s", v->str);
        else if (!strcmp(k->str, "front"))
            snprintf(t->front, sizeof t->front, "%s", v->str);
        else if (!strcmp(k->str, "job") && !t->bytes && (t->bytes = malloc(v->len ? v->len : 1))) {
            memcpy(t->bytes, v->str, v->len);
            t->len = v->len;
        }
    }
    return t;
}

static bool whole(const Taking *t) { return t->bytes && t->id[0] && t->front[0]; }

static void taking_free(Taking *t)
{
    free(t->bytes);
    free(t);
}

/* One stream entry to run in a slot of its lane's kind (reserved here until the cancel check answers). */
static void take_entry(const redisReply *entry, Lane lane)
{
    Taking *t = taking_of(entry, lane);
    if (!t)
        return;
    /* (held while the command link is reconnecting: an entry read just before it dropped is taken once it is back) */
    if (!whole(t) ||
        !redis_link_send(W.cmd, TAKE_WAIT_MS, on_cancel_checked, t, "EXISTS %s%s", CLUSTER_CANCELLED, t->id)) {
        if (!whole(t))
            acknowledge(lane.stream, t->entry);
        /* else Redis is down: pending, taken over later */
        taking_free(t);
        return;
    }
    slot_take(lane.quick_slot);
}

/* An entry read with no slot free for it (a reclaim took the slot meanwhile, or both streams answered one
 * read): put back at the end of its stream, in one script, for any worker to take. */
static const char Requeue[] = "redis.call('XADD', KEYS[1], '*', 'id', ARGV[2], 'front', ARGV[3], 'job', ARGV[4]) "
                              "redis.call('XACK', KEYS[1], ARGV[5], ARGV[1]) "
                              "redis.call('XDEL', KEYS[1], ARGV[1]) return 1";

static void requeue(const redisReply *entry, const char *stream)
{
    Taking *t = taking_of(entry, Regular);
    if (!t)
        return;
    if (!whole(t))
        acknowledge(stream, t->entry);
    else
        redis_link_command(W.cmd, NULL, NULL, "EVAL %s 1 %s %s %s %s %b %s", Requeue, stream, t->entry, t->id, t->front,
                           t->bytes, t->len, CLUSTER_GROUP);
    taking_free(t);
}

/* The first entry a read returned from `stream` ([[stream, [entry...]]...]), or NULL. */
static const redisReply *entry_from(const redisReply *reply, const char *stream)
{
    if (!reply || reply->type != REDIS_REPLY_ARRAY)
        return NULL;
    for (size_t i = 0; i < reply->elements; i++) {
        const redisReply *r = reply->element[i];
        if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 && r->element[0]->type == REDIS_REPLY_STRING &&
            !strcmp(r->element[0]->str, stream) && r->element[1]->type == REDIS_REPLY_ARRAY && r->element[1]->elements)
            return r->element[1]->element[0];
    }
    return NULL;
}

static bool read_failed(const redisReply *reply)
{
    if (!reply)
        return true; /* the link dropped: reading starts again when it is back */
    if (reply->type == REDIS_REPLY_ERROR) {
        log_msg(LOG_WARN, "worker: XREADGROUP: %s", reply->str);
        if (strstr(reply->str, "NOGROUP"))
            cluster_create_group(W.cmd);
    }
    return false;
}

/* A read's entries: a regular slot's read returns at most one from each stream, a quick slot's one
 * from the quick stream (priv set). The quick entry goes first, to a regular slot, or to a quick
 * slot when none is free or the regular entry needs the last one; one that finds no room goes back. */
static void on_read(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    redisReply *reply = r;
    bool quick_read = priv != NULL;
    if (quick_read)
        W.quick_reading = false;
    else
        W.reading = false;
    if (read_failed(reply))
        return;
    const redisReply *q = entry_from(reply, CLUSTER_QUICK_STREAM);
    const redisReply *e = quick_read ? NULL : entry_from(reply, CLUSTER_STREAM);
    if (q) {
        bool regular_free = W.running < W.threads, quick_free = W.quick_running < W.quick;
        if (quick_free && (!regular_free || (e && W.threads - W.running < 2)))
            take_entry(q, QuickInQuick);
        else if (regular_free)
            take_entry(q, QuickInRegular);
        else
            requeue(q, CLUSTER_QUICK_STREAM);
    }
    if (e) {
        if (W.running < W.threads)
            take_entry(e, Regular);
        else
            requeue(e, CLUSTER_STREAM);
    }
    read_more();
}

static void read_more(void)
{
    /* Taking an entry needs the command link (the cancel check, then the acknowledgement): one read
     * before it is up would stay pending to this worker until the reclaim (30-45 s by default). */
    if (W.stopping || !redis_link_ready(W.cmd))
        return;
    if (!W.reading && W.running < W.threads && redis_link_ready(W.block))
        W.reading =
            redis_link_command(W.block, on_read, NULL, "XREADGROUP GROUP %s %s COUNT 1 BLOCK 2000 STREAMS %s %s > >",
                               CLUSTER_GROUP, W.me, CLUSTER_QUICK_STREAM, CLUSTER_STREAM);
    /* The quick slots wait only while every regular one is busy (a free regular slot reads the quick stream first). */
    if (!W.quick_reading && W.quick_running < W.quick && W.running >= W.threads && redis_link_ready(W.quick_block))
        W.quick_reading = redis_link_command(W.quick_block, on_read, (void *)&QuickInQuick,
                                             "XREADGROUP GROUP %s %s COUNT 1 BLOCK 2000 STREAMS %s >", CLUSTER_GROUP,
                                             W.me, CLUSTER_QUICK_STREAM);
}

/* Running entries stay fresh; a dead worker's go stale and are taken over here. */
static void on_heartbeat(uv_timer_t *t)
{
    (void)t;
    for (int i = 0; i < W.threads + W.quick; i++)
        if (W.slots[i].job)
            redis_link_command(W.cmd, NULL, NULL, "XCLAIM %s %s %s 0 %s JUSTID", W.slots[i].stream, CLUSTER_GROUP, W.me,
                               W.slots[i].entry);
}

static void on_claimed(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    redisReply *reply = r;
    const Lane *lane = priv;
    slot_free(lane->quick_slot); /* the reservation */
    /* [next, [entry...], [deleted...]] */
    if (reply && reply->type == REDIS_REPLY_ARRAY && reply->elements >= 2 &&
        reply->element[1]->type == REDIS_REPLY_ARRAY)
        for (size_t k = 0; k < reply->element[1]->elements; k++) {
            const redisReply *entry = reply->element[1]->element[k];
            if (entry->type == REDIS_REPLY_ARRAY && entry->elements == 2) {
                W.reclaimed++;
                redis_link_command(W.cmd, NULL, NULL, "HINCRBY %s reclaimed 1", SHARED_STATS);
                log_msg(LOG_INFO, "worker: taking over entry %s (its worker stopped answering)",
                        entry->element[0]->str);
                take_entry(entry, *lane);
            }
        }
    read_more();
}

/* Takes over one stale entry of the lane's stream if a slot of the lane's kind is free. */
static void reclaim(const Lane *lane)
{
    if (lane->quick_slot ? W.quick_running >= W.quick : W.running >= W.threads)
        return;
    if (!redis_link_command(W.cmd, on_claimed, (void *)lane, "XAUTOCLAIM %s %s %s %ld 0-0 COUNT 1", lane->stream,
                            CLUSTER_GROUP, W.me, W.reclaim_ms))
        return;
    slot_take(lane->quick_slot);
}

static void on_reclaim(uv_timer_t *t)
{
    (void)t;
    if (W.stopping)
        return;
    reclaim(&Regular); /* first: a quick entry can also go to a quick slot */
    reclaim(W.running < W.threads ? &QuickInRegular : &QuickInQuick);
}

/* The node's line for `feelfish cluster status` (it expires unless renewed: a dead worker's goes). */
static void describe(char *line, size_t size)
{
    snprintf(line, size, "worker %s threads %d running %d quick %d/%d taken %llu finished %llu reclaimed %llu pid %ld",
             W.me, W.threads, W.running, W.quick_running, W.quick, W.taken, W.finished, W.reclaimed, (long)getpid());
}

/* With --metrics: the stream as every node sees it, and this worker's own counters. */
static void publish_metrics(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    shared_metrics(f);
    fprintf(f,
            "# TYPE feelfish_worker_threads gauge\nfeelfish_worker_threads %d\n"
            "# TYPE feelfish_worker_running gauge\nfeelfish_worker_running %d\n"
            "# HELP feelfish_worker_quick_threads the quick lane's slots (--quick-threads)\n"
            "# TYPE feelfish_worker_quick_threads gauge\nfeelfish_worker_quick_threads %d\n"
            "# TYPE feelfish_worker_quick_running gauge\nfeelfish_worker_quick_running %d\n"
            "# HELP feelfish_worker_jobs_taken_total jobs this worker read from the stream\n"
            "# TYPE feelfish_worker_jobs_taken_total counter\nfeelfish_worker_jobs_taken_total %llu\n"
            "# HELP feelfish_worker_jobs_finished_total jobs this worker finished and acknowledged\n"
            "# TYPE feelfish_worker_jobs_finished_total counter\nfeelfish_worker_jobs_finished_total %llu\n"
            "# HELP feelfish_worker_jobs_reclaimed_total jobs this worker took over from a dead one\n"
            "# TYPE feelfish_worker_jobs_reclaimed_total counter\nfeelfish_worker_jobs_reclaimed_total %llu\n",
            W.threads, W.running, W.quick, W.quick_running, W.taken, W.finished, W.reclaimed);
    fclose(f);
    metrics_http_set(buf, len);
}

/* ---- cancels ---- */

static void on_cancel(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac, (void)priv;
    const redisReply *payload = redis_message_payload(r);
    Job *job = payload ? jobs_find(payload->str) : NULL;
    if (job && slot_of(job))
        jobs_cancel(job);
    else if (payload && payload->len < sizeof W.recent_cancels[0]) {
        memcpy(W.recent_cancels[W.next_cancel], payload->str, payload->len + 1);
        W.next_cancel = (W.next_cancel + 1) % RECENT_CANCELS;
    }
}

static void on_block_ready(RedisLink *link, void *user)
{
    (void)user;
    cluster_create_group(link);
    read_more();
}

static void on_cmd_ready(RedisLink *link, void *user)
{
    (void)link, (void)user;
    read_more();
}

static void on_sub_ready(RedisLink *link, void *user)
{
    (void)user;
    redis_link_command(link, on_cancel, NULL, "SUBSCRIBE %s", CLUSTER_CANCEL);
}

static void on_signal(uv_signal_t *s, int signum)
{
    (void)s;
    log_msg(LOG_INFO, "worker: signal %d: stopping (running jobs are left for another worker)", signum);
    W.stopping = true;
    uv_signal_stop(&W.sigint);
    uv_signal_stop(&W.sigterm);
    uv_timer_stop(&W.heartbeat);
    uv_timer_stop(&W.reclaim);
    shared_stop();
    metrics_http_stop();
    jobs_shutdown();
    /* A blocking read still waiting is let go, not awaited: an entry it brought now could not be
     * taken (the command link closes too) and would wait for another worker's reclaim. */
    redis_link_abort(W.block);
    redis_link_abort(W.quick_block);
    redis_link_free(W.cmd);
    redis_link_free(W.sub);
    uv_close((uv_handle_t *)&W.heartbeat, NULL);
    uv_close((uv_handle_t *)&W.reclaim, NULL);
    uv_close((uv_handle_t *)&W.sigint, NULL);
    uv_close((uv_handle_t *)&W.sigterm, NULL);
}

static int usage(const char *why)
{
    fprintf(stderr,
            "worker: %s\n"
            "usage: feelfish worker --redis redis://HOST:PORT[/DB] [--threads N] [--quick-threads N] [--hash MB]\n"
            "                       [--job-timeout MS] [--reclaim-ms MS] [--metrics [ADDR:]PORT]\n"
            "  a search worker of a cluster: runs the jobs fronts (feelfish serve --redis) put into Redis, N at a\n"
            "  time (--threads, default 1), plus quick analyses while those are all busy (--quick-threads,\n"
            "  default 1: short jobs of clients with nothing else running, at a higher priority); a job whose\n"
            "  worker stopped answering for --reclaim-ms (default 30000) is taken over and run again.\n"
            "  --metrics serves GET /metrics (Prometheus text; ADDR 127.0.0.1 unless given).\n",
            why);
    return 2;
}

int worker_command(int argc, char **argv, FILE *unused)
{
    (void)unused;
    const char *url = NULL, *metrics = NULL;
    long threads = 1, quick = 1, hash = 64, timeout = 600000, reclaim = 30000;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        i++;
        if (!strcmp(a, "--redis") && v)
            url = v;
        else if (!strcmp(a, "--metrics") && v)
            metrics = v;
        else if (!strcmp(a, "--threads"))
            ok = args_long("worker", a, v, 1, MAX_SLOTS, &threads);
        else if (!strcmp(a, "--quick-threads"))
            ok = args_long("worker", a, v, 0, MAX_SLOTS, &quick);
        else if (!strcmp(a, "--hash"))
            ok = args_long("worker", a, v, 1, 32768, &hash);
        else if (!strcmp(a, "--job-timeout"))
            ok = args_long("worker", a, v, 100, 86400000, &timeout);
        else if (!strcmp(a, "--reclaim-ms"))
            ok = args_long("worker", a, v, 100, 86400000, &reclaim);
        else
            return usage("unknown or incomplete option");
        if (!ok)
            return 2;
    }
    RedisAddress addr;
    char err[200];
    if (!url)
        return usage("--redis is needed");
    if (!redis_url_parse(url, &addr, err, sizeof err))
        return usage(err);
    char bind[64] = "127.0.0.1";
    long metrics_port = -1;
    if (metrics) {
        const char *colon = strrchr(metrics, ':');
        if (colon && (size_t)(colon - metrics) < sizeof bind)
            snprintf(bind, sizeof bind, "%.*s", (int)(colon - metrics), metrics);
        if (!args_long("worker", "--metrics", colon ? colon + 1 : metrics, 0, 65535, &metrics_port))
            return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    memset(&W, 0, sizeof W);
    W.loop = uv_default_loop();
    W.threads = (int)threads;
    W.quick = (int)quick;
    W.reclaim_ms = reclaim;
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    snprintf(W.me, sizeof W.me, "%s-%d", host, (int)getpid());
    if (metrics_port >= 0) {
        int bound;
        if (!metrics_http_start(bind, (int)metrics_port, &bound, err, sizeof err)) {
            fprintf(stderr, "feelfish worker: --metrics: %s\n", err);
            return 1;
        }
        printf("metrics http %d\n", bound); /* for scripts started with --metrics 0 */
        fflush(stdout);
    }
    JobsSettings jobs = {(int)threads, (size_t)hash, (int)(threads + quick), timeout, 1, NULL, (int)quick};
    JobHooks hooks = ApiJobHooks; /* the API's renderers; what happens to an event is ours */
    hooks.on_event = on_job_event;
    if (!jobs_start(W.loop, &jobs, &hooks)) {
        fprintf(stderr, "feelfish worker: cannot start %ld search threads with %ld MB each\n", threads, hash);
        return 1;
    }
    W.block = redis_link_new(W.loop, &addr, "stream", on_block_ready, NULL);
    if (quick)
        W.quick_block = redis_link_new(W.loop, &addr, "quick stream", on_block_ready, NULL);
    W.cmd = redis_link_new(W.loop, &addr, "commands", on_cmd_ready, NULL);
    W.sub = redis_link_new(W.loop, &addr, "cancels", on_sub_ready, NULL);
    uv_timer_init(W.loop, &W.heartbeat);
    uv_timer_init(W.loop, &W.reclaim);
    uv_timer_start(&W.heartbeat, on_heartbeat, (uint64_t)reclaim / 3, (uint64_t)reclaim / 3);
    uv_timer_start(&W.reclaim, on_reclaim, (uint64_t)reclaim / 2, (uint64_t)reclaim / 2);
    shared_start(W.loop, &addr, W.me);
    shared_describe(describe);
    if (metrics_port >= 0)
        shared_every_second(publish_metrics);
    uv_signal_init(W.loop, &W.sigint);
    uv_signal_init(W.loop, &W.sigterm);
    uv_signal_start(&W.sigint, on_signal, SIGINT);
    uv_signal_start(&W.sigterm, on_signal, SIGTERM);
    log_msg(LOG_INFO, "worker %s: %ld search threads and %ld quick ones, jobs from redis %s:%d/%d", W.me, threads,
            quick, addr.host, addr.port, addr.db);
    uv_run(W.loop, UV_RUN_DEFAULT);
    log_msg(LOG_INFO, "worker %s: stopped (%llu jobs taken, %llu taken over, %llu finished)", W.me, W.taken,
            W.reclaimed, W.finished);
    return 0;
}
