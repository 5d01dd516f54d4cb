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

/* The value of `key=` (e.g. "for=") among one Forwarded element's ;-separated pairs, unquoted: false
 * when the element has none. */
static bool forwarded_param(const char *hop, size_t len, const char *key, const char **value, size_t *value_len)
{
    size_t k = strlen(key);
    const char *f = NULL;
    for (size_t i = 0; i + k <= len; i++)
        if ((i == 0 || hop[i - 1] == ';' || isspace((unsigned char)hop[i - 1])) && !strncasecmp(hop + i, key, k)) {
            f = hop + i + k;
            break;
        }
    if (!f)
        return false;
    size_t rest = (size_t)(hop + len - f), n = 0;
    while (n < rest && f[n] != ';')
        n++;
    while (n && isspace((unsigned char)f[n - 1]))
        n--;
    if (n >= 2 && f[0] == '"' && f[n - 1] == '"')
        f++, n -= 2;
    *value = f;
    *value_len = n;
    return true;
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
    if (forwarded && !forwarded_param(hop, len, "for=", &hop, &len))
        return false;
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

/* The first entry of a comma-separated list, trimmed: [*start, *start + *len). */
static void first_entry(const char *list, const char **start, size_t *len)
{
    while (isspace((unsigned char)*list))
        list++;
    size_t n = strcspn(list, ",");
    while (n && isspace((unsigned char)list[n - 1]))
        n--;
    *start = list;
    *len = n;
}

/* A host as a URL may carry it: a name or address, an optional port, an IPv6 literal in brackets. */
static bool host_sane(const char *h, size_t n)
{
    if (!n || n > 255)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)h[i]) && !strchr(".-:[]_", h[i]))
            return false;
    return true;
}

bool proxy_public_origin(const char *forwarded, const char *xf_proto, const char *xf_host, const char *host,
                         bool *tls, char *out, size_t size)
{
    const char *proto = NULL, *name = NULL, *first;
    size_t proto_len = 0, name_len = 0, first_len;
    if (forwarded && *forwarded) {
        first_entry(forwarded, &first, &first_len);
        forwarded_param(first, first_len, "proto=", &proto, &proto_len);
        forwarded_param(first, first_len, "host=", &name, &name_len);
    }
    if (!proto && xf_proto && *xf_proto)
        first_entry(xf_proto, &proto, &proto_len);
    if (!name && xf_host && *xf_host)
        first_entry(xf_host, &name, &name_len);
    if (!name && host)
        first_entry(host, &name, &name_len);
    *tls = proto && proto_len == 5 && !strncasecmp(proto, "https", 5);
    if ((proto && !*tls && !(proto_len == 4 && !strncasecmp(proto, "http", 4))) || !name || !host_sane(name, name_len) ||
        name_len >= size)
        return false;
    memcpy(out, name, name_len);
    out[name_len] = 0;
    return true;
}

static ProxyList Current;
void proxy_set(const ProxyList *list) { Current = *list; }
const ProxyList *proxy_list(void) { return &Current; }
