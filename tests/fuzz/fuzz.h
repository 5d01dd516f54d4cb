/* What the libFuzzer harnesses share: the engine's tables built once, and the input as a
 * NUL-terminated string (the parsers take C strings). */
#ifndef FEELFISH_FUZZ_H
#define FEELFISH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/core/rules.h"
#include "../../engine/engine.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (an embedded NUL ends it, as it would for the parser's real callers). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

#endif
