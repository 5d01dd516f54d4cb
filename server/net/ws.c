/* WebSocket sessions. Everything here runs on the loop thread (libwebsockets is driven by the
 * same libuv loop), so sessions need no locks. Each session has an outgoing queue: info frames
 * are coalesced per (search id, line) while waiting to be written, so a slow client gets the
 * latest state rather than a growing backlog; final frames (bestmove, errors) are never dropped.
 * Closing a connection cancels every analysis it started. */
#include "ws.h"

#include <libwebsockets.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../api/api.h"
#include "../jobs/jobs.h"
#include "../base/log.h"

typedef struct Frame {
    struct Frame *next;
    bool info;
    int line;
    char id[64];
    size_t len;
    unsigned char *buf; /* LWS_PRE bytes of headroom, then the text */
} Frame;

typedef struct {
    char id[64]; /* the client's id, or the job id for a subscription */
    bool subscription;
    Job *job;
} WsSearch;

typedef struct Session {
    struct lws *wsi;
    Frame *out, *out_tail;
    char *rx;
    size_t rx_len;
    bool rx_too_large, rx_binary;
    WsSearch *searches;
    int search_count;
    struct Session *prev, *next;
} Session;

static struct {
    struct lws_context *ctx;
    const ServerConfig *cfg;
    Session *sessions;
    int clients;
    unsigned long long sent, coalesced;
} W;

void ws_stats(WsStats *s)
{
    s->clients = W.clients;
    s->frames_sent = W.sent;
    s->frames_coalesced = W.coalesced;
}

/* Sends one text frame. lws buffers what the socket does not take and sends it itself. */
static void write_frame(Session *s, unsigned char *buf, size_t len)
{
    if (lws_write(s->wsi, buf + LWS_PRE, len, LWS_WRITE_TEXT) < 0) {
        lws_set_timeout(s->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC); /* a dead connection */
        return;
    }
    W.sent++;
}

static void queue_text(Session *s, const char *text, bool info, const char *id, int line)
{
    size_t len = strlen(text);
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
    lws_callback_on_writable(s->wsi);
}

static void queue_json(Session *s, json_t *o, bool info, const char *id, int line)
{
    char *text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    if (text)
        queue_text(s, text, info, id, line);
    free(text);
}

static void send_error(Session *s, const char *id, const ApiError *e)
{
    json_t *o = json_pack("{s:s, s:o}", "type", "error", "error", api_error_json(e));
    if (id)
        json_object_set_new(o, "id", json_string(id));
    queue_json(s, o, false, id, 0);
}

static WsSearch *find_search(Session *s, const char *id)
{
    for (int i = 0; i < s->search_count; i++)
        if (!strcmp(s->searches[i].id, id))
            return &s->searches[i];
    return NULL;
}

static void remove_search(Session *s, WsSearch *w)
{
    job_release(w->job);
    *w = s->searches[--s->search_count];
}

/* The bestmove frame: the final result, named as the client named its search. */
static json_t *bestmove_frame(const WsSearch *w, json_t *result)
{
    json_t *o = result ? json_deep_copy(result) : json_object();
    json_object_set_new(o, "type", json_string("bestmove"));
    json_object_set_new(o, w->subscription ? "job" : "id", json_string(w->id));
    json_object_set(o, "move", json_object_get(o, "bestMove") ? json_object_get(o, "bestMove") : json_null());
    json_object_set(o, "san", json_object_get(o, "bestMoveSan") ? json_object_get(o, "bestMoveSan") : json_null());
    return o;
}

static void on_job_event(Job *job, json_t *event, bool final, void *user)
{
    Session *s = user;
    for (int i = 0; i < s->search_count; i++) {
        WsSearch *w = &s->searches[i];
        if (w->job != job)
            continue;
        if (final) {
            queue_json(s, bestmove_frame(w, event), false, w->id, 0);
            job_remove_listener(job, on_job_event, s);
            remove_search(s, w);
            return;
        }
        const char *type = json_string_value(json_object_get(event, "type"));
        if (!type || strcmp(type, "info"))
            return; /* status changes are not streamed */
        json_t *o = json_copy(event);
        json_object_del(o, "job");
        json_object_set_new(o, w->subscription ? "job" : "id", json_string(w->id));
        int line = (int)json_integer_value(json_object_get(event, "multiPv"));
        queue_json(s, o, true, w->id, line);
        return;
    }
}

static void op_analyse(Session *s, json_t *msg)
{
    ApiError e;
    json_t *id = json_object_get(msg, "id");
    const char *cid = json_is_string(id) ? json_string_value(id) : NULL;
    if (!cid || !*cid || strlen(cid) > 60) {
        api_error_set(&e, 400, "id_missing", "id", "an analysis needs an 'id': a string of 1 to 60 characters");
        send_error(s, NULL, &e);
        return;
    }
    if (find_search(s, cid)) {
        api_error_set(&e, 400, "id_in_use", "id", "an analysis with id '%s' is already running on this connection",
                      cid);
        send_error(s, cid, &e);
        return;
    }
    if (s->search_count >= W.cfg->ws_searches_max) {
        api_error_set(&e, 429, "too_many_searches", NULL,
                      "this connection already runs %ld analyses (the limit); stop one first", W.cfg->ws_searches_max);
        send_error(s, cid, &e);
        return;
    }
    Job *job = api_parse_analysis(&e, msg, true);
    if (!job) {
        send_error(s, cid, &e);
        return;
    }
    if (!jobs_submit(job)) {
        job_release(job);
        api_error_set(&e, 503, "queue_full", NULL, "every worker is busy and the queue is full; retry shortly");
        send_error(s, cid, &e);
        return;
    }
    WsSearch *grown = realloc(s->searches, (size_t)(s->search_count + 1) * sizeof *grown);
    if (!grown) {
        jobs_cancel(job);
        return;
    }
    s->searches = grown;
    WsSearch *w = &s->searches[s->search_count++];
    snprintf(w->id, sizeof w->id, "%s", cid);
    w->subscription = false;
    w->job = job;
    job_retain(job);
    job_add_listener(job, on_job_event, s);
}

static void op_stop(Session *s, json_t *msg)
{
    json_t *id = json_object_get(msg, "id");
    const char *cid = json_is_string(id) ? json_string_value(id) : NULL;
    WsSearch *w = cid ? find_search(s, cid) : NULL;
    if (!w || w->subscription) {
        ApiError e;
        api_error_set(&e, 404, "unknown_id", "id", "no analysis with id '%.60s' runs on this connection",
                      cid ? cid : "");
        send_error(s, cid, &e);
        return;
    }
    jobs_cancel(w->job); /* its final event sends the bestmove frame */
}

static void op_subscribe(Session *s, json_t *msg)
{
    ApiError e;
    json_t *jid = json_object_get(msg, "job");
    const char *id = json_is_string(jid) ? json_string_value(jid) : NULL;
    Job *job = id ? jobs_find(id) : NULL;
    if (!job) {
        api_error_set(&e, 404, "unknown_job", "job", "no job with id '%.40s'", id ? id : "");
        send_error(s, NULL, &e);
        return;
    }
    WsSearch sub = {{0}, true, job};
    snprintf(sub.id, sizeof sub.id, "%s", job->id);
    if (job->status != JOB_QUEUED && job->status != JOB_RUNNING) {
        queue_json(s, bestmove_frame(&sub, job->result), false, sub.id, 0);
        return;
    }
    if (find_search(s, sub.id))
        return; /* already subscribed */
    WsSearch *grown = realloc(s->searches, (size_t)(s->search_count + 1) * sizeof *grown);
    if (!grown)
        return;
    s->searches = grown;
    s->searches[s->search_count++] = sub;
    job_retain(job);
    job_add_listener(job, on_job_event, s);
}

static void handle_message(Session *s)
{
    ApiError e;
    if (s->rx_binary) {
        api_error_set(&e, 400, "binary_not_supported", NULL, "send JSON text frames, not binary ones");
        send_error(s, NULL, &e);
        return;
    }
    if (s->rx_too_large) {
        api_error_set(&e, 413, "message_too_large", NULL, "the message is larger than %ld bytes",
                      W.cfg->ws_message_max);
        send_error(s, NULL, &e);
        return;
    }
    json_t *msg = api_parse_json_text(&e, s->rx, s->rx_len);
    if (!msg) {
        send_error(s, NULL, &e);
        return;
    }
    json_t *op = json_object_get(msg, "op");
    const char *name = json_is_string(op) ? json_string_value(op) : NULL;
    if (!name)
        api_error_set(&e, 400, "op_missing", "op", "each message needs an 'op': analyse, stop, subscribe or ping");
    if (name && !strcmp(name, "ping"))
        queue_json(s, json_pack("{s:s}", "type", "pong"), false, NULL, 0);
    else if (name && !strcmp(name, "analyse"))
        op_analyse(s, msg);
    else if (name && !strcmp(name, "stop"))
        op_stop(s, msg);
    else if (name && !strcmp(name, "subscribe"))
        op_subscribe(s, msg);
    else {
        if (name)
            api_error_set(&e, 400, "unknown_op", "op", "unknown op '%.40s': use analyse, stop, subscribe or ping",
                          name);
        json_t *id = json_object_get(msg, "id");
        send_error(s, json_is_string(id) ? json_string_value(id) : NULL, &e);
    }
    json_decref(msg);
}

static void session_close(Session *s)
{
    while (s->search_count) {
        WsSearch *w = &s->searches[0];
        job_remove_listener(w->job, on_job_event, s);
        if (!w->subscription)
            jobs_cancel(w->job); /* nobody is left to read it: free the worker */
        remove_search(s, w);
    }
    free(s->searches);
    for (Frame *f = s->out, *next; f; f = next) {
        next = f->next;
        free(f->buf);
        free(f);
    }
    free(s->rx);
    if (s->prev)
        s->prev->next = s->next;
    else
        W.sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    W.clients--;
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
        s->next = W.sessions;
        if (W.sessions)
            W.sessions->prev = s;
        W.sessions = s;
        W.clients++;
        jobs_deliver_pending(); /* a storm of handshakes is a burst too */
        break;
    }
    case LWS_CALLBACK_RECEIVE: {
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
            handle_message(s);
            /* Many messages may arrive in one loop iteration (1,000 clients starting at once):
             * what workers published meanwhile goes out now, not after the whole burst. */
            jobs_deliver_pending();
        }
        break;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE: {
        Frame *f = s->out;
        if (!f)
            break;
        if (lws_write(wsi, f->buf + LWS_PRE, f->len, LWS_WRITE_TEXT) < 0)
            return -1;
        W.sent++;
        s->out = f->next;
        if (!s->out)
            s->out_tail = NULL;
        free(f->buf);
        free(f);
        if (s->out)
            lws_callback_on_writable(wsi);
        break;
    }
    case LWS_CALLBACK_CLOSED: session_close(s); break;
    default: break;
    }
    return 0;
}

static void lws_to_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    log_msg(level == LLL_ERR ? LOG_ERROR : LOG_WARN, "websocket: %.*s", (int)n, line);
}

bool ws_start(uv_loop_t *loop, const ServerConfig *cfg, int *bound_port)
{
    static struct lws_protocols protocols[] = {
        {"feelfish", callback, sizeof(Session), 4096, 0, NULL, 0},
        {NULL, NULL, 0, 0, 0, NULL, 0},
    };
    W.cfg = cfg;
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
    W.ctx = lws_create_context(&info);
    if (!W.ctx) {
        log_msg(LOG_ERROR, "cannot listen for WebSocket on %s:%ld (in use?)", cfg->bind, cfg->ws_port);
        return false;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(W.ctx, "default");
    *bound_port = vh ? lws_get_vhost_listen_port(vh) : (int)cfg->ws_port;
    return true;
}

void ws_stop(void)
{
    if (W.ctx)
        lws_context_destroy(W.ctx); /* closes every session: their searches are cancelled */
    W.ctx = NULL;
}
