/* Trusted proxies: see proxy.h. */
#include "proxy.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An address as 16 bytes (IPv4 mapped into IPv6); false when text is none. */
static bool parse_address(const char *text, uint8_t out[16])
{
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, text, &v4) == 1) {
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &v4, 4);
        return true;
    }
    if (inet_pton(AF_INET6, text, &v6) == 1) {
        memcpy(out, &v6, 16);
        return true;
    }
    return false;
}

static bool in_cidr(const ProxyCidr *c, const uint8_t a[16])
{
    int full = c->bits / 8, rest = c->bits % 8;
    if (memcmp(c->addr, a, (size_t)full))
        return false;
    if (!rest)
        return true;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (c->addr[full] & mask) == (a[full] & mask);
}

bool proxy_parse(const char *text, ProxyList *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    const char *p = text ? text : "";
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        char entry[80];
        size_t n = strcspn(p, ", \t");
        if (n >= sizeof entry) {
            snprintf(err, err_size, "trusted proxy '%.40s...' is too long for an address or CIDR", p);
            return false;
        }
        memcpy(entry, p, n);
        entry[n] = 0;
        p += n;
        if (out->count == PROXY_LIST_MAX) {
            snprintf(err, err_size, "more than %d trusted proxies", PROXY_LIST_MAX);
            return false;
        }
        ProxyCidr *c = &out->cidr[out->count];
        char *slash = strchr(entry, '/');
        long bits = -1;
        if (slash) {
            char *end;
            *slash = 0;
            bits = strtol(slash + 1, &end, 10);
            if (end == slash + 1 || *end)
                bits = -2;
        }
        bool v4 = strchr(entry, ':') == NULL;
        if (!parse_address(entry, c->addr) || (slash && bits < 0) || bits > (v4 ? 32 : 128)) {
            if (slash)
                *slash = '/';
            snprintf(err, err_size, "trusted proxy '%s' is not an address or a CIDR (e.g. 10.0.0.0/8, fd00::/8)", entry);
            return false;
        }
        c->bits = bits < 0 ? 128 : v4 ? 96 + (int)bits : (int)bits;
        out->count++;
    }
    return true;
}

bool proxy_trusted(const ProxyList *list, const char *addr)
{
    uint8_t a[16];
    if (!list || !list->count || !addr || !parse_address(addr, a))
        return false;
    for (int i = 0; i < list->count; i++)
        if (in_cidr(&list->cidr[i], a))
            return true;
    return false;
}

/* The address of one hop: X-Forwarded-For's "1.2.3.4" or "2001:db8::1" (a port or brackets are
 * tolerated), or Forwarded's for=1.2.3.4 / for="[2001:db8::1]:4711". False when it is no address
 * ("unknown", an obfuscated "_name", garbage). */
static bool hop_address(const char *hop, size_t len, bool forwarded, char *out, size_t size)
{
    char text[128];
    while (len && isspace((unsigned char)*hop))
        hop++, len--;
    while (len && isspace((unsigned char)hop[len - 1]))
        len--;
    if (forwarded) { /* find for= among the ;-separated pairs */
        const char *f = NULL;
        for (size_t i = 0; i + 4 <= len; i++)
            if ((i == 0 || hop[i - 1] == ';' || isspace((unsigned char)hop[i - 1])) && !strncasecmp(hop + i, "for=", 4)) {
                f = hop + i + 4;
                break;
            }
        if (!f)
            return false;
        size_t rest = (size_t)(hop + len - f), n = 0;
        while (n < rest && f[n] != ';')
            n++;
        hop = f;
        len = n;
        if (len >= 2 && hop[0] == '"' && hop[len - 1] == '"')
            hop++, len -= 2;
    }
    if (!len || len >= sizeof text)
        return false;
    memcpy(text, hop, len);
    text[len] = 0;
    char *a = text;
    if (*a == '[') { /* [v6] or [v6]:port */
        char *close = strchr(a, ']');
        if (!close)
            return false;
        *close = 0;
        a++;
    } else if (strchr(a, ':') && strchr(a, ':') == strrchr(a, ':') && strchr(a, '.')) {
        *strchr(a, ':') = 0; /* v4:port */
    }
    uint8_t bytes[16];
    size_t n = strlen(a);
    if (!parse_address(a, bytes) || n >= size)
        return false;
    memcpy(out, a, n + 1);
    return true;
}

void proxy_client(const ProxyList *list, const char *peer, const char *forwarded, const char *xff, char *out,
                  size_t size)
{
    snprintf(out, size, "%s", peer ? peer : "?");
    if (!proxy_trusted(list, peer))
        return;
    bool use_forwarded = forwarded && *forwarded;
    const char *chain = use_forwarded ? forwarded : xff;
    if (!chain)
        return;
    /* Walk the hops from the right: each trusted one passes the question to the one before it. */
    const char *end = chain + strlen(chain);
    while (end > chain) {
        const char *start = end;
        while (start > chain && start[-1] != ',')
            start--;
        char hop[64];
        if (!hop_address(start, (size_t)(end - start), use_forwarded, hop, sizeof hop))
            return; /* not an address: the last trusted hop is the client */
        snprintf(out, size, "%s", hop);
        if (!proxy_trusted(list, hop))
            return;
        end = start > chain ? start - 1 : chain;
    }
}

static ProxyList Current;
void proxy_set(const ProxyList *list) { Current = *list; }
const ProxyList *proxy_list(void) { return &Current; }
