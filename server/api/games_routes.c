/* Games over REST: the request codec for a game's settings and moves, the waits (for storage, for
 * the engine's reply), and the game's JSON. The rules are domain/games.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../domain/shared.h"
#include "auth.h"
#include "decode.h"
#include "encode.h"
#include "persist.h"
#include "quota.h"
#include "reply.h"
#include "request.h"
#include "routes.h"
#include "saves.h"

static void changed(Game *g)
{
    json_t *o = encode_game(g, GAME_FOR_STORAGE);
    /* A game waiting for the engine is started again at the next start, unless it is played
     * elsewhere: the bot syncs it with the other side first. */
    persist_game(g, api_dumps(o, false), games_engine_to_move(g) && !g->external);
    json_decref(o);
}

typedef struct {
    Game *g; /* games stay in memory while the server runs */
    int status;
    bool owner; /* the request named the game by its fullId */
} GameReply;

static void answer_saved(Request *r, bool ok, void *arg)
{
    GameReply *a = arg;
    if (ok)
        api_reply_json(r, a->status, encode_game(a->g, a->owner ? GAME_FOR_PLAYER : GAME_FOR_ANYONE));
    else
        saves_reply_unavailable(r);
    free(a);
}

/* Answers with the game once its state is stored: a reply acknowledges only what is committed. */
static void reply_game(Request *r, Game *g, int status, bool owner)
{
    GameReply *a = malloc(sizeof *a);
    if (!a)
        abort();
    *a = (GameReply){g, status, owner};
    saves_wait(r, g->id, answer_saved, a, free);
}

static const ServerConfig *Cfg;

/* Which finished games teach the shared Bayesian model (so that nobody can flood it): those whose
 * creator may (--auth off: anyone; else a token with the learn scope), of --learn-min-plies plies
 * at least, at most --learn-per-hour per creator. */
static const char *may_learn(const Game *g)
{
    if (!g->may_teach)
        return "not_allowed";
    if (g->move_count < Cfg->learn_min_plies)
        return "too_short";
    if (!quota_learn_take(g->owner))
        return "client_cap";
    return NULL;
}

void games_routes_init(const ServerConfig *cfg)
{
    Cfg = cfg;
    games_init(&(GameHooks){changed, may_learn});
}

/* ---- waiting for the engine's reply ---- */

static void engine_replied(Game *g, void *user)
{
    Request *r = user;
    http_end_wait(r);
    reply_game(r, g, 200, true); /* only the game's player moves */
}

/* The client left: the engine's move is still played and saved. */
static void reply_gone(Request *r) { games_unlisten(r->waiter); }

static void wait_for_engine(Request *r, Game *g)
{
    games_listen(g, engine_replied, r);
    http_suspend(r, g, reply_gone); /* a request that waited for storage is suspended already */
}

/* ---- finding the game: in memory, else in storage ---- */

static void reply_unreachable(Request *r)
{
    api_reply_fail(r, 503, "cluster_unavailable", NULL,
                   "this front cannot reach the cluster's Redis just now, where the game is kept; retry shortly");
}

typedef void (*GameAction)(Request *r, Game *g, bool owner);
typedef struct {
    Request *r; /* NULL once the client has gone */
    GameAction fn;
    char id[GAMES_ID_LEN + 1];
    char secret[GAMES_SECRET_LEN + 1]; /* from a fullId, else empty */
} GameLoad;

/* The stored game (state), or word that the one in memory is current (NULL, version > 0), or
 * that there is none (version 0), or that Redis could not be asked (PERSIST_UNREACHABLE). */
static void game_loaded(json_t *o, long long version, bool orphaned, void *user)
{
    GameLoad *l = user;
    Game *g = games_find(l->id), *read = o ? decode_game(o) : NULL;
    json_decref(o);
    bool unreachable = !read && version == PERSIST_UNREACHABLE;
    if (read) {
        read->shared_version = version; /* carried into g if the copy takes its place */
        if (!g || games_unreferenced(g))
            saves_forget_failure(l->id); /* the stored copy takes the place of what failed to be */
        g = g ? games_replace(g, read) : games_adopt(read);
        if (orphaned && !g->thinking && games_engine_to_move(g)) {
            changed(g);      /* its front died while its engine thought: this front claims the move... */
            games_resume(g); /* ...and makes it (a front that claimed it first refuses the later saves) */
        }
    } else if (g && version > 0)
        g->shared_version = version;
    /* else version 0: stored nowhere yet (its first save is in flight: the one in memory is all there is),
     * or no such game; unreachable: what this front holds is all it can serve */
    Request *r = l->r;
    if (r) {
        http_end_wait(r); /* l is freed below: the request must not point at it */
        if (g)
            l->fn(r, g, l->secret[0] && games_is_secret(g, l->secret));
        else if (unreachable)
            reply_unreachable(r);
        else
            api_reply_fail(r, 404, "unknown_game", NULL, "no game with id '%.40s'", l->id);
        if (!r->waiter) /* answered now, rather than waiting for the engine */
            http_resume(r);
    }
    free(l);
}

static void load_gone(Request *r) { ((GameLoad *)r->waiter)->r = NULL; }

/* Runs fn once the game is in memory and current (loading it from storage first if need be; in a
 * cluster, another front may have changed it). The path names the game by its public id, or by its
 * fullId (the id and its secret: fn hears it is the owner). */
static void with_game(Request *r, const char *path_id, GameAction fn)
{
    size_t n = strlen(path_id);
    GameLoad key = {0};
    if ((n != GAMES_ID_LEN && n != GAMES_ID_LEN + GAMES_SECRET_LEN) || path_id[0] != 'g') {
        api_reply_fail(r, 404, "unknown_game", NULL, "no game with id '%.40s'", path_id);
        return;
    }
    memcpy(key.id, path_id, GAMES_ID_LEN);
    snprintf(key.secret, sizeof key.secret, "%s", path_id + GAMES_ID_LEN);
    Game *g = games_find(key.id);
    /* A game whose last save failed (a full disk) holds in memory what was never stored, and its
     * client was told so: once nothing holds it, the stored copy is read back and takes its place. */
    bool unstored = g && saves_failed(g->id) && games_unreferenced(g);
    if (g && !unstored && persist_game_current(g)) {
        fn(r, g, key.secret[0] && games_is_secret(g, key.secret));
        return;
    }
    GameLoad *l = malloc(sizeof *l);
    if (!l) {
        api_reply_fail(r, 503, "overloaded", NULL, "out of memory");
        return;
    }
    *l = key;
    l->r = r;
    l->fn = fn;
    if (!persist_load_game(l->id, g ? g->shared_version : 0, game_loaded, l)) {
        free(l);
        if (shared_on()) /* Redis is away: another front's games are out of reach */
            reply_unreachable(r);
        else
            api_reply_fail(r, 404, "unknown_game", NULL, "no game with id '%.40s'", path_id);
        return;
    }
    http_suspend(r, l, load_gone);
}

/* Playing, taking back and resigning are the player's: the public id is refused. */
static bool owner_only(Request *r, bool owner)
{
    if (!owner)
        api_reply_fail(r, 403, "not_your_game", NULL,
                       "this is the game's public id (or a wrong secret): moves, takeback and resign take the fullId "
                       "given when the game was created");
    return owner;
}

/* ---- routes ---- */

static const char *const CreateKeys[] = {"mode",   "color",         "level", "elo",   "temperament", "gain",
                                         "target", "defaultTarget", "fen",   "moves", NULL};

/* A key that is there but not a string reads as "" (which no setting accepts), so the domain's
 * message for that setting answers it. */
static const char *text_or_empty(json_t *body, const char *key)
{
    json_t *v = json_object_get(body, key);
    return !v ? NULL : json_is_string(v) ? json_string_value(v) : "";
}

/* A new game or a move sets the engine thinking: a search job of the player's, so it needs a free
 * place in the player's --client-jobs-max like any other (429 too_many_jobs, nothing changed). */
static bool engine_may_think(Request *r)
{
    ApiError e;
    if (quota_job_room(&e, r->client))
        return true;
    api_reply_error(r, &e);
    return false;
}

void games_route_create(Request *r, const char *param)
{
    (void)param;
    if (!engine_may_think(r))
        return;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    ApiError e = {0};
    request_check_keys(&e, body, CreateKeys, "");
    json_t *level = json_object_get(body, "level"), *elo = json_object_get(body, "elo");
    json_t *moves = json_object_get(body, "moves");
    json_t *gain = json_object_get(body, "gain");
    double gain_asked = json_is_number(gain) ? json_number_value(gain) : NAN; /* NaN: refused */
    const char *texts[GAMES_MAX_MOVES / 2 + 1];
    GameSettings s = {.target = text_or_empty(body, "target"),
                      .default_target = text_or_empty(body, "defaultTarget"),
                      .level = decode_asked_number(level, 1, GAMES_LEVEL_MAX),
                      .elo = decode_asked_number(elo, 1, 100000),
                      .gain = gain ? &gain_asked : NULL,
                      .moves = texts,
                      .owner = r->client,
                      .may_teach = r->scopes & SCOPE_LEARN};
    const char *const strings[] = {"mode", "color", "temperament", "fen"};
    const char **fields[] = {&s.mode, &s.color, &s.temperament, &s.fen};
    for (int i = 0; i < 4 && !e.status; i++) {
        json_t *f = json_object_get(body, strings[i]);
        if (f && !json_is_string(f))
            api_error_set(&e, 400, "bad_type", NULL, "mode, color, temperament and fen are strings");
        *fields[i] = json_string_value(f);
    }
    if (!e.status && moves) {
        if (!json_is_array(moves) || json_array_size(moves) > GAMES_MAX_MOVES / 2)
            api_error_set(&e, 400, "bad_type", "moves", "'moves' must be an array of moves (UCI or SAN, at most %d)",
                          GAMES_MAX_MOVES / 2);
        else
            for (size_t i = 0; i < json_array_size(moves); i++)
                texts[s.move_count++] = json_string_value(json_array_get(moves, i));
    }
    Game *g = e.status ? NULL : games_create(&s, &e);
    json_decref(body);
    if (!g) {
        api_reply_error(r, &e);
        return;
    }
    if (g->thinking)
        wait_for_engine(r, g);
    else
        reply_game(r, g, 201, true);
}

static void do_get(Request *r, Game *g, bool owner) { reply_game(r, g, 200, owner); }

static void do_move(Request *r, Game *g, bool owner)
{
    ApiError e;
    if (!owner_only(r, owner) || !engine_may_think(r))
        return;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    const char *text = json_object_size(body) == 1 ? json_string_value(json_object_get(body, "move")) : NULL;
    bool ok = games_move(g, text, &e);
    json_decref(body);
    if (!ok)
        api_reply_error(r, &e);
    else if (g->thinking)
        wait_for_engine(r, g);
    else
        reply_game(r, g, 200, true);
}

static void do_pgn(Request *r, Game *g, bool owner)
{
    (void)owner;
    char *text = games_pgn(g);
    http_reply(r, 200, "application/x-chess-pgn", text, strlen(text));
    free(text);
}

/* Resigning and taking back: the player's, answered with the game once stored. */
static void owner_action(Request *r, Game *g, bool owner, bool (*act)(Game *g, ApiError *e))
{
    ApiError e;
    if (!owner_only(r, owner))
        return;
    if (act(g, &e))
        reply_game(r, g, 200, true);
    else
        api_reply_error(r, &e);
}

static void do_resign(Request *r, Game *g, bool owner) { owner_action(r, g, owner, games_resign); }
static void do_takeback(Request *r, Game *g, bool owner) { owner_action(r, g, owner, games_takeback); }

void games_route_get(Request *r, const char *id) { with_game(r, id, do_get); }
void games_route_takeback(Request *r, const char *id) { with_game(r, id, do_takeback); }
void games_route_move(Request *r, const char *id) { with_game(r, id, do_move); }
void games_route_pgn(Request *r, const char *id) { with_game(r, id, do_pgn); }
void games_route_resign(Request *r, const char *id) { with_game(r, id, do_resign); }

/* At start: a game whose engine was to move (its search was cut short by a stop, or never found a
 * worker) gets its move started again. */
static void resume_game(const char *data, void *user)
{
    int *count = user;
    json_t *o = json_loads(data, 0, NULL);
    Game *read = o ? decode_game(o) : NULL;
    json_decref(o);
    if (!read)
        return;
    Game *g = games_adopt(read);
    g->thinking = false; /* the search it waited for died with the last process */
    if (games_resume(g))
        (*count)++;
}

int games_routes_resume(void)
{
    int count = 0;
    if (shared_on()) /* a cluster's games are in Redis: one whose front died resumes when next used */
        return 0;
    store_scan_unfinished(NULL, resume_game, &count);
    return count;
}
