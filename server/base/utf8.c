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

bool utf8_json_string(char *out, size_t size, const char *s)
{
    static const char Hex[] = "0123456789abcdef";
    size_t o = 0;
    if (size < 3)
        return false;
    out[o++] = '"';
    while (*s) {
        const unsigned char *c = (const unsigned char *)s;
        size_t n = utf8_sequence(s);
        unsigned long cp = n == 0 ? '?' : n == 1 ? c[0] : n == 2 ? (c[0] & 0x1Fu) << 6 | (c[1] & 0x3Fu)
                       : n == 3 ? (c[0] & 0x0Fu) << 12 | (c[1] & 0x3Fu) << 6 | (c[2] & 0x3Fu)
                                : (c[0] & 0x07u) << 18 | (c[1] & 0x3Fu) << 12 | (c[2] & 0x3Fu) << 6 | (c[3] & 0x3Fu);
        s += n ? n : 1;
        char piece[16];
        size_t len = 0;
        if (cp == '"' || cp == '\\') {
            piece[len++] = '\\';
            piece[len++] = (char)cp;
        } else if (cp >= 0x20 && cp < 0x7F)
            piece[len++] = (char)cp;
        else {
            unsigned long units[2] = {cp, 0};
            int count = 1;
            if (cp > 0xFFFF) { /* a surrogate pair */
                units[0] = 0xD800 + ((cp - 0x10000) >> 10);
                units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
                count = 2;
            }
            for (int u = 0; u < count; u++) {
                piece[len++] = '\\';
                piece[len++] = 'u';
                for (int shift = 12; shift >= 0; shift -= 4)
                    piece[len++] = Hex[(units[u] >> shift) & 0xF];
            }
        }
        if (o + len + 2 > size)
            return false;
        for (size_t k = 0; k < len; k++)
            out[o++] = piece[k];
    }
    out[o++] = '"';
    out[o] = 0;
    return true;
}
