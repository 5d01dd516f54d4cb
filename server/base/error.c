/* Rejections: see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

/* How long a client refused with `code` should wait before asking again: 1 s for a refusal that
 * passes by itself (a full queue, a busy worker or lab, a client's own jobs at their limit, the
 * cluster's link, a restart), 5 s for storage that cannot be written; 0 for a refusal the same
 * request will meet again, or that only the client's own action ends (too_many_analyses: cancel one). */
static int retry_after(const char *code)
{
    static const struct {
        const char *code;
        int seconds;
    } Waits[] = {
        {"too_many_jobs", 1},       {"too_many_infinite", 1}, {"queue_full", 1},    {"overloaded", 1},
        {"cluster_unavailable", 1}, {"lab_busy", 1},          {"shutting_down", 1}, {"storage_unavailable", 5},
    };
    for (size_t i = 0; i < sizeof Waits / sizeof *Waits; i++)
        if (!strcmp(code, Waits[i].code))
            return Waits[i].seconds;
    return 0;
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
    utf8_clean(e->message); /* it may quote client text cut at a byte limit: jansson refuses bad UTF-8 */
    utf8_clean(e->field);
    e->retry_after = retry_after(code);
}
