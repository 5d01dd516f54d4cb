/* The Bayesian network over the evaluation's parameters. Decisions follow shared/spec/bayesian.md
 * (cited as §n). */
#include "bayes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const GamePhaseNames[BAYES_PHASE_NB] = {"opening", "middlegame", "endgame"};
const char *const GameResultNames[BAYES_RESULT_NB] = {"win", "draw", "loss"};
const char *const BayesTargetNames[BAYES_TARGET_NB] = {"aggressive", "conservative"};

/* §1, the paper's Table 5 (pawn 60/80/100/120/140). */
const double BayesFactors[BAYES_LEVELS] = {0.6, 0.8, 1.0, 1.2, 1.4};
const int BayesSteps[BAYES_LEVELS] = {-20, -10, 0, 10, 20};

#define BAYES_PARAM_MAX PARAM_SLOT_COUNT
BayesParam BayesParams[BAYES_PARAM_MAX];
int BayesParamCount;

static const char *const PieceTypeNames[PIECE_TYPE_NB] = {"none", "pawn", "knight", "bishop", "rook", "queen", "king"};

/* Arrays indexed by piece type get piece names; others their index. */
static bool indexed_by_piece(const char *name)
{
    return !strcmp(name, "piece_value") || !strcmp(name, "attack_weight") || !strcmp(name, "safe_check") ||
           !strcmp(name, "threat_by_minor") || !strcmp(name, "threat_by_rook");
}

void bayes_init(void)
{
    BayesParamCount = 0;
    const Score *d = params_slots(&DefaultParams);
    for (int t = 0; t < ParamTableCount; t++) {
        const ParamInfo *info = &ParamTable[t];
        bool psq = !strcmp(info->name, "psq");
        for (int i = 0; i < info->count; i++) {
            int slot = info->offset + i;
            BayesParam *bp = &BayesParams[BayesParamCount];
            if (psq) {
                PieceType pt = i / SQUARE_NB;
                Square s = i % SQUARE_NB;
                if (pt < PAWN || pt > KING || (pt == PAWN && (square_rank(s) == 0 || square_rank(s) == 7)))
                    continue;
                snprintf(bp->name, sizeof bp->name, "psq.%s.%c%d", PieceTypeNames[pt], 'a' + square_file(s),
                         1 + square_rank(s));
            } else {
                if (d[slot] == 0) /* never read, or a weight of nothing: not a variable */
                    continue;
                if (info->count == 1)
                    snprintf(bp->name, sizeof bp->name, "%s", info->name);
                else if (indexed_by_piece(info->name))
                    snprintf(bp->name, sizeof bp->name, "%s.%s", info->name, PieceTypeNames[i]);
                else if (!strcmp(info->name, "shelter") || !strcmp(info->name, "storm")) { /* [edge distance][rank] */
                    if (i % RANK_NB)
                        snprintf(bp->name, sizeof bp->name, "%s.edge%d.rank%d", info->name, i / RANK_NB,
                                 i % RANK_NB + 1);
                    else
                        snprintf(bp->name, sizeof bp->name, "%s.edge%d.none", info->name, i / RANK_NB);
                } else
                    snprintf(bp->name, sizeof bp->name, "%s.%d", info->name, i);
            }
            bp->slot = slot;
            bp->square_table = psq;
            BayesParamCount++;
        }
    }
}

int bayes_param_find(const char *name)
{
    for (int i = 0; i < BayesParamCount; i++)
        if (!strcmp(BayesParams[i].name, name))
            return i;
    return -1;
}

GamePhase bayes_phase(const Position *p)
{
    if (p->game_ply / 2 < 10)
        return PHASE_OPENING;
    int pieces = popcount(p->by_type[KNIGHT] | p->by_type[BISHOP] | p->by_type[ROOK] | p->by_type[QUEEN]);
    if (!p->by_type[QUEEN] || pieces < 10)
        return PHASE_ENDGAME;
    return PHASE_MIDDLEGAME;
}

static int level_component(int v, bool square_table, int level)
{
    if (v == 0 && square_table)
        return BayesSteps[level];
    return (int)lround(v * BayesFactors[level]);
}

void bayes_apply(const uint8_t *levels, EvalParams *out)
{
    *out = DefaultParams;
    Score *s = params_slots_mut(out);
    for (int i = 0; i < BayesParamCount; i++) {
        int l = levels[i];
        if (l == BAYES_DEFAULT_LEVEL)
            continue;
        const BayesParam *bp = &BayesParams[i];
        Score d = s[bp->slot];
        s[bp->slot] = score_make(level_component(score_mg(d), bp->square_table, l),
                                 level_component(score_eg(d), bp->square_table, l));
    }
}

static size_t counts_size(void) { return (size_t)BayesParamCount * BAYES_PHASE_NB * BAYES_RESULT_NB * BAYES_LEVELS; }

bool bayes_model_init(BayesModel *m)
{
    memset(m, 0, sizeof *m);
    m->counts = calloc(counts_size(), sizeof *m->counts);
    return m->counts != NULL;
}

void bayes_model_free(BayesModel *m)
{
    free(m->counts);
    m->counts = NULL;
}

static void touch(BayesModel *m)
{
    m->version++;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    m->updated_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void bayes_model_clear(BayesModel *m)
{
    memset(m->counts, 0, counts_size() * sizeof *m->counts);
    memset(m->records, 0, sizeof m->records);
    m->games = 0;
    touch(m);
}

size_t bayes_model_count_index(int param, GamePhase ph, GameResult r, int level)
{
    return (((size_t)param * BAYES_PHASE_NB + ph) * BAYES_RESULT_NB + r) * BAYES_LEVELS + level;
}

void bayes_model_add(BayesModel *m, GamePhase ph, GameResult r, const uint8_t *levels)
{
    for (int i = 0; i < BayesParamCount; i++)
        m->counts[bayes_model_count_index(i, ph, r, levels[i])]++;
    m->records[ph][r]++;
    touch(m);
}

void bayes_model_merge(BayesModel *into, const BayesModel *from)
{
    size_t n = counts_size();
    for (size_t i = 0; i < n; i++)
        into->counts[i] += from->counts[i];
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        for (int r = 0; r < BAYES_RESULT_NB; r++)
            into->records[ph][r] += from->records[ph][r];
    into->games += from->games;
    touch(into);
}

/* Count of `level` and the total for the target's results: win, or win + draw pooled (§4). */
static void target_counts(const BayesModel *m, int param, GamePhase ph, BayesTarget t, int level, uint64_t *n,
                          uint64_t *total)
{
    *n = m->counts[bayes_model_count_index(param, ph, RESULT_WIN, level)];
    *total = m->records[ph][RESULT_WIN];
    if (t == TARGET_CONSERVATIVE) {
        *n += m->counts[bayes_model_count_index(param, ph, RESULT_DRAW, level)];
        *total += m->records[ph][RESULT_DRAW];
    }
}

double bayes_probability(const BayesModel *m, int param, GamePhase ph, BayesTarget t, int level)
{
    uint64_t n, total;
    target_counts(m, param, ph, t, level, &n, &total);
    return (double)(n + 1) / (double)(total + BAYES_LEVELS); /* Laplace: add one to every level */
}

int bayes_select(const BayesModel *m, GamePhase ph, BayesTarget t, uint8_t *levels)
{
    /* Levels by distance from the default, so a tie keeps the smaller change. */
    static const int Order[BAYES_LEVELS] = {2, 1, 3, 0, 4};
    int changed = 0;
    for (int i = 0; i < BayesParamCount; i++) {
        uint64_t best = 0, n, total;
        int best_level = BAYES_DEFAULT_LEVEL;
        for (int k = 0; k < BAYES_LEVELS; k++) {
            target_counts(m, i, ph, t, Order[k], &n, &total);
            if (k == 0 || n > best) { /* same denominator for every level: compare counts */
                best = n;
                best_level = Order[k];
            }
        }
        levels[i] = (uint8_t)best_level;
        changed += best_level != BAYES_DEFAULT_LEVEL;
    }
    return changed;
}

int bayes_evaluator(const BayesModel *m, GamePhase ph, BayesTarget t, EvalParams *storage, Evaluator *out)
{
    uint8_t levels[BAYES_PARAM_MAX];
    evaluator_classical(out);
    int changed = bayes_select(m, ph, t, levels);
    if (!changed)
        return 0; /* exactly the classical evaluator: same pointer, fingerprint 0 */
    bayes_apply(levels, storage);
    out->params = storage;
    evaluator_update_fingerprint(out);
    return changed;
}

static BayesModelReader Reader; /* set once at start, before any thread */
void bayes_set_reader(BayesModelReader reader) { Reader = reader; }

bool bayes_read_model(const char *path, BayesModel *m, char *err, size_t size)
{
    bayes_model_clear(m);
    if (!Reader) {
        snprintf(err, size, "no Bayesian model reader in this build");
        return false;
    }
    return Reader(path, m, err, size);
}
