/* `feelfish serve`: the server process (loop thread, workers, HTTP). */
#ifndef FEELFISH_SERVE_H
#define FEELFISH_SERVE_H

int serve_command(int argc, char **argv);

#endif
