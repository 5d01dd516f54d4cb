/* The bot challenges other bots when it has been idle (lichess-bot's `matchmaking`): after
 * challenge_timeout minutes without a game, at most one challenge a minute (every 10 minutes while
 * playing, with allow_during_games), to an online bot (GET /api/bot/online) whose rating suits
 * (opponent_rating_difference around the bot's own, else opponent_min/max_rating), not on the
 * block list nor among those who declined today (challenge_filter coarse: the bot; fine: that
 * speed, variant or mode). An unanswered challenge is cancelled after 25 s; Lichess's daily limit on
 * bot games (429 bot.vsBot.day) stops matchmaking for the time it names, and an opponent over its
 * own limit (400) is left for the day. Loop thread. */
#ifndef FEELFISH_BOT_MATCHMAKING_H
#define FEELFISH_BOT_MATCHMAKING_H

#include <jansson.h>
#include <stdbool.h>

/* Every second. */
void matchmaking_tick(void);
/* A challengeDeclined event: true if it was ours (then remembered by challenge_filter). */
bool matchmaking_declined(json_t *challenge);
/* A game started: if it is our challenge's, the challenge is answered. */
void matchmaking_started(const char *game_id);
/* The account's perfs (GET /api/account), for the bot's own rating per speed. */
void matchmaking_set_perfs(json_t *perfs);
void matchmaking_clear(void);
/* What it did: challenges sent, and the id of the one waiting ("" if none). */
int matchmaking_sent(const char **waiting);

#endif
