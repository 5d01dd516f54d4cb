/* `feelfish match`: two UCI engines play a series of games (each opening twice with the colours
 * swapped, on a clock or a fixed limit, judged by the rules), written as PGN and scored with Elo,
 * LOS and an optional SPRT that can stop the match early. Beside this file: match_config.c (the
 * arguments and the openings), match_engine.c (engine processes and UCI lines), match_stats.c,
 * match_resume.c (--resume: the games an earlier run already wrote to the PGN file).
 *
 * Threads: one worker per --concurrency slot. A slot owns its two engine processes and its
 * Position and plays one game at a time; only its own thread touches them. The MatchState (the next
 * game to play, the score, the PGN file, the report lines) is shared and guarded by one mutex, held
 * only to claim a game and to record a finished one. `stop` is atomic: the SPRT, a fatal engine
 * failure or the signal thread (SIGINT/SIGTERM, taken with sigwait so no handler and no global
 * state) set it; workers look at it between moves and every 100 ms while an engine thinks, and drop
 * an unfinished game (it is not counted). The main thread parses the arguments, starts every engine
 * (names and start errors are known before any game), runs the workers and prints the summary.
 *
 * Output. On stderr, unless --quiet: "game N: WHITE vs BLACK RESULT (why), P plies" per finished
 * game (always shown when an engine failed: crash, stall, illegal move) and the progress line
 * "games 37/200: +12 =15 -10  score 52.7%  elo +18.8 +/- 45.1[  llr 1.23 (-2.94, 2.94)]".
 * On `out`, from the first engine's point of view, a summary that always ends with two lines:
 *   Score of NAME1 vs NAME2: W - L - D  [0.527]  N
 *   Elo difference: +18.8 +/- 45.1
 * Elo is "+inf"/"-inf" at 100%/0%; the 95% margin is "inf" when the interval is unbounded.
 * Exit code 1 when an engine crashed, stalled, played an illegal move or could not be (re)started,
 * or the match was interrupted; 2 for bad arguments; 0 otherwise. */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "../../notation/fen.h"
#include "match_config.h"
#include "match_engine.h"
#include "match_resume.h"
#include "match_stats.h"
#include "../../notation/move.h"
#include "../../notation/pgn.h"
#include "../../core/rules.h"
#include "../tools.h"

#define HANDSHAKE_MS 10000
#define STOP_GRACE_MS 1000   /* after "stop", how long a late bestmove is awaited */
#define SLICE_NS 100000000LL /* how often a waiting worker looks at `stop` and the process */
#define NAME_MAX_LEN 96

typedef struct {
    const MatchConfig *cfg;
    char names[2][NAME_MAX_LEN];
    FILE *pgn;
    pthread_mutex_t lock;
    atomic_bool stop;
    int next_game;
    const bool *done; /* --resume: the games already in the PGN file, or NULL */
    MatchTally tally; /* the first engine's results, each engine's failures */
    bool engine_failed, fatal, interrupted;
    int verdict; /* SPRT: +1 H1 accepted, -1 H0 accepted, 0 none */
    bool tty, progress_open;
} MatchState;

typedef struct {
    MatchState *st;
    MatchEngine eng[2];
    Position *pos;
    pthread_t thread;
} MatchSlot;

typedef struct {
    MatchEndKind kind;
    int culprit; /* the engine (0, 1) whose failure or flag ended the game; -1 for none */
    char result[8];
    char why[24];     /* short: "mate", "time forfeit" */
    char detail[400]; /* a sentence for the PGN comment and failure reports */
} GameEnd;

typedef struct {
    int depth;
    bool has_score, mate;
    long score;
} SearchInfo;

typedef struct {
    char *s;
    size_t len, cap;
} Text;

static const char *const ColorName[COLOR_NB] = {"White", "Black"};

static void *grow(void *p, size_t count, size_t size)
{
    void *q = realloc(p, count * size);
    if (!q)
        abort(); /* out of memory: nothing sensible left to do mid-match */
    return q;
}

static void text_add(Text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->s = grow(t->s, t->cap, 1);
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

/* Engine-provided text goes into PGN comments and tags: no braces, no control characters. */
static void sanitize(char *s)
{
    for (; *s; s++) {
        if (*s == '{' || *s == '}')
            *s = *s == '{' ? '(' : ')';
        else if ((unsigned char)*s < 0x20)
            *s = '?';
    }
}

__attribute__((format(printf, 5, 6))) static void set_end(GameEnd *end, MatchEndKind kind, int culprit,
                                                          const char *result, const char *fmt, ...)
{
    static const char *const Why[] = {"", "adjudication", "time forfeit", "illegal move", "crash", "stalled", ""};
    end->kind = kind;
    end->culprit = culprit;
    snprintf(end->result, sizeof end->result, "%s", result);
    snprintf(end->why, sizeof end->why, "%s", Why[kind]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(end->detail, sizeof end->detail, fmt, ap);
    va_end(ap);
    sanitize(end->detail);
}

static const char *loss_for(Color c) { return c == WHITE ? "0-1" : "1-0"; }

static void rules_end(GameEnd *end, const Position *pos, GameStatus status)
{
    switch (status) {
    case STATUS_CHECKMATE:
        set_end(end, MATCH_END_RULES, -1, loss_for(pos->side), "%s mates", ColorName[!pos->side]);
        break;
    case STATUS_STALEMATE: set_end(end, MATCH_END_RULES, -1, "1/2-1/2", "Draw by stalemate"); break;
    case STATUS_DRAW_FIFTY: set_end(end, MATCH_END_RULES, -1, "1/2-1/2", "Draw by the fifty-move rule"); break;
    case STATUS_DRAW_REPETITION: set_end(end, MATCH_END_RULES, -1, "1/2-1/2", "Draw by threefold repetition"); break;
    default: set_end(end, MATCH_END_RULES, -1, "1/2-1/2", "Draw by insufficient material"); break;
    }
    static const char *const Why[] = {"", "mate", "stalemate", "fifty moves", "repetition", "insufficient material"};
    snprintf(end->why, sizeof end->why, "%s", Why[status]);
}

static long number(const char *s)
{
    long v = s ? strtol(s, NULL, 10) : 0;
    return v > 1000000 ? 1000000 : v < -1000000 ? -1000000 : v;
}

/* Keeps the last depth and score an "info" line gives, for the move's PGN comment. */
static void parse_info(char *line, SearchInfo *info)
{
    char *save = NULL, *t;
    long depth = -1;
    for (t = strtok_r(line + 5, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (!strcmp(t, "depth")) {
            depth = number(strtok_r(NULL, " ", &save));
        } else if (!strcmp(t, "score")) {
            const char *kind = strtok_r(NULL, " ", &save), *value = strtok_r(NULL, " ", &save);
            if (kind && value && (!strcmp(kind, "cp") || !strcmp(kind, "mate"))) {
                info->has_score = true;
                info->mate = kind[0] == 'm';
                info->score = number(value);
                info->depth = depth > 0 ? (int)depth : 0;
            }
        } else if (!strcmp(t, "pv") || !strcmp(t, "string")) {
            break; /* the rest is moves or free text */
        }
    }
}

typedef enum { BEST_OK, BEST_TIMEOUT, BEST_DEAD, BEST_ABORTED } BestResult;

/* Waits for "bestmove" until deadline, in slices so that `stop` and a dead process are noticed
 * even when the engine says nothing, and a flood of info lines cannot outlast the deadline. */
static BestResult wait_bestmove(MatchState *st, MatchEngine *e, int64_t deadline, bool abortable, char *move,
                                size_t size, SearchInfo *info)
{
    char line[MATCH_LINE_MAX];
    for (;;) {
        int64_t now = match_now_ns();
        if (now >= deadline)
            return BEST_TIMEOUT;
        if (abortable && atomic_load(&st->stop))
            return BEST_ABORTED;
        MatchReadResult r =
            match_engine_read_line(e, line, sizeof line, now + SLICE_NS < deadline ? now + SLICE_NS : deadline);
        if (r == MATCH_READ_DEAD)
            return BEST_DEAD;
        if (r == MATCH_READ_TIMEOUT) {
            if (!match_engine_alive(e))
                return BEST_DEAD;
        } else if (!strncmp(line, "bestmove", 8) && (line[8] == ' ' || !line[8])) {
            const char *t = line + 8 + strspn(line + 8, " ");
            snprintf(move, size, "%.*s", (int)strcspn(t, " "), t);
            return BEST_OK;
        } else if (info && !strncmp(line, "info ", 5)) {
            parse_info(line, info);
        }
    }
}

/* After a timeout the engine may still be thinking: a late bestmove after "stop" keeps it usable,
 * otherwise it is killed and the next game starts a new one. */
static void recover_engine(MatchState *st, MatchEngine *e)
{
    char move[16];
    if (!match_engine_send(e, "stop") ||
        wait_bestmove(st, e, match_now_ns() + STOP_GRACE_MS * 1000000LL, false, move, sizeof move, NULL) != BEST_OK)
        match_engine_stop(e, false);
}

/* A clean state for both engines before a game: restarted when dead or deaf, at most once. */
static bool prepare_engines(MatchState *st, MatchSlot *s, char *err, size_t size)
{
    for (int k = 0; k < 2; k++) {
        MatchEngine *e = &s->eng[k];
        char why[256] = "did not answer";
        for (int attempt = 0;; attempt++) {
            if (!match_engine_alive(e)) {
                match_engine_stop(e, false);
                if (match_engine_start(e, &st->cfg->engines[k], HANDSHAKE_MS, false, NULL, 0, why, sizeof why) !=
                    MATCH_STARTED)
                    break;
            }
            if (match_engine_send(e, "ucinewgame") && match_engine_sync(e, HANDSHAKE_MS, why, sizeof why))
                break;
            match_engine_stop(e, false);
            if (attempt == 1)
                break;
        }
        if (!match_engine_alive(e)) {
            snprintf(err, size, "engine %s cannot be restarted: %s", st->names[k], why);
            return false;
        }
    }
    return true;
}

/* cutechess-style move comment: "+0.34/12 0.120s" (score from the mover's side) or "0.120s". */
static char *move_comment(const SearchInfo *info, int64_t elapsed_us)
{
    char buf[64], score[32] = "";
    if (info->has_score && info->mate)
        snprintf(score, sizeof score, "%sM%ld/%d ", info->score > 0 ? "+" : "-", labs(info->score), info->depth);
    else if (info->has_score)
        snprintf(score, sizeof score, "%+.2f/%d ", (double)info->score / 100, info->depth);
    snprintf(buf, sizeof buf, "%s%.3fs", score, (double)elapsed_us / 1e6);
    char *c = strdup(buf);
    if (!c)
        abort();
    return c;
}

/* The game's tags; the end's sentence goes after the last move's comment (or before the moves). */
static void finish_pgn(const MatchState *st, PgnGame *g, int index, int white, const char *fen, const char *date,
                       const GameEnd *end)
{
    const MatchConfig *c = st->cfg;
    char buf[256];
    snprintf(buf, sizeof buf, "feelfish match (%s)", c->limit_text);
    pgn_game_add_tag(g, "Event", buf);
    pgn_game_add_tag(g, "Site", "?");
    pgn_game_add_tag(g, "Date", date);
    snprintf(buf, sizeof buf, "%d", index + 1);
    pgn_game_add_tag(g, "Round", buf);
    pgn_game_add_tag(g, "White", st->names[white]);
    pgn_game_add_tag(g, "Black", st->names[!white]);
    pgn_game_add_tag(g, "Result", end->result);
    if (strcmp(fen, FEN_STARTPOS)) {
        g->start_fen = strdup(fen); /* pgn_write adds SetUp and FEN from it */
        if (!g->start_fen)
            abort();
    }
    /* Each side's own clock where they differ (as cutechess writes them), else the one. */
    const MatchLimits *lw = &c->limits[white], *lb = &c->limits[!white];
    if (c->same_limits)
        pgn_game_add_tag(g, "TimeControl", lw->has_tc ? lw->tc_text : "-");
    else {
        pgn_game_add_tag(g, "WhiteTimeControl", lw->has_tc ? lw->tc_text : "-");
        pgn_game_add_tag(g, "BlackTimeControl", lb->has_tc ? lb->tc_text : "-");
    }
    snprintf(buf, sizeof buf, "%d", g->move_count);
    pgn_game_add_tag(g, "PlyCount", buf);
    pgn_game_add_tag(g, "Termination", MatchTermination[end->kind]);
    snprintf(g->result, sizeof g->result, "%s", end->result);
    char **comment = g->move_count ? &g->moves[g->move_count - 1].comment : &g->comment;
    size_t old = *comment ? strlen(*comment) : 0;
    *comment = grow(*comment, old + strlen(end->detail) + 3, 1);
    snprintf(*comment + old, strlen(end->detail) + 3, "%s%s", old ? ", " : "", end->detail);
}

/* Plays game `index` with the slot's engines into g (moves only; tags come with the result). The
 * first engine has White in even games, so each opening is played once with each colour. */
static void play_game(MatchState *st, MatchSlot *s, int index, int white, GameEnd *end, PgnGame *g)
{
    const MatchConfig *c = st->cfg;
    Position *pos = s->pos;
    const char *fen = match_config_opening(c, index);
    fen_read(pos, fen, NULL, 0); /* checked when the openings were loaded */
    Text cmd = {0};
    text_add(&cmd, strcmp(fen, FEN_STARTPOS) ? "position fen " : "position startpos");
    if (strcmp(fen, FEN_STARTPOS))
        text_add(&cmd, fen);
    const MatchLimits *side_limits[COLOR_NB] = {&c->limits[white], &c->limits[!white]};
    int64_t clock_us[COLOR_NB] = {side_limits[WHITE]->base_ms * 1000, side_limits[BLACK]->base_ms * 1000};
    const int64_t margin_us = (int64_t)c->time_margin_ms * 1000;
    for (;;) {
        GameStatus status = position_status(pos);
        if (status != STATUS_ONGOING) {
            rules_end(end, pos, status);
            break;
        }
        if (c->max_moves && g->move_count >= 2 * c->max_moves) {
            set_end(end, MATCH_END_ADJUDICATION, -1, "1/2-1/2", "Draw by adjudication: %d moves each", c->max_moves);
            break;
        }
        if (atomic_load(&st->stop)) {
            set_end(end, MATCH_END_ABORTED, -1, "*", "Aborted");
            break;
        }
        Color side = pos->side;
        int k = side == WHITE ? white : !white;
        MatchEngine *e = &s->eng[k];
        const MatchLimits *l = side_limits[side];
        char go[200];
        int at = snprintf(go, sizeof go, "go");
        if (l->has_tc) /* (the other side's clock as it stands, whatever limits it plays under) */
            at += snprintf(go + at, sizeof go - (size_t)at, " wtime %lld btime %lld winc %lld binc %lld",
                           (long long)(clock_us[WHITE] / 1000), (long long)(clock_us[BLACK] / 1000),
                           (long long)side_limits[WHITE]->inc_ms, (long long)side_limits[BLACK]->inc_ms);
        if (l->movetime_ms)
            at += snprintf(go + at, sizeof go - (size_t)at, " movetime %lld", (long long)l->movetime_ms);
        if (l->nodes)
            at += snprintf(go + at, sizeof go - (size_t)at, " nodes %ld", l->nodes);
        if (l->depth)
            snprintf(go + at, sizeof go - (size_t)at, " depth %d", l->depth);
        /* The clock (or a fixed move time) bounds the wait; nodes and depth get the hard timeout. */
        bool timed = l->has_tc || l->movetime_ms;
        int64_t limit_us = l->has_tc        ? clock_us[side] + margin_us
                           : l->movetime_ms ? l->movetime_ms * 1000 + margin_us
                                            : (int64_t)c->move_timeout_ms * 1000;
        SearchInfo info = {0};
        char text[16] = "";
        bool sent = match_engine_send(e, "%s", cmd.s);
        int64_t t0 = match_now_ns();
        BestResult r = sent && match_engine_send(e, "%s", go)
                           ? wait_bestmove(st, e, t0 + limit_us * 1000, true, text, sizeof text, &info)
                           : BEST_DEAD;
        int64_t elapsed_us = (match_now_ns() - t0) / 1000;
        if (r == BEST_ABORTED) {
            recover_engine(st, e);
            set_end(end, MATCH_END_ABORTED, -1, "*", "Aborted");
            break;
        }
        if (r == BEST_DEAD) {
            char why[64];
            match_engine_describe_death(e, why, sizeof why);
            match_engine_stop(e, false);
            set_end(end, MATCH_END_CRASH, k, loss_for(side), "%s's engine %s crashed (%s)", ColorName[side],
                    st->names[k], why);
            break;
        }
        if (r == BEST_TIMEOUT)
            recover_engine(st, e);
        if (r == BEST_TIMEOUT && !timed) {
            set_end(end, MATCH_END_STALL, k, loss_for(side), "%s's engine %s stalled: no bestmove within %d ms",
                    ColorName[side], st->names[k], c->move_timeout_ms);
            break;
        }
        if (r == BEST_TIMEOUT || elapsed_us > limit_us) {
            /* A flag against a bare king is a draw: it could never have mated. */
            bool bare = popcount(pos->by_color[!side]) == 1;
            set_end(end, MATCH_END_TIME, k, bare ? "1/2-1/2" : loss_for(side),
                    "%s loses on time (%.3f s used, %.3f s allowed)%s", ColorName[side], (double)elapsed_us / 1e6,
                    (double)(limit_us - margin_us) / 1e6, bare ? ", but the opponent has a bare king: draw" : "");
            break;
        }
        Move m = move_from_uci(pos, text);
        if (m == MOVE_NONE) {
            char f[FEN_BUFFER_SIZE];
            set_end(end, MATCH_END_ILLEGAL, k, loss_for(side), "%s makes an illegal move: '%s' in %s", ColorName[side],
                    text, fen_write(pos, f));
            break;
        }
        if (l->has_tc)
            clock_us[side] = (clock_us[side] > elapsed_us ? clock_us[side] - elapsed_us : 0) + l->inc_ms * 1000;
        PgnMove *pm = pgn_game_add_move(g);
        pm->move = m;
        san_write(pos, m, pm->san);
        snprintf(pm->input, sizeof pm->input, "%s", pm->san);
        pm->comment = move_comment(&info, elapsed_us);
        char uci[MOVE_STRING_SIZE];
        text_add(&cmd, g->move_count == 1 ? " moves " : " ");
        text_add(&cmd, move_to_uci(m, uci)); /* normal form: the other engine may not read e1h1 */
        if (pos->stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(pos);
        position_make_move(pos, m);
    }
    free(cmd.s);
}

static void progress(MatchState *st, char *buf, size_t size)
{
    const MatchTally *t = &st->tally;
    long n = t->w + t->d + t->l;
    double elo, margin;
    char e[64];
    match_stats_elo(t->w, t->d, t->l, &elo, &margin);
    match_stats_format_elo(elo, margin, e, sizeof e);
    int at = snprintf(buf, size, "games %ld/%d: +%ld =%ld -%ld  score %.1f%%  elo %s", n, st->cfg->games, t->w, t->d,
                      t->l, n ? 100.0 * ((double)t->w + 0.5 * (double)t->d) / (double)n : 50.0, e);
    if (st->cfg->has_sprt) {
        double lo, hi;
        match_stats_sprt_bounds(&st->cfg->sprt, &lo, &hi);
        snprintf(buf + at, size - (size_t)at, "  llr %.2f (%.2f, %.2f)",
                 match_stats_llr(&st->cfg->sprt, t->w, t->d, t->l), lo, hi);
    }
}

/* One line on stderr; on a terminal the progress line is redrawn in place below the others. */
static void report(MatchState *st, const char *line, bool is_progress)
{
    if (st->progress_open)
        fputs("\r\033[K", stderr);
    st->progress_open = is_progress && st->tty;
    fprintf(stderr, "%s%s", line, st->progress_open ? "" : "\n");
    fflush(stderr);
}

/* Stops the match once the SPRT accepts a hypothesis (called with the lock held, or before the workers). */
static void sprt_check(MatchState *st)
{
    const MatchConfig *c = st->cfg;
    if (c->has_sprt && !st->verdict) {
        double lo, hi, llr = match_stats_llr(&c->sprt, st->tally.w, st->tally.d, st->tally.l);
        match_stats_sprt_bounds(&c->sprt, &lo, &hi);
        st->verdict = llr >= hi ? 1 : llr <= lo ? -1 : 0;
        if (st->verdict)
            atomic_store(&st->stop, true);
    }
}

static void record_game(MatchState *st, int index, int white, const GameEnd *end, PgnGame *g)
{
    const MatchConfig *c = st->cfg;
    pthread_mutex_lock(&st->lock);
    bool draw = !strcmp(end->result, "1/2-1/2"), white_won = !strcmp(end->result, "1-0");
    match_tally_add(&st->tally, draw ? -1 : white_won ? white : !white, end->kind, end->culprit);
    bool failure = end->kind == MATCH_END_ILLEGAL || end->kind == MATCH_END_CRASH || end->kind == MATCH_END_STALL;
    st->engine_failed |= failure;
    if (st->pgn) {
        char *text = pgn_write(g);
        fprintf(st->pgn, "%s\n", text);
        fflush(st->pgn);
        free(text);
    }
    char line[640];
    if (!c->quiet || failure) {
        snprintf(line, sizeof line, "game %d: %s vs %s %s (%s%s%s), %d plies", index + 1, st->names[white],
                 st->names[!white], end->result, end->why, failure ? ": " : "", failure ? end->detail : "",
                 g->move_count);
        report(st, line, false);
    }
    sprt_check(st);
    if (!c->quiet) {
        progress(st, line, sizeof line);
        report(st, line, true);
    }
    pthread_mutex_unlock(&st->lock);
}

static void *slot_main(void *arg)
{
    MatchSlot *s = arg;
    MatchState *st = s->st;
    for (;;) {
        pthread_mutex_lock(&st->lock);
        while (st->done && st->next_game < st->cfg->games && st->done[st->next_game])
            st->next_game++;
        int index = st->next_game < st->cfg->games && !atomic_load(&st->stop) ? st->next_game++ : -1;
        pthread_mutex_unlock(&st->lock);
        if (index < 0)
            break;
        char err[400];
        if (!prepare_engines(st, s, err, sizeof err)) {
            pthread_mutex_lock(&st->lock);
            st->fatal = true;
            char line[480];
            snprintf(line, sizeof line, "match: %s; stopping the match", err);
            report(st, line, false);
            pthread_mutex_unlock(&st->lock);
            atomic_store(&st->stop, true);
            break;
        }
        time_t now = time(NULL);
        struct tm tm;
        char date[16];
        strftime(date, sizeof date, "%Y.%m.%d", localtime_r(&now, &tm));
        PgnGame g;
        memset(&g, 0, sizeof g);
        GameEnd end;
        int white = index % 2;
        play_game(st, s, index, white, &end, &g);
        if (end.kind != MATCH_END_ABORTED) {
            finish_pgn(st, &g, index, white, match_config_opening(st->cfg, index), date, &end);
            record_game(st, index, white, &end, &g);
        }
        pgn_game_free(&g);
    }
    return NULL;
}

static void signal_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGUSR1); /* the main thread's "match over" to this thread */
}

/* Turns Ctrl-C into a clean stop: the games in progress are dropped, the summary still printed. */
static void *signal_main(void *arg)
{
    MatchState *st = arg;
    sigset_t set;
    signal_set(&set);
    int sig;
    while (sigwait(&set, &sig) == 0 && sig != SIGUSR1) {
        pthread_mutex_lock(&st->lock);
        st->interrupted = true;
        report(st, "match: interrupted; stopping", false);
        pthread_mutex_unlock(&st->lock);
        atomic_store(&st->stop, true);
    }
    return NULL;
}

static void print_summary(const MatchState *st, FILE *out)
{
    const MatchTally *t = &st->tally;
    const MatchConfig *c = st->cfg;
    const char *a = st->names[0], *b = st->names[1];
    long n = t->w + t->d + t->l;
    double score = n ? ((double)t->w + 0.5 * (double)t->d) / (double)n : 0.5, elo, margin;
    match_stats_elo(t->w, t->d, t->l, &elo, &margin);
    char e[64];
    match_stats_format_elo(elo, margin, e, sizeof e);
    fprintf(out, "Match %s vs %s, %s: %ld of %d games played%s\n", a, b, c->limit_text, n, c->games,
            st->interrupted ? " (interrupted)"
            : st->fatal     ? " (stopped: an engine could not be restarted)"
            : st->verdict   ? " (stopped by the SPRT)"
                            : "");
    fprintf(out, "Results of %s: +%ld =%ld -%ld  score %.1f%%  draws %.1f%%  LOS %.1f%%\n", a, t->w, t->d, t->l,
            100 * score, n ? 100.0 * (double)t->d / (double)n : 0.0, 100 * match_stats_los(t->w, t->d, t->l));
    fprintf(out, "Time losses: %s %ld, %s %ld\n", a, t->time_losses[0], b, t->time_losses[1]);
    fprintf(out, "Illegal moves: %s %ld, %s %ld\n", a, t->illegal[0], b, t->illegal[1]);
    fprintf(out, "Crashes: %s %ld, %s %ld\n", a, t->crashes[0], b, t->crashes[1]);
    fprintf(out, "Stalls: %s %ld, %s %ld\n", a, t->stalls[0], b, t->stalls[1]);
    if (c->has_sprt) {
        double lo, hi;
        match_stats_sprt_bounds(&c->sprt, &lo, &hi);
        fprintf(out, "SPRT: elo0 %g, elo1 %g, alpha %g, beta %g: llr %.2f, bounds (%.2f, %.2f): %s\n", c->sprt.elo0,
                c->sprt.elo1, c->sprt.alpha, c->sprt.beta, match_stats_llr(&c->sprt, t->w, t->d, t->l), lo, hi,
                st->verdict > 0   ? "H1 accepted"
                : st->verdict < 0 ? "H0 accepted"
                                  : "no decision");
    }
    fprintf(out, "Score of %s vs %s: %ld - %ld - %ld  [%.3f]  %ld\n", a, b, t->w, t->l, t->d, score, n);
    fprintf(out, "Elo difference: %s\n", e);
}

/* Every slot's engines, started here so that the names and a failing engine are known before any
 * game. Returns 0, or the exit code: 2 when a command cannot be run at all or is given an option value
 * it declares otherwise, 1 when it fails UCI. */
static int start_engines(MatchState *st, MatchSlot *slots, int count)
{
    char ids[2][NAME_MAX_LEN] = {"", ""}, err[400];
    for (int i = 0; i < count; i++) {
        for (int k = 0; k < 2; k++) {
            const MatchEngineConfig *ec = &st->cfg->engines[k];
            MatchStart r =
                match_engine_start(&slots[i].eng[k], ec, HANDSHAKE_MS, i == 0, ids[k], sizeof ids[k], err, sizeof err);
            if (r != MATCH_STARTED) {
                fprintf(stderr, "match: engine %d (%s): %s\n", k + 1, ec->cmd, err);
                return r == MATCH_START_REFUSED ? 2 : 1;
            }
        }
    }
    for (int k = 0; k < 2; k++) {
        const MatchEngineConfig *ec = &st->cfg->engines[k];
        const char *base = strrchr(ec->cmd, '/');
        const char *name = ec->name ? ec->name : ids[k][0] ? ids[k] : base ? base + 1 : ec->cmd;
        snprintf(st->names[k], sizeof st->names[k], "%.*s", NAME_MAX_LEN - 1, name);
        sanitize(st->names[k]);
    }
    if (!strcmp(st->names[0], st->names[1])) { /* results that name both sides alike are unreadable */
        size_t n = strlen(st->names[1]);
        snprintf(st->names[1] + (n > NAME_MAX_LEN - 5 ? NAME_MAX_LEN - 5 : n), 5, " (2)");
    }
    return 0;
}

/* --resume: the games the PGN file already holds are counted and skipped. False (reported) when
 * the file belongs to another match. */
static bool resume(MatchState *st, MatchResume *r)
{
    char err[600];
    const char *names[2] = {st->names[0], st->names[1]};
    if (!match_resume_read(st->cfg, names, r, err, sizeof err)) {
        fprintf(stderr, "match: %s\n", err);
        return false;
    }
    st->done = r->done;
    st->tally = r->tally;
    if (!st->cfg->quiet)
        fprintf(stderr, "match: resuming: %d of %d games already in %s (+%ld =%ld -%ld)\n", r->count, st->cfg->games,
                st->cfg->pgn_path, r->tally.w, r->tally.d, r->tally.l);
    sprt_check(st);
    return true;
}

/* The exit code: 0 ok, 1 a game error such as a crash, 2 bad arguments. */
int match_command(int argc, char **argv, FILE *out)
{
    MatchConfig cfg;
    char err[512];
    if (!match_config_parse(&cfg, argc, argv, err, sizeof err)) {
        fprintf(stderr, "match: %s\n", err);
        match_config_free(&cfg);
        return 2;
    }
    if (cfg.help) {
        match_config_usage(out);
        match_config_free(&cfg);
        return 0;
    }
    MatchState st;
    memset(&st, 0, sizeof st);
    st.cfg = &cfg;
    st.tty = isatty(STDERR_FILENO);
    atomic_init(&st.stop, false);
    pthread_mutex_init(&st.lock, NULL);
    if (cfg.pgn_path && !(st.pgn = fopen(cfg.pgn_path, "a"))) {
        fprintf(stderr, "match: --pgn: cannot write %s\n", cfg.pgn_path);
        match_config_free(&cfg);
        return 2;
    }
    /* A write to an engine that just died must fail with EPIPE, not kill the match. */
    struct sigaction ignore, old_pipe;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &old_pipe);
    /* Orphaned descendants of an engine (a wrapper script's children) become ours to reap, so the
     * match leaves no zombie behind even under an init that does not reap. */
    int old_subreaper = 0;
    prctl(PR_GET_CHILD_SUBREAPER, &old_subreaper);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    MatchSlot *slots = grow(NULL, (size_t)cfg.concurrency, sizeof *slots);
    memset(slots, 0, (size_t)cfg.concurrency * sizeof *slots);
    for (int i = 0; i < cfg.concurrency; i++) {
        slots[i].st = &st;
        slots[i].pos = grow(NULL, 1, sizeof *slots[i].pos);
    }
    int rc = start_engines(&st, slots, cfg.concurrency);
    MatchResume resumed = {0};
    if (rc == 0 && cfg.resume && !resume(&st, &resumed))
        rc = 2;
    bool played = rc == 0;
    if (played) {
        if (!cfg.quiet)
            fprintf(stderr, "match: %s vs %s, %d games, %s, concurrency %d\n", st.names[0], st.names[1], cfg.games,
                    cfg.limit_text, cfg.concurrency);
        sigset_t set, old_mask;
        signal_set(&set);
        pthread_sigmask(SIG_BLOCK, &set, &old_mask); /* the workers inherit the mask */
        pthread_t signal_thread;
        bool has_signal_thread = !pthread_create(&signal_thread, NULL, signal_main, &st);
        int started = 0;
        for (; started < cfg.concurrency; started++) {
            if (pthread_create(&slots[started].thread, NULL, slot_main, &slots[started])) {
                pthread_mutex_lock(&st.lock);
                st.fatal = true;
                report(&st, "match: cannot start a thread; stopping the match", false);
                pthread_mutex_unlock(&st.lock);
                atomic_store(&st.stop, true);
                break;
            }
        }
        for (int i = 0; i < started; i++)
            pthread_join(slots[i].thread, NULL);
        if (has_signal_thread) {
            pthread_kill(signal_thread, SIGUSR1);
            pthread_join(signal_thread, NULL);
        }
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        if (st.progress_open)
            fputc('\n', stderr);
        rc = st.fatal || st.interrupted || st.engine_failed;
    }
    for (int i = 0; i < cfg.concurrency; i++) {
        match_engine_stop(&slots[i].eng[0], true);
        match_engine_stop(&slots[i].eng[1], true);
        free(slots[i].pos);
    }
    free(slots);
    match_resume_free(&resumed);
    if (played)
        print_summary(&st, out);
    if (st.pgn && (ferror(st.pgn) | fclose(st.pgn))) {
        fprintf(stderr, "match: error writing %s\n", cfg.pgn_path);
        rc = rc ? rc : 1;
    }
    sigaction(SIGPIPE, &old_pipe, NULL);
    prctl(PR_SET_CHILD_SUBREAPER, old_subreaper);
    pthread_mutex_destroy(&st.lock);
    match_config_free(&cfg);
    return rc;
}
