/* UTF-8 checks: see utf8.h. */
#include "utf8.h"

size_t utf8_sequence(const char *s)
{
    const unsigned char *c = (const unsigned char *)s;
    if (!c[0])
        return 0;
    if (c[0] < 0x80)
        return 1;
    size_t len = c[0] >= 0xC2 && c[0] <= 0xDF ? 2 : c[0] >= 0xE0 && c[0] <= 0xEF ? 3 : c[0] >= 0xF0 && c[0] <= 0xF4 ? 4 : 0;
    for (size_t k = 1; k < len; k++)
        if ((c[k] & 0xC0) != 0x80)
            return 0;
    /* The second byte's range rules out overlong forms, surrogates and code points past U+10FFFF. */
    if ((c[0] == 0xE0 && c[1] < 0xA0) || (c[0] == 0xED && c[1] > 0x9F) || (c[0] == 0xF0 && c[1] < 0x90) ||
        (c[0] == 0xF4 && c[1] > 0x8F))
        return 0;
    return len;
}

bool utf8_valid(const char *s)
{
    while (*s) {
        size_t n = utf8_sequence(s);
        if (!n)
            return false;
        s += n;
    }
    return true;
}

void utf8_clean(char *s)
{
    while (*s) {
        size_t n = utf8_sequence(s);
        if (!n)
            *s++ = '?';
        else
            s += n;
    }
}
