/* Runs every unit suite, under each attack-table implementation the CPU offers. */
#include <stdarg.h>
#include <stdlib.h>

#include "../../engine/engine.h"
#include "test.h"

int test_failed_flag;
static int passed, failed;
static const char *current_mode = "";

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("    %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    test_failed_flag = 1;
}

void test_run(const char *name, void (*fn)(void))
{
    test_failed_flag = 0;
    fn();
    if (test_failed_flag) {
        failed++;
        printf("FAIL %s%s\n", name, current_mode);
    } else {
        passed++;
        printf("ok   %s%s\n", name, current_mode);
    }
    fflush(stdout);
}

const char *test_data_path(const char *relative)
{
    static char buf[4096];
    const char *root = getenv("FEELFISH_DATA");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : "../shared/data", relative);
    return buf;
}

unsigned long long test_rand(void)
{
    static unsigned long long s = 0x853C49E6748FEA9BULL;
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
}

/* FEELFISH_SUITES="search rules" runs only those suites (the ThreadSanitizer build runs the
 * threaded ones); unset, everything runs. */
static bool wanted(const char *suite)
{
    const char *only = getenv("FEELFISH_SUITES");
    if (!only || !*only)
        return true;
    size_t n = strlen(suite);
    for (const char *at = strstr(only, suite); at; at = strstr(at + 1, suite))
        if ((at == only || at[-1] == ' ') && (at[n] == 0 || at[n] == ' '))
            return true;
    return false;
}

int main(void)
{
    engine_init("magic");
    current_mode = " [magic]";
    if (wanted("movegen"))
        suite_movegen();
    engine_init("pext");
    if (AttacksUsePext && wanted("movegen")) {
        current_mode = " [pext]";
        suite_movegen();
    }
    current_mode = "";
    engine_init(NULL);
    static const struct {
        const char *name;
        void (*run)(void);
    } Suites[] = {{"fen", suite_fen},   {"notation", suite_notation}, {"rules", suite_rules},        {"pgn", suite_pgn},
                  {"fuzz", suite_fuzz}, {"search", suite_search},     {"affective", suite_affective}};
    for (size_t i = 0; i < sizeof Suites / sizeof Suites[0]; i++)
        if (wanted(Suites[i].name))
            Suites[i].run();
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
