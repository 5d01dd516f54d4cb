/* One Lichess game the bot plays: see bot_game.c. */
#ifndef FEELFISH_BOT_GAME_H
#define FEELFISH_BOT_GAME_H

#include <jansson.h>

#include "../domain/games.h"
#include "session.h"

struct BotGame {
    char id[16];
    Game *g;
    LichessStream *stream;
    bool over, closing;
    Color color; /* the bot's */
    char opponent[64], opponent_id[64];
    bool opponent_bot;
    bool full_seen; /* gameFull came on this stream */
    bool hello_sent;
    long long clock_initial_ms, clock_inc_ms; /* -1: no clock (correspondence, unlimited) */
    int days_per_turn;
    int synced_plies;                /* moves in the last state handled */
    bool opponent_offers_draw;       /* as of the last state */
    bool opponent_proposes_takeback; /* as of the last state */
    int takebacks_accepted;
    int draw_streak, resign_streak; /* engine moves in a row within the draw or resign rule */
    int64_t state_ms;               /* when the last state came (time spent since is the bot's) */
    int64_t last_move_ms;           /* the last time a move was made, for abort_time */
    unsigned reconnects, backoff_ms;
    uv_timer_t timer; /* every second: abort check, reconnection */
    int64_t reconnect_at;
    int64_t stream_opened_ms;
    int64_t claim_at; /* when the win may be claimed (the opponent left), 0: not */
    json_t *state;    /* the last gameState (its clocks for a search started later), or NULL */
    int posted_ply;   /* the index of the last move of ours posted, -1 if none */
    int64_t chat_ms;  /* when the last chat reply went (at most one every 2 s) */
    BotGame *next;
};

/* Starts following a game (from gameStart, or the games in progress at start); no-op if it is
 * followed already. */
void bot_game_follow(const char *id);
/* The event stream says the game is over (its own stream says so too, normally first). */
void bot_game_finished_event(const char *id);
void bot_game_stop(BotGame *bg);
int bot_games_now(int *bot_games, const char *with_user, int *with_user_count);

#endif
