/* Retention: see retention.h. */
#include "retention.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "../base/clock.h"
#include "../base/log.h"
#include "../domain/games.h"
#include "../store/store.h"
#include "saves.h"

#define PERIOD_MS 60000
#define CHECK_MS 1000                  /* how often a pass is looked for */
#define BATCH 5000                     /* rows of each kind per pass: a backlog goes in steps, never one long write */
#define GAMES_IN_MEMORY_SOFT_MAX 10000 /* past it, games idle for 10 s leave memory too */

static struct {
    const ServerConfig *cfg;
    uv_timer_t timer, prune_timer;
    bool running;
    uint64_t pruned_ms;  /* when the last timed pass was queued (uv_now), 0: never */
    atomic_bool pruning; /* a timed pass is queued or running (cleared on the writer thread) */
    atomic_bool backlog; /* the last pass deleted a whole batch of some kind: more is due */
    /* Writer thread only: rows written since the last pass, and how many call for one. */
    int rows, rows_trigger;
} R;

typedef struct {
    StoreRetention policy;
    long long now_ms;
    StorePruned pruned;
    bool ok;
    char err[256];
} Prune;

static StoreRetention policy(void)
{
    return (StoreRetention){R.cfg->retention_days, R.cfg->retention_jobs, R.cfg->retention_games,
                            R.cfg->retention_evals};
}

static void prune_write(sqlite3 *db, void *arg)
{
    Prune *p = arg;
    p->ok = store_prune_db(db, &p->policy, p->now_ms, BATCH, &p->pruned, p->err, sizeof p->err);
    R.rows = 0;
}

/* After each batch of rows, in its transaction: a pass once enough rows have come since the last. */
static void after_batch(sqlite3 *db, int rows, void *arg)
{
    (void)arg;
    R.rows += rows;
    if (!R.rows_trigger || R.rows < R.rows_trigger)
        return;
    Prune p = {.policy = policy(), .now_ms = clock_wall_ms()};
    prune_write(db, &p);
    if (!p.ok)
        log_msg(LOG_WARN, "retention: %s", p.err);
    if (p.ok && (p.pruned.jobs >= BATCH || p.pruned.games >= BATCH || p.pruned.evals >= BATCH))
        R.rows = R.rows_trigger; /* more than a batch was due: the next batch prunes again */
}

static void prune_done(void *arg) /* on the writer thread */
{
    Prune *p = arg;
    if (!p->ok)
        log_msg(LOG_WARN, "retention: %s", p->err);
    else if (p->pruned.jobs || p->pruned.games || p->pruned.evals)
        log_msg(LOG_DEBUG, "retention: %lld finished jobs, %lld games and %lld cached evaluations deleted",
                p->pruned.jobs, p->pruned.games, p->pruned.evals);
    /* A step may delete a batch of old rows and a batch past the cap: a whole batch in either means more. */
    atomic_store(&R.backlog,
                 p->ok && (p->pruned.jobs >= BATCH || p->pruned.games >= BATCH || p->pruned.evals >= BATCH));
    atomic_store(&R.pruning, false);
    free(p);
}

/* A timed pass is queued when none is under way and a minute has passed, or the last one left a
 * backlog (rows past their age, or a cap lowered at a restart). */
static void on_prune_check(uv_timer_t *t)
{
    uint64_t now = uv_now(t->loop);
    bool due = !R.pruned_ms || now - R.pruned_ms >= PERIOD_MS || atomic_load(&R.backlog);
    if (!due || atomic_load(&R.pruning))
        return;
    Prune *p = calloc(1, sizeof *p);
    if (!p)
        return;
    R.pruned_ms = now;
    atomic_store(&R.backlog, false);
    atomic_store(&R.pruning, true);
    p->policy = policy();
    p->now_ms = clock_wall_ms();
    store_write(prune_write, prune_done, p); /* prune_done runs even when the store is closed */
}

/* A game leaves memory only when nothing refers to it: no search, no waiting reply, no save in
 * flight or failed (the database has all of it). */
static bool evictable(const Game *g) { return saves_settled(g->id); }

static void on_tick(uv_timer_t *t)
{
    (void)t;
    long long idle_ms = games_in_memory() > GAMES_IN_MEMORY_SOFT_MAX ? 10000 : R.cfg->game_memory_idle * 1000LL;
    int evicted = games_evict_idle(clock_wall_ms() - idle_ms, evictable);
    if (evicted)
        log_msg(LOG_DEBUG, "retention: %d idle games left memory", evicted);
}

void retention_start(const ServerConfig *cfg, uv_loop_t *loop)
{
    R.cfg = cfg;
    long smallest = 0; /* the smallest count cap in force */
    const long caps[] = {cfg->retention_jobs, cfg->retention_games, cfg->retention_evals};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        if (caps[i] > 0 && (!smallest || caps[i] < smallest))
            smallest = caps[i];
    R.rows_trigger = smallest > 0 ? (int)(smallest / 50 > 16 ? smallest / 50 : 16) : 0;
    store_set_batch_hook(after_batch, NULL);
    uv_timer_init(loop, &R.prune_timer);
    uv_timer_start(&R.prune_timer, on_prune_check, 0, CHECK_MS);
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
    uv_timer_stop(&R.prune_timer);
    uv_close((uv_handle_t *)&R.prune_timer, NULL);
    store_set_batch_hook(NULL, NULL);
    R.running = false;
}
