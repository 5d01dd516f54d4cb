/* A Redis connection that keeps itself connected (redis.h). */
#include "redis.h"

#include <ctype.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/log.h"

#define TICK_MS 250
#define RETRY_MS 500            /* after a failed attempt or a lost connection */
#define CONNECT_TIMEOUT_MS 1000 /* an attempt no one answers (a host that drops packets) */
#define PROBE_EVERY_MS 1000     /* a PING when the last probe is this old */
#define PROBE_DEAD_MS 5000      /* a PING (or the SELECT) unanswered this long: Redis is frozen or gone */

/* A command waiting for the link to come back (redis_link_send). */
typedef struct Held {
    char *cmd; /* formatted */
    size_t len;
    redisCallbackFn *fn;
    void *priv;
    uint64_t until;
    struct Held *next;
} Held;

struct RedisLink {
    uv_loop_t *loop;
    RedisAddress addr;
    char name[32];
    RedisReady on_ready;
    void *user;
    redisAsyncContext *ac; /* NULL while down */
    bool ready;            /* connected, the database selected, and Redis serving (not loading) */
    bool closing;
    bool was_down;       /* said once per outage */
    bool probing;        /* a PING (or the SELECT) awaits its answer */
    uint64_t since;      /* the attempt began (connecting), the link went down (ac NULL), or closing began */
    uint64_t probe_sent; /* when the last probe went */
    unsigned connects;
    Held *held, **held_end; /* oldest first */
    uv_timer_t tick;
};

/* URL percent-decoding of n bytes into out; false when it does not fit or a %xx is broken. */
static bool percent_decode(const char *in, size_t n, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (c == '%') {
            if (i + 2 >= n || !isxdigit((unsigned char)in[i + 1]) || !isxdigit((unsigned char)in[i + 2]))
                return false;
            char hex[3] = {in[i + 1], in[i + 2], 0};
            c = (char)strtol(hex, NULL, 16);
            if (!c)
                return false;
            i += 2;
        }
        if (o + 1 >= size)
            return false;
        out[o++] = c;
    }
    out[o] = 0;
    return true;
}

bool redis_url_parse(const char *url, RedisAddress *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    out->port = 6379;
    if (url && !strncmp(url, "rediss://", 9)) {
        snprintf(err, err_size,
                 "rediss:// (TLS) is not supported yet: reach the TLS Redis through a local tunnel "
                 "(stunnel, spiped) and give its redis://127.0.0.1:PORT");
        return false;
    }
    if (!url || strncmp(url, "redis://", 8)) {
        snprintf(err, err_size, "a Redis URL starts with redis:// (redis://HOST:PORT/DB)");
        return false;
    }
    const char *h = url + 8, *at = strchr(h, '@');
    if (at && at < h + strcspn(h, "/")) { /* [USER]:PASSWORD@ (or PASSWORD@) */
        const char *colon = memchr(h, ':', (size_t)(at - h));
        if (!percent_decode(h, colon ? (size_t)(colon - h) : 0, out->user, sizeof out->user) ||
            !percent_decode(colon ? colon + 1 : h, colon ? (size_t)(at - colon - 1) : (size_t)(at - h), out->password,
                            sizeof out->password) ||
            !out->password[0]) {
            snprintf(err, err_size,
                     "the Redis URL's credentials are not [USER]:PASSWORD@ (percent-encoded, a password "
                     "of at most 255 characters)");
            return false;
        }
        h = at + 1;
    }
    const char *end = h + strcspn(h, ":/");
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

/* ---- hiredis on the loop: a uv_poll per connection ----
 * Written here rather than taken from hiredis 0.14's adapters/libuv.h, which drops a poll error:
 * a connection reset by Redis (it died with our commands unread) or a refused connect was never
 * seen, and the link stayed "up" with its commands unanswered for ever. Here an error makes hiredis
 * read or write as it was waiting to, and meet the error itself. */

typedef struct {
    redisAsyncContext *ac; /* NULL once hiredis has let go */
    uv_poll_t poll;
    int events;
} Watch;

static void on_io(uv_poll_t *p, int status, int events)
{
    Watch *w = p->data;
    if (status < 0)
        events = w->events;
    if (w->ac && (events & UV_READABLE))
        redisAsyncHandleRead(w->ac);
    if (w->ac && (events & UV_WRITABLE)) /* (the read may have ended the connection) */
        redisAsyncHandleWrite(w->ac);
}

static void watch_set(Watch *w, int events)
{
    w->events = events;
    if (events)
        uv_poll_start(&w->poll, events, on_io);
    else
        uv_poll_stop(&w->poll);
}

static void add_read(void *p) { watch_set(p, ((Watch *)p)->events | UV_READABLE); }
static void del_read(void *p) { watch_set(p, ((Watch *)p)->events & ~UV_READABLE); }
static void add_write(void *p) { watch_set(p, ((Watch *)p)->events | UV_WRITABLE); }
static void del_write(void *p) { watch_set(p, ((Watch *)p)->events & ~UV_WRITABLE); }
static void watch_closed(uv_handle_t *h) { free(h->data); }

static void watch_cleanup(void *p)
{
    Watch *w = p;
    if (!w->ac)
        return; /* (hiredis may say so twice) */
    w->ac = NULL;
    uv_close((uv_handle_t *)&w->poll, watch_closed);
}

static bool watch_attach(redisAsyncContext *ac, uv_loop_t *loop)
{
    Watch *w = calloc(1, sizeof *w);
    if (!w || uv_poll_init_socket(loop, &w->poll, ac->c.fd)) {
        free(w);
        return false;
    }
    w->ac = ac;
    w->poll.data = w;
    ac->ev.data = w;
    ac->ev.addRead = add_read;
    ac->ev.delRead = del_read;
    ac->ev.addWrite = add_write;
    ac->ev.delWrite = del_write;
    ac->ev.cleanup = watch_cleanup;
    return true;
}

/* ---- the link: connected, selected, probed, connected again ---- */

/* The oldest held command, taken off the list (so that a callback may hold another). */
static Held *take_held(RedisLink *l)
{
    Held *h = l->held;
    l->held = h->next;
    if (!l->held)
        l->held_end = &l->held;
    return h;
}

static void free_held(Held *h)
{
    redisFreeCommand(h->cmd);
    free(h);
}

/* Held commands whose wait is over (all of them when `all`) hear NULL. */
static void release_held(RedisLink *l, bool all)
{
    uint64_t now = uv_now(l->loop);
    while (l->held && (all || l->held->until <= now)) { /* (waits end in the order they began) */
        Held *h = take_held(l);
        if (h->fn)
            h->fn(NULL, NULL, h->priv);
        free_held(h);
    }
}

/* Down: said once per outage; the tick tries again after RETRY_MS. */
static void went_down(RedisLink *l, const char *why)
{
    if (!l->was_down && why && !l->closing)
        log_msg(LOG_WARN, "redis %s: %s:%d: %s; connecting again every %d ms", l->name, l->addr.host, l->addr.port, why,
                RETRY_MS);
    l->was_down = true;
    l->ac = NULL;
    l->ready = l->probing = false;
    l->since = uv_now(l->loop);
}

/* Lets go of the connection: the replies still awaited come back NULL. */
static void drop(RedisLink *l, const char *why)
{
    redisAsyncContext *ac = l->ac;
    went_down(l, why);
    redisAsyncFree(ac); /* (its on_disconnect finds the link on to something else) */
}

static void probe(RedisLink *l, redisCallbackFn *fn, const char *command)
{
    l->probing = true;
    l->probe_sent = uv_now(l->loop);
    redisAsyncCommand(l->ac, fn, l, command);
}

static void on_pong(redisAsyncContext *ac, void *r, void *priv)
{
    (void)r;
    RedisLink *l = priv;
    if (l->ac == ac)
        l->probing = false;
}

/* The answer to the link's probe, its wait over; NULL for a connection let go (or replaced) since. */
static redisReply *probe_answer(RedisLink *l, redisAsyncContext *ac, void *r)
{
    if (!r || l->ac != ac)
        return NULL;
    l->probing = false;
    return r;
}

/* An error answer to a probe lets the connection go, saying which command and what Redis said. */
static bool refused(RedisLink *l, const redisReply *reply, const char *what)
{
    if (reply->type != REDIS_REPLY_ERROR)
        return false;
    char why[200];
    snprintf(why, sizeof why, "%s: %.150s", what, reply->str);
    drop(l, why);
    return true;
}

static bool loading(const redisReply *reply)
{
    return reply->type == REDIS_REPLY_ERROR && !strncmp(reply->str, "LOADING", 7);
}

/* Ready once a PING is answered: a Redis still loading its data answers SELECT, and -LOADING to
 * nearly everything else, so a command sent then would fail. While it loads the tick asks again
 * (every TICK_MS) and held commands keep waiting, up to their own limits. */
static void on_serving(redisAsyncContext *ac, void *r, void *priv)
{
    RedisLink *l = priv;
    redisReply *reply = probe_answer(l, ac, r);
    if (!reply || loading(reply) || refused(l, reply, "PING"))
        return;
    l->ready = true;
    if (l->was_down)
        log_msg(LOG_INFO, "redis %s: connected again to %s:%d", l->name, l->addr.host, l->addr.port);
    l->was_down = false;
    l->connects++;
    while (l->held) { /* first, in the order they came */
        Held *h = take_held(l);
        if (redisAsyncFormattedCommand(ac, h->fn, h->priv, h->cmd, h->len) != REDIS_OK && h->fn)
            h->fn(NULL, NULL, h->priv);
        free_held(h);
    }
    if (l->on_ready)
        l->on_ready(l, l->user);
}

static void on_selected(redisAsyncContext *ac, void *r, void *priv)
{
    RedisLink *l = priv;
    redisReply *reply = probe_answer(l, ac, r);
    char what[32];
    snprintf(what, sizeof what, "SELECT %d", l->addr.db); /* (a database the server does not have) */
    if (!reply || refused(l, reply, what))
        return;
    probe(l, on_serving, "PING");
}

static void select_db(RedisLink *l)
{
    char select[32];
    snprintf(select, sizeof select, "SELECT %d", l->addr.db);
    probe(l, on_selected, select);
}

static void on_authed(redisAsyncContext *ac, void *r, void *priv)
{
    RedisLink *l = priv;
    redisReply *reply = probe_answer(l, ac, r);
    if (!reply || refused(l, reply, "AUTH refused")) /* a wrong password never becomes right: try again later */
        return;
    select_db(l);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    RedisLink *l = ac->data;
    if (l->ac != ac)
        return;
    if (status != REDIS_OK) { /* hiredis frees the context after this */
        went_down(l, ac->errstr[0] ? ac->errstr : "cannot connect");
        return;
    }
    redisEnableKeepAlive(&l->ac->c); /* a peer gone silent is found by the kernel too (subscriptions) */
    if (l->addr.password[0]) {
        l->probing = true;
        l->probe_sent = uv_now(l->loop);
        if (l->addr.user[0])
            redisAsyncCommand(l->ac, on_authed, l, "AUTH %s %s", l->addr.user, l->addr.password);
        else
            redisAsyncCommand(l->ac, on_authed, l, "AUTH %s", l->addr.password);
        return;
    }
    select_db(l);
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    RedisLink *l = ac->data;
    if (l->ac != ac)
        return; /* dropped by this link */
    went_down(l, status == REDIS_OK ? "connection closed" : "connection lost");
}

static void connect_now(RedisLink *l)
{
    l->since = uv_now(l->loop);
    redisAsyncContext *ac = redisAsyncConnect(l->addr.host, l->addr.port);
    if (!ac || ac->err || !watch_attach(ac, l->loop)) {
        if (ac && !l->was_down)
            log_msg(LOG_WARN, "redis %s: cannot connect to %s:%d: %s", l->name, l->addr.host, l->addr.port,
                    ac->err ? ac->errstr : "out of memory");
        l->was_down = true;
        if (ac)
            redisAsyncFree(ac);
        return;
    }
    ac->data = l;
    l->ac = ac;
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
}

static void closed(uv_handle_t *h) { free(h->data); }

/* Every TICK_MS: connect when down, give up an attempt no one answers, probe a quiet link and drop
 * one whose probe goes unanswered (Redis frozen, or its host gone without a word). A closing link
 * waits here for its last replies, up to PROBE_DEAD_MS. A Redis loading its data is asked again
 * until it serves. A subscribed link is not probed (hiredis
 * 0.14 loses a PING's reply there): the kernel's keep-alive finds a silent peer. */
static void on_tick(uv_timer_t *t)
{
    RedisLink *l = t->data;
    uint64_t now = uv_now(l->loop), age = now - l->since;
    release_held(l, false);
    if (uv_is_closing((uv_handle_t *)t))
        return; /* a callback closed the link */
    if (l->closing) {
        if (l->ac && age >= PROBE_DEAD_MS)
            drop(l, NULL);
        if (!l->ac) {
            uv_timer_stop(&l->tick);
            uv_close((uv_handle_t *)&l->tick, closed);
        }
    } else if (!l->ac) {
        if (age >= RETRY_MS)
            connect_now(l);
    } else if (!(l->ac->c.flags & REDIS_CONNECTED)) {
        if (age >= CONNECT_TIMEOUT_MS)
            drop(l, "no answer to the connection");
    } else if (l->probing) {
        if (now - l->probe_sent >= PROBE_DEAD_MS)
            drop(l, "no answer for 5 s");
    } else if (!l->ready) { /* selected, Redis loading its data: ask again */
        if (now - l->probe_sent >= TICK_MS)
            probe(l, on_serving, "PING");
    } else if (!(l->ac->c.flags & REDIS_SUBSCRIBED) && now - l->probe_sent >= PROBE_EVERY_MS)
        probe(l, on_pong, "PING");
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
    uv_timer_init(loop, &l->tick);
    l->tick.data = l;
    l->held_end = &l->held;
    uv_timer_start(&l->tick, on_tick, TICK_MS, TICK_MS);
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

bool redis_link_send(RedisLink *l, unsigned wait_ms, redisCallbackFn *fn, void *priv, const char *format, ...)
{
    if (!l || l->closing)
        return false;
    va_list ap, again;
    va_start(ap, format);
    va_copy(again, ap);
    /* (a link hiredis is taking down, while it calls back what was in flight, refuses it: held too) */
    bool sent = l->ready && l->ac && redisvAsyncCommand(l->ac, fn, priv, format, ap) == REDIS_OK;
    if (!sent) {
        Held *h = calloc(1, sizeof *h);
        int len = h ? redisvFormatCommand(&h->cmd, format, again) : -1;
        if (len < 0)
            free(h);
        else {
            *h = (Held){h->cmd, (size_t)len, fn, priv, uv_now(l->loop) + wait_ms, NULL};
            *l->held_end = h;
            l->held_end = &h->next;
            sent = true;
        }
    }
    va_end(again);
    va_end(ap);
    return sent;
}

const redisReply *redis_message_payload(const redisReply *reply)
{
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements != 3 ||
        reply->element[0]->type != REDIS_REPLY_STRING || strcmp(reply->element[0]->str, "message") ||
        reply->element[2]->type != REDIS_REPLY_STRING)
        return NULL;
    return reply->element[2];
}

static void close_link(RedisLink *l, bool wait)
{
    if (!l || l->closing)
        return;
    l->closing = true;
    l->since = uv_now(l->loop);
    release_held(l, true);
    if (l->ac && l->ready && wait)
        redisAsyncDisconnect(l->ac); /* what was sent goes first; on_disconnect, or the tick's deadline, ends it */
    else if (l->ac)
        drop(l, NULL);
    if (!l->ac) {
        uv_timer_stop(&l->tick);
        uv_close((uv_handle_t *)&l->tick, closed);
    }
}

void redis_link_free(RedisLink *l) { close_link(l, true); }
void redis_link_abort(RedisLink *l) { close_link(l, false); }

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

redisContext *redis_connect_sync(const RedisAddress *a, char *err, size_t err_size)
{
    redisContext *c = redisConnectWithTimeout(a->host, a->port, (struct timeval){2, 0});
    if (!c || c->err) {
        snprintf(err, err_size, "cannot reach Redis at %s:%d: %s", a->host, a->port, c ? c->errstr : "out of memory");
        redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, (struct timeval){5, 0});
    if (a->password[0]) {
        redisReply *auth =
            a->user[0] ? redisCommand(c, "AUTH %s %s", a->user, a->password) : redisCommand(c, "AUTH %s", a->password);
        bool authed = auth && auth->type != REDIS_REPLY_ERROR;
        if (!authed)
            snprintf(err, err_size, "Redis at %s:%d refuses the URL's credentials: %s", a->host, a->port,
                     auth ? auth->str : c->errstr);
        freeReplyObject(auth);
        if (!authed) {
            redisFree(c);
            return NULL;
        }
    }
    redisReply *r = redisCommand(c, "SELECT %d", a->db);
    bool ok = r && r->type != REDIS_REPLY_ERROR;
    freeReplyObject(r);
    if (!ok) {
        snprintf(err, err_size, "Redis at %s:%d refuses database %d", a->host, a->port, a->db);
        redisFree(c);
        return NULL;
    }
    return c;
}

void redis_url_redact(const char *url, char *out, size_t size)
{
    const char *scheme_end = strstr(url, "://"), *at = scheme_end ? strchr(scheme_end + 3, '@') : NULL;
    if (!at || at > scheme_end + 3 + strcspn(scheme_end + 3, "/")) {
        snprintf(out, size, "%s", url);
        return;
    }
    const char *start = scheme_end + 3, *colon = memchr(start, ':', (size_t)(at - start));
    snprintf(out, size, "%.*s%s***%s", (int)((colon ? colon + 1 : start) - url), url, "", at);
}
