/* The bot's account and its event stream: see bot.h. Start: POST /api/token/test (the token must
 * have bot:play), GET /api/account (the account must be a BOT), GET /api/account/playing?nb=50
 * (games in progress are followed again), then GET /api/stream/event, reopened after a drop with
 * a growing delay (1 s to 60 s; Lichess replays games and challenges on reconnection, and following
 * a game is idempotent). Challenges are accepted or declined by challenge.c's rules. */
#include "bot.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/log.h"
#include "../net/client.h"
#include "bot_game.h"
#include "session.h"
#include "incoming.h"
#include "matchmaking.h"

#define VERSION "0.1.0"

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(B.counts.fatal, sizeof B.counts.fatal, fmt, ap);
    va_end(ap);
    bot_note(LOG_ERROR, B.counts.fatal);
    bot_stop();
}

/* The delay before the next try: 1 s, doubling to 60 s (reset when the server talks again), or past
 * the end of a 429's hold on calls of this kind. */
static unsigned retry_delay(const char *kind)
{
    unsigned delay = B.backoff_ms, held = (unsigned)(lichess_held(B.li, kind) * 1000);
    B.backoff_ms = delay * 2 > 60000 ? 60000 : delay * 2;
    return held > delay ? held + 1000 : delay;
}

/* ---- the event stream ---- */

static void open_events(void);

static void on_reconnect(uv_timer_t *t)
{
    (void)t;
    if (B.running)
        open_events();
}

static void on_event(json_t *e, void *user)
{
    (void)user;
    B.backoff_ms = 1000; /* it talks: the next drop starts the delays afresh */
    const char *type = json_string_value(json_object_get(e, "type"));
    json_t *game = json_object_get(e, "game");
    const char *game_id = json_string_value(json_object_get(game, "gameId"));
    if (!game_id)
        game_id = json_string_value(json_object_get(game, "id"));
    if (!type)
        return;
    if (!strcmp(type, "challenge"))
        incoming_challenge(json_object_get(e, "challenge"));
    else if (!strcmp(type, "challengeCanceled")) {
        const char *id = json_string_value(json_object_get(json_object_get(e, "challenge"), "id"));
        if (id)
            incoming_gone(id);
    } else if (!strcmp(type, "gameStart") && game_id) {
        incoming_started(game_id); /* a challenge's game has the challenge's id */
        matchmaking_started(game_id);
        bot_game_follow(game_id);
    } else if (!strcmp(type, "gameFinish") && game_id) {
        bot_game_finished_event(game_id);
        incoming_accept_waiting();
    } else if (!strcmp(type, "challengeDeclined")) {
        json_t *ch = json_object_get(e, "challenge");
        if (!matchmaking_declined(ch))
            log_msg(LOG_INFO, "bot: challenge %s declined: %s", json_string_value(json_object_get(ch, "id")),
                    json_string_value(json_object_get(ch, "declineReasonKey")));
    }
}

static void events_ended(const LichessAnswer *a, void *user)
{
    (void)user;
    B.events = NULL;
    B.connected = false;
    if (!B.running)
        return;
    if (clock_wall_ms() - B.events_opened_ms > 30000)
        B.backoff_ms = 1000; /* it was up a while (keep-alives): this drop starts the delays afresh */
    if (a->status == 401 || a->status == 403) {
        fatal("the event stream was refused (HTTP %d): is the token still valid?", a->status);
        return;
    }
    unsigned delay = retry_delay("stream");
    B.counts.reconnects++;
    bot_error("event stream ended (%s): reconnecting in %.1f s",
              a->error    ? a->error
              : a->status ? "closed by the server"
                          : "dropped",
              delay / 1000.0);
    uv_timer_start(&B.reconnect, on_reconnect, delay, 0);
}

static void open_events(void)
{
    B.events_opened_ms = clock_wall_ms();
    B.events = lichess_stream(B.li, "api/stream/event", on_event, events_ended, NULL);
    B.connected = B.events != NULL;
    if (!B.events) {
        uv_timer_start(&B.reconnect, on_reconnect, retry_delay("stream"), 0);
    }
}

/* Every second: challenges waiting for room, matchmaking. */
static void on_tick(uv_timer_t *t)
{
    (void)t;
    if (!B.running || !B.connected)
        return;
    incoming_accept_waiting();
    matchmaking_tick();
}

/* ---- start: token, account, games in progress ---- */

static void token_tested(const LichessAnswer *a, void *user);

static void on_restart(uv_timer_t *t)
{
    (void)t;
    if (B.running)
        lichess_token_test(B.li, token_tested, NULL);
}

/* A start call that failed for a passing reason (no answer, a 429, a 5xx: the network is not up yet,
 * the server is being deployed) starts again from the token test after a growing delay (1 s to
 * 60 s), as lichess-bot restarts after a network error, ten times (about 5 minutes: a mistyped url
 * then ends the bot with its reason); anything else is fatal at once. */
#define START_TRIES 10
static bool start_again(const LichessAnswer *a, const char *kind, const char *what)
{
    if (a->status != 0 && a->status != 429 && a->status < 500)
        return false;
    if (++B.start_tries >= START_TRIES) {
        bot_error("%s %d times over about 5 minutes: giving up (is the url %s right?)", what, B.start_tries, B.cfg.url);
        return false;
    }
    unsigned delay = retry_delay(kind);
    bot_error("%s (HTTP %d%s%s): trying again in %.1f s", what, a->status, a->error ? ", " : "",
              a->error ? a->error : "", delay / 1000.0);
    uv_timer_start(&B.reconnect, on_restart, delay, 0);
    return true;
}

static void got_playing(const LichessAnswer *a, void *user)
{
    (void)user;
    if (!B.running)
        return;
    json_t *now = json_object_get(a->json, "nowPlaying");
    size_t i;
    json_t *g;
    if (a->status == 200)
        json_array_foreach(now, i, g)
        {
            const char *id = json_string_value(json_object_get(g, "gameId"));
            if (id)
                bot_game_follow(id);
        }
    else
        bot_error("games in progress could not be read (HTTP %d); the event stream replays them", a->status);
    open_events();
}

static void got_account(const LichessAnswer *a, void *user)
{
    (void)user;
    if (!B.running)
        return;
    const char *id = json_string_value(json_object_get(a->json, "id"));
    const char *name = json_string_value(json_object_get(a->json, "username"));
    const char *title = json_string_value(json_object_get(a->json, "title"));
    if (a->status != 200 && start_again(a, "account", "the account could not be read"))
        return;
    if (a->status != 200 || !id) {
        fatal("the account could not be read (HTTP %d %s)", a->status, a->error ? a->error : "");
        return;
    }
    if (!title || strcmp(title, "BOT")) {
        fatal("%s is not a BOT account: upgrade it first (POST /api/bot/account/upgrade; only an account that "
              "never played a game can be upgraded, and it cannot be undone)",
              name ? name : id);
        return;
    }
    snprintf(B.user_id, sizeof B.user_id, "%s", id);
    snprintf(B.username, sizeof B.username, "%s", name ? name : id);
    snprintf(B.counts.account, sizeof B.counts.account, "%s", B.username);
    B.backoff_ms = 1000; /* (the start's delays, if any, are over) */
    B.start_tries = 0;
    char ua[160]; /* Lichess asks an application to say who runs it, as lichess-bot does */
    snprintf(ua, sizeof ua, "feelfish/%s user:%s", VERSION, B.username);
    lichess_set_user_agent(B.li, ua);
    matchmaking_set_perfs(json_object_get(a->json, "perfs"));
    log_msg(LOG_INFO, "bot: playing as %s on %s (%s mode)", B.username, B.cfg.url, B.cfg.feelfish.mode);
    lichess_get(B.li, "playing", "api/account/playing?nb=50", got_playing, NULL);
}

static void token_tested(const LichessAnswer *a, void *user)
{
    (void)user;
    if (!B.running)
        return;
    /* {"<token>": {"scopes": "bot:play,...", "userId"} | null}: the one entry, whatever its key */
    json_t *entry = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(a->json, key, v) entry = v;
    const char *scopes = json_string_value(json_object_get(entry, "scopes"));
    if (a->status != 200 && start_again(a, "token", "the token could not be checked"))
        return;
    if (a->status != 200) {
        fatal("the token could not be checked (HTTP %d %s)", a->status, a->error ? a->error : "");
        return;
    }
    if (!json_is_object(entry)) {
        fatal("the server does not know this token (mistyped, or revoked?)");
        return;
    }
    bool play = false;
    for (const char *p = scopes ? scopes : ""; *p;) {
        size_t n = strcspn(p, ",");
        play |= n == 8 && !strncmp(p, "bot:play", 8);
        p += n + (p[n] == ',');
    }
    if (!play) {
        fatal("the token lacks the bot:play scope (it has: %s); create one with it", scopes ? scopes : "none");
        return;
    }
    lichess_get(B.li, "account", "api/account", got_account, NULL);
}

bool bot_start(uv_loop_t *loop, const BotConfig *cfg, char *err, size_t err_size)
{
    memset(&B, 0, sizeof B);
    B.cfg = *cfg;
    B.loop = loop;
    B.backoff_ms = 1000;
    char ua[96];
    snprintf(ua, sizeof ua, "feelfish/%s", VERSION);
    if (!client_start(loop) || !(B.li = lichess_new(cfg->url, cfg->token, ua))) {
        snprintf(err, err_size, "cannot start the HTTP client");
        return false;
    }
    uv_timer_init(loop, &B.reconnect);
    uv_timer_init(loop, &B.tick);
    uv_timer_start(&B.tick, on_tick, 1000, 1000);
    B.running = true;
    snprintf(B.counts.url, sizeof B.counts.url, "%s", cfg->url);
    lichess_token_test(B.li, token_tested, NULL);
    return true;
}

void bot_stop(void)
{
    if (!B.running)
        return;
    B.running = false;
    B.connected = false;
    while (B.games)
        bot_game_stop(B.games);
    if (B.events)
        lichess_stream_close(B.events);
    B.events = NULL;
    uv_timer_stop(&B.reconnect);
    uv_close((uv_handle_t *)&B.reconnect, NULL);
    uv_timer_stop(&B.tick);
    uv_close((uv_handle_t *)&B.tick, NULL);
    incoming_clear();
    matchmaking_clear();
    lichess_free(B.li);
    B.li = NULL;
}

bool bot_running(void) { return B.running; }

void bot_status(BotStatus *s)
{
    *s = B.counts;
    s->running = B.running;
    s->connected = B.connected;
    snprintf(s->mode, sizeof s->mode, "%s", B.cfg.feelfish.mode);
    if (B.li) {
        LichessStats ls;
        lichess_stats(B.li, &ls);
        s->rate_limited = ls.rate_limited;
        s->calls = ls.calls;
    }
    const char *waiting;
    s->challenges_sent = matchmaking_sent(&waiting);
    snprintf(s->challenge_waiting, sizeof s->challenge_waiting, "%s", waiting);
    s->games_now = 0;
    for (BotGame *bg = B.games; bg && s->games_now < BOT_GAMES_SHOWN; bg = bg->next) {
        BotGameView *v = &s->games[s->games_now++];
        memset(v, 0, sizeof *v);
        snprintf(v->id, sizeof v->id, "%s", bg->id);
        snprintf(v->opponent, sizeof v->opponent, "%s", bg->opponent);
        v->opponent_bot = bg->opponent_bot;
        snprintf(v->color, sizeof v->color, "%s", bg->color == WHITE ? "white" : "black");
        snprintf(v->url, sizeof v->url, "%s%s", B.cfg.url, bg->id);
        if (bg->g) {
            snprintf(v->game, sizeof v->game, "%s", bg->g->id);
            if (bg->g->job)
                snprintf(v->job, sizeof v->job, "%s", bg->g->job->id);
            v->plies = bg->g->move_count;
            snprintf(v->status, sizeof v->status, "%s", bg->g->status);
            static Position p;
            if (games_position(bg->g, &p))
                fen_write(&p, v->fen);
        } else
            snprintf(v->status, sizeof v->status, "%s", bg->over ? "over" : "connecting");
    }
}
