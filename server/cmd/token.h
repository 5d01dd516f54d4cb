/* `feelfish token create|list|revoke`: the API tokens of a database (store/tokens.h). */
#ifndef FEELFISH_TOKEN_COMMAND_H
#define FEELFISH_TOKEN_COMMAND_H

#include <stdio.h>

int token_command(int argc, char **argv, FILE *out);

#endif
