/* `feelfish match`: engine-vs-engine games over UCI, with PGN output, Elo and SPRT. */
#ifndef FEELFISH_MATCH_H
#define FEELFISH_MATCH_H

#include <stdio.h>

/* `feelfish match ...` (argv without the program name and the word "match"); returns the process
 * exit code: 0 ok, 1 a game error such as a crash, 2 bad arguments. */
int match_command(int argc, char **argv, FILE *out);

#endif
