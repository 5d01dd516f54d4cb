/* `feelfish learn` and `feelfish bayes-experiment`: self-play for the Bayesian model
 * (shared/spec/bayesian.md §3) and the paper's two experiments (§7), on the server's SQLite file.
 * The games are played by selfplay_run's workers; each game's Players belong to it alone, and what
 * the finished games share (the database connection, the counts) is under Learn's lock
 * (Tournament's in the experiments). */
#include "learn.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/clock.h"
#include "../base/config.h"
#include "../../engine/engine.h"
#include "../../engine/tools/match/match_config.h"
#include "../../engine/tools/match/match_stats.h"
#include "../../engine/core/random.h"
#include "../../engine/adapt/selfplay.h"
#include "../store/bayes_store.h"
#include "../store/store.h"

/* ---- players ---- */

typedef enum { PLAYER_DEFAULT, PLAYER_PERTURBED, PLAYER_LEARNED } PlayerKind;

typedef struct {
    PlayerKind kind;
    const BayesModel *model; /* learned */
    BayesTarget target;      /* learned */
    uint8_t *levels[BAYES_PHASE_NB];
    bool reached[BAYES_PHASE_NB];
    bool ready[BAYES_PHASE_NB];
    EvalParams params[BAYES_PHASE_NB];
    Evaluator eval[BAYES_PHASE_NB];
} Player;

static Player *player_new(PlayerKind kind, uint64_t seed)
{
    Player *pl = calloc(1, sizeof *pl);
    if (!pl)
        abort();
    pl->kind = kind;
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++) {
        pl->levels[ph] = malloc((size_t)BayesParamCount);
        if (!pl->levels[ph])
            abort();
        /* §3: the perturbed side draws a fresh level for every parameter in every phase. */
        for (int i = 0; i < BayesParamCount; i++)
            pl->levels[ph][i] =
                kind == PLAYER_PERTURBED ? (uint8_t)(splitmix64(&seed) % BAYES_LEVELS) : BAYES_DEFAULT_LEVEL;
    }
    return pl;
}

static void player_free(Player *pl)
{
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        free(pl->levels[ph]);
    free(pl);
}

static const Evaluator *player_evaluator(void *user, const Position *root)
{
    Player *pl = user;
    GamePhase ph = bayes_phase(root);
    pl->reached[ph] = true;
    if (!pl->ready[ph]) {
        Evaluator *e = &pl->eval[ph];
        if (pl->kind == PLAYER_LEARNED)
            bayes_evaluator(pl->model, ph, pl->target, &pl->params[ph], e);
        else {
            evaluator_classical(e);
            if (pl->kind == PLAYER_PERTURBED) {
                bayes_apply(pl->levels[ph], &pl->params[ph]);
                e->params = &pl->params[ph];
                evaluator_update_fingerprint(e);
            }
        }
        pl->ready[ph] = true;
    }
    return &pl->eval[ph];
}

/* ---- shared settings ---- */

typedef struct {
    const char *db_path, *openings_path;
    int concurrency;
    uint64_t seed;
    SelfPlaySettings play;
    char **openings;
    int opening_count;
} Common;

static void common_defaults(Common *c)
{
    memset(c, 0, sizeof *c);
    c->db_path = config_default_db();
    c->concurrency = 1;
    c->seed = 1;
    c->play.nodes = 20000;
    c->play.resign_cp = 1000;
}

/* Reads one shared option at argv[*i]; 1 if it was one, 0 if not, -1 on a bad value. */
static int common_option(Common *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    char *end;
    if (!strcmp(a, "--db") && v)
        c->db_path = v;
    else if (!strcmp(a, "--openings") && v)
        c->openings_path = v;
    else if (!strcmp(a, "--concurrency") && v) {
        c->concurrency = (int)strtol(v, &end, 10);
        if (*end || c->concurrency < 1 || c->concurrency > 64) {
            fprintf(stderr, "--concurrency: '%s' is not a number of games at once from 1 to 64\n", v);
            return -1;
        }
    } else if (!strcmp(a, "--seed") && v) {
        c->seed = strtoull(v, &end, 10);
        if (*end) {
            fprintf(stderr, "--seed: '%s' is not a number\n", v);
            return -1;
        }
    } else if (!strcmp(a, "--nodes") && v) {
        long long n = strtoll(v, &end, 10);
        if (*end || n < 1) {
            fprintf(stderr, "--nodes: '%s' is not a positive number of nodes per move\n", v);
            return -1;
        }
        c->play.nodes = (uint64_t)n;
        c->play.base_ms = 0;
    } else if (!strcmp(a, "--tc") && v) {
        double base, inc = 0;
        int n = sscanf(v, "%lf+%lf", &base, &inc);
        if (n < 1 || (strchr(v, '+') && n < 2) || base <= 0 || inc < 0 || strspn(v, "0123456789.+") != strlen(v)) {
            fprintf(stderr, "--tc: '%s' is not SECONDS[+INCREMENT], e.g. 10+0.1\n", v);
            return -1;
        }
        c->play.base_ms = (int64_t)(base * 1000);
        c->play.inc_ms = (int64_t)(inc * 1000);
        c->play.nodes = 0;
    } else
        return 0;
    (*i)++;
    return 1;
}

static bool load_openings(Common *c)
{
    const char *path = c->openings_path;
    char fallback[4096];
    if (!path) {
        const char *data = getenv("FEELFISH_DATA");
        snprintf(fallback, sizeof fallback, "%s/openings.epd", data ? data : "../shared/data");
        path = fallback;
    }
    char err[512];
    if (!openings_load(path, &c->openings, &c->opening_count, err, sizeof err)) {
        fprintf(stderr, "%s (give --openings FILE.epd, or set FEELFISH_DATA)\n", err);
        return false;
    }
    return true;
}

/* "6000 nodes" or "10+0.1 s": the control a run plays at, as its lines and stored points say it. */
static void control_text(const SelfPlaySettings *play, char *out, size_t size)
{
    if (play->base_ms)
        snprintf(out, size, "%g+%g s", play->base_ms / 1000.0, play->inc_ms / 1000.0);
    else
        snprintf(out, size, "%llu nodes", (unsigned long long)play->nodes);
}

static void common_free(Common *c)
{
    for (int i = 0; i < c->opening_count; i++)
        free(c->openings[i]);
    free(c->openings);
}

static const char *result_text(int result) { return result > 0 ? "1-0" : result < 0 ? "0-1" : "1/2-1/2"; }
static GameResult result_for(int result, Color c)
{
    int mine = c == WHITE ? result : -result;
    return mine > 0 ? RESULT_WIN : mine < 0 ? RESULT_LOSS : RESULT_DRAW;
}

static void add_records(BayesGame *g, const Player *pl, char side, GameResult r)
{
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        if (pl->reached[ph] && g->records < BAYES_GAME_RECORDS_MAX)
            g->record[g->records++] = (BayesRecord){side, ph, r, pl->levels[ph]};
}

/* ---- learn ---- */

typedef struct {
    Common c;
    sqlite3 *db;
    uint8_t *done; /* per game index, read-only while the games run */
    int target;
    atomic_bool failed;   /* a game could not be stored: start no more */
    pthread_mutex_t lock; /* guards the database connection and what follows */
    int finished, at_start;
    long score[BAYES_RESULT_NB]; /* from the perturbed side's view */
    int64_t started_ms;
} Learn;

static void progress(Learn *L, bool final)
{
    int played = L->finished - L->at_start, width = 30;
    int filled = L->target ? (int)((long)width * L->finished / L->target) : width;
    double per = played ? (double)(time_now_ms() - L->started_ms) / 1000.0 / played : 0;
    double eta = per * (L->target - L->finished) / L->c.concurrency;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = 0;
    bool tty = isatty(STDERR_FILENO);
    if (!tty && !final && played % 10)
        return;
    fprintf(stderr, "%s[%s] %d/%d games  perturbed side +%ld =%ld -%ld  %.1f s/game  eta %dm%02ds%s", tty ? "\r" : "",
            bar, L->finished, L->target, L->score[RESULT_WIN], L->score[RESULT_DRAW], L->score[RESULT_LOSS], per,
            (int)eta / 60, (int)eta % 60, tty && !final ? "" : "\n");
    fflush(stderr);
}

static bool learn_skip(void *user, int index) { return ((Learn *)user)->done[index]; }

/* The perturbed side is White in odd games. */
static Color perturbed_colour(int index) { return index & 1 ? WHITE : BLACK; }

static void learn_setup(void *user, SelfPlayTask *task)
{
    Learn *L = user;
    int i = task->index;
    /* Game i: opening i/2, the perturbed side's levels seeded by (seed, i) so a resumed run plays
     * the same games. */
    uint64_t seed = L->c.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)i;
    Player *a = player_new(PLAYER_DEFAULT, 0), *b = player_new(PLAYER_PERTURBED, splitmix64(&seed));
    Color b_colour = perturbed_colour(i);
    task->players[b_colour] = (SelfPlayer){player_evaluator, b};
    task->players[!b_colour] = (SelfPlayer){player_evaluator, a};
    snprintf(task->fen, sizeof task->fen, "%s", L->c.openings[(i / 2) % L->c.opening_count]);
}

static void learn_finish(void *user, SelfPlayTask *task)
{
    Learn *L = user;
    int i = task->index;
    const SelfPlayGame *game = &task->game;
    Color b_colour = perturbed_colour(i);
    Player *b = task->players[b_colour].user, *a = task->players[!b_colour].user;
    BayesGame g = {.source = "selfplay",
                   .selfplay_index = i,
                   .result = result_text(game->result),
                   .reason = game->reason,
                   .plies = game->plies};
    GameResult rb = result_for(game->result, b_colour);
    add_records(&g, b, 'B', rb);
    add_records(&g, a, 'A', result_for(game->result, !b_colour));
    pthread_mutex_lock(&L->lock);
    char err[256];
    if (!task->played) {
        fprintf(stderr, "\nlearn: game %d: the opening is not a FEN\n", i);
        atomic_store(&L->failed, true);
    } else if (bayes_store_add_game(L->db, &g, err, sizeof err)) {
        L->finished++;
        L->score[rb]++;
        progress(L, false);
    } else {
        fprintf(stderr, "\nlearn: storing game %d: %s\n", i, err);
        atomic_store(&L->failed, true);
    }
    pthread_mutex_unlock(&L->lock);
    player_free(a);
    player_free(b);
}

static int learn_usage(void)
{
    fprintf(stderr, "usage: feelfish learn --games N [--concurrency C] [--nodes N | --tc SECONDS+INC] [--db FILE]\n"
                    "                      [--openings FILE.epd] [--seed S]\n"
                    "Self-play for the Bayesian model: the default vector against one perturbed per phase, until the\n"
                    "database holds self-play games 0..N-1. Each finished game is committed at once, so running the\n"
                    "same command again resumes. Defaults: 20000 nodes a move, concurrency 1, data/feelfish.db,\n"
                    "$FEELFISH_DATA/openings.epd.\n");
    return 2;
}

int learn_command(int argc, char **argv, FILE *out)
{
    (void)out; /* learn reports only progress, on stderr */
    Learn L;
    memset(&L, 0, sizeof L);
    common_defaults(&L.c);
    L.target = -1;
    for (int i = 0; i < argc; i++) {
        int r = common_option(&L.c, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r)
            continue;
        if (!strcmp(argv[i], "--games") && i + 1 < argc) {
            char *end;
            L.target = (int)strtol(argv[++i], &end, 10);
            if (*end || L.target < 1 || L.target > 10000000) {
                fprintf(stderr, "--games: '%s' is not a number of games from 1\n", argv[i]);
                return 2;
            }
        } else
            return learn_usage();
    }
    if (L.target < 0)
        return learn_usage();
    if (!load_openings(&L.c))
        return 1;
    char err[512];
    if (!(L.db = store_open_db(L.c.db_path, err, sizeof err))) {
        fprintf(stderr, "learn: %s\n", err);
        common_free(&L.c);
        return 1;
    }
    L.done = malloc((size_t)L.target);
    if (!L.done)
        abort();
    L.finished = L.at_start = bayes_store_selfplay_done(L.db, L.target, L.done);
    char control[32];
    control_text(&L.c.play, control, sizeof control);
    fprintf(stderr, "learn: %d of %d self-play games already in %s; at %s, %d at once\n", L.at_start,
            L.target, L.c.db_path, control, L.c.concurrency);
    atomic_init(&L.failed, false);
    pthread_mutex_init(&L.lock, NULL);
    L.started_ms = time_now_ms();
    selfplay_run(&(SelfPlayRun){.threads = L.c.concurrency,
                                .games = L.target,
                                .settings = &L.c.play,
                                .user = &L,
                                .skip = learn_skip,
                                .setup = learn_setup,
                                .finish = learn_finish,
                                .stop = &L.failed});
    progress(&L, true);
    pthread_mutex_destroy(&L.lock);
    free(L.done);
    sqlite3_close(L.db);
    common_free(&L.c);
    return atomic_load(&L.failed) ? 1 : 0;
}

/* ---- the experiments (§7) ---- */

typedef struct {
    Common *c;
    const BayesModel *model;
    BayesTarget target;
    pthread_mutex_t lock;      /* guards wdl */
    long wdl[BAYES_RESULT_NB]; /* learned side's view */
} Tournament;

/* The learned side is White in even games. */
static Color learned_colour(int index) { return index & 1 ? BLACK : WHITE; }

static void tournament_setup(void *user, SelfPlayTask *task)
{
    Tournament *T = user;
    int i = task->index;
    Player *fixed = player_new(PLAYER_DEFAULT, 0), *learned = player_new(PLAYER_LEARNED, 0);
    learned->model = T->model;
    learned->target = T->target;
    Color lc = learned_colour(i);
    task->players[lc] = (SelfPlayer){player_evaluator, learned};
    task->players[!lc] = (SelfPlayer){player_evaluator, fixed};
    /* Openings from the far end of the file: not the ones the model learned from first. */
    int o = T->c->opening_count - 1 - (i / 2) % T->c->opening_count;
    snprintf(task->fen, sizeof task->fen, "%s", T->c->openings[o]);
}

static void tournament_finish(void *user, SelfPlayTask *task)
{
    Tournament *T = user;
    Color lc = learned_colour(task->index);
    pthread_mutex_lock(&T->lock);
    T->wdl[result_for(task->game.result, lc)]++;
    pthread_mutex_unlock(&T->lock);
    player_free(task->players[WHITE].user);
    player_free(task->players[BLACK].user);
}

static void tournament(Common *c, const BayesModel *m, BayesTarget target, int games, long wdl[BAYES_RESULT_NB])
{
    Tournament T = {.c = c, .model = m, .target = target};
    pthread_mutex_init(&T.lock, NULL);
    selfplay_run(&(SelfPlayRun){.threads = c->concurrency,
                                .games = games,
                                .settings = &c->play,
                                .user = &T,
                                .setup = tournament_setup,
                                .finish = tournament_finish});
    pthread_mutex_destroy(&T.lock);
    memcpy(wdl, T.wdl, sizeof T.wdl);
}

/* §7.2: a middlegame position (move 20, queens on) where White is a knight and two pawns up. */
#define KNIGHT_TWO_PAWNS_FEN "r1bqkbnr/2pppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 20"

static int experiment_usage(void)
{
    fprintf(stderr,
            "usage: feelfish bayes-experiment [--sizes 0,50,100,200] [--games G] [--target aggressive|conservative]\n"
            "                                 [--nodes N | --tc S+I] [--concurrency C] [--db FILE] [--openings F]\n"
            "                                 [--records all|perturbed] [--rule evidence|argmax] [--csv FILE]\n"
            "The paper's experiments on the self-play games already in the database (feelfish learn): for each\n"
            "size K, the model of the first K games plays G games against the fixed default vector (learning\n"
            "curve), and evaluates a knight-and-two-pawns-up position (convergence). --records perturbed\n"
            "learns from the perturbed side's records alone (the spec also counts the default side's). --rule\n"
            "argmax selects as the spec's section 4 (the most probable level given the target's results);\n"
            "evidence (the default) moves a parameter only when its level beats the default's by 3 standard errors.\n");
    return 2;
}

int bayes_experiment_command(int argc, char **argv, FILE *out)
{
    Common c;
    common_defaults(&c);
    const char *sizes_arg = "0,50,100,200", *csv_path = NULL;
    int games = 40;
    bool perturbed_only = false;
    double evidence_z = BAYES_EVIDENCE_Z;
    BayesTarget target = TARGET_AGGRESSIVE;
    for (int i = 0; i < argc; i++) {
        int r = common_option(&c, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r)
            continue;
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--sizes") && v)
            sizes_arg = argv[++i];
        else if (!strcmp(argv[i], "--records") && v) {
            i++;
            if (strcmp(v, "all") && strcmp(v, "perturbed")) {
                fprintf(stderr, "--records: '%s' is not all (the spec's) or perturbed\n", v);
                return 2;
            }
            perturbed_only = !strcmp(v, "perturbed");
        } else if (!strcmp(argv[i], "--rule") && v) {
            i++;
            if (!bayes_rule_parse(v, &evidence_z)) {
                fprintf(stderr, "--rule: '%s' is not evidence or argmax (the spec's)\n", v);
                return 2;
            }
        } else if (!strcmp(argv[i], "--csv") && v)
            csv_path = argv[++i];
        else if (!strcmp(argv[i], "--games") && v) {
            games = atoi(argv[++i]);
            if (games < 2 || games > 100000) {
                fprintf(stderr, "--games: '%s' is not a number of games per size from 2\n", v);
                return 2;
            }
        } else if (!strcmp(argv[i], "--target") && v) {
            i++;
            if (!strcmp(v, "aggressive"))
                target = TARGET_AGGRESSIVE;
            else if (!strcmp(v, "conservative"))
                target = TARGET_CONSERVATIVE;
            else {
                fprintf(stderr, "--target: '%s' is not aggressive or conservative\n", v);
                return 2;
            }
        } else
            return experiment_usage();
    }
    int sizes[64], nsizes = 0;
    for (const char *p = sizes_arg; *p && nsizes < 64;) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p || k < 0 || (*end && *end != ',')) {
            fprintf(stderr, "--sizes: '%s' is not a list of game counts like 0,50,100,200\n", sizes_arg);
            return 2;
        }
        sizes[nsizes++] = (int)k;
        p = *end ? end + 1 : end;
    }
    if (!load_openings(&c))
        return 1;
    char err[512];
    sqlite3 *db = store_open_db(c.db_path, err, sizeof err);
    if (!db) {
        fprintf(stderr, "bayes-experiment: %s\n", err);
        common_free(&c);
        return 1;
    }
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv_path && !csv) {
        fprintf(stderr, "--csv: cannot write %s: %s\n", csv_path, strerror(errno));
        sqlite3_close(db);
        common_free(&c);
        return 1;
    }
    if (csv)
        fprintf(csv, "games_learned,wins,draws,losses,score,score_err,elo,elo_margin,eval_aggressive,eval_conservative,"
                     "changed_params\n");
    Position *p = malloc(sizeof *p);
    char msg[128];
    fen_read(p, KNIGHT_TWO_PAWNS_FEN, msg, sizeof msg);
    Evaluator classical;
    evaluator_classical(&classical);
    char control[32];
    control_text(&c.play, control, sizeof control);
    fprintf(
        out,
        "Learned (%s, %s records, rule %s) vs fixed default, %d games per size, %s; position %s (default eval %+d cp, "
        "%s)\n",
        BayesTargetNames[target], perturbed_only ? "perturbed side's" : "all", bayes_rule_name(evidence_z), games,
        control, KNIGHT_TWO_PAWNS_FEN, evaluate(p, &classical),
        GamePhaseNames[bayes_phase(p)]);
    fprintf(out, "%8s %6s %6s %6s %8s %16s %10s %10s %8s\n", "games", "wins", "draws", "losses", "score", "elo",
            "eval aggr", "eval cons", "changed");
    BayesModel m;
    bayes_model_init(&m);
    m.evidence_z = evidence_z;
    static EvalParams storage;
    int rc = 0;
    for (int k = 0; k < nsizes; k++) {
        int found = bayes_store_load_selfplay_prefix(db, sizes[k], perturbed_only, &m);
        if (found < sizes[k]) {
            fprintf(stderr,
                    "bayes-experiment: only %d self-play games in %s, fewer than %d: run feelfish learn --games "
                    "%d first\n",
                    found, c.db_path, sizes[k], sizes[k]);
            rc = 1;
            break;
        }
        int evals[BAYES_TARGET_NB];
        for (int t = 0; t < BAYES_TARGET_NB; t++) {
            Evaluator e;
            bayes_evaluator(&m, bayes_phase(p), t, &storage, &e);
            evals[t] = evaluate(p, &e);
        }
        uint8_t *levels = malloc((size_t)BayesParamCount);
        int changed = bayes_select(&m, bayes_phase(p), target, levels);
        free(levels);
        long wdl[BAYES_RESULT_NB];
        tournament(&c, &m, target, games, wdl);
        long n = wdl[0] + wdl[1] + wdl[2];
        double score = (wdl[0] + 0.5 * wdl[1]) / n;
        /* Standard error of the mean score per game, from the games' own spread. */
        double var = (wdl[0] * pow(1 - score, 2) + wdl[1] * pow(0.5 - score, 2) + wdl[2] * pow(score, 2)) / n;
        double se = sqrt(var / n), elo, margin;
        match_stats_elo(wdl[0], wdl[1], wdl[2], &elo, &margin);
        char elo_text[64];
        match_stats_format_elo(elo, margin, elo_text, sizeof elo_text);
        fprintf(out, "%8d %6ld %6ld %6ld %5.1f%%±%.1f %16s %+10d %+10d %8d\n", sizes[k], wdl[0], wdl[1], wdl[2],
                100 * score, 196 * se, elo_text, evals[TARGET_AGGRESSIVE], evals[TARGET_CONSERVATIVE], changed);
        fflush(out);
        if (csv)
            fprintf(csv, "%d,%ld,%ld,%ld,%.4f,%.4f,%.1f,%.1f,%d,%d,%d\n", sizes[k], wdl[0], wdl[1], wdl[2], score,
                    1.96 * se, elo, margin, evals[TARGET_AGGRESSIVE], evals[TARGET_CONSERVATIVE], changed);
        /* The point joins the database's learning curve (GET /api/bayes/curve, the page). */
        BayesMatchPoint point = {.games = sizes[k],
                                 .wins = (int)wdl[0],
                                 .draws = (int)wdl[1],
                                 .losses = (int)wdl[2],
                                 .elo = elo,
                                 .elo_margin = margin,
                                 .created_ms = clock_wall_ms()};
        snprintf(point.target, sizeof point.target, "%s", BayesTargetNames[target]);
        snprintf(point.rule, sizeof point.rule, "%s", bayes_rule_name(evidence_z));
        snprintf(point.records, sizeof point.records, "%s", perturbed_only ? "perturbed" : "all");
        control_text(&c.play, point.control, sizeof point.control);
        if (!bayes_store_add_match(db, &point, err, sizeof err))
            fprintf(stderr, "bayes-experiment: the point was not stored: %s\n", err);
    }
    if (csv)
        fclose(csv);
    bayes_model_free(&m);
    free(p);
    sqlite3_close(db);
    common_free(&c);
    return rc;
}
