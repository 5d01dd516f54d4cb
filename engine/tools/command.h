/* A command of the feelfish binary as one table row: main() dispatches on the name and builds its
 * usage text from the rows, so a command's help is written once, beside the command. */
#ifndef FEELFISH_COMMAND_H
#define FEELFISH_COMMAND_H

#include <stdio.h>

typedef struct {
    const char *name;
    const char *alias; /* another name it answers to, or NULL */
    /* The arguments, one line per form ('\n' between), and what it does: the summary's lines
     * pair with the forms in order, as the usage text shows them. */
    const char *synopsis;
    const char *summary;
    /* argv holds the arguments after the command's name; the result is the exit code. */
    int (*run)(int argc, char **argv, FILE *out);
} Command;

#endif
