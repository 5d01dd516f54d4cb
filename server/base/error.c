/* Rejections: see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

/* Makes s valid UTF-8 in place: a message may quote client text cut at a byte limit, and
 * jansson (rightly) refuses invalid strings. Bad or cut sequences become '?'. */
static void utf8_clean(char *s)
{
    unsigned char *c = (unsigned char *)s;
    while (*c) {
        int len = *c < 0x80 ? 1 : (*c >> 5) == 6 ? 2 : (*c >> 4) == 14 ? 3 : (*c >> 3) == 30 ? 4 : 0;
        int ok = len > 0;
        for (int k = 1; ok && k < len; k++)
            ok = (c[k] & 0xC0) == 0x80;
        if (!ok) {
            *c++ = '?';
            continue;
        }
        c += len;
    }
}

void api_error_set(ApiError *e, int status, const char *code, const char *field, const char *fmt, ...)
{
    e->status = status;
    snprintf(e->code, sizeof e->code, "%s", code);
    snprintf(e->field, sizeof e->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    utf8_clean(e->message);
    utf8_clean(e->field);
}
