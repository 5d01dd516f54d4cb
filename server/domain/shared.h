/* What the fronts of a cluster share over Redis (serve --redis): the connection for shared state,
 * this node's heartbeat, and the cluster's job stream as the metrics show it. Off (no --redis),
 * shared_on() is false and nothing here is used. Loop thread only.
 *
 * Keys (every node reads and writes them; `feelfish cluster status` lists them):
 *   feelfish:node:NAME   a live node's line ("front ..." or "worker ..."), set every second with a
 *                        3-second expiry: a missing key is a dead (or cut-off) node
 *   feelfish:stats       counters the nodes add to (reclaimed: jobs taken over from a dead worker)
 * and those of the shared state (api/persist.c: jobs, games, the evaluation cache; models.c: the
 * Bayesian counts). */
#ifndef FEELFISH_DOMAIN_SHARED_H
#define FEELFISH_DOMAIN_SHARED_H

#include <stdbool.h>
#include <stdio.h>

#include "../base/error.h"
#include "../net/redis.h"

#define SHARED_NODE "feelfish:node:"
#define SHARED_STATS "feelfish:stats"
#define SHARED_NODE_TTL_MS 3000

/* Connects (and keeps connecting) to Redis as node `name` (a front or a worker); the node has no
 * heartbeat line until shared_describe. */
bool shared_start(uv_loop_t *loop, const RedisAddress *a, const char *name);
/* `describe` writes the node's heartbeat line from now on ("front NAME http PORT ...", "worker NAME
 * threads N ..."), renewed every second and written at once if Redis is up. */
void shared_describe(void (*describe)(char *line, size_t size));
void shared_stop(void);
bool shared_on(void);
/* In a cluster and connected to its Redis just now. */
bool shared_up(void);
/* A front's every link to Redis is up: the shared one and the job queue's (commands and replies),
 * so a job sent now is taken. What /api/health calls redisConnected. */
bool shared_ready(void);
/* The link for shared state (NULL when off); commands fail at once while it is down. */
RedisLink *shared_link(void);
/* Calls fn every second while connected (after the heartbeat); at most 4. */
void shared_every_second(void (*fn)(void));
/* A search refused a place in the queue, as an answer (503): Redis out of reach (a cluster's
 * workers are behind it: cluster_unavailable), else every worker busy (queue_full). `retry` ends
 * the message ("retry the move shortly"). */
void shared_queue_refused(ApiError *e, const char *retry);
/* This node's name, "" when off. */
const char *shared_name(void);

/* The job stream as last read (every second): entries not yet delivered to a worker (lag),
 * delivered but not acknowledged (pending), each consumer's pending count, and the jobs taken over
 * from dead workers since the cluster began. `known` is false until a first read succeeded. */
#define SHARED_CONSUMERS_MAX 32
typedef struct {
    bool known;
    long long length, lag, pending, reclaimed;
    int consumers;
    struct {
        char name[48];
        long long pending, idle_ms;
    } consumer[SHARED_CONSUMERS_MAX];
} SharedStream;
const SharedStream *shared_stream(void);
/* The cluster's part of /metrics (Prometheus text): the stream's backlog, pending entries per
 * consumer, reclaimed jobs, whether Redis is reachable. */
void shared_metrics(FILE *f);

#endif
