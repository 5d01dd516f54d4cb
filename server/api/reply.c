/* JSON answers and bodies: see reply.h. */
#include "reply.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"

char *api_dumps(const json_t *value, bool pretty)
{
    return json_dumps(value, (pretty ? 0 : JSON_COMPACT) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15));
}

void api_reply_json(Request *r, int status, json_t *body)
{
    char *text = body ? api_dumps(body, false) : NULL;
    json_decref(body);
    if (!text) { /* a body that could not be built is a bug, but the client still gets an error */
        status = 500;
        text = strdup("{\"error\":{\"code\":\"internal\",\"message\":\"the answer could not be encoded\"}}");
    }
    http_reply(r, status, "application/json", text, strlen(text));
    free(text);
}

void api_reply_error(Request *r, const ApiError *e)
{
    if (e->retry_after > 0) {
        char seconds[16];
        snprintf(seconds, sizeof seconds, "%d", e->retry_after);
        http_add_header(r, "Retry-After", seconds);
    }
    api_reply_json(r, e->status, json_pack("{s:o}", "error", encode_error(e)));
}

void api_error_text(const ApiError *e, char *out, size_t size)
{
    json_t *o = json_pack("{s:o}", "error", encode_error(e));
    char *text = api_dumps(o, false);
    json_decref(o);
    snprintf(out, size, "%s", text ? text : "{}");
    free(text);
}

void api_reply_fail(Request *r, int status, const char *code, const char *field, const char *fmt, ...)
{
    ApiError e;
    char text[sizeof e.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    api_error_set(&e, status, code, field, "%s", text); /* cleans the text to valid UTF-8 */
    api_reply_error(r, &e);
}

json_t *api_parse_json_text(ApiError *e, const char *text, size_t len)
{
    if (!text || !len) {
        api_error_set(e, 400, "bad_json", NULL, "the message is empty; send a JSON object");
        return NULL;
    }
    json_error_t je;
    json_t *body = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!body) {
        api_error_set(e, 400, "bad_json", NULL, "malformed JSON at line %d, column %d: %s", je.line, je.column,
                      je.text);
        return NULL;
    }
    if (!json_is_object(body)) {
        json_decref(body);
        api_error_set(e, 400, "bad_json", NULL, "send a JSON object");
        return NULL;
    }
    return body;
}

json_t *api_parse_body(Request *r)
{
    const char *type = http_header(r, "Content-Type");
    if (!type || strncasecmp(type, "application/json", 16)) {
        api_reply_fail(r, 415, "unsupported_media_type", NULL,
                       "send the body as JSON with 'Content-Type: application/json'");
        return NULL;
    }
    ApiError e;
    json_t *body = api_parse_json_text(&e, r->body, r->body_len);
    if (!body)
        api_reply_error(r, &e);
    return body;
}
