/* Playing at a rating (engine/search/strength.c): the budget and temperature as the rating goes
 * up, the choice among lines, and a rated search's moves. */
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../test.h"

/* More rating, more nodes and a cooler choice; the range's ends clamp. */
static void test_strength_grows_with_rating(void)
{
    Strength last, s;
    strength_of(STRENGTH_ELO_MIN, &last);
    CHECK(last.nodes > 0 && last.temperature > 0 && last.elo == STRENGTH_ELO_MIN);
    for (int elo = STRENGTH_ELO_MIN + 25; elo <= STRENGTH_ELO_MAX; elo += 25) {
        strength_of(elo, &s);
        CHECK_MSG(s.nodes >= last.nodes && s.temperature <= last.temperature, "elo %d: %llu nodes, T %d after %llu, %d",
                  elo, (unsigned long long)s.nodes, s.temperature, (unsigned long long)last.nodes, last.temperature);
        last = s;
    }
    Strength top, bottom;
    strength_of(STRENGTH_ELO_MAX, &top);
    strength_of(STRENGTH_ELO_MAX + 1000, &s);
    CHECK(s.nodes == top.nodes && s.temperature == top.temperature && s.elo == STRENGTH_ELO_MAX);
    strength_of(STRENGTH_ELO_MIN, &bottom);
    strength_of(1, &s);
    CHECK(s.nodes == bottom.nodes && s.elo == STRENGTH_ELO_MIN);
    CHECK(top.nodes > 100 * bottom.nodes);
}

/* How often each of `count` lines is drawn in n draws. */
static void draw_counts(const Strength *s, const int *scores, int count, int legal, int n, int *seen)
{
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < count; i++)
        seen[i] = 0;
    for (int k = 0; k < n; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        seen[strength_choose(s, scores, count, legal, x)]++;
    }
}

/* The draw: close moves often, a blunder seldom, a mate found always, a move into mate only when
 * every move is one; more spread where there are more legal moves. */
static void test_strength_choice(void)
{
    Strength weak;
    strength_of(STRENGTH_ELO_MIN, &weak);
    int seen[STRENGTH_LINES];
    const int close[] = {60, 30, 0, -400, -900};
    draw_counts(&weak, close, 5, 20, 10000, seen);
    CHECK_MSG(seen[0] > seen[1] && seen[1] > seen[2] && seen[2] > 1000 && seen[3] < seen[2] / 5 && seen[4] <= seen[3],
              "draws %d %d %d %d %d", seen[0], seen[1], seen[2], seen[3], seen[4]);
    int few[STRENGTH_LINES];
    draw_counts(&weak, close, 5, 3, 10000, few);
    CHECK_MSG(few[0] > seen[0], "3 legal moves: best %d times, 20 legal moves: %d", few[0], seen[0]);

    const int mate_found[] = {VALUE_MATE - 3, 50, 40, 30, 20};
    draw_counts(&weak, mate_found, 5, 20, 1000, seen);
    CHECK_INT(seen[0], 1000);
    const int into_mate[] = {-20, -VALUE_MATE + 4, -VALUE_MATE + 2, -VALUE_INFINITE, -VALUE_INFINITE};
    draw_counts(&weak, into_mate, 5, 20, 1000, seen);
    CHECK_INT(seen[0], 1000);
    const int all_mated[] = {-VALUE_MATE + 6, -VALUE_MATE + 4};
    draw_counts(&weak, all_mated, 2, 2, 1000, seen);
    CHECK(seen[0] > 0 && seen[1] > 0);
    CHECK_INT(strength_choose(&weak, close, 1, 20, 12345), 0);
    const int first_unsearched[] = {-VALUE_INFINITE, 30, 20}; /* (a search stopped mid-iteration) */
    draw_counts(&weak, first_unsearched, 3, 20, 1000, seen);
    CHECK_MSG(seen[0] == 0 && seen[1] > seen[2] && seen[2] > 0, "draws %d %d %d", seen[0], seen[1], seen[2]);

    Strength strong;
    strength_of(STRENGTH_ELO_MAX, &strong);
    const int near[] = {40, 20, 0, -20, -40};
    draw_counts(&strong, near, 5, 20, 10000, seen);
    int weak_best[STRENGTH_LINES];
    draw_counts(&weak, near, 5, 20, 10000, weak_best);
    CHECK_MSG(seen[0] > weak_best[0] && seen[0] > 5000, "best drawn %d times at the top, %d at the bottom", seen[0],
              weak_best[0]);
}

/* How many different moves (*distinct_out) n rated searches of p play, one after another on the same table (as a
 * server's worker runs them), each checked legal, with the lines it drew among, within its budget. */
static void distinct_moves(Search *s, const Position *p, const SearchLimits *l, const Evaluator *e, int n,
                           int *distinct_out)
{
    Move moves[64];
    int distinct = 0;
    *distinct_out = 0;
    Strength st;
    strength_of(l->elo, &st);
    for (int k = 0; k < n && k < 64; k++) {
        SearchResult r;
        search_run(s, p, l, e, NULL, &r);
        CHECK(movegen_is_legal(p, r.best));
        CHECK_MSG(r.lines == STRENGTH_LINES, "%d lines reported", r.lines);
        CHECK_MSG(r.nodes < st.nodes + 5000, "%llu nodes for a budget of %llu", (unsigned long long)r.nodes,
                  (unsigned long long)st.nodes);
        bool again = false;
        for (int i = 0; i < distinct; i++)
            again |= moves[i] == r.best;
        if (!again)
            *distinct_out = ++distinct, moves[distinct - 1] = r.best;
    }
}

/* A rated search: legal moves, several of them over repeated searches at the lowest rating and at
 * level 1's (each searched from nothing, whatever the one before left), the mate in one always,
 * within its budget. */
static void test_rated_search(void)
{
    static Position p;
    static Search *s;
    if (!s)
        s = search_new();
    CHECK(s);
    Evaluator e;
    evaluator_classical(&e);
    SearchLimits l;
    search_limits_init(&l);
    l.elo = STRENGTH_ELO_MIN;
    CHECK(fen_read(&p, FEN_STARTPOS, NULL, 0) == FEN_OK);
    int distinct;
    distinct_moves(s, &p, &l, &e, 40, &distinct);
    CHECK_MSG(distinct >= 3, "%d different first moves in 40 searches", distinct);
    /* Level 1 after 1.e4 e5: its budget ends inside an iteration, and it draws among the last
     * completed iteration's lines, not the one move the unfinished one reached first (which, with a
     * poor deeper score, it drew nearly every time). */
    CHECK(fen_read(&p, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", NULL, 0) == FEN_OK);
    l.elo = 1200;
    distinct_moves(s, &p, &l, &e, 40, &distinct);
    CHECK_MSG(distinct >= 4, "level 1: %d different moves after 1.e4 e5 in 40 searches", distinct);
    l.elo = STRENGTH_ELO_MIN;
    CHECK(fen_read(&p, "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", NULL, 0) == FEN_OK);
    for (int k = 0; k < 20; k++) {
        SearchResult r;
        search_run(s, &p, &l, &e, NULL, &r);
        char u[MOVE_STRING_SIZE];
        CHECK_STR(move_to_uci(r.best, u), "h5f7");
    }
    search_free(s);
    s = NULL;
}

void suite_strength(void)
{
    RUN(test_strength_grows_with_rating);
    RUN(test_strength_choice);
    RUN(test_rated_search);
}
