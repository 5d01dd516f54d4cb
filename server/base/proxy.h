/* Trusted proxies (--trusted-proxies CIDR[,CIDR...]): who a request really comes from. From a peer
 * in the list, the client is the right-most address of the forwarding chain (RFC 7239 `Forwarded:
 * for=`, else `X-Forwarded-For`) that is not itself a trusted proxy, as nginx's real_ip module with
 * `real_ip_recursive on`; from any other peer those headers are ignored and the client is the peer.
 * Quotas, owners, the fair queue, logs and metrics all use the client this gives. */
#ifndef FEELFISH_PROXY_H
#define FEELFISH_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROXY_LIST_MAX 32

typedef struct {
    uint8_t addr[16]; /* IPv4 as its IPv4-mapped IPv6 address */
    int bits;         /* prefix length over the 128 bits */
} ProxyCidr;

typedef struct {
    ProxyCidr cidr[PROXY_LIST_MAX];
    int count;
} ProxyList;

/* "10.0.0.0/8, 172.16.0.1, ::1, fd00::/8": false with the entry that is not an address or a CIDR. An
 * empty text is an empty list (no proxy trusted). */
bool proxy_parse(const char *text, ProxyList *out, char *err, size_t err_size);
/* Whether addr (text, IPv4 or IPv6) is in the list. */
bool proxy_trusted(const ProxyList *list, const char *addr);
/* The client behind peer: peer itself unless it is trusted; then the right-most untrusted address of
 * `forwarded` (the Forwarded header, may be NULL) or, without one, `xff` (X-Forwarded-For, may be
 * NULL). An entry that is not an address ends the walk at the last trusted hop. */
void proxy_client(const ProxyList *list, const char *peer, const char *forwarded, const char *xff, char *out,
                  size_t size);

/* The origin a request reached a trusted proxy at, as the proxy tells: the scheme from the first
 * element's `proto=` of `forwarded` (RFC 7239) or else X-Forwarded-Proto (the left-most entry: what
 * the proxy facing the client saw), the host from `host=` or else X-Forwarded-Host, else `host` (the
 * Host header, which nginx passes on). Any argument may be NULL. *tls: https. False when the scheme
 * is neither http nor https or the host is not a plain host[:port]. */
bool proxy_public_origin(const char *forwarded, const char *xf_proto, const char *xf_host, const char *host,
                         bool *tls, char *out, size_t size);

/* The server's list (set once at start, before any request). */
void proxy_set(const ProxyList *list);
const ProxyList *proxy_list(void);

#endif
