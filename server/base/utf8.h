/* UTF-8 as RFC 3629 has it: no overlong forms, no surrogates, nothing past U+10FFFF. Client text
 * (a path, a field) is checked with it before it reaches JSON or the log. */
#ifndef FEELFISH_UTF8_H
#define FEELFISH_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* The length of the valid sequence at s (1 to 4), 0 if s does not start one (or at its NUL). */
size_t utf8_sequence(const char *s);
bool utf8_valid(const char *s);
/* Makes s valid in place: every byte that starts no valid sequence becomes '?'. */
void utf8_clean(char *s);
/* s as a quoted JSON string, ASCII only (what jansson writes with JSON_ENSURE_ASCII): '"' and '\\'
 * escaped, controls and non-ASCII as \uXXXX (surrogate pairs past U+FFFF), a byte that starts no
 * valid sequence as '?'. False, out unusable, if it does not fit in size bytes. */
bool utf8_json_string(char *out, size_t size, const char *s);

#endif
