/* The affective evaluator, item by item from shared/spec/affective.md section 6. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../test.h"

static Position pos, mirror;

static void test_squash(void)
{
    CHECK(affective_squash(0) == 0);
    double prev = -2;
    for (double x = -10; x <= 10; x += 0.01) {
        double y = affective_squash(x);
        /* Strictly inside (-1, 1) wherever a double can tell (|x| < 7); never outside. */
        CHECK_MSG(y >= -1 && y <= 1 && (fabs(x) > 7 || (y > -1 && y < 1)) && y >= prev, "S(%g) = %g", x, y);
        prev = y;
    }
    CHECK(affective_squash(1) > 0.98 && affective_squash(-1) < -0.98);
}

static void test_board_extremes(void)
{
    double down[4] = {-1, -1, -1, -1}, up[4] = {1, 1, 1, 1}, zero[4] = {0, 0, 0, 0};
    Emotion e;
    affective_feel(down, NULL, NULL, &e);
    CHECK_MSG(e.c[CONCEPT_RELIEF] < -0.99 && e.iterations < 100, "relief %g after %d", e.c[CONCEPT_RELIEF],
              e.iterations);
    CHECK_STR(affective_label(CONCEPT_RELIEF, e.c[CONCEPT_RELIEF]), "fear");
    affective_feel(up, NULL, NULL, &e);
    CHECK_MSG(e.c[CONCEPT_RELIEF] > 0.99, "relief %g", e.c[CONCEPT_RELIEF]);
    CHECK_STR(affective_label(CONCEPT_RELIEF, e.c[CONCEPT_RELIEF]), "relief");
    affective_feel(zero, NULL, NULL, &e);
    CHECK_MSG(fabs(e.c[CONCEPT_RELIEF]) < 1e-9 && fabs(e.c[CONCEPT_DESIRABILITY]) < 1e-9, "relief %g",
              e.c[CONCEPT_RELIEF]);
    /* The board concepts are clamped: still exactly what was measured. */
    for (int i = 0; i < 4; i++)
        CHECK(e.c[CONCEPT_MATERIAL + i] == 0);
}

static void test_labels(void)
{
    CHECK_STR(affective_label(CONCEPT_RELIEF, -0.51), "fear");
    CHECK_STR(affective_label(CONCEPT_RELIEF, -0.5), "neutral");
    CHECK_STR(affective_label(CONCEPT_RELIEF, 0.5), "neutral");
    CHECK_STR(affective_label(CONCEPT_RELIEF, 0.51), "relief");
    CHECK_STR(affective_label(CONCEPT_DESIRABILITY, -0.7), "undesirable");
    CHECK_STR(affective_label(CONCEPT_DESIRABILITY, 0.7), "desirable");
    CHECK_STR(affective_label(CONCEPT_AROUSAL, -0.7), "calm");
    CHECK_STR(affective_label(CONCEPT_AROUSAL, 0.7), "excited");
    CHECK_STR(affective_label(CONCEPT_AROUSAL, 0.1), "neutral");
}

static Emotion emotion_of(const char *fen)
{
    Emotion e;
    memset(&e, 0, sizeof e);
    if (fen_read(&pos, fen, NULL, 0) == FEN_OK)
        affective_emotion(&pos, NULL, NULL, &e);
    return e;
}

static void test_goals_on_positions(void)
{
    /* A bare, exposed king and a queen down: fear, reach safety. */
    Emotion e = emotion_of("6k1/5ppp/8/8/8/3q4/8/4K3 w - - 0 1");
    CHECK_STR(Goals[e.goal].name, "reach_safety");
    CHECK_STR(affective_label(CONCEPT_RELIEF, e.c[CONCEPT_RELIEF]), "fear");
    /* A queen up with a safe king: relief, enclose the king. */
    e = emotion_of("6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1");
    CHECK_STR(Goals[e.goal].name, "enclose_king");
    CHECK_STR(affective_label(CONCEPT_RELIEF, e.c[CONCEPT_RELIEF]), "relief");
    /* The start position: gain advantage. */
    e = emotion_of(FEN_STARTPOS);
    CHECK_STR(Goals[e.goal].name, "gain_advantage");
    CHECK_STR(affective_label(CONCEPT_RELIEF, e.c[CONCEPT_RELIEF]), "neutral");
    CHECK_MSG(e.raw.shield == 24 && e.raw.tropism > 55 && e.raw.tropism < 65, "shield %d tropism %g", e.raw.shield,
              e.raw.tropism);
}

static void test_factor_formula_against_thesis(void)
{
    /* Thesis Table 4.4 ranges give its Table 4.5 factors. */
    const double ranges[4] = {8150, 137, 179.5, 179.5};
    CHECK(fabs(affective_factor(Goals[0].eta, ranges, 2) - 27.90027) < 1e-4); /* reach_safety, king safety */
    CHECK(fabs(affective_factor(Goals[2].eta, ranges, 0) - -0.46957) < 1e-4); /* gain_advantage, material */
    CHECK(fabs(affective_factor(Goals[1].eta, ranges, 3) - 18.26685) < 1e-4); /* enclose_king, opp king */
}

/* At eps = 1 the weighted ranges are in the goal's proportions, for every goal. */
static void test_shares_at_full_intensity(void)
{
    for (int g = 0; g < GoalCount; g++) {
        double total = 0, w[4];
        for (int i = 0; i < 4; i++)
            total += w[i] = (1 + affective_factor(Goals[g].eta, AffectiveRanges, i)) * AffectiveRanges[i];
        for (int i = 0; i < 4; i++)
            CHECK_MSG(fabs(w[i] / total - Goals[g].eta[i]) < 1e-6, "goal %s term %d: share %g", Goals[g].name, i,
                      w[i] / total);
    }
}

static int for_each_fen(const char *relative, void (*fn)(const char *fen, void *ctx), void *ctx)
{
    FILE *f = fopen(test_data_path(relative), "r");
    if (!f)
        return 0;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char a[100], b[8], c[8], d[8], fen[160];
        if (sscanf(line, "%99s %7s %7s %7s", a, b, c, d) != 4)
            continue;
        snprintf(fen, sizeof fen, "%s %s %s %s", a, b, c, d);
        fn(fen, ctx);
        n++;
    }
    fclose(f);
    return n;
}

static int mismatches;

static void compare_eps0(const char *fen, void *ctx)
{
    (void)ctx;
    if (fen_read(&pos, fen, NULL, 0) != FEN_OK)
        return;
    Emotion e;
    affective_emotion(&pos, NULL, NULL, &e);
    e.intensity = 0;
    Evaluator aff, cls;
    affective_evaluator(&e, &aff);
    evaluator_classical(&cls);
    mismatches += evaluate(&pos, &aff) != evaluate(&pos, &cls) || aff.fingerprint != 0;
}

static void test_eps0_is_classical(void)
{
    mismatches = 0;
    int n = for_each_fen("perft/random.epd", compare_eps0, NULL) + for_each_fen("epd/wac.epd", compare_eps0, NULL);
    CHECK(n > 400);
    CHECK_INT(mismatches, 0);
}

static void compare_mirror(const char *fen, void *ctx)
{
    const Evaluator *aff = ctx;
    char m[160];
    test_mirror_fen(fen, m);
    if (fen_read(&pos, fen, NULL, 0) != FEN_OK || fen_read(&mirror, m, NULL, 0) != FEN_OK)
        return;
    EvalTerms a, b;
    evaluate_terms(&pos, aff, &a);
    evaluate_terms(&mirror, aff, &b);
    mismatches += a.total != -b.total;
}

static void test_mirror_symmetry(void)
{
    /* One emotional state (a strong reach_safety), many positions and their mirrors. */
    double board[4] = {-1, -0.5, -1, -0.2};
    Emotion e;
    affective_feel(board, NULL, NULL, &e);
    CHECK(e.intensity > 0.9 && !strcmp(Goals[e.goal].name, "reach_safety"));
    Evaluator aff;
    affective_evaluator(&e, &aff);
    CHECK(aff.fingerprint != 0);
    mismatches = 0;
    int n = for_each_fen("epd/wac.epd", compare_mirror, &aff) + for_each_fen("openings.epd", compare_mirror, &aff);
    CHECK(n > 500);
    CHECK_INT(mismatches, 0);
}

static void test_mood(void)
{
    const char *fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 3";
    Emotion fresh = emotion_of(fen), carried, fear;
    double frightening[4] = {-1, -1, -1, -1};
    affective_feel(frightening, NULL, NULL, &fear);
    for (int i = 0; i < 3; i++) {
        Emotion next;
        affective_feel(frightening, &fear, NULL, &next);
        fear = next;
    }
    CHECK_INT(fen_read(&pos, fen, NULL, 0), FEN_OK);
    affective_emotion(&pos, &fear, NULL, &carried);
    CHECK_MSG(carried.c[CONCEPT_RELIEF] < fresh.c[CONCEPT_RELIEF] - 0.05, "after fear %g, fresh %g",
              carried.c[CONCEPT_RELIEF], fresh.c[CONCEPT_RELIEF]);
    /* Temperaments: an anxious one is more fearful than a bold one on the same position. */
    Emotion anxious, bold;
    affective_emotion(&pos, NULL, temperament_find("anxious"), &anxious);
    affective_emotion(&pos, NULL, temperament_find("bold"), &bold);
    CHECK(anxious.c[CONCEPT_RELIEF] < bold.c[CONCEPT_RELIEF]);
    CHECK(temperament_find("reckless") == NULL);
}

/* The gain: "thesis" keeps Eq. 4.6's weights (1 + r * eps) exactly; the everyday temperaments raise
 * them to AFFECTIVE_GAIN, so every weight lies between 1 and the thesis's, on the same side of 1;
 * gain 0 is the classical evaluation. */
static void test_gain_bounds_the_weights(void)
{
    const Temperament *thesis = temperament_find("thesis"), *neutral = temperament_find("neutral");
    CHECK(thesis && thesis->gain == 1.0 && neutral && neutral->gain == AFFECTIVE_GAIN && AFFECTIVE_GAIN < 1);
    if (!thesis || !neutral)
        return;
    double board[4] = {1, 0.6, 1, 1}; /* far ahead and the enemy king open: relief, enclose the king */
    Emotion full, bounded;
    affective_feel(board, NULL, thesis, &full);
    affective_feel(board, NULL, neutral, &bounded);
    CHECK(full.intensity > 0.5 && full.goal == bounded.goal);
    for (int i = 0; i < 4; i++) {
        double t = affective_weight(&full, i), b = affective_weight(&bounded, i);
        CHECK_MSG(fabs(t - (1 + full.factor[i] * full.intensity)) < 1e-12, "term %d: thesis weight %g", i, t);
        CHECK_MSG(fabs(b - pow(t, AFFECTIVE_GAIN)) < 1e-12, "term %d: bounded %g, thesis %g", i, b, t);
        CHECK_MSG((t >= 1 && b >= 1 && b <= t) || (t <= 1 && b <= 1 && b >= t), "term %d: %g vs %g", i, b, t);
    }
    CHECK(affective_weight(&full, 3) > 4); /* the thesis's wild sacrificer: the opponent king's term x16 */
    bounded.gain = 0;
    Evaluator aff, cls;
    affective_evaluator(&bounded, &aff);
    evaluator_classical(&cls);
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        CHECK_INT(aff.weight[g], cls.weight[g]);
}

void suite_affective(void)
{
    RUN(test_squash);
    RUN(test_board_extremes);
    RUN(test_labels);
    RUN(test_goals_on_positions);
    RUN(test_factor_formula_against_thesis);
    RUN(test_shares_at_full_intensity);
    RUN(test_eps0_is_classical);
    RUN(test_mirror_symmetry);
    RUN(test_mood);
    RUN(test_gain_bounds_the_weights);
}
