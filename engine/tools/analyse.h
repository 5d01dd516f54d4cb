/* `feelfish analyse`: one analysis of one position, as JSON on standard output; with
 * --algorithm, the search lab instead (textbook algorithms compared). */
#ifndef FEELFISH_ANALYSE_H
#define FEELFISH_ANALYSE_H

#include <stdio.h>

int analyse_command(int argc, char **argv, FILE *out);

#endif
