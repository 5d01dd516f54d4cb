/* `feelfish analyse`: one analysis as JSON (the API's shape), or the search lab. */
#ifndef FEELFISH_ANALYSE_H
#define FEELFISH_ANALYSE_H

#include <stdio.h>

int analyse_command(int argc, char **argv, FILE *out);

#endif
