/* `feelfish tune`: Texel-style tuning of the classical evaluation's parameter vector on positions
 * labelled with game results: self-play positions from `feelfish datagen` (--labels FILE), or the
 * master games in ../shared/data/pgn (--data DIR, the default; about 8,000 games).
 *
 * 1. Positions quiet enough for the static evaluation to mean something: the side to move is not in
 *    check and has no capture that wins material (SEE > 0); in master games also from ply 16 on and
 *    only where the game's move is no capture or promotion (datagen applies its own rule). Every
 *    tenth is held out: its error says whether the fit generalises.
 * 2. K: the scale of the logistic result model P(white wins) = 1 / (1 + 10^(-K * eval / 400)),
 *    fitted to the results with the starting vector (--from engine|handset) and then kept.
 * 3. Trace: per position and per scalar (the middlegame or endgame half of a slot) the change of the
 *    evaluation when that scalar grows by STEP, divided by STEP. Piece-square scalars are traced only
 *    for squares a piece of that type stands on (the others cannot matter).
 * 4. Descent: on that linear model, full-batch Adam on the mean squared error between result and
 *    predicted score; then trace again at the new point (the king attack is quadratic, the endgame
 *    scale multiplies) and descend again, --rounds times.
 * 5. The true error (real evaluation, no model) of the held-out positions before and after is
 *    printed, and the vector written as C (engine/eval/tuned.c, which params_init applies over the
 *    hand-set defaults), with the commands that made it.
 *
 *   feelfish tune [--labels FILE | --data DIR] [--from engine|handset] [--rounds N] [--epochs N]
 *                 [--threads N] [--l2 L] [--freeze NAME,...] [--out FILE]
 * --l2: a penalty L * (change from the starting vector)^2 per scalar; --freeze: runs kept as they are;
 * --dump FILE [--every N]: write the master-game positions as labels instead of tuning. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../eval/eval.h"
#include "../notation/fen.h"
#include "../core/movegen.h"
#include "../notation/pgn.h"
#include "../core/see.h"
#include "tools.h"

enum { MIN_PLY = 16, STEP = 32, MAX_EVAL = 1500 };

typedef struct {
    char fen[100];
    float result; /* White's: 1, 0.5, 0 */
} Sample;

typedef struct {
    uint16_t index; /* scalar: slot * 2 + (0 mg, 1 eg) */
    float coef;
} Term;

typedef struct {
    float base; /* evaluation at the trace point, White's view */
    float result;
    int first, count; /* its terms */
} Traced;

typedef struct {
    Sample *samples;
    int count, cap;
} SampleSet;

/* Slots not tuned: the king-attack divisor (a denominator, not a weight) and the named runs of
 * --freeze. */
static bool frozen[PARAM_SLOT_COUNT];

/* Room for one more sample; the caller fills it and counts it. */
static Sample *sample_slot(SampleSet *set)
{
    if (set->count == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 65536;
        set->samples = realloc(set->samples, (size_t)set->cap * sizeof *set->samples);
        if (!set->samples)
            abort();
    }
    return &set->samples[set->count];
}

static bool tunable(int slot)
{
    int scale = (int)(offsetof(EvalParams, attack_scale) / sizeof(Score));
    return slot != scale && !frozen[slot];
}

static bool freeze(const char *names)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save, *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        const ParamInfo *run = param_table_find(n);
        if (!run)
            return false;
        for (int i = 0; i < run->count; i++)
            frozen[run->offset + i] = true;
    }
    return true;
}

static double sigmoid(double k, double eval) { return 1.0 / (1.0 + pow(10.0, -k * eval / 400.0)); }

static int white_eval(const Position *p, const Evaluator *e)
{
    int v = evaluate(p, e);
    return p->side == WHITE ? v : -v;
}

/* Quiet enough for the static evaluation to mean something: not in check, no capture that wins
 * material. */
static bool quiet_position(const Position *p)
{
    if (in_check(p))
        return false;
    MoveList noisy;
    movegen_legal(p, &noisy, GEN_NOISY);
    for (int i = 0; i < noisy.count; i++)
        if (see_ge(p, noisy.moves[i], 1))
            return false;
    return true;
}

static void read_collection(const char *path, SampleSet *set, FILE *out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(out, "tune: cannot read %s\n", path);
        return;
    }
    PgnReader *r = pgn_reader_open(f);
    PgnGame g;
    char err[256];
    int games = 0, before = set->count;
    for (PgnResult res; (res = pgn_read_game(r, &g, err, sizeof err)) != PGN_END; pgn_game_free(&g)) {
        if (res != PGN_GAME)
            continue;
        float result = !strcmp(g.result, "1-0") ? 1.0f : !strcmp(g.result, "0-1") ? 0.0f : 0.5f;
        if (!strcmp(g.result, "*"))
            continue;
        Position p;
        char msg[128];
        if (!pgn_start_position(&g, &p, msg, sizeof msg))
            continue;
        games++;
        for (int i = 0; i < g.move_count; i++) {
            Move next = g.moves[i].move;
            if (i >= MIN_PLY && !is_capture(&p, next) && move_kind(next) != MOVE_PROMOTION && quiet_position(&p)) {
                Sample *s = sample_slot(set);
                fen_write(&p, s->fen);
                s->result = result;
                set->count++;
            }
            position_make_move(&p, g.moves[i].move);
            position_trim_history(&p);
        }
    }
    pgn_reader_close(r);
    fclose(f);
    fprintf(out, "%s: %d games, %d positions\n", path, games, set->count - before);
}

/* "FEN;target" lines (feelfish datagen): target is White's expected score, 0..1. A first line
 * "# how the file was made" is kept in `origin`. */
static void read_labels(const char *path, SampleSet *set, char *origin, size_t origin_size, FILE *out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(out, "tune: cannot read %s\n", path);
        return;
    }
    char line[256];
    int skipped = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            const char *text = line + strspn(line, "# ");
            if (!*origin)
                snprintf(origin, origin_size, "%.*s", (int)strcspn(text, "\r\n"), text);
            continue;
        }
        char *semi = strchr(line, ';');
        if (!semi || semi - line >= 100)
            continue;
        Sample *s = sample_slot(set);
        memcpy(s->fen, line, (size_t)(semi - line));
        s->fen[semi - line] = 0;
        s->result = (float)atof(semi + 1);
        Position p;
        char msg[64];
        if (s->result >= 0 && s->result <= 1 && fen_read(&p, s->fen, msg, sizeof msg) == FEN_OK && quiet_position(&p))
            set->count++;
        else
            skipped++;
    }
    fclose(f);
    fprintf(out, "%s: %d labelled positions kept, %d skipped (not quiet or unreadable)\n", path, set->count, skipped);
}

/* ---- the true error ---- */

typedef struct {
    const SampleSet *set;
    const EvalParams *params;
    double k;
    int from, to;
    double sum;
    int kept;
} ErrorJob;

static void *error_worker(void *arg)
{
    ErrorJob *j = arg;
    Evaluator e;
    evaluator_hand(&e); /* the tuner fits the hand-written evaluation */
    e.params = j->params;
    j->sum = 0, j->kept = 0;
    for (int i = j->from; i < j->to; i++) {
        Position p;
        char msg[64];
        if (fen_read(&p, j->set->samples[i].fen, msg, sizeof msg) != FEN_OK)
            continue;
        int v = white_eval(&p, &e);
        if (abs(v) > MAX_EVAL)
            continue;
        double d = j->set->samples[i].result - sigmoid(j->k, v);
        j->sum += d * d;
        j->kept++;
    }
    return NULL;
}

static double true_error(const SampleSet *set, const EvalParams *params, double k, int threads)
{
    ErrorJob jobs[threads];
    pthread_t tid[threads];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (ErrorJob){set, params, k, set->count * t / threads, set->count * (t + 1) / threads, 0, 0};
        pthread_create(&tid[t], NULL, error_worker, &jobs[t]);
    }
    double sum = 0;
    long kept = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        sum += jobs[t].sum, kept += jobs[t].kept;
    }
    return kept ? sum / (double)kept : 0;
}

static double fit_k(const SampleSet *set, const EvalParams *params, int threads, FILE *out)
{
    double lo = 0.3, hi = 3.0; /* golden-section search: the error is unimodal in K */
    const double g = (sqrt(5.0) - 1) / 2;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    double ea = true_error(set, params, a, threads), eb = true_error(set, params, b, threads);
    for (int i = 0; i < 20; i++) {
        if (ea < eb)
            hi = b, b = a, eb = ea, a = hi - g * (hi - lo), ea = true_error(set, params, a, threads);
        else
            lo = a, a = b, ea = eb, b = lo + g * (hi - lo), eb = true_error(set, params, b, threads);
    }
    double k = (lo + hi) / 2;
    fprintf(out, "K = %.4f (error %.6f)\n", k, true_error(set, params, k, threads));
    return k;
}

/* ---- the trace ---- */

typedef struct {
    const SampleSet *set;
    const EvalParams *params;
    int from, to;
    Traced *traced;
    Term *terms;
    long nterms, cap;
} TraceJob;

static void add_term(TraceJob *j, int index, float coef)
{
    if (j->nterms == j->cap) {
        j->cap = j->cap ? j->cap * 2 : 1 << 20;
        j->terms = realloc(j->terms, (size_t)j->cap * sizeof *j->terms);
    }
    j->terms[j->nterms++] = (Term){(uint16_t)index, coef};
}

static void *trace_worker(void *arg)
{
    TraceJob *j = arg;
    EvalParams work = *j->params;
    Score *slots = params_slots_mut(&work);
    Evaluator e;
    evaluator_hand(&e);
    e.params = &work;
    const int psq_first = (int)(offsetof(EvalParams, psq) / sizeof(Score));
    const int psq_end = psq_first + PIECE_TYPE_NB * SQUARE_NB;
    for (int i = j->from; i < j->to; i++) {
        Traced *t = &j->traced[i];
        Position p;
        char msg[64];
        t->first = (int)j->nterms, t->count = 0, t->result = j->set->samples[i].result;
        if (fen_read(&p, j->set->samples[i].fen, msg, sizeof msg) != FEN_OK) {
            t->base = NAN;
            continue;
        }
        int base = white_eval(&p, &e);
        t->base = (float)base;
        /* The piece-square slots this position can read: its pieces' squares, from White's view. */
        bool read_psq[PIECE_TYPE_NB * SQUARE_NB] = {false};
        for (Bitboard b = occupied(&p); b;) {
            Square s = pop_lsb(&b);
            Piece pc = p.board[s];
            read_psq[piece_type(pc) * SQUARE_NB + (piece_color(pc) == WHITE ? s : square_flip(s))] = true;
        }
        for (int slot = 0; slot < PARAM_SLOT_COUNT; slot++) {
            if (!tunable(slot) || (slot >= psq_first && slot < psq_end && !read_psq[slot - psq_first]))
                continue;
            Score saved = slots[slot];
            for (int half = 0; half < 2; half++) {
                int mg = score_mg(saved), eg = score_eg(saved);
                slots[slot] = half ? S(mg, eg + STEP) : S(mg + STEP, eg);
                int v = white_eval(&p, &e);
                slots[slot] = saved;
                if (v != base)
                    add_term(j, slot * 2 + half, (float)(v - base) / STEP);
            }
        }
        t->count = (int)j->nterms - t->first;
    }
    return NULL;
}

/* Traces every sample at `params`; returns the terms (one array) through *terms. */
static Traced *trace_all(const SampleSet *set, const EvalParams *params, int threads, Term **terms)
{
    Traced *traced = calloc((size_t)set->count, sizeof *traced);
    TraceJob jobs[threads];
    pthread_t tid[threads];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (TraceJob){set, params, set->count * t / threads, set->count * (t + 1) / threads, traced, NULL, 0, 0};
        pthread_create(&tid[t], NULL, trace_worker, &jobs[t]);
    }
    long total = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        total += jobs[t].nterms;
    }
    /* One array: shift each job's term offsets by what came before it. */
    *terms = malloc((size_t)(total ? total : 1) * sizeof **terms);
    long at = 0;
    for (int t = 0; t < threads; t++) {
        memcpy(*terms + at, jobs[t].terms, (size_t)jobs[t].nterms * sizeof **terms);
        for (int i = jobs[t].from; i < jobs[t].to; i++)
            traced[i].first += (int)at;
        at += jobs[t].nterms;
        free(jobs[t].terms);
    }
    return traced;
}

/* ---- the descent ---- */

/* `away[i]`: how far scalar i already is from the starting vector; --l2 pulls the sum back. */
static void descend(const Traced *traced, int count, const Term *terms, double k, int epochs, double l2,
                    const double *away, double *delta, FILE *out)
{
    const int n = PARAM_SLOT_COUNT * 2;
    double *grad = calloc((size_t)n, sizeof *grad), *m = calloc((size_t)n, sizeof *m),
           *v = calloc((size_t)n, sizeof *v);
    const double rate = 1.0, b1 = 0.9, b2 = 0.999, c = k * log(10.0) / 400.0;
    for (int epoch = 1; epoch <= epochs; epoch++) {
        memset(grad, 0, (size_t)n * sizeof *grad);
        double err = 0;
        int used = 0;
        for (int i = 0; i < count; i++) {
            const Traced *t = &traced[i];
            if (isnan(t->base) || fabs(t->base) > MAX_EVAL)
                continue;
            double e = t->base;
            for (int x = 0; x < t->count; x++)
                e += terms[t->first + x].coef * delta[terms[t->first + x].index];
            double s = sigmoid(k, e), d = t->result - s;
            err += d * d, used++;
            double g = -2 * d * s * (1 - s) * c;
            for (int x = 0; x < t->count; x++)
                grad[terms[t->first + x].index] += g * terms[t->first + x].coef;
        }
        for (int i = 0; i < n; i++) {
            double g = grad[i] / used + 2 * l2 * (away[i] + delta[i]);
            m[i] = b1 * m[i] + (1 - b1) * g;
            v[i] = b2 * v[i] + (1 - b2) * g * g;
            double mh = m[i] / (1 - pow(b1, epoch)), vh = v[i] / (1 - pow(b2, epoch));
            delta[i] -= rate * mh / (sqrt(vh) + 1e-8);
        }
        if (epoch == 1 || epoch % 100 == 0 || epoch == epochs) {
            fprintf(out, "  epoch %4d: model error %.6f\n", epoch, err / used);
            fflush(out);
        }
    }
    free(grad), free(m), free(v);
}

/* ---- output ---- */

static bool write_c(const char *path, const EvalParams *p, const char *how, double k, double before, double after,
                    int samples)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f,
            "/* Generated by `feelfish tune` (engine/tune.c): the classical evaluation's parameter vector, tuned\n"
            " * on %d quiet positions (K = %.4f, held-out mean squared error %.6f -> %.6f). Made by:\n"
            "%s"
            " * params_init applies it over the hand-set defaults. Do not edit by hand: rerun those commands. */\n"
            "#include \"params.h\"\n\n"
            "const int TunedSlotCount = %d;\n\n"
            "const short TunedSlots[][2] = {\n",
            samples, k, before, after, how, PARAM_SLOT_COUNT);
    const Score *s = params_slots(p);
    for (int t = 0; t < ParamTableCount; t++) {
        fprintf(f, "    /* %s */\n   ", ParamTable[t].name);
        for (int i = 0; i < ParamTable[t].count; i++) {
            Score v = s[ParamTable[t].offset + i];
            fprintf(f, " {%d, %d},", score_mg(v), score_eg(v));
            if (i % 8 == 7 && i + 1 < ParamTable[t].count)
                fprintf(f, "\n   ");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "};\n");
    return fclose(f) == 0;
}

int tune_command(int argc, char **argv, FILE *out)
{
    const char *data = "../shared/data", *path = "engine/eval/tuned.c";
    int rounds = 2, epochs = 600, threads = 2;
    double l2 = 0;
    const char *dump = NULL, *labels = NULL;
    const EvalParams *from = &DefaultParams;
    int every = 1;
    for (int i = 0; i < argc; i++) {
        bool has = i + 1 < argc;
        if (!strcmp(argv[i], "--data") && has)
            data = argv[++i];
        else if (!strcmp(argv[i], "--out") && has)
            path = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && has)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--epochs") && has)
            epochs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && has)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && has)
            dump = argv[++i];
        else if (!strcmp(argv[i], "--every") && has)
            every = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (!strcmp(argv[i], "--labels") && has)
            labels = argv[++i];
        else if (!strcmp(argv[i], "--l2") && has)
            l2 = atof(argv[++i]);
        else if (!strcmp(argv[i], "--from") && has &&
                 (!strcmp(argv[i + 1], "engine") || !strcmp(argv[i + 1], "handset")))
            from = !strcmp(argv[++i], "handset") ? &HandSetParams : &DefaultParams;
        else if (!strcmp(argv[i], "--freeze") && has) {
            if (!freeze(argv[++i])) {
                fprintf(stderr, "tune: --freeze takes names of the vector's tables, comma-separated (ParamTable in "
                                "engine/eval/params.c)\n");
                return 2;
            }
        } else {
            fprintf(stderr,
                    "tune: unexpected argument '%s'\nusage: feelfish tune [--labels FILE | --data DIR] "
                    "[--from engine|handset] [--rounds N] [--epochs N] [--threads N] [--l2 L] [--freeze NAME,...] "
                    "[--out FILE]\n",
                    argv[i]);
            return 2;
        }
    }
    if (rounds < 1 || rounds > 20 || epochs < 1 || epochs > 100000 || threads < 1 || threads > 64) {
        fprintf(stderr, "tune: --rounds 1..20, --epochs 1..100000, --threads 1..64\n");
        return 2;
    }
    SampleSet set = {0};
    char origin[256] = "";
    if (labels)
        read_labels(labels, &set, origin, sizeof origin, out);
    else {
        const char *files[] = {"Kasparov.pgn", "Karpov.pgn", "Anand.pgn"};
        for (int i = 0; i < 3; i++) {
            char file[1024];
            snprintf(file, sizeof file, "%s/pgn/%s", data, files[i]);
            read_collection(file, &set, out);
        }
    }
    if (dump) {
        FILE *f = fopen(dump, "w");
        if (!f) {
            fprintf(stderr, "tune: cannot write %s\n", dump);
            return 1;
        }
        int written = 0;
        for (int i = 0; i < set.count; i += every, written++)
            fprintf(f, "%s;%.1f\n", set.samples[i].fen, set.samples[i].result);
        fclose(f);
        fprintf(out, "wrote %d positions to %s\n", written, dump);
        free(set.samples);
        return 0;
    }
    if (set.count < 1000) {
        fprintf(stderr, "tune: only %d positions; is --labels or --data right?\n", set.count);
        return 1;
    }
    /* Every tenth position is held out: its error says whether the fit generalises. */
    SampleSet held = {0};
    held.cap = set.count / 10 + 1;
    held.samples = malloc((size_t)held.cap * sizeof *held.samples);
    int kept = 0;
    for (int i = 0; i < set.count; i++) {
        if (i % 10 == 9)
            held.samples[held.count++] = set.samples[i];
        else
            set.samples[kept++] = set.samples[i];
    }
    set.count = kept;
    fprintf(out, "%d positions to fit, %d held out\n", set.count, held.count);
    EvalParams params = *from, start = *from;
    double k = fit_k(&set, &params, threads, out);
    double before = true_error(&set, &params, k, threads);
    double held_before = true_error(&held, &params, k, threads);
    fprintf(out, "start: error %.6f, held out %.6f\n", before, held_before);
    for (int round = 1; round <= rounds; round++) {
        Term *terms;
        Traced *traced = trace_all(&set, &params, threads, &terms);
        long nterms = traced[set.count - 1].first + traced[set.count - 1].count;
        fprintf(out, "round %d: traced %d positions, %.1f terms each\n", round, set.count, (double)nterms / set.count);
        double *delta = calloc((size_t)PARAM_SLOT_COUNT * 2, sizeof *delta),
               *away = calloc((size_t)PARAM_SLOT_COUNT * 2, sizeof *away);
        for (int slot = 0; slot < PARAM_SLOT_COUNT; slot++) {
            away[slot * 2] = score_mg(params_slots(&params)[slot]) - score_mg(params_slots(&start)[slot]);
            away[slot * 2 + 1] = score_eg(params_slots(&params)[slot]) - score_eg(params_slots(&start)[slot]);
        }
        descend(traced, set.count, terms, k, epochs, l2, away, delta, out);
        free(away);
        Score *slots = params_slots_mut(&params);
        for (int slot = 0; slot < PARAM_SLOT_COUNT; slot++) {
            int mg = score_mg(slots[slot]) + (int)lround(delta[slot * 2]);
            int eg = score_eg(slots[slot]) + (int)lround(delta[slot * 2 + 1]);
            slots[slot] = S(mg, eg);
        }
        fprintf(out, "round %d: error %.6f, held out %.6f\n", round, true_error(&set, &params, k, threads),
                true_error(&held, &params, k, threads));
        free(delta), free(traced), free(terms);
    }
    double after = true_error(&held, &params, k, threads);
    fprintf(out, "held-out error %.6f -> %.6f\n", held_before, after);
    /* How it was made, for the generated file: the data's origin and this command. */
    char how[1024];
    int n = 0;
    if (*origin)
        n += snprintf(how + n, sizeof how - (size_t)n, " *   %s --out FILE\n", origin);
    n += snprintf(how + n, sizeof how - (size_t)n, " *   feelfish tune");
    for (int i = 0; i < argc && n < (int)sizeof how - 64; i++)
        n +=
            snprintf(how + n, sizeof how - (size_t)n, " %s", !strcmp(argv[i], labels ? labels : "") ? "FILE" : argv[i]);
    snprintf(how + n, sizeof how - (size_t)n, "\n");
    bool ok = write_c(path, &params, how, k, held_before, after, set.count);
    fprintf(out, ok ? "wrote %s\n" : "tune: cannot write %s\n", path);
    free(set.samples);
    free(held.samples);
    return ok ? 0 : 1;
}
