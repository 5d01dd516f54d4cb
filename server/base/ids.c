/* Random ids: see ids.h. */
#include "ids.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

void ids_random_hex(char *out, size_t digits)
{
    static const char Hex[] = "0123456789abcdef";
    uint8_t bytes[64];
    size_t need = (digits + 1) / 2, got = 0;
    if (need > sizeof bytes)
        abort();
    while (got < need) {
        ssize_t n = getrandom(bytes + got, need - got, 0);
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "getrandom: cannot read random bytes for an id\n");
            abort();
        }
        if (n > 0)
            got += (size_t)n;
    }
    for (size_t i = 0; i < digits; i++)
        out[i] = Hex[(bytes[i / 2] >> (i % 2 ? 0 : 4)) & 15];
    out[digits] = 0;
}
