/* The server's life: settings, storage, the loop, workers, HTTP, and a graceful shutdown on
 * SIGINT/SIGTERM (stop the searches, answer what waits, flush storage, then exit 0). */
#include "serve.h"

#include <signal.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../domain/models.h"
#include "../domain/shared.h"
#include "../jobs/cluster.h"
#include "../api/api.h"
#include "../base/config.h"
#include "../bot/bot.h"
#include "../net/client.h"
#include "../domain/games.h"
#include "../net/http.h"
#include "../jobs/jobs.h"
#include "../base/log.h"
#include "../net/static.h"
#include "../store/store.h"
#include "../net/ws.h"

static uv_signal_t SigInt, SigTerm;
static int HttpPort, WsPort;

/* A front's heartbeat line in a cluster, once it listens. */
static void describe_front(char *line, size_t size)
{
    JobsStats st;
    jobs_stats(&st);
    snprintf(line, size, "front %s http %d ws %d pid %ld queued %d running %d done %llu", cluster_front(), HttpPort,
             WsPort, (long)getpid(), st.queued, st.busy, st.done);
}
static uv_timer_t DrainTimer;
static bool ShuttingDown;

static void on_drained(uv_timer_t *t)
{
    (void)t;
    client_stop();
    ws_stop();
    http_stop();
    uv_close((uv_handle_t *)&DrainTimer, NULL);
}

static void on_signal(uv_signal_t *s, int signum)
{
    (void)s;
    if (ShuttingDown)
        return;
    ShuttingDown = true;
    log_msg(LOG_INFO, "%s: shutting down", signum == SIGINT ? "SIGINT" : "SIGTERM");
    uv_signal_stop(&SigInt);
    uv_signal_stop(&SigTerm);
    uv_close((uv_handle_t *)&SigInt, NULL);
    uv_close((uv_handle_t *)&SigTerm, NULL);
    /* Searches stop and their waiting requests get answers; give those a moment to be written. */
    bot_stop();
    api_stop();
    jobs_shutdown();
    shared_stop();
    uv_timer_init(uv_default_loop(), &DrainTimer);
    uv_timer_start(&DrainTimer, on_drained, 150, 0);
}

/* Connections must never run the process out of descriptors (libwebsockets spins on a failing
 * accept): the soft limit is raised to the hard one, and HTTP and WebSocket get at most what is
 * left after a reserve (the database, the workers' eventfd, the loop's own) between them. */
static void fit_descriptors(ServerConfig *cfg)
{
    enum { RESERVE = 128 };
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl))
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    long room = rl.rlim_cur == RLIM_INFINITY ? 1000000 : ((long)rl.rlim_cur - RESERVE) / 2;
    if (room < 16)
        room = 16;
    if (cfg->connections_max > room) {
        log_msg(LOG_WARN, "--connections-max %ld lowered to %ld: %llu descriptors allowed", cfg->connections_max, room,
                (unsigned long long)rl.rlim_cur);
        cfg->connections_max = room;
    }
}

/* A front listens once its Redis links are up, so that a job sent the moment it says so is not
 * refused with cluster_unavailable; with Redis unreachable it starts after CLUSTER_WAIT_MS anyway
 * (degraded: it says cluster_unavailable until the links come up). Nothing is served meanwhile. */
static void wait_for_cluster(uv_loop_t *loop)
{
    enum { CLUSTER_WAIT_MS = 3000 };
    uv_update_time(loop);
    uint64_t until = uv_now(loop) + CLUSTER_WAIT_MS;
    while (!shared_ready() && uv_now(loop) < until)
        uv_run(loop, UV_RUN_ONCE); /* the links' own timers wake it at least every 250 ms */
    if (!shared_ready())
        log_msg(LOG_WARN,
                "cluster: Redis not reachable after %d ms: serving, and new work is refused "
                "(cluster_unavailable) until it is",
                CLUSTER_WAIT_MS);
}

int serve_command(int argc, char **argv, FILE *out)
{
    (void)out;
    ServerConfig cfg;
    bool help;
    char err[300];
    if (!config_load(&cfg, argc, argv, &help, err, sizeof err)) {
        fprintf(stderr, "feelfish serve: %s\n", err);
        return 2;
    }
    if (help) {
        config_usage(stdout);
        return 0;
    }
    log_set_level(cfg.log_level);
    log_set_format(cfg.log_format);
    signal(SIGPIPE, SIG_IGN);
    fit_descriptors(&cfg);
    srand((unsigned)uv_hrtime());
    static_load(cfg.web);
    uv_loop_t *loop = uv_default_loop();
    if (!store_open(loop, cfg.db, err, sizeof err)) {
        fprintf(stderr, "feelfish serve: storage: %s\n", err);
        return 1;
    }
    if (!models_init(&cfg, err, sizeof err)) {
        fprintf(stderr, "feelfish serve: Bayesian model: %s\n", err);
        store_close();
        return 1;
    }
    JobsSettings jobs = {(int)cfg.workers,      (size_t)cfg.hash_mb, (int)cfg.queue, cfg.job_timeout, 1, NULL,
                         (int)cfg.quick_workers};
    RedisAddress redis;
    if (cfg.redis[0]) {
        char why[200];
        if (!redis_url_parse(cfg.redis, &redis, why, sizeof why)) {
            fprintf(stderr, "feelfish serve: --redis: %s\n", why);
            store_close();
            return 2;
        }
        jobs.cluster = &redis;
    }
    if (!jobs_start(loop, &jobs, &ApiJobHooks)) {
        fprintf(stderr, "feelfish serve: cannot start %ld workers with %ld MB each\n", cfg.workers, cfg.hash_mb);
        store_close();
        return 1;
    }
    if (cfg.redis[0]) {
        shared_start(loop, &redis, cluster_front()); /* no line until it listens (shared_describe below) */
        wait_for_cluster(loop);
    }
    int port;
    if (!http_start(loop, &cfg, &ApiHttpHandlers, &port)) {
        shared_stop();
        jobs_shutdown();
        store_close();
        return 1;
    }
    int ws_port;
    if (!ws_start(loop, &cfg, &ApiWsHandlers, &ws_port)) {
        http_stop();
        shared_stop();
        jobs_shutdown();
        uv_run(loop, UV_RUN_NOWAIT);
        store_close();
        return 1;
    }
    HttpPort = port, WsPort = ws_port;
    if (cfg.redis[0]) {
        shared_describe(describe_front); /* at once: a front without a line has its games' engine moves taken over */
        models_share();
    }
    api_init(&cfg, port, ws_port);
    api_resume(loop);
    if (cfg.bot[0]) {
        BotConfig bc;
        if (!bot_config_load(&bc, cfg.bot, stderr, err, sizeof err) || !bot_start(loop, &bc, err, sizeof err)) {
            fprintf(stderr, "feelfish serve: --bot: %s\n", err);
            api_stop();
            jobs_shutdown();
            ws_stop();
            http_stop();
            uv_run(loop, UV_RUN_NOWAIT);
            store_close();
            return 2;
        }
        if (bc.feelfish.threads > 1 || bc.feelfish.hash != 64)
            log_msg(LOG_INFO, "bot: feelfish.hash and feelfish.threads apply to `feelfish bot`; inside serve the "
                              "bot's searches use serve's workers (--workers, --hash)");
    }
    uv_signal_init(loop, &SigInt);
    uv_signal_init(loop, &SigTerm);
    uv_signal_start(&SigInt, on_signal, SIGINT);
    uv_signal_start(&SigTerm, on_signal, SIGTERM);
    log_msg(LOG_INFO, "feelfish serving http://%s:%d/ and ws://%s:%d/ with %ld workers (%ld MB hash each), queue %ld",
            cfg.bind, port, cfg.bind, ws_port, cfg.workers, cfg.hash_mb, cfg.queue);
    /* The port line on stdout lets scripts and tests started with --http 0 --ws 0 find the server. */
    printf("listening http %d ws %d\n", port, ws_port);
    fflush(stdout);
    uv_run(loop, UV_RUN_DEFAULT);
    store_close(); /* everything finished has been queued for writing: flush it */
    games_shutdown();
    models_shutdown();
    static_free();
    uv_loop_close(loop);
    log_msg(LOG_INFO, "stopped");
    return 0;
}
