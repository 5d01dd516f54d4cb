/* What the bot tells about itself (GET /api/bot, /metrics): plain structs, made by bot_status. */
#ifndef FEELFISH_BOT_STATUS_H
#define FEELFISH_BOT_STATUS_H

#include <stdbool.h>

#define BOT_ERRORS 8
/* The owner of the bot's games and their searches (watchable by anyone who may read GET /api/bot). */
#define BOT_OWNER "bot"

#define BOT_GAMES_SHOWN 32
#define BOT_QUEUE_SHOWN 8

typedef struct {
    char id[16];   /* Lichess's game id */
    char game[24]; /* this server's game id (GET /api/games/{id}) */
    char job[24];  /* the search under way, "" if none (subscribe to watch it think) */
    char opponent[64];
    bool opponent_bot;
    char color[8]; /* the bot's */
    int plies;
    char fen[100];
    char status[24];
    char url[300];
} BotGameView;

typedef struct {
    bool running, connected; /* connected: its event stream is open */
    char account[64], url[256], mode[16];
    char fatal[256]; /* why it stopped, if it did */
    int games_now;
    BotGameView games[BOT_GAMES_SHOWN];
    int wins, losses, draws, aborted;
    unsigned long long moves, challenges_accepted, challenges_declined, reconnects, rate_limited, calls;
    char errors[BOT_ERRORS][200]; /* the last ones, newest first */
    int error_count;
    int queued; /* challenges waiting for room */
    char queue[BOT_QUEUE_SHOWN][64]; /* their challengers, best first */
    int challenges_sent; /* by matchmaking */
    char challenge_waiting[16];
    bool has_style; /* Bayesian mode: the last opponent whose style was recognised */
    char style_opponent[64], style[16];
} BotStatus;

#endif
