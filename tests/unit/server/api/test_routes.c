/* The REST route table's matching (routes_index), on hand-built requests: method and path only. */
#include "../../../../server/api/routes.h"
#include "../server_test.h"

/* A request for method and path; the rest of the struct stays zero (matching reads nothing else). */
static const Request *request(const char *method, const char *path)
{
    static Request r;
    memset(&r, 0, sizeof r);
    snprintf(r.method, sizeof r.method, "%s", method);
    snprintf(r.path, sizeof r.path, "%s", path);
    return &r;
}

/* A route's pattern with each "{id}" replaced by id. */
static void instantiate(const char *pattern, const char *id, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = pattern; *p && n + 1 < size;) {
        if (*p == '{') {
            n += (size_t)snprintf(out + n, size - n, "%s", id);
            p = strchr(p, '}') + 1;
        } else
            out[n++] = *p++;
    }
    out[n < size ? n : size - 1] = 0;
}

static int route_named(const char *method, const char *pattern)
{
    for (int i = 0; i < RouteCount; i++)
        if (!strcmp(Routes[i].method, method) && !strcmp(Routes[i].path, pattern))
            return i;
    return -1;
}

static void test_every_route_matches_itself(void)
{
    CHECK(RouteCount >= 10);
    for (int i = 0; i < RouteCount; i++) {
        char path[256];
        instantiate(Routes[i].path, "0000a1b2c3d4e5f6", path, sizeof path);
        CHECK_MSG(!strchr(path, '{'), "%s", path);
        int got = routes_index(request(Routes[i].method, path));
        CHECK_MSG(got == i, "%s %s: route %d, expected %d", Routes[i].method, path, got, i);
    }
}

static void test_the_table_names_the_api(void)
{
    /* The endpoints the web page and the integration tests use are all there. */
    static const char *const expected[][2] = {
        {"GET", "/api/health"}, {"GET", "/api/config"},       {"POST", "/api/analyse"},
        {"POST", "/api/jobs"},  {"GET", "/api/jobs/{id}"},    {"DELETE", "/api/jobs/{id}"},
        {"POST", "/api/games"}, {"GET", "/api/games/{id}"},   {"POST", "/api/games/{id}/moves"},
        {"GET", "/metrics"},    {"GET", "/api/openapi.json"}, {"GET", "/api/games/{id}/pgn"},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        CHECK_MSG(route_named(expected[i][0], expected[i][1]) >= 0, "no route %s %s", expected[i][0], expected[i][1]);
    /* Each method and pattern once: a second entry would never be reached. */
    for (int i = 0; i < RouteCount; i++)
        CHECK_MSG(route_named(Routes[i].method, Routes[i].path) == i, "%s %s twice", Routes[i].method, Routes[i].path);
}

static void test_wrong_method(void)
{
    static const char *const methods[] = {"GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS", "get"};
    for (int i = 0; i < RouteCount; i++) {
        char path[256];
        instantiate(Routes[i].path, "abc", path, sizeof path);
        for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
            /* HEAD is answered as GET (without the body) */
            int expected = route_named(strcmp(methods[m], "HEAD") ? methods[m] : "GET", Routes[i].path);
            int got = routes_index(request(methods[m], path));
            CHECK_MSG(got == (expected < 0 ? RouteCount : expected), "%s %s: route %d, expected %d", methods[m], path,
                      got, expected < 0 ? RouteCount : expected);
        }
    }
    CHECK_INT(routes_index(request("DELETE", "/api/health")), RouteCount);
    CHECK_INT(routes_index(request("GET", "/api/analyse")), RouteCount);
    CHECK_INT(routes_index(request("POST", "/api/jobs/abc")), RouteCount);
    CHECK_INT(routes_index(request("", "/api/health")), RouteCount);
}

static void test_unknown_paths(void)
{
    static const char *const paths[] = {"",
                                        "/",
                                        "/index.html",
                                        "/api",
                                        "/api/",
                                        "/api/nothing",
                                        "/api/healthz",
                                        "/api/health/",
                                        "/api/healt",
                                        "/API/health",
                                        "api/health",
                                        "/api/games/abc/moves/extra",
                                        "/api/games//moves",
                                        "/metrics/"};
    static const char *const methods[] = {"GET", "POST", "DELETE"};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
        for (size_t m = 0; m < 3; m++)
            CHECK_MSG(routes_index(request(methods[m], paths[p])) == RouteCount, "%s '%s' matched route %d", methods[m],
                      paths[p], routes_index(request(methods[m], paths[p])));
}

/* "{id}" is exactly one non-empty segment. */
static void test_id_is_one_segment(void)
{
    int get = route_named("GET", "/api/jobs/{id}"), del = route_named("DELETE", "/api/jobs/{id}");
    CHECK(get >= 0 && del >= 0);
    CHECK_INT(routes_index(request("GET", "/api/jobs/a")), get);
    CHECK_INT(routes_index(request("DELETE", "/api/jobs/a")), del);
    CHECK_INT(routes_index(request("GET", "/api/jobs/")), RouteCount);
    CHECK_INT(routes_index(request("DELETE", "/api/jobs/")), RouteCount);
    CHECK_INT(routes_index(request("GET", "/api/jobs/a/b")), RouteCount);
    CHECK_INT(routes_index(request("DELETE", "/api/jobs/a/b")), RouteCount);
    CHECK_INT(routes_index(request("GET", "/api/jobs/a/")), RouteCount);
    /* "/api/jobs" itself is the POST route, not the {id} one. */
    CHECK_INT(routes_index(request("GET", "/api/jobs")), RouteCount);
    CHECK_INT(routes_index(request("POST", "/api/jobs")), route_named("POST", "/api/jobs"));
    int moves = route_named("POST", "/api/games/{id}/moves");
    CHECK(moves >= 0);
    CHECK_INT(routes_index(request("POST", "/api/games/g1/moves")), moves);
    CHECK_INT(routes_index(request("POST", "/api/games//moves")), RouteCount);
    CHECK_INT(routes_index(request("POST", "/api/games/g1/g2/moves")), RouteCount);
}

void suite_routes(void)
{
    RUN(test_every_route_matches_itself);
    RUN(test_the_table_names_the_api);
    RUN(test_wrong_method);
    RUN(test_unknown_paths);
    RUN(test_id_is_one_segment);
}
