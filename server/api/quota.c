/* Quotas: see quota.h. Clients live in a hash table; one with full buckets and no analysis is
 * forgotten when the table grows past its bound, so the table stays bounded too.
 *
 * In a cluster (serve --redis) a client's limits are the cluster's: every QUOTA_SYNC_MS, for each
 * client it has seen lately, each front runs one Lua script (SyncScript) that adds the requests the
 * client made on it since the last time to the client's GCRA "theoretical arrival time" and files this
 * front's count of the client's work (jobs, infinite analyses; expiring after 3 s, so a dead front's
 * counts go), and returns the debt (what every front let the client do) and the other fronts' work.
 * The local bucket is set from the debt; --client-jobs-max and --client-infinite-max count the other
 * fronts' work too. Between two syncs a front decides alone, so a client may pass a limit by its
 * burst (or one job) on each front at most once per sync; while Redis is away each front limits
 * alone. */
#include "quota.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/hash.h"
#include "../base/log.h"
#include "../domain/shared.h"
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
    int unsynced;    /* requests taken here since the cluster last heard of them */
    bool reported;   /* the cluster holds a count of its work here (to be cleared when it has none) */
    int remote_jobs, remote_infinite; /* its work on the other fronts, as last synced */
    int64_t seen_ms;                  /* when this front last looked it up */
    unsigned long long served, limited; /* requests let through and refused (429) here */
    struct Client *next;
} Client;

#define QUOTA_SYNC_MS 100
#define QUOTA_SYNC_MAX 256 /* clients sent a sync (the busiest wait for the next) */
#define QUOTA_SEEN_MS 10000 /* a client looked up this lately is synced even with nothing to report */

/* KEYS[1] the client's rate key, KEYS[2] its work hash (a front's name to "JOBS INFINITE EXPIRY_US");
 * ARGV: requests, microseconds a request (0: no rate), this front, its jobs, its infinite analyses.
 * Advances the theoretical arrival time by the requests (from now at the latest), files this front's
 * work, drops expired fronts', and returns {debt in microseconds, the other fronts' jobs, their
 * infinite analyses}. */
static const char SyncScript[] =
    "local t = redis.call('TIME') "
    "local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) "
    "local debt = 0 "
    "if tonumber(ARGV[2]) > 0 then "
    "  local tat = tonumber(redis.call('GET', KEYS[1]) or '0') "
    "  if tat < now then tat = now end "
    "  tat = tat + tonumber(ARGV[1]) * tonumber(ARGV[2]) "
    "  redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.floor((tat - now) / 1000) + 1000) "
    "  debt = math.floor(tat - now) "
    "end "
    "if tonumber(ARGV[4]) > 0 or tonumber(ARGV[5]) > 0 then "
    "  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4] .. ' ' .. ARGV[5] .. ' ' .. string.format('%.0f', now + 3000000)) "
    "else redis.call('HDEL', KEYS[2], ARGV[3]) end "
    "local jobs, inf = 0, 0 "
    "local all = redis.call('HGETALL', KEYS[2]) "
    "for i = 1, #all, 2 do "
    "  if all[i] ~= ARGV[3] then "
    "    local j, f, e = string.match(all[i + 1], '(%d+) (%d+) (%d+)') "
    "    if not e or tonumber(e) < now then redis.call('HDEL', KEYS[2], all[i]) "
    "    else jobs = jobs + tonumber(j) inf = inf + tonumber(f) end "
    "  end "
    "end "
    "if #all > 0 then redis.call('PEXPIRE', KEYS[2], 5000) end "
    "return {debt, jobs, inf}";

static struct {
    const ServerConfig *cfg;
    Client *table[QUOTA_BUCKETS];
    int count;
    uv_timer_t sync;
    bool syncing;
    unsigned long long synced; /* replies applied */
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
            if (!c->held && !c->unsynced && !c->reported && c->requests.tokens >= request_cap() && c->learn.tokens >= learn_cap() &&
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
    int64_t now = time_now_ms();
    for (Client *c = Q.table[b]; c; c = c->next)
        if (!strcmp(c->name, name)) {
            c->seen_ms = now;
            return c;
        }
    if (!create)
        return NULL;
    if (Q.count >= QUOTA_CLIENTS_MAX)
        sweep(now);
    Client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL; /* out of memory: not limited rather than refused */
    snprintf(c->name, sizeof c->name, "%s", name);
    c->requests = (Bucket){request_cap(), now};
    c->learn = (Bucket){learn_cap(), now};
    c->failures = (Bucket){FAILURES_CAP, now};
    c->seen_ms = now;
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
    if (Q.cfg->rate <= 0) {
        if (Q.syncing && (Q.cfg->client_jobs_max > 0 || Q.cfg->client_infinite_max > 0))
            find(client, true); /* known here, so the cluster's count of its work is fetched before it asks */
        return true;
    }
    Client *c = find(client, true);
    if (!c)
        return true;
    double wait_ms;
    if (take(&c->requests, request_cap(), request_rate(), time_now_ms(), &wait_ms)) {
        if (Q.syncing)
            c->unsynced++;
        c->served++;
        return true;
    }
    c->limited++;
    *retry_after_s = retry_seconds(wait_ms);
    return false;
}

/* The TOP busiest (served + limited) first. */
void quota_metrics(FILE *f)
{
    enum { TOP = 10 };
    const Client *top[TOP] = {0};
    if (Q.cfg->rate <= 0)
        return;
    for (int i = 0; i < QUOTA_BUCKETS; i++)
        for (const Client *c = Q.table[i]; c; c = c->next) {
            int at = TOP;
            while (at > 0 && (!top[at - 1] || top[at - 1]->served + top[at - 1]->limited < c->served + c->limited))
                at--;
            if (at < TOP) {
                memmove(top + at + 1, top + at, (TOP - 1 - (size_t)at) * sizeof *top);
                top[at] = c;
            }
        }
    fprintf(f, "# HELP feelfish_client_requests_total requests of the busiest clients (at most %d; a client is its "
               "token or address) under --rate, by outcome\n# TYPE feelfish_client_requests_total counter\n",
            TOP);
    for (int i = 0; i < TOP && top[i]; i++) {
        char name[sizeof top[i]->name * 2];
        size_t n = 0;
        for (const char *ch = top[i]->name; *ch && n + 2 < sizeof name; ch++) { /* a label value: \ and " escaped */
            if (*ch == '\\' || *ch == '"')
                name[n++] = '\\';
            name[n++] = *ch;
        }
        name[n] = 0;
        fprintf(f, "feelfish_client_requests_total{client=\"%s\",outcome=\"served\"} %llu\n", name, top[i]->served);
        fprintf(f, "feelfish_client_requests_total{client=\"%s\",outcome=\"limited\"} %llu\n", name, top[i]->limited);
    }
}

/* The cluster's figures for a client: its local bucket is what the cluster leaves it, less what it
 * took here since this sync was sent; the other fronts' work counts against its caps. */
static void on_synced(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    char *name = priv;
    const redisReply *r = reply;
    Client *c = Q.syncing && r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 ? find(name, false) : NULL;
    free(name);
    if (!c)
        return;
    if (Q.cfg->rate > 0) {
        double debt = (double)r->element[0]->integer / 1000.0 * request_rate(); /* in requests */
        /* Below zero when the fronts together let it pass its rate: it waits that back off first. */
        c->requests.tokens = fmin(request_cap(), request_cap() - debt) - c->unsynced;
        c->requests.at = time_now_ms();
    }
    c->remote_jobs = (int)r->element[1]->integer;
    c->remote_infinite = (int)r->element[2]->integer;
    Q.synced++;
}

static void sync_clients(uv_timer_t *t)
{
    (void)t;
    if (!shared_up())
        return;
    char per_request[32], rate_key[80], work_key[80];
    snprintf(per_request, sizeof per_request, "%.0f", Q.cfg->rate > 0 ? 1e6 / (double)Q.cfg->rate : 0.0);
    int sent = 0;
    int64_t now = time_now_ms();
    for (int i = 0; i < QUOTA_BUCKETS && sent < QUOTA_SYNC_MAX; i++)
        for (Client *c = Q.table[i]; c && sent < QUOTA_SYNC_MAX; c = c->next) {
            int infinite = 0, jobs = jobs_client_count(c->name, &infinite) + c->held;
            bool work = jobs > 0 || infinite > 0;
            if (!c->unsynced && !work && !c->reported && !c->remote_jobs && !c->remote_infinite &&
                now - c->seen_ms > QUOTA_SEEN_MS)
                continue;
            char *name = strdup(c->name), count[16], njobs[16], ninfinite[16];
            snprintf(rate_key, sizeof rate_key, "feelfish:rate:%s", c->name);
            snprintf(work_key, sizeof work_key, "feelfish:work:%s", c->name);
            snprintf(count, sizeof count, "%d", c->unsynced);
            snprintf(njobs, sizeof njobs, "%d", jobs);
            snprintf(ninfinite, sizeof ninfinite, "%d", infinite);
            if (name && redis_link_command(shared_link(), on_synced, name, "EVAL %s 2 %s %s %s %s %s %s %s", SyncScript,
                                           rate_key, work_key, count, per_request, shared_name(), njobs, ninfinite)) {
                c->unsynced = 0;
                c->reported = work;
                sent++;
            } else {
                free(name);
                return; /* Redis away: the counts wait for it */
            }
        }
}

void quota_share(uv_loop_t *loop)
{
    if (!shared_on() || Q.syncing)
        return;
    uv_timer_init(loop, &Q.sync);
    uv_timer_start(&Q.sync, sync_clients, QUOTA_SYNC_MS, QUOTA_SYNC_MS);
    Q.syncing = true;
}

void quota_stop(void)
{
    if (!Q.syncing)
        return;
    uv_timer_stop(&Q.sync);
    uv_close((uv_handle_t *)&Q.sync, NULL);
    Q.syncing = false; /* replies still in flight are dropped */
}

unsigned long long quota_synced(void) { return Q.synced; }

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
    Client *c = find(client, Q.syncing); /* in a cluster, remembered so that it is synced */
    return jobs_client_count(client, NULL) + (c ? c->held + c->remote_jobs : 0) < Q.cfg->client_jobs_max;
}

bool quota_job_room(ApiError *e, const char *client)
{
    if (quota_job_allowed(client))
        return true;
    api_error_set(e, 429, "too_many_jobs", NULL,
                  "%.48s already has the most work queued or running a client may (searches, the engine's moves, "
                  "labs, game analyses); wait for some to end",
                  client);
    return false;
}

bool quota_infinite_allowed(const char *client)
{
    if (Q.cfg->client_infinite_max <= 0)
        return true;
    int infinite;
    jobs_client_count(client, &infinite);
    const Client *c = find(client, Q.syncing);
    return infinite + (c ? c->remote_infinite : 0) < Q.cfg->client_infinite_max;
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
