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

BayesParam BayesParams[BAYES_PARAM_MAX];
int BayesParamCount;

static const char *const PieceTypeNames[PIECE_TYPE_NB] = {"none", "pawn", "knight", "bishop", "rook", "queen", "king"};

/* The term groups: each scales every run listed (by ParamTable name). "/name" is a divisor. */
static const struct {
    const char *name;
    const char *runs[BAYES_GROUP_RUNS];
} Groups[] = {
    {"piece_square", {"psq"}},
    {"mobility", {"mobility_knight", "mobility_bishop", "mobility_rook", "mobility_queen"}},
    {"pawn_structure", {"pawn_isolated", "pawn_doubled", "pawn_backward", "pawn_weak_unopposed", "pawn_connected"}},
    {"passed_pawns",
     {"passed", "passed_free_path", "passed_own_king_distance", "passed_enemy_king_distance", "passed_stop_safe",
      "passed_stop_defended"}},
    {"king_shelter", {"shelter", "storm", "storm_blocked", "king_open_file", "king_pawnless_flank"}},
    /* danger^2 / attack_scale: dividing the scale by the factor scales the whole attack term by it,
     * and keeps the attack kinds' weights to each other. */
    {"king_attack", {"/attack_scale"}},
    {"minor_pieces",
     {"bishop_pair", "bishop_pawns", "bishop_long_diagonal", "minor_behind_pawn", "king_protector", "knight_outpost",
      "bishop_outpost"}},
    {"rooks", {"rook_open_file", "rook_semi_open_file", "rook_seventh", "rook_trapped"}},
    {"threats",
     {"threat_by_pawn", "threat_by_pawn_push", "threat_by_minor", "threat_by_rook", "threat_by_king", "hanging"}},
    {"space_initiative", {"space", "initiative", "tempo"}},
};

void bayes_init(void)
{
    BayesParamCount = 0;
    const ParamInfo *piece_value = param_table_find("piece_value");
    for (PieceType pt = PAWN; pt <= QUEEN; pt++) {
        BayesParam *bp = &BayesParams[BayesParamCount++];
        memset(bp, 0, sizeof *bp);
        snprintf(bp->name, sizeof bp->name, "piece_value.%s", PieceTypeNames[pt]);
        bp->slot = piece_value->offset + pt;
    }
    for (size_t g = 0; g < sizeof Groups / sizeof Groups[0]; g++) {
        BayesParam *bp = &BayesParams[BayesParamCount++];
        memset(bp, 0, sizeof *bp);
        snprintf(bp->name, sizeof bp->name, "%s", Groups[g].name);
        bp->slot = -1;
        for (int r = 0; r < BAYES_GROUP_RUNS && Groups[g].runs[r]; r++) {
            const char *name = Groups[g].runs[r];
            const ParamInfo *run = param_table_find(name + (name[0] == '/'));
            if (!run) /* a run the vector lost is a test failure (test_bayes), not a crash here */
                continue;
            bp->divisors |= (unsigned)(name[0] == '/') << bp->run_count;
            bp->runs[bp->run_count++] = run;
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

static Score scaled(Score v, double f)
{
    return score_make((int)lround(score_mg(v) * f), (int)lround(score_eg(v) * f));
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
        if (bp->slot >= 0) {
            s[bp->slot] = scaled(s[bp->slot], BayesFactors[l]);
            continue;
        }
        for (int r = 0; r < bp->run_count; r++) {
            double f = bp->divisors >> r & 1 ? 1 / BayesFactors[l] : BayesFactors[l];
            for (int k = 0; k < bp->runs[r]->count; k++)
                s[bp->runs[r]->offset + k] = scaled(s[bp->runs[r]->offset + k], f);
        }
    }
}

static size_t counts_size(void) { return (size_t)BayesParamCount * BAYES_PHASE_NB * BAYES_RESULT_NB * BAYES_LEVELS; }

const char *bayes_rule_name(double evidence_z) { return evidence_z > 0 ? "evidence" : "argmax"; }

bool bayes_rule_parse(const char *name, double *evidence_z)
{
    if (strcmp(name, "evidence") && strcmp(name, "argmax"))
        return false;
    *evidence_z = strcmp(name, "argmax") ? BAYES_EVIDENCE_Z : 0;
    return true;
}

bool bayes_model_init(BayesModel *m)
{
    memset(m, 0, sizeof *m);
    m->counts = calloc(counts_size(), sizeof *m->counts);
    m->evidence_z = BAYES_EVIDENCE_Z;
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

/* The target's share of a level's records: (n + 1) / (N + 2), and N. */
static double target_rate(const BayesModel *m, int param, GamePhase ph, BayesTarget t, int level, uint64_t *all)
{
    uint64_t n, total;
    target_counts(m, param, ph, t, level, &n, &total);
    *all = 0;
    for (int r = 0; r < BAYES_RESULT_NB; r++)
        *all += m->counts[bayes_model_count_index(param, ph, r, level)];
    return (double)(n + 1) / (double)(*all + 2);
}

int bayes_select(const BayesModel *m, GamePhase ph, BayesTarget t, uint8_t *levels)
{
    /* Levels by distance from the default, so a tie keeps the smaller change. */
    static const int Order[BAYES_LEVELS] = {2, 1, 3, 0, 4};
    int changed = 0;
    for (int i = 0; i < BayesParamCount; i++) {
        int best_level = BAYES_DEFAULT_LEVEL;
        if (m->evidence_z <= 0) { /* §4: the argmax of P(level | target); same denominator for every level */
            uint64_t best = 0, n, total;
            for (int k = 0; k < BAYES_LEVELS; k++) {
                target_counts(m, i, ph, t, Order[k], &n, &total);
                if (k == 0 || n > best) {
                    best = n;
                    best_level = Order[k];
                }
            }
        } else {
            uint64_t nd, nl;
            double rd = target_rate(m, i, ph, t, BAYES_DEFAULT_LEVEL, &nd), best = rd;
            for (int k = 1; k < BAYES_LEVELS; k++) {
                double rl = target_rate(m, i, ph, t, Order[k], &nl);
                double se = sqrt(rl * (1 - rl) / (double)(nl + 2) + rd * (1 - rd) / (double)(nd + 2));
                if (rl > best && rl - rd > m->evidence_z * se) {
                    best = rl;
                    best_level = Order[k];
                }
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
