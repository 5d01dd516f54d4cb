/* `feelfish match --resume`: reading back the games an earlier run of the same match wrote. */
#include "match_resume.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../notation/fen.h"
#include "../../notation/pgn.h"

__attribute__((format(printf, 3, 4))) static bool fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(err, size, "--resume: ");
    vsnprintf(err + n, size - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* The byte offset where line `line` (from 1) starts; -1 on a read error. */
static long line_offset(FILE *f, int line)
{
    rewind(f);
    long at = 0;
    for (int l = 1, ch; l < line && (ch = getc(f)) != EOF; at++)
        l += ch == '\n';
    return ferror(f) ? -1 : at;
}

static bool finished(const PgnGame *g)
{
    const char *result = pgn_tag(g, "Result"), *plies = pgn_tag(g, "PlyCount");
    return result && plies && strcmp(g->result, "*") && !strcmp(result, g->result) && atoi(plies) == g->move_count;
}

/* Checks that a finished game is this match's and counts it (match_tally_add, as a game played now). */
static bool count_game(const MatchConfig *c, const char *const names[2], const PgnGame *g, MatchResume *r, char *err,
                       size_t size)
{
    char event[260];
    snprintf(event, sizeof event, "feelfish match (%s)", c->limit_text);
    const char *ev = pgn_tag(g, "Event"), *round = pgn_tag(g, "Round"), *white = pgn_tag(g, "White"),
               *black = pgn_tag(g, "Black"), *term = pgn_tag(g, "Termination");
    if (!ev || strcmp(ev, event))
        return fail(err, size, "%s line %d: Event \"%s\", but this match is \"%s\" (other limits)", c->pgn_path,
                    g->line, ev ? ev : "", event);
    char *end;
    long n = round ? strtol(round, &end, 10) : 0;
    if (!round || *end || n < 1)
        return fail(err, size, "%s line %d: no game number in its Round tag", c->pgn_path, g->line);
    if (n > c->games)
        return fail(err, size, "%s line %d: game %ld, but this match has --games %d", c->pgn_path, g->line, n,
                    c->games);
    int index = (int)n - 1, first_white = index % 2 == 0; /* as match.c: white = index % 2 */
    if (r->done[index])
        return fail(err, size, "%s line %d: game %ld is in the file twice", c->pgn_path, g->line, n);
    if (!white || !black || strcmp(white, names[!first_white]) || strcmp(black, names[first_white]))
        return fail(err, size, "%s line %d: game %ld is %s vs %s; this match plays it %s vs %s", c->pgn_path, g->line,
                    n, white ? white : "?", black ? black : "?", names[!first_white], names[first_white]);
    const char *fen = g->start_fen ? g->start_fen : FEN_STARTPOS;
    if (strcmp(fen, match_config_opening(c, index)))
        return fail(err, size, "%s line %d: game %ld starts from %s; this match starts it from %s (other openings?)",
                    c->pgn_path, g->line, n, fen, match_config_opening(c, index));
    r->done[index] = true;
    r->count++;
    int winner = !strcmp(g->result, "1-0") ? !first_white : !strcmp(g->result, "0-1") ? first_white : -1;
    MatchEndKind kind = MATCH_END_RULES;
    for (int k = 0; term && k < MATCH_END_NB; k++)
        if (!strcmp(term, MatchTermination[k]))
            kind = (MatchEndKind)k;
    bool failure = kind == MATCH_END_TIME || kind == MATCH_END_ILLEGAL || kind == MATCH_END_CRASH ||
                   kind == MATCH_END_STALL; /* the side at fault lost */
    match_tally_add(&r->tally, winner, kind, failure && winner >= 0 ? !winner : -1);
    return true;
}

bool match_resume_read(const MatchConfig *c, const char *const names[2], MatchResume *r, char *err, size_t size)
{
    memset(r, 0, sizeof *r);
    r->done = calloc((size_t)c->games, sizeof *r->done);
    if (!r->done)
        abort();
    if (!c->pgn_path)
        return fail(err, size, "needs --pgn FILE (the games played so far)");
    FILE *f = fopen(c->pgn_path, "rb");
    if (!f)
        return errno == ENOENT ? true : fail(err, size, "cannot read %s: %s", c->pgn_path, strerror(errno));
    PgnReader *rd = pgn_reader_open(f);
    bool ok = true;
    int cut_line = 0; /* where the unfinished games at the file's end start */
    for (;;) {
        PgnGame g;
        char why[300];
        PgnResult res = pgn_read_game(rd, &g, why, sizeof why);
        if (res == PGN_END) {
            pgn_game_free(&g);
            break;
        }
        if (res == PGN_GAME && finished(&g)) {
            ok = cut_line ? fail(err, size, "%s line %d: an unfinished game before finished ones; remove it",
                                 c->pgn_path, cut_line)
                          : count_game(c, names, &g, r, err, size);
        } else if (!cut_line) {
            cut_line = g.line ? g.line : 1;
        }
        pgn_game_free(&g);
        if (!ok)
            break;
    }
    pgn_reader_close(rd);
    if (ok && ferror(f))
        ok = fail(err, size, "cannot read %s", c->pgn_path);
    long cut = ok && cut_line ? line_offset(f, cut_line) : 0;
    if (ok && cut_line && (cut < 0 || truncate(c->pgn_path, (off_t)cut)))
        ok = fail(err, size, "cannot cut the unfinished last game from %s: %s", c->pgn_path,
                  cut < 0 ? "read error" : strerror(errno));
    fclose(f);
    return ok;
}

void match_resume_free(MatchResume *r)
{
    free(r->done);
    r->done = NULL;
}
