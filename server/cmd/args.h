/* What the commands share to read their arguments. */
#ifndef FEELFISH_CMD_ARGS_H
#define FEELFISH_CMD_ARGS_H

#include <stdbool.h>

/* A whole number from min to max in `value` (the argument after `flag`); false, having said on
 * stderr "COMMAND: FLAG takes a number from MIN to MAX", when it is not one. */
bool args_long(const char *command, const char *flag, const char *value, long min, long max, long *out);
/* The same for a number that may have a fraction. */
bool args_double(const char *command, const char *flag, const char *value, double min, double max, double *out);

#endif
