/* Growable text: a string built by appending, always NUL-terminated. Out of memory aborts (nothing
 * sensible is left to do for the readers and writers that use it). */
#ifndef FEELFISH_TEXT_H
#define FEELFISH_TEXT_H

#include <stddef.h>

typedef struct {
    char *s; /* NULL until something is put */
    size_t len, cap;
} Buf;

void buf_put(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
