/* The Lichess bot: a bridge from a Lichess (or Lichess-compatible) server's Bot API to this
 * engine, on the server's loop (shared/spec/lichess-bot.md §1-§6). It checks the token and the
 * account, resumes the games in progress, answers challenges by lichess-bot's rules, and plays each
 * game from its stream with a domain Game (games.h, external): the affective mood carries from
 * move to move, in Bayesian mode the opponent's style is recognised and the finished game
 * learned, and the game is stored and watchable like any other. Loop thread. */
#ifndef FEELFISH_BOT_H
#define FEELFISH_BOT_H

#include <stdbool.h>
#include <uv.h>

#include "config.h"
#include "status.h"

/* Starts the bot with these settings (copied); false with a message if it cannot start. The
 * account checks happen afterwards, on the loop: a failure there stops the bot (bot_running turns
 * false and bot_status says why in `fatal`). */
bool bot_start(uv_loop_t *loop, const BotConfig *cfg, char *err, size_t err_size);
/* Stops: streams closed, searches stopped (the games stay in storage). */
void bot_stop(void);
bool bot_running(void);

void bot_status(BotStatus *s);

#endif
