/* POST /api/play: stateless play. A position and a level (1-8: a rating each, docs/levels.md), a
 * rating (elo) or limits -> the engine's move,
 * its SAN, the new FEN and the game's status after it. The search is an analysis job of the client
 * (quotas, fair queue); the request waits for it. Loop thread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/engine.h"
#include "../../engine/core/rules.h"
#include "../domain/games.h"
#include "decode.h"
#include "job_wait.h"
#include "reply.h"
#include "request.h"
#include "routes.h"

static const char *const StatusWords[] = {"started", "mate", "stalemate", "draw", "draw", "draw"};
static const char *const DrawReasons[] = {
    NULL, NULL, NULL, "fifty moves", "threefold repetition", "insufficient material"};

/* The job's end: the move it played (at a level or rating the search chose it, strength.h). */
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
    const SearchInfo *line = games_played_line(res, &m);
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
    if (job->limits.elo)
        json_object_set_new(o, "elo", json_integer(job->limits.elo));
    api_reply_json(r, 200, o);
    http_resume(r);
}

/* A level (1-8) or a rating asked: the rating to play at (0: full strength) and the level's number
 * (0 for a rating, or when neither is asked); false with the error answered. */
static bool level_or_rating(Request *r, json_t *body, int *level, int *elo)
{
    json_t *lvl = json_object_get(body, "level"), *rating = json_object_get(body, "elo");
    int asked_level = decode_asked_number(lvl, 1, GAMES_LEVEL_MAX), asked_elo = decode_asked_number(rating, 1, 100000);
    ApiError e;
    *level = *elo = 0;
    json_object_del(body, "level");
    json_object_del(body, "elo");
    if (!asked_level && !asked_elo)
        return true;
    if (!games_strength(&e, asked_level, asked_elo, level, elo)) {
        api_reply_error(r, &e);
        return false;
    }
    if (json_object_get(body, "limits") || json_object_get(body, "multiPv")) {
        api_reply_fail(r, 400, "level_and_limits", asked_level ? "level" : "elo",
                       "give a level (or an elo) or limits, not both");
        return false;
    }
    if (asked_elo)
        *level = 0;
    SearchLimits l; /* a game's move at that strength: its move time (the rating goes to request_start) */
    games_rating_limits(*elo, &l);
    json_object_set_new(body, "limits", json_pack("{s:I}", "movetime", (json_int_t)l.movetime));
    return true;
}

void play_route(Request *r, const char *param)
{
    (void)param;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    int level, elo;
    if (!level_or_rating(r, body, &level, &elo)) {
        json_decref(body);
        return;
    }
    if (!level && !elo && !json_object_get(body, "limits"))
        json_object_set_new(body, "limits", json_pack("{s:i}", "depth", 12)); /* a sensible default move */
    ApiError e;
    Job *job = request_start(&e, body, false, r->client, elo); /* counted against its quotas, queued */
    json_decref(body);
    if (!job) {
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
