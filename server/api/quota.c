/* Quotas: see quota.h. Clients live in a hash table; one with full buckets and no analysis is
 * forgotten when the table grows past its bound, so the table stays bounded too. */
#include "quota.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/hash.h"
#include "../jobs/jobs.h"
#include "../../engine/search/search.h"

#define QUOTA_BUCKETS 4096
#define QUOTA_CLIENTS_MAX 65536

/* A token bucket: what is left, and when it was last refilled. */
typedef struct {
    double tokens;
    int64_t at;
} Bucket;

typedef struct Client {
    char name[48];
    Bucket requests; /* --rate a second, --rate-burst at once */
    Bucket learn;    /* games it may still teach the model: --learn-per-hour */
    Bucket failures; /* tokens it may still get wrong: QUOTA_AUTH_FAILURES, one more a second */
    int held;        /* work that is not a search job (quota_hold) */
    struct Client *next;
} Client;

static struct {
    const ServerConfig *cfg;
    Client *table[QUOTA_BUCKETS];
    int count;
} Q;

void quota_init(const ServerConfig *cfg) { Q.cfg = cfg; }

static unsigned bucket(const char *name) { return hash_text(name) % QUOTA_BUCKETS; }

/* Each bucket's size and how fast it fills (tokens a millisecond). */
static double request_cap(void) { return (double)(Q.cfg->rate_burst > 0 ? Q.cfg->rate_burst : Q.cfg->rate); }
static double request_rate(void) { return (double)Q.cfg->rate / 1000.0; }
static double learn_cap(void) { return (double)Q.cfg->learn_per_hour; }
static double learn_rate(void) { return (double)Q.cfg->learn_per_hour / 3600000.0; }
#define FAILURES_CAP ((double)QUOTA_AUTH_FAILURES)
#define FAILURES_RATE (1.0 / 1000.0)

static void refill(Bucket *b, double cap, double per_ms, int64_t now)
{
    b->tokens = fmin(cap, b->tokens + (double)(now - b->at) * per_ms);
    b->at = now;
}

/* Takes one token if there is one; false with the milliseconds until there is. */
static bool take(Bucket *b, double cap, double per_ms, int64_t now, double *wait_ms)
{
    refill(b, cap, per_ms, now);
    if (b->tokens >= 1) {
        b->tokens -= 1;
        return true;
    }
    *wait_ms = per_ms > 0 ? (1 - b->tokens) / per_ms : 0;
    return false;
}

/* Forgets the clients that owe nothing (full buckets, no analysis). */
static void sweep(int64_t now)
{
    for (int i = 0; i < QUOTA_BUCKETS; i++)
        for (Client **at = &Q.table[i]; *at;) {
            Client *c = *at;
            refill(&c->requests, request_cap(), request_rate(), now);
            refill(&c->learn, learn_cap(), learn_rate(), now);
            refill(&c->failures, FAILURES_CAP, FAILURES_RATE, now);
            if (!c->held && c->requests.tokens >= request_cap() && c->learn.tokens >= learn_cap() &&
                c->failures.tokens >= FAILURES_CAP) {
                *at = c->next;
                free(c);
                Q.count--;
            } else
                at = &c->next;
        }
}

static Client *find(const char *name, bool create)
{
    unsigned b = bucket(name);
    for (Client *c = Q.table[b]; c; c = c->next)
        if (!strcmp(c->name, name))
            return c;
    if (!create)
        return NULL;
    int64_t now = time_now_ms();
    if (Q.count >= QUOTA_CLIENTS_MAX)
        sweep(now);
    Client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL; /* out of memory: not limited rather than refused */
    snprintf(c->name, sizeof c->name, "%s", name);
    c->requests = (Bucket){request_cap(), now};
    c->learn = (Bucket){learn_cap(), now};
    c->failures = (Bucket){FAILURES_CAP, now};
    c->next = Q.table[b];
    Q.table[b] = c;
    Q.count++;
    return c;
}

static int retry_seconds(double wait_ms)
{
    int s = (int)ceil(wait_ms / 1000.0);
    return s < 1 ? 1 : s;
}

bool quota_take(const char *client, int *retry_after_s)
{
    *retry_after_s = 0;
    if (Q.cfg->rate <= 0)
        return true;
    Client *c = find(client, true);
    if (!c)
        return true;
    double wait_ms;
    if (take(&c->requests, request_cap(), request_rate(), time_now_ms(), &wait_ms))
        return true;
    *retry_after_s = retry_seconds(wait_ms);
    return false;
}

bool quota_auth_failed(const char *address, int *retry_after_s)
{
    *retry_after_s = 0;
    Client *c = find(address, true);
    if (!c)
        return true;
    int64_t now = time_now_ms();
    double wait_ms = 0, fail_wait_ms = 0;
    bool request_ok = Q.cfg->rate <= 0 || take(&c->requests, request_cap(), request_rate(), now, &wait_ms);
    bool failure_ok = take(&c->failures, FAILURES_CAP, FAILURES_RATE, now, &fail_wait_ms);
    if (request_ok && failure_ok)
        return true;
    *retry_after_s = retry_seconds(fmax(request_ok ? 0 : wait_ms, failure_ok ? 0 : fail_wait_ms));
    return false;
}

bool quota_job_allowed(const char *client)
{
    if (Q.cfg->client_jobs_max <= 0)
        return true;
    Client *c = find(client, false);
    return jobs_client_count(client, NULL) + (c ? c->held : 0) < Q.cfg->client_jobs_max;
}

bool quota_infinite_allowed(const char *client)
{
    if (Q.cfg->client_infinite_max <= 0)
        return true;
    int infinite;
    jobs_client_count(client, &infinite);
    return infinite < Q.cfg->client_infinite_max;
}

void quota_hold(const char *client, int delta)
{
    Client *c = find(client, delta > 0);
    if (c)
        c->held = c->held + delta < 0 ? 0 : c->held + delta;
}

bool quota_learn_take(const char *client)
{
    Client *c = find(client, true);
    if (!c)
        return false; /* out of memory: the model can wait */
    double ignored;
    return take(&c->learn, learn_cap(), learn_rate(), time_now_ms(), &ignored);
}
