/* REST routes. Every handler runs on the loop thread; a request that must wait for a search is
 * suspended and answered from the job's final event. Bad input gets a 4xx with a stable `code`,
 * a message saying what to fix and, where it applies, the `field`; nothing is changed by it. */
#include "api.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../engine/eval/affective.h"
#include "../domain/models.h"
#include "../domain/games.h"
#include "../base/log.h"
#include "../net/static.h"
#include "../store/store.h"
#include "../net/ws.h"

#define VERSION "0.1.0"

static const ServerConfig *Cfg;
static int HttpPort, WsPort;
static int64_t StartedMs;

void api_reply_error(Request *r, const ApiError *e)
{
    http_reply_json(r, e->status, json_pack("{s:o}", "error", api_error_json(e)));
}

json_t *api_parse_body(Request *r)
{
    const char *type = http_header(r, "Content-Type");
    if (!type || strncasecmp(type, "application/json", 16)) {
        http_reply_error(r, 415, "unsupported_media_type", NULL,
                         "send the body as JSON with 'Content-Type: application/json'");
        return NULL;
    }
    ApiError e;
    json_t *body = api_parse_json_text(&e, r->body, r->body_len);
    if (!body)
        api_reply_error(r, &e);
    return body;
}

/* ---- handlers ---- */

static void on_health(Request *r, const char *param)
{
    (void)param;
    JobsStats st;
    jobs_stats(&st);
    http_reply_json(r, 200,
                    json_pack("{s:s, s:s, s:{s:i, s:i}, s:{s:i, s:i}, s:I}", "status", "ok", "version", VERSION,
                              "workers", "busy", st.busy, "total", st.workers, "queue", "depth", st.queued, "capacity",
                              st.capacity, "uptimeMs", (json_int_t)(time_now_ms() - StartedMs)));
}

static void on_config(Request *r, const char *param)
{
    (void)param;
    json_t *o = json_object();
    for (int i = 0; i < SettingCount; i++) {
        const Setting *s = &Settings[i];
        const char *field = (const char *)Cfg + s->offset;
        if (s->type == SETTING_TEXT)
            json_object_set_new(o, s->json, json_string(field));
        else if (!strcmp(s->json, "maxNodes"))
            json_object_set_new(o, s->json, json_integer(*(const long long *)field));
        else
            json_object_set_new(o, s->json, json_integer(*(const long *)field));
    }
    json_object_set_new(o, "httpPort", json_integer(HttpPort));
    json_object_set_new(o, "wsPort", json_integer(WsPort));
    /* The WebSocket address as this client reaches the server: the Host it used, the WebSocket port. */
    const char *host = http_header(r, "Host");
    char name[256] = "localhost", url[300];
    if (host && *host && strlen(host) < sizeof name && !strpbrk(host, " /\\\"")) {
        snprintf(name, sizeof name, "%s", host);
        char *colon = name[0] == '[' ? strstr(name, "]:") : strrchr(name, ':');
        if (colon)
            colon[name[0] == '[' ? 1 : 0] = 0; /* drop the HTTP port, keep an IPv6 literal's brackets */
    }
    snprintf(url, sizeof url, "ws://%s:%d/", name, WsPort);
    json_object_set_new(o, "wsUrl", json_string(url));
    json_object_set_new(o, "modes", json_pack("[s, s, s]", "classical", "affective", "bayesian"));
    json_object_set_new(o, "version", json_string(VERSION));
    http_reply_json(r, 200, o);
}

/* The end of a REST wait: the request stops listening and gets `body` (the job's result shaped
 * by the caller), or a 503 when the job did not finish. Takes the reference to body. */
static void end_wait(Request *r, Job *job, JobListener listener, json_t *body)
{
    job_remove_listener(job, listener, r);
    r->pending = NULL;
    if (job->status == JOB_DONE)
        http_reply_json(r, 200, body);
    else {
        json_decref(body);
        http_reply_error(r, 503, "cancelled", NULL,
                         "the analysis was stopped before it finished (server shutting down?)");
    }
    http_resume(r);
    job_release(job);
}

/* A waiting POST /api/analyse hears its job's final event here. */
static void analyse_listener(Job *job, json_t *event, bool final, void *user)
{
    if (final)
        end_wait(user, job, analyse_listener, json_incref(event));
}

static bool submit(Request *r, Job *job)
{
    if (jobs_submit(job))
        return true;
    job_release(job);
    http_add_header(r, "Retry-After", "1");
    http_reply_error(r, 503, "queue_full", NULL, "every worker is busy and the queue is full; retry shortly");
    return false;
}

/* Validates body (consumed) into a job and queues it; NULL when the request already has its error
 * answer. With `listener`, the request then waits, suspended, for the job's final event. */
static Job *start_analysis(Request *r, json_t *body, JobListener listener)
{
    ApiError e;
    Job *job = api_parse_analysis(&e, body, false);
    json_decref(body);
    if (!job) {
        api_reply_error(r, &e);
        return NULL;
    }
    if (!submit(r, job))
        return NULL;
    if (listener) {
        job_retain(job);
        job_add_listener(job, listener, r);
        r->pending = job;
        http_suspend(r);
    }
    return job;
}

static void on_analyse(Request *r, const char *param)
{
    (void)param;
    json_t *body = api_parse_body(r);
    if (body)
        start_analysis(r, body, analyse_listener);
}

static void on_job_create(Request *r, const char *param)
{
    (void)param;
    json_t *body = api_parse_body(r);
    Job *job = body ? start_analysis(r, body, NULL) : NULL;
    if (!job)
        return;
    http_reply_json(r, 202, json_pack("{s:s, s:s}", "id", job->id, "status", "queued"));
}

typedef struct {
    Request *r; /* NULL once the client has gone */
    char id[64];
} LoadWait;

static void on_job_loaded(json_t *result, void *user)
{
    LoadWait *w = user;
    Request *r = w->r;
    free(w);
    if (!r) {
        json_decref(result);
        return;
    }
    r->pending_load = NULL;
    if (result)
        http_reply_json(r, 200, result);
    else
        http_reply_error(r, 404, "unknown_job", NULL, "no job with that id");
    http_resume(r);
}

static bool valid_id(const char *id)
{
    size_t n = strlen(id);
    return n > 0 && n < 40 && strspn(id, "0123456789abcdef") == n;
}

static void on_job_get(Request *r, const char *id)
{
    Job *job = jobs_find(id);
    if (!job && valid_id(id)) {
        /* Not in memory: finished jobs are answerable from storage, even after a restart. */
        LoadWait *w = malloc(sizeof *w);
        if (w) {
            w->r = r;
            snprintf(w->id, sizeof w->id, "%s", id);
            r->pending_load = w;
            http_suspend(r);
            store_load_job(id, on_job_loaded, w);
            return;
        }
    }
    if (!job) {
        http_reply_error(r, 404, "unknown_job", NULL, "no job with id '%.40s'", id);
        return;
    }
    json_t *o = job->result && job->status == JOB_DONE ? json_deep_copy(job->result) : json_object();
    json_object_set_new(o, "id", json_string(job->id));
    json_object_set_new(o, "status", json_string(JobStatusNames[job->status]));
    http_reply_json(r, 200, o);
}

static void on_job_delete(Request *r, const char *id)
{
    Job *job = jobs_find(id);
    if (!job) {
        http_reply_error(r, 404, "unknown_job", NULL, "no job with id '%.40s'", id);
        return;
    }
    jobs_cancel(job);
    http_reply_json(r, 200,
                    json_pack("{s:s, s:s}", "id", job->id, "status",
                              job->status == JOB_RUNNING ? "cancelling" : JobStatusNames[job->status]));
}

/* Lichess's cloud-eval shape, so existing Lichess clients can point at this server:
 * {"fen", "knodes", "depth", "pvs": [{"moves": "e2e4 e7e5", "cp": 20}]}. */
static void cloud_eval_listener(Job *job, json_t *event, bool final, void *user)
{
    if (!final)
        return;
    json_t *pvs = json_array(), *lines = json_object_get(event, "pvs");
    size_t i;
    json_t *line;
    json_array_foreach(lines, i, line)
    {
        json_t *moves = json_object_get(line, "moves"), *pv = json_object();
        char text[4096] = "";
        size_t k;
        json_t *m;
        json_array_foreach(moves, k, m)
        {
            if (k)
                strncat(text, " ", sizeof text - strlen(text) - 1);
            strncat(text, json_string_value(m), sizeof text - strlen(text) - 1);
        }
        json_object_set_new(pv, "moves", json_string(text));
        if (json_object_get(line, "mate"))
            json_object_set(pv, "mate", json_object_get(line, "mate"));
        else
            json_object_set(pv, "cp", json_object_get(line, "cp"));
        json_array_append_new(pvs, pv);
    }
    end_wait(user, job, cloud_eval_listener,
             json_pack("{s:O, s:I, s:O, s:o}", "fen", json_object_get(event, "fen"), "knodes",
                       (json_int_t)(json_integer_value(json_object_get(event, "nodes")) / 1000), "depth",
                       json_object_get(event, "depth"), "pvs", pvs));
}

static void on_cloud_eval(Request *r, const char *param)
{
    (void)param;
    const char *fen = http_query(r, "fen"), *multi = http_query(r, "multiPv");
    if (!fen) {
        http_reply_error(r, 400, "position_missing", "fen", "give the position as ?fen=...");
        return;
    }
    json_t *body = json_pack("{s:s, s:{s:i, s:i}}", "fen", fen, "limits", "depth", 18, "movetime", 2000);
    if (multi) {
        char *end;
        long n = strtol(multi, &end, 10);
        if (*end || n < 1) {
            json_decref(body);
            http_reply_error(r, 400, "bad_type", "multiPv", "multiPv must be a whole number >= 1");
            return;
        }
        json_object_set_new(body, "multiPv", json_integer(n));
    }
    start_analysis(r, body, cloud_eval_listener);
}

static void on_openapi(Request *r, const char *param)
{
    (void)param;
    http_reply_json(r, 200, api_openapi());
}

const Route Routes[] = {
    {"GET", "/api/health", on_health, "Server status, workers and queue"},
    {"GET", "/api/config", on_config, "Every limit and setting in force"},
    {"POST", "/api/analyse", on_analyse, "Analyse one position and answer when done"},
    {"POST", "/api/jobs", on_job_create, "Queue an analysis; answers 202 with its id at once"},
    {"GET", "/api/jobs/{id}", on_job_get, "A job's status, and its result when done"},
    {"DELETE", "/api/jobs/{id}", on_job_delete, "Cancel a queued or running job"},
    {"GET", "/api/cloud-eval", on_cloud_eval, "Analysis in Lichess's cloud-eval shape (?fen=&multiPv=)"},
    {"POST", "/api/games", games_create, "Start a game against the engine (mode, color, level, temperament, fen)"},
    {"GET", "/api/games/{id}", games_get, "A game: moves, status, emotions"},
    {"POST", "/api/games/{id}/moves", games_move, "Play a move; answers with the engine's reply"},
    {"GET", "/api/games/{id}/pgn", games_pgn, "The game as PGN"},
    {"POST", "/api/games/{id}/resign", games_resign, "Resign the game"},
    {"POST", "/api/games/{id}/takeback", games_takeback, "Take back your last move (and the engine's reply)"},
    {"GET", "/api/bayes/model", models_bayes_get, "The Bayesian model: games learned, selections (?detail=counts)"},
    {"POST", "/api/style", models_style_post, "Classify a player's style from PGN: posterior and features"},
    {"GET", "/api/openapi.json", on_openapi, "This API, as OpenAPI 3"},
    {"GET", "/metrics", metrics_handle, "Prometheus metrics"},
};
const int RouteCount = (int)(sizeof Routes / sizeof Routes[0]);

/* Matches path against a pattern segment by segment; a "{name}" segment matches any one non-empty
 * segment, and the first such is returned in *param (NUL-terminated copy in a static buffer). */
static bool match_path(const char *pattern, const char *path, const char **param)
{
    static char captured[128];
    bool have = false;
    const char *p = pattern, *q = path;
    while (*p && *q) {
        if (*p == '{') {
            const char *end = strchr(q, '/');
            size_t n = end ? (size_t)(end - q) : strlen(q);
            if (n == 0 || n >= sizeof captured)
                return false;
            if (!have) {
                memcpy(captured, q, n);
                captured[n] = 0;
                *param = captured;
                have = true;
            }
            q += n;
            p = strchr(p, '}');
            if (!p)
                return false;
            p++;
            continue;
        }
        if (*p != *q)
            return false;
        p++, q++;
    }
    return !*p && !*q;
}

void api_handle(Request *r)
{
    bool path_known = false;
    for (int i = 0; i < RouteCount; i++) {
        const char *param = NULL;
        if (!match_path(Routes[i].path, r->path, &param))
            continue;
        path_known = true;
        if (strcmp(Routes[i].method, r->method))
            continue;
        Routes[i].handler(r, param);
        return;
    }
    if (path_known) {
        char allow[64] = "";
        for (int i = 0; i < RouteCount; i++) {
            const char *param = NULL;
            if (match_path(Routes[i].path, r->path, &param)) {
                if (allow[0])
                    strcat(allow, ", ");
                strcat(allow, Routes[i].method);
            }
        }
        http_add_header(r, "Allow", allow);
        http_reply_error(r, 405, "method_not_allowed", NULL, "%s is not allowed here; use %s", r->method, allow);
        return;
    }
    if (strncmp(r->path, "/api/", 5) && static_serve(r))
        return;
    http_reply_error(r, 404, "not_found", NULL, "no such endpoint or file: %.200s", r->path);
}

void api_request_done(Request *r)
{
    games_request_done(r);
    if (r->pending_load) {
        ((LoadWait *)r->pending_load)->r = NULL; /* the look-up finishes on its own, answering nobody */
        r->pending_load = NULL;
    }
    Job *job = r->pending;
    if (!job)
        return;
    /* The client left before the answer: stop its search, the worker is freed for others. */
    job_remove_listener(job, analyse_listener, r);
    job_remove_listener(job, cloud_eval_listener, r);
    r->pending = NULL;
    jobs_cancel(job);
    job_release(job);
}

int api_route_index(const Request *r)
{
    for (int i = 0; i < RouteCount; i++) {
        const char *param;
        if (match_path(Routes[i].path, r->path, &param) && !strcmp(Routes[i].method, r->method))
            return i;
    }
    return RouteCount; /* "other" */
}

void api_on_job_event(Job *job, json_t *event, bool final)
{
    if (final && job->status == JOB_DONE)
        store_save_job(job->id, JobStatusNames[job->status], job->created_ms, job->finished_ms, json_incref(event));
}

json_t *api_openapi(void)
{
    json_t *paths = json_object();
    for (int i = 0; i < RouteCount; i++) {
        json_t *item = json_object_get(paths, Routes[i].path);
        if (!item) {
            item = json_object();
            json_object_set_new(paths, Routes[i].path, item);
        }
        char method[16];
        snprintf(method, sizeof method, "%s", Routes[i].method);
        for (char *c = method; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        json_t *op =
            json_pack("{s:s, s:{s:{s:s}}}", "summary", Routes[i].summary, "responses", "200", "description", "success");
        if (strchr(Routes[i].path, '{'))
            json_object_set_new(op, "parameters",
                                json_pack("[{s:s, s:s, s:b, s:{s:s}}]", "name", "id", "in", "path", "required", 1,
                                          "schema", "type", "string"));
        json_object_set_new(item, method, op);
    }
    return json_pack("{s:s, s:{s:s, s:s}, s:o}", "openapi", "3.0.3", "info", "title", "feelfish", "version", VERSION,
                     "paths", paths);
}

void api_init(const ServerConfig *cfg, int http_port, int ws_port)
{
    Cfg = cfg;
    analysis_set_config(cfg);
    HttpPort = http_port;
    WsPort = ws_port;
    StartedMs = time_now_ms();
}
