/* Quotas: see quota.h. Clients live in a hash table; one with a full bucket and no analysis is
 * forgotten when the table grows past its bound, so the table stays bounded too. */
#include "quota.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/hash.h"
#include "../../engine/search/search.h"

#define QUOTA_BUCKETS 4096
#define QUOTA_CLIENTS_MAX 65536

typedef struct Client {
    char name[48];
    double tokens;
    int64_t refilled_ms;
    int jobs, infinite;
    double learn; /* games it may still teach the model: refills at --learn-per-hour */
    int64_t learn_ms;
    struct Client *next;
} Client;

static struct {
    const ServerConfig *cfg;
    Client *table[QUOTA_BUCKETS];
    int count;
} Q;

void quota_init(const ServerConfig *cfg) { Q.cfg = cfg; }

static unsigned bucket(const char *name) { return hash_text(name) % QUOTA_BUCKETS; }

static void refill(Client *c, int64_t now)
{
    double burst = (double)(Q.cfg->rate_burst > 0 ? Q.cfg->rate_burst : Q.cfg->rate);
    c->tokens = fmin(burst, c->tokens + (double)(now - c->refilled_ms) * (double)Q.cfg->rate / 1000.0);
    c->refilled_ms = now;
}

/* Forgets the clients that owe nothing (a full bucket, no analysis). */
static void sweep(int64_t now)
{
    double burst = (double)(Q.cfg->rate_burst > 0 ? Q.cfg->rate_burst : Q.cfg->rate);
    for (int i = 0; i < QUOTA_BUCKETS; i++)
        for (Client **at = &Q.table[i]; *at;) {
            Client *c = *at;
            refill(c, now);
            if (!c->jobs && c->tokens >= burst && c->learn >= (double)Q.cfg->learn_per_hour) {
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
    c->tokens = (double)(Q.cfg->rate_burst > 0 ? Q.cfg->rate_burst : Q.cfg->rate);
    c->refilled_ms = now;
    c->learn = (double)Q.cfg->learn_per_hour;
    c->learn_ms = now;
    c->next = Q.table[b];
    Q.table[b] = c;
    Q.count++;
    return c;
}

bool quota_take(const char *client, int *retry_after_s)
{
    *retry_after_s = 0;
    if (Q.cfg->rate <= 0)
        return true;
    Client *c = find(client, true);
    if (!c)
        return true;
    refill(c, time_now_ms());
    if (c->tokens >= 1) {
        c->tokens -= 1;
        return true;
    }
    *retry_after_s = (int)ceil((1 - c->tokens) / (double)Q.cfg->rate);
    if (*retry_after_s < 1)
        *retry_after_s = 1;
    return false;
}

bool quota_job_allowed(const char *client)
{
    if (Q.cfg->client_jobs_max <= 0)
        return true;
    Client *c = find(client, false);
    return !c || c->jobs < Q.cfg->client_jobs_max;
}

bool quota_infinite_allowed(const char *client)
{
    if (Q.cfg->client_infinite_max <= 0)
        return true;
    Client *c = find(client, false);
    return !c || c->infinite < Q.cfg->client_infinite_max;
}

void quota_job_started(const char *client, bool infinite)
{
    Client *c = client[0] ? find(client, true) : NULL;
    if (c) {
        c->jobs++;
        c->infinite += infinite;
    }
}

void quota_job_ended(const char *client, bool infinite)
{
    Client *c = client[0] ? find(client, false) : NULL;
    if (c && c->jobs > 0)
        c->jobs--;
    if (c && infinite && c->infinite > 0)
        c->infinite--;
}

bool quota_learn_take(const char *client)
{
    Client *c = find(client, true);
    if (!c)
        return false; /* out of memory: the model can wait */
    int64_t now = time_now_ms();
    double per_hour = (double)Q.cfg->learn_per_hour;
    c->learn = fmin(per_hour, c->learn + (double)(now - c->learn_ms) * per_hour / 3600000.0);
    c->learn_ms = now;
    if (c->learn < 1)
        return false;
    c->learn -= 1;
    return true;
}
