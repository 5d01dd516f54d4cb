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

int main(void)
{
    engine_init("magic");
    current_mode = " [magic]";
    suite_movegen();
    engine_init("pext");
    if (AttacksUsePext) {
        current_mode = " [pext]";
        suite_movegen();
    }
    current_mode = "";
    engine_init(NULL);
    suite_fen();
    suite_notation();
    suite_rules();
    suite_pgn();
    suite_fuzz();
    suite_search();
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
