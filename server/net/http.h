/* HTTP on the loop thread: libmicrohttpd in epoll mode, its fd watched by a uv_poll and its
 * timeout by a uv_timer. A request waiting for a search is suspended and resumed by the loop. */
#ifndef FEELFISH_HTTP_H
#define FEELFISH_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <uv.h>

#include "../base/config.h"

typedef struct Request {
    struct MHD_Connection *conn;
    char method[16];
    char path[1024];
    char *body;
    size_t body_len;
    bool too_large;
    double start_ms;
    /* the answer, once known */
    int status;
    char *response;
    size_t response_len;
    const char *content_type;
    char *extra_header_name, *extra_header_value;
    bool cacheable; /* static files: revalidate with the ETag instead of no-store */
    bool suspended;
    bool client_gone;        /* the peer hung up while we were waiting */
    uv_poll_t *watch;        /* while suspended: notices the peer hanging up (MHD does not) */
    void *pending;           /* the job this request waits for (api.c) */
    void *pending_load;      /* a storage look-up this request waits for (api.c) */
    void *pending_game;      /* the game whose engine reply this request waits for (games.c) */
    void *pending_game_load; /* a game being loaded from storage for this request (games.c) */
} Request;

bool http_start(uv_loop_t *loop, const ServerConfig *cfg, int *bound_port);
/* Stops accepting; connections in progress are answered or closed. Loop thread. */
void http_stop(void);

/* Answers a request (loop thread). The body is copied. */
void http_reply(Request *r, int status, const char *content_type, const char *body, size_t len);
void http_reply_json(Request *r, int status, json_t *body); /* takes the reference */
void http_reply_error(Request *r, int status, const char *code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void http_add_header(Request *r, const char *name, const char *value);
/* Leaves the request waiting; http_resume() answers it later (after http_reply). */
void http_suspend(Request *r);
void http_resume(Request *r);
const char *http_header(Request *r, const char *name);
const char *http_query(Request *r, const char *name);

#endif
