/* JSON in and out of a request: reading a body, and every JSON answer (a value or an error with
 * its stable code). The one place the server turns JSON into text. */
#ifndef FEELFISH_REPLY_H
#define FEELFISH_REPLY_H

#include <jansson.h>

#include "../base/error.h"
#include "../net/http.h"

/* JSON as text, compact or (pretty) with ", " and ": " separators; reals to 15 digits. */
char *api_dumps(const json_t *value, bool pretty);

void api_reply_json(Request *r, int status, json_t *body); /* takes the reference */
/* {"error": {"code", "message", "field"?}} with e's status, and Retry-After when e has one. */
void api_reply_error(Request *r, const ApiError *e);
/* The same {"error": ...} body as text, into out (cut to size). */
void api_error_text(const ApiError *e, char *out, size_t size);
void api_reply_fail(Request *r, int status, const char *code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A JSON object from text; NULL with e set (400 bad_json). */
json_t *api_parse_json_text(ApiError *e, const char *text, size_t len);
/* A REST request's JSON object body; NULL when the request already has its error answer (415 for
 * another content type, 400 for bad JSON). */
json_t *api_parse_body(Request *r);

#endif
