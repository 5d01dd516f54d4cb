/* `feelfish annotate`: whole-game analysis of every game of a PGN file, as Lichess's computer
 * analysis (engine/review): the annotated PGN and, optionally, one JSON line per game; resumable. */
#ifndef FEELFISH_ANNOTATE_H
#define FEELFISH_ANNOTATE_H

#include <stdio.h>

int annotate_command(int argc, char **argv, FILE *out);

#endif
