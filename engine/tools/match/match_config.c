/* Arguments of `feelfish match` and its openings file: every bad value is refused with a one-line
 * reason before any engine starts, so a long match never dies on a typo halfway through. */
#include "match_config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../notation/fen.h"
#include "../../core/random.h"

#define MAX_GAMES 10000000
#define MAX_CONCURRENCY 256
#define OPENING_LINE_MAX 1024

void match_config_usage(FILE *f)
{
    fprintf(f, "usage: feelfish match --engine SPEC --engine SPEC LIMIT [OPTIONS]\n\n"
               "  --engine cmd=PATH[,name=NAME][,arg=ARG]...[,option.NAME=VALUE]...\n"
               "                         an engine (give two); option names may hold spaces;\n"
               "                         option.NAME without '=' presses a button option\n"
               "limits (at least one; --nodes and --depth may be combined with --tc; an engine's own\n"
               "tc=, movetime=, nodes= or depth= in its --engine replace them for it):\n"
               "  --tc BASE[+INC]        clock per game and increment per move, in seconds (10+0.1)\n"
               "  --movetime MS          time per move (overstepping it by the margin loses)\n"
               "  --nodes N              go nodes N\n"
               "  --depth N              go depth N\n"
               "  --time-margin MS       overstep allowed before a loss on time (default 20)\n"
               "  --move-timeout MS      hard limit per move without a clock (default 60000)\n"
               "games:\n"
               "  --games N              games in all (default 2)\n"
               "  --concurrency C        games played at once, each with its own engines (default 1)\n"
               "  --openings FILE.epd    start positions (FEN or EPD lines), each played twice with\n"
               "                         the colours swapped; default: the standard start\n"
               "  --opening-start K      first opening to use, counting from 0 (default 0)\n"
               "  --random-openings SEED shuffle the openings with this seed (then --opening-start)\n"
               "  --max-moves N          adjudicate a draw after N moves by each side (default off)\n"
               "  --sprt elo0=A,elo1=B[,alpha=0.05,beta=0.05]\n"
               "                         stop as soon as the GSPRT accepts H0 or H1\n"
               "output:\n"
               "  --pgn FILE             append every finished game to FILE\n"
               "  --resume               go on with the match whose games FILE holds: its games\n"
               "                         count, the missing ones are played (same engines, limits,\n"
               "                         openings and --games; an unfinished last game is cut)\n"
               "  --quiet                no per-game lines and no progress line\n"
               "  --help                 this text\n");
}

__attribute__((format(printf, 3, 4))) static bool fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return false;
}

static bool parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max)
        return false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < min || v > max)
        return false;
    *out = v;
    return true;
}

static char *dup_or_die(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static void *grow(void *p, size_t count, size_t size)
{
    void *q = realloc(p, count * size);
    if (!q)
        abort();
    return q;
}

/* cmd=PATH,name=NAME,arg=ARG,option.NAME=VALUE: commas separate, the first '=' splits. */
bool match_engine_config_parse(MatchEngineConfig *e, const char *spec, char *err, size_t size)
{
    char *copy = dup_or_die(spec), *save = NULL;
    bool ok = true;
    e->argv = grow(NULL, 2, sizeof *e->argv); /* argv[0] (the command, set below) and the NULL */
    e->argv[0] = e->argv[1] = NULL;
    for (char *item = strtok_r(copy, ",", &save); ok && item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!strncmp(item, "option.", 7)) {
            if (eq)
                *eq = 0;
            if (!item[7]) {
                ok = fail(err, size, "--engine: option with no name in '%s'", spec);
                break;
            }
            e->options = grow(e->options, (size_t)e->option_count + 1, sizeof *e->options);
            e->options[e->option_count].name = dup_or_die(item + 7);
            e->options[e->option_count++].value = eq ? dup_or_die(eq + 1) : NULL;
            continue;
        }
        if (!eq) {
            ok = fail(err, size, "--engine: expected KEY=VALUE, got '%s' in '%s'", item, spec);
            break;
        }
        *eq = 0;
        const char *value = eq + 1;
        if (!strcmp(item, "cmd") && *value) {
            free(e->cmd);
            e->cmd = dup_or_die(value);
        } else if (!strcmp(item, "name") && *value) {
            free(e->name);
            e->name = dup_or_die(value);
        } else if (!strcmp(item, "arg")) {
            e->argv = grow(e->argv, (size_t)e->argc + 3, sizeof *e->argv);
            e->argv[1 + e->argc++] = dup_or_die(value);
            e->argv[1 + e->argc] = NULL;
        } else {
            ok = fail(err, size, "--engine: unknown or empty key '%s' in '%s' (cmd, name, arg, option.NAME)", item,
                      spec);
        }
    }
    free(copy);
    if (ok && !e->cmd)
        ok = fail(err, size, "--engine: no cmd=PATH in '%s'", spec);
    if (ok) {
        e->argv[0] = e->cmd;
        if (strchr(e->cmd, '/') && access(e->cmd, X_OK))
            ok = fail(err, size, "--engine: cannot execute '%s': %s", e->cmd, strerror(errno));
    }
    return ok;
}

static bool parse_tc(MatchLimits *c, const char *s, char *err, size_t size)
{
    char base_text[32] = "", *plus = strchr(s, '+');
    double base, inc = 0;
    if (strlen(s) >= sizeof base_text)
        return fail(err, size, "--tc: '%s' is not BASE or BASE+INC in seconds", s);
    memcpy(base_text, s, plus ? (size_t)(plus - s) : strlen(s));
    if (!parse_double(base_text, 0.001, 1e6, &base) || (plus && !parse_double(plus + 1, 0, 1e4, &inc)))
        return fail(err, size, "--tc: '%s' is not BASE or BASE+INC in seconds (e.g. 10+0.1, 60)", s);
    c->has_tc = true;
    c->base_ms = llround(base * 1000);
    c->inc_ms = llround(inc * 1000);
    if (inc > 0)
        snprintf(c->tc_text, sizeof c->tc_text, "%g+%g", base, inc);
    else
        snprintf(c->tc_text, sizeof c->tc_text, "%g", base);
    return true;
}

static bool parse_sprt(MatchSprt *p, const char *s, char *err, size_t size)
{
    char *copy = dup_or_die(s), *save = NULL;
    bool ok = true, has0 = false, has1 = false;
    p->alpha = p->beta = 0.05;
    for (char *item = strtok_r(copy, ",", &save); ok && item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        double v;
        if (!eq || !parse_double(eq + 1, -2000, 2000, &v)) {
            ok = false;
            break;
        }
        *eq = 0;
        if (!strcmp(item, "elo0"))
            p->elo0 = v, has0 = true;
        else if (!strcmp(item, "elo1"))
            p->elo1 = v, has1 = true;
        else if (!strcmp(item, "alpha") && v > 0 && v < 0.5)
            p->alpha = v;
        else if (!strcmp(item, "beta") && v > 0 && v < 0.5)
            p->beta = v;
        else
            ok = false;
    }
    free(copy);
    if (!ok || !has0 || !has1 || p->elo1 <= p->elo0)
        return fail(err, size, "--sprt: '%s' is not elo0=A,elo1=B[,alpha=X,beta=Y] with A < B and 0 < X, Y < 0.5", s);
    return true;
}

/* FEN or EPD lines: the first four fields, plus the two clocks when they are there as numbers. */
bool openings_load(const char *path, char ***list, int *list_count, char *err, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, size, "--openings: cannot open %s: %s", path, strerror(errno));
    Position *p = malloc(sizeof *p);
    if (!p)
        abort();
    char line[OPENING_LINE_MAX], fen[OPENING_LINE_MAX], msg[200], where[64];
    bool ok = true;
    for (int n = 1; ok && fgets(line, sizeof line, f); n++) {
        snprintf(where, sizeof where, "%s line %d", path, n);
        if (!strchr(line, '\n') && !feof(f)) {
            ok = fail(err, size, "--openings: %s: line too long", where);
            break;
        }
        char *field[6], *save = NULL;
        int count = 0;
        for (char *t = strtok_r(line, " \t\r\n", &save); t && count < 6; t = strtok_r(NULL, " \t\r\n", &save))
            field[count++] = t;
        if (count == 0 || field[0][0] == '#')
            continue;
        long clock;
        bool clocks = count == 6 && parse_long(field[4], 0, 9999, &clock) && parse_long(field[5], 1, 9999, &clock);
        snprintf(fen, sizeof fen, "%s %s %s %s %s %s", field[0], count > 1 ? field[1] : "", count > 2 ? field[2] : "",
                 count > 3 ? field[3] : "", clocks ? field[4] : "0", clocks ? field[5] : "1");
        if (count < 4 || fen_read(p, fen, msg, sizeof msg) != FEN_OK) {
            ok = fail(err, size, "--openings: %s: not a FEN: %s", where, count < 4 ? "fewer than 4 fields" : msg);
            break;
        }
        char normal[FEN_BUFFER_SIZE];
        *list = grow(*list, (size_t)*list_count + 1, sizeof **list);
        (*list)[(*list_count)++] = dup_or_die(fen_write(p, normal));
    }
    if (ok && ferror(f))
        ok = fail(err, size, "--openings: cannot read %s", path);
    if (ok && *list_count == 0)
        ok = fail(err, size, "--openings: no positions in %s", path);
    free(p);
    fclose(f);
    return ok;
}

/* Flags with a whole-number value and its range (limit: an engine may name it for itself, without
 * the dashes); the rest of the valued flags after them. */
static const struct {
    const char *name;
    long min, max;
    bool limit;
} Numbers[] = {{"--movetime", 1, 86400000, true},
               {"--nodes", 1, 1000000000000L, true},
               {"--depth", 1, 200, true},
               {"--time-margin", 0, 3600000, false},
               {"--move-timeout", 1, 86400000, false},
               {"--games", 1, MAX_GAMES, false},
               {"--concurrency", 1, MAX_CONCURRENCY, false},
               {"--opening-start", 0, MAX_GAMES, false},
               {"--max-moves", 1, 100000, false}};
static const char *const Valued[] = {"--engine", "--tc", "--openings", "--random-openings", "--sprt", "--pgn"};

/* The index in Numbers of a whole-number flag, -1 for another. */
static int number_flag(const char *name)
{
    for (int k = 0; k < (int)(sizeof Numbers / sizeof *Numbers); k++)
        if (!strcmp(name, Numbers[k].name))
            return k;
    return -1;
}

/* Stores a checked limit (--movetime, --nodes, --depth) in l; false for another flag. */
static bool set_limit(MatchLimits *l, const char *name, long v)
{
    if (!strcmp(name, "--movetime"))
        l->movetime_ms = v;
    else if (!strcmp(name, "--nodes"))
        l->nodes = v;
    else if (!strcmp(name, "--depth"))
        l->depth = (int)v;
    else
        return false;
    return true;
}

/* Checks a set of limits and writes its text; engine: the engine whose own they are, NULL: the flags'. */
static bool limits_finish(MatchLimits *l, const char *engine, char *err, size_t size)
{
    if (!l->has_tc && !l->nodes && !l->depth && !l->movetime_ms)
        return fail(err, size, "no limit: give --tc, --movetime, --nodes or --depth");
    if (l->has_tc && l->movetime_ms)
        return engine ? fail(err, size, "--engine %s: tc= and movetime= cannot be combined", engine)
                      : fail(err, size, "--tc and --movetime cannot be combined");
    char text[sizeof l->text]; /* (written apart from l: gcc cannot tell its fields apart) */
    int at = 0;
    if (l->has_tc)
        at += snprintf(text + at, sizeof text - (size_t)at, "tc %s ", l->tc_text);
    if (l->movetime_ms)
        at += snprintf(text + at, sizeof text - (size_t)at, "movetime %lld ms ", (long long)l->movetime_ms);
    if (l->nodes)
        at += snprintf(text + at, sizeof text - (size_t)at, "nodes %ld ", l->nodes);
    if (l->depth)
        at += snprintf(text + at, sizeof text - (size_t)at, "depth %d ", l->depth);
    text[at - 1] = 0;
    memcpy(l->text, text, sizeof text);
    return true;
}

/* An engine's own limits out of its --engine description: the items tc=, movetime=, nodes= and
 * depth= go to *own (*has_own set), the rest is left in rest for match_engine_config_parse. */
static bool engine_limits(const char *spec, MatchLimits *own, bool *has_own, char *rest, char *err, size_t size)
{
    char *copy = dup_or_die(spec), *save = NULL;
    bool ok = true;
    *rest = 0;
    for (char *item = strtok_r(copy, ",", &save); ok && item; item = strtok_r(NULL, ",", &save)) {
        const char *eq = strchr(item, '=');
        char flag[24];
        snprintf(flag, sizeof flag, "--%.*s", eq ? (int)(eq - item) : 0, item);
        int number = eq ? number_flag(flag) : -1;
        long v;
        if (eq && !strcmp(flag, "--tc")) {
            ok = parse_tc(own, eq + 1, err, size);
        } else if (number >= 0 && Numbers[number].limit) {
            if (!parse_long(eq + 1, Numbers[number].min, Numbers[number].max, &v))
                ok = fail(err, size, "--engine: %s='%s' is not a whole number from %ld to %ld", flag + 2, eq + 1,
                          Numbers[number].min, Numbers[number].max);
            else
                set_limit(own, flag, v);
        } else {
            strcat(strcat(rest, *rest ? "," : ""), item);
            continue;
        }
        *has_own = true;
    }
    free(copy);
    return ok;
}

static const char *engine_label(const MatchEngineConfig *e) { return e->name ? e->name : e->cmd; }

/* Stores a checked whole-number flag. */
static void set_number(MatchConfig *c, MatchLimits *common, const char *name, long v)
{
    if (set_limit(common, name, v))
        return;
    if (!strcmp(name, "--time-margin"))
        c->time_margin_ms = (int)v;
    else if (!strcmp(name, "--move-timeout"))
        c->move_timeout_ms = (int)v;
    else if (!strcmp(name, "--games"))
        c->games = (int)v;
    else if (!strcmp(name, "--concurrency"))
        c->concurrency = (int)v;
    else if (!strcmp(name, "--opening-start"))
        c->opening_start = (int)v;
    else
        c->max_moves = (int)v;
}

bool match_config_parse(MatchConfig *c, int argc, char **argv, char *err, size_t size)
{
    memset(c, 0, sizeof *c);
    c->games = 2;
    c->concurrency = 1;
    c->time_margin_ms = 20;
    c->move_timeout_ms = 60000;
    const char *openings = NULL, *seed_text = NULL;
    int engines = 0;
    MatchLimits common = {0};
    bool own[2] = {false, false};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            c->help = true;
            return true;
        }
        if (!strcmp(a, "--quiet")) {
            c->quiet = true;
            continue;
        }
        if (!strcmp(a, "--resume")) {
            c->resume = true;
            continue;
        }
        char name[32];
        const char *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), a);
        int number = number_flag(name);
        bool known = false;
        for (size_t k = 0; k < sizeof Valued / sizeof *Valued; k++)
            known |= !strcmp(name, Valued[k]);
        if (!known && number < 0)
            return fail(err, size, "%s '%s' (see --help)",
                        strncmp(a, "--", 2) ? "unexpected argument" : "unknown option", a);
        const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!val)
            return fail(err, size, "%s needs a value", name);
        if (number >= 0) {
            long v;
            if (!parse_long(val, Numbers[number].min, Numbers[number].max, &v))
                return fail(err, size, "%s: '%s' is not a whole number from %ld to %ld", name, val, Numbers[number].min,
                            Numbers[number].max);
            set_number(c, &common, name, v);
        } else if (!strcmp(name, "--engine")) {
            if (engines == 2)
                return fail(err, size, "--engine: only two engines play a match");
            char *rest = dup_or_die(val); /* (no longer than the description) */
            bool ok = engine_limits(val, &c->limits[engines], &own[engines], rest, err, size) &&
                      match_engine_config_parse(&c->engines[engines], rest, err, size);
            free(rest);
            engines++;
            if (!ok)
                return false;
        } else if (!strcmp(name, "--tc")) {
            if (!parse_tc(&common, val, err, size))
                return false;
        } else if (!strcmp(name, "--random-openings")) {
            char *end;
            errno = 0;
            strtoull(val, &end, 10);
            if (!*val || *end || errno)
                return fail(err, size, "--random-openings: '%s' is not a whole number (the seed)", val);
            seed_text = val;
        } else if (!strcmp(name, "--openings")) {
            openings = val;
        } else if (!strcmp(name, "--pgn")) {
            if (!*val)
                return fail(err, size, "--pgn needs a file name");
            c->pgn_path = val;
        } else if (!parse_sprt(&c->sprt, val, err, size)) {
            return false;
        } else {
            c->has_sprt = true;
        }
    }
    if (c->resume && !c->pgn_path)
        return fail(err, size, "--resume needs --pgn FILE (the games played so far)");
    if (engines != 2)
        return fail(err, size, "a match needs two engines: --engine cmd=PATH ... twice (got %s)",
                    engines ? "one" : "none");
    for (int k = 0; k < 2; k++) {
        if (!own[k])
            c->limits[k] = common;
        if (!limits_finish(&c->limits[k], own[k] ? engine_label(&c->engines[k]) : NULL, err, size))
            return false;
    }
    c->same_limits = !strcmp(c->limits[0].text, c->limits[1].text);
    if (c->same_limits)
        snprintf(c->limit_text, sizeof c->limit_text, "%s", c->limits[0].text);
    else
        for (int k = 0, at = 0; k < 2; k++)
            at += snprintf(c->limit_text + at, sizeof c->limit_text - (size_t)at, "%s%s %s", k ? ", " : "",
                           engine_label(&c->engines[k]), c->limits[k].text);
    if (c->concurrency > c->games)
        c->concurrency = c->games;
    if (!openings) {
        if (c->opening_start || seed_text)
            return fail(err, size, "%s needs --openings", c->opening_start ? "--opening-start" : "--random-openings");
        return true;
    }
    if (!openings_load(openings, &c->openings, &c->opening_count, err, size))
        return false;
    if (c->opening_start >= c->opening_count) {
        snprintf(err, size, "--opening-start %d: %s has only %d positions", c->opening_start, openings,
                 c->opening_count);
        return false;
    }
    c->order = grow(NULL, (size_t)c->opening_count, sizeof *c->order);
    for (int i = 0; i < c->opening_count; i++)
        c->order[i] = i;
    if (seed_text) {
        uint64_t s = strtoull(seed_text, NULL, 10);
        for (int i = c->opening_count - 1; i > 0; i--) {
            int j = (int)(splitmix64(&s) % (uint64_t)(i + 1));
            int t = c->order[i];
            c->order[i] = c->order[j];
            c->order[j] = t;
        }
    }
    return true;
}

const char *match_config_opening(const MatchConfig *c, int index)
{
    if (!c->opening_count)
        return FEN_STARTPOS;
    return c->openings[c->order[(c->opening_start + index / 2) % c->opening_count]];
}

void match_engine_config_free(MatchEngineConfig *e)
{
    for (int i = 0; i < e->argc; i++)
        free(e->argv[1 + i]);
    free(e->argv);
    free(e->cmd);
    free(e->name);
    for (int i = 0; i < e->option_count; i++) {
        free(e->options[i].name);
        free(e->options[i].value);
    }
    free(e->options);
    memset(e, 0, sizeof *e);
}

void match_config_free(MatchConfig *c)
{
    for (int k = 0; k < 2; k++)
        match_engine_config_free(&c->engines[k]);
    for (int i = 0; i < c->opening_count; i++)
        free(c->openings[i]);
    free(c->openings);
    free(c->order);
    memset(c, 0, sizeof *c);
}
