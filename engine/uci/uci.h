/* The UCI protocol: a thin adapter between text lines and the protocol-neutral search. */
#ifndef FEELFISH_UCI_H
#define FEELFISH_UCI_H

#include <stdio.h>

/* Reads commands from in until `quit` or end of input, answering on out. Returns 0. */
int uci_loop(FILE *in, FILE *out);

#endif
