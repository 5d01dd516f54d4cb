/* `feelfish annotate IN.pgn`: every position of every game searched at a fixed budget by --threads
 * workers (each with its own search; the hash cleared before each position, so a position's
 * evaluation does not depend on what was searched before it), then reviewed (engine/review) and
 * written as an annotated PGN (--out) and a JSON line per game (--json, the API's shape). Progress
 * on stderr: games, positions, speed, ETA. Resumable: after each game the outputs are flushed to
 * disk and OUT.progress records how far they go; run again with the same arguments after an
 * interrupt (SIGINT, SIGTERM, a crash) and the finished games are kept, the partial one redone. */
#include "annotate.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../engine/engine.h"
#include "../../engine/review/review.h"
#include "../../engine/tools/match/match_config.h"
#include "../../engine/tools/match/match_engine.h"
#include "../api/encode_review.h"
#include "../api/eval_cache.h"
#include "../api/reply.h"
#include "../store/evals.h"
#include "../store/store.h"
#include "args.h"

#define MAX_PLIES 300 /* Lichess analyses the first 300 plies */
#define MAX_WORKERS 64

static volatile sig_atomic_t Interrupted;
static void on_signal(int sig) { Interrupted = sig; }

typedef struct {
    const char *in, *out, *json, *mode, *db;
    long nodes, depth, movetime, threads, hash, max_plies, games;
    bool second_look;        /* the blunders' positions searched again deeper (review_second_look) */
    Temperament temperament; /* affective: the one asked, at the gain asked (gain < 0: its own) */
    double gain;
    MatchEngineConfig engine; /* --engine: an external UCI engine evaluates instead (engine.cmd set) */
} Options;

/* One game's positions, shared by the workers. */
typedef struct {
    const Options *o;
    const Position *start;
    const Move *moves;
    int positions; /* n + 1 */
    ReviewPosition *result;
    bool *cached;      /* --db: the position's result came from the evaluation cache */
    int *depths;       /* each searched position's depth (0 from an --engine) ... */
    uint64_t *counts;  /* ... and nodes */
    Emotion *emotions; /* affective: the emotion of each position (its evaluator's), or NULL */
    bool deeper;       /* the second look: its limits; the positions it does not take are marked cached */
    pthread_mutex_t lock;
    int next, done;
    uint64_t nodes;
    bool stop, engine_failed;
} GameWork;

/* What a game's work owns (its moves and per-position arrays; not start, not the lock). */
static void game_work_free(GameWork *g)
{
    free((void *)g->moves);
    free(g->result);
    free(g->cached);
    free(g->depths);
    free(g->counts);
    free(g->emotions);
}

typedef struct {
    Search *search;  /* this engine's search, or */
    MatchEngine uci; /* the --engine process */
    GameWork *work;
    pthread_t thread;
} Worker;

#define UCI_TIMEOUT_MS 600000

/* The budget of a position's search: the options', or the second look's (review_second_look). */
static void pass_limits(const GameWork *g, int64_t *nodes, int64_t *depth, int64_t *movetime)
{
    *nodes = g->o->nodes;
    *depth = g->o->depth;
    *movetime = g->o->movetime;
    if (g->deeper)
        review_second_look_limits(nodes, depth, movetime);
}

/* The --engine's view of p: "ucinewgame" (a clean hash, as search_clear), then the same budget;
 * the last info line of the first line (score, pv) before bestmove. False if the engine failed. */
static bool uci_evaluate(Worker *w, const Position *p, ReviewPosition *r, uint64_t *nodes)
{
    int64_t nodes_limit, depth, movetime;
    pass_limits(w->work, &nodes_limit, &depth, &movetime);
    char fen[FEN_BUFFER_SIZE], line[MATCH_LINE_MAX], err[200];
    fen_write(p, fen);
    if (!match_engine_send(&w->uci, "ucinewgame") || !match_engine_sync(&w->uci, 10000, err, sizeof err) ||
        !match_engine_send(&w->uci, "position fen %s", fen))
        return false;
    if (nodes_limit)
        match_engine_send(&w->uci, "go nodes %lld", (long long)nodes_limit);
    else if (depth)
        match_engine_send(&w->uci, "go depth %lld", (long long)depth);
    else
        match_engine_send(&w->uci, "go movetime %lld", (long long)movetime);
    int64_t deadline = match_now_ns() + (int64_t)UCI_TIMEOUT_MS * 1000000;
    for (;;) {
        MatchReadResult rr = match_engine_read_line(&w->uci, line, sizeof line, deadline);
        if (rr != MATCH_READ_LINE)
            return false;
        if (!strncmp(line, "bestmove", 8))
            break;
        if (strncmp(line, "info ", 5) || strstr(line, " multipv 2") || !strstr(line, " score ") ||
            strstr(line, " lowerbound") || strstr(line, " upperbound"))
            continue;
        char *save = NULL;
        for (char *t = strtok_r(line + 5, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
            if (!strcmp(t, "score")) {
                const char *kind = strtok_r(NULL, " ", &save), *value = strtok_r(NULL, " ", &save);
                if (kind && value) {
                    r->is_mate = kind[0] == 'm';
                    r->mate = r->is_mate ? atoi(value) : 0;
                    r->cp = r->is_mate ? 0 : atoi(value);
                }
            } else if (!strcmp(t, "nodes")) {
                const char *v = strtok_r(NULL, " ", &save);
                *nodes = v ? strtoull(v, NULL, 10) : *nodes;
            } else if (!strcmp(t, "pv")) {
                review_line_from_uci(r, p, save ? save : "");
                break;
            }
        }
    }
    return true;
}

static void evaluate_position(Worker *w, int k)
{
    GameWork *g = w->work;
    Position *p = malloc(sizeof *p);
    if (!p)
        return;
    position_copy(p, g->start);
    for (int i = 0; i < k; i++) {
        if (p->stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(p);
        position_make_move(p, g->moves[i]);
    }
    ReviewPosition *r = &g->result[k], first = *r; /* first: the first pass's, kept if a second look fails */
    memset(r, 0, sizeof *r);
    r->has = true;
    Evaluator eval;
    if (g->emotions) {
        affective_emotion(p, NULL, &g->o->temperament, &g->emotions[k]);
        affective_evaluator(&g->emotions[k], &eval);
    } else
        evaluator_classical(&eval);
    if (movegen_count(p) == 0) { /* checkmate (mate 0) or stalemate: nothing to search */
        review_position_from_search(r, p, NULL);
        free(p);
        return;
    }
    uint64_t nodes = 0;
    if (!w->search) {
        if (!uci_evaluate(w, p, r, &nodes)) {
            if (g->deeper)
                *r = first;
            else
                r->has = false; /* no eval for this position: lila's Info with an empty eval */
            pthread_mutex_lock(&g->lock);
            g->engine_failed = true;
            pthread_mutex_unlock(&g->lock);
        }
    } else {
        SearchLimits l;
        search_limits_init(&l);
        int64_t nodes_limit, depth, movetime;
        pass_limits(g, &nodes_limit, &depth, &movetime);
        l.nodes = (uint64_t)nodes_limit;
        l.depth = (int)depth;
        l.movetime = movetime;
        search_clear(w->search);
        SearchResult res;
        search_run(w->search, p, &l, &eval, NULL, &res);
        review_position_from_search(r, p, &res);
        nodes = res.nodes;
        g->depths[k] = res.depth;
    }
    g->counts[k] = nodes;
    pthread_mutex_lock(&g->lock);
    g->nodes += nodes;
    pthread_mutex_unlock(&g->lock);
    free(p);
}

static void *worker_main(void *arg)
{
    Worker *w = arg;
    GameWork *g = w->work;
    for (;;) {
        pthread_mutex_lock(&g->lock);
        int k = g->stop || g->next >= g->positions ? -1 : g->next++;
        pthread_mutex_unlock(&g->lock);
        if (k < 0)
            break;
        if (!g->cached[k])
            evaluate_position(w, k);
        pthread_mutex_lock(&g->lock);
        g->done++;
        pthread_mutex_unlock(&g->lock);
    }
    return NULL;
}

/* ---- --db: the server's evaluation cache (api/eval_cache.h), shared with its game analyses ---- */

/* How the positions are searched, as the server's game analysis keys it: mode and limits, the
 * temperament when not the default one, the gain when asked, the external engine's command. */
static json_t *cache_how(const GameWork *g)
{
    const Options *o = g->o;
    int64_t nodes, depth, movetime;
    pass_limits(g, &nodes, &depth, &movetime);
    json_t *limits = json_object(), *how = json_pack("{s:s}", "mode", o->mode);
    if (nodes)
        json_object_set_new(limits, "nodes", json_integer(nodes));
    else if (depth)
        json_object_set_new(limits, "depth", json_integer(depth));
    else
        json_object_set_new(limits, "movetime", json_integer(movetime));
    json_object_set_new(how, "limits", limits);
    if (!strcmp(o->mode, "affective") && (strcmp(o->temperament.name, "neutral") || o->gain >= 0)) {
        json_t *affective = json_object();
        if (strcmp(o->temperament.name, "neutral"))
            json_object_set_new(affective, "temperament", json_string(o->temperament.name));
        if (o->gain >= 0)
            json_object_set_new(affective, "gain", json_real(o->gain));
        json_object_set_new(how, "affective", affective);
    }
    if (o->engine.cmd)
        json_object_set_new(how, "engine", json_string(o->engine.cmd));
    return how;
}

/* Each position's FEN, in order (n + 1 of them); NULL when out of memory. */
static char (*game_fens(const GameWork *g))[FEN_BUFFER_SIZE]
{
    char(*fens)[FEN_BUFFER_SIZE] = malloc(sizeof *fens * (size_t)g->positions);
    Position *p = malloc(sizeof *p);
    if (fens && p) {
        position_copy(p, g->start);
        for (int k = 0; k < g->positions; k++) {
            fen_write(p, fens[k]);
            if (k + 1 < g->positions) {
                position_trim_history(p);
                position_make_move(p, g->moves[k]);
            }
        }
    } else {
        free(fens);
        fens = NULL;
    }
    free(p);
    return fens;
}

/* Marks the positions of this pass the cache holds (of those not marked yet), with their results (and,
 * affective, their emotions). */
static int cache_look_up(sqlite3 *db, const Options *o, GameWork *g)
{
    char(*fens)[FEN_BUFFER_SIZE] = db ? game_fens(g) : NULL;
    json_t *how = cache_how(g);
    int hits = 0;
    static Position p;
    for (int k = 0; fens && k < g->positions; k++) {
        if (g->cached[k])
            continue;
        char *key = eval_cache_key(fens[k], how), *value = key ? store_cache_lookup(db, key) : NULL;
        if (value && eval_cache_parse(value, fens[k], &g->result[k], &g->depths[k], &g->counts[k])) {
            g->cached[k] = true;
            hits++;
            if (g->emotions && fen_read(&p, fens[k], NULL, 0) == FEN_OK)
                affective_emotion(&p, NULL, &o->temperament, &g->emotions[k]);
        }
        free(key);
        free(value);
    }
    json_decref(how);
    free(fens);
    return hits;
}

/* Writes the positions this pass searched (one transaction). */
static void cache_store(sqlite3 *db, const GameWork *g)
{
    char(*fens)[FEN_BUFFER_SIZE] = db ? game_fens(g) : NULL;
    json_t *how = cache_how(g);
    char err[200];
    bool ok = fens && store_exec(db, "BEGIN IMMEDIATE", err, sizeof err);
    for (int k = 0; ok && k < g->positions; k++) {
        if (g->cached[k] || !g->result[k].has)
            continue;
        char *key = eval_cache_key(fens[k], how), *value = eval_cache_value(&g->result[k], g->depths[k], g->counts[k]);
        ok = key && value && store_cache_store(db, key, value);
        free(key);
        free(value);
    }
    if (fens && (!ok || !store_exec(db, "COMMIT", err, sizeof err))) {
        fprintf(stderr, "annotate: --db: the evaluations could not be written (%s)\n", sqlite3_errmsg(db));
        store_exec(db, "ROLLBACK", err, sizeof err);
    }
    json_decref(how);
    free(fens);
}

/* ---- progress, kept beside the output ---- */

typedef struct {
    long long in_size, pgn_bytes, json_bytes;
    int games;
    char settings[200];
} Progress;

static void progress_path(const Options *o, char *out, size_t size) { snprintf(out, size, "%s.progress", o->out); }

static bool progress_read(const Options *o, Progress *p)
{
    char path[1100];
    progress_path(o, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[300];
    memset(p, 0, sizeof *p);
    bool ok = fgets(line, sizeof line, f) && !strcmp(line, "feelfish-annotate 1\n");
    ok = ok && fscanf(f, "input-size %lld\ngames %d\npgn-bytes %lld\njson-bytes %lld\nsettings ", &p->in_size,
                      &p->games, &p->pgn_bytes, &p->json_bytes) == 4;
    ok = ok && fgets(p->settings, sizeof p->settings, f);
    fclose(f);
    p->settings[strcspn(p->settings, "\n")] = 0;
    return ok;
}

static bool progress_write(const Options *o, const Progress *p)
{
    char path[1100], tmp[1200];
    progress_path(o, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return false;
    fprintf(f, "feelfish-annotate 1\ninput-size %lld\ngames %d\npgn-bytes %lld\njson-bytes %lld\nsettings %s\n",
            p->in_size, p->games, p->pgn_bytes, p->json_bytes, p->settings);
    bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    return ok && rename(tmp, path) == 0;
}

static bool sync_file(FILE *f) { return fflush(f) == 0 && fsync(fileno(f)) == 0; }

static void format_time(double s, char *out, size_t size)
{
    if (s < 0 || s > 1e7)
        snprintf(out, size, "?");
    else if (s >= 3600)
        snprintf(out, size, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else
        snprintf(out, size, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

/* Where the whole run stands, for the progress line. */
typedef struct {
    int index, games;
    int64_t t0;
    long long done_positions, skipped_positions, positions;
    uint64_t nodes_total;
    bool tty;
} Meter;

/* Runs the workers over this pass's positions of `work` until every one is done or an interrupt
 * stops them, showing progress on a terminal; true when all were done. */
static bool run_pass(Worker *workers, int nw, GameWork *work, const Meter *m)
{
    work->next = work->done = 0;
    for (int i = 0; i < nw; i++) {
        workers[i].work = work;
        pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
    }
    for (int shown = -1;;) {
        pthread_mutex_lock(&work->lock);
        int d = work->done;
        uint64_t n = work->nodes;
        if (Interrupted && !work->stop) {
            work->stop = true;
            for (int i = 0; i < nw; i++)
                if (workers[i].search)
                    search_stop(workers[i].search);
                else
                    match_engine_send(&workers[i].uci, "stop");
        }
        pthread_mutex_unlock(&work->lock);
        if (d == work->positions || work->stop)
            break;
        if (m->tty && d != shown) { /* in the second look the game's positions all have their search */
            double secs = (double)(time_now_ms() - m->t0) / 1000.0;
            long long now = m->done_positions + (work->deeper ? work->positions : d);
            char eta[32];
            format_time(now ? secs / (double)now * (double)(m->positions - m->skipped_positions - now) : -1, eta,
                        sizeof eta);
            fprintf(stderr, "\rannotate: game %d/%d%s, positions %lld/%lld, %.0f kN/s, ETA %s   ", m->index + 1,
                    m->games, work->deeper ? " (second look)" : "", m->skipped_positions + now, m->positions,
                    secs > 0 ? (double)(m->nodes_total + n) / secs / 1000 : 0.0, eta);
            shown = d;
        }
        usleep(100000);
    }
    for (int i = 0; i < nw; i++)
        pthread_join(workers[i].thread, NULL);
    return work->done == work->positions && !work->stop;
}

/* The second look (review_second_look): the positions around the moves the first pass judged
 * blunders searched again with the larger budget (or read from the cache under it), their results
 * replacing the first ones. *again: how many. False if interrupted. */
static bool second_look(Worker *workers, int nw, GameWork *work, sqlite3 *db, const Meter *m, int *again)
{
    *again = 0;
    Review r;
    bool *marks = calloc((size_t)work->positions, sizeof *marks);
    if (!marks || !review_build(&r, work->start, work->moves, work->positions - 1, work->result)) {
        free(marks);
        fprintf(stderr, "annotate: out of memory for the second look: the game is reviewed from its first searches\n");
        return true;
    }
    *again = review_second_look(&r, marks);
    review_free(&r);
    bool finished = true;
    if (*again) {
        work->deeper = true;
        for (int k = 0; k < work->positions; k++)
            work->cached[k] = !marks[k]; /* not in the second look: its result stands */
        cache_look_up(db, work->o, work);
        finished = run_pass(workers, nw, work, m);
        if (finished && db)
            cache_store(db, work);
        work->deeper = false;
    }
    free(marks);
    return finished;
}

/* A searched game reviewed and written: the annotated PGN to out, its JSON line to json (if any). The
 * game's moves past `plies` (--max-plies) are left out, as Lichess does. */
static bool write_game(FILE *out, FILE *json, const PgnGame *g, int plies, int index, const GameWork *work, char *err,
                       size_t err_size)
{
    PgnGame head = *g; /* the game cut at plies (a view: g keeps its moves) */
    head.move_count = plies;
    Review r;
    PgnGame annotated;
    if (!review_build(&r, work->start, work->moves, plies, work->result)) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    if (!review_annotate(&r, &head, &annotated, err, err_size)) {
        review_free(&r);
        return false;
    }
    char *text = pgn_write(&annotated);
    fprintf(out, "%s\n", text ? text : "");
    free(text);
    pgn_game_free(&annotated);
    if (json) {
        json_t *o = encode_review(&r, work->start, work->emotions);
        json_object_set_new(o, "game", json_integer(index + 1));
        static const char *const Tags[][2] = {
            {"White", "white"}, {"Black", "black"}, {"Result", "result"}, {"Event", "event"}, {"Date", "date"}};
        for (size_t t = 0; t < sizeof Tags / sizeof Tags[0]; t++)
            if (pgn_tag(g, Tags[t][0]))
                json_object_set_new(o, Tags[t][1], json_string(pgn_tag(g, Tags[t][0])));
        char *line = api_dumps(o, false);
        json_decref(o);
        fprintf(json, "%s\n", line ? line : "null");
        free(line);
    }
    review_free(&r);
    return true;
}

static int usage(const char *why)
{
    fprintf(
        stderr,
        "annotate: %s\n"
        "usage: feelfish annotate IN.pgn [--nodes N | --depth D | --movetime MS] [--mode classical|affective]\n"
        "                         [--temperament T] [--gain G] [--threads N] [--hash MB] [--max-plies N] [--games N]\n"
        "                         [--out OUT.pgn] [--json OUT.ndjson] [--engine cmd=PATH[,option.NAME=VALUE]...]\n"
        "                         [--db FILE] [--no-second-look]\n"
        "  every game of IN.pgn analysed as Lichess's computer analysis (1,000,000 nodes per position by\n"
        "  default), written to OUT.pgn (default IN.annotated.pgn) with [%%eval], judgements and better\n"
        "  lines, and with --json one line per game in the API's shape. Interrupted, it resumes where it\n"
        "  stopped when run again with the same arguments. --games N: the first N games only. --engine: an\n"
        "  external UCI engine (e.g. /usr/games/stockfish) evaluates the positions instead, through the same\n"
        "  review, for comparison. --db FILE: the server's database; its evaluation cache is read (a position\n"
        "  searched before with the same mode and limits is not searched again) and filled. The two positions\n"
        "  around each move judged a blunder are searched again with four times the budget (two plies deeper\n"
        "  for --depth) before the review is final; --no-second-look: as Lichess, one search a position.\n",
        why);
    return 2;
}

int annotate_command(int argc, char **argv, FILE *unused)
{
    (void)unused; /* the outputs are files, the progress goes to stderr */
    Options o = {
        .mode = "classical", .threads = 1, .hash = 16, .max_plies = MAX_PLIES, .gain = -1, .second_look = true};
    const char *temper = "neutral";
    static char default_out[1024];
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true, flag = a[0] == '-' && a[1] == '-';
        if (!flag) {
            if (o.in)
                return usage("one input file only");
            o.in = a;
            continue;
        }
        if (!strcmp(a, "--no-second-look")) {
            o.second_look = false;
            continue;
        }
        i++;
        if (!strcmp(a, "--nodes"))
            ok = args_long("annotate", a, v, 1, 1L << 40, &o.nodes);
        else if (!strcmp(a, "--depth"))
            ok = args_long("annotate", a, v, 1, MAX_PLY - 1, &o.depth);
        else if (!strcmp(a, "--movetime"))
            ok = args_long("annotate", a, v, 1, 1L << 31, &o.movetime);
        else if (!strcmp(a, "--threads"))
            ok = args_long("annotate", a, v, 1, MAX_WORKERS, &o.threads);
        else if (!strcmp(a, "--hash"))
            ok = args_long("annotate", a, v, 1, 32768, &o.hash);
        else if (!strcmp(a, "--games"))
            ok = args_long("annotate", a, v, 1, 100000000, &o.games);
        else if (!strcmp(a, "--max-plies"))
            ok = args_long("annotate", a, v, 1, 2000, &o.max_plies);
        else if (!strcmp(a, "--mode") && v)
            o.mode = v;
        else if (!strcmp(a, "--temperament") && v)
            temper = v;
        else if (!strcmp(a, "--gain"))
            ok = args_double("annotate", a, v, 0, AFFECTIVE_GAIN_MAX, &o.gain);
        else if (!strcmp(a, "--out") && v)
            o.out = v;
        else if (!strcmp(a, "--db") && v)
            o.db = v;
        else if (!strcmp(a, "--json") && v)
            o.json = v;
        else if (!strcmp(a, "--engine") && v) {
            char why[300];
            char spec[1200];
            snprintf(spec, sizeof spec, "%s%s", strncmp(v, "cmd=", 4) ? "cmd=" : "", v);
            if (!match_engine_config_parse(&o.engine, spec, why, sizeof why)) {
                fprintf(stderr, "annotate: --engine: %s\n", why);
                return 2;
            }
        } else {
            char why[200];
            snprintf(why, sizeof why, "unknown or incomplete argument '%s'", a);
            return usage(why);
        }
        if (!ok)
            return 2;
    }
    if (!o.in)
        return usage("which PGN file?");
    if (strcmp(o.mode, "classical") && strcmp(o.mode, "affective")) {
        fprintf(stderr, "annotate: mode '%s': annotate knows classical and affective (bayesian: not yet)\n", o.mode);
        return 2;
    }
    const Temperament *temperament = temperament_find(temper);
    if (!temperament) {
        fprintf(stderr, "annotate: temperament '%s' is not one of " TEMPERAMENT_NAMES "\n", temper);
        return 2;
    }
    o.temperament = temperament_at_gain(temperament, o.gain);
    if (!o.nodes && !o.depth && !o.movetime)
        o.nodes = 1000000; /* Lichess's budget for a requested analysis */
    if (!o.out) {
        size_t n = strlen(o.in);
        snprintf(default_out, sizeof default_out, "%.*s.annotated.pgn",
                 (int)(n > 4 && !strcmp(o.in + n - 4, ".pgn") ? n - 4 : n), o.in);
        o.out = default_out;
    }
    struct stat st;
    FILE *in = fopen(o.in, "r");
    if (!in || fstat(fileno(in), &st)) {
        fprintf(stderr, "annotate: cannot read %s: %s\n", o.in, strerror(errno));
        if (in)
            fclose(in);
        return 1;
    }

    /* First pass: how much work there is. */
    PgnReader *rd = pgn_reader_open(in);
    PgnGame g = {0};
    char err[300];
    int games = 0;
    long long positions = 0;
    for (PgnResult res; (!o.games || games < o.games) && (res = pgn_read_game(rd, &g, err, sizeof err)) != PGN_END;
         pgn_game_free(&g)) {
        games++;
        if (res == PGN_GAME)
            positions += 1 + (g.move_count < o.max_plies ? g.move_count : o.max_plies);
    }
    pgn_game_free(&g);
    pgn_reader_close(rd);

    /* Resume? Only what the same settings wrote for the same input. */
    Progress prog = {0};
    snprintf(prog.settings, sizeof prog.settings,
             "mode=%s temperament=%s nodes=%ld depth=%ld movetime=%ld plies=%ld engine=%s second-look=%d", o.mode,
             temper, o.nodes, o.depth, o.movetime, o.max_plies, o.engine.cmd ? o.engine.cmd : "feelfish",
             o.second_look);
    Progress old;
    bool resume = progress_read(&o, &old) && old.in_size == (long long)st.st_size &&
                  !strcmp(old.settings, prog.settings) && old.games <= games;
    if (resume) {
        prog = old;
        if (truncate(o.out, prog.pgn_bytes) || (o.json && truncate(o.json, prog.json_bytes))) {
            fprintf(stderr, "annotate: cannot resume (%s): starting over\n", strerror(errno));
            resume = false;
            memset(&prog, 0, sizeof prog);
            snprintf(prog.settings, sizeof prog.settings, "%s", old.settings);
        }
    }
    prog.in_size = (long long)st.st_size;
    FILE *out = fopen(o.out, resume ? "a" : "w");
    FILE *json = o.json ? fopen(o.json, resume ? "a" : "w") : NULL;
    if (!out || (o.json && !json)) {
        fprintf(stderr, "annotate: cannot write %s: %s\n", !out ? o.out : o.json, strerror(errno));
        fclose(in);
        if (out)
            fclose(out);
        if (json)
            fclose(json);
        return 1;
    }
    if (resume)
        fprintf(stderr, "annotate: resuming after %d finished games of %d (kept, not redone)\n", prog.games, games);
    else if (!progress_write(&o, &prog))
        fprintf(stderr, "annotate: cannot write %s.progress: an interrupt will not be resumable\n", o.out);

    Worker workers[MAX_WORKERS];
    int nw = (int)o.threads;
    memset(workers, 0, sizeof workers);
    for (int i = 0; i < nw; i++) {
        if (o.engine.cmd) {
            char why[300];
            if (match_engine_start(&workers[i].uci, &o.engine, 10000, true, NULL, 0, why, sizeof why) !=
                    MATCH_STARTED ||
                !match_engine_send(&workers[i].uci, "setoption name Threads value 1") ||
                !match_engine_send(&workers[i].uci, "setoption name Hash value %ld", o.hash)) {
                fprintf(stderr, "annotate: --engine %s: %s\n", o.engine.cmd, why);
                return 1;
            }
            continue;
        }
        workers[i].search = search_new();
        if (!workers[i].search || !search_set_hash(workers[i].search, (size_t)o.hash)) {
            fprintf(stderr, "annotate: cannot allocate %ld MB of hash per thread\n", o.hash);
            return 1;
        }
    }
    sqlite3 *db = NULL;
    if (o.db && !(db = store_open_db(o.db, err, sizeof err))) {
        fprintf(stderr, "annotate: --db %s: %s\n", o.db, err);
        return 1;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    bool tty = isatty(2);
    int64_t t0 = time_now_ms();
    long long done_positions = 0, skipped_positions = 0, cached_positions = 0;
    uint64_t nodes_total = 0;
    int done_games = 0, bad = 0;
    rewind(in);
    rd = pgn_reader_open(in);
    for (int index = 0; !Interrupted && index < games; index++) {
        PgnResult res = pgn_read_game(rd, &g, err, sizeof err);
        if (res == PGN_END)
            break;
        int plies = g.move_count < o.max_plies ? g.move_count : (int)o.max_plies;
        if (index < prog.games || res == PGN_BAD_GAME) {
            if (res == PGN_BAD_GAME && index >= prog.games) {
                fprintf(stderr, "annotate: game %d skipped: %s\n", index + 1, err);
                bad++;
                prog.games++;
            } else
                skipped_positions += plies + 1;
            pgn_game_free(&g);
            continue;
        }
        Position *start = malloc(sizeof *start);
        Move *moves = malloc(sizeof *moves * (size_t)(plies + 1));
        GameWork work = {.o = &o, .moves = moves, .positions = plies + 1};
        work.result = calloc((size_t)plies + 1, sizeof *work.result);
        work.cached = calloc((size_t)plies + 1, sizeof *work.cached);
        work.depths = calloc((size_t)plies + 1, sizeof *work.depths);
        work.counts = calloc((size_t)plies + 1, sizeof *work.counts);
        work.emotions = !strcmp(o.mode, "affective") ? calloc((size_t)plies + 1, sizeof *work.emotions) : NULL;
        if (!start || !moves || !work.result || !work.cached || !work.depths || !work.counts ||
            !pgn_start_position(&g, start, err, sizeof err)) {
            fprintf(stderr, "annotate: game %d: %s\n", index + 1, start && moves ? err : "out of memory");
            free(start);
            game_work_free(&work);
            pgn_game_free(&g);
            break;
        }
        for (int i = 0; i < plies; i++)
            moves[i] = g.moves[i].move;
        work.start = start;
        int hits = cache_look_up(db, &o, &work);
        cached_positions += hits;
        pthread_mutex_init(&work.lock, NULL);
        Meter meter = {index, games, t0, done_positions, skipped_positions, positions, nodes_total, tty};
        bool finished = run_pass(workers, nw, &work, &meter);
        if (finished && db)
            cache_store(db, &work);
        int again = 0;
        if (finished && o.second_look)
            finished = second_look(workers, nw, &work, db, &meter, &again);
        if (work.engine_failed)
            fprintf(stderr, "annotate: game %d: the engine failed on some positions (left without an eval)\n",
                    index + 1);
        if (finished) {
            if (!write_game(out, json, &g, plies, index, &work, err, sizeof err))
                fprintf(stderr, "annotate: game %d: %s\n", index + 1, err);
            if (sync_file(out) && (!json || sync_file(json))) {
                prog.games = index + 1;
                prog.pgn_bytes = ftell(out);
                prog.json_bytes = json ? ftell(json) : 0;
                progress_write(&o, &prog);
            }
            done_games++;
            done_positions += work.positions;
            nodes_total += work.nodes;
            if (!tty)
                fprintf(stderr,
                        "annotate: game %d/%d done (%d positions, %d from the cache), %lld/%lld positions in all; a "
                        "second look at %d\n",
                        index + 1, games, work.positions, hits, skipped_positions + done_positions, positions, again);
        }
        pthread_mutex_destroy(&work.lock);
        free(start);
        game_work_free(&work);
        pgn_game_free(&g);
    }
    pgn_reader_close(rd);
    fclose(in);
    fclose(out);
    if (json)
        fclose(json);
    for (int i = 0; i < nw; i++)
        if (workers[i].search)
            search_free(workers[i].search);
        else
            match_engine_stop(&workers[i].uci, true);
    match_engine_config_free(&o.engine);
    if (db)
        sqlite3_close(db);
    double secs = (double)(time_now_ms() - t0) / 1000.0;
    if (tty)
        fprintf(stderr, "\n");
    if (Interrupted) {
        fprintf(stderr,
                "annotate: interrupted: %d games finished of %d (%d this run); run the same command again to "
                "resume\n",
                prog.games, games, done_games);
        return 128 + Interrupted;
    }
    fprintf(
        stderr,
        "annotate: %d games (%d this run, %d unreadable), %lld positions (%lld from the cache) in %.1f s, written to "
        "%s%s%s\n",
        games, done_games, bad, done_positions, cached_positions, secs, o.out, o.json ? " and " : "",
        o.json ? o.json : "");
    char path[1100];
    progress_path(&o, path, sizeof path);
    unlink(path);
    return 0;
}
