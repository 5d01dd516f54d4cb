/* Self-play learning for the Bayesian model and the paper's experiments (commands). */
#ifndef FEELFISH_LEARN_H
#define FEELFISH_LEARN_H

#include <stdio.h>

int learn_command(int argc, char **argv, FILE *out);            /* feelfish learn */
int bayes_experiment_command(int argc, char **argv, FILE *out); /* feelfish bayes-experiment */

#endif
