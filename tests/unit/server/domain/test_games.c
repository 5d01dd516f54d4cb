/* Games' levels (domain/games): each level's rating, the level nearest a rating, a rated move's
 * search limits, and the line of the move a search played. */
#include <stdlib.h>

#include "../../../../server/domain/games.h"
#include "../server_test.h"

/* A result with the given line scores (best first), each line's first move distinct. */
static SearchResult *lines(int count, const int *scores)
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

/* Levels 1-7 are rising ratings inside the range a request may ask; level 8 is full strength. */
static void test_level_ratings(void)
{
    CHECK_INT(GamesLevelElo[GAMES_LEVEL_MAX], 0);
    for (int level = 1; level < GAMES_LEVEL_MAX; level++) {
        int elo = GamesLevelElo[level];
        CHECK_MSG(elo >= STRENGTH_ELO_MIN && elo <= STRENGTH_ELO_MAX, "level %d: %d", level, elo);
        CHECK_MSG(level == 1 || elo > GamesLevelElo[level - 1], "level %d: %d", level, elo);
        CHECK_INT(games_level_of_elo(elo), level);
        CHECK_INT(games_level_of_elo(elo + 10), level);
    }
    CHECK_INT(games_level_of_elo(1), 1);
    CHECK_INT(games_level_of_elo(100000), GAMES_LEVEL_MAX - 1); /* a rating is never full strength */
}

/* What a request asks: a level, a rating, neither (level 0), or a refusal naming what to fix. */
static void test_strength_asked(void)
{
    ApiError e;
    int level = -9, elo = -9;
    CHECK(games_strength(&e, 3, 0, &level, &elo) && level == 3 && elo == GamesLevelElo[3]);
    CHECK(games_strength(&e, GAMES_LEVEL_MAX, 0, &level, &elo) && level == GAMES_LEVEL_MAX && elo == 0);
    CHECK(games_strength(&e, 0, GamesLevelElo[5] + 20, &level, &elo) && level == 5 && elo == GamesLevelElo[5] + 20);
    CHECK(games_strength(&e, 0, 0, &level, &elo) && level == 0 && elo == 0);
    static const struct {
        int level, elo;
        const char *code;
    } Refused[] = {{2, 1500, "level_and_elo"},
                   {-1, 0, "bad_level"},
                   {9, 0, "bad_level"},
                   {0, -1, "bad_elo"},
                   {0, STRENGTH_ELO_MIN - 1, "bad_elo"},
                   {0, STRENGTH_ELO_MAX + 1, "bad_elo"}};
    for (size_t i = 0; i < sizeof Refused / sizeof Refused[0]; i++) {
        level = elo = -9;
        CHECK_MSG(!games_strength(&e, Refused[i].level, Refused[i].elo, &level, &elo) && e.status == 400 &&
                      !strcmp(e.code, Refused[i].code) && level == -9 && elo == -9,
                  "level %d elo %d: %s", Refused[i].level, Refused[i].elo, e.code);
    }
}

/* A move at a rating: that rating, every level's move at most GAMES_MOVE_MS, one line asked. */
static void test_rating_limits(void)
{
    SearchLimits l;
    games_rating_limits(GamesLevelElo[1], &l);
    CHECK_INT(l.elo, GamesLevelElo[1]);
    CHECK_INT(l.movetime, GAMES_MOVE_MS);
    CHECK_INT(l.multipv, 1);
    CHECK(!l.infinite && !l.nodes && !l.depth && !l.use_clock);
    games_rating_limits(0, &l);
    CHECK_INT(l.elo, 0);
    CHECK_INT(l.movetime, GAMES_MOVE_MS);
}

/* The played move is the search's; its line is the one that begins with it, else the first. */
static void test_played_line(void)
{
    Move m;
    SearchResult *r = LINES(30, 20, 10);
    CHECK(games_played_line(r, &m) == &r->line[0] && m == 1);
    r->best = 3;
    CHECK(games_played_line(r, &m) == &r->line[2] && m == 3);
    r->best = 9; /* a move no reported line begins with */
    CHECK(games_played_line(r, &m) == &r->line[0] && m == 9);
    r->line[1].pv_length = 0;
    r->best = 2;
    CHECK(games_played_line(r, &m) == &r->line[0] && m == 2);
}

void suite_games(void)
{
    RUN(test_level_ratings);
    RUN(test_strength_asked);
    RUN(test_rating_limits);
    RUN(test_played_line);
}
