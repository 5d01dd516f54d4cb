/* The style classifier's commands: `style-train` builds the model file from the three players'
 * PGN collections, `style` classifies one player's games, `style-cv` cross-validates the
 * classifier on the collections (by game, deterministic folds) and prints the confusion matrix. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/random.h"
#include "../adapt/style.h"
#include "tools.h"

#define DEFAULT_MODEL "engine/style.model"

/* The training collections: the file's surname names the player whose moves are sampled. */
static const struct {
    const char *player;
    Style style;
} Collections[STYLE_NB] = {{"Kasparov", STYLE_ATTACKING}, {"Karpov", STYLE_POSITIONAL}, {"Anand", STYLE_MIXED}};

/* One game's samples of the named player. */
typedef struct {
    Style style;
    int count;
    StyleFeatures samples[STYLE_SAMPLE_NB];
} GameSamples;

typedef struct {
    GameSamples *games;
    int count, cap;
    long read[STYLE_NB], bad[STYLE_NB], unnamed[STYLE_NB], both[STYLE_NB], short_games[STYLE_NB], samples[STYLE_NB];
} TrainingSet;

static const char *default_data_dir(void)
{
    const char *env = getenv("FEELFISH_DATA");
    return env && *env ? env : "../shared/data";
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* DIR/pgn/NAME.pgn (DIR is the shared data folder), or DIR/NAME.pgn. */
static void collection_path(const char *dir, const char *player, char *path, size_t size)
{
    snprintf(path, size, "%s/pgn/%s.pgn", dir, player);
    if (!file_exists(path))
        snprintf(path, size, "%s/%s.pgn", dir, player);
}

/* The colour whose player tag matches name: WHITE, BLACK, -1 for neither, -2 for both. */
static int player_color(const PgnGame *g, const char *name)
{
    bool w = style_name_matches(pgn_tag(g, "White"), name), b = style_name_matches(pgn_tag(g, "Black"), name);
    return w && b ? -2 : w ? WHITE : b ? BLACK : -1;
}

static bool game_moves(const PgnGame *g, Position *start, Move **moves)
{
    char msg[200];
    if (!pgn_start_position(g, start, msg, sizeof msg))
        return false;
    *moves = malloc(sizeof **moves * (size_t)(g->move_count + 1));
    for (int i = 0; i < g->move_count; i++)
        (*moves)[i] = g->moves[i].move;
    return true;
}

/* Appends a game's samples to a growing array. */
static void push_game(GameSamples **games, int *count, int *cap, const GameSamples *gs)
{
    if (*count == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *games = realloc(*games, sizeof **games * (size_t)*cap);
    }
    (*games)[(*count)++] = *gs;
}

/* Reads the three collections in turn and calls visit for every game: g is NULL for one that cannot be
 * read or replayed, else the game, its start and its moves. False (with a message) if a collection
 * cannot be opened. */
typedef void (*GameVisit)(int collection, const PgnGame *g, const Position *start, const Move *moves, void *arg);

static bool each_collection_game(const char *dir, GameVisit visit, void *arg)
{
    Position *start = malloc(sizeof *start);
    for (int k = 0; k < STYLE_NB; k++) {
        char path[4096];
        collection_path(dir, Collections[k].player, path, sizeof path);
        FILE *f = fopen(path, "r");
        if (!f) {
            fprintf(stderr,
                    "style: cannot open %s/pgn/%s.pgn (nor %s): %s (give the shared data folder with --data DIR)\n",
                    dir, Collections[k].player, path, strerror(errno));
            free(start);
            return false;
        }
        PgnReader *r = pgn_reader_open(f);
        PgnGame g;
        PgnResult res;
        char err[512];
        while ((res = pgn_read_game(r, &g, err, sizeof err)) != PGN_END) {
            Move *moves = NULL;
            bool ok = res == PGN_GAME && game_moves(&g, start, &moves);
            visit(k, ok ? &g : NULL, start, moves, arg);
            free(moves);
            pgn_game_free(&g);
        }
        pgn_reader_close(r);
        fclose(f);
    }
    free(start);
    return true;
}

/* A training game: the named player's samples, counted by class. */
static void training_game(int k, const PgnGame *g, const Position *start, const Move *moves, void *arg)
{
    TrainingSet *ts = arg;
    Style s = Collections[k].style;
    int c = g ? player_color(g, Collections[k].player) : -1;
    if (!g)
        ts->bad[s]++;
    else if (c == -1)
        ts->unnamed[s]++;
    else if (c == -2)
        ts->both[s]++;
    else {
        ts->read[s]++;
        GameSamples gs = {.style = s};
        StyleFeatures buf[STYLE_SAMPLE_NB + 1];
        gs.count = style_game_samples(start, moves, g->move_count, (Color)c, false, buf, NULL);
        if (gs.count <= 0)
            ts->short_games[s]++;
        else {
            memcpy(gs.samples, buf, sizeof gs.samples[0] * (size_t)gs.count);
            push_game(&ts->games, &ts->count, &ts->cap, &gs);
            ts->samples[s] += gs.count;
        }
    }
}

static bool load_training(const char *dir, TrainingSet *ts)
{
    memset(ts, 0, sizeof *ts);
    if (each_collection_game(dir, training_game, ts))
        return true;
    free(ts->games);
    return false;
}

static void print_training(const TrainingSet *ts, FILE *out)
{
    for (int k = 0; k < STYLE_NB; k++) {
        Style s = Collections[k].style;
        fprintf(out,
                "%s.pgn (%s): %ld games with %s, %ld too short, %ld samples; skipped: %ld unreadable, %ld without "
                "the player, %ld with the name on both sides\n",
                Collections[k].player, StyleNames[s], ts->read[s], Collections[k].player, ts->short_games[s],
                ts->samples[s], ts->bad[s], ts->unnamed[s], ts->both[s]);
    }
}

/* The decision prior (fortieths, each at least 1) that maximises the mean recall of the three classes
 * on the training games (those not in skip_fold), each game's samples combined; the first best of
 * the grid wins. The games' log-likelihoods do not depend on the prior: computed once. */
static void fit_decision(StyleModel *m, const TrainingSet *ts, const int *fold, int skip_fold)
{
    double(*ll)[STYLE_NB] = malloc(sizeof *ll * (size_t)(ts->count + 1));
    long total[STYLE_NB] = {0};
    for (int i = 0; i < ts->count; i++) {
        if (fold && fold[i] == skip_fold)
            continue;
        const GameSamples *gs = &ts->games[i];
        total[gs->style]++;
        for (int c = 0; c < STYLE_NB; c++) {
            ll[i][c] = style_model_log_likelihood(m, (Style)c, gs->samples, gs->count);
        }
    }
    const int U = STYLE_DECISION_UNITS;
    double best = -1;
    for (int a = 1; a < U - 1; a++)
        for (int b = 1; a + b < U; b++) {
            const int w[STYLE_NB] = {a, b, U - a - b};
            long hit[STYLE_NB] = {0};
            for (int i = 0; i < ts->count; i++) {
                if (fold && fold[i] == skip_fold)
                    continue;
                int arg = 0;
                for (int c = 1; c < STYLE_NB; c++)
                    if (log(w[c]) + ll[i][c] > log(w[arg]) + ll[i][arg])
                        arg = c;
                hit[ts->games[i].style] += arg == (int)ts->games[i].style;
            }
            double mean = 0;
            for (int c = 0; c < STYLE_NB; c++)
                mean += total[c] ? (double)hit[c] / (double)total[c] / STYLE_NB : 0;
            if (mean > best) {
                best = mean;
                for (int c = 0; c < STYLE_NB; c++)
                    m->decision[c] = (uint32_t)w[c];
            }
        }
    free(ll);
}

/* Counts the training games (those not in skip_fold; all with fold NULL), then fits the decision
 * prior on them. */
static void train(StyleModel *m, const TrainingSet *ts, const int *fold, int skip_fold)
{
    style_model_init(m);
    for (int i = 0; i < ts->count; i++)
        if (!fold || fold[i] != skip_fold)
            for (int j = 0; j < ts->games[i].count; j++)
                style_model_add(m, ts->games[i].style, &ts->games[i].samples[j]);
    fit_decision(m, ts, fold, skip_fold);
}

static bool parse_int(const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

int style_train_command(int argc, char **argv, FILE *out)
{
    const char *dir = default_data_dir(), *path = DEFAULT_MODEL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            path = argv[++i];
        else {
            fprintf(stderr,
                    "style-train: unexpected argument '%s'\nusage: feelfish style-train [--data DIR] [--out FILE]\n",
                    argv[i]);
            return 2;
        }
    }
    TrainingSet ts;
    if (!load_training(dir, &ts))
        return 2;
    StyleModel m;
    train(&m, &ts, NULL, -1);
    print_training(&ts, out);
    free(ts.games);
    char err[512];
    if (!style_model_save(&m, path, err, sizeof err)) {
        fprintf(stderr, "style-train: %s\n", err);
        return 2;
    }
    fprintf(out, "wrote %s: %u samples (attacking %u, positional %u, mixed %u); decision prior %u:%u:%u (of %d)\n",
            path, m.prior[0] + m.prior[1] + m.prior[2], m.prior[0], m.prior[1], m.prior[2], m.decision[0],
            m.decision[1], m.decision[2], STYLE_DECISION_UNITS);
    return 0;
}

/* ---- style-cv ---------------------------------------------------------------------------- */

/* The Wilson score interval (95 %) of k successes in n. */
static void wilson(long k, long n, double *lo, double *hi)
{
    const double z = 1.959964;
    if (n == 0) {
        *lo = 0, *hi = 1;
        return;
    }
    double p = (double)k / (double)n, d = 1 + z * z / (double)n;
    double centre = (p + z * z / (2.0 * (double)n)) / d;
    double half = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
    *lo = centre - half, *hi = centre + half;
}

static void print_matrix(const char *title, long m[STYLE_NB][STYLE_NB], FILE *out)
{
    long total = 0, right = 0, col[STYLE_NB] = {0}, row[STYLE_NB] = {0};
    for (int t = 0; t < STYLE_NB; t++)
        for (int p = 0; p < STYLE_NB; p++) {
            total += m[t][p], row[t] += m[t][p], col[p] += m[t][p];
            if (t == p)
                right += m[t][p];
        }
    fprintf(out, "%s: confusion matrix (rows: true class, columns: predicted)\n", title);
    fprintf(out, "%-12s %10s %10s %10s   %-26s %9s %9s\n", "", StyleNames[0], StyleNames[1], StyleNames[2],
            "recall (95% CI)", "precision", "predicted");
    for (int t = 0; t < STYLE_NB; t++) {
        double lo, hi;
        wilson(m[t][t], row[t], &lo, &hi);
        char recall[64];
        snprintf(recall, sizeof recall, "%5.1f%% (%4.1f-%4.1f%%)",
                 row[t] ? 100.0 * (double)m[t][t] / (double)row[t] : 0, 100 * lo, 100 * hi);
        fprintf(out, "%-12s %10ld %10ld %10ld   %-26s %8.1f%% %8.1f%%\n", StyleNames[t], m[t][0], m[t][1], m[t][2],
                recall, col[t] ? 100.0 * (double)m[t][t] / (double)col[t] : 0,
                total ? 100.0 * (double)col[t] / (double)total : 0);
    }
    double shares = 0, majority = 0;
    for (int t = 0; t < STYLE_NB; t++) {
        double share = total ? (double)row[t] / (double)total : 0;
        shares += share * share;
        if (share > majority)
            majority = share;
    }
    double lo, hi;
    wilson(right, total, &lo, &hi);
    fprintf(out,
            "accuracy: %.1f%% (%ld/%ld, 95%% CI %.1f-%.1f%%); chance: 33.3%% guessing uniformly, %.1f%% guessing "
            "by the class shares, %.1f%% always naming the largest class\n",
            total ? 100.0 * (double)right / (double)total : 0, right, total, 100 * lo, 100 * hi, 100 * shares,
            100 * majority);
}

typedef struct {
    double score;
    bool positive;
} Scored;

static int by_score(const void *a, const void *b)
{
    double x = ((const Scored *)a)->score, y = ((const Scored *)b)->score;
    return (x > y) - (x < y);
}

/* One class against the rest: the probability that a game of the class gets a higher posterior of
 * the class than a game of another class (ties count half); 0.5 is chance. */
static double one_vs_rest_auc(const GameSamples *games, double (*post)[STYLE_NB], int n, Style s)
{
    Scored *v = malloc(sizeof *v * (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = (Scored){post[i][s], games[i].style == s};
    qsort(v, (size_t)n, sizeof *v, by_score);
    double rank_sum = 0;
    long pos = 0;
    for (int i = 0; i < n;) {
        int j = i, hits = 0;
        while (j < n && v[j].score == v[i].score)
            hits += v[j++].positive;
        rank_sum += hits * (i + 1 + j) / 2.0; /* the average rank of the tied run */
        pos += hits;
        i = j;
    }
    free(v);
    long neg = n - pos;
    return pos && neg ? (rank_sum - (double)pos * (double)(pos + 1) / 2) / ((double)pos * (double)neg) : 0.5;
}

/* Players the model never counts (their moves are in the collections only as the three players'
 * opponents), named by their reputation as attacking or positional players, to see whether the
 * classifier reads a style or only recognises Kasparov, Karpov and Anand. Alternatives of a name are
 * separated by '|' (the PGNs spell a player several ways). */
static const struct {
    const char *names;
    Style style;
} HeldOut[] = {{"Shirov", STYLE_ATTACKING},     {"Topalov", STYLE_ATTACKING},
               {"Morozevich", STYLE_ATTACKING}, {"Polgar, J|Polgar,J", STYLE_ATTACKING},
               {"Kramnik", STYLE_POSITIONAL},   {"Andersson", STYLE_POSITIONAL},
               {"Leko", STYLE_POSITIONAL},      {"Petrosian", STYLE_POSITIONAL},
               {"Portisch", STYLE_POSITIONAL}};
#define HELD_OUT_NB ((int)(sizeof HeldOut / sizeof HeldOut[0]))

static bool held_out_matches(const char *tag, const char *names)
{
    char copy[64];
    snprintf(copy, sizeof copy, "%s", names);
    char *save = NULL;
    for (char *n = strtok_r(copy, "|", &save); n; n = strtok_r(NULL, "|", &save))
        if (style_name_matches(tag, n))
            return true;
    return false;
}

/* The held-out players' games in the collections, classified by the model trained on every training
 * game: each player's mean posterior, and for the two groups the probability that a game of the
 * attacking group reads more attacking than one of the positional group (and the converse). */
typedef struct {
    const StyleModel *m;
    double sum[HELD_OUT_NB][STYLE_NB];
    long games[HELD_OUT_NB];
    GameSamples *group; /* each game's reputed class (its samples are not kept) */
    double (*post)[STYLE_NB];
    int n, cap;
} HeldOutRead;

static void held_out_game(int k, const PgnGame *g, const Position *start, const Move *moves, void *arg)
{
    (void)k;
    HeldOutRead *h = arg;
    for (int c = WHITE; g && c <= BLACK; c++) {
        const char *tag = pgn_tag(g, c == WHITE ? "White" : "Black");
        int p = 0;
        while (p < HELD_OUT_NB && !held_out_matches(tag, HeldOut[p].names))
            p++;
        StyleFeatures buf[STYLE_SAMPLE_NB + 1];
        int count = p < HELD_OUT_NB ? style_game_samples(start, moves, g->move_count, (Color)c, false, buf, NULL) : 0;
        if (count <= 0)
            continue;
        GameSamples gs = {.style = HeldOut[p].style};
        int cap = h->cap;
        push_game(&h->group, &h->n, &h->cap, &gs);
        if (h->cap != cap)
            h->post = realloc(h->post, sizeof *h->post * (size_t)h->cap);
        double *post = h->post[h->n - 1];
        style_model_classify(h->m, buf, count, post);
        h->games[p]++;
        for (int s = 0; s < STYLE_NB; s++)
            h->sum[p][s] += post[s];
    }
}

static void held_out_report(const StyleModel *m, const char *dir, FILE *out)
{
    HeldOutRead h = {.m = m};
    each_collection_game(dir, held_out_game, &h);
    fprintf(out, "\nheld-out players (never counted; their games against the three, the model trained on all):\n");
    fprintf(out, "%-12s %-11s %6s %11s %11s %11s  (mean posterior of the games)\n", "player", "reputation", "games",
            StyleNames[0], StyleNames[1], StyleNames[2]);
    double mean[HELD_OUT_NB][STYLE_NB] = {{0}};
    for (int p = 0; p < HELD_OUT_NB; p++) {
        for (int s = 0; h.games[p] && s < STYLE_NB; s++)
            mean[p][s] = h.sum[p][s] / (double)h.games[p];
        char name[24];
        snprintf(name, sizeof name, "%s", HeldOut[p].names);
        name[strcspn(name, "|")] = 0;
        fprintf(out, "%-12s %-11s %6ld %11.3f %11.3f %11.3f\n", name, StyleNames[HeldOut[p].style], h.games[p],
                mean[p][0], mean[p][1], mean[p][2]);
    }
    /* Pairs: each attacking player reads more attacking than each positional one, and the converse. */
    int pairs = 0, both = 0;
    for (int a = 0; a < HELD_OUT_NB; a++)
        for (int p = 0; p < HELD_OUT_NB; p++)
            if (HeldOut[a].style == STYLE_ATTACKING && HeldOut[p].style == STYLE_POSITIONAL && h.games[a] &&
                h.games[p]) {
                pairs++;
                both += mean[a][STYLE_ATTACKING] > mean[p][STYLE_ATTACKING] &&
                        mean[p][STYLE_POSITIONAL] > mean[a][STYLE_POSITIONAL];
            }
    fprintf(out,
            "pairs (attacking player, positional player) where each reads as its own style more than the other "
            "does: %d of %d\n",
            both, pairs);
    if (h.n)
        fprintf(out,
                "by game, the attacking players' games against the positional players': AUC of the attacking "
                "posterior %.3f, of the positional posterior %.3f (0.5 = chance)\n",
                one_vs_rest_auc(h.group, h.post, h.n, STYLE_ATTACKING),
                one_vs_rest_auc(h.group, h.post, h.n, STYLE_POSITIONAL));
    free(h.group);
    free(h.post);
}

int style_cv_command(int argc, char **argv, FILE *out)
{
    const char *dir = default_data_dir();
    long folds = 5, seed = 1;
    static const char *const PriorKinds[] = {"decision", "shares", "uniform"};
    int prior_kind = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--prior") && i + 1 < argc) {
            i++;
            for (prior_kind = 0; prior_kind < 3 && strcmp(argv[i], PriorKinds[prior_kind]); prior_kind++)
                ;
            if (prior_kind == 3) {
                fprintf(stderr, "style-cv: --prior is 'decision' (fitted on each training fold for the best mean "
                                "recall, the default), 'shares' (the class shares of the training samples) or "
                                "'uniform'\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--folds") && i + 1 < argc) {
            if (!parse_int(argv[++i], 2, 100, &folds)) {
                fprintf(stderr, "style-cv: --folds needs a number from 2 to 100\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (!parse_int(argv[++i], 0, 2147483647L, &seed)) {
                fprintf(stderr, "style-cv: --seed needs a number from 0 to 2147483647\n");
                return 2;
            }
        } else {
            fprintf(stderr,
                    "style-cv: unexpected argument '%s'\nusage: feelfish style-cv [--data DIR] [--folds K] "
                    "[--seed S] [--prior decision|shares|uniform]\n",
                    argv[i]);
            return 2;
        }
    }
    TrainingSet ts;
    if (!load_training(dir, &ts))
        return 2;
    print_training(&ts, out);
    /* Games in a seeded random order; the game at position j of that order is in fold j % K. */
    int *order = malloc(sizeof *order * (size_t)ts.count), *fold = malloc(sizeof *fold * (size_t)ts.count);
    for (int i = 0; i < ts.count; i++)
        order[i] = i;
    uint64_t state = (uint64_t)seed;
    for (int i = ts.count - 1; i > 0; i--) {
        int j = (int)(splitmix64(&state) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (int j = 0; j < ts.count; j++)
        fold[order[j]] = (int)(j % folds);
    long by_game[STYLE_NB][STYLE_NB] = {{0}}, by_sample[STYLE_NB][STYLE_NB] = {{0}};
    double(*game_post)[STYLE_NB] = malloc(sizeof *game_post * (size_t)(ts.count + 1));
    StyleModel m;
    for (int k = 0; k < folds; k++) {
        train(&m, &ts, fold, k);
        double prior[STYLE_NB];
        StyleModel shares = m;
        memset(shares.decision, 0, sizeof shares.decision);
        for (int c = 0; c < STYLE_NB; c++)
            prior[c] = prior_kind == 2 ? 1.0 / STYLE_NB : style_model_prior(prior_kind ? &shares : &m, (Style)c);
        if (prior_kind == 0)
            fprintf(out, "fold %d: decision prior attacking %u positional %u mixed %u (of %d)\n", k + 1, m.decision[0],
                    m.decision[1], m.decision[2], STYLE_DECISION_UNITS);
        for (int i = 0; i < ts.count; i++) {
            if (fold[i] != k)
                continue;
            const GameSamples *gs = &ts.games[i];
            double post[STYLE_NB];
            by_game[gs->style][style_model_classify_with_prior(&m, prior, gs->samples, gs->count, game_post[i])]++;
            for (int j = 0; j < gs->count; j++)
                by_sample[gs->style][style_model_classify_with_prior(&m, prior, &gs->samples[j], 1, post)]++;
        }
    }
    fprintf(out,
            "\n%ld-fold cross-validation, seed %ld, %s prior: %d games, split by game (each fold trains on the "
            "other %ld folds and tests its own)\n\n",
            folds, seed, PriorKinds[prior_kind], ts.count, folds - 1);
    print_matrix("by game (a game's samples after moves 15 and 20 combined)", by_game, out);
    fprintf(out, "one class against the rest, by game: AUC (0.5 = chance)");
    for (int c = 0; c < STYLE_NB; c++)
        fprintf(out, " %s %.3f", StyleNames[c], one_vs_rest_auc(ts.games, game_post, ts.count, (Style)c));
    fprintf(out, "\n");
    fprintf(out, "\n");
    print_matrix("by sample (each position alone)", by_sample, out);
    train(&m, &ts, NULL, -1);
    held_out_report(&m, dir, out);
    free(game_post);
    free(order);
    free(fold);
    free(ts.games);
    return 0;
}

/* ---- style FILE.pgn --player NAME -------------------------------------------------------- */

static void print_features(const char *label, const StyleFeatures *f, FILE *out)
{
    fprintf(out, "  %s: first_move=%s castling=%s pieces=%s (%d) pawns=%s (%d)\n", label,
            style_value_name(STYLE_F_FIRST_MOVE, f->value[STYLE_F_FIRST_MOVE]),
            style_value_name(STYLE_F_CASTLING, f->value[STYLE_F_CASTLING]),
            style_value_name(STYLE_F_PIECES, f->value[STYLE_F_PIECES]), f->pieces,
            style_value_name(STYLE_F_PAWNS, f->value[STYLE_F_PAWNS]), f->pawns);
}

static void print_posterior(const char *label, const double post[STYLE_NB], FILE *out)
{
    int best = 0;
    for (int c = 1; c < STYLE_NB; c++)
        if (post[c] > post[best])
            best = c;
    fprintf(out, "  %s: attacking %.3f positional %.3f mixed %.3f -> %s\n", label, post[0], post[1], post[2],
            StyleNames[best]);
}

int style_command(int argc, char **argv, FILE *out)
{
    const char *path = NULL, *name = NULL, *model_path = DEFAULT_MODEL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--player") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--model") && i + 1 < argc)
            model_path = argv[++i];
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "style: unexpected argument '%s'\n", argv[i]);
            path = NULL;
            break;
        }
    }
    if (!path || !name || !*name) {
        fprintf(stderr, "usage: feelfish style FILE.pgn --player NAME [--model FILE]\n");
        return 2;
    }
    StyleModel m;
    char err[512];
    if (!style_model_load(&m, model_path, err, sizeof err)) {
        fprintf(stderr, "style: %s (build one with `feelfish style-train --out FILE`)\n", err);
        return 2;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "style: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    PgnReader *r = pgn_reader_open(f);
    PgnGame g;
    PgnResult res;
    long number = 0, matched = 0, classified = 0, votes[STYLE_NB] = {0};
    long hist[STYLE_FEATURE_NB][STYLE_VALUES_MAX] = {{0}};
    double mean[STYLE_NB] = {0};
    int all_count = 0, all_cap = 0;
    StyleFeatures *all = NULL;
    while ((res = pgn_read_game(r, &g, err, sizeof err)) != PGN_END) {
        number++;
        if (res == PGN_BAD_GAME) {
            fprintf(out, "skipped game %ld at line %d: %s\n", number, g.line, err);
            pgn_game_free(&g);
            continue;
        }
        int c = player_color(&g, name);
        const char *white = pgn_tag(&g, "White"), *black = pgn_tag(&g, "Black"), *date = pgn_tag(&g, "Date");
        if (c == -2)
            fprintf(out, "game %ld (line %d): both players match '%s', skipped\n", number, g.line, name);
        if (c < 0) {
            pgn_game_free(&g);
            continue;
        }
        matched++;
        fprintf(out, "game %ld (line %d): %s - %s%s%s %s, %s plays %s\n", number, g.line, white ? white : "?",
                black ? black : "?", date ? " " : "", date ? date : "", g.result, name, c == WHITE ? "White" : "Black");
        /* Zeroed: style_classify_game returns true without filling it when its move list cannot
         * be allocated. */
        StyleResult sr = {0};
        if (!style_classify_game(&m, &g, (Color)c, &sr, err, sizeof err)) {
            fprintf(out, "  cannot replay the game: %s\n", err);
        } else if (!sr.ready) {
            fprintf(out, "  too short: the game ended before %s's move %d, no sample\n", name, STYLE_CLASSIFY_FROM);
        } else {
            for (int j = 0; j < sr.samples; j++) {
                const StyleFeatures *sf = &sr.sample[j];
                char label[64];
                if (sf->ply % 2)
                    snprintf(label, sizeof label, "after White's move %d", sf->fullmove + 1);
                else
                    snprintf(label, sizeof label, "after move %d", sf->fullmove);
                print_features(label, sf, out);
                for (int ft = 0; ft < STYLE_FEATURE_NB; ft++)
                    hist[ft][sf->value[ft]]++;
                if (all_count == all_cap) {
                    all_cap = all_cap ? 2 * all_cap : 64;
                    all = realloc(all, sizeof *all * (size_t)all_cap);
                }
                all[all_count++] = *sf;
            }
            print_posterior("posterior", sr.posterior, out);
            classified++;
            votes[sr.style]++;
            for (int s = 0; s < STYLE_NB; s++)
                mean[s] += sr.posterior[s];
        }
        pgn_game_free(&g);
    }
    pgn_reader_close(r);
    fclose(f);
    if (!matched) {
        fprintf(stderr, "style: no game in %s has a player matching '%s' (White/Black tags, case-insensitive)\n", path,
                name);
        free(all);
        return 1;
    }
    fprintf(out, "\nall games of '%s': %ld with the player, %ld classified, %d samples\n", name, matched, classified,
            all_count);
    if (classified) {
        for (int ft = 0; ft < STYLE_FEATURE_NB; ft++) {
            fprintf(out, "  %s:", StyleFeatureNames[ft]);
            for (int v = 0; v < StyleFeatureValues[ft]; v++)
                fprintf(out, " %s %ld%s", style_value_name((StyleFeature)ft, v), hist[ft][v],
                        v + 1 < StyleFeatureValues[ft] ? "," : "\n");
        }
        fprintf(out, "  games classified as: attacking %ld, positional %ld, mixed %ld\n", votes[0], votes[1], votes[2]);
        for (int s = 0; s < STYLE_NB; s++)
            mean[s] /= (double)classified;
        print_posterior("mean posterior of the games", mean, out);
        double post[STYLE_NB];
        style_model_classify(&m, all, all_count, post);
        print_posterior("posterior of all samples together", post, out);
    }
    free(all);
    return 0;
}
