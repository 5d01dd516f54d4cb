/* HTTP on the loop thread: libmicrohttpd in epoll mode, its fd watched by a uv_poll and its
 * timeout by a uv_timer. The transport knows requests and answers, never routes: the layer above
 * registers the handler. A request waiting for something (a search, storage) is suspended and
 * resumed by the loop. */
#ifndef FEELFISH_HTTP_H
#define FEELFISH_HTTP_H

#include <microhttpd.h>
#include <stdbool.h>
#include <uv.h>

#include "../base/config.h"

typedef struct Request Request;
typedef struct Connection Connection;

#define HTTP_EXTRA_HEADERS 12

struct Request {
    struct MHD_Connection *conn;
    Connection *connection;  /* the transport's record of its connection (may be NULL) */
    bool last_on_connection; /* the connection's last request (--keepalive-requests) */
    char id[65];             /* X-Request-Id: the access log's and the answer's */
    char method[16];
    char path[1024];
    char client[48]; /* the peer's address; the layer above may put its client's name here (a token) */
    bool via_proxy;  /* the peer is a trusted proxy (--trusted-proxies): its X-Forwarded-* are believed */
    unsigned scopes; /* what the layer above lets it do (authentication) */
    int route;       /* which of the layer above's routes it matched, once `routed` (for metrics) */
    bool routed;
    bool authenticated;
    char *body;
    size_t body_len;
    bool too_large;
    size_t dropped;        /* body bytes read and dropped past --body-max */
    int head_too_large;    /* 414 or 431: the request line or the headers are longer than the server reads */
    char bad_request[128]; /* how the request's framing is wrong (a 400 bad_framing), "" if it is not */
    double start_ms;
    /* the answer, once known */
    int status;
    char *response;
    size_t response_len;
    const char *content_type;
    struct {
        char *name, *value;
    } headers[HTTP_EXTRA_HEADERS]; /* added to the answer (http_add_header) */
    int header_count;
    bool cacheable; /* static files: revalidate with the ETag instead of no-store */
    bool suspended;
    bool client_gone; /* the peer hung up while we were waiting */
    uv_poll_t *watch; /* while suspended: notices the peer hanging up (MHD does not) */
    /* What the request waits for, and how to stop waiting when it goes away (the peer hung up or
     * the connection ended): set together by whoever suspends it, cleared when answered. */
    void *waiter;
    void (*on_gone)(Request *r);
    Request *next_waiting, *prev_waiting; /* while suspended: the transport's list */
};

typedef struct {
    void (*handle)(Request *r);          /* a complete request: answer it, or suspend it */
    void (*completed)(const Request *r); /* after the answer went out (or the peer left): metrics */
    /* The path as the access log shows it (the layer above hides secrets a path may carry). */
    void (*log_path)(const Request *r, char *out, size_t size);
    const char *const *headers; /* name, value, ..., NULL: on every answer (static, never copied) */
} HttpHandlers;

bool http_start(uv_loop_t *loop, const ServerConfig *cfg, const HttpHandlers *handlers, int *bound_port);
/* Serves a connected socket as if it had been accepted from `address` (the fuzzing harness hands it
 * one end of a socket pair); false if the server cannot take it (it is then closed). */
bool http_adopt(int fd, const char *address);
/* Connections closed for being too slow (408 or an idle keep-alive), since start. */
unsigned long long http_timeouts(void);
/* The longest path and query, and header block, the layer above is handed (nginx's and Apache's
 * usual sizes); longer ones are marked head_too_large (414, 431) and answered without their body.
 * Past libmicrohttpd's own limit (its 32 KiB of memory per connection, which it clears on every
 * request: larger would cost every request) it answers them itself, in its bare HTML. */
#define HTTP_URI_MAX 8192
#define HTTP_HEADERS_MAX 16384
/* Stops accepting; connections in progress are answered or closed. Loop thread. */
void http_stop(void);

/* Answers a request (loop thread). The body is copied. */
void http_reply(Request *r, int status, const char *content_type, const char *body, size_t len);
/* Adds a header to the answer (a second one of the same name replaces the first). */
void http_add_header(Request *r, const char *name, const char *value);
/* Leaves the request waiting for `waiter`; on_gone (may be NULL) is called if it goes away first.
 * http_resume() sends the answer given meanwhile (http_reply). */
void http_suspend(Request *r, void *waiter, void (*on_gone)(Request *r));
void http_resume(Request *r);
/* The wait is over (answered, or about to be): the request no longer points at the waiter. */
void http_end_wait(Request *r);
const char *http_header(Request *r, const char *name);
const char *http_query(Request *r, const char *name);

#endif
