/* `feelfish perft FEN DEPTH [--divide]` and `feelfish perft --suite FILE [--max-nodes N]`: the
 * move generator checked against known leaf counts, and timed. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/movegen.h"
#include "../notation/fen.h"
#include "../notation/move.h"
#include "../search/perft.h"
#include "tools.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_int(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static Position *position_new(void)
{
    Position *p = malloc(sizeof *p);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static int perft_one(const char *fen, int depth, bool divide, FILE *out)
{
    Position *p = position_new();
    char msg[200];
    FenError e = fen_read(p, fen, msg, sizeof msg);
    if (e != FEN_OK) {
        fprintf(stderr, "perft: bad FEN (%s): %s\n", fen_error_code(e), msg);
        free(p);
        return 2;
    }
    double t0 = now_seconds();
    uint64_t total = 0;
    if (divide && depth >= 1) {
        MoveList list;
        movegen_legal(p, &list, GEN_ALL);
        for (int i = 0; i < list.count; i++) {
            char buf[MOVE_STRING_SIZE];
            position_make_move(p, list.moves[i]);
            uint64_t n = perft(p, depth - 1);
            position_unmake_move(p);
            fprintf(out, "%s: %" PRIu64 "\n", move_to_uci(list.moves[i], buf), n);
            total += n;
        }
        fprintf(out, "\n");
    } else
        total = perft(p, depth);
    double dt = now_seconds() - t0;
    fprintf(stderr, "time %.3f s, %.0f nodes/s\n", dt, dt > 0 ? (double)total / dt : 0.0);
    fprintf(out, "Nodes searched: %" PRIu64 "\n", total);
    free(p);
    return 0;
}

/* Runs every ";Dn count" of every line whose count is at most max_nodes. A line that cannot run
 * (bad FEN, no counts) counts as failed, so a broken file can never pass. */
static int perft_suite(const char *path, uint64_t max_nodes, FILE *out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "perft: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    Position *p = position_new();
    char line[4096];
    int positions = 0, matched = 0, lineno = 0;
    uint64_t nodes = 0;
    double t0 = now_seconds();
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[strspn(line, " \t")] || line[0] == '#')
            continue;
        positions++;
        char *semi = strchr(line, ';');
        if (!semi) {
            fprintf(out, "line %d: no ;Dn counts\n", lineno);
            continue;
        }
        *semi = 0;
        char msg[200];
        FenError e = fen_read(p, line, msg, sizeof msg);
        if (e != FEN_OK) {
            fprintf(out, "line %d: bad FEN (%s): %s\n", lineno, fen_error_code(e), msg);
            continue;
        }
        bool ok = true;
        int ran = 0;
        for (char *tok = strtok(semi + 1, ";"); tok; tok = strtok(NULL, ";")) {
            int depth;
            unsigned long long expected;
            if (sscanf(tok, " D%d %llu", &depth, &expected) != 2)
                continue;
            if (expected > max_nodes || depth < 1 || depth > 20)
                continue;
            uint64_t got = perft(p, depth);
            nodes += got;
            ran++;
            if (got != expected) {
                fprintf(out, "line %d: depth %d: expected %llu, got %" PRIu64 "  %s\n", lineno, depth, expected, got,
                        line);
                ok = false;
            }
        }
        if (ran == 0) {
            fprintf(out, "line %d: no depth ran (all counts above --max-nodes?)\n", lineno);
            ok = false;
        }
        matched += ok;
    }
    fclose(f);
    free(p);
    double dt = now_seconds() - t0;
    fprintf(out, "%" PRIu64 " nodes in %.3f s, %.0f nodes/s\n", nodes, dt, dt > 0 ? (double)nodes / dt : 0.0);
    fprintf(out, "perft: %d/%d positions match\n", matched, positions);
    return (positions > 0 && matched == positions) ? 0 : 1;
}

int perft_command(int argc, char **argv, FILE *out)
{
    const char *suite = NULL, *fen = NULL;
    long depth = -1, max_nodes = -1;
    bool divide = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--divide"))
            divide = true;
        else if (!strcmp(argv[i], "--suite") && i + 1 < argc)
            suite = argv[++i];
        else if (!strcmp(argv[i], "--max-nodes") && i + 1 < argc) {
            if (parse_int(argv[++i], 1, 1L << 62, &max_nodes)) {
                fprintf(stderr, "perft: --max-nodes takes a positive number\n");
                return 2;
            }
        } else if (!fen && !suite)
            fen = argv[i];
        else if (depth < 0) {
            if (parse_int(argv[i], 0, 20, &depth)) {
                fprintf(stderr, "perft: DEPTH must be a number from 0 to 20, not '%s'\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "perft: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (suite)
        return perft_suite(suite, max_nodes > 0 ? (uint64_t)max_nodes : UINT64_MAX, out);
    if (!fen || depth < 0) {
        fprintf(stderr, "usage: feelfish perft FEN DEPTH [--divide]\n"
                        "       feelfish perft --suite FILE.epd [--max-nodes N]\n"
                        "FEN may be 'startpos'.\n");
        return 2;
    }
    if (!strcmp(fen, "startpos"))
        fen = FEN_STARTPOS;
    return perft_one(fen, (int)depth, divide, out);
}
