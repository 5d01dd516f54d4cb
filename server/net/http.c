/* libmicrohttpd driven from the libuv loop. Every MHD callback runs on the loop thread (we call
 * MHD_run from it), so request state needs no locking. */
#include "http.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../base/hash.h"
#include "../base/ids.h"
#include "../base/list.h"
#include "../base/log.h"
#include "../base/proxy.h"

/* A connection, from accept to close: what the guard needs to time its requests out. */
typedef struct Connection {
    int fd;
    int64_t since_ms; /* accepted, or its last answer went out */
    int requests;     /* begun on it */
    bool in_request;  /* its headers have come, its answer has not gone */
    bool dispatched;  /* ... and its body too: the handler has it */
    bool timed_out;   /* the guard has closed it */
    int slot;         /* its peer's in H.per_address, -1 when not counted (a trusted proxy) */
    struct Connection *prev, *next;
} Connection;

#define PER_ADDRESS_SLOTS 16384

static struct {
    struct MHD_Daemon *daemon;
    uv_poll_t poll;
    uv_timer_t timer, guard;
    Connection *connections;
    const ServerConfig *cfg;
    HttpHandlers handlers;
    Request *waiting; /* the suspended requests, answered at shutdown */
    unsigned long long timeouts;
    bool running;
    bool stopping; /* http_stop has begun: new requests are answered 503, never suspended */
    /* A connection closed during MHD_run: run it once more. At --connections-max (or out of
     * descriptors) MHD takes its listening socket out of its epoll set, and puts it back only at the
     * start of a later run; without one, nothing would ever wake it (the backlog stays unread). */
    bool rearm;
    /* Open connections per peer address, by a hash of it (--connections-per-ip; addresses sharing a
     * slot share the cap). Trusted proxies are not counted: their clients are many. */
    uint32_t per_address[PER_ADDRESS_SLOTS];
} H;

static void schedule(void);

static void on_timer(uv_timer_t *t)
{
    (void)t;
    MHD_run(H.daemon);
    schedule();
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    (void)p, (void)status, (void)events;
    MHD_run(H.daemon);
    schedule();
}

/* Re-arms the timer from MHD's own timeout (connection timeouts, resumed connections). */
static void schedule(void)
{
    if (!H.running)
        return;
    if (H.rearm) {
        H.rearm = false;
        uv_timer_start(&H.timer, on_timer, 0, 0);
        return;
    }
    MHD_UNSIGNED_LONG_LONG ms;
    if (MHD_get_timeout(H.daemon, &ms) == MHD_YES)
        uv_timer_start(&H.timer, on_timer, ms > 60000 ? 60000 : ms, 0);
    else
        uv_timer_stop(&H.timer);
}

void http_reply(Request *r, int status, const char *content_type, const char *body, size_t len)
{
    free(r->response);
    r->response = malloc(len + 1);
    if (!r->response)
        abort();
    memcpy(r->response, body, len);
    r->response[len] = 0;
    r->response_len = len;
    r->status = status;
    r->content_type = content_type;
}

void http_add_header(Request *r, const char *name, const char *value)
{
    int i = 0;
    while (i < r->header_count && strcasecmp(r->headers[i].name, name))
        i++;
    if (i == HTTP_EXTRA_HEADERS)
        return; /* more than the answers here ever carry */
    if (i == r->header_count) {
        r->headers[i].name = strdup(name);
        r->header_count++;
    } else
        free(r->headers[i].value);
    r->headers[i].value = strdup(value);
}

static void free_handle(uv_handle_t *h) { free(h); }

void http_end_wait(Request *r)
{
    r->waiter = NULL;
    r->on_gone = NULL;
}

/* The request goes away while it waits: whoever it waits for lets go of it. */
static void gone(Request *r)
{
    void (*on_gone)(Request *) = r->on_gone;
    if (r->waiter && on_gone)
        on_gone(r);
    http_end_wait(r);
}

static void stop_watch(Request *r)
{
    if (!r->watch)
        return;
    uv_poll_stop(r->watch);
    uv_close((uv_handle_t *)r->watch, free_handle);
    r->watch = NULL;
}

/* A suspended connection is not polled by MHD, so a client that gives up would keep its search
 * running: we watch for the hang-up ourselves and stop what it waited for. */
static void on_hangup(uv_poll_t *p, int status, int events)
{
    (void)status, (void)events;
    Request *r = p->data;
    r->client_gone = true;
    stop_watch(r);
    gone(r);
    http_resume(r);
}

void http_suspend(Request *r, void *waiter, void (*on_gone)(Request *r))
{
    r->waiter = waiter;
    r->on_gone = on_gone;
    if (r->suspended)
        return; /* a new wait of the same request (storage, then a search) */
    r->suspended = true;
    LIST_PUSH(H.waiting, r, prev_waiting, next_waiting);
    MHD_suspend_connection(r->conn);
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    r->watch = ci ? malloc(sizeof *r->watch) : NULL;
    if (r->watch && uv_poll_init(H.poll.loop, r->watch, ci->connect_fd) == 0) {
        r->watch->data = r;
        uv_poll_start(r->watch, UV_DISCONNECT, on_hangup);
    } else {
        free(r->watch);
        r->watch = NULL;
    }
}

void http_resume(Request *r)
{
    http_end_wait(r);
    if (!r->suspended)
        return;
    stop_watch(r);
    r->suspended = false;
    LIST_UNLINK(H.waiting, r, prev_waiting, next_waiting);
    MHD_resume_connection(r->conn);
    uv_timer_start(&H.timer, on_timer, 0, 0); /* let MHD pick it up on this loop turn */
}

const char *http_header(Request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *http_query(Request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result send_reply(Request *r)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(r->response_len, r->response, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    if (r->content_type)
        MHD_add_response_header(resp, "Content-Type", r->content_type);
    for (const char *const *h = H.handlers.headers; h && h[0]; h += 2)
        MHD_add_response_header(resp, h[0], h[1]);
    for (int i = 0; i < r->header_count; i++)
        MHD_add_response_header(resp, r->headers[i].name, r->headers[i].value);
    MHD_add_response_header(resp, "Cache-Control", r->cacheable || r->status == 304 ? "no-cache" : "no-store");
    MHD_add_response_header(resp, "X-Request-Id", r->id);
    if (r->last_on_connection)
        MHD_add_response_header(resp, "Connection", "close"); /* --keepalive-requests */
    enum MHD_Result ret = MHD_queue_response(r->conn, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* The peer's address as text (IPv4 or IPv6), "?" if unknown. */
static void peer_name(const struct sockaddr *sa, char *out, size_t size)
{
    snprintf(out, size, "?");
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)size);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)size);
}

typedef struct {
    const char *name;
    char *out;
    size_t size, len;
} HeaderJoin;

static enum MHD_Result join_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    HeaderJoin *j = cls;
    if (!key || !value || strcasecmp(key, j->name))
        return MHD_YES;
    int n = snprintf(j->out + j->len, j->size - j->len, "%s%s", j->len ? ", " : "", value);
    j->len = n < 0 || (size_t)n >= j->size - j->len ? j->size - 1 : j->len + (size_t)n;
    return MHD_YES;
}

/* Every value of a request header that may come more than once, joined with ", " as one list
 * (RFC 9110); NULL when there is none. */
static const char *header_values(struct MHD_Connection *conn, const char *name, char *out, size_t size)
{
    HeaderJoin j = {name, out, size, 0};
    out[0] = 0;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, join_header, &j);
    return j.len ? out : NULL;
}

/* A request's id, for the access log and the X-Request-Id answer header: the client's (a proxy's)
 * X-Request-Id when it is a plain token of 1 to 64 characters, else this process's prefix and a
 * count. */
static void name_request(Request *r)
{
    static char prefix[9];
    static unsigned long long count;
    const char *given = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "X-Request-Id");
    size_t n = given ? strlen(given) : 0;
    if (n && n < sizeof r->id &&
        strspn(given, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == n) {
        memcpy(r->id, given, n + 1);
        return;
    }
    if (!prefix[0])
        ids_random_hex(prefix, 8);
    snprintf(r->id, sizeof r->id, "%s-%llu", prefix, ++count);
}

typedef struct {
    size_t bytes; /* of the headers, as sent */
    int lengths, encodings;
    const char *length, *encoding;
    bool lengths_differ, bad_name;
} Framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    Framing *f = cls;
    f->bytes += strlen(key) + (value ? strlen(value) : 0) + 4; /* ": " and CRLF */
    f->bad_name |= strpbrk(key, " \t") != NULL;                /* "Content-Length : 5" smuggles a body past us */
    if (!strcasecmp(key, "Content-Length")) {
        f->lengths_differ |= f->length && strcmp(f->length, value);
        f->length = value;
        f->lengths++;
    } else if (!strcasecmp(key, "Transfer-Encoding")) {
        f->encoding = value;
        f->encodings++;
    }
    return MHD_YES;
}

static enum MHD_Result count_query(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    *(size_t *)cls += strlen(key) + (value ? strlen(value) : 0) + 2; /* "=" and "&" */
    return MHD_YES;
}

/* How the body is framed must be unambiguous (request smuggling) and understood: header names
 * without blanks, one Content-Length (repeats must agree), or Transfer-Encoding: chunked alone; a
 * body announced larger than --body-max is refused before it is read. (A Content-Length that is
 * not a number never gets here: libmicrohttpd answers it 400 itself.) */
static void check_framing(Request *r, const char *url)
{
    Framing f = {0};
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, count_framing, &f);
    /* 414 past HTTP_URI_MAX of path and query, 431 past HTTP_HEADERS_MAX of headers: the layer above
     * answers them (in its JSON), before any body is read. */
    size_t uri = strlen(url);
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, count_query, &uri);
    r->head_too_large = uri > HTTP_URI_MAX ? 414 : f.bytes > HTTP_HEADERS_MAX ? 431 : 0;
    const char *problem = NULL;
    if (f.bad_name)
        problem = "a header name with a space or tab in it (RFC 9112 allows none before the colon)";
    else if (f.lengths_differ)
        problem = "two different Content-Length headers: send one";
    else if (f.length && (!*f.length || strspn(f.length, "0123456789") != strlen(f.length)))
        problem = "Content-Length must be a whole number of bytes";
    else if (f.encodings && (f.encodings > 1 || strcasecmp(f.encoding, "chunked")))
        problem = "the only Transfer-Encoding understood is chunked (send the body as it is, or chunked)";
    else if (f.encodings && f.lengths)
        problem = "send either Content-Length or Transfer-Encoding, not both";
    if (problem)
        snprintf(r->bad_request, sizeof r->bad_request, "%s", problem);
    else if (f.length && strtoull(f.length, NULL, 10) > (unsigned long long)H.cfg->body_max)
        r->too_large = true;
}

/* Whether a refused request is answered before its body is read. Closing a connection whose
 * body is still coming makes the kernel reset it, and the client may never see the answer: so
 * that is done only when the body is framed wrongly, when the client waits for a 100 Continue
 * (it has sent nothing yet), or when the body announced is so large (16 times --body-max) that
 * reading it would be the attack. Otherwise the body is read and dropped, then answered 413. */
static bool answer_early(Request *r)
{
    if (r->bad_request[0] || r->head_too_large || H.stopping)
        return true;
    if (!r->too_large)
        return false;
    const char *expect = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Expect");
    const char *length = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Content-Length");
    return (expect && !strcasecmp(expect, "100-continue")) ||
           (length && strtoull(length, NULL, 10) / 16 > (unsigned long long)H.cfg->body_max);
}

static const char Stopping[] = "{\"error\":{\"code\":\"shutting_down\",\"message\":\"the server is stopping; "
                               "retry in a moment\"}}";

/* Hands a complete request to the layer above, unless the server is stopping: then nothing new is
 * started (and nothing suspended, which MHD_stop_daemon would not survive). */
static void dispatch(Request *r)
{
    if (H.stopping) {
        r->last_on_connection = true;
        http_reply(r, 503, "application/json", Stopping, sizeof Stopping - 1);
        return;
    }
    H.handlers.handle(r);
}

/* An answer written straight to the socket, for a connection MHD cannot answer any more (its
 * request has not all come): small enough for any send buffer; the write side is then shut, so the
 * peer reads the answer and the end of it. */
static void raw_answer(int fd, const char *answer, size_t len)
{
    ssize_t ignored = send(fd, answer, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)ignored;
    shutdown(fd, SHUT_WR);
}

/* A body far past --body-max (16 times) is still coming, chunked so its size was never announced:
 * libmicrohttpd takes no answer before the body has ended, so the 413 goes straight to the socket
 * and the client is told; what it still sends is dropped until --body-timeout closes it. */
static void refuse_body(Request *r)
{
    char answer[320], body[160];
    int n = snprintf(body, sizeof body,
                     "{\"error\":{\"code\":\"body_too_large\",\"message\":\"the request body is larger than %ld "
                     "bytes\"}}\n",
                     H.cfg->body_max);
    int len = snprintf(answer, sizeof answer,
                       "HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\nConnection: close\r\n"
                       "Content-Length: %d\r\n\r\n%s",
                       n, body);
    if (r->connection)
        raw_answer(r->connection->fd, answer, (size_t)len);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **ctx)
{
    (void)cls, (void)version;
    Request *r = *ctx;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return MHD_NO;
        r->conn = conn;
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        r->connection = ci ? ci->socket_context : NULL;
        if (r->connection) {
            r->connection->in_request = true;
            r->connection->dispatched = false;
            r->connection->since_ms = uv_now(H.poll.loop);
            r->last_on_connection = ++r->connection->requests >= H.cfg->keepalive_requests;
        }
        snprintf(r->method, sizeof r->method, "%s", method);
        name_request(r);
        snprintf(r->path, sizeof r->path, "%s", url);
        r->start_ms = (double)uv_hrtime() / 1e6;
        const union MHD_ConnectionInfo *peer = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        char address[48], forwarded[16448], xff[16448]; /* room for every header the server reads */
        peer_name(peer ? peer->client_addr : NULL, address, sizeof address);
        bool via_proxy = r->via_proxy = proxy_trusted(proxy_list(), address);
        proxy_client(proxy_list(), address, via_proxy ? header_values(conn, "Forwarded", forwarded, sizeof forwarded) : NULL,
                     via_proxy ? header_values(conn, "X-Forwarded-For", xff, sizeof xff) : NULL, r->client,
                     sizeof r->client);
        *ctx = r;
        check_framing(r, url);
        if (answer_early(r)) {
            /* Answered before the body is read (MHD then closes the connection, unread). */
            if (r->connection)
                r->connection->dispatched = true;
            r->last_on_connection = true;
            dispatch(r);
            if (!r->response)
                http_reply(r, 400, "application/json", "{}", 2);
            return send_reply(r);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        if (!r->too_large && r->body_len + *upload_size <= (size_t)H.cfg->body_max) {
            char *b = realloc(r->body, r->body_len + *upload_size + 1);
            if (!b)
                return MHD_NO;
            memcpy(b + r->body_len, upload, *upload_size);
            r->body = b;
            r->body_len += *upload_size;
            r->body[r->body_len] = 0;
        } else {
            r->too_large = true;
            r->dropped += *upload_size;
            if (r->dropped > 16 * (size_t)H.cfg->body_max && r->dropped - *upload_size <= 16 * (size_t)H.cfg->body_max)
                refuse_body(r);
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (r->client_gone)
        return MHD_NO; /* nobody to answer: close */
    if (r->connection)
        r->connection->dispatched = true;
    if (r->response)
        return send_reply(r); /* resumed with its answer, or answered at once */
    dispatch(r);              /* answers too large bodies too (r->too_large) */
    if (r->suspended)
        return MHD_YES;
    if (!r->response) {
        static const char Unanswered[] =
            "{\"error\":{\"code\":\"internal\",\"message\":\"the request was not answered\"}}";
        http_reply(r, 500, "application/json", Unanswered, sizeof Unanswered - 1);
    }
    return send_reply(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **ctx, enum MHD_RequestTerminationCode why)
{
    (void)cls, (void)conn, (void)why;
    Request *r = *ctx;
    if (!r)
        return;
    if (r->connection) {
        r->connection->in_request = false;
        r->connection->since_ms = uv_now(H.poll.loop);
    }
    stop_watch(r);
    gone(r); /* a request that goes away stops what it waited for */
    char path[sizeof r->path];
    if (H.handlers.log_path)
        H.handlers.log_path(r, path, sizeof path);
    else
        snprintf(path, sizeof path, "%s", r->path);
    log_access(&(AccessLine){r->id, r->client, r->method, path, r->status, (double)uv_hrtime() / 1e6 - r->start_ms});
    if (H.handlers.completed)
        H.handlers.completed(r);
    free(r->body);
    free(r->response);
    for (int i = 0; i < r->header_count; i++) {
        free(r->headers[i].name);
        free(r->headers[i].value);
    }
    free(r);
    *ctx = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        Connection *c = calloc(1, sizeof *c);
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!c || !ci) {
            free(c);
            return; /* not guarded: MHD's idle timeout still applies */
        }
        c->fd = ci->connect_fd;
        c->since_ms = uv_now(H.poll.loop);
        const union MHD_ConnectionInfo *peer = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        char address[48];
        peer_name(peer ? peer->client_addr : NULL, address, sizeof address);
        c->slot = proxy_trusted(proxy_list(), address) ? -1 : (int)(hash_text(address) % PER_ADDRESS_SLOTS);
        if (c->slot >= 0)
            H.per_address[c->slot]++;
        LIST_PUSH(H.connections, c, prev, next);
        *socket_context = c;
        return;
    }
    H.rearm = true; /* MHD_CONNECTION_NOTIFY_CLOSED */
    Connection *c = *socket_context;
    if (!c)
        return;
    LIST_UNLINK(H.connections, c, prev, next);
    if (c->slot >= 0 && H.per_address[c->slot])
        H.per_address[c->slot]--;
    free(c);
    *socket_context = NULL;
}

/* Whether a new connection from addr may be accepted: under --connections-per-ip for its address,
 * unless it is a trusted proxy. (MHD's own per-IP limit cannot tell a proxy from a client.) */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)cls, (void)addrlen;
    if (!H.cfg->connections_per_ip)
        return MHD_YES;
    char address[48];
    peer_name(addr, address, sizeof address);
    if (proxy_trusted(proxy_list(), address))
        return MHD_YES;
    return H.per_address[hash_text(address) % PER_ADDRESS_SLOTS] < (uint32_t)H.cfg->connections_per_ip ? MHD_YES
                                                                                                          : MHD_NO;
}

/* Closes a connection MHD holds: the peer is told why (a 408, when no answer has begun on it), and
 * shutting the socket down makes MHD see the end of it and close it on its next turn. */
static void time_out(Connection *c, bool answer)
{
    static const char Timeout[] = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n"
                                  "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n"
                                  "Connection: close\r\nContent-Length: 84\r\n\r\n"
                                  "{\"error\":{\"code\":\"request_timeout\",\"message\":\"the request did not "
                                  "arrive in time\"}}\n";
    if (answer)
        raw_answer(c->fd, Timeout, sizeof Timeout - 1);
    shutdown(c->fd, SHUT_RDWR);
    c->timed_out = true;
}

/* Every second: a connection whose request headers have not all come within --header-timeout of
 * its start (slowloris), or whose body has not within --body-timeout of its headers, gets 408 and
 * is closed; a kept-alive one whose next request has not begun within --keepalive-timeout is
 * closed. MHD's own timeout only catches connections that send nothing at all. */
static void on_guard(uv_timer_t *t)
{
    int64_t now = (int64_t)uv_now(t->loop);
    int closed = 0;
    for (Connection *c = H.connections; c; c = c->next) {
        if (c->timed_out || (c->in_request && c->dispatched))
            continue; /* being answered: a search may take its time */
        int64_t age = now - c->since_ms;
        if (c->in_request && age > H.cfg->body_timeout * 1000)
            time_out(c, true);
        else if (!c->in_request && !c->requests && age > H.cfg->header_timeout * 1000)
            time_out(c, true);
        else if (!c->in_request && c->requests && age > H.cfg->keepalive_timeout * 1000)
            time_out(c, false); /* idle between requests: nothing was asked, nothing to answer */
        else
            continue;
        closed++;
    }
    if (closed) {
        H.timeouts += (unsigned long long)closed;
        MHD_run(H.daemon);
        schedule();
    }
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* URL and argument decoding: %xx as usual, but a decoded NUL becomes DEL, so "/app.js%00.html"
 * stays one string that names no file instead of being cut short to "/app.js". */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls, (void)conn;
    char *o = s;
    for (const char *c = s; *c; c++) {
        int a, b;
        if (*c == '%' && (a = hex_value(c[1])) >= 0 && (b = hex_value(c[2])) >= 0) {
            char ch = (char)(a * 16 + b);
            *o++ = ch ? ch : '\x7f';
            c += 2;
        } else
            *o++ = *c;
    }
    *o = 0;
    return (size_t)(o - s);
}

bool http_start(uv_loop_t *loop, const ServerConfig *cfg, const HttpHandlers *handlers, int *bound_port)
{
    H.cfg = cfg;
    H.handlers = *handlers;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)cfg->http_port);
    if (inet_pton(AF_INET, cfg->bind, &addr.sin_addr) != 1) {
        log_msg(LOG_ERROR, "--bind: '%s' is not an IPv4 address", cfg->bind);
        return false;
    }
    H.daemon = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO, (uint16_t)cfg->http_port, accept_policy, NULL, on_request,
        NULL, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)(cfg->keepalive_timeout + cfg->header_timeout), MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)cfg->connections_max, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
    if (!H.daemon) {
        log_msg(LOG_ERROR, "cannot listen for HTTP on %s:%ld (in use?)", cfg->bind, cfg->http_port);
        return false;
    }
    const union MHD_DaemonInfo *fd = MHD_get_daemon_info(H.daemon, MHD_DAEMON_INFO_EPOLL_FD);
    const union MHD_DaemonInfo *port = MHD_get_daemon_info(H.daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = port ? port->port : (int)cfg->http_port;
    uv_poll_init(loop, &H.poll, fd->epoll_fd);
    uv_poll_start(&H.poll, UV_READABLE, on_poll);
    uv_timer_init(loop, &H.timer);
    uv_timer_init(loop, &H.guard);
    uv_timer_start(&H.guard, on_guard, 1000, 1000);
    H.running = true;
    schedule();
    return true;
}

/* Whatever still waits (a save, a search, a storage read) lets go of its request, which is answered
 * 503 and resumed. */
static void release_waiting(void)
{
    while (H.waiting) {
        Request *r = H.waiting;
        gone(r);
        if (!r->response)
            http_reply(r, 503, "application/json", Stopping, sizeof Stopping - 1);
        http_resume(r);
    }
}

void http_stop(void)
{
    if (!H.running)
        return;
    /* MHD aborts the process if it is stopped with a suspended connection. So: no new connection
     * (quiesced), no new request handed up (dispatch answers 503 from now on, so nothing is
     * suspended again), the waiting ones released, and MHD given a few turns to write the answers,
     * releasing again after each (a turn may finish reading a request that then waits for nothing,
     * but never suspends one). */
    H.stopping = true;
    MHD_socket listener = MHD_quiesce_daemon(H.daemon);
    for (int i = 0; i < 4; i++) {
        release_waiting();
        MHD_run(H.daemon);
    }
    release_waiting();
    H.running = false;
    uv_poll_stop(&H.poll);
    uv_timer_stop(&H.timer);
    uv_timer_stop(&H.guard);
    uv_close((uv_handle_t *)&H.poll, NULL);
    uv_close((uv_handle_t *)&H.timer, NULL);
    uv_close((uv_handle_t *)&H.guard, NULL);
    MHD_stop_daemon(H.daemon);
    H.daemon = NULL;
    if (listener != MHD_INVALID_SOCKET)
        close(listener); /* quiesced: ours to close */
}

unsigned long long http_timeouts(void) { return H.timeouts; }

bool http_adopt(int fd, const char *address)
{
    struct sockaddr_in addr = {.sin_family = AF_INET};
    inet_pton(AF_INET, address, &addr.sin_addr);
    bool ok = H.running && MHD_add_connection(H.daemon, fd, (struct sockaddr *)&addr, sizeof addr) == MHD_YES;
    if (ok) {
        MHD_run(H.daemon);
        schedule();
    }
    return ok;
}
