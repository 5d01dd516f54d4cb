/* `feelfish datagen`: self-play games at a fixed node budget, written as labelled positions: for
 * `feelfish tune --labels`, one "FEN;result" line each, result White's 1.0 / 0.5 / 0.0 (--format
 * text, the default); for training the learned evaluation, 32-byte records with the search's score
 * and the result, both from the side to move's view (--format bin; engine/tools/trainset.h).
 *
 * Game i starts from the standard position after a few random legal plies drawn from a generator
 * seeded with (seed, i); an opening a short search finds unbalanced (|score| > 300) is drawn again.
 * Both sides are the classical engine at the same node budget, so a game is the same every time
 * whatever the thread count, and the file is written in game order: the output is reproducible.
 * Positions kept: from the first ply after the random ones, not in check, the engine's move quiet
 * (no capture or promotion) and its score not a mate; the tuner filters further.
 *
 * --params handset plays with the hand-set vector instead of the engine's tuned one (what the committed
 * tuning started from).
 *
 * Threads: selfplay_run's workers play the games (engine/adapt/selfplay.c); a finished game's lines
 * wait in `ready` until every earlier game is written, all under DataGen's lock.
 *
 *   feelfish datagen --games N [--nodes N] [--threads T] [--seed S] [--random-plies P]
 *                    [--params engine|handset] [--scores] --out FILE
 * --scores adds each position's search score (White's view, engine units) as a third field: what
 * the Win% calibration fits (tests/bench/calibrate.py); the tuner ignores it.
 *
 *   feelfish datagen --convert TEXT --out FILE
 * turns a text file written with --scores into records (what --format bin would have written). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../notation/fen.h"
#include "../core/movegen.h"
#include "../core/random.h"
#include "../adapt/selfplay.h"
#include "../search/search.h"
#include "tools.h"
#include "trainset.h"

typedef struct {
    int games, threads, random_plies;
    bool handset; /* play with the hand-set vector rather than the engine's (tuned) one */
    bool scores;  /* write each position's search score too (for `tests/bench/calibrate.py`) */
    bool binary;  /* --format bin: trainset records */
    uint64_t nodes, seed;
    Evaluator eval; /* both sides', read-only while the games run */
    FILE *file;
    pthread_mutex_t lock; /* guards what follows */
    int next_write;       /* the next game to write: output stays in game order */
    int reported;         /* games written at the last progress line */
    char **ready;         /* finished games' lines (or records), by index, until written */
    size_t *ready_len;
    long positions; /* written so far */
    int results[3]; /* White wins, draws, Black wins */
    int64_t start_ms;
} DataGen;

static const Evaluator *classical(void *user, const Position *root)
{
    (void)root;
    return user;
}

/* A balanced start for game `index`: random plies from the standard position. */
static void opening(DataGen *g, Search *search, const Evaluator *e, int index, char fen[FEN_BUFFER_SIZE])
{
    uint64_t rng = g->seed * 0x100000001B3ULL ^ (uint64_t)index;
    Position *p = malloc(sizeof *p);
    if (!p)
        abort();
    for (int attempt = 0;; attempt++) {
        char err[64];
        fen_read(p, FEN_STARTPOS, err, sizeof err);
        int plies = g->random_plies + (int)(splitmix64(&rng) % 2);
        bool ok = true;
        for (int i = 0; i < plies && ok; i++) {
            MoveList l;
            ok = movegen_legal(p, &l, GEN_ALL) > 0;
            if (ok)
                position_make_move(p, l.moves[splitmix64(&rng) % (uint64_t)l.count]);
        }
        MoveList l;
        if (!ok || movegen_legal(p, &l, GEN_ALL) == 0)
            continue;
        SearchLimits lim;
        search_limits_init(&lim);
        lim.depth = 6;
        SearchResult r;
        search_clear(search);
        search_run(search, p, &lim, e, NULL, &r);
        if (abs(r.score) <= 300 || attempt >= 100) {
            fen_write(p, fen);
            break;
        }
    }
    free(p);
}

/* The game's kept positions as "FEN;result" lines, in one buffer; "FEN;result;score" with scores
 * (the search score of the move played from there, White's view, in the engine's own units); or as
 * trainset records (binary). */
static char *game_lines(const char *start, const SelfPlayGame *game, bool scores, bool binary, long *count,
                        size_t *len_out)
{
    const char *label = game->result > 0 ? "1.0" : game->result < 0 ? "0.0" : "0.5";
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    Position *p = malloc(sizeof *p);
    char err[64];
    if (!text || !p)
        abort();
    text[0] = 0;
    fen_read(p, start, err, sizeof err);
    for (int i = 0; i < game->plies; i++) {
        Move m = game->moves[i];
        int score = game->scores[i];
        if (!in_check(p) && !is_capture(p, m) && move_kind(m) != MOVE_PROMOTION && abs(score) < 2000) {
            char fen[128];
            if (len + 160 > cap) {
                cap *= 2;
                text = realloc(text, cap);
                if (!text)
                    abort();
            }
            if (binary) {
                int won = game->result == 0 ? 1 : (game->result > 0) == (p->side == WHITE) ? 2 : 0;
                TrainRecord r;
                trainset_encode(p, eval_cp(score), won, &r);
                memcpy(text + len, r.bytes, sizeof r.bytes);
                len += sizeof r.bytes;
            } else {
                fen_write(p, fen);
                len += (size_t)sprintf(text + len, "%s;%s", fen, label);
                if (scores)
                    len += (size_t)sprintf(text + len, ";%d", p->side == WHITE ? score : -score);
                text[len++] = '\n';
                text[len] = 0;
            }
            (*count)++;
        }
        position_make_move(p, m);
        position_trim_history(p);
    }
    free(p);
    *len_out = len;
    return text;
}

static void setup_game(void *user, SelfPlayTask *task)
{
    DataGen *g = user;
    opening(g, task->searches[WHITE], &g->eval, task->index, task->fen);
    task->players[WHITE] = task->players[BLACK] = (SelfPlayer){classical, &g->eval};
}

static void finish_game(void *user, SelfPlayTask *task)
{
    DataGen *g = user;
    const SelfPlayGame *game = &task->game;
    long count = 0;
    size_t len = 0;
    char *lines = game_lines(task->fen, game, g->scores, g->binary, &count, &len);

    pthread_mutex_lock(&g->lock);
    g->ready[task->index] = lines;
    g->ready_len[task->index] = len;
    g->results[game->result > 0 ? 0 : game->result == 0 ? 1 : 2]++;
    g->positions += count;
    while (g->next_write < g->games && g->ready[g->next_write]) {
        fwrite(g->ready[g->next_write], 1, g->ready_len[g->next_write], g->file);
        free(g->ready[g->next_write]);
        g->ready[g->next_write] = NULL;
        g->next_write++;
    }
    int done = g->next_write;
    if (done / 50 != g->reported / 50 || done == g->games) {
        g->reported = done;
        double secs = (double)(time_now_ms() - g->start_ms) / 1000.0;
        double eta = done ? secs / done * (g->games - done) : 0;
        fprintf(stderr, "\rgames %d/%d  positions %ld (%.0f/s)  +%d =%d -%d  %.0f s  ETA %.0f s  ", done, g->games,
                g->positions, secs > 0 ? (double)g->positions / secs : 0, g->results[0], g->results[1], g->results[2],
                secs, eta);
        fflush(g->file);
    }
    pthread_mutex_unlock(&g->lock);
}

static int usage(void)
{
    fprintf(stderr, "usage: feelfish datagen --games N [--nodes N] [--threads T] [--seed S] [--random-plies P] "
                    "[--params engine|handset] [--scores] [--format text|bin] --out FILE\n"
                    "       feelfish datagen --convert TEXT --out FILE\n");
    return 2;
}

/* A --scores text file ("FEN;result;score", White's view) as trainset records. */
static int convert(const char *from, const char *to, FILE *out)
{
    FILE *in = fopen(from, "r"), *dst = in ? fopen(to, "wb") : NULL;
    if (!in || !dst) {
        fprintf(stderr, "datagen: cannot %s %s\n", in ? "write" : "read", in ? to : from);
        if (in)
            fclose(in);
        return 1;
    }
    char line[256], err[64];
    long written = 0, skipped = 0;
    Position *p = malloc(sizeof *p);
    if (!p)
        abort();
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *result = strchr(line, ';'), *score = result ? strchr(result + 1, ';') : NULL;
        if (!score) {
            skipped++;
            continue;
        }
        *result++ = 0;
        *score++ = 0;
        if (fen_read(p, line, err, sizeof err) != FEN_OK) {
            skipped++;
            continue;
        }
        double white = atof(result); /* 1.0, 0.5, 0.0 */
        int white_score = atoi(score), won = white == 0.5 ? 1 : (white > 0.5) == (p->side == WHITE) ? 2 : 0;
        TrainRecord r;
        trainset_encode(p, eval_cp(p->side == WHITE ? white_score : -white_score), won, &r);
        fwrite(r.bytes, 1, sizeof r.bytes, dst);
        written++;
    }
    free(p);
    fclose(in);
    bool ok = fclose(dst) == 0;
    fprintf(out, "%ld records written to %s (%ld lines skipped)\n", written, to, skipped);
    return ok ? 0 : 1;
}

int datagen_command(int argc, char **argv, FILE *out)
{
    DataGen g = {.games = 0, .threads = 2, .random_plies = 8, .nodes = 6000, .seed = 1};
    const char *path = NULL, *convert_from = NULL;
    for (int i = 0; i < argc; i++) {
        bool has = i + 1 < argc;
        char *end = NULL;
        long long v = has ? strtoll(argv[i + 1], &end, 10) : 0;
        bool number = has && end && !*end && end != argv[i + 1];
        if (!strcmp(argv[i], "--out") && has)
            path = argv[++i];
        else if (!strcmp(argv[i], "--games") && number && v >= 1 && v <= 10000000)
            g.games = (int)v, i++;
        else if (!strcmp(argv[i], "--nodes") && number && v >= 100)
            g.nodes = (uint64_t)v, i++;
        else if (!strcmp(argv[i], "--threads") && number && v >= 1 && v <= 256)
            g.threads = (int)v, i++;
        else if (!strcmp(argv[i], "--seed") && number && v >= 0)
            g.seed = (uint64_t)v, i++;
        else if (!strcmp(argv[i], "--random-plies") && number && v >= 0 && v <= 40)
            g.random_plies = (int)v, i++;
        else if (!strcmp(argv[i], "--scores"))
            g.scores = true;
        else if (!strcmp(argv[i], "--format") && has && (!strcmp(argv[i + 1], "text") || !strcmp(argv[i + 1], "bin")))
            g.binary = !strcmp(argv[++i], "bin");
        else if (!strcmp(argv[i], "--convert") && has)
            convert_from = argv[++i];
        else if (!strcmp(argv[i], "--params") && has &&
                 (!strcmp(argv[i + 1], "engine") || !strcmp(argv[i + 1], "handset")))
            g.handset = !strcmp(argv[++i], "handset");
        else {
            fprintf(stderr, "datagen: bad or incomplete argument '%s'\n", argv[i]);
            return usage();
        }
    }
    if (convert_from && path)
        return convert(convert_from, path, out);
    if (!g.games || !path)
        return usage();
    g.file = fopen(path, g.binary ? "wb" : "w");
    if (!g.file) {
        fprintf(stderr, "datagen: cannot write %s\n", path);
        return 1;
    }
    /* The first line says how the file was made; the tuner copies it into what it writes. (Records
     * have no header: the recipe that made them says.) */
    if (!g.binary)
        fprintf(g.file, "# feelfish datagen --games %d --nodes %llu --seed %llu --random-plies %d --params %s%s\n",
                g.games, (unsigned long long)g.nodes, (unsigned long long)g.seed, g.random_plies,
                g.handset ? "handset" : "engine", g.scores ? " --scores" : "");
    g.ready = calloc((size_t)g.games, sizeof *g.ready);
    g.ready_len = calloc((size_t)g.games, sizeof *g.ready_len);
    if (!g.ready || !g.ready_len)
        abort();
    evaluator_classical(&g.eval);
    if (g.handset) {
        g.eval.params = &HandSetParams;
        evaluator_update_fingerprint(&g.eval);
    }
    pthread_mutex_init(&g.lock, NULL);
    g.start_ms = time_now_ms();
    SelfPlaySettings settings = {.nodes = g.nodes, .resign_cp = 1000};
    selfplay_run(&(SelfPlayRun){.threads = g.threads,
                                .games = g.games,
                                .settings = &settings,
                                .user = &g,
                                .setup = setup_game,
                                .finish = finish_game});
    fprintf(stderr, "\n");
    bool ok = fclose(g.file) == 0;
    fprintf(out, "%d games (+%d =%d -%d for White), %ld positions written to %s\n", g.games, g.results[0], g.results[1],
            g.results[2], g.positions, path);
    free(g.ready);
    free(g.ready_len);
    pthread_mutex_destroy(&g.lock);
    return ok ? 0 : 1;
}
