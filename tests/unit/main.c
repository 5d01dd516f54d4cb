/* The engine's unit tests (build/unit): every suite, under each attack-table implementation the
 * CPU offers. */
#include "../../engine/engine.h"
#include "test.h"

int main(void)
{
    engine_init("magic");
    test_set_mode(" [magic]");
    if (test_wanted("movegen"))
        suite_movegen();
    engine_init("pext");
    if (AttacksUsePext && test_wanted("movegen")) {
        test_set_mode(" [pext]");
        suite_movegen();
    }
    test_set_mode("");
    engine_init(NULL);
    static const struct {
        const char *name;
        void (*run)(void);
    } Suites[] = {
        {"fen", suite_fen},           {"move", suite_move},
        {"san", suite_san},           {"rules", suite_rules},
        {"pgn", suite_pgn},           {"fuzz", suite_fuzz},
        {"eval", suite_eval},         {"search", suite_search},
        {"strength", suite_strength}, {"affective", suite_affective},
        {"style", suite_style},       {"bayes", suite_bayes},
        {"adaptive", suite_adaptive}, {"selfplay", suite_selfplay},
        {"review", suite_review},     {"trainset", suite_trainset},
        {"nnue", suite_nnue},         {"movepick", suite_movepick},
    };
    for (size_t i = 0; i < sizeof Suites / sizeof Suites[0]; i++)
        if (test_wanted(Suites[i].name))
            Suites[i].run();
    return test_summary("unit");
}
