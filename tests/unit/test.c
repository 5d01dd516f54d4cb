/* The unit-test harness both unit binaries share (build/unit, build/unit-server): running a test,
 * failing it, the suite filter, the summary line, and helpers for the engine's suites. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>

#include "test.h"

int test_failed_flag;
static int passed, failed;
static const char *current_mode = "";

void test_set_mode(const char *mode) { current_mode = mode; }

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

/* The colour-flipped mirror of a FEN: ranks reversed, case swapped, side, castling and en
 * passant flipped. */
void test_mirror_fen(const char *fen, char *out)
{
    char board[100], side[4], castle[8], ep[4];
    int half = 0, full = 1;
    sscanf(fen, "%99s %3s %7s %3s %d %d", board, side, castle, ep, &half, &full);
    char *ranks[8];
    int n = 0;
    for (char *save, *r = strtok_r(board, "/", &save); r && n < 8; r = strtok_r(NULL, "/", &save))
        ranks[n++] = r;
    out[0] = 0;
    for (int i = n - 1; i >= 0; i--) {
        for (char *c = ranks[i]; *c; c++)
            *c = (char)(isupper((unsigned char)*c) ? tolower((unsigned char)*c) : toupper((unsigned char)*c));
        strcat(out, ranks[i]);
        if (i)
            strcat(out, "/");
    }
    char flipped_castle[8] = "";
    if (strcmp(castle, "-")) {
        const char *order = "KQkq";
        for (int i = 0; i < 4; i++) {
            char want = (char)(isupper((unsigned char)order[i]) ? tolower((unsigned char)order[i])
                                                                : toupper((unsigned char)order[i]));
            if (strchr(castle, want)) {
                size_t l = strlen(flipped_castle);
                flipped_castle[l] = order[i];
                flipped_castle[l + 1] = 0;
            }
        }
    } else
        strcpy(flipped_castle, "-");
    char flipped_ep[4] = "-";
    if (strcmp(ep, "-"))
        snprintf(flipped_ep, sizeof flipped_ep, "%c%c", ep[0], ep[1] == '3' ? '6' : '3');
    sprintf(out + strlen(out), " %s %s %s %d %d", side[0] == 'w' ? "b" : "w", flipped_castle, flipped_ep, half, full);
}

int test_read_fens(const char *relative, char fens[][128], int max)
{
    FILE *f = fopen(test_data_path(relative), "r");
    if (!f)
        return 0;
    char line[4096];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        char a[100], b[8], c[8], d[8];
        if (sscanf(line, "%99s %7s %7s %7s", a, b, c, d) == 4)
            snprintf(fens[n++], 128, "%s %s %s %s", a, b, c, d);
    }
    fclose(f);
    return n;
}

/* FEELFISH_SUITES="search rules" runs only those suites (the ThreadSanitizer build runs the
 * threaded ones); unset, everything runs. */
bool test_wanted(const char *suite)
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

int test_summary(const char *binary)
{
    printf("%s: %d passed, %d failed\n", binary, passed, failed);
    return failed ? 1 : 0;
}
