/* Which challenges the bot takes: lichess-bot's rules (model.Challenge.is_supported) in its order,
 * the first that fails giving the decline reason Lichess is told, plus what this engine cannot
 * play (variants other than standard chess). */
#ifndef FEELFISH_BOT_CHALLENGE_H
#define FEELFISH_BOT_CHALLENGE_H

#include <jansson.h>

#include "config.h"

typedef struct {
    int games_now;        /* games the bot is playing (and accepted challenges not started yet) */
    int bot_games_now;    /* of which against bots */
    int games_with_user;  /* games in progress against this challenger (and their challenges waiting) */
    int recent_from_user; /* this challenger's challenges taken in the last recent_bot_challenge_age s */
} BotLoad;

/* NULL to take the challenge (into the queue), else the reason key to decline with (generic, later,
 * timeControl, rated, casual, variant, noBot, onlyBot). `challenge` is the event's ChallengeJson.
 * Whether there is room to play it now is bot_challenge_fits's question. */
const char *bot_challenge_verdict(const BotConfig *c, json_t *challenge, const BotLoad *load);
/* Room for one more game (concurrency, and the games reserved for humans when it is a bot's). */
bool bot_challenge_fits(const BotConfig *c, json_t *challenge, const BotLoad *load);
/* lichess-bot's order of the queue: true if a goes before b (sort_by best: rating, +200 rated, +200
 * a titled human; preference human|bot first; else first come). */
bool bot_challenge_before(const BotConfig *c, json_t *a, json_t *b);
bool bot_challenge_from_bot(json_t *challenge);

#endif
