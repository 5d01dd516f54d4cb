/* `feelfish humanlike`: move matching, the field's measure of how human an engine plays (Maia,
 * McIlroy-Young et al. 2020): over positions of human games, the share where each mode's best move
 * at a fixed node budget is the move the human played, with its 95 % (Wilson) interval, overall and
 * split by the emotion the position evokes in the mover (the affective appraisal with the neutral
 * temperament and no mood: fear, neutral, relief), and how often each mode chooses differently from
 * classical, with the paired difference of its matching rate from the first mode's (points, 95 %:
 * the same positions, so the interval is McNemar's, tighter than the two rates' own), overall on the
 * mode's row and per emotion on a line under it. The mode
 * `bayesian` is the Bayesian-adaptive evaluator as a game plays it against the mover's opponent:
 * target auto (the opponent's style read from the game's moves so far by the style model, from its
 * 10th move; before that the default, conservative), parameters chosen by the model in --bayes-db. The modes
 * `choice:TEMPERAMENT[@GAIN]` try another design (docs/affective.md): the classical search with --lines best
 * lines, the emotion choosing among those within --margin centipawns of the best. Positions are taken
 * from the games in turn (one game from each file round-robin, so every player counts), from ply --from-ply on, every
 * --every plies, until --positions. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../adapt/adaptive.h"
#include "../eval/affective.h"
#include "../notation/fen.h"
#include "../notation/move.h"
#include "../notation/pgn.h"
#include "../search/search.h"
#include "tools.h"

#define HUMANLIKE_MODES_MAX 8
#define HUMANLIKE_LABELS 3 /* fear, neutral, relief: affective_label's order */
#define HUMANLIKE_RELIEF 2 /* relief's index among them */

typedef struct {
    char name[48];
    bool affective, bayesian;
    bool choice;             /* the classical search's best lines, the emotion choosing among the close ones */
    bool relief_rule;        /* patience, simplify: the classical search's best lines; in relief the best close one */
    bool takes;              /* that captures (simplify), or that captures nothing (patience) */
    Temperament temperament; /* affective, choice: a copy, its gain possibly overridden */
} Mode;

typedef struct {
    char fen[FEN_BUFFER_SIZE];
    Move played;
    int label;   /* 0 fear, 1 neutral, 2 relief (HUMANLIKE_RELIEF) */
    int8_t goal; /* the goal that emotion picks (Goals[]) */
    Move chosen[HUMANLIKE_MODES_MAX];
    int game, ply;  /* the position is the game's (Run.games) after `ply` moves */
    int8_t style;   /* bayesian: the opponent's style read, or -1 */
    int8_t target;  /* bayesian: the target chosen */
    int8_t changed; /* bayesian: parameters away from the default */
} Sample;

/* A game positions were taken from: its start and moves (the Bayesian mode reads the opponent's style
 * from them). */
typedef struct {
    char start_fen[FEN_BUFFER_SIZE];
    Move *moves;
} Game;

typedef struct {
    Sample *samples;
    int count;
    Game *games;
    int game_count;
    Mode modes[HUMANLIKE_MODES_MAX];
    int mode_count;
    uint64_t nodes;
    int only_label;    /* --emotion: positions of this label only, or -1 */
    int lines, margin; /* choice modes: lines searched, and how far (centipawns) below the best one may choose */
    atomic_int next, done;
    atomic_int failed; /* workers that could not start their search */
    FILE *samples_out; /* --samples, open until written */
    BayesModel bayes;  /* for the bayesian mode */
    StyleModel style;
    bool has_bayes, has_style;
} Run;

static int usage(void)
{
    fprintf(stderr,
            "usage: feelfish humanlike FILE.pgn... [--positions N] [--nodes N] [--from-ply P] [--every K]\n"
            "                          [--modes MODE,...] [--threads T] [--lines N] [--margin CP]\n"
            "                          [--bayes-db FILE] [--style-model FILE] [--samples FILE]\n"
            "                          [--emotion fear|neutral|relief]\n"
            "  MODE: classical, affective (neutral), affective:TEMPERAMENT, affective:TEMPERAMENT@GAIN,\n"
            "        bayesian (target from the opponent's style; model from --bayes-db, default data/feelfish.db),\n"
            "        choice:TEMPERAMENT[@GAIN] (the classical search's --lines best lines, default 4; the emotion\n"
            "        chooses among those within --margin centipawns of the best, default 20),\n"
            "        patience (those lines; in relief the best of the close ones that captures nothing),\n"
            "        simplify (the same, the best of the close ones that captures)\n"
            "  (defaults: 2000 positions, 20000 nodes, from ply 16, every 7th, classical,affective,\n"
            "   affective:thesis; 2 threads)\n"
            "  --samples FILE: one line a position, FEN;emotion;goal;the human's move;each mode's move (UCI)\n");
    return 2;
}

static bool mode_parse(const char *spec, Mode *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", spec);
    if (!strcmp(spec, "classical"))
        return true;
    if (!strcmp(spec, "bayesian"))
        return m->bayesian = true;
    if (!strcmp(spec, "patience") || !strcmp(spec, "simplify")) {
        m->takes = spec[0] == 's';
        return m->relief_rule = true;
    }
    size_t len = !strncmp(spec, "affective", 9) ? 9 : !strncmp(spec, "choice", 6) ? 6 : 0;
    if (!len || (spec[len] && spec[len] != ':'))
        return false;
    m->affective = len == 9;
    m->choice = len == 6;
    char name[32] = "neutral";
    double gain = -1;
    if (spec[len] == ':') {
        snprintf(name, sizeof name, "%s", spec + len + 1);
        char *at = strchr(name, '@');
        if (at) {
            char *end;
            *at = 0;
            gain = strtod(at + 1, &end);
            if (*end || end == at + 1 || gain < 0 || gain > 4)
                return false;
        }
    }
    const Temperament *t = temperament_find(name);
    if (!t)
        return false;
    m->temperament = *t;
    if (gain >= 0)
        m->temperament.gain = gain;
    return true;
}

static const char *const Labels[HUMANLIKE_LABELS] = {"fear", "neutral", "relief"};

/* A label's index in Labels (affective_label's names), or -1. */
static int label_index(const char *name)
{
    for (int l = 0; l < HUMANLIKE_LABELS; l++)
        if (!strcmp(name, Labels[l]))
            return l;
    return -1;
}

static int label_of(const Position *p, int8_t *goal)
{
    Emotion e;
    affective_emotion(p, NULL, temperament_find("neutral"), &e);
    *goal = (int8_t)e.goal;
    return label_index(affective_label(CONCEPT_RELIEF, e.c[CONCEPT_RELIEF]));
}

/* Keeps a game's start and moves (once, whatever number of its positions are sampled). */
static bool keep_game(Run *run, const PgnGame *g)
{
    Game *grown = realloc(run->games, sizeof *grown * (size_t)(run->game_count + 1));
    Move *moves = malloc(sizeof *moves * (size_t)(g->move_count + 1));
    if (grown)
        run->games = grown;
    if (!grown || !moves) {
        free(moves);
        return false;
    }
    Game *k = &run->games[run->game_count++];
    snprintf(k->start_fen, sizeof k->start_fen, "%s", g->start_fen ? g->start_fen : FEN_STARTPOS);
    for (int i = 0; i < g->move_count; i++)
        moves[i] = g->moves[i].move;
    k->moves = moves;
    return true;
}

/* Reads the games round-robin over the files and keeps the sampled positions. */
static int collect(Run *run, char **files, int file_count, int want, int from_ply, int every)
{
    FILE **f = calloc((size_t)file_count, sizeof *f);
    PgnReader **r = calloc((size_t)file_count, sizeof *r);
    Position *p = malloc(sizeof *p);
    run->samples = calloc((size_t)want, sizeof *run->samples);
    if (!f || !r || !p || !run->samples) {
        free(f), free(r), free(p);
        return -1;
    }
    int open = 0;
    for (int i = 0; i < file_count; i++)
        if ((f[i] = fopen(files[i], "r")) && (r[i] = pgn_reader_open(f[i])))
            open++;
        else
            fprintf(stderr, "humanlike: cannot read %s\n", files[i]);
    while (open && run->count < want)
        for (int i = 0; i < file_count && run->count < want; i++) {
            if (!r[i])
                continue;
            PgnGame g;
            char err[200];
            PgnResult res = pgn_read_game(r[i], &g, err, sizeof err);
            if (res == PGN_END) {
                pgn_reader_close(r[i]);
                r[i] = NULL;
                open--;
            } else if (res == PGN_GAME && fen_read(p, g.start_fen ? g.start_fen : FEN_STARTPOS, NULL, 0) == FEN_OK)
                for (int k = 0, kept = 0; k < g.move_count && run->count < want; k++) {
                    int8_t goal = 0;
                    int label = k >= from_ply && (k - from_ply) % every == 0 ? label_of(p, &goal) : -1;
                    if (label >= 0 && (run->only_label < 0 || label == run->only_label)) {
                        if (!kept++ && !keep_game(run, &g))
                            break;
                        Sample *s = &run->samples[run->count++];
                        fen_write(p, s->fen);
                        s->played = g.moves[k].move;
                        s->label = label;
                        s->goal = goal;
                        s->game = run->game_count - 1;
                        s->ply = k;
                    }
                    position_make_move(p, g.moves[k].move);
                    if (p->stack_len > POSITION_STACK_SIZE / 2)
                        position_trim_history(p);
                }
            pgn_game_free(&g);
        }
    for (int i = 0; i < file_count; i++) {
        if (r[i])
            pgn_reader_close(r[i]);
        if (f[i])
            fclose(f[i]);
    }
    free(f), free(r), free(p);
    return run->count;
}

/* Line i's score in centipawns if it is one a mode may choose instead of the search's move: it has a move,
 * is no mate, and is within run->margin of the best line, which is no mate either (a mate found, or one
 * against, leaves the search's move); else INT_MIN. A search stopped inside an iteration
 * leaves the lines after the one it was on with the previous depth's scores, which may be above the best
 * line's: none counts as better than the best (so at gain 0 a choice is the search's own move). */
static int close_line_cp(const Run *run, const SearchResult *r, int i)
{
    const SearchInfo *l = &r->line[i];
    int top = search_cp(r->line[0].score), cp = search_cp(l->score) < top ? search_cp(l->score) : top;
    bool mate = search_mate_in(l->score) || search_mate_in(r->line[0].score);
    return l->pv_length < 1 || mate || top - cp > run->margin ? INT_MIN : cp;
}

/* A choice mode's move: among the lines of the search with the `plain` (classical) evaluator within
 * run->margin of the best, the one whose end the emotion's evaluator `felt` likes best: the line's score
 * plus what the emotion's weights add to the evaluation at the line's last position (the mover's view). */
static Move choose(const Run *run, const Evaluator *felt, const Evaluator *plain, const Position *root,
                   Position *scratch, const SearchResult *r)
{
    int best = 0;
    double best_value = -1e18;
    for (int i = 0; i < r->lines; i++) {
        const SearchInfo *l = &r->line[i];
        int cp = close_line_cp(run, r, i);
        if (cp == INT_MIN)
            continue;
        position_copy_root(scratch, root);
        for (int k = 0; k < l->pv_length; k++)
            position_make_move(scratch, l->pv[k]);
        int delta = evaluate(scratch, felt) - evaluate(scratch, plain);
        double value = cp + search_cp(scratch->side == root->side ? delta : -delta);
        if (value > best_value)
            best_value = value, best = i;
    }
    return best ? r->line[best].pv[0] : r->best;
}

/* A relief rule's move (patience, simplify) in relief: the best of the close lines (close_line_cp) whose move
 * captures (takes: simplify) or captures nothing (patience: the masters capture less when ahead than the
 * search does, docs/affective.md), else the search's own move. */
static Move by_kind(const Run *run, const Position *root, const SearchResult *r, bool takes)
{
    for (int i = 0; i < r->lines; i++)
        if (close_line_cp(run, r, i) != INT_MIN && is_capture(root, r->line[i].pv[0]) == takes)
            return r->line[i].pv[0];
    return r->best;
}

static void *worker(void *arg)
{
    Run *run = arg;
    Search *search = search_new();
    Position *p = malloc(sizeof *p), *start = malloc(sizeof *start);
    if (!search || !p || !start) {
        search_free(search);
        free(p), free(start);
        atomic_fetch_add(&run->failed, 1);
        return NULL;
    }
    SearchLimits limits, lines;
    search_limits_init(&limits);
    limits.nodes = run->nodes;
    lines = limits;
    lines.multipv = run->lines;
    Evaluator classical; /* classical modes' evaluator, and the one choice modes search with */
    evaluator_classical(&classical);
    for (int i; (i = atomic_fetch_add(&run->next, 1)) < run->count;) {
        Sample *s = &run->samples[i];
        fen_read(p, s->fen, NULL, 0);
        for (int m = 0; m < run->mode_count; m++) {
            Evaluator eval;
            EvalParams storage;
            if (run->modes[m].bayesian) {
                const Game *g = &run->games[s->game];
                fen_read(start, g->start_fen, NULL, 0);
                MoveHistory h = {start, g->moves, s->ply};
                BayesChoice choice;
                adaptive_choose(&run->bayes, run->has_style ? &run->style : NULL, p, &h, TARGET_CONSERVATIVE, true,
                                (uint64_t)s->game, &choice, &storage, &eval);
                s->style = choice.has_style ? (int8_t)choice.style : -1;
                s->target = (int8_t)choice.target;
                s->changed = (int8_t)choice.changed;
            } else if (run->modes[m].affective || run->modes[m].choice) {
                Emotion e;
                affective_emotion(p, NULL, &run->modes[m].temperament, &e);
                affective_evaluator(&e, &eval);
            } else
                eval = classical;
            /* choice and the relief rules search classically for several lines, then choose among them */
            bool chooses = run->modes[m].choice || run->modes[m].relief_rule;
            SearchResult r;
            search_clear(search); /* each position and mode on its own: no memory between them */
            search_run(search, p, chooses ? &lines : &limits, chooses ? &classical : &eval, NULL, &r);
            s->chosen[m] = r.best;
            if (run->modes[m].relief_rule && s->label == HUMANLIKE_RELIEF)
                s->chosen[m] = by_kind(run, p, &r, run->modes[m].takes);
            else if (run->modes[m].choice)
                s->chosen[m] = choose(run, &eval, &classical, p, start, &r);
        }
        int done = atomic_fetch_add(&run->done, 1) + 1;
        if (done % 200 == 0 || done == run->count)
            fprintf(stderr, "humanlike: %d/%d positions\n", done, run->count);
    }
    search_free(search);
    free(p), free(start);
    return NULL;
}

/* Wilson score interval at 95 %, in percent. */
static void wilson(int k, int n, double *lo, double *hi)
{
    if (!n) {
        *lo = *hi = 0;
        return;
    }
    double z = 1.959964, ph = (double)k / n, d = 1 + z * z / n, c = (ph + z * z / (2.0 * n)) / d;
    double h = z * sqrt(ph * (1 - ph) / n + z * z / (4.0 * n * n)) / d;
    *lo = 100 * (c - h), *hi = 100 * (c + h);
}

static void print_rate(FILE *out, int k, int n)
{
    double lo, hi;
    wilson(k, n, &lo, &hi);
    fprintf(out, "  %5.1f%% [%4.1f, %4.1f]", n ? 100.0 * k / n : 0.0, lo, hi);
}

/* A matching rate's paired difference from the first mode's over n positions, in points with its 95 %
 * half-width (McNemar: only the positions where exactly one of the two matches count). */
static void print_paired(FILE *out, int only_this, int only_first, int n, int width)
{
    fprintf(out, "%+*.1f +/- %.1f", width, n ? 100.0 * (only_this - only_first) / n : 0.0,
            n ? 100.0 * 1.959964 * sqrt(only_this + only_first) / n : 0.0);
}

/* --samples: each position with the human's move and every mode's, for reading them elsewhere. The file is
 * opened before the searches (a bad path fails at once) and closed here; false on any write error. */
static bool write_samples(Run *run)
{
    FILE *f = run->samples_out;
    run->samples_out = NULL;
    for (int i = 0; i < run->count; i++) {
        const Sample *s = &run->samples[i];
        char uci[MOVE_STRING_SIZE];
        move_to_uci(s->played, uci);
        fprintf(f, "%s;%s;%s;%s", s->fen, Labels[s->label], Goals[s->goal].name, uci);
        for (int m = 0; m < run->mode_count; m++) {
            move_to_uci(s->chosen[m], uci);
            fprintf(f, ";%s", uci);
        }
        fputc('\n', f);
    }
    bool written = !ferror(f);
    return fclose(f) == 0 && written;
}

static void run_free(Run *run)
{
    for (int i = 0; i < run->game_count; i++)
        free(run->games[i].moves);
    free(run->games);
    free(run->samples);
    if (run->samples_out)
        fclose(run->samples_out);
    if (run->has_bayes)
        bayes_model_free(&run->bayes);
}

int humanlike_command(int argc, char **argv, FILE *out)
{
    Run run = {0};
    char *files[64];
    int file_count = 0, want = 2000, from_ply = 16, every = 7, threads = 2;
    const char *modes = "classical,affective,affective:thesis", *bayes_db = "data/feelfish.db",
               *style_path = "engine/style.model", *samples_path = NULL;
    run.nodes = 20000;
    run.lines = 4;
    run.margin = 20;
    run.only_label = -1;
    for (int i = 0; i < argc; i++) {
        bool has = i + 1 < argc;
        char *end = NULL;
        long long v = has ? strtoll(argv[i + 1], &end, 10) : 0;
        bool number = has && end && !*end && end != argv[i + 1];
        if (!strcmp(argv[i], "--positions") && number && v >= 1 && v <= 1000000)
            want = (int)v, i++;
        else if (!strcmp(argv[i], "--nodes") && number && v >= 1)
            run.nodes = (uint64_t)v, i++;
        else if (!strcmp(argv[i], "--from-ply") && number && v >= 0 && v <= 400)
            from_ply = (int)v, i++;
        else if (!strcmp(argv[i], "--every") && number && v >= 1 && v <= 400)
            every = (int)v, i++;
        else if (!strcmp(argv[i], "--lines") && number && v >= 1 && v <= MAX_MULTIPV)
            run.lines = (int)v, i++;
        else if (!strcmp(argv[i], "--margin") && number && v >= 0 && v <= 1000)
            run.margin = (int)v, i++;
        else if (!strcmp(argv[i], "--threads") && number && v >= 1 && v <= 256)
            threads = (int)v, i++;
        else if (!strcmp(argv[i], "--modes") && has)
            modes = argv[++i];
        else if (!strcmp(argv[i], "--bayes-db") && has)
            bayes_db = argv[++i];
        else if (!strcmp(argv[i], "--style-model") && has)
            style_path = argv[++i];
        else if (!strcmp(argv[i], "--emotion") && has && (run.only_label = label_index(argv[i + 1])) >= 0)
            i++;
        else if (!strcmp(argv[i], "--samples") && has)
            samples_path = argv[++i];
        else if (argv[i][0] != '-' && file_count < 64)
            files[file_count++] = argv[i];
        else {
            fprintf(stderr, "humanlike: bad or incomplete argument '%s'\n", argv[i]);
            return usage();
        }
    }
    char list[512];
    snprintf(list, sizeof list, "%s", modes);
    for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (run.mode_count == HUMANLIKE_MODES_MAX || !mode_parse(t, &run.modes[run.mode_count++])) {
            fprintf(stderr, "humanlike: bad mode '%s' (at most %d)\n", t, HUMANLIKE_MODES_MAX);
            return usage();
        }
    if (!file_count || !run.mode_count)
        return usage();
    bool wants_bayes = false;
    for (int m = 0; m < run.mode_count; m++)
        wants_bayes |= run.modes[m].bayesian;
    if (wants_bayes) {
        char err[512];
        if (!bayes_model_init(&run.bayes)) {
            fprintf(stderr, "humanlike: out of memory\n");
            return 1;
        }
        run.has_bayes = true;
        if (!bayes_read_model(bayes_db, &run.bayes, err, sizeof err)) {
            fprintf(stderr, "humanlike: the bayesian mode's model: %s\n", err);
            run_free(&run);
            return 1;
        }
        run.has_style = style_model_load(&run.style, style_path, err, sizeof err);
        if (!run.has_style)
            fprintf(stderr, "humanlike: %s: the bayesian mode keeps its default target\n", err);
    }
    if (samples_path && !(run.samples_out = fopen(samples_path, "w"))) {
        fprintf(stderr, "humanlike: cannot write %s\n", samples_path);
        run_free(&run);
        return 1;
    }
    if (collect(&run, files, file_count, want, from_ply, every) <= 0) {
        fprintf(stderr, run.only_label < 0 ? "humanlike: no positions read\n"
                                           : "humanlike: no positions of that emotion read\n");
        run_free(&run);
        return 1;
    }
    pthread_t tid[256];
    int started = 0;
    for (int t = 0; t < threads; t++)
        started += !pthread_create(&tid[started], NULL, worker, &run);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    if (atomic_load(&run.failed) == started) { /* none searched: every move would be "none" */
        fprintf(stderr, "humanlike: out of memory (no search could start)\n");
        run_free(&run);
        return 1;
    }

    fprintf(out, "humanlike: %d positions from %d files (ply %d on, every %d), %llu nodes a move\n", run.count,
            file_count, from_ply, every, (unsigned long long)run.nodes);
    if (run.samples_out && !write_samples(&run)) {
        fprintf(stderr, "humanlike: cannot write %s\n", samples_path);
        run_free(&run);
        return 1;
    }
    int per_label[HUMANLIKE_LABELS] = {0};
    for (int i = 0; i < run.count; i++)
        per_label[run.samples[i].label]++;
    fprintf(out, "%-34s %-24s", "mode", "matches the human");
    for (int l = 0; l < HUMANLIKE_LABELS; l++)
        fprintf(out, " %-8s n=%-14d", Labels[l], per_label[l]);
    fprintf(out, " differs from %s, matching vs it (paired)\n", run.modes[0].name);
    for (int m = 0; m < run.mode_count; m++) {
        int hit = 0, differ = 0, hit_label[HUMANLIKE_LABELS] = {0}, only_this[HUMANLIKE_LABELS] = {0},
            only_first[HUMANLIKE_LABELS] = {0}, this_all = 0, first_all = 0;
        for (int i = 0; i < run.count; i++) {
            const Sample *s = &run.samples[i];
            bool same = s->chosen[m] == s->played, first = s->chosen[0] == s->played;
            hit += same;
            hit_label[s->label] += same;
            differ += s->chosen[m] != s->chosen[0];
            only_this[s->label] += same && !first;
            only_first[s->label] += first && !same;
        }
        for (int l = 0; l < HUMANLIKE_LABELS; l++)
            this_all += only_this[l], first_all += only_first[l];
        char gain[24] = "";
        if (run.modes[m].affective || run.modes[m].choice)
            snprintf(gain, sizeof gain, " (gain %.2f)", run.modes[m].temperament.gain);
        char name[80];
        snprintf(name, sizeof name, "%s%s", run.modes[m].name, gain);
        fprintf(out, "%-34s", name);
        print_rate(out, hit, run.count);
        for (int l = 0; l < HUMANLIKE_LABELS; l++)
            print_rate(out, hit_label[l], per_label[l]);
        fprintf(out, "  %5.1f%%  ", 100.0 * differ / run.count);
        print_paired(out, this_all, first_all, run.count, 5);
        fprintf(out, "\n");
        if (m > 0) {
            fprintf(out, "  by emotion, matching vs %s (paired):", run.modes[0].name);
            for (int l = 0; l < HUMANLIKE_LABELS; l++) {
                fprintf(out, "%s %s ", l ? "," : "", Labels[l]);
                print_paired(out, only_this[l], only_first[l], per_label[l], 0);
            }
            fprintf(out, "\n");
        }
        if (run.modes[m].bayesian) {
            int read[STYLE_NB] = {0}, targets[BAYES_TARGET_NB] = {0}, none = 0, moved = 0;
            for (int i = 0; i < run.count; i++) {
                const Sample *s = &run.samples[i];
                s->style < 0 ? none++ : read[s->style]++;
                targets[s->target]++;
                moved += s->changed > 0;
            }
            fprintf(out,
                    "  bayesian: model of %llu games; the opponent read as attacking %d, positional %d, mixed %d, "
                    "not yet %d; target aggressive %d, conservative %d; parameters away from the default in %d "
                    "positions\n",
                    (unsigned long long)run.bayes.games, read[0], read[1], read[2], none, targets[TARGET_AGGRESSIVE],
                    targets[TARGET_CONSERVATIVE], moved);
        }
    }
    run_free(&run);
    return 0;
}
