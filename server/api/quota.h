/* Per-client quotas, a client being its token (auth.h), else its address: a token bucket of
 * requests (--rate per second, --rate-burst at once; 429 rate_limited with Retry-After beyond) and a
 * cap on the work one client has queued or running (--client-jobs-max; 429 too_many_jobs): every
 * search job of its, whatever started it (the job table counts them: jobs_client_count), and its
 * labs; so no client can take every worker and queue place from the others. Both are off at 0 (the
 * default). Loop thread. */
#ifndef FEELFISH_QUOTA_H
#define FEELFISH_QUOTA_H

#include <stdbool.h>
#include <stdio.h>

#include <uv.h>

#include "../base/config.h"
#include "../base/error.h"

void quota_init(const ServerConfig *cfg);
/* In a cluster: share the request rate through Redis from now on (see quota.c); quota_stop ends it. */
void quota_share(uv_loop_t *loop);
void quota_stop(void);
/* The busiest clients' requests under --rate, served and limited (Prometheus text, for /metrics;
 * nothing when --rate is off). */
void quota_metrics(FILE *f);
/* Cluster syncs applied (for tests and metrics). */
unsigned long long quota_synced(void);
/* Takes one request from the client's bucket; false with the seconds until the next one. */
bool quota_take(const char *client, int *retry_after_s);
/* Whether the client may start more work (--client-jobs-max), another infinite analysis
 * (--client-infinite-max). */
bool quota_job_allowed(const char *client);
bool quota_infinite_allowed(const char *client);
/* quota_job_allowed, or false with e set to its refusal (429 too_many_jobs: every route's one). */
bool quota_job_room(ApiError *e, const char *client);
/* Work of the client's that is not a search job begins (+1) or ends (-1) holding one of its job
 * places: a lab running or waiting its turn, a game analysis under way with no position searched. */
void quota_hold(const char *client, int delta);
/* A request from `address` showed a token that is not valid: it takes one from the address's
 * request bucket (--rate) and from its bucket of failed attempts, which is always on
 * (QUOTA_AUTH_FAILURES at once, one more a second), so tokens cannot be tried at full speed. False
 * (answer 429, not 401) with the seconds to wait when either is empty. */
#define QUOTA_AUTH_FAILURES 20
bool quota_auth_failed(const char *address, int *retry_after_s);
/* Whether the client may teach the Bayesian model one more game now (--learn-per-hour); takes it. */
bool quota_learn_take(const char *client);

#endif
