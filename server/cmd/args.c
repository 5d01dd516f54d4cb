/* Reading the commands' arguments: see args.h. */
#include "args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

bool args_long(const char *command, const char *flag, const char *value, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || errno || end == value || *end || v < min || v > max) {
        fprintf(stderr, "%s: %s takes a number from %ld to %ld\n", command, flag, min, max);
        return false;
    }
    *out = v;
    return true;
}

bool args_double(const char *command, const char *flag, const char *value, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = value ? strtod(value, &end) : 0;
    if (!value || errno || end == value || *end || !(v >= min && v <= max)) {
        fprintf(stderr, "%s: %s takes a number from %g to %g\n", command, flag, min, max);
        return false;
    }
    *out = v;
    return true;
}
