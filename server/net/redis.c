/* A Redis connection that keeps itself connected (redis.h). */
#include "redis.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <hiredis/adapters/libuv.h>
#pragma GCC diagnostic pop

#include "../base/log.h"

#define RETRY_MS 500
#define CONNECT_TIMEOUT_MS 1000

struct RedisLink {
    uv_loop_t *loop;
    RedisAddress addr;
    char name[32];
    RedisReady on_ready;
    void *user;
    redisAsyncContext *ac; /* NULL while down */
    bool ready;            /* connected and the database selected */
    bool closing;
    bool was_down; /* said once per outage */
    unsigned connects;
    uv_timer_t retry;
};

bool redis_url_parse(const char *url, RedisAddress *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    out->port = 6379;
    if (!url || strncmp(url, "redis://", 8)) {
        snprintf(err, err_size, "a Redis URL starts with redis:// (redis://HOST:PORT/DB)");
        return false;
    }
    const char *h = url + 8, *end = h + strcspn(h, ":/");
    if (end == h || (size_t)(end - h) >= sizeof out->host) {
        snprintf(err, err_size, "the Redis URL has no host (redis://HOST:PORT/DB)");
        return false;
    }
    memcpy(out->host, h, (size_t)(end - h));
    char *stop;
    if (*end == ':') {
        long port = strtol(end + 1, &stop, 10);
        if (stop == end + 1 || port < 1 || port > 65535 || (*stop && *stop != '/')) {
            snprintf(err, err_size, "the Redis URL's port must be 1-65535");
            return false;
        }
        out->port = (int)port;
        end = stop;
    }
    if (*end == '/' && end[1]) {
        long db = strtol(end + 1, &stop, 10);
        if (stop == end + 1 || *stop || db < 0 || db > 1000) {
            snprintf(err, err_size, "the Redis URL's database must be a number (redis://HOST:PORT/DB)");
            return false;
        }
        out->db = (int)db;
    } else if (*end && strcmp(end, "/")) {
        snprintf(err, err_size, "unexpected '%s' in the Redis URL", end);
        return false;
    }
    return true;
}

static void connect_now(RedisLink *l);

/* A retry, or a connection attempt that is taking too long: hiredis's libuv adapter drops the error
 * of a refused connection (uv_poll reports it as a status, which the adapter ignores), so such an
 * attempt would wait for ever. */
static void on_retry(uv_timer_t *t)
{
    RedisLink *l = t->data;
    if (l->ac) {
        if (l->ac->c.flags & REDIS_CONNECTED)
            return;
        redisAsyncContext *ac = l->ac;
        l->ac = NULL;
        if (!l->was_down)
            log_msg(LOG_WARN, "redis %s: cannot connect to %s:%d (trying again every %d ms)", l->name, l->addr.host,
                    l->addr.port, CONNECT_TIMEOUT_MS);
        l->was_down = true;
        redisAsyncFree(ac);
    }
    connect_now(l);
}

static void schedule_retry(RedisLink *l)
{
    if (!l->closing)
        uv_timer_start(&l->retry, on_retry, RETRY_MS, 0);
}

static void on_selected(redisAsyncContext *ac, void *r, void *priv)
{
    RedisLink *l = priv;
    redisReply *reply = r;
    if (!reply || reply->type == REDIS_REPLY_ERROR || l->ac != ac) {
        if (reply && reply->type == REDIS_REPLY_ERROR)
            log_msg(LOG_ERROR, "redis %s: SELECT %d: %s", l->name, l->addr.db, reply->str);
        return;
    }
    l->ready = true;
    if (l->was_down)
        log_msg(LOG_INFO, "redis %s: connected again to %s:%d", l->name, l->addr.host, l->addr.port);
    l->was_down = false;
    l->connects++;
    if (l->on_ready)
        l->on_ready(l, l->user);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    RedisLink *l = ac->data;
    if (status != REDIS_OK) { /* hiredis frees the context after this */
        if (!l->was_down)
            log_msg(LOG_WARN, "redis %s: cannot connect to %s:%d: %s (trying again every %d ms)", l->name, l->addr.host,
                    l->addr.port, ac->errstr, RETRY_MS);
        l->was_down = true;
        l->ac = NULL;
        schedule_retry(l);
        return;
    }
    redisAsyncCommand(l->ac, on_selected, l, "SELECT %d", l->addr.db);
}

static void closed(uv_handle_t *h) { free(h->data); }

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    RedisLink *l = ac->data;
    (void)status;
    if (l->closing) {
        uv_close((uv_handle_t *)&l->retry, closed);
        return;
    }
    if (l->ac != ac)
        return;
    l->ac = NULL;
    l->ready = false;
    log_msg(LOG_WARN, "redis %s: connection to %s:%d lost; connecting again", l->name, l->addr.host, l->addr.port);
    l->was_down = true;
    schedule_retry(l);
}

static void connect_now(RedisLink *l)
{
    redisAsyncContext *ac = redisAsyncConnect(l->addr.host, l->addr.port);
    if (!ac || ac->err) {
        if (ac)
            redisAsyncFree(ac);
        schedule_retry(l);
        return;
    }
    ac->data = l;
    l->ac = ac;
    redisLibuvAttach(ac, l->loop);
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    uv_timer_start(&l->retry, on_retry, CONNECT_TIMEOUT_MS, 0);
}

RedisLink *redis_link_new(uv_loop_t *loop, const RedisAddress *a, const char *name, RedisReady on_ready, void *user)
{
    RedisLink *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->loop = loop;
    l->addr = *a;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->on_ready = on_ready;
    l->user = user;
    uv_timer_init(loop, &l->retry);
    l->retry.data = l;
    connect_now(l);
    return l;
}

bool redis_link_ready(const RedisLink *l) { return l && l->ready; }
unsigned redis_link_connects(const RedisLink *l) { return l ? l->connects : 0; }

bool redis_link_command(RedisLink *l, redisCallbackFn *fn, void *priv, const char *format, ...)
{
    if (!l || !l->ready || !l->ac)
        return false;
    va_list ap;
    va_start(ap, format);
    int rc = redisvAsyncCommand(l->ac, fn, priv, format, ap);
    va_end(ap);
    return rc == REDIS_OK;
}

const redisReply *redis_message_payload(const redisReply *reply)
{
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements != 3 ||
        reply->element[0]->type != REDIS_REPLY_STRING || strcmp(reply->element[0]->str, "message") ||
        reply->element[2]->type != REDIS_REPLY_STRING)
        return NULL;
    return reply->element[2];
}

void redis_link_free(RedisLink *l)
{
    if (!l)
        return;
    l->closing = true;
    uv_timer_stop(&l->retry);
    if (l->ac) {
        redisAsyncDisconnect(l->ac); /* on_disconnect frees the link */
        return;
    }
    uv_close((uv_handle_t *)&l->retry, closed);
}

const redisReply *redis_field(const redisReply *map, const char *name)
{
    if (!map || map->type != REDIS_REPLY_ARRAY)
        return NULL;
    for (size_t i = 0; i + 1 < map->elements; i += 2)
        if (map->element[i]->type == REDIS_REPLY_STRING && !strcmp(map->element[i]->str, name))
            return map->element[i + 1];
    return NULL;
}

long long redis_number(const redisReply *r)
{
    if (!r)
        return 0;
    if (r->type == REDIS_REPLY_INTEGER)
        return r->integer;
    if (r->type == REDIS_REPLY_STRING)
        return atoll(r->str);
    return 0;
}

const char *redis_text(const redisReply *r) { return r && r->type == REDIS_REPLY_STRING ? r->str : ""; }
