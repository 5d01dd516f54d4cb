/* Retention: see retention.h. */
#include "retention.h"

#include <stdlib.h>

#include "../base/clock.h"
#include "../base/log.h"
#include "../domain/games.h"
#include "../store/store.h"
#include "saves.h"

#define PERIOD_MS 60000
#define BATCH 5000 /* rows of each kind per minute: a backlog goes in steps, never one long write */
#define GAMES_IN_MEMORY_SOFT_MAX 10000 /* past it, games idle for 10 s leave memory too */

static struct {
    const ServerConfig *cfg;
    uv_timer_t timer;
    bool running;
    uint64_t pruned_ms; /* when the last prune was queued (uv_now), 0: never */
} R;

typedef struct {
    StoreRetention policy;
    long long now_ms;
    StorePruned pruned;
    bool ok;
    char err[256];
} Prune;

static void prune_write(sqlite3 *db, void *arg)
{
    Prune *p = arg;
    p->ok = store_prune_db(db, &p->policy, p->now_ms, BATCH, &p->pruned, p->err, sizeof p->err);
}

static void prune_done(void *arg) /* on the writer thread */
{
    Prune *p = arg;
    if (!p->ok)
        log_msg(LOG_WARN, "retention: %s", p->err);
    else if (p->pruned.jobs || p->pruned.games)
        log_msg(LOG_INFO, "retention: %lld finished jobs and %lld games deleted", p->pruned.jobs, p->pruned.games);
    free(p);
}

/* A game leaves memory only when nothing refers to it: no search, no waiting reply, no save in
 * flight or failed (the database has all of it). */
static bool evictable(const Game *g) { return saves_settled(g->id); }

static void on_tick(uv_timer_t *t)
{
    uint64_t now = uv_now(t->loop);
    Prune *p = !R.pruned_ms || now - R.pruned_ms >= PERIOD_MS ? calloc(1, sizeof *p) : NULL;
    if (p) {
        R.pruned_ms = now;
        p->policy = (StoreRetention){R.cfg->retention_days, R.cfg->retention_jobs, R.cfg->retention_games};
        p->now_ms = clock_wall_ms();
        store_write(prune_write, prune_done, p);
    }
    long long idle_ms = games_in_memory() > GAMES_IN_MEMORY_SOFT_MAX ? 10000 : R.cfg->game_memory_idle * 1000LL;
    int evicted = games_evict_idle(clock_wall_ms() - idle_ms, evictable);
    if (evicted)
        log_msg(LOG_DEBUG, "retention: %d idle games left memory", evicted);
}

void retention_start(const ServerConfig *cfg, uv_loop_t *loop)
{
    R.cfg = cfg;
    uv_timer_init(loop, &R.timer);
    uint64_t period = (uint64_t)cfg->game_memory_idle * 500; /* half the idle time, 1 s to 10 s */
    uv_timer_start(&R.timer, on_tick, 1000, period < 1000 ? 1000 : period > 10000 ? 10000 : period);
    R.running = true;
}

void retention_stop(void)
{
    if (!R.running)
        return;
    uv_timer_stop(&R.timer);
    uv_close((uv_handle_t *)&R.timer, NULL);
    R.running = false;
}
