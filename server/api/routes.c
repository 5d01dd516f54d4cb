/* REST routes: one table, matching, and the server's own endpoints (health, config, the contract:
 * server/api/openapi.json, written by hand, built in, and checked by the integration tests to list
 * exactly this table's routes, and the WebSocket's, server/api/asyncapi.json). Every handler runs on
 * the loop thread; a request that must wait is suspended and answered later. Bad input gets a 4xx
 * with a stable `code`, a message saying what to fix and, where it applies, the `field`; nothing is
 * changed by it. */
#include "routes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/core/embed.h"
#include "../base/log.h"
#include "../base/origin.h"
#include "../base/proxy.h"
#include "../base/utf8.h"
#include "../domain/games.h"
#include "../domain/shared.h"
#include "../net/static.h"
#include "../store/store.h"
#include "api.h"
#include "auth.h"
#include "game_analysis.h"
#include "quota.h"
#include "persist.h"
#include "reply.h"
#include "request.h"
#include "retention.h"

#define VERSION "0.1.0"

static const ServerConfig *Cfg;
static int HttpPort, WsPort;
static int64_t StartedMs;

/* Written with one snprintf rather than built with jansson: this is the route load balancers and
 * monitors poll, and json_pack + json_dumps cost it ten times as much as the rest of the request. */
static void on_health(Request *r, const char *param)
{
    (void)param;
    JobsStats st;
    jobs_stats(&st);
    StoreHealth sh;
    store_health(&sh);
    /* Degraded: answering, but nothing new can be stored (writes get 503 storage_unavailable). */
    char quoted[6 * sizeof sh.last_error + 4], error[sizeof quoted + 16], cluster[sizeof quoted + 48];
    error[0] = cluster[0] = 0; /* (not "= {0}": zeroing kilobytes a request for two empty strings) */
    if (sh.last_error[0] && utf8_json_string(quoted, sizeof quoted, sh.last_error))
        snprintf(error, sizeof error, ",\"lastError\":%s", quoted);
    if (shared_on() && utf8_json_string(quoted, sizeof quoted, shared_name())) /* a cluster's front */
        snprintf(cluster, sizeof cluster, ",\"cluster\":{\"front\":%s,\"redisConnected\":%s}", quoted,
                 shared_ready() ? "true" : "false");
    char text[sizeof error + sizeof cluster + 512];
    int n = snprintf(text, sizeof text,
                     "{\"status\":\"%s\",\"version\":\"" VERSION "\",\"workers\":{\"busy\":%d,\"total\":%d,"
                     "\"quick\":{\"busy\":%d,\"total\":%d}},\"queue\":{\"depth\":%d,\"capacity\":%d},\"uptimeMs\":%lld,"
                     "\"storage\":{\"writing\":%s,\"sizeBytes\":%lld,\"failedBatches\":%llu%s}%s}",
                     sh.writing && (!shared_on() || shared_ready()) ? "ok" : "degraded", st.busy, st.workers,
                     st.quick_busy, st.quick_workers, st.queued, st.capacity, (long long)(time_now_ms() - StartedMs),
                     sh.writing ? "true" : "false", sh.size_bytes, sh.failures, error, cluster);
    if (n < 0 || (size_t)n >= sizeof text) {
        api_reply_fail(r, 500, "internal", NULL, "the health answer did not fit its buffer");
        return;
    }
    http_reply(r, 200, "application/json", text, (size_t)n);
}

static void on_config(Request *r, const char *param)
{
    (void)param;
    json_t *o = json_object();
    /* Where the server keeps its files (and its Redis URL) is the operator's business: shown on a
     * loopback server without tokens, else only to an admin token. */
    bool sees_paths = auth_mode() == AUTH_OFF || (r->scopes & SCOPE_ADMIN);
    for (int i = 0; i < SettingCount; i++) {
        const Setting *s = &Settings[i];
        const char *field = (const char *)Cfg + s->offset;
        if (s->private && !sees_paths)
            continue;
        if (s->type == SETTING_TEXT && !strcmp(s->json, "redis")) { /* never its password, even to an admin */
            char shown[sizeof Cfg->redis + 8];
            redis_url_redact(field, shown, sizeof shown);
            json_object_set_new(o, s->json, json_string(shown));
        } else if (s->type == SETTING_TEXT)
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
    bool tls = false;
    char origin[256];
    if (Cfg->public_url[0]) { /* through the operator's proxy: its WebSocket path, /ws, on the public origin */
        tls = !strncmp(Cfg->public_url, "https://", 8);
        const char *rest = Cfg->public_url + (tls ? 8 : 7);
        size_t n = strlen(rest);
        snprintf(url, sizeof url, "%s://%.*s/ws", tls ? "wss" : "ws", (int)(n && rest[n - 1] == '/' ? n - 1 : n), rest);
    } else if (r->via_proxy && proxy_public_origin(http_header(r, "Forwarded"), http_header(r, "X-Forwarded-Proto"),
                                                   http_header(r, "X-Forwarded-Host"), host, &tls, origin,
                                                   sizeof origin)) /* as the trusted proxy says the client came */
        snprintf(url, sizeof url, "%s://%s/ws", tls ? "wss" : "ws", origin);
    else
        snprintf(url, sizeof url, "ws://%s:%d/", name, WsPort);
    json_object_set_new(o, "wsUrl", json_string(url));
    json_object_set_new(o, "modes", json_pack("[s, s, s]", "classical", "affective", "bayesian"));
    json_t *temperaments = json_array(); /* the affective mode's, with the gain each has unless one is asked */
    for (int i = 0; i < TemperamentCount; i++)
        json_array_append_new(temperaments,
                              json_pack("{s:s, s:f}", "name", Temperaments[i].name, "gain", Temperaments[i].gain));
    json_object_set_new(o, "temperaments", temperaments);
    json_t *levels = json_array(); /* each level's rating (docs/levels.md; null: full strength) */
    for (int level = 1; level <= GAMES_LEVEL_MAX; level++)
        json_array_append_new(levels,
                              json_pack("{s:i, s:o}", "level", level, "elo",
                                        GamesLevelElo[level] ? json_integer(GamesLevelElo[level]) : json_null()));
    json_object_set_new(o, "levels", levels);
    json_object_set_new(o, "elo", json_pack("{s:i, s:i}", "min", STRENGTH_ELO_MIN, "max", STRENGTH_ELO_MAX));
    json_object_set_new(o, "authMode", json_string(auth_mode_name())); /* what "auto" became */
    json_t *exposed = json_array(); /* the quotas set by the exposed defaults, not by the operator */
    for (const char *f = Cfg->exposed_defaults; *f;) {
        size_t n = strcspn(f, ",");
        json_array_append_new(exposed, json_stringn(f, n));
        f += n + (f[n] == ',');
    }
    json_object_set_new(o, "exposedDefaults", exposed);
    json_object_set_new(o, "version", json_string(VERSION));
    char evaluation[160]; /* the classical evaluation: the network in use, or the hand-written one */
    nnue_describe(evaluation, sizeof evaluation);
    json_object_set_new(o, "evaluation", json_string(evaluation));
    api_reply_json(r, 200, o);
}

/* The API contract, REST and WebSocket, built in by the assembler as the network is (the Makefile
 * rebuilds routes.o when either file changes); served as it is. */
EMBED_FILE(feelfish_openapi, "server/api/openapi.json", 1);
EMBED_FILE(feelfish_asyncapi, "server/api/asyncapi.json", 1);

static void on_openapi(Request *r, const char *param)
{
    (void)param;
    http_reply(r, 200, "application/json", (const char *)feelfish_openapi_data, (size_t)feelfish_openapi_size);
}

/* The WebSocket's contract; its references to the REST one ("openapi.json#/components/...") resolve
 * beside it, to /api/openapi.json. */
static void on_asyncapi(Request *r, const char *param)
{
    (void)param;
    http_reply(r, 200, "application/json", (const char *)feelfish_asyncapi_data, (size_t)feelfish_asyncapi_size);
}

/* The API's reference page: web/docs.html, which renders /api/openapi.json in the browser. */
static void on_docs(Request *r, const char *param)
{
    (void)param;
    if (!static_serve_file(r, "/docs.html"))
        api_reply_fail(r, 404, "not_found", NULL,
                       "the API reference page is not built (make web); the contract is /api/openapi.json");
}

#define ANALYSE SCOPE_ANALYSE
#define PLAY SCOPE_PLAY
const Route Routes[] = {
    {"GET", "/api/health", on_health, "Server status, workers and queue", 0, true},
    {"GET", "/api/config", on_config, "Every limit and setting in force", 0, true},
    {"POST", "/api/analyse", analysis_analyse, "Analyse one position and answer when done", ANALYSE, false},
    {"POST", "/api/jobs", analysis_job_create, "Queue an analysis; answers 202 with its id at once", ANALYSE, false},
    {"GET", "/api/jobs/{id}", analysis_job_get, "A job's status, and its result when done (its owner's)", 0, false},
    {"DELETE", "/api/jobs/{id}", analysis_job_delete, "Cancel a queued or running job (its owner's)", 0, false},
    {"POST", "/api/play", play_route,
     "Stateless play: a position and a level (1-8), an elo or limits -> the engine's move, SAN, new FEN, status", PLAY,
     false},
    {"POST", "/api/lab", lab_route,
     "The search lab: minimax, alpha-beta, SCOUT, NegaScout, SSS* and MTD(f) side by side (value, nodes, time)",
     ANALYSE, false},
    {"POST", "/api/game-analysis", game_analysis_create,
     "Analyse a whole game (PGN, or fen and moves) as Lichess does; answers 202 with its id", ANALYSE, false},
    {"GET", "/api/game-analysis/{id}", game_analysis_get,
     "A game analysis: status, progress, and when done the per-ply analysis and players", 0, false},
    {"GET", "/api/game-analysis/{id}/pgn", game_analysis_pgn, "A finished game analysis as annotated PGN", 0, false},
    {"DELETE", "/api/game-analysis/{id}", game_analysis_delete, "Cancel a game analysis (its owner's)", 0, false},
    {"GET", "/api/cloud-eval", analysis_cloud_eval, "Analysis in Lichess's cloud-eval shape (?fen=&multiPv=)", ANALYSE,
     false},
    {"POST", "/api/games", games_route_create,
     "Start a game against the engine (mode, color, level or elo, temperament, fen)", PLAY, false},
    {"GET", "/api/games/{id}", games_route_get, "A game: moves, status, emotions", 0, false},
    {"POST", "/api/games/{id}/moves", games_route_move, "Play a move (fullId); answers with the engine's reply", PLAY,
     false},
    {"GET", "/api/games/{id}/pgn", games_route_pgn, "The game as PGN", 0, false},
    {"POST", "/api/games/{id}/resign", games_route_resign, "Resign the game (fullId)", PLAY, false},
    {"POST", "/api/games/{id}/takeback", games_route_takeback, "Take back your last move and the engine's (fullId)",
     PLAY, false},
    {"GET", "/api/bayes/model", models_route_bayes, "The Bayesian model: games learned, selections (?detail=counts)", 0,
     false},
    {"GET", "/api/bayes/curve", models_route_bayes_curve,
     "The Bayesian model's learning curve: parameters moved as games were learned, measured matches", 0, false},
    {"POST", "/api/style", models_route_style, "Classify a player's style from PGN: posterior and features", ANALYSE,
     false},
    {"GET", "/api/bot", bot_route_status, "The Lichess bot: account, games now (watch them), record, errors", 0, false},
    {"GET", "/api/openapi.json", on_openapi, "This API, as OpenAPI 3.1 (server/api/openapi.json)", 0, true},
    {"GET", "/api/asyncapi.json", on_asyncapi, "The WebSocket stream, as AsyncAPI 3.0 (server/api/asyncapi.json)", 0,
     true},
    {"GET", "/api/docs", on_docs, "This API's reference page, rendered from /api/openapi.json", 0, true},
    {"GET", "/metrics", metrics_route, "Prometheus metrics (admin)", SCOPE_ADMIN, false},
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

/* The Host must be one of this server's names (DNS rebinding), and a browser request must come
 * from an allowed origin: with an Origin header, that origin; without one, a cross-site fetch
 * (an <img> or <script> another page made) is refused by its Sec-Fetch-Site, a top-level
 * navigation is not. Listed origins get CORS headers and their preflights are answered. */
static bool trusted(Request *r)
{
    const char *host = http_header(r, "Host"), *origin = http_header(r, "Origin");
    if (!host || !*host) {
        api_reply_fail(r, 400, "host_missing", NULL, "send a Host header (HTTP/1.1 requires one)");
        return false;
    }
    if (!origin_host_allowed(host)) {
        api_reply_fail(
            r, 403, "host_not_allowed", NULL,
            "this server does not answer to the name '%.100s' (the operator can add it with --allowed-hosts)", host);
        return false;
    }
    if (origin) {
        if (!origin_allowed(origin, host)) {
            api_reply_fail(r, 403, "origin_not_allowed", NULL,
                           "pages from '%.100s' may not use this server (the operator can add the origin with "
                           "--allowed-origins)",
                           origin);
            return false;
        }
        if (origin_is_listed(origin)) {
            http_add_header(r, "Access-Control-Allow-Origin", origin);
            http_add_header(r, "Vary", "Origin");
            /* the answer headers a page's script may read besides the CORS-safelisted ones */
            http_add_header(r, "Access-Control-Expose-Headers", "Retry-After, X-Request-Id, X-Feelfish-Cache, ETag");
        }
        if (!strcmp(r->method, "OPTIONS")) { /* a preflight */
            http_add_header(r, "Access-Control-Allow-Methods", "GET, POST, DELETE");
            http_add_header(r, "Access-Control-Allow-Headers", "Content-Type, Authorization, X-Request-Id");
            http_add_header(r, "Access-Control-Max-Age", "600");
            http_reply(r, 204, NULL, "", 0);
            return false;
        }
        return true;
    }
    const char *site = http_header(r, "Sec-Fetch-Site"), *dest = http_header(r, "Sec-Fetch-Dest");
    bool foreign = site && strcmp(site, "same-origin") && strcmp(site, "none");
    if (foreign && !(dest && !strcmp(dest, "document"))) {
        api_reply_fail(r, 403, "origin_not_allowed", NULL, "another site's page may not make requests here");
        return false;
    }
    return true;
}

/* Whether a request takes from its client's rate: API requests but the server's own state pages. */
static bool metered(const Request *r, const Route *route)
{
    return route ? !route->open : !strncmp(r->path, "/api/", 5);
}

static void refuse(Request *r, const ApiError *e)
{
    if (e->status == 401)
        http_add_header(r, "WWW-Authenticate", "Bearer realm=\"feelfish\"");
    api_reply_error(r, e);
}

static void reply_rate_limited(Request *r, int retry, const char *what)
{
    ApiError e;
    api_error_set(&e, 429, "rate_limited", NULL, "too many %s from %.48s; retry in %d s", what, r->client, retry);
    e.retry_after = retry;
    api_reply_error(r, &e);
}

/* Who asks: the request's client becomes its token's name, and it carries its scopes. */
static bool identify(Request *r)
{
    Identity id;
    ApiError e;
    if (!auth_identify(http_header(r, "Authorization"), r->client, &id, &e)) {
        int retry;
        if (quota_auth_failed(r->client, &retry)) /* the address pays for every wrong token */
            refuse(r, &e);
        else
            reply_rate_limited(r, retry, "requests with a token that is not valid");
        return false;
    }
    snprintf(r->client, sizeof r->client, "%s", id.who);
    r->scopes = id.scopes;
    r->authenticated = id.token;
    return true;
}

static const Route *find_route(const Request *r, const char **param, bool *path_known)
{
    *path_known = false;
    for (int i = 0; i < RouteCount; i++) {
        if (!match_path(Routes[i].path, r->path, param))
            continue;
        *path_known = true;
        if (!strcmp(Routes[i].method, r->method) || (!strcmp(r->method, "HEAD") && !strcmp(Routes[i].method, "GET")))
            return &Routes[i]; /* HEAD is GET without the body (libmicrohttpd leaves it out) */
    }
    return NULL;
}

void routes_handle(Request *r)
{
    if (r->bad_request[0]) {
        api_reply_fail(r, 400, "bad_framing", NULL, "%s", r->bad_request);
        return;
    }
    if (r->head_too_large == 414) {
        api_reply_fail(r, 414, "uri_too_long", NULL, "the path and query are longer than %d bytes", HTTP_URI_MAX);
        return;
    }
    if (r->head_too_large) {
        api_reply_fail(r, 431, "headers_too_large", NULL, "the request headers are larger than %d bytes in all",
                       HTTP_HEADERS_MAX);
        return;
    }
    if (!utf8_valid(r->path)) {
        api_reply_fail(r, 400, "bad_path", NULL, "the path is not valid UTF-8 once its %%xx escapes are decoded");
        return;
    }
    if (!trusted(r) || !identify(r))
        return;
    const char *param = NULL;
    bool path_known;
    const Route *route = find_route(r, &param, &path_known);
    r->route = route ? (int)(route - Routes) : RouteCount; /* metrics need not match it again */
    r->routed = true;
    int retry;
    if (metered(r, route) && !quota_take(r->client, &retry)) {
        reply_rate_limited(r, retry, "requests");
        return;
    }
    if (r->too_large) {
        api_reply_fail(r, 413, "body_too_large", NULL, "the request body is larger than %ld bytes", Cfg->body_max);
        return;
    }
    if (route) {
        ApiError e;
        Identity id = auth_of(r);
        if (!route->open && !auth_allows(&id, route->scopes, &e)) {
            refuse(r, &e);
            return;
        }
        route->handler(r, param);
        return;
    }
    if (path_known) {
        char allow[64] = "";
        for (int i = 0; i < RouteCount; i++) {
            const char *ignored = NULL;
            if (match_path(Routes[i].path, r->path, &ignored)) {
                if (allow[0])
                    strcat(allow, ", ");
                strcat(allow, Routes[i].method);
                if (!strcmp(Routes[i].method, "GET"))
                    strcat(allow, ", HEAD");
            }
        }
        http_add_header(r, "Allow", allow);
        api_reply_fail(r, 405, "method_not_allowed", NULL, "%s is not allowed here; use %s", r->method, allow);
        return;
    }
    if (strncmp(r->path, "/api/", 5) && static_serve(r))
        return;
    api_reply_fail(r, 404, "not_found", NULL, "no such endpoint or file: %.200s", r->path);
}

int routes_index(const Request *r)
{
    if (r->routed)
        return r->route;
    const char *param;
    bool path_known;
    const Route *route = find_route(r, &param, &path_known);
    return route ? (int)(route - Routes) : RouteCount; /* "other" */
}

void api_init(const ServerConfig *cfg, int http_port, int ws_port)
{
    Cfg = cfg;
    request_set_config(cfg);
    ws_ops_set_config(cfg);
    origin_init(cfg, http_port);
    quota_init(cfg);
    games_routes_init(cfg);
    lab_routes_init(cfg);
    persist_init(cfg);
    HttpPort = http_port;
    WsPort = ws_port;
    StartedMs = time_now_ms();
}

/* What found no worker (jobs read back at start, games whose engine is to move) is tried again
 * every second. */
static uv_timer_t RetryTimer;
static bool Retrying;

static void on_retry(uv_timer_t *t)
{
    (void)t;
    analysis_retry_waiting();
    games_retry_stalled();
    game_analysis_retry();
}

void api_resume(uv_loop_t *loop)
{
    auth_start(Cfg, loop);
    quota_share(loop);
    retention_start(Cfg, loop);
    int jobs = analysis_resume(), games = games_routes_resume();
    if (jobs || games)
        log_msg(LOG_INFO, "resumed %d unfinished jobs and %d games waiting for the engine", jobs, games);
    uv_timer_init(loop, &RetryTimer);
    uv_timer_start(&RetryTimer, on_retry, 1000, 1000);
    Retrying = true;
}

void api_stop(void)
{
    if (!Retrying)
        return;
    Retrying = false;
    uv_timer_stop(&RetryTimer);
    uv_close((uv_handle_t *)&RetryTimer, NULL);
    analysis_forget_waiting();
    game_analysis_shutdown();
    lab_routes_stop();
    auth_stop();
    quota_stop();
    retention_stop();
}

static void completed(const Request *r) { metrics_count_request(r); }

/* A game's fullId carries its secret: the log shows the public id and stars. */
static void log_path(const Request *r, char *out, size_t size)
{
    snprintf(out, size, "%s", r->path);
    static const char Games[] = "/api/games/";
    if (strncmp(out, Games, sizeof Games - 1))
        return;
    char *id = out + sizeof Games - 1, *end = strchr(id, '/');
    size_t n = end ? (size_t)(end - id) : strlen(id);
    if (n > GAMES_ID_LEN)
        memset(id + GAMES_ID_LEN, '*', n - GAMES_ID_LEN);
}

/* Headers every answer carries: no sniffing, no referrer, and a page that runs only its own
 * scripts, loads only its own styles and images (inline style attributes allowed: the board places
 * its pieces with them), talks only to this server and its WebSocket, and is never framed. */
static const char *const SecurityHeaders[] = {
    "X-Content-Type-Options",
    "nosniff",
    "Referrer-Policy",
    "no-referrer",
    "X-Frame-Options",
    "DENY",
    "Content-Security-Policy",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    NULL};

const HttpHandlers ApiHttpHandlers = {routes_handle, completed, log_path, SecurityHeaders};
