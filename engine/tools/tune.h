/* `feelfish tune`: Texel-style tuning of the classical evaluation on the master games. */
#ifndef FEELFISH_TUNE_H
#define FEELFISH_TUNE_H

#include <stdio.h>

int tune_command(int argc, char **argv, FILE *out);

#endif
