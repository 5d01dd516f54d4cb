/* `feelfish worker`: a search worker of a cluster (jobs/cluster.h). */
#ifndef FEELFISH_WORKER_H
#define FEELFISH_WORKER_H

#include <stdio.h>

int worker_command(int argc, char **argv, FILE *out);

#endif
