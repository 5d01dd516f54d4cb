/* Whole-game analysis over the API, made and run: see game_analysis.h (read, cancelled and followed:
 * game_analysis_access.c). */
#include "game_analysis.h"

#include <stdlib.h>
#include <string.h>

#include "../../engine/engine.h"
#include "../base/clock.h"
#include "../base/ids.h"
#include "../base/list.h"
#include "../base/log.h"
#include "../domain/models.h"
#include "../domain/shared.h"
#include "encode.h"
#include "encode_review.h"
#include "eval_cache.h"
#include "game_analysis_state.h"
#include "persist.h"
#include "quota.h"
#include "reply.h"
#include "request.h"
#include "saves.h"

#define MAX_PLIES 300         /* Lichess analyses the first 300 plies */
#define KEPT 256              /* analyses in memory; finished ones beyond are read back from storage */
#define PER_CLIENT 4          /* unfinished analyses per client */
#define DEFAULT_NODES 1000000 /* Lichess's budget for a requested analysis */
/* Whole-game analyses are background work: their positions are queued only while the queue is less
 * than half full, so requests someone waits for always find room. */
#define QUEUE_SHARE 2

GameAnalysis *GameAnalyses;
static int Count;

static const char *const TopKeys[] = {"pgn",       "fen",      "moves", "mode",       "limits",
                                      "affective", "bayesian", "kind",  "secondLook", NULL};

GameAnalysis *ga_find(const char *id)
{
    for (GameAnalysis *ga = GameAnalyses; ga; ga = ga->list_next)
        if (!strcmp(ga->id, id))
            return ga;
    return NULL;
}

bool ga_unfinished(const GameAnalysis *ga) { return ga->status == JOB_QUEUED || ga->status == JOB_RUNNING; }

/* An analysis under way counts against its owner's --client-jobs-max as its positions in flight, and
 * as one while none is (between positions, reading the cache, waiting for room). */
static void update_hold(GameAnalysis *ga)
{
    bool hold = ga_unfinished(ga) && !ga->in_flight;
    if (hold != ga->holding) {
        ga->holding = hold;
        quota_hold(ga->owner, hold ? 1 : -1);
    }
}

static void free_analysis(GameAnalysis *ga)
{
    if (ga->holding)
        quota_hold(ga->owner, -1);
    json_decref(ga->request);
    json_decref(ga->position);
    json_decref(ga->deeper);
    json_decref(ga->result);
    pgn_game_free(&ga->game);
    free(ga->start);
    free(ga->fens);
    free(ga->pos);
    free(ga->emotions);
    free(ga->cached);
    free(ga->pgn);
    free(ga);
}

/* The oldest finished analysis leaves memory when there are too many (storage has it). */
static void evict(void)
{
    while (Count > KEPT) {
        GameAnalysis *oldest = NULL;
        for (GameAnalysis *ga = GameAnalyses; ga; ga = ga->list_next)
            if (!ga_unfinished(ga) && !ga->in_flight && !ga->looking)
                oldest = ga;
        if (!oldest)
            return;
        LIST_UNLINK(GameAnalyses, oldest, list_prev, list_next);
        Count--;
        free_analysis(oldest);
    }
}

/* ---- the JSON it is seen as ---- */

json_t *ga_status_json(const GameAnalysis *ga)
{
    json_t *o = json_pack("{s:s, s:s, s:{s:i, s:i}}", "id", ga->id, "status", JobStatusNames[ga->status], "progress",
                          "done", ga->done, "total", ga->total);
    json_t *mode = json_object_get(ga->position, "mode");
    json_object_set_new(o, "mode", json_string(mode ? json_string_value(mode) : "classical"));
    json_t *progress = json_object_get(o, "progress");
    json_object_set_new(progress, "cached", json_integer(ga->cache_hits));
    if (ga->second_look)
        json_object_set_new(progress, "secondLook",
                            json_pack("{s:i, s:i}", "done", ga->again_done, "total", ga->again_total));
    if (ga->result) {
        json_object_set(o, "analysis", json_object_get(ga->result, "analysis"));
        json_object_set(o, "players", json_object_get(ga->result, "players"));
    }
    return o;
}

static void send_to(GameAnalysis *ga, json_t *frame, bool progress)
{
    char *text = api_dumps(frame, false);
    json_decref(frame);
    for (int i = 0; text && i < ga->sub_count; i++) /* progress frames may be coalesced (the latest wins) */
        ws_send(ga->subs[i], text, strlen(text), progress, ga->id, 0);
    free(text);
}

void ga_send_final(GameAnalysis *ga)
{
    json_t *o = ga_status_json(ga);
    json_object_set_new(o, "type", json_string("gameAnalysis"));
    send_to(ga, o, false);
    ga->sub_count = 0;
}

/* ---- storage ---- */

/* Its row: the request while it runs ("queued"), then what GET shows plus the PGN. */
void ga_store_final(GameAnalysis *ga)
{
    update_hold(ga); /* it has ended */
    json_t *o = ga_status_json(ga);
    if (ga->pgn)
        json_object_set_new(o, "pgn", json_string(ga->pgn));
    char *text = api_dumps(o, false);
    json_decref(o);
    if (text)
        persist_job(ga->id, ga->owner, JobStatusNames[ga->status], ga->created_ms, ga->finished_ms, text);
}

/* What the cluster's other fronts answer for it while it runs here (api/persist.c). */
static void share_progress(GameAnalysis *ga)
{
    if (!shared_on())
        return;
    json_t *o = ga_status_json(ga);
    char *text = api_dumps(o, false);
    json_decref(o);
    if (text)
        persist_job_live(ga->id, text);
    free(text);
}

/* ---- the positions ---- */

static void pump(GameAnalysis *ga);

/* What every position's request has besides its fen, in the pass under way. */
static const json_t *pass_keys(const GameAnalysis *ga) { return ga->second ? ga->deeper : ga->position; }

static char *cache_key(const GameAnalysis *ga, int k) { return eval_cache_key(ga->fens[k], pass_keys(ga)); }

/* A position of the pass under way has its result. */
static void count_done(GameAnalysis *ga)
{
    if (ga->second)
        ga->again_done++;
    else
        ga->done++;
}

static bool pass_done(const GameAnalysis *ga)
{
    return !ga->in_flight && (ga->second ? ga->again_done == ga->again_total : ga->done == ga->total);
}

/* What the analysis request of position k is: the pass's keys and its FEN. */
static json_t *position_request(const GameAnalysis *ga, int k)
{
    json_t *body = json_deep_copy(pass_keys(ga));
    json_object_set_new(body, "fen", json_string(ga->fens[k]));
    return body;
}

typedef struct {
    char id[24];
    char **keys, **values;
    int *at; /* the position of each key */
    int n;
} CacheRead;

static void cache_read_free(CacheRead *c)
{
    for (int j = 0; c && c->keys && j < c->n; j++) {
        free(c->keys[j]);
        free(c->values ? c->values[j] : NULL);
    }
    if (c) {
        free(c->keys);
        free(c->values);
        free(c->at);
    }
    free(c);
}

static void cache_read(void *arg)
{
    CacheRead *c = arg;
    GameAnalysis *ga = ga_find(c->id);
    if (ga && ga->looking) {
        ga->looking = false;
        for (int j = 0; j < c->n; j++) {
            int k = c->at[j];
            if (c->values[j] && ga_unfinished(ga) &&
                eval_cache_parse(c->values[j], ga->fens[k], &ga->pos[k], NULL, NULL)) {
                if (ga->emotions) { /* the emotion is appraised as for a search (request_analysis) */
                    ApiError e;
                    json_t *body = position_request(ga, k);
                    Job *probe = request_analysis(&e, body, false);
                    json_decref(body);
                    if (probe && probe->has_emotion)
                        ga->emotions[k] = probe->emotion;
                    if (probe)
                        job_release(probe);
                }
                ga->cached[k] = true;
                ga->cache_hits += !ga->second;
                count_done(ga);
            }
        }
        pump(ga);
    }
    cache_read_free(c);
}

/* Reads the cache for every position of the pass before anything is searched. */
static void look_up(GameAnalysis *ga)
{
    CacheRead *c = calloc(1, sizeof *c);
    if (c) {
        c->keys = calloc((size_t)ga->total, sizeof *c->keys);
        c->values = calloc((size_t)ga->total, sizeof *c->values);
        c->at = calloc((size_t)ga->total, sizeof *c->at);
    }
    if (!c || !c->keys || !c->values || !c->at) {
        cache_read_free(c);
        return;
    }
    snprintf(c->id, sizeof c->id, "%s", ga->id);
    for (int k = 0; k < ga->total; k++)
        if (!ga->cached[k] && (c->keys[c->n] = cache_key(ga, k)))
            c->at[c->n++] = k;
    ga->looking = true;
    if (!persist_cache_get(c->keys, c->values, c->n, cache_read, c)) {
        ga->looking = false;
        cache_read_free(c);
    }
}

/* Bayesian mode: each player's recognised style (the opponent-style classifier over that player's
 * moves of this game: the samples after full moves 15 and 20), beside the accuracy. */
static void add_styles(GameAnalysis *ga)
{
    const StyleModel *model = models_style();
    json_t *players = json_object_get(ga->result, "players");
    for (Color c = WHITE; model && c <= BLACK; c++) {
        StyleResult st;
        char err[160];
        json_t *o = NULL;
        if (style_classify_game(model, &ga->game, c, &st, err, sizeof err) && st.ready)
            o = encode_style(st.style, st.posterior, &st.features);
        json_object_set_new(json_object_get(players, c == WHITE ? "white" : "black"), "style",
                            o ? o : json_null()); /* null: the player did not reach move 10 */
    }
}

/* The review of the game from its positions' results so far. */
static bool build_review(const GameAnalysis *ga, Review *r)
{
    Move *moves = malloc(sizeof *moves * (size_t)(ga->total > 1 ? ga->total - 1 : 1));
    bool ok = moves != NULL;
    for (int i = 0; ok && i < ga->game.move_count; i++)
        moves[i] = ga->game.moves[i].move;
    ok = ok && review_build(r, ga->start, moves, ga->game.move_count, ga->pos);
    free(moves);
    return ok;
}

/* The analysis ends with its review r (NULL: out of memory, it failed); r is freed here. */
static void finish(GameAnalysis *ga, Review *r)
{
    if (r) {
        json_t *affective = json_object_get(ga->position, "mode");
        bool feelings = affective && !strcmp(json_string_value(affective), "affective") && ga->emotions;
        ga->result = encode_review(r, ga->start, feelings ? ga->emotions : NULL);
        if (affective && !strcmp(json_string_value(affective), "bayesian"))
            add_styles(ga);
        PgnGame annotated;
        char err[200];
        if (review_annotate(r, &ga->game, &annotated, err, sizeof err)) {
            ga->pgn = pgn_write(&annotated);
            pgn_game_free(&annotated);
        }
        review_free(r);
    }
    ga->status = ga->result ? JOB_DONE : JOB_FAILED;
    ga->finished_ms = clock_wall_ms();
    ga_store_final(ga);
    ga_send_final(ga);
    log_msg(LOG_INFO, "game analysis %s %s: %d positions", ga->id, JobStatusNames[ga->status], ga->total);
}

/* Every position of the pass under way has its result. After the first pass, when the second look
 * was asked and some move was judged a blunder, it is taken: the positions it does not take keep
 * their result (marked `cached`), the others are searched again with `deeper`'s limits (or read
 * from the cache under them). Otherwise, or after it, the analysis ends with the review. */
static void end_pass(GameAnalysis *ga)
{
    Review r;
    bool reviewed = build_review(ga, &r);
    bool *marks = reviewed && ga->second_look && !ga->second && ga->deeper_limits
                      ? calloc((size_t)ga->total, sizeof *marks)
                      : NULL;
    int n = marks ? review_second_look(&r, marks) : 0;
    if (!n) {
        free(marks);
        finish(ga, reviewed ? &r : NULL);
        return;
    }
    review_free(&r);
    for (int k = 0; k < ga->total; k++)
        ga->cached[k] = !marks[k]; /* not in the second look: its result stands */
    free(marks);
    ga->again_total = n;
    ga->second = true;
    ga->next = 0;
    look_up(ga);
    if (!ga->looking)
        pump(ga); /* the cache could not be asked: its positions are searched */
}

static void on_job(Job *job, const JobEvent *ev, void *user)
{
    Slot *s = user;
    GameAnalysis *ga = s->ga;
    if (ev->kind == JOB_EVENT_STARTED && ga->status == JOB_QUEUED)
        ga->status = JOB_RUNNING;
    if (ev->kind != JOB_EVENT_FINAL || s->ended)
        return;
    s->ended = true;
    if (ev->stopping || !ga_unfinished(ga))
        return; /* shutting down (stored as queued: it runs again) or cancelled */
    ReviewPosition *rp = &ga->pos[s->index];
    if (ev->status == JOB_DONE && ev->result) {
        review_position_from_search(rp, job->pos, ev->result);
        char *key = cache_key(ga, s->index), *value = eval_cache_value(rp, ev->result->depth, ev->result->nodes);
        if (key && value)
            persist_cache_put(key, value, NULL, NULL);
        else {
            free(key);
            free(value);
        }
    } else if (!ga->second)
        rp->has = false; /* failed (timeout): the position has no eval, as lila's empty Info */
    count_done(ga);      /* (a second look that failed keeps the first search's result) */
    share_progress(ga);
    if (ga->sub_count) {
        json_t *f = json_pack("{s:s, s:s, s:i, s:i, s:i}", "type", "progress", "gameAnalysis", ga->id, "done", ga->done,
                              "total", ga->total, "ply", s->index);
        if (ga->second)
            json_object_set_new(f, "secondLook",
                                json_pack("{s:i, s:i}", "done", ga->again_done, "total", ga->again_total));
        if (rp->has) {
            int sign = job->pos->side == WHITE ? 1 : -1; /* White's view */
            json_object_set_new(f, rp->is_mate ? "mate" : "eval",
                                json_integer(sign * (rp->is_mate ? rp->mate : rp->cp)));
        }
        send_to(ga, f, true);
    }
    pump(ga);
}

/* Whether another position may be queued: its first one takes the place the analysis holds; more
 * need a free place in the owner's --client-jobs-max; and the queue must be less than half full. */
static bool may_search(const GameAnalysis *ga)
{
    JobsStats st;
    jobs_stats(&st);
    if (st.queued >= st.capacity / QUEUE_SHARE)
        return false;
    return !ga->in_flight || quota_job_allowed(ga->owner);
}

/* Releases the slots whose job ended, then starts positions while there is room. A slot's address
 * is its job listener's user, so slots never move: a free one (no job) is taken. */
static void pump(GameAnalysis *ga)
{
    for (int i = 0; i < IN_FLIGHT; i++)
        if (ga->slots[i].job && ga->slots[i].ended) {
            job_release(ga->slots[i].job);
            ga->slots[i].job = NULL;
            ga->in_flight--;
        }
    if (ga->looking || !ga->stored) {
        update_hold(ga);
        return; /* the cache answers first, and an analysis not acknowledged does not run */
    }
    if (ga_unfinished(ga) && pass_done(ga)) {
        end_pass(ga);
        update_hold(ga); /* (a second look reading the cache holds its place) */
        return;
    }
    static Position p;
    while (ga_unfinished(ga) && ga->next < ga->total && ga->in_flight < IN_FLIGHT && may_search(ga)) {
        if (ga->cached[ga->next]) {
            ga->next++;
            continue;
        }
        fen_read(&p, ga->fens[ga->next], NULL, 0);
        if (movegen_count(&p) == 0) { /* checkmate or stalemate: nothing to search */
            review_position_from_search(&ga->pos[ga->next++], &p, NULL);
            count_done(ga);
            continue;
        }
        json_t *body = position_request(ga, ga->next);
        ApiError e;
        Job *job = request_analysis(&e, body, false);
        json_decref(body);
        if (!job) { /* cannot happen after the check at creation; counted as a position without eval */
            ga->pos[ga->next].has = ga->second && ga->pos[ga->next].has;
            ga->next++;
            count_done(ga);
            continue;
        }
        snprintf(job->client, sizeof job->client, "%s", ga->owner); /* served fairly among its jobs */
        job->unlisted = true; /* its result goes to the analysis and the evaluation cache, not to a job row */
        job->background = true;
        if (ga->emotions && job->has_emotion)
            ga->emotions[ga->next] = job->emotion;
        if (!jobs_submit(job)) {
            job_release(job);
            break; /* the queue is full: game_analysis_retry tries again */
        }
        Slot *s = NULL;
        for (int i = 0; !s && i < IN_FLIGHT; i++)
            if (!ga->slots[i].job)
                s = &ga->slots[i];
        *s = (Slot){ga, ga->next++, job, false};
        job_retain(job); /* the slot's own reference: the table keeps its own until the job is evicted */
        ga->in_flight++;
        job_add_listener(job, on_job, s);
        update_hold(ga); /* its place is now its position's */
    }
    if (ga_unfinished(ga) && pass_done(ga))
        end_pass(ga);
    update_hold(ga);
}

void game_analysis_retry(void)
{
    for (GameAnalysis *ga = GameAnalyses; ga; ga = ga->list_next)
        if (ga_unfinished(ga))
            pump(ga);
}

/* ---- a new analysis ---- */

/* The second look's keys: the positions' with its limits (review_second_look_limits), within the
 * server's caps. *deeper: some limit is larger than the first searches had (none is when those were
 * at the caps already: then there is no second look to take). */
static json_t *deeper_keys(const json_t *position, bool *deeper)
{
    json_t *d = json_deep_copy(position), *limits = json_object_get(d, "limits");
    static const char *const Names[] = {"nodes", "depth", "movetime"};
    int64_t value[3], cap[3];
    for (int i = 0; i < 3; i++) {
        json_t *v = json_object_get(limits, Names[i]);
        value[i] = json_is_integer(v) && json_integer_value(v) > 0 ? json_integer_value(v) : 0;
    }
    int64_t first[3] = {value[0], value[1], value[2]};
    review_second_look_limits(&value[0], &value[1], &value[2]);
    request_limit_caps(&cap[0], &cap[1], &cap[2]);
    *deeper = false;
    for (int i = 0; i < 3; i++)
        if (value[i]) {
            int64_t was = first[i] < cap[i] ? first[i] : cap[i], now = value[i] < cap[i] ? value[i] : cap[i];
            *deeper = *deeper || now > was;
            json_object_set_new(limits, Names[i], json_integer(now));
        }
    return d;
}

/* A new analysis from a request body, inserted (not started); NULL with e set. */
static GameAnalysis *build(json_t *body, const char *owner, const char *id, ApiError *e)
{
    if (!request_check_keys(e, body, TopKeys, ""))
        return NULL;
    if (!json_object_get(body, "pgn") && !json_object_get(body, "moves")) {
        api_error_set(e, 400, "game_missing", "moves",
                      "give the game: 'pgn', or 'moves' (UCI, an array or a space-separated string) with an "
                      "optional 'fen'");
        return NULL;
    }
    GameAnalysis *ga = calloc(1, sizeof *ga);
    if (!ga || !(ga->start = malloc(sizeof *ga->start))) {
        free(ga);
        api_error_set(e, 503, "out_of_memory", NULL, "the server is out of memory");
        return NULL;
    }
    if (!request_read_game(e, body, MAX_PLIES, &ga->game, ga->start)) {
        free(ga->start);
        free(ga);
        return NULL;
    }
    if (ga->game.move_count == 0) { /* (tags alone, a result alone, an empty move list) */
        api_error_set(e, 400, "game_missing", json_object_get(body, "pgn") ? "pgn" : "moves",
                      "the game has no moves to analyse");
        pgn_game_free(&ga->game);
        free(ga->start);
        free(ga);
        return NULL;
    }
    /* What each position's analysis request carries: the analysis keys, with Lichess's budget by
     * default; checked once here on the start position (bad mode, limits, ... refused now). */
    ga->position = json_object();
    static const char *const Pass[] = {"mode", "limits", "affective", "bayesian"};
    for (size_t i = 0; i < sizeof Pass / sizeof Pass[0]; i++)
        if (json_object_get(body, Pass[i]))
            json_object_set(ga->position, Pass[i], json_object_get(body, Pass[i]));
    if (!json_object_get(ga->position, "limits"))
        json_object_set_new(ga->position, "limits", json_pack("{s:i}", "nodes", DEFAULT_NODES));
    if (!json_object_get(ga->position, "mode")) /* one cache key for "classical" said or implied */
        json_object_set_new(ga->position, "mode", json_string("classical"));
    ga->total = ga->game.move_count + 1;
    ga->fens = malloc(sizeof *ga->fens * (size_t)ga->total);
    if (!ga->fens) {
        free_analysis(ga);
        api_error_set(e, 503, "out_of_memory", NULL, "the server is out of memory");
        return NULL;
    }
    static Position p; /* the game replayed once: every position's FEN */
    position_copy(&p, ga->start);
    fen_write(&p, ga->fens[0]);
    for (int i = 0; i < ga->game.move_count; i++) {
        if (p.stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(&p);
        position_make_move(&p, ga->game.moves[i].move);
        fen_write(&p, ga->fens[i + 1]);
    }
    json_t *check = position_request(ga, 0);
    Job *probe = request_analysis(e, check, false);
    json_decref(check);
    if (!probe) {
        free_analysis(ga);
        return NULL;
    }
    job_release(probe);
    json_t *second_look = json_object_get(body, "secondLook");
    if (second_look && !json_is_boolean(second_look)) {
        free_analysis(ga);
        api_error_set(e, 400, "bad_type", "secondLook", "'secondLook' must be true or false");
        return NULL;
    }
    ga->second_look = !json_is_false(second_look);
    ga->deeper = deeper_keys(ga->position, &ga->deeper_limits);
    ga->pos = calloc((size_t)ga->total, sizeof *ga->pos);
    ga->cached = calloc((size_t)ga->total, sizeof *ga->cached);
    json_t *mode = json_object_get(ga->position, "mode");
    if (mode && !strcmp(json_string_value(mode), "affective"))
        ga->emotions = calloc((size_t)ga->total, sizeof *ga->emotions);
    if (!ga->pos || !ga->cached || !ga->deeper) {
        free_analysis(ga);
        api_error_set(e, 503, "out_of_memory", NULL, "the server is out of memory");
        return NULL;
    }
    ga->request = json_deep_copy(body);
    json_object_set_new(ga->request, "kind", json_string("game-analysis"));
    snprintf(ga->owner, sizeof ga->owner, "%s", owner);
    ga->status = JOB_QUEUED;
    ga->created_ms = clock_wall_ms();
    if (id)
        snprintf(ga->id, sizeof ga->id, "%s", id); /* resumed: the id it was stored with */
    else
        ids_random_hex(ga->id, 16);
    LIST_PUSH(GameAnalyses, ga, list_prev, list_next);
    Count++;
    evict();
    look_up(ga);
    return ga;
}

static void answer_created(Request *r, bool ok, void *arg)
{
    GameAnalysis *ga = ga_find(arg);
    free(arg);
    if (!ga)
        api_reply_fail(r, 404, "unknown_analysis", NULL, "the analysis is gone");
    else if (!ok) {
        ga->status = JOB_CANCELLED; /* not acknowledged: it does not run either */
        update_hold(ga);
        saves_reply_unavailable(r);
    } else {
        ga->stored = true;
        api_reply_json(r, 202, ga_status_json(ga));
        pump(ga);
    }
}

void game_analysis_create(Request *r, const char *param)
{
    (void)param;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    Identity who = auth_of(r);
    int mine = 0;
    for (GameAnalysis *ga = GameAnalyses; ga; ga = ga->list_next)
        mine += ga_unfinished(ga) && !strcmp(ga->owner, who.who);
    ApiError e;
    if (mine >= PER_CLIENT) {
        json_decref(body);
        api_reply_fail(r, 429, "too_many_analyses", NULL,
                       "you have %d game analyses under way (the limit): wait for one, or cancel one", mine);
        return;
    }
    if (!quota_job_room(&e, who.who)) {
        json_decref(body);
        api_reply_error(r, &e);
        return;
    }
    GameAnalysis *ga = build(body, who.who, NULL, &e);
    json_decref(body);
    if (!ga) {
        api_reply_error(r, &e);
        return;
    }
    update_hold(ga); /* counted from now on, before its first position */
    char *request = api_dumps(ga->request, false);
    persist_job(ga->id, ga->owner, "queued", ga->created_ms, 0, request);
    share_progress(ga);
    saves_wait(r, ga->id, answer_created, strdup(ga->id), free);
}

bool game_analysis_resume(const char *id, const char *owner, const char *request, long long created_ms)
{
    json_t *body = request ? json_loads(request, 0, NULL) : NULL;
    const char *kind = json_string_value(json_object_get(body, "kind"));
    if (!kind || strcmp(kind, "game-analysis") || strlen(id) >= 24) {
        json_decref(body);
        return false;
    }
    ApiError e;
    GameAnalysis *ga = build(body, owner, id, &e);
    json_decref(body);
    if (!ga) {
        log_msg(LOG_WARN, "game analysis %s could not be resumed: %s", id, e.message);
        return true;
    }
    ga->created_ms = created_ms;
    ga->stored = true; /* read back from storage */
    pump(ga);
    return true;
}

void game_analysis_shutdown(void)
{
    while (GameAnalyses) {
        GameAnalysis *ga = GameAnalyses;
        LIST_UNLINK(GameAnalyses, ga, list_prev, list_next);
        for (int i = 0; i < IN_FLIGHT; i++)
            if (ga->slots[i].job) {
                job_remove_listener(ga->slots[i].job, on_job, &ga->slots[i]);
                job_release(ga->slots[i].job); /* stored as queued if unfinished: the next start runs it */
            }
        free_analysis(ga);
    }
    Count = 0;
}
