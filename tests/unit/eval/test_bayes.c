/* The Bayesian-adaptive evaluator (shared/spec/bayesian.md): parameter levels, counting with
 * Laplace smoothing, the two selections, the phase rule. */
#include <math.h>
#include <stdlib.h>

#include "../../../engine/adapt/adaptive.h"
#include "../../../engine/engine.h"
#include "../test.h"

static int find(const char *name)
{
    int i = bayes_param_find(name);
    if (i < 0)
        printf("    no parameter %s\n", name);
    return i;
}

static void test_parameter_vector(void)
{
    /* Tens of variables: the five piece values and ten term groups, distinct names. */
    CHECK_INT(BayesParamCount, 15);
    for (int i = 0; i < BayesParamCount; i++)
        for (int j = i + 1; j < BayesParamCount; j++)
            CHECK(strcmp(BayesParams[i].name, BayesParams[j].name));
    CHECK(find("piece_value.pawn") >= 0 && find("piece_value.queen") >= 0 && find("mobility") >= 0 &&
          find("king_attack") >= 0 && find("piece_square") >= 0);
    CHECK(bayes_param_find("piece_value.king") < 0); /* the king's material is never read */
    /* Every run of the vector is scaled by exactly one group, or is one the design leaves alone:
     * the piece values (a variable each) and the attack kinds' weights (king_attack scales the
     * whole term through attack_scale). */
    static const char *const unscaled[] = {"piece_value",  "attack_weight",  "safe_check",
                                           "unsafe_check", "king_ring_weak", "flank_attack"};
    for (int t = 0; t < ParamTableCount; t++) {
        int in = 0, left_alone = 0;
        for (int i = 0; i < BayesParamCount; i++)
            for (int r = 0; r < BayesParams[i].run_count; r++)
                in += BayesParams[i].runs[r] == &ParamTable[t];
        for (size_t k = 0; k < sizeof unscaled / sizeof unscaled[0]; k++)
            left_alone += !strcmp(unscaled[k], ParamTable[t].name);
        CHECK_MSG(in == !left_alone, "%s is in %d groups", ParamTable[t].name, in);
    }
}

static void test_levels(void)
{
    uint8_t *levels = malloc((size_t)BayesParamCount);
    memset(levels, BAYES_DEFAULT_LEVEL, (size_t)BayesParamCount);
    EvalParams *p = malloc(sizeof *p);
    bayes_apply(levels, p);
    CHECK(!memcmp(p, &DefaultParams, sizeof *p)); /* all default levels: the default vector */
    /* §1, the paper's Table 5: the pawn at 60/80/100/120/140 % of its default. */
    int pawn = find("piece_value.pawn");
    Score d = DefaultParams.piece_value[PAWN];
    for (int l = 0; l < BAYES_LEVELS; l++) {
        levels[pawn] = (uint8_t)l;
        bayes_apply(levels, p);
        CHECK_INT(score_mg(p->piece_value[PAWN]), lround(score_mg(d) * BayesFactors[l]));
        CHECK_INT(score_eg(p->piece_value[PAWN]), lround(score_eg(d) * BayesFactors[l]));
        CHECK(p->piece_value[KNIGHT] == DefaultParams.piece_value[KNIGHT]);
    }
    /* A group scales every slot of its runs, middlegame and endgame, and nothing else. */
    memset(levels, BAYES_DEFAULT_LEVEL, (size_t)BayesParamCount);
    levels[find("mobility")] = 4;
    bayes_apply(levels, p);
    for (int m = 0; m < 28; m++) {
        CHECK_INT(score_mg(p->mobility_queen[m]), lround(score_mg(DefaultParams.mobility_queen[m]) * 1.4));
        CHECK_INT(score_eg(p->mobility_queen[m]), lround(score_eg(DefaultParams.mobility_queen[m]) * 1.4));
    }
    CHECK_INT(score_eg(p->mobility_knight[8]), lround(score_eg(DefaultParams.mobility_knight[8]) * 1.4));
    CHECK(!memcmp(p->psq, DefaultParams.psq, sizeof p->psq) && p->tempo == DefaultParams.tempo);
    /* King attack: danger^2 / attack_scale, so the scale is divided (the term x 0.6 at level 0). */
    memset(levels, BAYES_DEFAULT_LEVEL, (size_t)BayesParamCount);
    levels[find("king_attack")] = 0;
    bayes_apply(levels, p);
    CHECK_INT(score_mg(p->attack_scale), lround(score_mg(DefaultParams.attack_scale) / 0.6));
    CHECK(p->attack_weight[KNIGHT] == DefaultParams.attack_weight[KNIGHT]);
    free(p);
    free(levels);
}

/* With no data every argmax is the default level: the model plays exactly like the classical
 * evaluator (same vector, same fingerprint, same evaluation). */
static void test_empty_model_is_classical(void)
{
    BayesModel m;
    CHECK(bayes_model_init(&m));
    uint8_t *levels = malloc((size_t)BayesParamCount);
    static EvalParams storage;
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        for (int t = 0; t < BAYES_TARGET_NB; t++) {
            CHECK_INT(bayes_select(&m, ph, t, levels), 0);
            Evaluator e, c;
            bayes_evaluator(&m, ph, t, &storage, &e);
            evaluator_classical(&c);
            CHECK(e.params == &DefaultParams && e.fingerprint == 0);
            for (int l = 0; l < BAYES_LEVELS; l++) /* Laplace on nothing: 1/5 each */
                CHECK(fabs(bayes_probability(&m, 0, ph, t, l) - 0.2) < 1e-12);
        }
    static char fens[64][128];
    int n = test_read_fens("perft/random.epd", fens, 64);
    CHECK(n > 10);
    Position *p = malloc(sizeof *p);
    BayesChoice choice;
    for (int i = 0; i < n; i++) {
        CHECK(fen_read(p, fens[i], NULL, 0) == FEN_OK);
        Evaluator e, c;
        adaptive_choose(&m, NULL, p, NULL, TARGET_AGGRESSIVE, false, 1, &choice, &storage, &e);
        evaluator_classical(&c);
        CHECK_INT(evaluate(p, &e), evaluate(p, &c));
        CHECK_INT(choice.changed, 0);
    }
    free(p);
    free(levels);
    bayes_model_free(&m);
}

/* A hand-made database: parameter 0 (piece_value.pawn) in the middlegame.
 *   wins:   level 4 x3, level 2 x1          (4 records)
 *   draws:  level 1 x4                      (4 records)
 *   losses: level 0 x2                      (2 records)
 * Other parameters stay at the default level. By hand, with Laplace (n + 1) / (N + 5):
 *   aggressive (win):   P(4) = 4/9, P(2) = 2/9, P(0) = P(1) = P(3) = 1/9  -> argmax level 4;
 *   conservative (win + draw pooled, N = 8): P(1) = 5/13, P(4) = 4/13, P(2) = 2/13 -> level 1. */
static void test_counts_and_selection(void)
{
    BayesModel m;
    CHECK(bayes_model_init(&m));
    m.evidence_z = 0; /* the spec's rule */
    uint8_t *levels = malloc((size_t)BayesParamCount);
    int pawn = find("piece_value.pawn");
    struct {
        GameResult r;
        int level, times;
    } rows[] = {{RESULT_WIN, 4, 3}, {RESULT_WIN, 2, 1}, {RESULT_DRAW, 1, 4}, {RESULT_LOSS, 0, 2}};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        for (int t = 0; t < rows[k].times; t++) {
            memset(levels, BAYES_DEFAULT_LEVEL, (size_t)BayesParamCount);
            levels[pawn] = (uint8_t)rows[k].level;
            bayes_model_add(&m, PHASE_MIDDLEGAME, rows[k].r, levels);
        }
    CHECK_INT(m.records[PHASE_MIDDLEGAME][RESULT_WIN], 4);
    CHECK(fabs(bayes_probability(&m, pawn, PHASE_MIDDLEGAME, TARGET_AGGRESSIVE, 4) - 4.0 / 9) < 1e-12);
    CHECK(fabs(bayes_probability(&m, pawn, PHASE_MIDDLEGAME, TARGET_AGGRESSIVE, 2) - 2.0 / 9) < 1e-12);
    CHECK(fabs(bayes_probability(&m, pawn, PHASE_MIDDLEGAME, TARGET_AGGRESSIVE, 0) - 1.0 / 9) < 1e-12);
    CHECK(fabs(bayes_probability(&m, pawn, PHASE_MIDDLEGAME, TARGET_CONSERVATIVE, 1) - 5.0 / 13) < 1e-12);
    CHECK(fabs(bayes_probability(&m, pawn, PHASE_MIDDLEGAME, TARGET_CONSERVATIVE, 4) - 4.0 / 13) < 1e-12);
    double sum = 0;
    for (int l = 0; l < BAYES_LEVELS; l++)
        sum += bayes_probability(&m, pawn, PHASE_MIDDLEGAME, TARGET_CONSERVATIVE, l);
    CHECK(fabs(sum - 1) < 1e-12);

    CHECK_INT(bayes_select(&m, PHASE_MIDDLEGAME, TARGET_AGGRESSIVE, levels), 1);
    CHECK_INT(levels[pawn], 4);
    CHECK_INT(bayes_select(&m, PHASE_MIDDLEGAME, TARGET_CONSERVATIVE, levels), 1);
    CHECK_INT(levels[pawn], 1);
    /* The other phases saw nothing: default. */
    CHECK_INT(bayes_select(&m, PHASE_ENDGAME, TARGET_AGGRESSIVE, levels), 0);

    /* The chosen vector is the pawn at 140 % (aggressive), and the TT fingerprint changes. */
    static EvalParams storage;
    Evaluator e;
    bayes_evaluator(&m, PHASE_MIDDLEGAME, TARGET_AGGRESSIVE, &storage, &e);
    CHECK(e.params == &storage && e.fingerprint != 0);
    CHECK_INT(score_mg(storage.piece_value[PAWN]), lround(score_mg(DefaultParams.piece_value[PAWN]) * 1.4));

    /* Ties keep the level nearest the default: one win at level 0 and one at level 3 -> 3. */
    BayesModel t;
    CHECK(bayes_model_init(&t));
    t.evidence_z = 0;
    memset(levels, BAYES_DEFAULT_LEVEL, (size_t)BayesParamCount);
    levels[pawn] = 0;
    bayes_model_add(&t, PHASE_OPENING, RESULT_WIN, levels);
    levels[pawn] = 3;
    bayes_model_add(&t, PHASE_OPENING, RESULT_WIN, levels);
    bayes_select(&t, PHASE_OPENING, TARGET_AGGRESSIVE, levels);
    CHECK_INT(levels[pawn], 3);

    /* Counts are additive: merging t into m adds its records. */
    bayes_model_merge(&m, &t);
    CHECK_INT(m.records[PHASE_OPENING][RESULT_WIN], 2);
    CHECK_INT(m.counts[bayes_model_count_index(pawn, PHASE_OPENING, RESULT_WIN, 3)], 1);
    bayes_model_free(&t);
    bayes_model_free(&m);
    free(levels);
}

/* The default rule: a level moves only on evidence. Records with the pawn's level drawn at random
 * (as the perturbed side's are), 200 per level: level 4 wins 60 % where the default wins 30 %
 * (6.8 standard errors): chosen. Then level 3 at 36 % against the default's 30 % (1.3): noise, the
 * default stays; the argmax rule would have taken it. */
static void add_level(BayesModel *m, int param, int level, int wins, int draws, int losses)
{
    uint8_t *levels = malloc((size_t)BayesParamCount);
    memset(levels, BAYES_DEFAULT_LEVEL, (size_t)BayesParamCount);
    levels[param] = (uint8_t)level;
    for (int i = 0; i < wins + draws + losses; i++)
        bayes_model_add(m, PHASE_MIDDLEGAME,
                        i < wins           ? RESULT_WIN
                        : i < wins + draws ? RESULT_DRAW
                                           : RESULT_LOSS,
                        levels);
    free(levels);
}

static void test_evidence_rule(void)
{
    BayesModel m;
    CHECK(bayes_model_init(&m));
    CHECK(m.evidence_z == BAYES_EVIDENCE_Z);
    uint8_t *levels = malloc((size_t)BayesParamCount);
    int pawn = find("piece_value.pawn");
    add_level(&m, pawn, 2, 60, 20, 120);
    add_level(&m, pawn, 4, 120, 20, 60);
    CHECK_INT(bayes_select(&m, PHASE_MIDDLEGAME, TARGET_AGGRESSIVE, levels), 1);
    CHECK_INT(levels[pawn], 4);
    /* Conservative: non-losses 70 % against 40 %: level 4 again. */
    bayes_select(&m, PHASE_MIDDLEGAME, TARGET_CONSERVATIVE, levels);
    CHECK_INT(levels[pawn], 4);
    /* The other parameters' records are all at the default level: nothing to compare, nothing moves. */
    BayesModel n;
    CHECK(bayes_model_init(&n));
    add_level(&n, pawn, 2, 60, 20, 120);
    add_level(&n, pawn, 3, 72, 20, 108);
    CHECK_INT(bayes_select(&n, PHASE_MIDDLEGAME, TARGET_AGGRESSIVE, levels), 0);
    n.evidence_z = 0;
    CHECK_INT(bayes_select(&n, PHASE_MIDDLEGAME, TARGET_AGGRESSIVE, levels), 1);
    CHECK_INT(levels[pawn], 3);
    bayes_model_free(&n);
    bayes_model_free(&m);
    free(levels);
}

/* §2: opening while fewer than 10 full moves have been played; endgame with no queens or fewer
 * than 10 pieces other than kings and pawns; otherwise middlegame. */
static void test_phase_rule(void)
{
    static const struct {
        const char *fen;
        GamePhase phase;
    } cases[] = {
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", PHASE_OPENING},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 10", PHASE_OPENING},    /* 9 played */
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 11", PHASE_MIDDLEGAME}, /* 10 played */
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 10", PHASE_OPENING},    /* Black's 10th not played */
        {"rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 20", PHASE_ENDGAME},    /* no queens */
        {"4k3/pppp1ppp/8/8/8/8/PPPPPPPP/R2QKB1R w KQ - 0 30", PHASE_ENDGAME},            /* 4 pieces */
        {"r2qk2r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/3QK2R w Kkq - 0 30", PHASE_ENDGAME},  /* 9 pieces */
        {"r2qk2r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R2QK2R w KQkq - 0 30", PHASE_MIDDLEGAME},   /* 10 */
        {"r2qkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R2QKB1R w KQkq - 0 30", PHASE_MIDDLEGAME}, /* 12 */
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 5", PHASE_OPENING}, /* the rule's order: move number first */
    };
    Position *p = malloc(sizeof *p);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char msg[128];
        CHECK_MSG(fen_read(p, cases[i].fen, msg, sizeof msg) == FEN_OK, "%s: %s", cases[i].fen, msg);
        CHECK_MSG(bayes_phase(p) == cases[i].phase, "%s: %s, expected %s", cases[i].fen, GamePhaseNames[bayes_phase(p)],
                  GamePhaseNames[cases[i].phase]);
    }
    free(p);
}

void suite_bayes(void)
{
    RUN(test_parameter_vector);
    RUN(test_levels);
    RUN(test_empty_model_is_classical);
    RUN(test_counts_and_selection);
    RUN(test_evidence_rule);
    RUN(test_phase_rule);
}
