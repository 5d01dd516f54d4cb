/* The cluster's jobs over Redis: the names both sides use, the front's backend, and what a worker
 * process needs. A front (feelfish serve --redis) adds each job to the stream CLUSTER_STREAM; the
 * workers (feelfish worker) read it in the consumer group CLUSTER_GROUP (XREADGROUP), run it on their
 * local pool and publish its events to the channel of the front that holds its clients
 * (CLUSTER_EVENTS + front id); a final result is written to CLUSTER_RESULT + id as it is published, in one script
 * that also keeps the event itself as CLUSTER_FINAL + id when no one heard it (for its front to read back), then the
 * entry is acknowledged (XACK) and deleted (XDEL: the stream holds only what waits or runs). A worker keeps the entries
 * it runs fresh (XCLAIM ... JUSTID, resetting their idle time); an entry idle longer than the reclaim time belongs to a
 * worker that died, and another takes it over (XAUTOCLAIM) and runs the job again. A cancel is published on
 * CLUSTER_CANCEL and remembered as CLUSTER_CANCELLED + id for a worker that takes the job later. An entry is added once
 * per job id (CLUSTER_SUBMITTED + id marks it for an hour), so a front that lost Redis's answer sends it again safely.
 *
 * The quick lane: a front adds a quick job (job_is_quick) of a client with nothing else unfinished on it to
 * CLUSTER_QUICK_STREAM instead (same group, same entry shape). A worker's regular slots read both streams, the quick
 * one first; its quick slots (`feelfish worker --quick-threads`, run above the regular ones' priority as in `serve`)
 * read the quick stream only, and only while every regular slot is busy: a short analysis then shares a core with the
 * long searches instead of waiting behind them in the stream.
 */
#ifndef FEELFISH_JOBS_CLUSTER_H
#define FEELFISH_JOBS_CLUSTER_H

#include "../net/redis.h"
#include "backend.h"

#define CLUSTER_STREAM "feelfish:jobs"
#define CLUSTER_QUICK_STREAM "feelfish:jobs:quick"
#define CLUSTER_GROUP "feelfish:workers"
#define CLUSTER_EVENTS "feelfish:events:"
#define CLUSTER_CANCEL "feelfish:cancel"
#define CLUSTER_CANCELLED "feelfish:cancelled:"
#define CLUSTER_RESULT "feelfish:result:"
#define CLUSTER_FINAL "feelfish:final:" /* a final event no one heard, for its front to read back */
#define CLUSTER_FINAL_KEEP_S 600
#define CLUSTER_SUBMITTED "feelfish:submitted:" /* a front added this job id's entry (an hour) */
#define CLUSTER_KEEP_S 86400                    /* how long results and cancel marks stay in Redis */

/* The front's backend: jobs go to Redis instead of a local pool. */
const JobsBackend *jobs_cluster_start(uv_loop_t *loop, const JobsSettings *settings, const RedisAddress *redis);

/* This front's name (its channel's suffix), "" before jobs_cluster_start. */
const char *cluster_front(void);
/* Both of the front's job links are connected and its events' subscription confirmed (false outside
 * a cluster). */
bool cluster_up(void);

/* Cancels job `id` wherever it runs or waits (a front may cancel another front's job, whose events
 * still go to that front). False when Redis cannot be reached just now. */
bool cluster_cancel(const char *id);

/* Creates the streams and their group if they are missing (both sides call it when connected). */
void cluster_create_group(RedisLink *link);

#endif
