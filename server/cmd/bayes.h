/* `feelfish bayes`: the Bayesian model's counts on the command line (show, export, import). */
#ifndef FEELFISH_BAYES_COMMAND_H
#define FEELFISH_BAYES_COMMAND_H

#include <stdio.h>

int bayes_command(int argc, char **argv, FILE *out);

#endif
