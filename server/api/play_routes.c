/* POST /api/play: stateless play. A position and a level (1-8, Lichess's computer levels: limited
 * search, and below 6 a choice among the lines close to the best) or limits -> the engine's move,
 * its SAN, the new FEN and the game's status after it. The search is an analysis job of the client
 * (quotas, fair queue); the request waits for it. Loop thread. */
#include <stdlib.h>
#include <string.h>

#include "../../engine/engine.h"
#include "../../engine/core/rules.h"
#include "../domain/games.h"
#include "reply.h"
#include "request.h"
#include "routes.h"

typedef struct {
    Request *r;
    Job *job;
    int level; /* 0: limits given */
} PlayWait;

static const char *const StatusWords[] = {"started", "mate", "stalemate", "draw", "draw", "draw"};
static const char *const DrawReasons[] = {
    NULL, NULL, NULL, "fifty moves", "threefold repetition", "insufficient material"};

static void play_listener(Job *job, const JobEvent *ev, void *user);

static void release(PlayWait *w)
{
    job_release(w->job);
    free(w);
}

static void answer(PlayWait *w, const JobEvent *ev)
{
    Request *r = w->r;
    const SearchResult *res = ev->result;
    if (ev->status != JOB_DONE || !res || !res->best || res->lines < 1) {
        api_reply_fail(r, 503, "cancelled", NULL, "the search was stopped before it found a move (shutting down?)");
        return;
    }
    int lines = w->level ? games_close_lines(w->level, res) : 1;
    int pick = lines > 1 ? rand() % lines : 0;
    const SearchInfo *line = &res->line[pick];
    Move m = pick && line->pv_length ? line->pv[0] : res->best;
    static Position p;
    position_copy(&p, w->job->pos);
    char san[SAN_STRING_SIZE], uci[MOVE_STRING_SIZE], fen[FEN_BUFFER_SIZE];
    san_write(&p, m, san);
    position_make_move(&p, m);
    fen_write(&p, fen);
    GameStatus st = position_status(&p);
    int score = (w->job->pos->side == WHITE ? 1 : -1) * line->score; /* White's view */
    int mate = search_mate_in(score);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i}", "move", move_to_uci(m, uci), "san", san, "fen", fen, "status",
                          StatusWords[st], "depth", line->depth);
    if (DrawReasons[st])
        json_object_set_new(o, "reason", json_string(DrawReasons[st]));
    json_object_set_new(o, mate ? "mate" : "eval", json_integer(mate ? mate : score));
    if (w->level)
        json_object_set_new(o, "level", json_integer(w->level));
    api_reply_json(r, 200, o);
}

static void play_listener(Job *job, const JobEvent *ev, void *user)
{
    PlayWait *w = user;
    if (ev->kind != JOB_EVENT_FINAL)
        return;
    job_remove_listener(job, play_listener, w);
    http_end_wait(w->r);
    answer(w, ev);
    http_resume(w->r);
    release(w);
}

static void play_gone(Request *r) /* the client left: its search is stopped */
{
    PlayWait *w = r->waiter;
    job_remove_listener(w->job, play_listener, w);
    jobs_cancel(w->job);
    release(w);
}

void play_route(Request *r, const char *param)
{
    (void)param;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    json_t *lvl = json_object_get(body, "level");
    int level = 0;
    if (lvl) {
        if (!json_is_integer(lvl) || json_integer_value(lvl) < 1 || json_integer_value(lvl) > GAMES_LEVEL_MAX) {
            json_decref(body);
            api_reply_fail(r, 400, "bad_level", "level", "level must be a whole number from 1 to %d", GAMES_LEVEL_MAX);
            return;
        }
        if (json_object_get(body, "limits") || json_object_get(body, "multiPv")) {
            json_decref(body);
            api_reply_fail(r, 400, "level_and_limits", "level", "give a level or limits, not both");
            return;
        }
        level = (int)json_integer_value(lvl);
        SearchLimits l;
        games_level_limits(level, &l);
        json_t *limits = json_object();
        if (l.depth)
            json_object_set_new(limits, "depth", json_integer(l.depth));
        if (l.movetime)
            json_object_set_new(limits, "movetime", json_integer(l.movetime));
        if (l.nodes)
            json_object_set_new(limits, "nodes", json_integer((json_int_t)l.nodes));
        json_object_set_new(body, "limits", limits);
        if (l.multipv > 1)
            json_object_set_new(body, "multiPv", json_integer(l.multipv));
        json_object_del(body, "level");
    } else if (!json_object_get(body, "limits"))
        json_object_set_new(body, "limits", json_pack("{s:i}", "depth", 12)); /* a sensible default move */
    ApiError e;
    Job *job = request_start(&e, body, false, r->client); /* counted against its quotas, queued */
    json_decref(body);
    if (!job) {
        if (e.status == 429 || e.status == 503)
            http_add_header(r, "Retry-After", "1");
        api_reply_error(r, &e);
        return;
    }
    if (movegen_count(job->pos) == 0) {
        jobs_cancel(job);
        api_reply_fail(r, 409, "game_over", NULL, "the game is over in that position (%s): there is no move to play",
                       game_status_name(position_status(job->pos)));
        return;
    }
    PlayWait *w = malloc(sizeof *w);
    if (!w) {
        jobs_cancel(job);
        api_reply_fail(r, 503, "out_of_memory", NULL, "the server is out of memory");
        return;
    }
    *w = (PlayWait){r, job, level};
    job_retain(job);
    job_add_listener(job, play_listener, w);
    http_suspend(r, w, play_gone);
}
