/* The hand-written evaluation: colour symmetry on the shared suites (every group, and the groups add
 * up to the total) and sane values on plain positions. */
#include "../../../engine/engine.h"
#include "../test.h"

static Position pos, mirror;

static void test_eval_mirror_symmetry(void)
{
    static char fens[800][128];
    int n = test_read_fens("perft/random.epd", fens, 120);
    n += test_read_fens("epd/wac.epd", fens + n, 300);
    n += test_read_fens("openings.epd", fens + n, 300);
    CHECK(n > 600);
    Evaluator e;
    evaluator_hand(&e);
    for (int i = 0; i < n; i++) {
        char m[128];
        test_mirror_fen(fens[i], m);
        CHECK_MSG(fen_read(&pos, fens[i], NULL, 0) == FEN_OK, "%s", fens[i]);
        CHECK_MSG(fen_read(&mirror, m, NULL, 0) == FEN_OK, "mirror %s", m);
        EvalTerms a, b;
        int sa = evaluate_terms(&pos, &e, &a), sb = evaluate_terms(&mirror, &e, &b);
        CHECK_MSG(a.total == -b.total && sa == sb, "%s: %d vs mirror %d", fens[i], a.total, b.total);
        for (int g = 0; g < EVAL_GROUP_NB; g++)
            CHECK_MSG(a.group[g] == -b.group[g], "%s: group %s %d vs %d", fens[i], EvalGroupNames[g], a.group[g],
                      b.group[g]);
        /* The groups add up to the total under classical weights. */
        int sum = 0;
        for (int g = 0; g < EVAL_GROUP_NB; g++)
            sum += a.group[g];
        CHECK_INT(sum, a.total);
    }
}

static void test_eval_sane(void)
{
    Evaluator e;
    evaluator_hand(&e);
    EvalTerms t;
    CHECK_INT(fen_read(&pos, FEN_STARTPOS, NULL, 0), FEN_OK);
    int v = evaluate_terms(&pos, &e, &t);
    CHECK_MSG(v > 0 && v < 40, "start position %d", v); /* the tempo, nothing else */
    CHECK_INT(t.group[GROUP_MATERIAL], 0);
    CHECK_INT(t.phase, 24);
    CHECK_INT(fen_read(&pos, "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", NULL, 0), FEN_OK);
    CHECK(evaluate(&pos, &e) > 800); /* a queen up */
    CHECK_INT(fen_read(&pos, "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", NULL, 0), FEN_OK);
    CHECK(evaluate(&pos, &e) < -800);
    CHECK_INT(fen_read(&pos, "8/8/4k3/8/8/3NK3/8/8 w - - 0 1", NULL, 0), FEN_OK);
    v = evaluate(&pos, &e);
    CHECK_MSG(v > -20 && v < 20, "K+N v K should be about 0, got %d", v);
}

void suite_eval(void)
{
    RUN(test_eval_mirror_symmetry);
    RUN(test_eval_sane);
}
