/* POST /api/play: stateless play. A position and a level (1-8, Lichess's computer levels: limited
 * search, and below 6 a choice among the lines close to the best) or limits -> the engine's move,
 * its SAN, the new FEN and the game's status after it. The search is an analysis job of the client
 * (quotas, fair queue); the request waits for it. Loop thread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/engine.h"
#include "../../engine/core/rules.h"
#include "../domain/games.h"
#include "job_wait.h"
#include "reply.h"
#include "request.h"
#include "routes.h"

static const char *const StatusWords[] = {"started", "mate", "stalemate", "draw", "draw", "draw"};
static const char *const DrawReasons[] = {
    NULL, NULL, NULL, "fifty moves", "threefold repetition", "insufficient material"};

/* The job's end: the move it plays (a level picks among close lines), answered. */
static void played(Request *r, Job *job, const JobEvent *ev, void *arg)
{
    int level = (int)(intptr_t)arg;
    const SearchResult *res = ev->result;
    if (ev->status != JOB_DONE || !res || !res->best || res->lines < 1) {
        api_reply_fail(r, 503, "cancelled", NULL, "the search was stopped before it found a move (shutting down?)");
        http_resume(r);
        return;
    }
    Move m;
    const SearchInfo *line = games_pick_line(level, res, &m);
    static Position p;
    position_copy(&p, job->pos);
    char san[SAN_STRING_SIZE], uci[MOVE_STRING_SIZE], fen[FEN_BUFFER_SIZE];
    san_write(&p, m, san);
    position_make_move(&p, m);
    fen_write(&p, fen);
    GameStatus st = position_status(&p);
    int score = (job->pos->side == WHITE ? 1 : -1) * line->score; /* White's view */
    int mate = search_mate_in(score);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i}", "move", move_to_uci(m, uci), "san", san, "fen", fen, "status",
                          StatusWords[st], "depth", line->depth);
    if (DrawReasons[st])
        json_object_set_new(o, "reason", json_string(DrawReasons[st]));
    json_object_set_new(o, mate ? "mate" : "eval", json_integer(mate ? mate : search_cp(score)));
    if (level)
        json_object_set_new(o, "level", json_integer(level));
    api_reply_json(r, 200, o);
    http_resume(r);
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
    job->unlisted = true; /* its id is not given out: its result is not stored (set before any event) */
    if (movegen_count(job->pos) == 0) {
        jobs_cancel(job);
        api_reply_fail(r, 409, "game_over", NULL, "the game is over in that position (%s): there is no move to play",
                       game_status_name(position_status(job->pos)));
        return;
    }
    job_wait(r, job, played, (void *)(intptr_t)level);
}
