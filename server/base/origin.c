/* Origins and hosts: see origin.h. */
#include "origin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const ServerConfig *Cfg;
static int HttpPort;

void origin_init(const ServerConfig *cfg, int http_port)
{
    Cfg = cfg;
    HttpPort = http_port;
}

/* Splits "name[:port]" or "[v6][:port]" into the name (brackets kept) and the port (0: none). */
static bool split_host(const char *host, char *name, size_t size, int *port)
{
    const char *colon = host[0] == '[' ? strstr(host, "]:") : strrchr(host, ':');
    if (colon && host[0] == '[')
        colon++;
    size_t n = colon ? (size_t)(colon - host) : strlen(host);
    if (!n || n >= size)
        return false;
    memcpy(name, host, n);
    name[n] = 0;
    *port = 0;
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (*end || p < 1 || p > 65535)
            return false;
        *port = (int)p;
    }
    return true;
}

/* Whether `name` is an item of a comma-separated list (case-insensitive, spaces ignored). */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ')
            p++;
        const char *end = p;
        while (*end && *end != ',' && *end != ' ')
            end++;
        if ((size_t)(end - p) == n && !strncasecmp(p, name, n))
            return true;
        p = end;
    }
    return false;
}

bool origin_host_allowed(const char *host)
{
    char name[256];
    int port;
    if (!host || !split_host(host, name, sizeof name, &port))
        return false;
    if (!strcasecmp(name, "localhost") || !strcmp(name, "127.0.0.1") || !strcmp(name, "[::1]"))
        return true;
    if (strcmp(Cfg->bind, "0.0.0.0") && !strcmp(name, Cfg->bind))
        return true;
    return in_list(Cfg->allowed_hosts, "*") || in_list(Cfg->allowed_hosts, name);
}

bool origin_is_listed(const char *origin) { return origin && *origin && in_list(Cfg->allowed_origins, origin); }

bool origin_allowed(const char *origin, const char *host)
{
    if (origin_is_listed(origin))
        return true;
    /* "http://name[:port]" (https too, behind a proxy); "null" and anything else is foreign. */
    const char *rest = !strncasecmp(origin, "http://", 7)    ? origin + 7
                       : !strncasecmp(origin, "https://", 8) ? origin + 8
                                                             : NULL;
    char oname[256], hname[256];
    int oport, hport;
    if (!rest || !host || !split_host(rest, oname, sizeof oname, &oport) ||
        !split_host(host, hname, sizeof hname, &hport))
        return false;
    if (!oport)
        oport = origin[4] == 's' || origin[4] == 'S' ? 443 : 80;
    if (!hport)
        hport = oport; /* a Host without a port is the scheme's default, as the Origin's */
    if (strcasecmp(oname, hname))
        return false;
    return oport == hport || oport == HttpPort;
}
