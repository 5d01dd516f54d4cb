/* `feelfish db stats|prune`: a database's contents and size, and retention applied by hand. */
#ifndef FEELFISH_DB_COMMAND_H
#define FEELFISH_DB_COMMAND_H

#include <stdio.h>

int db_command(int argc, char **argv, FILE *out);

#endif
