/* EPD test suites: each line is a position (four FEN fields) and operations such as
 * `bm Qg6; am Kd1; id "WAC.001";` with moves in SAN. A position is solved when the engine's
 * move after the time given is one of the best moves and none of the avoid moves. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../notation/fen.h"
#include "match/match_config.h"
#include "match/match_engine.h"
#include "../notation/move.h"
#include "../core/movegen.h"
#include "../notation/san.h"
#include "../search/search.h"
#include "tools.h"

#define EPD_MAX_MOVES MAX_MOVES /* a list may name every legal move */

typedef struct {
    char fen[128];
    char id[64];
    Move bm[EPD_MAX_MOVES], am[EPD_MAX_MOVES];
    int bm_count, am_count;
    char bm_text[96], am_text[96]; /* as written in the file */
} EpdEntry;

/* Test suites sometimes write ambiguous SAN ("Ne5" with two knights able to go there): such a token
 * names every legal move of that piece type to that square (and promotion). */
static int ambiguous_moves(const Position *p, const char *t, Move *out, int room)
{
    char tok[16];
    snprintf(tok, sizeof tok, "%s", t);
    size_t n = strlen(tok);
    while (n && strchr("+#!?", tok[n - 1]))
        tok[--n] = 0;
    PieceType promo = 0;
    if (n >= 2 && strchr("NBRQ", tok[n - 1])) {
        promo = KNIGHT + (PieceType)(strchr("NBRQ", tok[n - 1]) - "NBRQ");
        tok[--n] = 0;
        if (n && tok[n - 1] == '=')
            tok[--n] = 0;
    }
    if (n < 2 || tok[n - 2] < 'a' || tok[n - 2] > 'h' || tok[n - 1] < '1' || tok[n - 1] > '8')
        return 0;
    Square to = square_make(tok[n - 2] - 'a', tok[n - 1] - '1');
    const char *letter = strchr("NBRQK", tok[0]);
    PieceType pt = tok[0] && letter ? KNIGHT + (PieceType)(letter - "NBRQK") : PAWN;
    MoveList l;
    movegen_legal(p, &l, GEN_ALL);
    int found = 0;
    for (int i = 0; i < l.count && found < room; i++) {
        Move m = l.moves[i];
        if (move_to(m) == to && piece_type(p->board[move_from(m)]) == pt && move_kind(m) != MOVE_CASTLING &&
            (move_kind(m) == MOVE_PROMOTION ? move_promo(m) == promo : !promo))
            out[found++] = m;
    }
    return found;
}

static bool parse_moves(const Position *p, char *list, Move *out, int *count, char *msg, size_t size)
{
    *count = 0;
    for (char *save, *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (!strcmp(t, "+") || !strcmp(t, "#"))
            continue; /* a check sign written apart from its move ("Qd1 +") */
        Move m = san_read(p, t);
        if (!m)
            m = move_from_uci(p, t);
        if (m) {
            if (*count < EPD_MAX_MOVES)
                out[(*count)++] = m;
            continue;
        }
        int n = ambiguous_moves(p, t, out + *count, EPD_MAX_MOVES - *count);
        if (!n) {
            snprintf(msg, size, "'%s' is not a legal move here", t);
            return false;
        }
        *count += n;
    }
    return true;
}

/* Parses one EPD line into e (and p, set to its position). Returns false with msg on a bad line. */
static bool epd_parse(const char *line, EpdEntry *e, Position *p, char *msg, size_t msg_size)
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

/* One position on an external UCI engine: new game, position, go movetime, read bestmove. */
static Move external_best(MatchEngine *e, const char *fen, const Position *p, long movetime, int *depth)
{
    char line[MATCH_LINE_MAX];
    *depth = 0;
    if (!match_engine_send(e, "ucinewgame") || !match_engine_sync(e, 10000, line, sizeof line) ||
        !match_engine_send(e, "position fen %s", fen) || !match_engine_send(e, "go movetime %ld", movetime))
        return MOVE_NONE;
    int64_t deadline = match_now_ns() + (int64_t)(movetime + 5000) * 1000000;
    for (;;) {
        if (match_engine_read_line(e, line, sizeof line, deadline) != MATCH_READ_LINE)
            return MOVE_NONE;
        const char *d = strstr(line, " depth ");
        if (!strncmp(line, "info ", 5) && d)
            *depth = atoi(d + 7);
        if (!strncmp(line, "bestmove ", 9)) {
            char mv[16] = "";
            sscanf(line + 9, "%15s", mv);
            return move_from_uci(p, mv);
        }
    }
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
    const char *path = NULL, *engine_spec = NULL;
    long movetime = 1000, threads = 1, hash = 64;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--engine") && i + 1 < argc) {
            engine_spec = argv[++i];
            continue;
        }
        long *target = !strcmp(argv[i], "--movetime")  ? &movetime
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
        fprintf(stderr, "usage: feelfish epd FILE.epd [--movetime MS] [--threads N] [--hash MB]\n"
                        "                         [--engine cmd=PATH[,option.NAME=VALUE]...]\n");
        return 2;
    }
    /* With --engine the same suite runs on an external UCI engine (e.g. Stockfish, for comparison). */
    MatchEngineConfig ecfg = {0};
    MatchEngine engine = {0};
    char err[256];
    if (engine_spec) {
        if (!match_engine_config_parse(&ecfg, engine_spec, err, sizeof err) ||
            match_engine_start(&engine, &ecfg, 10000, true, NULL, 0, err, sizeof err) != MATCH_STARTED) {
            fprintf(stderr, "epd: %s\n", err);
            match_engine_config_free(&ecfg);
            return 2;
        }
        match_engine_send(&engine, "setoption name Threads value %ld", threads);
        match_engine_send(&engine, "setoption name Hash value %ld", hash);
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
        SearchResult r;
        if (engine_spec) {
            memset(&r, 0, sizeof r);
            r.best = external_best(&engine, e.fen, p, movetime, &r.depth);
            if (!r.best && !match_engine_alive(&engine)) {
                fprintf(stderr, "epd: the engine died\n");
                break;
            }
        } else {
            SearchLimits l;
            search_limits_init(&l);
            l.movetime = movetime;
            search_clear(s);
            search_run(s, p, &l, &eval, NULL, &r);
        }
        bool ok = (!e.bm_count || contains(e.bm, e.bm_count, r.best)) && !contains(e.am, e.am_count, r.best);
        solved += ok;
        if (!ok) {
            char san[SAN_STRING_SIZE] = "(none)";
            if (r.best)
                san_write(p, r.best, san);
            fprintf(out, "miss %s: %s%s%s%s, played %s (depth %d, score %d)\n", e.id[0] ? e.id : "?",
                    e.bm_count ? "bm " : "", e.bm_text, e.am_count ? " am " : "", e.am_text, san, r.depth, r.score);
        }
        fflush(out);
    }
    fclose(f);
    search_free(s);
    free(p);
    if (engine_spec) {
        match_engine_stop(&engine, true);
        match_engine_config_free(&ecfg);
    }
    if (bad)
        fprintf(out, "%d lines could not be read\n", bad);
    fprintf(out, "solved %d/%d\n", solved, total);
    return 0;
}
