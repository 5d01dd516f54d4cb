/* Who may use the server from a browser, and which names it answers to. A page of another origin
 * must not make a visitor's browser search, read or write here (cross-site requests), and a
 * hostile DNS name pointed at 127.0.0.1 must not reach it (DNS rebinding): requests whose Host is
 * not an allowed name, and browser requests from an origin that is neither the page's own nor in
 * --allowed-origins, are refused. Clients that are not browsers send no Origin and are unaffected. */
#ifndef FEELFISH_ORIGIN_H
#define FEELFISH_ORIGIN_H

#include <stdbool.h>

#include "config.h"

void origin_init(const ServerConfig *cfg, int http_port);
/* The Host header names this server: localhost, 127.0.0.1, [::1], the --bind address, or one of
 * --allowed-hosts (any port). */
bool origin_host_allowed(const char *host);
/* The Origin of a browser request is allowed: the same origin as the request's Host (what a
 * reverse proxy preserves), the page this server serves on its HTTP port (for its WebSocket
 * port), or one of --allowed-origins. */
bool origin_allowed(const char *origin, const char *host);
/* The origin is a configured other origin (it gets CORS headers). */
bool origin_is_listed(const char *origin);

#endif
