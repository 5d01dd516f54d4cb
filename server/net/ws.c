/* WebSocket sessions. Everything here runs on the loop thread (libwebsockets is driven by the
 * same libuv loop), so sessions need no locks. Each session has an outgoing queue: info frames
 * are coalesced per (id, line) while waiting to be written, so a slow client gets the latest state
 * rather than a growing backlog; other frames are never dropped. */
#include "ws.h"

#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../base/hash.h"
#include "../base/list.h"
#include "../base/log.h"
#include "../base/origin.h"
#include "../base/proxy.h"

typedef struct Frame {
    struct Frame *next;
    bool info;
    int line;
    char id[64];
    size_t len;
    unsigned char *buf; /* LWS_PRE bytes of headroom, then the text */
} Frame;

typedef struct WsSession {
    struct lws *wsi;
    Frame *out, *out_tail;
    char *rx;
    size_t rx_len;
    bool rx_too_large, rx_binary;
    size_t queued; /* bytes of the frames in `out` */
    bool closing;  /* being closed with 1008 (its queue overflowed, or the layer above said so) */
    void *user;    /* the layer above's state */
    char client[48];
    uint64_t active_ms;      /* last frame in or out (uv_now) */
    const char *close_reason;
    struct WsSession *prev, *next;
} Session;

#define PER_ADDRESS_SLOTS 16384

static struct {
    struct lws_context *ctx;
    uv_loop_t *loop;
    uv_timer_t idle_timer;
    /* Open sessions per peer address, by a hash of it (addresses sharing a slot share the cap). */
    uint32_t per_address[PER_ADDRESS_SLOTS];
    const ServerConfig *cfg;
    WsHandlers handlers;
    Session *sessions;
    int clients;
    unsigned long long sent, coalesced, overflows, refused, full, idle_closed;
} W;

void *ws_user(const WsSession *s) { return s->user; }
const char *ws_client(const WsSession *s) { return s->client; }
void ws_set_user(WsSession *s, void *user) { s->user = user; }

void ws_stats(WsStats *s)
{
    s->clients = W.clients;
    s->frames_sent = W.sent;
    s->frames_coalesced = W.coalesced;
    s->overflows = W.overflows;
    s->refused = W.refused;
    s->full = W.full;
    s->idle_closed = W.idle_closed;
}

/* Sends one text frame. lws buffers what the socket does not take and sends it itself. */
static void write_frame(Session *s, unsigned char *buf, size_t len)
{
    if (lws_write(s->wsi, buf + LWS_PRE, len, LWS_WRITE_TEXT) < 0) {
        lws_set_timeout(s->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC); /* a dead connection */
        return;
    }
    W.sent++;
    s->active_ms = uv_now(W.loop);
}

static void free_frames(Session *s)
{
    for (Frame *f = s->out, *next; f; f = next) {
        next = f->next;
        free(f->buf);
        free(f);
    }
    s->out = s->out_tail = NULL;
    s->queued = 0;
}

/* A client that does not read its frames (infos coalesce, but answers to its own messages do not)
 * is cut off once what waits for it passes --ws-queue-max: its queue is freed at once, and it is
 * closed with 1008 (policy violation), by the writeable callback if it reads again within 5 s, else
 * by that timeout. */
static void overflow(Session *s)
{
    free_frames(s);
    ws_close(s, "send queue full: read your frames");
    W.overflows++;
    log_msg(LOG_WARN, "websocket: a client's send queue passed %ld bytes: closed (1008)", W.cfg->ws_queue_max);
}

void ws_close(WsSession *s, const char *reason)
{
    if (s->closing)
        return;
    s->closing = true;
    s->close_reason = reason;                            /* given to libwebsockets when the close frame goes out */
    lws_callback_on_writable(s->wsi);                    /* what is queued goes first, then the close frame */
    lws_set_timeout(s->wsi, PENDING_TIMEOUT_USER_OK, 5); /* a peer that never reads is dropped */
}

void ws_send(WsSession *s, const char *text, size_t len, bool info, const char *id, int line)
{
    if (!id)
        id = "";
    if (s->closing)
        return;
    if (!s->out && !lws_send_pipe_choked(s->wsi)) {
        /* Nothing waits before it and the socket is writeable (poll() says POLLOUT, the test the
         * writeable callback would pass): written at once rather than on that callback, which
         * costs a loop iteration (behind any burst of input) and two epoll_ctl calls. A slow
         * reader's socket stops being writeable long before its buffer is full, so its frames
         * still queue here and coalesce. */
        unsigned char *buf = malloc(LWS_PRE + len);
        if (!buf)
            return;
        memcpy(buf + LWS_PRE, text, len);
        write_frame(s, buf, len);
        free(buf);
        return;
    }
    if (info)
        for (Frame *f = s->out; f; f = f->next)
            if (f->info && f->line == line && !strcmp(f->id, id)) {
                /* Not yet written: the newer state replaces it. */
                unsigned char *buf = realloc(f->buf, LWS_PRE + len);
                if (!buf)
                    return;
                f->buf = buf;
                memcpy(buf + LWS_PRE, text, len);
                s->queued = s->queued - f->len + len;
                f->len = len;
                W.coalesced++;
                return;
            }
    Frame *f = calloc(1, sizeof *f);
    unsigned char *buf = f ? malloc(LWS_PRE + len) : NULL;
    if (!buf) {
        free(f);
        return;
    }
    memcpy(buf + LWS_PRE, text, len);
    f->buf = buf;
    f->len = len;
    f->info = info;
    f->line = line;
    snprintf(f->id, sizeof f->id, "%s", id ? id : "");
    if (s->out_tail)
        s->out_tail->next = f;
    else
        s->out = f;
    s->out_tail = f;
    s->queued += len;
    if (s->queued > (size_t)W.cfg->ws_queue_max) {
        overflow(s);
        return;
    }
    lws_callback_on_writable(s->wsi);
}

static void session_close(Session *s)
{
    W.handlers.closed(s);
    free_frames(s);
    free(s->rx);
    LIST_UNLINK(W.sessions, s, prev, next);
    W.clients--;
    uint32_t *n = &W.per_address[hash_text(s->client) % PER_ADDRESS_SLOTS];
    if (*n)
        (*n)--;
}

/* A refused handshake's answer, written straight to the socket (lws then closes it): a few hundred
 * bytes, which an empty send buffer always takes. */
static void refuse_handshake(int fd, int status, const char *body)
{
    const char *reason = status == 401   ? "Unauthorized"
                         : status == 403 ? "Forbidden"
                         : status == 429 ? "Too Many Requests"
                         : status == 503 ? "Service Unavailable"
                                         : "Refused";
    char answer[1024];
    int len = snprintf(answer, sizeof answer,
                       "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                       "Connection: close\r\n\r\n%s",
                       status, reason, strlen(body), body);
    if (len > 0 && (size_t)len < sizeof answer) {
        ssize_t ignored = send(fd, answer, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)ignored;
    }
}

/* Who a handshake comes from: the peer, or behind a trusted proxy the client it names (base/proxy.h). */
static void client_of(struct lws *wsi, char *out, size_t size)
{
    char peer[48];
    lws_get_peer_simple(wsi, peer, sizeof peer);
    if (!proxy_trusted(proxy_list(), peer)) {
        snprintf(out, size, "%s", peer);
        return;
    }
    static char forwarded[16448], xff[16448]; /* the loop thread's */
    bool has_forwarded = lws_hdr_custom_copy(wsi, forwarded, sizeof forwarded, "forwarded:", 10) > 0;
    bool has_xff = lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) > 0;
    proxy_client(proxy_list(), peer, has_forwarded ? forwarded : NULL, has_xff ? xff : NULL, out, size);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    Session *s = user;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        /* A bounded kernel buffer: what a slow reader cannot take soon waits in the session's queue,
         * where newer info replaces older, instead of piling up stale in the kernel. */
        int bytes = (int)W.cfg->ws_send_buffer;
        if (setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes))
            log_msg(LOG_DEBUG, "websocket: cannot set the send buffer size");
        memset(s, 0, sizeof *s);
        s->wsi = wsi;
        client_of(wsi, s->client, sizeof s->client);
        W.per_address[hash_text(s->client) % PER_ADDRESS_SLOTS]++;
        s->active_ms = uv_now(W.loop);
        /* Handed to `opened` and not kept: an idle connection does not hold it (a token too long
         * to copy is as if none: the op layer refuses it). */
        char authorization[160];
        bool has_authorization =
            lws_hdr_copy(wsi, authorization, sizeof authorization, WSI_TOKEN_HTTP_AUTHORIZATION) > 0;
        LIST_PUSH(W.sessions, s, prev, next);
        W.clients++;
        if (W.handlers.opened)
            W.handlers.opened(s, has_authorization ? authorization : NULL);
        W.handlers.between_messages(); /* a storm of handshakes is a burst too */
        break;
    }
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        /* A browser's handshake names its page's origin: only the server's own page (or a listed
         * origin) may open a WebSocket, under one of the server's names; then there must be room
         * for it (--connections-max in all, --connections-per-ip from one address), and its token
         * (if any) must be valid. A refusal is an HTTP answer with its JSON error, not a bare close. */
        char origin[256] = "", host[256] = "", authorization[160], peer[48];
        bool has_origin = lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) > 0;
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
        int n = lws_hdr_copy(wsi, authorization, sizeof authorization, WSI_TOKEN_HTTP_AUTHORIZATION);
        client_of(wsi, peer, sizeof peer);
        WsHandshake h = {WS_REFUSE_NONE, n > 0 ? authorization : NULL, peer};
        if (!origin_host_allowed(host))
            h.refusal = WS_REFUSE_HOST;
        else if (has_origin && !origin_allowed(origin, host))
            h.refusal = WS_REFUSE_ORIGIN;
        else if (W.clients >= W.cfg->connections_max ||
                 (W.cfg->connections_per_ip &&
                  W.per_address[hash_text(peer) % PER_ADDRESS_SLOTS] >= (uint32_t)W.cfg->connections_per_ip))
            h.refusal = WS_REFUSE_FULL;
        char body[640] = "{}";
        int status = W.handlers.admit ? W.handlers.admit(&h, body, sizeof body) : h.refusal ? 403 : 0;
        if (!status)
            break;
        if (h.refusal == WS_REFUSE_FULL)
            W.full++;
        else
            W.refused++;
        refuse_handshake(lws_get_socket_fd(wsi), status, body);
        return 1; /* refused before the upgrade */
    }
    case LWS_CALLBACK_RECEIVE: {
        s->active_ms = uv_now(W.loop);
        if (lws_is_first_fragment(wsi)) {
            s->rx_len = 0;
            s->rx_too_large = false;
            s->rx_binary = lws_frame_is_binary(wsi);
        }
        if (!s->rx_too_large && !s->rx_binary) {
            if (s->rx_len + len > (size_t)W.cfg->ws_message_max)
                s->rx_too_large = true;
            else {
                char *rx = realloc(s->rx, s->rx_len + len + 1);
                if (!rx)
                    return -1;
                memcpy(rx + s->rx_len, in, len);
                s->rx = rx;
                s->rx_len += len;
                s->rx[s->rx_len] = 0;
            }
        }
        if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
            WsMessageKind kind = s->rx_binary ? WS_BINARY : s->rx_too_large ? WS_TOO_LARGE : WS_TEXT;
            W.handlers.message(s, kind, kind == WS_TEXT && s->rx ? s->rx : "", kind == WS_TEXT ? s->rx_len : 0);
            /* Many messages may arrive in one loop iteration (1,000 clients starting at once):
             * what workers published meanwhile goes out now, not after the whole burst. */
            W.handlers.between_messages();
        }
        break;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE: {
        Frame *f = s->out;
        if (!f && s->closing) {
            /* The close frame, written here: libwebsockets 4.1 takes a -1 from this callback for a
             * failed write and drops the socket without the frame lws_close_reason prepared, so
             * the frame goes out as lws itself writes one (its private LWS_WRITE_CLOSE, 4). */
            unsigned char frame[LWS_PRE + 2 + 123];
            size_t n = strlen(s->close_reason) > 123 ? 123 : strlen(s->close_reason);
            frame[LWS_PRE] = (unsigned char)(LWS_CLOSE_STATUS_POLICY_VIOLATION >> 8);
            frame[LWS_PRE + 1] = (unsigned char)(LWS_CLOSE_STATUS_POLICY_VIOLATION & 0xff);
            memcpy(frame + LWS_PRE + 2, s->close_reason, n);
            lws_write(wsi, frame + LWS_PRE, 2 + n, (enum lws_write_protocol)4);
            return -1;
        }
        if (!f)
            break;
        if (lws_write(wsi, f->buf + LWS_PRE, f->len, LWS_WRITE_TEXT) < 0)
            return -1;
        W.sent++;
        s->active_ms = uv_now(W.loop);
        s->out = f->next;
        if (!s->out)
            s->out_tail = NULL;
        s->queued -= f->len;
        free(f->buf);
        free(f);
        if (s->out || s->closing)
            lws_callback_on_writable(wsi);
        break;
    }
    case LWS_CALLBACK_CLOSED:
        if (s->wsi) /* established (a handshake refused by the filter never was) */
            session_close(s);
        break;
    default: break;
    }
    return 0;
}

/* libwebsockets' own complaints, one line each; the same line again and again (accept failing
 * while descriptors are short) is said once, then how often it came, at most once a minute. */
static void lws_to_log(int level, const char *line)
{
    static char last[256];
    static unsigned long repeats;
    static uint64_t said_ms;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    uint64_t now = W.loop ? uv_now(W.loop) : 0;
    if (n < sizeof last && !strncmp(last, line, n) && !last[n]) {
        repeats++;
        if (now - said_ms < 60000)
            return;
        log_msg(LOG_WARN, "websocket: the last message came %lu more times", repeats);
        repeats = 0;
        said_ms = now;
        return;
    }
    if (repeats)
        log_msg(LOG_WARN, "websocket: the last message came %lu more times", repeats);
    repeats = 0;
    said_ms = now;
    snprintf(last, sizeof last, "%.*s", (int)(n < sizeof last ? n : sizeof last - 1), line);
    log_msg(level == LLL_ERR ? LOG_ERROR : LOG_WARN, "websocket: %.*s", (int)n, line);
}

/* Every few seconds: a session with no frame either way for --ws-idle-timeout is closed. (A
 * silent peer is also pinged by libwebsockets after --ws-ping-interval and dropped if it does not
 * answer.) */
static void on_idle_check(uv_timer_t *t)
{
    uint64_t now = uv_now(t->loop);
    for (Session *s = W.sessions; s; s = s->next)
        if (!s->closing && now - s->active_ms > (uint64_t)W.cfg->ws_idle_timeout * 1000) {
            W.idle_closed++;
            ws_close(s, "idle");
        }
}

bool ws_start(uv_loop_t *loop, const ServerConfig *cfg, const WsHandlers *handlers, int *bound_port)
{
    static struct lws_protocols protocols[] = {
        /* lws gives every connection a receive buffer of this size for as long as it is open: a
         * message larger than it arrives in fragments, which RECEIVE joins up. 512 bytes holds a
         * typical op whole and keeps an idle connection small; what one send() may write is set
         * on its own (lws would otherwise cap it at the receive size). */
        {"feelfish", callback, sizeof(Session), 512, 0, NULL, 65536},
        {NULL, NULL, 0, 0, 0, NULL, 0},
    };
    W.cfg = cfg;
    W.loop = loop;
    W.handlers = *handlers;
    static lws_retry_bo_t policy;
    policy.secs_since_valid_ping = (uint16_t)cfg->ws_ping_interval;
    policy.secs_since_valid_hangup = (uint16_t)(2 * cfg->ws_ping_interval);
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_to_log);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = {loop};
    info.port = (int)cfg->ws_port;
    info.iface = strcmp(cfg->bind, "0.0.0.0") ? cfg->bind : NULL;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6;
    info.foreign_loops = loops;
    info.pcontext = &W.ctx;
    info.ka_time = 60;
    info.ka_probes = 3;
    info.ka_interval = 10;
    info.retry_and_idle_policy = &policy;
    info.timeout_secs = (unsigned)cfg->header_timeout; /* a handshake must be done within it */
    W.ctx = lws_create_context(&info);
    if (!W.ctx) {
        log_msg(LOG_ERROR, "cannot listen for WebSocket on %s:%ld (in use?)", cfg->bind, cfg->ws_port);
        return false;
    }
    uv_timer_init(loop, &W.idle_timer);
    uint64_t every = (uint64_t)cfg->ws_idle_timeout * 200; /* a fifth of the timeout, 1 to 5 s */
    every = every < 1000 ? 1000 : every > 5000 ? 5000 : every;
    uv_timer_start(&W.idle_timer, on_idle_check, every, every);
    struct lws_vhost *vh = lws_get_vhost_by_name(W.ctx, "default");
    *bound_port = vh ? lws_get_vhost_listen_port(vh) : (int)cfg->ws_port;
    return true;
}

void ws_stop(void)
{
    if (W.loop && uv_is_active((uv_handle_t *)&W.idle_timer)) {
        uv_timer_stop(&W.idle_timer);
        uv_close((uv_handle_t *)&W.idle_timer, NULL);
    }
    if (W.ctx)
        lws_context_destroy(W.ctx); /* closes every session: their searches are cancelled */
    W.ctx = NULL;
}

bool ws_adopt(int fd) { return W.ctx && lws_adopt_socket(W.ctx, fd) != NULL; }
