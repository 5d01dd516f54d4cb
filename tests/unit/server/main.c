/* The server's unit tests (build/unit-server): every suite, no sockets, no database. FEELFISH_SUITES
 * picks suites as in build/unit. */
#include "../../../engine/engine.h"
#include "../../../server/base/log.h"
#include "server_test.h"

int main(void)
{
    engine_init(NULL);
    log_set_level("error"); /* the job-timeout test makes the backend warn */
    static const struct {
        const char *name;
        void (*run)(void);
    } Suites[] = {
        {"routes", suite_routes},
        {"request", suite_request},
        {"jobs", suite_jobs},
        {"games", suite_games},
        {"bot", suite_bot},
        {"proxy", suite_proxy},
        {"utf8", suite_utf8},
    };
    for (size_t i = 0; i < sizeof Suites / sizeof Suites[0]; i++)
        if (test_wanted(Suites[i].name))
            Suites[i].run();
    return test_summary("server-unit");
}
