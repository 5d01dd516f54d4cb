/* `feelfish serve`: the server process (loop thread, workers, HTTP). */
#ifndef FEELFISH_SERVE_H
#define FEELFISH_SERVE_H

#include <stdio.h>

int serve_command(int argc, char **argv, FILE *out);

#endif
