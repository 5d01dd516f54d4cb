/* The in-process game loop, and the pool of threads that plays numbered games with it.
 *
 * Threads (selfplay_run): the caller's thread starts `threads` workers and joins them. Each worker
 * owns its SelfPlayTask (two Searches, the game); the pool's lock guards only the next game number
 * (and the skip callback, called under it). setup and finish run outside it, so the callers' own
 * locks are never taken inside the pool's. */
#include "selfplay.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../notation/fen.h"
#include "../core/rules.h"

bool selfplay_game(Search *searches[COLOR_NB], const char *fen, const SelfPlayer players[COLOR_NB],
                   const SelfPlaySettings *settings, SelfPlayGame *game)
{
    Position *owned = malloc(sizeof *owned); /* large: kept off worker threads' stacks */
    if (!owned)
        return false;
    Position *p = owned;
    char err[128];
    if (fen_read(p, fen ? fen : FEN_STARTPOS, err, sizeof err) != FEN_OK) {
        free(owned);
        return false;
    }
    memset(game, 0, sizeof *game);
    for (Color c = WHITE; c <= BLACK; c++)
        search_clear(searches[c]);
    int64_t clock[COLOR_NB] = {settings->base_ms, settings->base_ms};
    int decisive_plies = 0, last_sign = 0;
    SearchResult *r = malloc(sizeof *r);
    if (!r) {
        free(owned);
        return false;
    }
    for (;;) {
        GameStatus st = position_status(p);
        if (st != STATUS_ONGOING) {
            game->result = st == STATUS_CHECKMATE ? (p->side == WHITE ? -1 : 1) : 0;
            snprintf(game->reason, sizeof game->reason, "%s", game_status_name(st));
            break;
        }
        if (game->plies >= SELFPLAY_MAX_PLIES) {
            snprintf(game->reason, sizeof game->reason, "move limit");
            break;
        }
        Color us = p->side;
        SearchLimits l;
        search_limits_init(&l);
        l.nodes = settings->nodes;
        l.depth = settings->depth;
        if (settings->base_ms > 0) {
            l.use_clock = true;
            l.time[WHITE] = clock[WHITE];
            l.time[BLACK] = clock[BLACK];
            l.inc[WHITE] = l.inc[BLACK] = settings->inc_ms;
        }
        const Evaluator *e = players[us].evaluator(players[us].user, p);
        int64_t start = time_now_ms();
        search_run(searches[us], p, &l, e, NULL, r);
        if (settings->base_ms > 0) {
            clock[us] -= time_now_ms() - start;
            if (clock[us] < 0) {
                game->result = us == WHITE ? -1 : 1;
                snprintf(game->reason, sizeof game->reason, "time forfeit");
                break;
            }
            clock[us] += settings->inc_ms;
        }
        if (r->best == MOVE_NONE) { /* cannot happen with a legal move available */
            snprintf(game->reason, sizeof game->reason, "no move");
            break;
        }
        /* Adjudication: both sides see the same winner by a clear margin for 4 plies. */
        int white_score = us == WHITE ? r->score : -r->score;
        int sign = settings->resign_cp && white_score >= settings->resign_cp    ? 1
                   : settings->resign_cp && white_score <= -settings->resign_cp ? -1
                                                                                : 0;
        decisive_plies = sign && sign == last_sign ? decisive_plies + 1 : sign ? 1 : 0;
        last_sign = sign;
        game->scores[game->plies] = (int16_t)r->score;
        game->moves[game->plies++] = r->best;
        position_make_move(p, r->best);
        position_trim_history(p);
        if (decisive_plies >= 4) {
            game->result = sign;
            snprintf(game->reason, sizeof game->reason, "adjudicated");
            break;
        }
    }
    free(r);
    free(owned);
    return true;
}

typedef struct {
    const SelfPlayRun *run;
    pthread_mutex_t lock; /* guards next */
    int next;
} SelfPlayPool;

/* The next game number to play, or -1 when there is none or the run was stopped. */
static int pool_claim(SelfPlayPool *pool)
{
    const SelfPlayRun *run = pool->run;
    pthread_mutex_lock(&pool->lock);
    while (run->skip && pool->next < run->games && run->skip(run->user, pool->next))
        pool->next++;
    bool stopped = run->stop && atomic_load_explicit(run->stop, memory_order_relaxed);
    int index = pool->next < run->games && !stopped ? pool->next++ : -1;
    pthread_mutex_unlock(&pool->lock);
    return index;
}

static void *pool_worker(void *arg)
{
    SelfPlayPool *pool = arg;
    const SelfPlayRun *run = pool->run;
    SelfPlayTask *task = malloc(sizeof *task); /* large: kept off the stack */
    if (!task)
        abort();
    task->searches[WHITE] = search_new();
    task->searches[BLACK] = search_new();
    if (!task->searches[WHITE] || !task->searches[BLACK])
        abort();
    for (int index; (index = pool_claim(pool)) >= 0;) {
        task->index = index;
        task->fen[0] = 0;
        run->setup(run->user, task);
        task->played =
            selfplay_game(task->searches, task->fen[0] ? task->fen : NULL, task->players, run->settings, &task->game);
        if (!task->played)
            memset(&task->game, 0, sizeof task->game);
        run->finish(run->user, task);
    }
    search_free(task->searches[WHITE]);
    search_free(task->searches[BLACK]);
    free(task);
    return NULL;
}

void selfplay_run(const SelfPlayRun *run)
{
    SelfPlayPool pool = {.run = run};
    pthread_mutex_init(&pool.lock, NULL);
    int threads = run->threads > 1 ? run->threads : 1, started = 0;
    pthread_t *tid = malloc((size_t)threads * sizeof *tid);
    if (!tid)
        abort();
    while (started < threads && pthread_create(&tid[started], NULL, pool_worker, &pool) == 0)
        started++;
    if (started == 0) /* no thread to be had: the games are still played, here */
        pool_worker(&pool);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    pthread_mutex_destroy(&pool.lock);
}
