/* `feelfish cluster status --redis URL`: what a cluster is made of, read from its Redis. */
#ifndef FEELFISH_CLUSTER_COMMAND_H
#define FEELFISH_CLUSTER_COMMAND_H

#include <stdio.h>

int cluster_command(int argc, char **argv, FILE *out);

#endif
