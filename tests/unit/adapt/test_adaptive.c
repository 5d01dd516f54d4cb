/* The Bayesian choice per search (shared/spec/bayesian.md §6): the target and its reason, and the
 * target names. */
#include <stdlib.h>

#include "../../../engine/adapt/adaptive.h"
#include "../../../engine/engine.h"
#include "../test.h"

/* §6 without a style model or before the opponent's move 10: the requested target, with a reason. */
static void test_target_choice(void)
{
    BayesModel m;
    CHECK(bayes_model_init(&m));
    Position *start = malloc(sizeof *start), *p = malloc(sizeof *p);
    fen_read(start, FEN_STARTPOS, NULL, 0);
    fen_read(p, FEN_STARTPOS, NULL, 0);
    static const char *const line[] = {"e2e4", "c7c5", "g1f3", "d7d6"};
    Move moves[4];
    for (int i = 0; i < 4; i++) {
        moves[i] = move_from_uci(p, line[i]);
        position_make_move(p, moves[i]);
    }
    MoveHistory h = {start, moves, 4};
    BayesChoice c;
    Evaluator e;
    static EvalParams storage;
    adaptive_choose(&m, NULL, p, &h, TARGET_AGGRESSIVE, true, 7, &c, &storage, &e);
    CHECK(c.target == TARGET_AGGRESSIVE && !c.has_style && strstr(c.reason, "before the opponent's move 10"));
    adaptive_choose(&m, NULL, p, NULL, TARGET_CONSERVATIVE, true, 7, &c, &storage, &e);
    CHECK(c.target == TARGET_CONSERVATIVE && strstr(c.reason, "bare position"));
    adaptive_choose(&m, NULL, p, &h, TARGET_AGGRESSIVE, false, 7, &c, &storage, &e);
    CHECK(c.target == TARGET_AGGRESSIVE && !strcmp(c.reason, "requested"));
    BayesTarget t;
    bool automatic;
    CHECK(adaptive_parse_target("auto", &t, &automatic) && automatic && t == TARGET_CONSERVATIVE);
    CHECK(adaptive_parse_target("aggressive", &t, &automatic) && !automatic && t == TARGET_AGGRESSIVE);
    CHECK(!adaptive_parse_target("Aggressive", &t, &automatic) && !adaptive_parse_target("", &t, &automatic));
    free(start);
    free(p);
    bayes_model_free(&m);
}

void suite_adaptive(void) { RUN(test_target_choice); }
