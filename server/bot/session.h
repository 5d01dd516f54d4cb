/* The bot's state, shared by bot.c (the account, the event stream, challenges) and bot_game.c (one
 * game), and its error list. Loop thread. */
#ifndef FEELFISH_BOT_SESSION_H
#define FEELFISH_BOT_SESSION_H

#include <uv.h>

#include "config.h"
#include "lichess.h"
#include "status.h"

typedef struct BotGame BotGame;

typedef struct {
    BotConfig cfg;
    uv_loop_t *loop;
    Lichess *li;
    bool running, connected;
    char user_id[64], username[64];
    LichessStream *events;
    uv_timer_t reconnect;
    uv_timer_t tick;     /* every second: the challenge queue, matchmaking */
    unsigned backoff_ms; /* the event stream's next reconnection delay */
    int start_tries;     /* start calls failed for a passing reason (bot.c: start_again) */
    int64_t events_opened_ms;
    BotGame *games;
    BotStatus counts; /* record, counters, errors, style (the rest of BotStatus is made on demand) */
} Bot;

extern Bot B;

/* A bounded set of marks (a key and a moment), for what the bot counts over time: challenges
 * accepted whose game has not started, bots' recent challenges, the bots that declined ours. When
 * full, the oldest mark gives way. Keys compare without case (Lichess ids). */
typedef struct {
    char key[96];
    char who[32]; /* whom the mark is about, when the key is not (a challenge's challenger) */
    int64_t at;
} BotStamp;
void bot_stamp(BotStamp *ring, int n, const char *key, const char *who, int64_t at);
/* How many marks of `key` (NULL: any) are at or after `since`. */
int bot_stamps(const BotStamp *ring, int n, const char *key, int64_t since);
/* How many marks about `who` are at or after `since`. */
int bot_stamps_about(const BotStamp *ring, int n, const char *who, int64_t since);
/* Forgets every mark of key. */
void bot_unstamp(BotStamp *ring, int n, const char *key);

/* An error worth showing in GET /api/bot (and the log); the token never reaches it. */
void bot_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with its log level (a LogLevel). */
void bot_note(int level, const char *text);

#endif
