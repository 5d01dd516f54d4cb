/* Authentication: see auth.h. The tokens in force are an array sorted by hash, replaced as a whole
 * when a re-read (on libuv's thread pool) finishes; a request looks its token's hash up in it. In a
 * cluster (serve --redis) a second array, the cluster's tokens, is read from Redis every second too. */
#include "auth.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/log.h"
#include "../bot/status.h"
#include "../domain/shared.h"
#include "../store/store.h"
#include "../store/tokens.h"

#define RELOAD_MS 500 /* a new or revoked token is in force everywhere within a second */

static struct {
    AuthMode mode;
    Token *tokens; /* sorted by hash */
    int count;
    Token *cluster; /* the cluster's (serve --redis: TOKENS_REDIS_KEY), sorted by hash; kept while Redis is away */
    int cluster_count;
    bool cluster_reading;
    uv_timer_t timer;
    bool running, reading;
} A;

bool auth_parse_mode(const ServerConfig *cfg, AuthMode *mode)
{
    const char *m = cfg->auth;
    if (!strcmp(m, "auto")) {
        *mode = config_bind_is_loopback(cfg->bind) ? AUTH_OFF : AUTH_OPTIONAL;
    } else if (!strcmp(m, "off"))
        *mode = AUTH_OFF;
    else if (!strcmp(m, "optional"))
        *mode = AUTH_OPTIONAL;
    else if (!strcmp(m, "required"))
        *mode = AUTH_REQUIRED;
    else
        return false;
    return true;
}

AuthMode auth_mode(void) { return A.mode; }

const char *auth_mode_name(void)
{
    static const char *const Names[] = {"off", "optional", "required"};
    return Names[A.mode];
}

static int by_hash(const void *a, const void *b) { return strcmp(((const Token *)a)->hash, ((const Token *)b)->hash); }

typedef struct {
    Token *tokens;
    int count;
    char err[256];
} Reading;

static void read_tokens(sqlite3 *db, void *arg)
{
    Reading *r = arg;
    r->count = tokens_list(db, &r->tokens, r->err, sizeof r->err);
    if (r->count > 0)
        qsort(r->tokens, (size_t)r->count, sizeof *r->tokens, by_hash);
}

static void install(void *arg)
{
    Reading *r = arg;
    A.reading = false;
    if (r->count < 0) { /* keep the tokens in force; say so once per failure streak */
        log_msg(LOG_WARN, "auth: cannot read the tokens: %s", r->err);
        free(r);
        return;
    }
    if (r->count != A.count)
        log_msg(LOG_INFO, "auth: %d tokens in force", r->count);
    free(A.tokens);
    A.tokens = r->tokens;
    A.count = r->count;
    free(r);
}

/* The cluster's tokens as Redis holds them now (an HGETALL's reply): they replace the previous list;
 * no reply (Redis away) keeps it. */
static void install_cluster(const redisReply *r)
{
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return;
    Token *list = r->elements ? calloc(r->elements / 2 + 1, sizeof *list) : NULL;
    int n = 0;
    for (size_t i = 0; list && i + 1 < r->elements; i += 2)
        if (r->element[i]->type == REDIS_REPLY_STRING && r->element[i + 1]->type == REDIS_REPLY_STRING &&
            token_decode(r->element[i]->str, r->element[i + 1]->str, &list[n]))
            n++;
    if (n > 1)
        qsort(list, (size_t)n, sizeof *list, by_hash);
    if (n != A.cluster_count)
        log_msg(LOG_INFO, "auth: %d cluster tokens in force", n);
    free(A.cluster);
    A.cluster = list;
    A.cluster_count = n;
}

static void on_cluster_tokens(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac, (void)priv;
    A.cluster_reading = false;
    if (A.running)
        install_cluster(reply);
}

static void reload(uv_timer_t *t)
{
    (void)t;
    if (shared_on() && !A.cluster_reading &&
        redis_link_command(shared_link(), on_cluster_tokens, NULL, "HGETALL %s", TOKENS_REDIS_KEY))
        A.cluster_reading = true;
    if (A.reading)
        return;
    Reading *r = calloc(1, sizeof *r);
    if (r && store_read(read_tokens, install, r))
        A.reading = true;
    else
        free(r);
}

/* At start, so that the first requests already know the cluster's tokens. */
static void read_cluster_tokens_now(const ServerConfig *cfg)
{
    RedisAddress a;
    char err[300];
    redisContext *c = redis_url_parse(cfg->redis, &a, err, sizeof err) ? redis_connect_sync(&a, err, sizeof err) : NULL;
    redisReply *r = c ? redisCommand(c, "HGETALL %s", TOKENS_REDIS_KEY) : NULL;
    if (r)
        install_cluster(r);
    else
        log_msg(LOG_WARN, "auth: cannot read the cluster's tokens yet (%s): they come once Redis answers",
                c ? c->errstr : err);
    freeReplyObject(r);
    redisFree(c);
}

void auth_start(const ServerConfig *cfg, uv_loop_t *loop)
{
    if (!auth_parse_mode(cfg, &A.mode))
        A.mode = AUTH_REQUIRED; /* serve refuses an unknown mode before this; never fail open */
    if (A.mode == AUTH_OFF)
        return;
    Reading *r = calloc(1, sizeof *r);
    if (r) {
        store_read_now(read_tokens, r);
        install(r);
    }
    if (shared_on()) /* the cluster's tokens before the first request: read them now, blocking */
        read_cluster_tokens_now(cfg);
    uv_timer_init(loop, &A.timer);
    uv_timer_start(&A.timer, reload, RELOAD_MS, RELOAD_MS);
    A.running = true;
}

void auth_stop(void)
{
    if (A.running) {
        uv_timer_stop(&A.timer);
        uv_close((uv_handle_t *)&A.timer, NULL);
        A.running = false;
    }
    /* A read in flight installs its list later; that list is freed by the next stop or at exit. */
    free(A.tokens);
    A.tokens = NULL;
    A.count = 0;
    free(A.cluster);
    A.cluster = NULL;
    A.cluster_count = 0;
}

bool auth_identify(const char *authorization, const char *address, Identity *id, ApiError *e)
{
    memset(id, 0, sizeof *id);
    snprintf(id->who, sizeof id->who, "%s", address);
    if (A.mode == AUTH_OFF) {
        id->scopes = SCOPE_ALL;
        return true;
    }
    if (!authorization) {
        id->scopes = A.mode == AUTH_OPTIONAL ? SCOPE_ANALYSE | SCOPE_PLAY : 0;
        return true;
    }
    const char *text = authorization;
    if (strncasecmp(text, "Bearer ", 7)) {
        api_error_set(e, 401, "invalid_token", NULL, "send the token as 'Authorization: Bearer TOKEN'");
        return false;
    }
    text += 7;
    while (*text == ' ')
        text++;
    Token key;
    token_hash(text, key.hash);
    const Token *t = A.count ? bsearch(&key, A.tokens, (size_t)A.count, sizeof *A.tokens, by_hash) : NULL;
    if (!t && A.cluster_count)
        t = bsearch(&key, A.cluster, (size_t)A.cluster_count, sizeof *A.cluster, by_hash);
    if (!t) {
        api_error_set(e, 401, "invalid_token", NULL,
                      "this token is not valid (mistyped, or revoked); ask the operator for one (feelfish token "
                      "create)");
        return false;
    }
    snprintf(id->who, sizeof id->who, "token:%s", t->id);
    id->scopes = t->scopes;
    id->token = true;
    return true;
}

bool auth_allows(const Identity *id, unsigned scopes, ApiError *e)
{
    if ((id->scopes & scopes) == scopes && (id->token || A.mode != AUTH_REQUIRED))
        return true;
    char names[64];
    scopes_format(scopes, names, sizeof names);
    if (!id->token)
        api_error_set(e, 401, "auth_required", NULL,
                      "this needs a token%s%s: send 'Authorization: Bearer TOKEN' (the operator makes one with "
                      "feelfish token create)",
                      scopes ? " with the scope " : "", names);
    else
        api_error_set(e, 403, "missing_scope", NULL, "this token lacks the scope '%s' (feelfish token create --scopes)",
                      names);
    return false;
}

Identity auth_of(const Request *r)
{
    Identity id = {.scopes = r->scopes, .token = r->authenticated};
    snprintf(id.who, sizeof id.who, "%s", r->client);
    return id;
}

bool auth_sees_job(const char *owner, const Identity *who, ApiError *e)
{
    return !strcmp(owner, BOT_OWNER) || auth_owns_job(owner, who, e);
}

bool auth_owns_job(const char *owner, const Identity *who, ApiError *e)
{
    if (!owner[0] || !strcmp(owner, who->who) || (who->token && who->scopes & SCOPE_ADMIN))
        return true;
    api_error_set(e, 403, "not_your_job", NULL, "this job belongs to another client");
    return false;
}
