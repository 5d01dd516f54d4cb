/* Redis as a client, on the loop (hiredis's async API, on a uv_poll of our own): a link is one
 * connection that connects again by itself when Redis goes away (every 500 ms), selects the URL's
 * database, and calls its owner's on_ready after every (re)connection, where the owner subscribes
 * again or restarts its reads. A link that is not subscribed is probed (PING) every second: one
 * that goes 5 s without an answer (Redis frozen, its host gone silent) is dropped and connected
 * again; subscribed ones rely on TCP keep-alive. Commands sent while it is down fail at once (the
 * callback is not called) unless sent with redis_link_send; replies of commands in flight when it
 * drops come back NULL. Loop thread only. */
#ifndef FEELFISH_NET_REDIS_H
#define FEELFISH_NET_REDIS_H

#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <uv.h>

typedef struct {
    char host[256];
    int port, db;
    char user[128], password[256]; /* AUTH (Redis 6 ACL user, or the password alone); "" for none */
} RedisAddress;

/* redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] (PORT 6379, DB 0; USER and PASSWORD percent-encoded as in
 * any URL). rediss:// (TLS) is refused with a message: reach a TLS Redis through a tunnel (stunnel,
 * spiped) that this node sees as redis://127.0.0.1:PORT. False with a message naming what is wrong. */
bool redis_url_parse(const char *url, RedisAddress *out, char *err, size_t err_size);

/* The URL with its password starred out ("redis://user:***@host:port/db"), for what is shown. */
void redis_url_redact(const char *url, char *out, size_t size);

/* A blocking connection for the command-line tools (2 s to connect, 5 s a command), on the URL's
 * database; NULL with a message. */
redisContext *redis_connect_sync(const RedisAddress *a, char *err, size_t err_size);

typedef struct RedisLink RedisLink;
typedef void (*RedisReady)(RedisLink *link, void *user);

/* `name` says which link a log line is about ("jobs", "events"...). */
RedisLink *redis_link_new(uv_loop_t *loop, const RedisAddress *a, const char *name, RedisReady on_ready, void *user);
bool redis_link_ready(const RedisLink *link);
/* Connections made so far (a reconnection counts). */
unsigned redis_link_connects(const RedisLink *link);
/* A command (hiredis's format, %b for bytes); false when the link is down. */
bool redis_link_command(RedisLink *link, redisCallbackFn *fn, void *priv, const char *format, ...);
/* The same for a command that may wait for the link: while it is down (a Redis restart, a
 * reconnection after a blip) the command is held, in order, and sent first once the link is back;
 * if that takes longer than wait_ms its callback gets NULL. False only when it cannot be held. */
bool redis_link_send(RedisLink *link, unsigned wait_ms, redisCallbackFn *fn, void *priv, const char *format, ...);
/* A subscription's reply: the message's payload (a string) when it is a "message", else NULL (the
 * subscription's confirmation, a dropped link). */
const redisReply *redis_message_payload(const redisReply *reply);
/* A field of a RESP2 map (an array of names and values, as XINFO answers), or NULL. */
const redisReply *redis_field(const redisReply *map, const char *name);
/* An integer reply, or a string one read as a number; 0 for anything else. */
long long redis_number(const redisReply *r);
/* A string reply's text, or "". */
const char *redis_text(const redisReply *r);

/* Closes it once what was sent is answered (pending callbacks get NULL past a deadline). */
void redis_link_free(RedisLink *link);
/* Closes it at once, the replies in flight unread (their callbacks get NULL): for a blocking read
 * whose answer no one would take any more (Redis then serves it to another reader). */
void redis_link_abort(RedisLink *link);

#endif
