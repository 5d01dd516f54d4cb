/* UCI: reads commands on one thread, runs each search on a second thread, and writes every line
 * under one mutex so info lines from the search never interleave with answers such as readyok.
 * Options are declared once in a table: the `uci` listing, setoption validation and the effect
 * all come from it. */
#include "uci.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../adapt/adaptive.h"
#include "../eval/affective.h"
#include "../eval/eval.h"
#include "../notation/fen.h"
#include "../notation/move.h"
#include "../core/movegen.h"
#include "../search/perft.h"
#include "../search/search.h"
#include "../search/strength.h"

#define ENGINE_NAME "feelfish 0.1"
#define LINE_MAX_LEN 65536
#define UCI_HISTORY_MAX 4096 /* moves of the game kept for style recognition */

typedef struct {
    FILE *out;
    pthread_mutex_t out_lock;
    bool debug;
    Search *search;
    Evaluator eval;
    Position *pos, *scratch;
    SearchLimits limits;
    pthread_t thread;
    bool searching;       /* a search thread exists and has not been joined */
    atomic_bool finished; /* set by the search thread once its search is over, before bestmove */
    /* the game so far (start position and moves), which the Bayesian mode's style recognition reads */
    Position *start, *scratch_start;
    Move *moves, *scratch_moves;
    int move_count;
    /* Bayesian mode: the model (loaded on the first search that needs it) and the style model */
    BayesModel model;
    bool model_loaded, style_loaded;
    StyleModel style;
    EvalParams bayes_params;
    /* option values */
    bool affective, bayesian, auto_target;
    BayesTarget target;
    char model_path[512], style_path[512];
    const Temperament *temperament;
    int gain_percent; /* AffectiveGain: 0-100 overrides the temperament's gain; -1 (the default) leaves it */
    int multipv;
    bool ponder;
    bool limit_strength;
    int elo;
} Uci;

static void say(Uci *u, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&u->out_lock);
    va_start(ap, fmt);
    vfprintf(u->out, fmt, ap);
    va_end(ap);
    fputc('\n', u->out);
    fflush(u->out);
    pthread_mutex_unlock(&u->out_lock);
}

/* ---- options ---- */

typedef enum { OPT_SPIN, OPT_CHECK, OPT_COMBO, OPT_BUTTON, OPT_STRING } OptionType;

typedef struct {
    const char *name;
    OptionType type;
    const char *def;
    long min, max;
    const char *vars; /* combo values, space separated */
    /* Applies a validated value; returns false with a reason if it cannot. */
    bool (*apply)(Uci *u, const char *value, long number, char *why, size_t why_size);
} Option;

static bool apply_hash(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v;
    if (!search_set_hash(u->search, (size_t)n)) {
        snprintf(why, size, "not enough memory for %ld MB", n);
        return false;
    }
    return true;
}
static bool apply_threads(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v;
    if (!search_set_threads(u->search, (int)n)) {
        snprintf(why, size, "cannot start %ld threads", n);
        return false;
    }
    return true;
}
static bool apply_multipv(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v, (void)why, (void)size;
    u->multipv = (int)n;
    return true;
}
static bool apply_overhead(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v, (void)why, (void)size;
    search_set_move_overhead(u->search, (int)n);
    return true;
}
static bool apply_ponder(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v, (void)why, (void)size;
    u->ponder = n;
    return true;
}
static bool apply_clear_hash(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v, (void)n, (void)why, (void)size;
    search_clear(u->search);
    return true;
}
static bool apply_mode(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)n, (void)why, (void)size;
    u->affective = !strcasecmp(v, "affective");
    u->bayesian = !strcasecmp(v, "bayesian");
    evaluator_classical(&u->eval);
    return true;
}
static bool apply_target(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)n, (void)why, (void)size;
    char lower[16];
    snprintf(lower, sizeof lower, "%s", v);
    for (char *c = lower; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return adaptive_parse_target(lower, &u->target, &u->auto_target);
}
static bool apply_model_path(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)n, (void)why, (void)size;
    snprintf(u->model_path, sizeof u->model_path, "%s", v);
    u->model_loaded = false; /* read again by the next bayesian search */
    return true;
}
static bool apply_style_path(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)n, (void)why, (void)size;
    snprintf(u->style_path, sizeof u->style_path, "%s", v);
    u->style_loaded = false;
    return true;
}
static bool apply_temperament(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)n, (void)why, (void)size;
    const Temperament *t = temperament_find(v);
    if (t) /* (a refused value leaves the temperament as it was) */
        u->temperament = t;
    return t != NULL;
}
static bool apply_gain(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v, (void)why, (void)size;
    u->gain_percent = (int)n;
    return true;
}
static bool apply_limit_strength(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v, (void)why, (void)size;
    u->limit_strength = n;
    return true;
}
static bool apply_elo(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)v, (void)why, (void)size;
    u->elo = (int)n;
    return true;
}

static bool apply_evalfile(Uci *u, const char *v, long n, char *why, size_t size)
{
    (void)n;
    if (!nnue_select(v, why, size))
        return false;
    evaluator_classical(&u->eval);
    search_clear(u->search); /* the table's scores came from the previous evaluation */
    char what[160];
    nnue_describe(what, sizeof what);
    say(u, "info string evaluation: %s", what);
    return true;
}

static const Option Options[] = {
    {"Hash", OPT_SPIN, "16", 1, 32768, NULL, apply_hash},
    {"Threads", OPT_SPIN, "1", 1, MAX_THREADS, NULL, apply_threads},
    {"MultiPV", OPT_SPIN, "1", 1, MAX_MULTIPV, NULL, apply_multipv},
    {"Move Overhead", OPT_SPIN, "10", 0, 5000, NULL, apply_overhead},
    {"Ponder", OPT_CHECK, "false", 0, 1, NULL, apply_ponder},
    {"Clear Hash", OPT_BUTTON, NULL, 0, 0, NULL, apply_clear_hash},
    {"Mode", OPT_COMBO, "classical", 0, 0, "classical affective bayesian", apply_mode},
    {"BayesTarget", OPT_COMBO, "auto", 0, 0, "auto aggressive conservative", apply_target},
    {"BayesModel", OPT_STRING, "data/feelfish.db", 0, 0, NULL, apply_model_path},
    {"StyleModel", OPT_STRING, "engine/style.model", 0, 0, NULL, apply_style_path},
    {"Temperament", OPT_COMBO, "neutral", 0, 0, "neutral calm anxious bold thesis", apply_temperament},
    {"AffectiveGain", OPT_SPIN, "-1", -1, 100, NULL, apply_gain}, /* -1: the temperament's own gain */
    {"UCI_LimitStrength", OPT_CHECK, "false", 0, 1, NULL, apply_limit_strength},
    {"UCI_Elo", OPT_SPIN, "1500", STRENGTH_ELO_MIN, STRENGTH_ELO_MAX, NULL, apply_elo},
    {"EvalFile", OPT_STRING, "embedded", 0, 0, NULL, apply_evalfile},
};
#define OPTION_COUNT ((int)(sizeof Options / sizeof Options[0]))

static void list_options(Uci *u)
{
    for (int i = 0; i < OPTION_COUNT; i++) {
        const Option *o = &Options[i];
        switch (o->type) {
        case OPT_SPIN:
            say(u, "option name %s type spin default %s min %ld max %ld", o->name, o->def, o->min, o->max);
            break;
        case OPT_CHECK: say(u, "option name %s type check default %s", o->name, o->def); break;
        case OPT_BUTTON: say(u, "option name %s type button", o->name); break;
        case OPT_STRING: say(u, "option name %s type string default %s", o->name, o->def); break;
        case OPT_COMBO: {
            char vars[256] = "";
            char copy[256];
            snprintf(copy, sizeof copy, "%s", o->vars);
            for (char *save, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
                strncat(vars, " var ", sizeof vars - strlen(vars) - 1);
                strncat(vars, t, sizeof vars - strlen(vars) - 1);
            }
            say(u, "option name %s type combo default %s%s", o->name, o->def, vars);
            break;
        }
        }
    }
}

/* Validates value for option o; on success sets *number (spin, check). */
static bool option_value(const Option *o, char *value, long *number, char *why, size_t size)
{
    *number = 0;
    switch (o->type) {
    case OPT_BUTTON: return true;
    case OPT_STRING:
        if (strlen(value) < 512)
            return true;
        snprintf(why, size, "%s takes a path shorter than 512 characters", o->name);
        return false;
    case OPT_CHECK:
        if (!strcasecmp(value, "true") || !strcasecmp(value, "false")) {
            *number = !strcasecmp(value, "true");
            return true;
        }
        snprintf(why, size, "%s takes true or false", o->name);
        return false;
    case OPT_SPIN: {
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (errno || end == value || *end || v < o->min || v > o->max) {
            snprintf(why, size, "%s takes a whole number from %ld to %ld", o->name, o->min, o->max);
            return false;
        }
        *number = v;
        return true;
    }
    case OPT_COMBO: {
        /* Any case is accepted and given to the option in the spelling it lists (same length). */
        char copy[256];
        snprintf(copy, sizeof copy, "%s", o->vars);
        for (char *save, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
            if (!strcasecmp(t, value)) {
                memcpy(value, t, strlen(t));
                return true;
            }
        snprintf(why, size, "%s takes one of: %s", o->name, o->vars);
        return false;
    }
    }
    return false;
}

static void set_option(Uci *u, char *args)
{
    /* setoption name <name with spaces> [value <value with spaces>] */
    char *name = strstr(args, "name ");
    if (!name) {
        say(u, "info string setoption needs 'name <option> [value <value>]'");
        return;
    }
    name += 5;
    char *value = strstr(name, " value ");
    size_t n = strlen(name);
    if (value) {
        *value = 0;
        value += 7;
    } else if (n >= 6 && !strcmp(name + n - 6, " value")) { /* an empty value ("... value " trimmed) */
        name[n - 6] = 0;
        value = name + n;
    }
    while (*name == ' ')
        name++;
    for (char *e = name + strlen(name); e > name && e[-1] == ' ';)
        *--e = 0;
    char none[] = "", *v = value ? value : none;
    while (*v == ' ')
        v++;
    for (int i = 0; i < OPTION_COUNT; i++) {
        const Option *o = &Options[i];
        if (strcasecmp(o->name, name))
            continue;
        if (u->searching) {
            say(u, "info string cannot change %s during a search", o->name);
            return;
        }
        long number;
        char why[160];
        if (o->type != OPT_BUTTON && !value) {
            say(u, "info string setoption %s needs a value", o->name);
            return;
        }
        if (!option_value(o, v, &number, why, sizeof why) || !o->apply(u, v, number, why, sizeof why)) {
            say(u, "info string %s", why);
            return;
        }
        if (u->debug)
            say(u, "info string %s set to %s", o->name, v);
        return;
    }
    say(u, "info string no such option: %s", name);
}

/* ---- position ---- */

static void set_position(Uci *u, char *args)
{
    char *moves = strstr(args, " moves");
    if (moves && (moves[6] == ' ' || moves[6] == 0)) {
        *moves = 0;
        moves += 6;
    } else if (!strncmp(args, "moves", 5))
        moves = args + 5, *args = 0;
    else
        moves = NULL;
    while (*args == ' ')
        args++;
    char msg[200];
    if (!strncmp(args, "startpos", 8) && (args[8] == 0 || args[8] == ' '))
        fen_read(u->scratch, FEN_STARTPOS, NULL, 0);
    else if (!strncmp(args, "fen ", 4)) {
        FenError e = fen_read(u->scratch, args + 4, msg, sizeof msg);
        if (e != FEN_OK) {
            say(u, "info string bad FEN (%s): %s; position unchanged", fen_error_code(e), msg);
            return;
        }
    } else {
        say(u, "info string position needs 'startpos' or 'fen <FEN>'");
        return;
    }
    position_copy_root(u->scratch_start, u->scratch);
    int count = 0;
    if (moves)
        for (char *save, *t = strtok_r(moves, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
            Move m = move_from_uci(u->scratch, t);
            if (!m) {
                say(u, "info string illegal move '%s'; position unchanged", t);
                return;
            }
            if (u->scratch->stack_len > POSITION_STACK_SIZE / 2)
                position_trim_history(u->scratch);
            position_make_move(u->scratch, m);
            if (count < UCI_HISTORY_MAX)
                u->scratch_moves[count++] = m;
        }
    Position *tmp = u->pos;
    u->pos = u->scratch;
    u->scratch = tmp;
    tmp = u->start;
    u->start = u->scratch_start;
    u->scratch_start = tmp;
    Move *mtmp = u->moves;
    u->moves = u->scratch_moves;
    u->scratch_moves = mtmp;
    u->move_count = count;
}

/* Bayesian mode: the model from BayesModel (once), the style model (once), the choice. */
static void choose_bayesian(Uci *u, const Position *root)
{
    char err[256];
    if (!u->model_loaded) {
        if (!bayes_read_model(u->model_path, &u->model, err, sizeof err))
            say(u, "info string Bayesian model %s: %s; the default vector", u->model_path, err);
        u->model_loaded = true;
    }
    if (!u->style_loaded) {
        if (!style_model_load(&u->style, u->style_path, err, sizeof err))
            say(u, "info string style model: %s; auto uses the conservative default", err);
        else
            u->style_loaded = true;
    }
    MoveHistory h = {u->start, u->moves, u->move_count};
    BayesChoice c;
    char json[1024];
    adaptive_choose(&u->model, u->style_loaded ? &u->style : NULL, root, &h, u->target, u->auto_target,
                    u->start->st->key, &c, &u->bayes_params, &u->eval);
    say(u, "info string bayesian %s", adaptive_choice_text(&c, json, sizeof json));
}

/* ---- search ---- */

static void print_info(void *user, const SearchInfo *info)
{
    Uci *u = user;
    char line[8192], *o = line;
    size_t left = sizeof line;
    int n;
#define APPEND(...)                                                                                                    \
    do {                                                                                                               \
        n = snprintf(o, left, __VA_ARGS__);                                                                            \
        if (n > 0 && (size_t)n < left)                                                                                 \
            o += n, left -= (size_t)n;                                                                                 \
    } while (0)
    if (info->depth == 0) { /* no legal move at the root: Stockfish's short form */
        say(u, "info depth 0 score %s", info->score == -VALUE_MATE ? "mate 0" : "cp 0");
        return;
    }
    APPEND("info depth %d seldepth %d multipv %d ", info->depth, info->seldepth, info->multipv);
    int mate = search_mate_in(info->score);
    if (mate)
        APPEND("score mate %d", mate);
    else
        APPEND("score cp %d", search_cp(info->score));
    if (info->bound == BOUND_LOWER)
        APPEND(" lowerbound");
    else if (info->bound == BOUND_UPPER)
        APPEND(" upperbound");
    APPEND(" nodes %" PRIu64 " nps %" PRIu64 " hashfull %d tbhits 0 time %" PRId64, info->nodes, info->nps,
           info->hashfull, info->time_ms);
    if (info->pv_length) {
        APPEND(" pv");
        for (int i = 0; i < info->pv_length; i++) {
            char mv[MOVE_STRING_SIZE];
            APPEND(" %s", move_to_uci(info->pv[i], mv));
        }
    }
#undef APPEND
    say(u, "%s", line);
}

typedef struct {
    Uci *u;
    Position *pos; /* the search's own copy: `position` may arrive during the search */
} SearchJob;

static void *search_thread(void *arg)
{
    SearchJob *job = arg;
    Uci *u = job->u;
    SearchCallbacks cb = {print_info, u};
    SearchResult r;
    search_run(u->search, job->pos, &u->limits, &u->eval, &cb, &r);
    free(job->pos);
    free(job);
    /* Finished before bestmove is sent: a GUI may send the next `go` the moment it reads bestmove,
     * and that `go` must find this search joinable, never "still running". */
    atomic_store(&u->finished, true);
    char best[MOVE_STRING_SIZE], ponder[MOVE_STRING_SIZE];
    if (r.best == MOVE_NONE)
        say(u, "bestmove (none)");
    else if (r.ponder)
        say(u, "bestmove %s ponder %s", move_to_uci(r.best, best), move_to_uci(r.ponder, ponder));
    else
        say(u, "bestmove %s", move_to_uci(r.best, best));
    return NULL;
}

static void wait_search(Uci *u)
{
    if (u->searching) {
        pthread_join(u->thread, NULL);
        u->searching = false;
    }
}

/* Joins a search that has ended by itself (depth, nodes, time), so the next command may start one. */
static void reap_search(Uci *u)
{
    if (u->searching && atomic_load(&u->finished))
        wait_search(u);
}

/* The words of a command, one at a time; a word read too far can be given back. */
typedef struct {
    char *save, *back;
} Words;

static char *word_next(Words *w)
{
    char *t = w->back;
    w->back = NULL;
    return t ? t : strtok_r(NULL, " ", &w->save);
}

/* A go parameter's number: the integer the next word starts with (as Stockfish reads it), clamped
 * to [min, max]. A word that does not start with one is given back, to be read as the next
 * parameter, and this one is ignored (UCI: ignore what is not understood and read on). */
static bool go_number(Uci *u, const char *name, Words *w, long min, long max, long *out)
{
    char *s = word_next(w), *end = s;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s) {
        say(u, "info string go %s needs a number, got '%s'; ignored", name, s ? s : "");
        w->back = s;
        return false;
    }
    *out = v < min ? min : v > max ? max : v;
    if (*end || errno)
        say(u, "info string go %s: '%s' read as %ld", name, s, *out);
    return true;
}

static void go(Uci *u, char *args)
{
    if (u->searching) {
        say(u, "info string a search is already running; send stop first");
        return;
    }
    SearchLimits *l = &u->limits;
    search_limits_init(l);
    l->multipv = u->multipv;
    l->elo = u->limit_strength ? u->elo : 0;
    long v;
    bool in_searchmoves = false;
    Words w = {0};
    for (char *t = strtok_r(args, " ", &w.save); t; t = word_next(&w)) {
        if (in_searchmoves) {
            Move m = move_from_uci(u->pos, t);
            if (m) {
                bool again = false; /* (a move listed twice counts once: at most every legal move) */
                for (int i = 0; i < l->searchmoves_count; i++)
                    again |= l->searchmoves[i] == m;
                if (!again && l->searchmoves_count < MAX_MOVES)
                    l->searchmoves[l->searchmoves_count++] = m;
                continue;
            }
            in_searchmoves = false;
        }
        const long big = 1L << 40;
        if (!strcmp(t, "infinite"))
            l->infinite = true;
        else if (!strcmp(t, "ponder"))
            l->ponder = true;
        else if (!strcmp(t, "searchmoves"))
            in_searchmoves = true;
        else if (!strcmp(t, "wtime") || !strcmp(t, "btime") || !strcmp(t, "winc") || !strcmp(t, "binc")) {
            if (!go_number(u, t, &w, t[1] == 't' ? 1 : 0, big, &v))
                continue;
            Color c = t[0] == 'w' ? WHITE : BLACK;
            if (t[1] == 't')
                l->time[c] = v;
            else
                l->inc[c] = v;
            l->use_clock = true;
        } else if (!strcmp(t, "movestogo")) {
            if (go_number(u, t, &w, 0, 1000, &v))
                l->movestogo = (int)v;
        } else if (!strcmp(t, "depth")) {
            if (go_number(u, t, &w, 1, MAX_PLY - 1, &v))
                l->depth = (int)v;
        } else if (!strcmp(t, "nodes")) {
            if (go_number(u, t, &w, 1, big, &v))
                l->nodes = (uint64_t)v;
        } else if (!strcmp(t, "mate")) {
            if (go_number(u, t, &w, 1, MAX_PLY / 2 - 1, &v))
                l->mate = (int)v;
        } else if (!strcmp(t, "movetime")) {
            if (go_number(u, t, &w, 1, big, &v))
                l->movetime = v;
        } else if (!strcmp(t, "perft")) {
            if (!go_number(u, t, &w, 1, 12, &v))
                return;
            MoveList list;
            movegen_legal(u->pos, &list, GEN_ALL);
            uint64_t total = 0;
            for (int i = 0; i < list.count; i++) {
                char mv[MOVE_STRING_SIZE];
                position_make_move(u->pos, list.moves[i]);
                uint64_t n = perft(u->pos, (int)v - 1);
                position_unmake_move(u->pos);
                total += n;
                say(u, "%s: %" PRIu64, move_to_uci(list.moves[i], mv), n);
            }
            say(u, "\nNodes searched: %" PRIu64 "\n", total);
            return;
        } else
            say(u, "info string ignoring unknown go parameter '%s'", t);
    }
    SearchJob *job = malloc(sizeof *job);
    Position *copy = job ? malloc(sizeof *copy) : NULL;
    if (!copy) {
        free(job);
        say(u, "info string out of memory");
        return;
    }
    position_copy(copy, u->pos);
    job->u = u;
    job->pos = copy;
    if (u->affective) {
        /* The emotion is appraised once at the root and fixed for the whole search (spec §4). */
        Emotion e;
        char json[1024];
        Temperament t = temperament_at_gain(u->temperament, u->gain_percent >= 0 ? u->gain_percent / 100.0 : -1);
        affective_emotion(copy, NULL, &t, &e);
        affective_evaluator(&e, &u->eval);
        say(u, "info string emotion %s", affective_json(&e, json, sizeof json));
    } else if (u->bayesian)
        choose_bayesian(u, copy);
    else
        evaluator_classical(&u->eval);
    atomic_store(&u->finished, false);
    search_prepare(u->search, l); /* a stop or ponderhit right after go must not be lost */
    if (pthread_create(&u->thread, NULL, search_thread, job)) {
        free(copy);
        free(job);
        say(u, "info string cannot start the search thread");
        return;
    }
    u->searching = true;
}

/* ---- diagnostics ---- */

static void display(Uci *u)
{
    char fen[FEN_BUFFER_SIZE];
    for (int rank = 7; rank >= 0; rank--) {
        char row[40], *o = row;
        for (int file = 0; file < 8; file++) {
            Piece pc = u->pos->board[square_make(file, rank)];
            *o++ = ' ';
            *o++ = pc ? " PNBRQK  pnbrqk"[pc] : '.';
        }
        *o = 0;
        say(u, "%d%s", rank + 1, row);
    }
    say(u, "  a b c d e f g h");
    say(u, "Fen: %s", fen_write(u->pos, fen));
    say(u, "Key: %016" PRIx64, u->pos->st->key);
}

static void show_eval(Uci *u)
{
    EvalTerms t;
    int stm = evaluate_terms(u->pos, &u->eval, &t);
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        say(u, "%-18s %6d", EvalGroupNames[g], t.group[g]);
    say(u, "%-18s %6d (engine units, White's view; phase %d/24)", "total", t.total, t.phase);
    say(u, "%-18s %6d", "side to move", stm);
    say(u, "%-18s %6d (centipawns as reported: one pawn = %d units)", "side to move cp", search_cp(stm), SCORE_PAWN);
    if (u->eval.net) { /* the terms above are the hand-written evaluation's; the search uses the network */
        char what[160];
        nnue_describe(what, sizeof what);
        int net = evaluate(u->pos, &u->eval);
        say(u, "%-18s %6d (side to move, engine units; %d cp) from %s", "network", net, search_cp(net), what);
    }
}

int uci_loop(FILE *in, FILE *out)
{
    Uci u;
    memset(&u, 0, sizeof u);
    u.out = out;
    pthread_mutex_init(&u.out_lock, NULL);
    u.search = search_new();
    u.pos = malloc(sizeof *u.pos);
    u.scratch = malloc(sizeof *u.scratch);
    u.start = malloc(sizeof *u.start);
    u.scratch_start = malloc(sizeof *u.scratch_start);
    u.moves = malloc(UCI_HISTORY_MAX * sizeof *u.moves);
    u.scratch_moves = malloc(UCI_HISTORY_MAX * sizeof *u.scratch_moves);
    if (!u.search || !u.pos || !u.scratch || !u.start || !u.scratch_start || !u.moves || !u.scratch_moves ||
        !bayes_model_init(&u.model)) {
        fprintf(stderr, "feelfish: out of memory\n");
        return 1;
    }
    evaluator_classical(&u.eval);
    u.multipv = 1;
    u.elo = 1500;
    u.temperament = temperament_find("neutral");
    u.gain_percent = -1;
    u.auto_target = true;
    u.target = TARGET_CONSERVATIVE;
    snprintf(u.model_path, sizeof u.model_path, "data/feelfish.db");
    snprintf(u.style_path, sizeof u.style_path, "engine/style.model");
    fen_read(u.pos, FEN_STARTPOS, NULL, 0);
    position_copy_root(u.start, u.pos);

    char *line = malloc(LINE_MAX_LEN);
    while (line && fgets(line, LINE_MAX_LEN, in)) {
        size_t len = strlen(line);
        if (len == LINE_MAX_LEN - 1 && line[len - 1] != '\n') {
            int c;
            while ((c = fgetc(in)) != EOF && c != '\n')
                ;
            say(&u, "info string line too long, ignored");
            continue;
        }
        for (char *c = line; *c; c++) /* any white space between words (a tab too) is one space */
            if (isspace((unsigned char)*c))
                *c = ' ';
        while (len && line[len - 1] == ' ')
            line[--len] = 0;
        char *cmd = line;
        while (isspace((unsigned char)*cmd))
            cmd++;
        char *args = cmd;
        while (*args && !isspace((unsigned char)*args))
            args++;
        if (*args)
            *args++ = 0;
        while (isspace((unsigned char)*args))
            args++;
        if (!*cmd)
            continue;
        reap_search(&u);
        if (!strcmp(cmd, "uci")) {
            say(&u, "id name %s", ENGINE_NAME);
            say(&u, "id author the feelfish developers");
            list_options(&u);
            say(&u, "uciok");
        } else if (!strcmp(cmd, "isready"))
            say(&u, "readyok");
        else if (!strcmp(cmd, "debug"))
            u.debug = !strcmp(args, "on");
        else if (!strcmp(cmd, "setoption"))
            set_option(&u, args);
        else if (!strcmp(cmd, "ucinewgame")) {
            if (u.searching)
                say(&u, "info string ucinewgame ignored during a search");
            else
                search_clear(u.search);
        } else if (!strcmp(cmd, "position"))
            set_position(&u, args);
        else if (!strcmp(cmd, "go"))
            go(&u, args);
        else if (!strcmp(cmd, "stop")) {
            search_stop(u.search);
            wait_search(&u);
        } else if (!strcmp(cmd, "ponderhit"))
            search_ponderhit(u.search);
        else if (!strcmp(cmd, "quit"))
            break;
        else if (!strcmp(cmd, "d"))
            display(&u);
        else if (!strcmp(cmd, "eval"))
            show_eval(&u);
        else {
            char shown[64];
            snprintf(shown, sizeof shown, "%s", cmd);
            for (char *c = shown; *c; c++)
                if (!isprint((unsigned char)*c))
                    *c = '?';
            say(&u, "info string unknown command '%s'", shown);
        }
    }
    search_stop(u.search);
    wait_search(&u);
    free(line);
    search_free(u.search);
    free(u.pos);
    free(u.scratch);
    free(u.start);
    free(u.scratch_start);
    free(u.moves);
    free(u.scratch_moves);
    bayes_model_free(&u.model);
    pthread_mutex_destroy(&u.out_lock);
    return 0;
}
