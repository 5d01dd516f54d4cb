/* The settings table and its loading. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proxy.h"

#define F(field) offsetof(ServerConfig, field), sizeof(((ServerConfig *)0)->field)

const Setting Settings[] = {
    {"--http", "FEELFISH_HTTP_PORT", "httpPort", SETTING_NUMBER, "8080", 0, 65535, F(http_port),
     "REST API, static page and /metrics port (0: any free port)", false},
    {"--ws", "FEELFISH_WS_PORT", "wsPort", SETTING_NUMBER, "8081", 0, 65535, F(ws_port),
     "WebSocket port (0: any free port)", false},
    {"--workers", "FEELFISH_WORKERS", "workers", SETTING_NUMBER, "0", 0, 256, F(workers),
     "search workers (0: one per core)", false},
    {"--quick-workers", "FEELFISH_QUICK_WORKERS", "quickWorkers", SETTING_NUMBER, "2", 0, 64, F(quick_workers),
     "workers beyond --workers for quick searches only (depth <= 10, nodes <= 2M or movetime <= 1.5 s, so a "
     "game's engine move; up to 5 lines) of clients with nothing running, when every other worker is busy; "
     "they run at a higher priority, so a short analysis shares the cores with long searches instead of "
     "waiting for them; of two or more, the last free one is kept for depth- or node-bounded searches, so an "
     "analysis never waits behind a game move (0: none)",
     false},
    {"--hash", "FEELFISH_HASH_MB", "hashMb", SETTING_NUMBER, "64", 1, 32768, F(hash_mb),
     "transposition table per worker, MB", false},
    {"--queue", "FEELFISH_QUEUE", "queueCapacity", SETTING_NUMBER, "64", 1, 100000, F(queue),
     "jobs that may wait for a worker; more get 503", false},
    {"--redis", "FEELFISH_REDIS", "redis", SETTING_TEXT, "", 0, 0, F(redis),
     "a cluster front: searches go to `feelfish worker` processes through this Redis (redis://HOST:PORT/DB); "
     "empty: this process searches",
     true},
    {"--db", "FEELFISH_DB", "db", SETTING_TEXT, "data/feelfish.db", 0, 0, F(db), "SQLite database file", true},
    {"--web", "FEELFISH_WEB", "web", SETTING_TEXT, "web/dist", 0, 0, F(web), "folder of the static page", true},
    {"--style-model", "FEELFISH_STYLE_MODEL", "styleModel", SETTING_TEXT, "engine/style.model", 0, 0, F(style_model),
     "the opponent-style classifier (feelfish style-train)", true},
    {"--bind", "FEELFISH_BIND", "bind", SETTING_TEXT, "127.0.0.1", 0, 0, F(bind),
     "address to listen on (0.0.0.0: every interface; put a reverse proxy in front)", false},
    {"--log-level", "FEELFISH_LOG_LEVEL", "logLevel", SETTING_TEXT, "info", 0, 0, F(log_level),
     "error, warn, info or debug", false},
    {"--log-format", "FEELFISH_LOG_FORMAT", "logFormat", SETTING_TEXT, "text", 0, 0, F(log_format),
     "text or json (one JSON object per line)", false},
    {"--body-max", "FEELFISH_BODY_MAX", "bodyMaxBytes", SETTING_NUMBER, "1048576", 1024, 67108864, F(body_max),
     "largest request body, bytes (413 beyond)", false},
    {"--ws-message-max", "FEELFISH_WS_MESSAGE_MAX", "wsMessageMaxBytes", SETTING_NUMBER, "65536", 1024, 16777216,
     F(ws_message_max), "largest WebSocket message, bytes", false},
    {"--ws-send-buffer", "FEELFISH_WS_SEND_BUFFER", "wsSendBufferBytes", SETTING_NUMBER, "65536", 4096, 16777216,
     F(ws_send_buffer), "kernel send buffer per WebSocket connection, bytes", false},
    {"--ws-queue-max", "FEELFISH_WS_QUEUE_MAX", "wsQueueMaxBytes", SETTING_NUMBER, "1048576", 65536, 268435456,
     F(ws_queue_max), "frames waiting for a WebSocket client that does not read, bytes; beyond, it is closed (1008)",
     false},
    {"--rate", "FEELFISH_RATE", "ratePerSecond", SETTING_NUMBER, "0", 0, 100000, F(rate),
     "API requests and WebSocket messages per second per client address (0: no limit; 429 beyond)", false},
    {"--rate-burst", "FEELFISH_RATE_BURST", "rateBurst", SETTING_NUMBER, "0", 0, 1000000, F(rate_burst),
     "requests a client may send at once before --rate applies (0: the rate itself)", false},
    {"--client-jobs-max", "FEELFISH_CLIENT_JOBS_MAX", "clientJobsMax", SETTING_NUMBER, "0", 0, 100000,
     F(client_jobs_max), "analyses one client address may have queued or running (0: no limit; 429 beyond)", false},
    {"--client-infinite-max", "FEELFISH_CLIENT_INFINITE_MAX", "clientInfiniteMax", SETTING_NUMBER, "0", 0, 100000,
     F(client_infinite_max), "infinite WebSocket analyses one client may run at once (0: no limit; 429 beyond)", false},
    {"--auth", "FEELFISH_AUTH", "auth", SETTING_TEXT, "auto", 0, 0, F(auth),
     "off, optional or required: API tokens (feelfish token create); auto: off on a loopback --bind, else "
     "optional",
     false},
    {"--learn-min-plies", "FEELFISH_LEARN_MIN_PLIES", "learnMinPlies", SETTING_NUMBER, "20", 0, 10000,
     F(learn_min_plies), "a finished game teaches the Bayesian model only from this many plies", false},
    {"--learn-per-hour", "FEELFISH_LEARN_PER_HOUR", "learnPerHour", SETTING_NUMBER, "30", 0, 100000, F(learn_per_hour),
     "games one client may teach the Bayesian model per hour (0: none)", false},
    {"--bot", "FEELFISH_BOT", "bot", SETTING_TEXT, "", 0, 0, F(bot),
     "lichess-bot's config.yml: play on Lichess as a BOT inside the server (GET /api/bot)", true},
    {"--allowed-origins", "FEELFISH_ALLOWED_ORIGINS", "allowedOrigins", SETTING_TEXT, "", 0, 0, F(allowed_origins),
     "other origins (http://host:port, comma-separated) whose pages may use the API and WebSocket; the page's "
     "own always may",
     false},
    {"--allowed-hosts", "FEELFISH_ALLOWED_HOSTS", "allowedHosts", SETTING_TEXT, "", 0, 0, F(allowed_hosts),
     "Host names answered besides localhost, 127.0.0.1, [::1] and the --bind address (comma-separated; * any)", false},
    {"--public-url", "FEELFISH_PUBLIC_URL", "publicUrl", SETTING_TEXT, "", 0, 0, F(public_url),
     "the address browsers reach the server at through a proxy (https://chess.example.org): /api/config's wsUrl "
     "becomes its wss://.../ws",
     false},
    {"--trusted-proxies", "FEELFISH_TRUSTED_PROXIES", "trustedProxies", SETTING_TEXT, "", 0, 0, F(trusted_proxies),
     "proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For / Forwarded name the client; from any "
     "other peer those headers are ignored (none by default)",
     true},
    {"--connections-max", "FEELFISH_CONNECTIONS_MAX", "connectionsMax", SETTING_NUMBER, "4000", 16, 1000000,
     F(connections_max), "open connections, HTTP and WebSocket each (kept below the descriptor limit)", false},
    {"--connections-per-ip", "FEELFISH_CONNECTIONS_PER_IP", "connectionsPerIp", SETTING_NUMBER, "256", 0, 1000000,
     F(connections_per_ip), "open connections from one address, HTTP and WebSocket each (0: no limit)", false},
    {"--header-timeout", "FEELFISH_HEADER_TIMEOUT", "headerTimeoutS", SETTING_NUMBER, "10", 1, 3600, F(header_timeout),
     "a new connection's request headers must arrive within this, s (408 beyond)", false},
    {"--body-timeout", "FEELFISH_BODY_TIMEOUT", "bodyTimeoutS", SETTING_NUMBER, "30", 1, 3600, F(body_timeout),
     "a request's body must arrive within this after its headers, s (408 beyond)", false},
    {"--keepalive-timeout", "FEELFISH_KEEPALIVE_TIMEOUT", "keepaliveTimeoutS", SETTING_NUMBER, "30", 1, 3600,
     F(keepalive_timeout), "a kept-alive connection is closed when its next request has not come within this, s",
     false},
    {"--keepalive-requests", "FEELFISH_KEEPALIVE_REQUESTS", "keepaliveRequests", SETTING_NUMBER, "1000", 1, 1000000,
     F(keepalive_requests), "requests on one connection; the last is answered with Connection: close", false},
    {"--ws-idle-timeout", "FEELFISH_WS_IDLE_TIMEOUT", "wsIdleTimeoutS", SETTING_NUMBER, "600", 5, 86400,
     F(ws_idle_timeout), "a WebSocket with no message either way for this long is closed, s", false},
    {"--ws-ping-interval", "FEELFISH_WS_PING_INTERVAL", "wsPingIntervalS", SETTING_NUMBER, "30", 1, 3600,
     F(ws_ping_interval), "a silent WebSocket is pinged after this, and closed if nothing comes back in as long, s",
     false},
    {"--retention-days", "FEELFISH_RETENTION_DAYS", "retentionDays", SETTING_NUMBER, "30", 0, 36500, F(retention_days),
     "finished jobs and games untouched this long are deleted (0: kept forever)", false},
    {"--retention-jobs", "FEELFISH_RETENTION_JOBS", "retentionJobs", SETTING_NUMBER, "100000", 0, 1000000000,
     F(retention_jobs), "finished jobs kept, newest first (0: no cap)", false},
    {"--retention-games", "FEELFISH_RETENTION_GAMES", "retentionGames", SETTING_NUMBER, "100000", 0, 1000000000,
     F(retention_games), "games kept, most recently played first (0: no cap)", false},
    {"--retention-evals", "FEELFISH_RETENTION_EVALS", "retentionEvals", SETTING_NUMBER, "500000", 0, 1000000000,
     F(retention_evals), "evaluation cache entries kept, newest first (0: no cap)", false},
    {"--game-memory-idle", "FEELFISH_GAME_MEMORY_IDLE", "gameMemoryIdleS", SETTING_NUMBER, "600", 1, 86400,
     F(game_memory_idle), "a game untouched this long leaves memory (it is read back from the database), s", false},
    {"--ws-searches-max", "FEELFISH_WS_SEARCHES_MAX", "wsSearchesPerConnection", SETTING_NUMBER, "4", 1, 1000,
     F(ws_searches_max), "analyses one WebSocket connection may run at once", false},
    {"--max-depth", "FEELFISH_MAX_DEPTH", "maxDepth", SETTING_NUMBER, "40", 1, 119, F(max_depth),
     "largest depth a request may ask for", false},
    {"--max-nodes", "FEELFISH_MAX_NODES", "maxNodes", SETTING_NUMBER, "200000000", 1, 1000000000000LL, F(max_nodes),
     "largest node count a request may ask for", false},
    {"--max-movetime", "FEELFISH_MAX_MOVETIME", "maxMovetimeMs", SETTING_NUMBER, "60000", 1, 3600000, F(max_movetime),
     "longest move time a request may ask for, ms", false},
    {"--max-multipv", "FEELFISH_MAX_MULTIPV", "maxMultiPv", SETTING_NUMBER, "10", 1, 64, F(max_multipv),
     "most lines a request may ask for", false},
    {"--job-timeout", "FEELFISH_JOB_TIMEOUT", "jobTimeoutMs", SETTING_NUMBER, "300000", 1000, 86400000, F(job_timeout),
     "a search still running after this is stopped, ms", false},
};
const int SettingCount = (int)(sizeof Settings / sizeof Settings[0]);
_Static_assert(sizeof Settings / sizeof Settings[0] <= 128, "config_load's given[] holds 128 settings");

static bool set_value(ServerConfig *c, const Setting *s, const char *value, const char *from, char *err, size_t size)
{
    char *field = (char *)c + s->offset;
    if (s->type == SETTING_TEXT) {
        if (strlen(value) >= s->size) {
            snprintf(err, size, "%s: value longer than %zu characters", from, s->size - 1);
            return false;
        }
        strcpy(field, value);
        return true;
    }
    char *end;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (errno || end == value || *end || v < s->min || v > s->max) {
        snprintf(err, size, "%s: '%s' is not a whole number from %lld to %lld", from, value, s->min, s->max);
        return false;
    }
    if (s->offset == offsetof(ServerConfig, max_nodes))
        *(long long *)field = v;
    else
        *(long *)field = (long)v;
    return true;
}

bool config_public_url_valid(const char *url)
{
    const char *rest = !strncmp(url, "https://", 8) ? url + 8 : !strncmp(url, "http://", 7) ? url + 7 : NULL;
    return rest && *rest && *rest != '/' && !strpbrk(rest, " \t\"'<>\\?#@") && strlen(url) < 200;
}

bool config_bind_is_loopback(const char *bind)
{
    return !strncmp(bind, "127.", 4) || !strcmp(bind, "::1") || !strcmp(bind, "localhost");
}

/* Bound beyond loopback: every quota left unset (its default, no flag, no environment) gets the
 * exposed default, and exposed_defaults names them. */
static void apply_exposed_defaults(ServerConfig *c, const bool *given)
{
    c->exposed_defaults[0] = 0;
    if (config_bind_is_loopback(c->bind))
        return;
    long jobs = c->workers > 2 ? c->workers - 1 : 2;
    const struct {
        const char *flag;
        long *field, value;
    } Quotas[] = {{"--rate", &c->rate, EXPOSED_RATE},
                  {"--rate-burst", &c->rate_burst, EXPOSED_RATE_BURST},
                  {"--client-jobs-max", &c->client_jobs_max, jobs},
                  {"--client-infinite-max", &c->client_infinite_max, EXPOSED_CLIENT_INFINITE_MAX}};
    for (size_t q = 0; q < sizeof Quotas / sizeof Quotas[0]; q++)
        for (int i = 0; i < SettingCount; i++)
            if (!strcmp(Settings[i].flag, Quotas[q].flag) && !given[i]) {
                *Quotas[q].field = Quotas[q].value;
                size_t len = strlen(c->exposed_defaults);
                snprintf(c->exposed_defaults + len, sizeof c->exposed_defaults - len, "%s%s", len ? "," : "",
                         Quotas[q].flag);
            }
}

bool config_load(ServerConfig *c, int argc, char **argv, bool *help, char *err, size_t err_size)
{
    memset(c, 0, sizeof *c);
    *help = false;
    bool given[128] = {false}; /* by a flag or the environment */
    for (int i = 0; i < SettingCount; i++)
        if (!set_value(c, &Settings[i], Settings[i].def, Settings[i].flag, err, err_size))
            return false;
    for (int i = 0; i < SettingCount; i++) {
        const char *v = getenv(Settings[i].env);
        if (v && *v && !set_value(c, &Settings[i], v, Settings[i].env, err, err_size))
            return false;
        given[i] = v && *v;
    }
    for (int a = 0; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            *help = true;
            return true;
        }
        const Setting *s = NULL;
        const char *value = NULL;
        for (int i = 0; i < SettingCount && !s; i++) {
            size_t n = strlen(Settings[i].flag);
            if (!strncmp(argv[a], Settings[i].flag, n) && (argv[a][n] == 0 || argv[a][n] == '=')) {
                s = &Settings[i];
                value = argv[a][n] == '=' ? argv[a] + n + 1 : (a + 1 < argc ? argv[++a] : NULL);
            }
        }
        if (!s) {
            snprintf(err, err_size, "unknown option '%s' (see feelfish serve --help)", argv[a]);
            return false;
        }
        if (!value) {
            snprintf(err, err_size, "%s needs a value", s->flag);
            return false;
        }
        if (!set_value(c, s, value, s->flag, err, err_size))
            return false;
        given[s - Settings] = true;
    }
    const char *levels[] = {"error", "warn", "info", "debug"};
    bool level_ok = false;
    for (int i = 0; i < 4; i++)
        level_ok |= !strcmp(c->log_level, levels[i]);
    if (!level_ok) {
        snprintf(err, err_size, "--log-level: '%s' is not one of error, warn, info, debug", c->log_level);
        return false;
    }
    if (strcmp(c->log_format, "text") && strcmp(c->log_format, "json")) {
        snprintf(err, err_size, "--log-format: '%s' is not text or json", c->log_format);
        return false;
    }
    if (strcmp(c->auth, "auto") && strcmp(c->auth, "off") && strcmp(c->auth, "optional") &&
        strcmp(c->auth, "required")) {
        snprintf(err, err_size, "--auth: '%s' is not one of auto, off, optional, required", c->auth);
        return false;
    }
    if (c->public_url[0] && !config_public_url_valid(c->public_url)) {
        snprintf(err, err_size, "--public-url: '%s' is not http(s)://host[:port][/path] (no query, spaces or quotes)",
                 c->public_url);
        return false;
    }
    ProxyList proxies;
    char why[200];
    if (!proxy_parse(c->trusted_proxies, &proxies, why, sizeof why)) {
        snprintf(err, err_size, "--trusted-proxies: %s", why);
        return false;
    }
    proxy_set(&proxies); /* the process's list from here on */
    if (c->workers == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        c->workers = n > 0 ? n : 1;
    }
    apply_exposed_defaults(c, given);
    return true;
}

void config_usage(FILE *f)
{
    fprintf(f, "usage: feelfish serve [OPTIONS]\n\nEvery option can also come from its environment variable;"
               " flags win.\n\n");
    for (int i = 0; i < SettingCount; i++) {
        const Setting *s = &Settings[i];
        fprintf(f, "  %-20s %-26s %s (default %s)\n", s->flag, s->env, s->help, s->def);
    }
}

const char *config_default_db(void)
{
    const char *env = getenv("FEELFISH_DB");
    if (env && *env)
        return env;
    for (int i = 0; i < SettingCount; i++)
        if (Settings[i].offset == offsetof(ServerConfig, db))
            return Settings[i].def;
    return "data/feelfish.db";
}
