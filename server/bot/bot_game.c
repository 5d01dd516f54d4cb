/* One Lichess game: its stream (gameFull, then gameState, chatLine, opponentGone lines), the
 * position rebuilt from the full move list each time (games_sync), the engine's move searched on
 * the clock the state gives, minus move_overhead and the time since the state came (an unlimited
 * clock never reaches the search), posted with offeringDraw when lichess-bot's draw rule holds;
 * the opponent's draw offers answered explicitly (draw/yes or draw/no); resignation by the resign
 * rule; abort when the opponent never moves; greeting, goodbye and chat commands; a dropped stream
 * reopened with a growing delay (it starts again with gameFull). A finished game is stored (it is
 * a domain Game), written as PGN to pgn_directory, and teaches the model as any game does. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../base/clock.h"
#include "../base/log.h"
#include "bot_game.h"

#define UNLIMITED_MS 2147483647LL /* lila's clock for games without one */
#define FIRST_MOVE_MS 10000       /* lichess-bot: the first moves are searched 10 s at most */
#define TICK_MS 250

static void open_stream(BotGame *bg);

static BotGame *find(const char *id)
{
    for (BotGame *bg = B.games; bg; bg = bg->next)
        if (!strcmp(bg->id, id))
            return bg;
    return NULL;
}

/* A game that takes a place of challenge.concurrency: every game on a clock; a correspondence one only
 * while it is the bot's move (lichess-bot leaves one after disconnect_time when it is not, which
 * frees its place until the next check-in), so one slow game does not keep every other out for days. */
static bool takes_a_place(const BotGame *bg)
{
    return !bg->over && (bg->clock_initial_ms >= 0 || !bg->full_seen || !bg->g || games_engine_to_move(bg->g));
}

int bot_games_now(int *bot_games, const char *with_user, int *with_user_count)
{
    int n = 0;
    *bot_games = *with_user_count = 0;
    for (BotGame *bg = B.games; bg; bg = bg->next) {
        /* every game with the user counts toward max_simultaneous_games_per_user, a correspondence
         * game on their move too (as lichess-bot counts the games in progress) */
        *with_user_count += with_user && !bg->over && !strcasecmp(bg->opponent_id, with_user);
        if (takes_a_place(bg)) {
            n++;
            *bot_games += bg->opponent_bot;
        }
    }
    return n;
}

/* ---- talking to Lichess about this game ---- */

static void posted(const LichessAnswer *a, void *user)
{
    char *what = user;
    if (a->status != 200 && a->status != 0)
        log_msg(LOG_INFO, "bot: %s: HTTP %d %.120s", what, a->status, a->text ? a->text : "");
    else if (a->status == 0)
        bot_error("%s: %s", what, a->error ? a->error : "no answer");
    free(what);
}

/* A move Lichess did not take (the game moved on, or the call failed for good): the game's stream is
 * reopened, its gameFull brings both sides back to Lichess's move list, and the bot thinks again. */
static void move_posted(const LichessAnswer *a, void *user)
{
    char *id = user;
    BotGame *bg = find(id);
    if (a->status != 200 && bg && !bg->over) {
        bot_error("game %s: the move was not taken (HTTP %d %.80s): reading the game again", id, a->status,
                  a->error  ? a->error
                  : a->text ? a->text
                            : "");
        if (bg->stream)
            lichess_stream_close(bg->stream);
        bg->stream = NULL;
        bg->reconnect_at = clock_wall_ms();
    } else if (a->status == 200 && B.cfg.rate_limiting_delay > 0)
        lichess_hold(B.li, "move", B.cfg.rate_limiting_delay / 1000.0); /* lichess-bot's pause after a move */
    free(id);
}

static void post_to(const char *id, const char *kind, const char *action, const char *form, LichessDone done,
                    void *user)
{
    char path[160];
    snprintf(path, sizeof path, "api/bot/game/%s/%s", id, action);
    lichess_post(B.li, kind, path, form, done, user);
}

static char *what_of(const char *id, const char *action)
{
    char what[96];
    snprintf(what, sizeof what, "game %s: %s", id, action);
    return strdup(what);
}

static void post(BotGame *bg, const char *kind, const char *action, const char *form)
{
    post_to(bg->id, kind, action, form, posted, what_of(bg->id, action));
}

/* The abort of a game this bot cannot play; refused (the game has gone too far to abort), a resignation. */
static void aborted_or_resign(const LichessAnswer *a, void *user)
{
    char *id = user;
    if (a->status >= 400 && B.running)
        post_to(id, "resign", "resign", NULL, posted, what_of(id, "resign"));
    free(id);
}

/* A game this bot cannot play (another variant, a position it refuses): said, aborted or else resigned,
 * and no longer followed as a game to play. */
static void unplayable(BotGame *bg, const char *why)
{
    bot_error("game %s cannot be played here: %s; aborting it, or resigning", bg->id, why);
    post_to(bg->id, "abort", "abort", NULL, aborted_or_resign, strdup(bg->id));
    bg->over = true;
}

/* Greeting text: {me} and {opponent} put in, any other {word} left out. */
static void say(BotGame *bg, const char *room, const char *text)
{
    char out[300] = "", form[1000];
    size_t o = 0;
    for (const char *p = text; *p && o + 1 < sizeof out;) {
        if (*p == '{') {
            const char *end = strchr(p, '}');
            if (end) {
                const char *with = !strncmp(p, "{me}", 4)          ? B.username
                                   : !strncmp(p, "{opponent}", 10) ? bg->opponent
                                                                   : "";
                o += (size_t)snprintf(out + o, sizeof out - o, "%s", with);
                o = o < sizeof out ? o : sizeof out - 1;
                p = end + 1;
                continue;
            }
        }
        out[o++] = *p++;
    }
    out[o] = 0;
    if (!out[0])
        return;
    char escaped[900];
    lichess_form_escape(out, escaped, sizeof escaped);
    snprintf(form, sizeof form, "room=%s&text=%s", room, escaped);
    post(bg, "chat", "chat", form);
}

/* ---- the engine's side ---- */

static int pieces_on_board(const Game *g)
{
    static Position p;
    return games_position(g, &p) ? popcount(occupied(&p)) : 32;
}

static bool draw_rule(const BotGame *bg)
{
    const BotConfig *c = &B.cfg;
    return c->draw_or_resign.offer_draw_enabled && bg->draw_streak >= c->draw_or_resign.offer_draw_moves &&
           pieces_on_board(bg->g) <= c->draw_or_resign.offer_draw_pieces;
}

static void engine_replied(Game *g, void *user);

/* The game's last move is the one the engine's search played (so it is not the engine's turn to think). */
static bool engine_just_moved(const Game *g) { return g->move_count > 0 && g->engine_move_ply == g->move_count - 1; }

static void think(BotGame *bg, const json_t *state)
{
    const BotConfig *c = &B.cfg;
    SearchLimits l;
    search_limits_init(&l);
    long long wtime = json_integer_value(json_object_get(state, "wtime"));
    long long btime = json_integer_value(json_object_get(state, "btime"));
    long long winc = json_integer_value(json_object_get(state, "winc"));
    long long binc = json_integer_value(json_object_get(state, "binc"));
    long long mine = bg->color == WHITE ? wtime : btime;
    if (bg->clock_initial_ms < 0 || mine >= UNLIMITED_MS || mine <= 0) {
        l.movetime = (int64_t)(c->correspondence.move_time * 1000); /* no clock to follow */
    } else {
        long long spent = clock_wall_ms() - bg->state_ms;
        long long left = mine - (long long)c->move_overhead - spent;
        l.use_clock = true;
        l.time[WHITE] = wtime;
        l.time[BLACK] = btime;
        l.time[bg->color] = left > 10 ? left : 10;
        l.inc[WHITE] = winc;
        l.inc[BLACK] = binc;
        if (bg->g->move_count < 2)
            l.movetime = FIRST_MOVE_MS < l.time[bg->color] / 4 ? FIRST_MOVE_MS : l.time[bg->color] / 4;
    }
    l.elo = (int)c->feelfish.elo;
    if (c->feelfish.depth > 0)
        l.depth = (int)c->feelfish.depth;
    if (c->feelfish.nodes > 0)
        l.nodes = (uint64_t)c->feelfish.nodes;
    if (c->feelfish.movetime > 0 && (!l.movetime || l.movetime > (int64_t)c->feelfish.movetime))
        l.movetime = (int64_t)c->feelfish.movetime;
    games_listen(bg->g, engine_replied, bg);
    if (!games_think(bg->g, &l))
        log_msg(LOG_DEBUG, "bot: game %s: no worker free; tried again in 250 ms", bg->id);
}

static void engine_replied(Game *g, void *user)
{
    BotGame *bg = user;
    /* Only the move this search played, once: a search for an old position ends with none (on_tick
     * then starts one for the position now). */
    if (bg->over || g->engine_move_ply < 0 || g->engine_move_ply != g->move_count - 1 ||
        g->engine_move_ply == bg->posted_ply)
        return;
    bg->posted_ply = g->engine_move_ply;
    const BotConfig *c = &B.cfg;
    int score = search_cp(g->last_score); /* lichess-bot's thresholds are in reported centipawns */
    bg->draw_streak = abs(score) <= c->draw_or_resign.offer_draw_score ? bg->draw_streak + 1 : 0;
    bg->resign_streak = score <= c->draw_or_resign.resign_score ? bg->resign_streak + 1 : 0;
    if (c->draw_or_resign.resign_enabled && bg->resign_streak >= c->draw_or_resign.resign_moves && g->move_count >= 2) {
        log_msg(LOG_INFO, "bot: game %s: resigning (score %d for %d moves)", bg->id, score, bg->resign_streak);
        post(bg, "resign", "resign", NULL);
        return;
    }
    char uci[MOVE_STRING_SIZE], path[160];
    move_to_uci(g->moves[g->move_count - 1], uci);
    snprintf(path, sizeof path, "api/bot/game/%s/move/%s?offeringDraw=%s", bg->id, uci,
             draw_rule(bg) ? "true" : "false");
    lichess_post(B.li, "move", path, NULL, move_posted, strdup(bg->id));
    B.counts.moves++;
    bg->last_move_ms = clock_wall_ms();
}

/* ---- the game's end ---- */

static void save_pgn(BotGame *bg)
{
    const char *dir = B.cfg.pgn_directory;
    if (!dir[0] || !bg->g)
        return;
    if (mkdir(dir, 0755) && errno != EEXIST) {
        bot_error("pgn_directory %s: %s", dir, strerror(errno));
        return;
    }
    char name[1024];
    const char *grouping = B.cfg.pgn_file_grouping;
    if (!strcmp(grouping, "all"))
        snprintf(name, sizeof name, "%s/%s games.pgn", dir, B.username);
    else if (!strcmp(grouping, "opponent"))
        snprintf(name, sizeof name, "%s/%s games vs. %s.pgn", dir, B.username, bg->opponent);
    else
        snprintf(name, sizeof name, "%s/%s vs %s - %s.pgn", dir, bg->g->white, bg->g->black, bg->id);
    for (char *q = name + strlen(dir) + 1; *q; q++)
        if (*q == '/' || *q == '\\')
            *q = '_'; /* a player's name is not a path */
    char *pgn = games_pgn(bg->g);
    FILE *f = pgn ? fopen(name, strcmp(grouping, "game") ? "a" : "w") : NULL;
    if (f) {
        fprintf(f, "%s\n", pgn);
        fclose(f);
    } else
        bot_error("cannot write %s: %s", name, strerror(errno));
    free(pgn);
}

static void finish(BotGame *bg, const char *status, const char *winner)
{
    if (bg->over)
        return;
    bg->over = true;
    /* noStart has a winner when the game could not be aborted (rules noAbort, a tournament): the one
     * who did not fail to move; without one it is an abort. unknownFinish without one is no result. */
    bool won = winner && *winner;
    bool aborted = !strcmp(status, "aborted") || (!strcmp(status, "noStart") && !won);
    bool unknown = !strcmp(status, "unknownFinish") && !won;
    const char *result = aborted || unknown ? "*" : !won ? "1/2-1/2" : !strcmp(winner, "white") ? "1-0" : "0-1";
    if (aborted)
        B.counts.aborted++;
    else if (unknown)
        ;
    else if (!won)
        B.counts.draws++;
    else if ((bg->color == WHITE) == !strcmp(winner, "white"))
        B.counts.wins++;
    else
        B.counts.losses++;
    if (bg->g) {
        games_unlisten(bg->g);
        if (bg->g->thinking && bg->g->job) {
            bg->g->think_ply = -1;
            jobs_cancel(bg->g->job);
        }
        games_end(bg->g, status, result, status);
        for (int i = bg->g->choice_count - 1; i >= 0; i--)
            if (bg->g->choices[i].choice.has_style) {
                B.counts.has_style = true;
                snprintf(B.counts.style_opponent, sizeof B.counts.style_opponent, "%s", bg->opponent);
                snprintf(B.counts.style, sizeof B.counts.style, "%s", StyleNames[bg->g->choices[i].choice.style]);
                break;
            }
    }
    log_msg(LOG_INFO, "bot: game %s against %s over: %s %s", bg->id, bg->opponent, status, result);
    if (!aborted) {
        say(bg, "player", B.cfg.greeting.goodbye);
        say(bg, "spectator", B.cfg.greeting.goodbye_spectators);
    }
    save_pgn(bg);
}

/* ---- the stream ---- */

static const char *const Terminal[] = {"aborted",
                                       "mate",
                                       "resign",
                                       "stalemate",
                                       "timeout",
                                       "draw",
                                       "outoftime",
                                       "cheat",
                                       "noStart",
                                       "unknownFinish",
                                       "insufficientMaterialClaim",
                                       "variantEnd"};

static bool terminal(const char *status)
{
    for (size_t i = 0; i < sizeof Terminal / sizeof Terminal[0]; i++)
        if (!strcmp(status, Terminal[i]))
            return true;
    return false;
}

static void on_state(BotGame *bg, json_t *state)
{
    const char *moves = json_string_value(json_object_get(state, "moves"));
    const char *status = json_string_value(json_object_get(state, "status"));
    if (!moves || !status || !bg->g)
        return;
    bg->state_ms = clock_wall_ms();
    json_decref(bg->state);
    bg->state = json_incref(state);
    static char copy[GAMES_MAX_MOVES * 6 + 1];
    const char *tokens[GAMES_MAX_MOVES];
    int n = 0;
    if (strlen(moves) >= sizeof copy) {
        bot_error("game %s: longer than %d moves: not followed further", bg->id, GAMES_MAX_MOVES);
        bg->over = true;
        return;
    }
    snprintf(copy, sizeof copy, "%s", moves);
    for (char *save, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (n == GAMES_MAX_MOVES) {
            bot_error("game %s: longer than %d moves: not followed further", bg->id, GAMES_MAX_MOVES);
            bg->over = true;
            return;
        }
        tokens[n++] = t;
    }
    ApiError e;
    if (!games_sync(bg->g, tokens, n, &e)) {
        bot_error("game %s: %s", bg->id, e.message);
        return;
    }
    if (n != bg->synced_plies)
        bg->last_move_ms = bg->state_ms;
    if (n < bg->synced_plies && bg->posted_ply >= n)
        bg->posted_ply = -1; /* a takeback: the move played again at that ply is a new one to post */
    bg->synced_plies = n;
    if (terminal(status)) {
        finish(bg, status, json_string_value(json_object_get(state, "winner")));
        return;
    }
    /* The opponent's draw offer gets an answer: yes by the draw rule, else no. */
    bool offers = json_is_true(json_object_get(state, bg->color == WHITE ? "bdraw" : "wdraw"));
    if (offers && !bg->opponent_offers_draw)
        post(bg, "draw", draw_rule(bg) ? "draw/yes" : "draw/no", NULL);
    bg->opponent_offers_draw = offers;
    /* The opponent's takeback proposal: yes while max_takebacks_accepted allows, else no. */
    bool proposes = json_is_true(json_object_get(state, bg->color == WHITE ? "btakeback" : "wtakeback"));
    if (proposes && !bg->opponent_proposes_takeback) {
        bool yes = bg->takebacks_accepted < B.cfg.max_takebacks_accepted;
        bg->takebacks_accepted += yes;
        log_msg(LOG_INFO, "bot: game %s: the opponent asks for a takeback: %s (%d of %.0f accepted)", bg->id,
                yes ? "yes" : "no", bg->takebacks_accepted, B.cfg.max_takebacks_accepted);
        post(bg, "takeback", yes ? "takeback/yes" : "takeback/no", NULL);
    }
    bg->opponent_proposes_takeback = proposes;
    static Position p;
    if (!games_position(bg->g, &p))
        return;
    if (!bg->hello_sent && n < 2) {
        bg->hello_sent = true;
        say(bg, "player", B.cfg.greeting.hello);
        say(bg, "spectator", B.cfg.greeting.hello_spectators);
    }
    if (p.side == bg->color && !bg->g->thinking && !engine_just_moved(bg->g))
        think(bg, state);
}

static void chat_command(BotGame *bg, const char *room, const char *text)
{
    char reply[280] = "";
    bool spectators = !strcmp(room, "spectator");
    if (!strcmp(text, "!help") || !strcmp(text, "!commands"))
        snprintf(reply, sizeof reply, "Commands: !name, !mood, !style, !eval (spectators), !queue, !wait, !help");
    else if (!strcmp(text, "!queue")) {
        int n = B.counts.queued;
        if (!n)
            snprintf(reply, sizeof reply, "No challenges queued.");
        else {
            int o = snprintf(reply, sizeof reply, "Challenge queue: ");
            for (int i = 0; i < n && i < 5 && o < (int)sizeof reply; i++)
                o += snprintf(reply + o, sizeof reply - (size_t)o, "%s%s", i ? ", " : "", B.counts.queue[i]);
            if (n > 5 && o < (int)sizeof reply)
                snprintf(reply + o, sizeof reply - (size_t)o, " and %d more", n - 5);
        }
    } else if (!strcmp(text, "!name"))
        snprintf(reply, sizeof reply, "%s running feelfish (%s mode)", B.username, B.cfg.feelfish.mode);
    else if (!strcmp(text, "!wait") && bg->g && bg->g->move_count < 2) {
        bg->last_move_ms = clock_wall_ms() + 60000;
        snprintf(reply, sizeof reply, "Waiting 60 seconds...");
    } else if (!strcmp(text, "!eval")) {
        if (!spectators)
            snprintf(reply, sizeof reply, "I don't tell that to my opponent, sorry.");
        else if (bg->g)
            snprintf(reply, sizeof reply, "Last move: %+.2f at depth %d", search_cp(bg->g->last_score) / 100.0,
                     bg->g->last_depth);
    } else if (!strcmp(text, "!mood") && bg->g) {
        if (bg->g->has_emotion)
            snprintf(reply, sizeof reply, "I feel %s (%.2f); my goal: %s",
                     affective_label(CONCEPT_RELIEF, bg->g->emotion.c[CONCEPT_RELIEF]),
                     bg->g->emotion.c[CONCEPT_RELIEF], Goals[bg->g->emotion.goal].name);
        else
            snprintf(reply, sizeof reply, "I play in %s mode: no moods here", B.cfg.feelfish.mode);
    } else if (!strcmp(text, "!style") && bg->g) {
        const GameChoice *last = bg->g->choice_count ? &bg->g->choices[bg->g->choice_count - 1] : NULL;
        if (last && last->choice.has_style)
            snprintf(reply, sizeof reply, "You play an %s game; I aim %s", StyleNames[last->choice.style],
                     BayesTargetNames[last->choice.target]);
        else
            snprintf(reply, sizeof reply, "I cannot tell your style yet");
    }
    if (reply[0] && clock_wall_ms() - bg->chat_ms >= 2000) { /* a spammer gets one reply every 2 s */
        bg->chat_ms = clock_wall_ms();
        say(bg, room, reply);
    }
}

static void on_line(json_t *e, void *user)
{
    BotGame *bg = user;
    bg->backoff_ms = 500;
    const char *type = json_string_value(json_object_get(e, "type"));
    if (!type)
        return;
    if (!strcmp(type, "gameFull")) {
        bg->full_seen = true;
        json_t *white = json_object_get(e, "white"), *black = json_object_get(e, "black");
        const char *wid = json_string_value(json_object_get(white, "id"));
        bg->color = wid && !strcasecmp(wid, B.user_id) ? WHITE : BLACK;
        json_t *opp = bg->color == WHITE ? black : white;
        const char *name = json_string_value(json_object_get(opp, "name"));
        const char *oid = json_string_value(json_object_get(opp, "id"));
        const char *title = json_string_value(json_object_get(opp, "title"));
        snprintf(bg->opponent, sizeof bg->opponent, "%s", name ? name : oid ? oid : "AI");
        snprintf(bg->opponent_id, sizeof bg->opponent_id, "%s", oid ? oid : "");
        bg->opponent_bot = title && !strcmp(title, "BOT");
        json_t *clock = json_object_get(e, "clock");
        bg->clock_initial_ms = json_is_object(clock) ? json_integer_value(json_object_get(clock, "initial")) : -1;
        bg->clock_inc_ms = json_is_object(clock) ? json_integer_value(json_object_get(clock, "increment")) : -1;
        const char *variant = json_string_value(json_object_get(json_object_get(e, "variant"), "key"));
        if (!bg->g && variant && strcmp(variant, "standard") && strcmp(variant, "fromPosition")) {
            /* (a game found in progress, or started from elsewhere: the challenges it accepts are standard) */
            char why[96];
            snprintf(why, sizeof why, "it is %.40s, and this engine plays standard chess only", variant);
            unplayable(bg, why);
            return;
        }
        if (!bg->g) {
            const char *fen = json_string_value(json_object_get(e, "initialFen"));
            ApiError err;
            GameSettings s = {.mode = B.cfg.feelfish.mode,
                              .color = bg->color == WHITE ? "black" : "white", /* the other side's */
                              .elo = (int)B.cfg.feelfish.elo,                  /* 0: level 8, full strength */
                              .temperament = B.cfg.feelfish.temperament,
                              .gain = B.cfg.feelfish.gain >= 0 ? &B.cfg.feelfish.gain : NULL,
                              .target = B.cfg.feelfish.target,
                              .fen = fen && strcmp(fen, "startpos") ? fen : NULL,
                              .owner = BOT_OWNER,
                              .may_teach = true,
                              .external = true};
            bg->g = games_create(&s, &err);
            if (bg->g)
                bg->g->pinned = true; /* it stays in memory while followed */
            if (!bg->g) {
                unplayable(bg, err.message);
                return;
            }
            const char *wn = json_string_value(json_object_get(white, "name"));
            const char *bn = json_string_value(json_object_get(black, "name"));
            snprintf(bg->g->white, sizeof bg->g->white, "%s", wn ? wn : "?");
            snprintf(bg->g->black, sizeof bg->g->black, "%s", bn ? bn : "?");
            snprintf(bg->g->site, sizeof bg->g->site, "%s%s", B.cfg.url, bg->id);
            const char *wt = json_string_value(json_object_get(white, "title"));
            const char *bt = json_string_value(json_object_get(black, "title"));
            snprintf(bg->g->white_title, sizeof bg->g->white_title, "%s", wt ? wt : "");
            snprintf(bg->g->black_title, sizeof bg->g->black_title, "%s", bt ? bt : "");
            if (bg->clock_initial_ms >= 0)
                snprintf(bg->g->time_control, sizeof bg->g->time_control, "%lld+%lld", bg->clock_initial_ms / 1000,
                         bg->clock_inc_ms / 1000);
            else
                snprintf(bg->g->time_control, sizeof bg->g->time_control, "-");
            const char *speed = json_string_value(json_object_get(e, "speed"));
            char kind[24] = "";
            snprintf(kind, sizeof kind, "%s", speed ? speed : "");
            kind[0] = (char)toupper((unsigned char)kind[0]);
            snprintf(bg->g->event, sizeof bg->g->event, "%s %s game",
                     json_is_true(json_object_get(e, "rated")) ? "Rated" : "Casual", kind[0] ? kind : "Standard");
            log_msg(LOG_INFO, "bot: game %s against %s (%s), playing %s; watch it as game %s", bg->id, bg->opponent,
                    bg->opponent_bot ? "a bot" : "a human", bg->color == WHITE ? "white" : "black", bg->g->id);
        }
        on_state(bg, json_object_get(e, "state"));
    } else if (!strcmp(type, "gameState"))
        on_state(bg, e);
    else if (!strcmp(type, "chatLine")) {
        const char *who = json_string_value(json_object_get(e, "username"));
        const char *text = json_string_value(json_object_get(e, "text"));
        const char *room = json_string_value(json_object_get(e, "room"));
        if (who && text && room && strcasecmp(who, B.username) && text[0] == '!')
            chat_command(bg, room, text);
    } else if (!strcmp(type, "opponentGone")) {
        /* The opponent left: once Lichess allows it, the win is claimed (lichess-bot never does). */
        json_t *secs = json_object_get(e, "claimWinInSeconds");
        if (json_is_true(json_object_get(e, "gone")) && json_is_integer(secs))
            bg->claim_at = clock_wall_ms() + json_integer_value(secs) * 1000;
        else
            bg->claim_at = 0;
    }
}

static void on_end(const LichessAnswer *a, void *user)
{
    BotGame *bg = user;
    bg->stream = NULL;
    if (bg->closing)
        return;
    if (bg->over || a->status == 404 || a->status == 401 || a->status == 403) {
        if (!bg->over && a->status != 404)
            bot_error("game %s: its stream was refused (HTTP %d): no longer followed", bg->id, a->status);
        bg->over = true; /* over: the server closes a finished game's stream */
        bot_game_stop(bg);
        return;
    }
    if (a->status == 429) { /* wait out the hold, as every stream must */
        bg->reconnect_at = clock_wall_ms() + (int64_t)(lichess_held(B.li, "stream") * 1000) + 1000;
        B.counts.reconnects++;
        bot_error("game %s: stream rate-limited (429): reopening in %.0f s", bg->id,
                  (double)(bg->reconnect_at - clock_wall_ms()) / 1000.0);
        return;
    }
    if (clock_wall_ms() - bg->stream_opened_ms > 30000)
        bg->backoff_ms = 500; /* it was up a while: this drop starts the delays afresh */
    bg->reconnects++;
    B.counts.reconnects++;
    bot_error("game %s: stream ended mid-game (%s): reconnecting in %.1f s", bg->id,
              a->error    ? a->error
              : a->status ? "closed by the server"
                          : "dropped",
              bg->backoff_ms / 1000.0);
    bg->reconnect_at = clock_wall_ms() + bg->backoff_ms;
    bg->backoff_ms = bg->backoff_ms * 2 > 10000 ? 10000 : bg->backoff_ms * 2;
}

static void open_stream(BotGame *bg)
{
    char path[96];
    snprintf(path, sizeof path, "api/bot/game/stream/%s", bg->id);
    bg->full_seen = false;
    bg->stream_opened_ms = clock_wall_ms();
    bg->stream = lichess_stream(B.li, path, on_line, on_end, bg);
    if (!bg->stream) /* held back by a 429, or refused by the client: later */
        bg->reconnect_at = clock_wall_ms() + (int64_t)(lichess_held(B.li, "stream") * 1000) + 1000;
}

/* Every tick: reopen a dropped stream when its delay is over; abort a game the opponent does not
 * start (lichess-bot's abort_time, while the game can still be aborted). */
static void on_tick(uv_timer_t *t)
{
    BotGame *bg = t->data;
    int64_t now = clock_wall_ms();
    if (!bg->stream && !bg->over && bg->reconnect_at && now >= bg->reconnect_at) {
        bg->reconnect_at = 0;
        open_stream(bg);
    }
    static Position here;
    if (!bg->over && bg->full_seen && bg->state && bg->g && !bg->g->thinking && !engine_just_moved(bg->g) &&
        games_position(bg->g, &here) && here.side == bg->color && movegen_count(&here) > 0)
        think(bg, bg->state); /* our turn and no search: a stale one ended, or no worker was free */
    if (!bg->over && bg->claim_at && now >= bg->claim_at) {
        bg->claim_at = 0;
        log_msg(LOG_INFO, "bot: game %s: the opponent left; claiming the win", bg->id);
        post(bg, "claim", "claim-victory", NULL);
    }
    static Position p;
    if (!bg->over && bg->g && bg->g->move_count < 2 && bg->last_move_ms && games_position(bg->g, &p) &&
        p.side != bg->color && now - bg->last_move_ms > (int64_t)(B.cfg.abort_time * 1000)) {
        log_msg(LOG_INFO, "bot: game %s: the opponent has not moved in %.0f s: aborting", bg->id, B.cfg.abort_time);
        bg->last_move_ms = now; /* once per abort_time */
        post(bg, "abort", "abort", NULL);
    }
}

void bot_game_follow(const char *id)
{
    if (!id || strlen(id) > 12 ||
        strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != strlen(id) || find(id) ||
        !B.running)
        return;
    BotGame *bg = calloc(1, sizeof *bg);
    if (!bg)
        return;
    snprintf(bg->id, sizeof bg->id, "%s", id);
    bg->backoff_ms = 500;
    bg->posted_ply = -1;
    bg->last_move_ms = clock_wall_ms();
    uv_timer_init(B.loop, &bg->timer);
    bg->timer.data = bg;
    uv_timer_start(&bg->timer, on_tick, TICK_MS, TICK_MS);
    bg->next = B.games;
    B.games = bg;
    open_stream(bg);
}

void bot_game_finished_event(const char *id)
{
    BotGame *bg = find(id);
    if (bg && !bg->over && !bg->stream)
        bg->reconnect_at = clock_wall_ms(); /* its stream is down: reopened now, its gameFull has the end */
}

static void free_game(uv_handle_t *h) { free(h->data); }

void bot_game_stop(BotGame *bg)
{
    for (BotGame **at = &B.games; *at; at = &(*at)->next)
        if (*at == bg) {
            *at = bg->next;
            break;
        }
    bg->closing = true;
    if (bg->stream)
        lichess_stream_close(bg->stream);
    if (bg->g) {
        games_unlisten(bg->g);
        bg->g->pinned = false;
        if (bg->g->thinking && bg->g->job) {
            bg->g->think_ply = -1; /* the move it finds was never played on Lichess: not kept */
            jobs_cancel(bg->g->job);
        }
    }
    json_decref(bg->state);
    bg->state = NULL;
    uv_timer_stop(&bg->timer);
    uv_close((uv_handle_t *)&bg->timer, free_game);
}
