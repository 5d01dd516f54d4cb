/* The cluster's shared connection, heartbeat and stream readings (shared.h). */
#include "shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../jobs/cluster.h"

static struct {
    RedisLink *link;
    char name[96];
    void (*describe)(char *line, size_t size);
    uv_timer_t tick;
    bool ticking;
    SharedStream stream, reading; /* the last complete reading; the one being gathered */
    void (*every_second[4])(void);
} S;

bool shared_on(void) { return S.link != NULL; }
bool shared_up(void) { return S.link && redis_link_ready(S.link); }
bool shared_ready(void) { return shared_up() && cluster_up(); }
RedisLink *shared_link(void) { return S.link; }
const char *shared_name(void) { return S.name; }
const SharedStream *shared_stream(void) { return &S.stream; }

void shared_queue_refused(ApiError *e, const char *retry)
{
    if (shared_on() && !shared_ready())
        api_error_set(e, 503, "cluster_unavailable", NULL,
                      "this front cannot reach the cluster's Redis just now (its workers are behind it); %s", retry);
    else
        api_error_set(e, 503, "queue_full", NULL, "every worker is busy and the queue is full; %s", retry);
}

/* The four replies of a reading come in order on one connection: groups, consumers, length,
 * counters; the last one completes it. */
static void on_groups(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac, (void)priv;
    const redisReply *reply = r;
    memset(&S.reading, 0, sizeof S.reading);
    if (!reply || reply->type != REDIS_REPLY_ARRAY)
        return;
    for (size_t i = 0; i < reply->elements; i++) {
        const redisReply *g = reply->element[i], *name = redis_field(g, "name");
        if (name && name->type == REDIS_REPLY_STRING && !strcmp(name->str, CLUSTER_GROUP)) {
            S.reading.pending = redis_number(redis_field(g, "pending"));
            S.reading.lag = redis_number(redis_field(g, "lag"));
        }
    }
}

static void on_consumers(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac, (void)priv;
    const redisReply *reply = r;
    if (!reply || reply->type != REDIS_REPLY_ARRAY)
        return;
    for (size_t i = 0; i < reply->elements && S.reading.consumers < SHARED_CONSUMERS_MAX; i++) {
        const redisReply *c = reply->element[i], *name = redis_field(c, "name");
        if (!name || name->type != REDIS_REPLY_STRING)
            continue;
        int k = S.reading.consumers++;
        snprintf(S.reading.consumer[k].name, sizeof S.reading.consumer[k].name, "%s", name->str);
        S.reading.consumer[k].pending = redis_number(redis_field(c, "pending"));
        S.reading.consumer[k].idle_ms = redis_number(redis_field(c, "idle"));
    }
}

static void on_length(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac, (void)priv;
    S.reading.length = redis_number(r);
}

static void on_counters(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac, (void)priv;
    if (!r)
        return;
    S.reading.reclaimed = redis_number(r);
    S.reading.known = true;
    S.stream = S.reading;
}

/* The node's line, which expires unless renewed (none before the node has said what it is). */
static void beat(void)
{
    if (!S.describe || !redis_link_ready(S.link))
        return;
    char line[256];
    S.describe(line, sizeof line);
    redis_link_command(S.link, NULL, NULL, "SET %s%s %s PX %d", SHARED_NODE, S.name, line, SHARED_NODE_TTL_MS);
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
    beat();
    if (redis_link_ready(S.link)) {
        redis_link_command(S.link, on_groups, NULL, "XINFO GROUPS %s", CLUSTER_STREAM);
        redis_link_command(S.link, on_consumers, NULL, "XINFO CONSUMERS %s %s", CLUSTER_STREAM, CLUSTER_GROUP);
        redis_link_command(S.link, on_length, NULL, "XLEN %s", CLUSTER_STREAM);
        redis_link_command(S.link, on_counters, NULL, "HGET %s reclaimed", SHARED_STATS);
    } else
        S.stream.known = false; /* no stale figures in /metrics while Redis is away */
    for (int i = 0; i < 4 && S.every_second[i]; i++)
        S.every_second[i]();
}

void shared_every_second(void (*fn)(void))
{
    for (int i = 0; i < 4; i++)
        if (!S.every_second[i]) {
            S.every_second[i] = fn;
            return;
        }
}

static void on_ready(RedisLink *link, void *user)
{
    (void)link, (void)user;
    on_tick(&S.tick); /* a heartbeat at once: the node is back */
}

void shared_describe(void (*describe)(char *line, size_t size))
{
    S.describe = describe;
    beat();
}

bool shared_start(uv_loop_t *loop, const RedisAddress *a, const char *name)
{
    memset(&S, 0, sizeof S);
    snprintf(S.name, sizeof S.name, "%s", name);
    S.link = redis_link_new(loop, a, "shared", on_ready, NULL);
    if (!S.link)
        return false;
    uv_timer_init(loop, &S.tick);
    uv_timer_start(&S.tick, on_tick, 1000, 1000);
    S.ticking = true;
    return true;
}

void shared_stop(void)
{
    if (S.ticking) {
        uv_timer_stop(&S.tick);
        uv_close((uv_handle_t *)&S.tick, NULL);
        S.ticking = false;
    }
    if (S.link) {
        if (redis_link_ready(S.link)) /* gone at once, rather than in 3 seconds */
            redis_link_command(S.link, NULL, NULL, "DEL %s%s", SHARED_NODE, S.name);
        redis_link_free(S.link);
    }
    S.link = NULL;
}

void shared_metrics(FILE *f)
{
    const SharedStream *st = &S.stream;
    fprintf(f,
            "# HELP feelfish_cluster_redis_up whether this node's shared-state link to Redis is up\n"
            "# TYPE feelfish_cluster_redis_up gauge\nfeelfish_cluster_redis_up %d\n",
            redis_link_ready(S.link) ? 1 : 0);
    if (!st->known)
        return;
    fprintf(f,
            "# HELP feelfish_cluster_stream_length jobs in the stream (" CLUSTER_STREAM "): waiting or running\n"
            "# TYPE feelfish_cluster_stream_length gauge\nfeelfish_cluster_stream_length %lld\n"
            "# HELP feelfish_cluster_stream_backlog jobs no worker has taken yet (the group's lag)\n"
            "# TYPE feelfish_cluster_stream_backlog gauge\nfeelfish_cluster_stream_backlog %lld\n"
            "# HELP feelfish_cluster_stream_pending jobs taken by a worker and not yet acknowledged\n"
            "# TYPE feelfish_cluster_stream_pending gauge\nfeelfish_cluster_stream_pending %lld\n"
            "# HELP feelfish_cluster_reclaimed_total jobs taken over from a worker that stopped answering\n"
            "# TYPE feelfish_cluster_reclaimed_total counter\nfeelfish_cluster_reclaimed_total %lld\n",
            st->length, st->lag, st->pending, st->reclaimed);
    fprintf(f, "# HELP feelfish_cluster_consumer_pending jobs each worker (consumer) holds unacknowledged\n"
               "# TYPE feelfish_cluster_consumer_pending gauge\n");
    for (int i = 0; i < st->consumers; i++)
        fprintf(f, "feelfish_cluster_consumer_pending{consumer=\"%s\"} %lld\n", st->consumer[i].name,
                st->consumer[i].pending);
    fprintf(f, "# HELP feelfish_cluster_consumer_idle_ms since each worker (consumer) last read or claimed\n"
               "# TYPE feelfish_cluster_consumer_idle_ms gauge\n");
    for (int i = 0; i < st->consumers; i++)
        fprintf(f, "feelfish_cluster_consumer_idle_ms{consumer=\"%s\"} %lld\n", st->consumer[i].name,
                st->consumer[i].idle_ms);
}
