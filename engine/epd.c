/* EPD test suites: each line is a position (four FEN fields) and operations such as
 * `bm Qg6; am Kd1; id "WAC.001";` with moves in SAN. A position is solved when the engine's
 * move after the time given is one of the best moves and none of the avoid moves. */
#include "epd.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fen.h"
#include "move.h"
#include "san.h"
#include "search.h"

static bool parse_moves(const Position *p, char *list, Move *out, int *count, char *msg, size_t size)
{
    *count = 0;
    for (char *save, *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        Move m = san_read(p, t);
        if (!m)
            m = move_from_uci(p, t);
        if (!m) {
            snprintf(msg, size, "'%s' is not a legal move here", t);
            return false;
        }
        if (*count < EPD_MAX_MOVES)
            out[(*count)++] = m;
    }
    return true;
}

bool epd_parse(const char *line, EpdEntry *e, Position *p, char *msg, size_t msg_size)
{
    memset(e, 0, sizeof *e);
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", line);
    buf[strcspn(buf, "\r\n")] = 0;
    /* The first four fields are the position. */
    char *c = buf;
    for (int f = 0; f < 4; f++) {
        while (*c == ' ')
            c++;
        while (*c && *c != ' ')
            c++;
    }
    size_t fen_len = (size_t)(c - buf);
    if (fen_len >= sizeof e->fen) {
        snprintf(msg, msg_size, "position too long");
        return false;
    }
    memcpy(e->fen, buf, fen_len);
    e->fen[fen_len] = 0;
    FenError err = fen_read(p, e->fen, msg, msg_size);
    if (err != FEN_OK)
        return false;
    /* Operations: opcode operands ';' */
    for (char *save, *op = strtok_r(c, ";", &save); op; op = strtok_r(NULL, ";", &save)) {
        while (isspace((unsigned char)*op))
            op++;
        char *args = op;
        while (*args && !isspace((unsigned char)*args))
            args++;
        if (*args)
            *args++ = 0;
        while (isspace((unsigned char)*args))
            args++;
        if (!strcmp(op, "bm")) {
            snprintf(e->bm_text, sizeof e->bm_text, "%s", args);
            if (!parse_moves(p, args, e->bm, &e->bm_count, msg, msg_size))
                return false;
        } else if (!strcmp(op, "am")) {
            snprintf(e->am_text, sizeof e->am_text, "%s", args);
            if (!parse_moves(p, args, e->am, &e->am_count, msg, msg_size))
                return false;
        } else if (!strcmp(op, "id")) {
            char *q = args;
            if (*q == '"')
                q++;
            snprintf(e->id, sizeof e->id, "%s", q);
            char *end = strchr(e->id, '"');
            if (end)
                *end = 0;
        }
    }
    return true;
}

static bool contains(const Move *list, int n, Move m)
{
    for (int i = 0; i < n; i++)
        if (list[i] == m)
            return true;
    return false;
}

int epd_command(int argc, char **argv, FILE *out)
{
    const char *path = NULL;
    long movetime = 1000, threads = 1, hash = 64;
    for (int i = 0; i < argc; i++) {
        long *target = !strcmp(argv[i], "--movetime") ? &movetime
                       : !strcmp(argv[i], "--threads") ? &threads
                       : !strcmp(argv[i], "--hash")    ? &hash
                                                       : NULL;
        if (target) {
            char *end;
            errno = 0;
            if (i + 1 >= argc || (*target = strtol(argv[i + 1], &end, 10), errno || *end || *target < 1)) {
                fprintf(stderr, "epd: %s needs a positive number\n", argv[i]);
                return 2;
            }
            i++;
        } else if (!path && argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "epd: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: feelfish epd FILE.epd [--movetime MS] [--threads N] [--hash MB]\n");
        return 2;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "epd: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    Search *s = search_new();
    Position *p = malloc(sizeof *p);
    if (!s || !p || !search_set_threads(s, (int)threads) || !search_set_hash(s, (size_t)hash)) {
        fprintf(stderr, "epd: cannot set up the search (memory or threads)\n");
        return 1;
    }
    Evaluator eval;
    evaluator_classical(&eval);
    char line[4096];
    int total = 0, solved = 0, lineno = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!line[strspn(line, " \t\r\n")])
            continue;
        EpdEntry e;
        char msg[200];
        if (!epd_parse(line, &e, p, msg, sizeof msg)) {
            fprintf(out, "line %d: skipped: %s\n", lineno, msg);
            bad++;
            continue;
        }
        if (!e.bm_count && !e.am_count)
            continue;
        total++;
        SearchLimits l;
        search_limits_init(&l);
        l.movetime = movetime;
        SearchResult r;
        search_clear(s);
        search_run(s, p, &l, &eval, NULL, &r);
        bool ok = (!e.bm_count || contains(e.bm, e.bm_count, r.best)) && !contains(e.am, e.am_count, r.best);
        solved += ok;
        if (!ok) {
            char san[SAN_STRING_SIZE];
            san_write(p, r.best, san);
            fprintf(out, "miss %s: %s%s%s%s, played %s (depth %d, score %d)\n", e.id[0] ? e.id : "?",
                    e.bm_count ? "bm " : "", e.bm_text, e.am_count ? " am " : "", e.am_text, san, r.depth, r.score);
        }
        fflush(out);
    }
    fclose(f);
    search_free(s);
    free(p);
    if (bad)
        fprintf(out, "%d lines could not be read\n", bad);
    fprintf(out, "solved %d/%d\n", solved, total);
    return 0;
}
