/* Which challenges the bot takes: lichess-bot's rules (model.Challenge.is_supported) in its order,
 * the first that fails giving the decline reason Lichess is told, plus what this engine cannot
 * play (variants other than standard chess). */
#ifndef FEELFISH_BOT_CHALLENGE_H
#define FEELFISH_BOT_CHALLENGE_H

#include <jansson.h>

#include "config.h"

typedef struct {
    int games_now;      /* games the bot is playing */
    int bot_games_now;  /* of which against bots */
    int games_with_user; /* of which against this challenger */
} BotLoad;

/* NULL to accept, else the reason key to decline with (generic, later, tooFast, tooSlow,
 * timeControl, rated, casual, standard, variant, noBot, onlyBot). `challenge` is the event's
 * ChallengeJson. */
const char *bot_challenge_verdict(const BotConfig *c, json_t *challenge, const BotLoad *load);

#endif
