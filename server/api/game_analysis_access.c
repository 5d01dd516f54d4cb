/* Whole-game analyses read, cancelled and followed over HTTP and WebSocket: see game_analysis.h. */
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "game_analysis.h"
#include "game_analysis_state.h"
#include "persist.h"
#include "reply.h"

static bool valid_id(const char *id)
{
    size_t n = strlen(id);
    return n > 0 && n < 24 && strspn(id, "0123456789abcdef") == n;
}

static bool asks_pgn(const Request *r)
{
    size_t n = strlen(r->path);
    return n > 4 && !strcmp(r->path + n - 4, "/pgn");
}

static void loaded(json_t *o, const char *owner, void *user)
{
    Request *r = user;
    bool want_pgn = asks_pgn(r);
    ApiError e;
    Identity who = auth_of(r);
    const char *pgn = json_string_value(json_object_get(o, "pgn"));
    if (!o || !json_object_get(o, "progress"))
        api_reply_fail(r, 404, "unknown_analysis", NULL, "no game analysis with that id");
    else if (!auth_sees_job(owner, &who, &e))
        api_reply_error(r, &e);
    else if (want_pgn && !pgn)
        api_reply_fail(r, 409, "not_done", NULL, "the analysis is %s: it has no annotated PGN",
                       json_string_value(json_object_get(o, "status")));
    else if (want_pgn)
        http_reply(r, 200, "application/x-chess-pgn", pgn, strlen(pgn));
    else {
        json_object_del(o, "pgn");
        api_reply_json(r, 200, json_incref(o));
    }
    json_decref(o);
    http_resume(r);
}

static void forget_load(Request *r) { persist_load_forget(r->waiter); }

/* In memory, or read back from storage (finished, or from before a restart). */
static void lookup(Request *r, const char *id, bool pgn)
{
    if (!valid_id(id)) {
        api_reply_fail(r, 404, "unknown_analysis", NULL, "no game analysis with id '%.40s'", id);
        return;
    }
    GameAnalysis *ga = ga_find(id);
    ApiError e;
    Identity who = auth_of(r);
    if (ga) {
        if (!auth_sees_job(ga->owner, &who, &e))
            api_reply_error(r, &e);
        else if (pgn && !ga->pgn)
            api_reply_fail(r, 409, "not_done", NULL, "the analysis is %s: it has no annotated PGN yet",
                           JobStatusNames[ga->status]);
        else if (pgn)
            http_reply(r, 200, "application/x-chess-pgn", ga->pgn, strlen(ga->pgn));
        else
            api_reply_json(r, 200, ga_status_json(ga));
        return;
    }
    PersistLoad *load = persist_load_job(id, loaded, r);
    if (!load) {
        api_reply_fail(r, 404, "unknown_analysis", NULL, "no game analysis with id '%.40s'", id);
        return;
    }
    http_suspend(r, load, forget_load);
}

void game_analysis_get(Request *r, const char *id) { lookup(r, id, false); }
void game_analysis_pgn(Request *r, const char *id) { lookup(r, id, true); }

void game_analysis_delete(Request *r, const char *id)
{
    GameAnalysis *ga = valid_id(id) ? ga_find(id) : NULL;
    ApiError e;
    Identity who = auth_of(r);
    if (!ga) {
        api_reply_fail(r, 404, "unknown_analysis", NULL, "no game analysis under way with id '%.40s'", id);
        return;
    }
    if (!auth_owns_job(ga->owner, &who, &e)) {
        api_reply_error(r, &e);
        return;
    }
    if (ga_unfinished(ga)) {
        ga->status = JOB_CANCELLED;
        ga->finished_ms = clock_wall_ms();
        for (int i = 0; i < IN_FLIGHT; i++)
            if (ga->slots[i].job && !ga->slots[i].ended)
                jobs_cancel(ga->slots[i].job);
        ga_store_final(ga);
        ga_send_final(ga);
    }
    api_reply_json(r, 200, ga_status_json(ga));
}

bool game_analysis_subscribe(WsSession *ws, const char *id, const Identity *who, ApiError *e)
{
    GameAnalysis *ga = id ? ga_find(id) : NULL;
    if (!ga) {
        api_error_set(e, 404, "unknown_analysis", "gameAnalysis", "no game analysis with id '%.40s' in memory",
                      id ? id : "");
        return false;
    }
    if (!auth_sees_job(ga->owner, who, e))
        return false;
    if (!ga_unfinished(ga)) {
        json_t *o = ga_status_json(ga);
        json_object_set_new(o, "type", json_string("gameAnalysis"));
        char *text = api_dumps(o, false);
        json_decref(o);
        if (text)
            ws_send(ws, text, strlen(text), false, ga->id, 0);
        free(text);
        return true;
    }
    for (int i = 0; i < ga->sub_count; i++)
        if (ga->subs[i] == ws)
            return true;
    if (ga->sub_count == SUBSCRIBERS) {
        api_error_set(e, 429, "too_many_subscribers", "gameAnalysis", "%d connections follow this analysis already",
                      SUBSCRIBERS);
        return false;
    }
    ga->subs[ga->sub_count++] = ws;
    return true;
}

void game_analysis_forget_session(WsSession *ws)
{
    for (GameAnalysis *ga = GameAnalyses; ga; ga = ga->list_next)
        for (int i = 0; i < ga->sub_count;)
            if (ga->subs[i] == ws)
                ga->subs[i] = ga->subs[--ga->sub_count];
            else
                i++;
}
