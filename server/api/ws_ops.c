/* The WebSocket ops: analyse (a search streamed as info frames, then a bestmove frame), stop,
 * subscribe (to a REST job) and ping; error frames carry the same codes as REST. Each connection
 * keeps its searches here; closing it cancels every analysis it started. Loop thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "auth.h"
#include "encode.h"
#include "game_analysis.h"
#include "quota.h"
#include "reply.h"
#include "request.h"
#include "routes.h"

static const ServerConfig *Cfg;

typedef struct {
    char id[64]; /* the client's id, or the job id for a subscription */
    bool subscription;
    Job *job;
} WsSearch;

typedef struct {
    WsSession *ws;
    Identity who; /* from the handshake's Authorization header, or an auth op */
    WsSearch *searches;
    int search_count;
} Conn;

void ws_ops_set_config(const ServerConfig *cfg) { Cfg = cfg; }

static void send_json(Conn *c, json_t *o, bool info, const char *id, int line)
{
    char *text = api_dumps(o, false);
    json_decref(o);
    if (text)
        ws_send(c->ws, text, strlen(text), info, id, line);
    free(text);
}

static void send_error(Conn *c, const char *id, const ApiError *e)
{
    json_t *o = json_pack("{s:s, s:o}", "type", "error", "error", encode_error(e));
    if (id)
        json_object_set_new(o, "id", json_string(id));
    send_json(c, o, false, id, 0);
}

static WsSearch *find_search(Conn *c, const char *id)
{
    for (int i = 0; i < c->search_count; i++)
        if (!strcmp(c->searches[i].id, id))
            return &c->searches[i];
    return NULL;
}

static void remove_search(Conn *c, WsSearch *w)
{
    job_release(w->job);
    *w = c->searches[--c->search_count];
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

static void on_job_event(Job *job, const JobEvent *ev, void *user)
{
    Conn *c = user;
    for (int i = 0; i < c->search_count; i++) {
        WsSearch *w = &c->searches[i];
        if (w->job != job)
            continue;
        if (ev->kind == JOB_EVENT_FINAL) {
            send_json(c, bestmove_frame(w, ev->rendered), false, w->id, 0);
            job_remove_listener(job, on_job_event, c);
            remove_search(c, w);
            return;
        }
        if (ev->kind != JOB_EVENT_INFO)
            return; /* status changes are not streamed */
        json_t *o = json_copy(ev->rendered);
        json_object_del(o, "job");
        json_object_set_new(o, w->subscription ? "job" : "id", json_string(w->id));
        send_json(c, o, true, w->id, ev->line);
        return;
    }
}

static bool add_search(Conn *c, const WsSearch *w)
{
    WsSearch *grown = realloc(c->searches, (size_t)(c->search_count + 1) * sizeof *grown);
    if (!grown)
        return false;
    c->searches = grown;
    c->searches[c->search_count++] = *w;
    job_retain(w->job);
    job_add_listener(w->job, on_job_event, c);
    return true;
}

static void op_analyse(Conn *c, json_t *msg)
{
    ApiError e;
    json_t *id = json_object_get(msg, "id");
    const char *cid = json_is_string(id) ? json_string_value(id) : NULL;
    if (!cid || !*cid || strlen(cid) > 60) {
        api_error_set(&e, 400, "id_missing", "id", "an analysis needs an 'id': a string of 1 to 60 characters");
        send_error(c, NULL, &e);
        return;
    }
    if (find_search(c, cid)) {
        api_error_set(&e, 400, "id_in_use", "id", "an analysis with id '%s' is already running on this connection",
                      cid);
        send_error(c, cid, &e);
        return;
    }
    if (c->search_count >= Cfg->ws_searches_max) {
        api_error_set(&e, 429, "too_many_searches", NULL,
                      "this connection already runs %ld analyses (the limit); stop one first", Cfg->ws_searches_max);
        send_error(c, cid, &e);
        return;
    }
    Job *job = request_start(&e, msg, true, c->who.who, 0);
    if (!job) {
        send_error(c, cid, &e);
        return;
    }
    WsSearch w = {{0}, false, job};
    snprintf(w.id, sizeof w.id, "%s", cid);
    if (!add_search(c, &w))
        jobs_cancel(job);
}

static void op_stop(Conn *c, json_t *msg)
{
    json_t *id = json_object_get(msg, "id");
    const char *cid = json_is_string(id) ? json_string_value(id) : NULL;
    if (!cid || !*cid) {
        ApiError e;
        api_error_set(&e, 400, "id_missing", "id", "stop needs the 'id' of the analysis to stop");
        send_error(c, NULL, &e);
        return;
    }
    WsSearch *w = find_search(c, cid);
    if (!w || w->subscription) {
        ApiError e;
        api_error_set(&e, 404, "unknown_id", "id", "no analysis with id '%.60s' runs on this connection",
                      cid ? cid : "");
        send_error(c, cid, &e);
        return;
    }
    jobs_cancel(w->job); /* its final event sends the bestmove frame */
}

static void op_subscribe(Conn *c, json_t *msg)
{
    ApiError e;
    json_t *ga = json_object_get(msg, "gameAnalysis");
    if (ga) { /* a whole game's analysis: progress frames, then the result */
        if (!game_analysis_subscribe(c->ws, json_string_value(ga), &c->who, &e))
            send_error(c, NULL, &e);
        return;
    }
    json_t *jid = json_object_get(msg, "job");
    const char *id = json_is_string(jid) ? json_string_value(jid) : NULL;
    Job *job = id ? jobs_find(id) : NULL;
    if (!job) {
        api_error_set(&e, 404, "unknown_job", "job", "no job with id '%.40s'", id ? id : "");
        send_error(c, NULL, &e);
        return;
    }
    if (!auth_sees_job(job->client, &c->who, &e)) {
        send_error(c, NULL, &e);
        return;
    }
    WsSearch sub = {{0}, true, job};
    snprintf(sub.id, sizeof sub.id, "%s", job->id);
    if (job->status != JOB_QUEUED && job->status != JOB_RUNNING) {
        send_json(c, bestmove_frame(&sub, job->result), false, sub.id, 0);
        return;
    }
    if (find_search(c, sub.id))
        return;                                    /* already subscribed */
    if (c->search_count >= Cfg->ws_searches_max) { /* subscriptions count as the connection's searches */
        api_error_set(&e, 429, "too_many_searches", NULL,
                      "this connection already follows %ld analyses (the limit); stop one first", Cfg->ws_searches_max);
        send_error(c, NULL, &e);
        return;
    }
    add_search(c, &sub);
}

/* {"op": "auth", "token": "..."}: for browsers, which cannot set a handshake's headers. */
static void op_auth(Conn *c, json_t *msg)
{
    ApiError e;
    const char *token = json_string_value(json_object_get(msg, "token"));
    char header[TOKEN_TEXT_LEN + 16];
    if (!token || strlen(token) > TOKEN_TEXT_LEN) {
        api_error_set(&e, 400, "token_missing", "token", "send {\"op\": \"auth\", \"token\": \"ff_...\"}");
        send_error(c, NULL, &e);
        return;
    }
    snprintf(header, sizeof header, "Bearer %s", token);
    Identity who;
    if (!auth_identify(header, ws_client(c->ws), &who, &e)) {
        int retry;
        if (!quota_auth_failed(ws_client(c->ws), &retry)) /* the address pays for every wrong token */
            api_error_set(&e, 429, "rate_limited", NULL, "too many tokens that are not valid from %.48s; retry in %d s",
                          ws_client(c->ws), retry);
        send_error(c, NULL, &e);
        return;
    }
    c->who = who;
    char scopes[64];
    scopes_format(who.scopes, scopes, sizeof scopes);
    send_json(c, json_pack("{s:s, s:s}", "type", "authenticated", "scopes", scopes), false, NULL, 0);
}

static void on_message(WsSession *s, WsMessageKind kind, const char *text, size_t len)
{
    Conn *c = ws_user(s);
    ApiError e;
    int retry;
    if (!quota_take(c->who.who, &retry)) {
        api_error_set(&e, 429, "rate_limited", NULL, "too many messages from %.48s; retry in %d s", c->who.who, retry);
        send_error(c, NULL, &e);
        return;
    }
    if (kind == WS_BINARY) {
        api_error_set(&e, 400, "binary_not_supported", NULL, "send JSON text frames, not binary ones");
        send_error(c, NULL, &e);
        return;
    }
    if (kind == WS_TOO_LARGE) {
        api_error_set(&e, 413, "message_too_large", NULL, "the message is larger than %ld bytes", Cfg->ws_message_max);
        send_error(c, NULL, &e);
        return;
    }
    json_t *msg = api_parse_json_text(&e, text, len);
    if (!msg) {
        send_error(c, NULL, &e);
        return;
    }
    json_t *op = json_object_get(msg, "op");
    const char *name = json_is_string(op) ? json_string_value(op) : NULL;
    if (!name)
        api_error_set(&e, 400, "op_missing", "op",
                      "each message needs an 'op': analyse, stop, subscribe, auth or ping");
    bool searching = name && (!strcmp(name, "analyse") || !strcmp(name, "subscribe"));
    if (searching && !auth_allows(&c->who, SCOPE_ANALYSE, &e)) {
        json_t *id = json_object_get(msg, "id");
        send_error(c, json_is_string(id) ? json_string_value(id) : NULL, &e);
    } else if (name && !strcmp(name, "ping"))
        send_json(c, json_pack("{s:s}", "type", "pong"), false, NULL, 0);
    else if (name && !strcmp(name, "auth"))
        op_auth(c, msg);
    else if (name && !strcmp(name, "analyse"))
        op_analyse(c, msg);
    else if (name && !strcmp(name, "stop"))
        op_stop(c, msg);
    else if (name && !strcmp(name, "subscribe"))
        op_subscribe(c, msg);
    else {
        if (name)
            api_error_set(&e, 400, "unknown_op", "op", "unknown op '%.40s': use analyse, stop, subscribe, auth or ping",
                          name);
        json_t *id = json_object_get(msg, "id");
        send_error(c, json_is_string(id) ? json_string_value(id) : NULL, &e);
    }
    json_decref(msg);
}

static void on_open(WsSession *s, const char *authorization)
{
    Conn *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->ws = s;
    ws_set_user(s, c);
    ApiError e;
    if (!auth_identify(authorization, ws_client(s), &c->who, &e)) /* admitted: it was valid then */
        ws_close(s, "invalid token");
}

/* A handshake is refused before the upgrade, with the HTTP answer a REST request would get: a name
 * or page that is not the server's (403), no room (503), a token that is not valid (401; 429 once
 * its address has tried too many). */
static int admit(const WsHandshake *h, char *body, size_t size)
{
    ApiError e = {0};
    Identity ignored;
    int retry;
    if (h->refusal == WS_REFUSE_HOST)
        api_error_set(&e, 403, "host_not_allowed", NULL,
                      "this server does not answer to that name (the operator can add it with --allowed-hosts)");
    else if (h->refusal == WS_REFUSE_ORIGIN)
        api_error_set(
            &e, 403, "origin_not_allowed", NULL,
            "pages from that origin may not use this server (the operator can add it with --allowed-origins)");
    else if (h->refusal == WS_REFUSE_FULL)
        api_error_set(&e, 503, "too_many_connections", NULL,
                      "too many WebSocket connections (from %.48s, or in all): close one, or retry later", h->address);
    else if (!auth_identify(h->authorization, h->address, &ignored, &e) && !quota_auth_failed(h->address, &retry))
        api_error_set(&e, 429, "rate_limited", NULL,
                      "too many handshakes with a token that is not valid from %.48s; retry in %d s", h->address,
                      retry);
    if (!e.status)
        return 0;
    api_error_text(&e, body, size);
    return e.status;
}

static void on_close(WsSession *s)
{
    Conn *c = ws_user(s);
    if (!c)
        return;
    game_analysis_forget_session(s);
    while (c->search_count) {
        WsSearch *w = &c->searches[0];
        job_remove_listener(w->job, on_job_event, c);
        if (!w->subscription)
            jobs_cancel(w->job); /* nobody is left to read it: free the worker */
        remove_search(c, w);
    }
    free(c->searches);
    free(c);
    ws_set_user(s, NULL);
}

const WsHandlers ApiWsHandlers = {admit, on_open, on_message, on_close, jobs_deliver_pending};
