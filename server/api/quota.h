/* Per-client quotas, a client being its address: a token bucket of requests (--rate per second,
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
/* Whether the client may start another analysis; started/ended keep the count. */
bool quota_job_allowed(const char *client);
void quota_job_started(const char *client);
void quota_job_ended(const char *client);

#endif
