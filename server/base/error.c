/* Rejections: see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

#include "utf8.h"

void api_error_set(ApiError *e, int status, const char *code, const char *field, const char *fmt, ...)
{
    e->status = status;
    snprintf(e->code, sizeof e->code, "%s", code);
    snprintf(e->field, sizeof e->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    utf8_clean(e->message); /* it may quote client text cut at a byte limit: jansson refuses bad UTF-8 */
    utf8_clean(e->field);
}
