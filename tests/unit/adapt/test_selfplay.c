/* One self-play game between two evaluators: how it ends, and every move legal. */
#include <stdlib.h>

#include "../../../engine/adapt/selfplay.h"
#include "../../../engine/engine.h"
#include "../test.h"

typedef struct {
    Evaluator e;
    int calls;
} FixedPlayer;
static const Evaluator *fixed_evaluator(void *user, const Position *root)
{
    (void)root;
    FixedPlayer *f = user;
    f->calls++;
    return &f->e;
}

/* A self-play game ends by the rules, adjudication or the move cap, with every move legal. */
static void test_selfplay_game(void)
{
    Search *s[COLOR_NB] = {search_new(), search_new()};
    FixedPlayer w, b;
    evaluator_classical(&w.e);
    evaluator_classical(&b.e);
    w.calls = b.calls = 0;
    SelfPlayer players[COLOR_NB] = {{fixed_evaluator, &w}, {fixed_evaluator, &b}};
    SelfPlaySettings set = {.nodes = 400, .resign_cp = 600};
    SelfPlayGame *g = malloc(sizeof *g);
    CHECK(selfplay_game(s, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", players, &set, g));
    CHECK_INT(g->result, 1); /* Rd8 mates (or the adjudication sees it) */
    CHECK(w.calls >= 1);
    Position *p = malloc(sizeof *p);
    CHECK(selfplay_game(s, NULL, players, &set, g));
    CHECK(g->plies > 0 && g->result >= -1 && g->result <= 1 && g->reason[0]);
    fen_read(p, FEN_STARTPOS, NULL, 0);
    for (int i = 0; i < g->plies; i++) {
        CHECK(movegen_is_legal(p, g->moves[i]));
        position_make_move(p, g->moves[i]);
        position_trim_history(p);
    }
    CHECK(!selfplay_game(s, "not a fen", players, &set, g));
    free(p);
    free(g);
    search_free(s[WHITE]);
    search_free(s[BLACK]);
}

void suite_selfplay(void) { RUN(test_selfplay_game); }
