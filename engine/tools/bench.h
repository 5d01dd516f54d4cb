/* `feelfish bench [depth]`: fixed positions at a fixed depth, one thread, fixed hash. The total
 * node count is the search's signature: it changes only when search behaviour changes. */
#ifndef FEELFISH_BENCH_H
#define FEELFISH_BENCH_H

#include <stdio.h>

#define BENCH_DEFAULT_DEPTH 12

extern const char *const BenchPositions[];
extern const int BenchPositionCount;

int bench_command(int argc, char **argv, FILE *out);

#endif
