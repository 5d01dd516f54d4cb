/* `feelfish bot`: see bot.h. */
#include "bot.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../api/api.h"
#include "../base/config.h"
#include "../base/log.h"
#include "../bot/bot.h"
#include "../domain/games.h"
#include "../domain/models.h"
#include "../jobs/jobs.h"
#include "../net/client.h"
#include "../store/store.h"

static uv_signal_t SigInt, SigTerm;
static uv_timer_t Watch;
static bool Stopping;

static void stop_all(void)
{
    if (Stopping)
        return;
    Stopping = true;
    bot_stop();
    uv_signal_stop(&SigInt);
    uv_signal_stop(&SigTerm);
    uv_close((uv_handle_t *)&SigInt, NULL);
    uv_close((uv_handle_t *)&SigTerm, NULL);
    uv_timer_stop(&Watch);
    uv_close((uv_handle_t *)&Watch, NULL);
    jobs_shutdown();
    client_stop();
}

static void on_signal(uv_signal_t *s, int signum)
{
    (void)s;
    log_msg(LOG_INFO, "%s: stopping the bot", signum == SIGINT ? "SIGINT" : "SIGTERM");
    stop_all();
}

static void on_watch(uv_timer_t *t)
{
    (void)t;
    if (!bot_running())
        stop_all(); /* it stopped itself: a bad token, not a BOT account */
}

static int usage(void)
{
    fprintf(stderr, "usage: feelfish bot --config FILE [--print-config] [serve options: --db, --workers, --hash, ...]\n"
                    "FILE is lichess-bot's config.yml (token, url, challenge, draw_or_resign, greeting, ...) with an\n"
                    "optional feelfish: section (mode, temperament, target, depth, nodes, movetime). The token may\n"
                    "come from LICHESS_BOT_TOKEN instead.\n");
    return 2;
}

/* Reads --config FILE (and --print-config) out of argv, leaving the server's own options. */
static int take_bot_options(int *argc, char **argv, const char **config, bool *print)
{
    int kept = 0;
    for (int i = 0; i < *argc; i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < *argc)
            *config = argv[++i];
        else if (!strcmp(argv[i], "--print-config"))
            *print = true;
        else
            argv[kept++] = argv[i];
    }
    *argc = kept;
    return *config ? 0 : usage();
}

int bot_command(int argc, char **argv, FILE *out)
{
    const char *path = NULL;
    bool print = false, help;
    if (take_bot_options(&argc, argv, &path, &print))
        return 2;
    BotConfig bc;
    char err[600];
    if (!bot_config_load(&bc, path, stderr, err, sizeof err)) {
        fprintf(stderr, "feelfish bot: %s\n", err);
        return 2;
    }
    if (print) {
        bot_config_print(&bc, out);
        return 0;
    }
    ServerConfig cfg;
    if (!config_load(&cfg, argc, argv, &help, err, sizeof err)) {
        fprintf(stderr, "feelfish bot: %s\n", err);
        return 2;
    }
    log_set_level(cfg.log_level);
    log_set_format(cfg.log_format);
    signal(SIGPIPE, SIG_IGN);
    uv_loop_t *loop = uv_default_loop();
    srand((unsigned)uv_hrtime()); /* matchmaking's choices */
    if (!store_open(loop, cfg.db, err, sizeof err) || !models_init(&cfg, err, sizeof err)) {
        fprintf(stderr, "feelfish bot: %s\n", err);
        return 1;
    }
    JobsSettings jobs = {(int)cfg.workers,
                         (size_t)(bc.feelfish.hash > 0 ? bc.feelfish.hash : cfg.hash_mb),
                         (int)cfg.queue,
                         cfg.job_timeout,
                         (int)bc.feelfish.threads,
                         NULL,
                         0};
    if (!jobs_start(loop, &jobs, &ApiJobHooks)) {
        fprintf(stderr, "feelfish bot: cannot start the search workers\n");
        store_close();
        return 1;
    }
    api_init(&cfg, 0, 0); /* games store themselves, the learning policy applies */
    if (!bot_start(loop, &bc, err, sizeof err)) {
        fprintf(stderr, "feelfish bot: %s\n", err);
        jobs_shutdown();
        store_close();
        return 1;
    }
    uv_signal_init(loop, &SigInt);
    uv_signal_init(loop, &SigTerm);
    uv_signal_start(&SigInt, on_signal, SIGINT);
    uv_signal_start(&SigTerm, on_signal, SIGTERM);
    uv_timer_init(loop, &Watch);
    uv_timer_start(&Watch, on_watch, 500, 500);
    uv_run(loop, UV_RUN_DEFAULT);
    BotStatus st;
    bot_status(&st);
    store_close();
    games_shutdown();
    models_shutdown();
    uv_loop_close(loop);
    if (st.fatal[0]) {
        fprintf(stderr, "feelfish bot: %s\n", st.fatal);
        return 1;
    }
    return 0;
}
