/* Games' levels (domain/games): each level's search limits, and which of a search's lines a weak
 * level may choose among (scores in the side to move's view, mates never "close"). */
#include <stdlib.h>

#include "../../../../server/domain/games.h"
#include "../server_test.h"

/* A result with the given line scores (best first), each line's first move distinct. */
static const SearchResult *lines(int count, const int *scores)
{
    static SearchResult r;
    memset(&r, 0, sizeof r);
    r.lines = count;
    for (int i = 0; i < count; i++) {
        r.line[i].multipv = i + 1;
        r.line[i].depth = 6;
        r.line[i].score = scores[i];
        r.line[i].pv_length = 1;
        r.line[i].pv[0] = (Move)(i + 1);
    }
    r.best = count ? r.line[0].pv[0] : MOVE_NONE;
    r.score = count ? scores[0] : 0;
    return &r;
}

#define LINES(...) lines((int)(sizeof(int[]){__VA_ARGS__} / sizeof(int)), (int[]){__VA_ARGS__})

static void test_level_limits(void)
{
    SearchLimits l;
    games_level_limits(1, &l);
    CHECK_INT(l.depth, 1);
    CHECK_INT(l.multipv, 4);
    CHECK_INT(l.movetime, 0);
    CHECK(!l.infinite && !l.nodes && !l.use_clock);
    games_level_limits(8, &l);
    CHECK_INT(l.movetime, 1500);
    CHECK_INT(l.depth, 0);
    CHECK_INT(l.multipv, 1);
    CHECK(!l.infinite && !l.nodes);
    /* Every level's search ends by itself; a stronger level never looks at more lines. */
    int previous_multipv = 99;
    for (int level = 1; level <= GAMES_LEVEL_MAX; level++) {
        games_level_limits(level, &l);
        CHECK_MSG(l.depth > 0 || l.movetime > 0, "level %d has no limit", level);
        CHECK_MSG(l.multipv >= 1 && l.multipv <= previous_multipv, "level %d: MultiPV %d", level, l.multipv);
        previous_multipv = l.multipv;
    }
}

static void test_strongest_level_plays_the_best(void)
{
    CHECK_INT(games_close_lines(8, LINES(30, 30, 30, 30)), 1);
    CHECK_INT(games_close_lines(8, LINES(30, 29)), 1);
    CHECK_INT(games_close_lines(8, LINES(30)), 1);
}

static void test_close_lines_level_1(void)
{
    /* Within 250 cp of the best: all of them. */
    CHECK_INT(games_close_lines(1, LINES(100, 20, -50, -150)), 4);
    CHECK_INT(games_close_lines(1, LINES(0, -250)), 2); /* the margin itself is close */
    CHECK_INT(games_close_lines(1, LINES(-300, -320, -400)), 3);
    /* Beyond the margin: excluded. */
    CHECK_INT(games_close_lines(1, LINES(100, 20, -151)), 2);
    CHECK_INT(games_close_lines(1, LINES(100, -200)), 1);
    CHECK_INT(games_close_lines(1, LINES(500, 200, 190)), 1);
    /* A mate score is never close, on either side, even when it is within the margin arithmetically. */
    CHECK_INT(games_close_lines(1, LINES(100, 60, VALUE_MATE - 3)), 2);
    CHECK_INT(games_close_lines(1, LINES(100, VALUE_MATE - 9)), 1);
    CHECK_INT(games_close_lines(1, LINES(100, 50, -(VALUE_MATE - 10))), 2);
    CHECK_INT(games_close_lines(1, LINES(100, VALUE_MATE_IN_MAX_PLY)), 1);
    CHECK_INT(games_close_lines(1, LINES(100, VALUE_MATE_IN_MAX_PLY - 1)), 2); /* the largest plain score */
    /* The best line a mate: that one only. */
    CHECK_INT(games_close_lines(1, LINES(VALUE_MATE - 5, VALUE_MATE - 7, 100)), 1);
    CHECK_INT(games_close_lines(1, LINES(-(VALUE_MATE - 4), -(VALUE_MATE - 6))), 1);
}

static void test_close_lines_edges(void)
{
    /* One line, or none. */
    CHECK_INT(games_close_lines(1, LINES(10)), 1);
    CHECK_INT(games_close_lines(1, lines(0, NULL)), 0);
    /* A level that plays the best only, whatever the margin would say. */
    CHECK_INT(games_close_lines(6, LINES(10, 10)), 1);
    /* Out of range: the best only. */
    CHECK_INT(games_close_lines(0, LINES(10, 10)), 1);
    CHECK_INT(games_close_lines(GAMES_LEVEL_MAX + 1, LINES(10, 10)), 1);
    /* Margins shrink as the level rises: 200 cp is close at level 1 only. */
    CHECK_INT(games_close_lines(1, LINES(200, 0)), 2);
    CHECK_INT(games_close_lines(2, LINES(200, 0)), 1);
    CHECK_INT(games_close_lines(2, LINES(150, 0)), 2);
}

void suite_games(void)
{
    RUN(test_level_limits);
    RUN(test_strongest_level_plays_the_best);
    RUN(test_close_lines_level_1);
    RUN(test_close_lines_edges);
}
