/* The search's threads and its public entry points.
 * Design: search_run() runs on the caller's thread as the main search thread (id 0); helpers
 * (Lazy SMP) sleep on `cond` and wake when `generation` changes, each searching its own copy of
 * the root with the shared transposition table. `lock` guards generation/running/quit only; the
 * stop flag and node counters are atomics read with relaxed ordering. Only the main thread checks
 * the clock, reports, and decides the best move. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/hugepages.h"
#include "../core/movegen.h"
#include "../core/random.h"
#include "search_internal.h"

int64_t time_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void search_limits_init(SearchLimits *l)
{
    memset(l, 0, sizeof *l);
    l->multipv = 1;
}

int search_mate_in(int score)
{
    if (score >= VALUE_MATE_IN_MAX_PLY)
        return (VALUE_MATE - score + 1) / 2;
    if (score <= -VALUE_MATE_IN_MAX_PLY) /* (+1: a White-view score of Black mating in an odd number of plies) */
        return -(VALUE_MATE + score + 1) / 2;
    return 0;
}

int search_cp(int score) { return units_to_cp(score, SCORE_PAWN); }

uint64_t search_total_nodes(const Search *s)
{
    uint64_t n = 0;
    for (int i = 0; i < s->thread_count; i++)
        n += atomic_load_explicit(&s->threads[i]->nodes, memory_order_relaxed);
    return n;
}

void search_check_time(SearchThread *t)
{
    Search *s = t->search;
    uint64_t nodes = atomic_load_explicit(&t->nodes, memory_order_relaxed);
    if (s->node_limit && (s->thread_count == 1 ? nodes : search_total_nodes(s)) >= s->node_limit) {
        atomic_store(&s->stop, true);
        return;
    }
    if (s->strength.nodes && t->completed_depth > 0 && nodes >= s->strength.nodes) { /* (main thread only) */
        atomic_store(&s->stop, true);
        return;
    }
    /* The clock never stops a search before depth 1 is finished (a few dozen nodes): the move it
     * plays is then at least a searched one, not the first one generated. */
    if ((nodes & 1023) || !s->tm.maximum || !t->completed_depth ||
        atomic_load_explicit(&s->pondering, memory_order_relaxed))
        return;
    if (time_now_ms() - s->tm.start >= s->tm.maximum)
        atomic_store(&s->stop, true);
}

/* Whether a root move's score is this iteration's (not one left from before, nor none). */
static bool scored_at(const RootMove *rm, int depth)
{
    return rm->score != -VALUE_INFINITE && rm->score_depth >= depth;
}

static void fill_info(const SearchThread *t, int line, int depth, SearchInfo *info)
{
    const Search *s = t->search;
    const RootMove *rm = &t->root[line];
    bool updated = scored_at(rm, depth);
    info->depth = updated ? depth : (depth > 1 ? depth - 1 : 1);
    info->seldepth = rm->seldepth > info->depth ? rm->seldepth : info->depth;
    info->multipv = line + 1;
    info->score = updated ? rm->score : rm->previous_score;
    info->bound = line == t->pv_idx ? rm->bound : BOUND_EXACT;
    if (info->score == -VALUE_INFINITE)
        info->score = 0;
    info->nodes = search_total_nodes(s);
    info->time_ms = time_now_ms() - s->tm.start;
    info->nps = info->time_ms > 0 ? info->nodes * 1000 / (uint64_t)info->time_ms : info->nodes * 1000;
    info->hashfull = tt_hashfull(&s->tt);
    info->pv_length = rm->pv_length;
    memcpy(info->pv, rm->pv, (size_t)rm->pv_length * sizeof(Move));
}

/* A line cut to its first move (a fail high at the root, or a stop right after one) takes its
 * continuation from the hash table while that holds legal moves and no repetition: a ponder move and a
 * line to show, as Stockfish takes its ponder move. t->pos is the root again after the search. */
#define LINE_FROM_TT_MAX 8
static void extend_line_from_tt(SearchThread *t, RootMove *rm)
{
    const Search *s = t->search;
    Position *p = &t->pos;
    int made = 0;
    position_make_move(p, rm->pv[0]);
    made++;
    while (rm->pv_length < LINE_FROM_TT_MAX && !position_is_repetition(p, 1)) {
        TTData tte;
        if (!tt_probe(&s->tt, p->st->key ^ s->salt, &tte) || !movegen_is_legal(p, tte.move))
            break;
        rm->pv[rm->pv_length++] = tte.move;
        position_make_move(p, tte.move);
        made++;
    }
    while (made-- > 0)
        position_unmake_move(p);
}

/* Reports every line of the main thread (exact lines and, mid-iteration, a failing one); at a
 * rating, every line it chooses among (as Stockfish shows its skill's four). */
void search_report(SearchThread *t, int depth)
{
    Search *s = t->search;
    for (int i = 0; i < s->report_lines; i++) {
        const RootMove *rm = &t->root[i];
        if (i > 0 && !scored_at(rm, depth) && rm->previous_score == -VALUE_INFINITE)
            continue; /* a line with no score yet (MultiPV, stopped in depth 1) */
        SearchInfo info;
        fill_info(t, i, depth, &info);
        if (i == 0)
            t->reported = rm->move;
        if (s->cb && s->cb->on_info)
            s->cb->on_info(s->cb->user, &info);
    }
}

static void *helper_main(void *arg)
{
    SearchThread *t = arg;
    Search *s = t->search;
    unsigned seen = 0;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (s->generation == seen && !s->quit)
            pthread_cond_wait(&s->cond, &s->lock);
        if (s->quit)
            break;
        seen = s->generation;
        pthread_mutex_unlock(&s->lock);
        search_iterate(t);
        pthread_mutex_lock(&s->lock);
        if (--s->running == 0)
            pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static SearchThread *thread_new(Search *s, int id)
{
    SearchThread *t = huge_alloc(sizeof *t); /* aligned for its accumulators' loads; histories in huge pages */
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->search = s;
    t->id = id;
    search_thread_reset(t);
    if (id > 0 && pthread_create(&t->handle, NULL, helper_main, t)) {
        free(t);
        return NULL;
    }
    return t;
}

static void stop_helpers(Search *s)
{
    pthread_mutex_lock(&s->lock);
    s->quit = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    for (int i = 1; i < s->thread_count; i++)
        pthread_join(s->threads[i]->handle, NULL);
    for (int i = 1; i < s->thread_count; i++)
        free(s->threads[i]);
    s->quit = false;
    s->thread_count = 1;
}

Search *search_new(void)
{
    Search *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    s->move_overhead = 10;
    s->threads[0] = thread_new(s, 0);
    s->thread_count = 1;
    if (!s->threads[0] || !search_set_hash(s, 16)) {
        search_free(s);
        return NULL;
    }
    return s;
}

void search_free(Search *s)
{
    if (!s)
        return;
    if (s->threads[0])
        stop_helpers(s);
    free(s->threads[0]);
    tt_free(&s->tt);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s);
}

bool search_set_hash(Search *s, size_t mb)
{
    if (!tt_resize(&s->tt, mb))
        return false;
    s->hash_mb = mb < 1 ? 1 : mb;
    return true;
}

size_t search_hash_mb(const Search *s) { return s->hash_mb; }

bool search_set_threads(Search *s, int n)
{
    if (n < 1 || n > MAX_THREADS)
        return false;
    stop_helpers(s);
    for (int i = 1; i < n; i++) {
        SearchThread *t = thread_new(s, i);
        if (!t)
            return false;
        s->threads[s->thread_count++] = t;
    }
    return true;
}

void search_set_move_overhead(Search *s, int ms) { s->move_overhead = ms < 0 ? 0 : ms; }
void search_clear(Search *s)
{
    tt_clear(&s->tt);
    for (int i = 0; i < s->thread_count; i++)
        search_thread_reset(s->threads[i]);
}

void search_stop(Search *s) { atomic_store(&s->stop, true); }

void search_ponderhit(Search *s) { atomic_store(&s->pondering, false); }

/* A number nobody can predict or repeat: a count shared by every search, and the clock, mixed. */
static uint64_t fresh_random(void)
{
    static _Atomic uint64_t count = 0;
    uint64_t state = atomic_fetch_add(&count, 1) ^ (uint64_t)time_now_ms() << 24;
    return splitmix64(&state);
}

/* A rating's choice among the best STRENGTH_LINES moves of its last completed iteration (strength.h).
 * A budget usually ends the search inside an iteration, and the moves that iteration reached have
 * scores a ply deeper than the rest (the first one, with empty histories, often a poor deeper line):
 * drawing among those mixed scores would favour whichever move was searched first. */
static Move strength_pick(const Search *s, const SearchThread *t)
{
    bool partial = t->root_depth > t->completed_depth; /* stopped inside an iteration */
    int scores[STRENGTH_LINES], index[STRENGTH_LINES], n = 0;
    for (int i = 0; i < t->root_count; i++) {
        int v = partial ? t->root[i].previous_score : t->root[i].score;
        int k = n < STRENGTH_LINES ? n++ : STRENGTH_LINES;
        if (k == STRENGTH_LINES && v <= scores[k - 1])
            continue;
        for (; k > 0 && scores[k - 1] < v; k--) /* (kept sorted, best first; ties keep the search's order) */
            if (k < STRENGTH_LINES)
                scores[k] = scores[k - 1], index[k] = index[k - 1];
        scores[k] = v, index[k] = i;
    }
    return t->root[index[strength_choose(&s->strength, scores, n, t->root_count, fresh_random())]].move;
}

void search_prepare(Search *s, const SearchLimits *limits)
{
    atomic_store(&s->stop, false);
    atomic_store(&s->pondering, limits->ponder);
    atomic_store(&s->prepared, true);
}

void search_run(Search *s, const Position *pos, const SearchLimits *limits, const Evaluator *eval,
                const SearchCallbacks *cb, SearchResult *result)
{
    if (!atomic_exchange(&s->prepared, false))
        search_prepare(s, limits);
    atomic_store(&s->prepared, false);
    int64_t start = time_now_ms();
    s->root_pos = pos;
    s->limits = *limits;
    if (s->limits.multipv < 1)
        s->limits.multipv = 1;
    if (s->limits.multipv > MAX_MULTIPV)
        s->limits.multipv = MAX_MULTIPV;
    s->eval = eval;
    s->salt = eval->fingerprint;
    s->cb = cb;
    s->node_limit = limits->nodes;
    bool infinite = limits->infinite;
    s->strength = (Strength){0};
    if (limits->elo) {
        /* A rating's move is searched from nothing, whatever was searched before (strength.h): a
         * table key of its own for this search and empty histories. Another client's analysis, or the
         * same level asked the same position again, would otherwise make it stronger or narrow the
         * moves it draws among. */
        strength_of(limits->elo, &s->strength);
        s->salt ^= fresh_random() | 1;
        search_thread_reset(s->threads[0]);
    }
    timeman_init(&s->tm, &s->limits, pos->side, pos->game_ply, s->move_overhead, start);
    if (infinite)
        s->tm.optimum = s->tm.maximum = 0;
    tt_new_search(&s->tt);

    MoveList legal;
    movegen_legal(pos, &legal, GEN_ALL);
    SearchThread *main = s->threads[0];
    int count = 0;
    for (int i = 0; i < legal.count; i++) {
        bool wanted = limits->searchmoves_count == 0;
        for (int k = 0; k < limits->searchmoves_count && !wanted; k++)
            wanted = limits->searchmoves[k] == legal.moves[i];
        if (wanted)
            main->root[count++].move = legal.moves[i];
    }
    memset(result, 0, sizeof *result);

    if (count == 0) {
        /* Mate or stalemate (or no listed move): report it, and wait if told to search on. */
        SearchInfo info = {0};
        info.depth = 0;
        info.multipv = 1;
        info.score = in_check(pos) && legal.count == 0 ? -VALUE_MATE : VALUE_DRAW;
        if (cb && cb->on_info)
            cb->on_info(cb->user, &info);
        while ((infinite || atomic_load(&s->pondering)) && !atomic_load(&s->stop)) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        result->best = result->ponder = MOVE_NONE;
        result->score = info.score;
        result->lines = 1;
        result->line[0] = info;
        return;
    }

    int multipv = s->limits.multipv;
    if (s->strength.nodes && multipv < STRENGTH_LINES)
        multipv = STRENGTH_LINES;
    if (multipv > count)
        multipv = count;
    s->report_lines = multipv < s->limits.multipv || s->strength.nodes ? multipv : s->limits.multipv;
    for (int i = 0; i < s->thread_count; i++) {
        SearchThread *t = s->threads[i];
        position_copy(&t->pos, pos);
        t->nnue.base = t->pos.stack_len;
        if (t != main)
            memcpy(t->root, main->root, (size_t)count * sizeof(RootMove));
        t->root_count = count;
        t->multipv = multipv;
        for (int k = 0; k < count; k++) {
            t->root[k].score = t->root[k].previous_score = -VALUE_INFINITE;
            t->root[k].score_depth = 0;
            t->root[k].pv[0] = t->root[k].move;
            t->root[k].pv_length = 1;
            t->root[k].seldepth = 0;
            t->root[k].bound = BOUND_EXACT;
            t->root[k].nodes = 0;
        }
        atomic_store(&t->nodes, 0);
    }

    /* A rating's search is the main thread's alone: its budget and table are one thread's. */
    int helpers = s->strength.nodes ? 0 : s->thread_count - 1;
    pthread_mutex_lock(&s->lock);
    if (helpers) {
        s->generation++;
        s->running = helpers;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);

    search_iterate(main);

    /* A finished infinite or ponder search still waits for stop (or ponderhit): UCI requires that
     * bestmove never comes before. */
    while ((infinite || atomic_load(&s->pondering)) && !atomic_load(&s->stop)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    atomic_store(&s->stop, true);
    pthread_mutex_lock(&s->lock);
    while (s->running > 0)
        pthread_cond_wait(&s->cond, &s->lock);
    pthread_mutex_unlock(&s->lock);

    /* The result comes from the thread that completed the deepest iteration (main on ties): with
     * Lazy SMP a helper may finish a depth first. A search stopped before depth 1 finished still
     * has a legal move to give (the main thread's first). */
    SearchThread *chosen = main;
    for (int i = 1; i <= helpers; i++)
        if (s->threads[i]->completed_depth > chosen->completed_depth)
            chosen = s->threads[i];
    int reported = 0; /* the depth to report again, 0 if the last report already says it all */
    if (chosen != main && chosen->completed_depth > 0) {
        memcpy(main->root, chosen->root, (size_t)count * sizeof(RootMove));
        main->completed_depth = chosen->completed_depth;
        reported = main->completed_depth;
    } else if (!s->strength.nodes && main->root_depth > main->completed_depth &&
               main->root[0].score != -VALUE_INFINITE &&
               (scored_at(&main->root[0], main->root_depth) || main->root[0].move != main->reported))
        reported = main->root_depth; /* stopped inside an iteration: a new score, or another move first (a
                                      * rating draws among the last full iteration's) */
    for (int i = 0; i < s->report_lines; i++)
        if (main->root[i].pv_length == 1)
            extend_line_from_tt(main, &main->root[i]);
    /* UCI: a final info, whose line starts with the move played, directly before bestmove. */
    if (reported)
        search_report(main, reported);
    RootMove *best = &main->root[0];
    result->best = s->strength.nodes && main->completed_depth > 0 ? strength_pick(s, main) : best->move;
    result->ponder = MOVE_NONE;
    for (int i = 0; i < count; i++)
        if (main->root[i].move == result->best && main->root[i].pv_length > 1)
            result->ponder = main->root[i].pv[1];
    result->score = best->score == -VALUE_INFINITE ? best->previous_score : best->score;
    if (result->score == -VALUE_INFINITE)
        result->score = 0;
    result->depth = main->completed_depth;
    result->nodes = search_total_nodes(s);
    result->time_ms = time_now_ms() - start;
    result->lines = s->report_lines;
    for (int i = 0; i < result->lines; i++)
        fill_info(main, i, main->completed_depth > 0 ? main->completed_depth : 1, &result->line[i]);
}
