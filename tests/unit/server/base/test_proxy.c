/* Trusted proxies (server/base/proxy.h): which lists parse, and who a request comes from for every
 * shape of forwarding chain a proxy or a forger can send. */
#include <string.h>

#include "../../../../server/base/proxy.h"
#include "../server_test.h"

static void test_parse(void)
{
    ProxyList l;
    char err[200];
    CHECK(proxy_parse("", &l, err, sizeof err) && l.count == 0);
    CHECK(proxy_parse(" 10.0.0.0/8, 172.16.0.1 ,::1,fd00::/8", &l, err, sizeof err) && l.count == 4);
    CHECK(proxy_trusted(&l, "10.200.3.4") && proxy_trusted(&l, "172.16.0.1") && !proxy_trusted(&l, "172.16.0.2"));
    CHECK(proxy_trusted(&l, "::1") && proxy_trusted(&l, "fd12:3456::1") && !proxy_trusted(&l, "fe80::1"));
    CHECK(!proxy_trusted(&l, "11.0.0.1") && !proxy_trusted(&l, "not an address") && !proxy_trusted(&l, NULL));
    CHECK(proxy_parse("0.0.0.0/0", &l, err, sizeof err) && proxy_trusted(&l, "8.8.8.8") && !proxy_trusted(&l, "2001:db8::1"));
    const char *bad[] = {"10.0.0.0/33", "10.0.0/8", "example.com", "10.0.0.0/", "10.0.0.0/x", "::1/129", "1.2.3.4/-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(!proxy_parse(bad[i], &l, err, sizeof err) && strstr(err, "is not an address or a CIDR"), "%s: %s",
                  bad[i], err);
}

static void test_client(void)
{
    ProxyList l;
    char err[200], out[64];
    proxy_parse("127.0.0.1, 10.0.0.0/8", &l, err, sizeof err);
    struct {
        const char *peer, *forwarded, *xff, *client;
    } cases[] = {
        {"203.0.113.9", NULL, "1.2.3.4", "203.0.113.9"},                  /* untrusted peer: headers ignored */
        {"203.0.113.9", "for=1.2.3.4", NULL, "203.0.113.9"},
        {"127.0.0.1", NULL, NULL, "127.0.0.1"},                          /* trusted, no header: the proxy */
        {"127.0.0.1", NULL, "198.51.100.7", "198.51.100.7"},
        {"127.0.0.1", NULL, "6.6.6.6, 198.51.100.7", "198.51.100.7"},     /* a forged left part is skipped */
        {"127.0.0.1", NULL, "6.6.6.6, 198.51.100.7, 10.1.2.3", "198.51.100.7"}, /* through two proxies */
        {"127.0.0.1", NULL, "10.9.9.9, 10.1.2.3", "10.9.9.9"},           /* all trusted: the left-most */
        {"127.0.0.1", NULL, "garbage, 198.51.100.7", "198.51.100.7"},
        {"127.0.0.1", NULL, "198.51.100.7, garbage", "127.0.0.1"},        /* no address: the last trusted hop */
        {"127.0.0.1", NULL, " 2001:db8::5 ", "2001:db8::5"},
        {"127.0.0.1", NULL, "198.51.100.7:4711", "198.51.100.7"},
        {"127.0.0.1", NULL, "[2001:db8::5]:4711", "2001:db8::5"},
        {"127.0.0.1", "for=192.0.2.60;proto=http;by=203.0.113.43", "6.6.6.6", "192.0.2.60"}, /* Forwarded wins */
        {"127.0.0.1", "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\"", NULL, "2001:db8:cafe::17"},
        {"127.0.0.1", "for=unknown", NULL, "127.0.0.1"},
        {"127.0.0.1", "For=\"_hidden\", for=192.0.2.43", NULL, "192.0.2.43"},
        {"127.0.0.1", "proto=https;for=192.0.2.43", NULL, "192.0.2.43"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        proxy_client(&l, cases[i].peer, cases[i].forwarded, cases[i].xff, out, sizeof out);
        CHECK_MSG(!strcmp(out, cases[i].client), "case %zu: %s, want %s", i, out, cases[i].client);
    }
}

static void test_public_origin(void)
{
    struct {
        const char *forwarded, *proto, *xhost, *host;
        bool ok, tls;
        const char *origin;
    } cases[] = {
        {NULL, "https", NULL, "chess.example.org", true, true, "chess.example.org"},
        {NULL, "http", NULL, "127.0.0.1:8443", true, false, "127.0.0.1:8443"},
        {NULL, NULL, NULL, "127.0.0.1:80", true, false, "127.0.0.1:80"},             /* no proto: http */
        {NULL, "HTTPS, http", "a.example:444, b", "h", true, true, "a.example:444"}, /* the left-most */
        {"for=1.2.3.4;proto=https;host=\"x.example\"", "http", "y", "h", true, true, "x.example"}, /* Forwarded wins */
        {"for=1.2.3.4", "https", NULL, "[2001:db8::1]:8443", true, true, "[2001:db8::1]:8443"},
        {NULL, "gopher", NULL, "h", false, false, ""},
        {NULL, "https", "evil.example/path", "h", false, true, ""},
        {NULL, "https", NULL, "a b", false, true, ""},
        {NULL, "https", NULL, NULL, false, true, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256] = "";
        bool tls = false;
        bool ok = proxy_public_origin(cases[i].forwarded, cases[i].proto, cases[i].xhost, cases[i].host, &tls, out,
                                      sizeof out);
        CHECK_MSG(ok == cases[i].ok && (!ok || (tls == cases[i].tls && !strcmp(out, cases[i].origin))),
                  "case %zu: %d %d '%s'", i, ok, tls, out);
    }
}

void suite_proxy(void)
{
    RUN(test_parse);
    RUN(test_client);
    RUN(test_public_origin);
}
