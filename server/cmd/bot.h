/* `feelfish bot --config FILE`: the Lichess bot on its own (no HTTP or WebSocket server): storage,
 * the search workers and the bot on one loop. `feelfish serve --bot FILE` runs the same bot inside
 * the server. */
#ifndef FEELFISH_BOT_COMMAND_H
#define FEELFISH_BOT_COMMAND_H

#include <stdio.h>

int bot_command(int argc, char **argv, FILE *out);

#endif
