/* Per-client quotas, a client being its token (auth.h), else its address: a token bucket of requests (--rate per second,
 * --rate-burst at once; 429 rate_limited with Retry-After beyond) and a cap on the analyses one
 * client has queued or running (--client-jobs-max; 429 too_many_jobs), so no client can take every
 * worker and queue place from the others. Both are off at 0 (the default). Loop thread. */
#ifndef FEELFISH_QUOTA_H
#define FEELFISH_QUOTA_H

#include <stdbool.h>

#include "../base/config.h"

void quota_init(const ServerConfig *cfg);
/* Takes one request from the client's bucket; false with the seconds until the next one. */
bool quota_take(const char *client, int *retry_after_s);
/* Whether the client may start another analysis (--client-jobs-max), another infinite one
 * (--client-infinite-max); started/ended keep the counts. */
bool quota_job_allowed(const char *client);
bool quota_infinite_allowed(const char *client);
void quota_job_started(const char *client, bool infinite);
void quota_job_ended(const char *client, bool infinite);
/* Whether the client may teach the Bayesian model one more game now (--learn-per-hour); takes it. */
bool quota_learn_take(const char *client);

#endif
