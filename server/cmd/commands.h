/* The server's commands (serve, learn, bayes...): their table for server/main.c, which looks a
 * name up here first and then among the engine tools. */
#ifndef FEELFISH_COMMANDS_H
#define FEELFISH_COMMANDS_H

#include "../../engine/tools/command.h"

extern const Command ServerCommands[];
extern const int ServerCommandCount;

#endif
