/* The UCI protocol: a thin adapter between text lines and the protocol-neutral search. */
#ifndef FEELFISH_UCI_H
#define FEELFISH_UCI_H

#include <stdio.h>

#include "eval/bayes.h"

/* Reads the Bayesian model stored at path (the server's SQLite file); the engine has no database
 * code, so the program supplies it. False with a message if it cannot. */
typedef bool (*UciBayesLoader)(const char *path, BayesModel *m, char *err, size_t err_size);
void uci_set_bayes_loader(UciBayesLoader loader);

/* Reads commands from in until `quit` or end of input, answering on out. Returns 0. */
int uci_loop(FILE *in, FILE *out);

#endif
