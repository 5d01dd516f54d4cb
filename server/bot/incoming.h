/* Challenges to the bot: each is answered by challenge.c's rules; those it takes wait in a queue in
 * lichess-bot's order (sort_by, preference) and are accepted while there is room (concurrency, the
 * games reserved for humans), as lichess-bot does: a challenge made while the bot is busy is played
 * when a game ends, unless its challenger cancels it first. The queue is shown in B.counts (queued,
 * queue). Accepted challenges count as games
 * until their game starts (or 20 s pass), so a burst cannot take more than `concurrency`. Loop
 * thread. */
#ifndef FEELFISH_BOT_INCOMING_H
#define FEELFISH_BOT_INCOMING_H

#include <jansson.h>

/* A `challenge` event's ChallengeJson. */
void incoming_challenge(json_t *challenge);
/* challengeCanceled (or the challenge is otherwise gone). */
void incoming_gone(const char *id);
/* A game started: an accepted challenge of this id no longer counts as pending. */
void incoming_started(const char *id);
/* Accepts from the queue while there is room (called on game ends and every second). */
void incoming_accept_waiting(void);
/* Challenges accepted whose game has not started. */
int incoming_pending(void);
/* Forgets everything (bot stop). */
void incoming_clear(void);

#endif
