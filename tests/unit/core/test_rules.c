/* Draw rules and game status: fifty moves, threefold repetition, insufficient material, mate. */
#include "../../../engine/engine.h"
#include "../test.h"
#include "../../../engine/core/rules.h"

static Position pos;

static void play(const char *uci_moves)
{
    char buf[512], *save;
    snprintf(buf, sizeof buf, "%s", uci_moves);
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        Move m = move_from_uci(&pos, t);
        if (!m) {
            test_fail(__FILE__, __LINE__, "illegal move %s", t);
            return;
        }
        position_make_move(&pos, m);
    }
}

static void test_mate_and_stalemate(void)
{
    CHECK_INT(fen_read(&pos, FEN_STARTPOS, NULL, 0), FEN_OK);
    play("f2f3 e7e5 g2g4 d8h4");
    CHECK_INT(position_status(&pos), STATUS_CHECKMATE);
    CHECK_STR(game_status_name(position_status(&pos)), "mate");
    CHECK_INT(fen_read(&pos, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", NULL, 0), FEN_OK);
    CHECK_INT(position_status(&pos), STATUS_STALEMATE);
    CHECK_INT(fen_read(&pos, FEN_STARTPOS, NULL, 0), FEN_OK);
    CHECK_INT(position_status(&pos), STATUS_ONGOING);
    CHECK_STR(game_status_name(STATUS_ONGOING), "started");
}

static void test_fifty_moves(void)
{
    CHECK_INT(fen_read(&pos, "4k3/8/8/8/8/8/8/R3K3 w - - 98 80", NULL, 0), FEN_OK);
    play("a1a2");
    CHECK_INT(position_status(&pos), STATUS_ONGOING);
    play("e8d8");
    CHECK_INT(pos.st->rule50, 100);
    CHECK_INT(position_status(&pos), STATUS_DRAW_FIFTY);
    /* Mate on the hundredth half-move is still mate. */
    CHECK_INT(fen_read(&pos, "k7/8/1K6/8/8/8/8/7R w - - 99 80", NULL, 0), FEN_OK);
    play("h1h8");
    CHECK_INT(position_status(&pos), STATUS_CHECKMATE);
    /* A capture resets the clock. */
    CHECK_INT(fen_read(&pos, "4k3/8/8/8/8/8/r7/R3K3 w - - 99 80", NULL, 0), FEN_OK);
    play("a1a2");
    CHECK_INT(pos.st->rule50, 0);
}

static void test_threefold(void)
{
    CHECK_INT(fen_read(&pos, FEN_STARTPOS, NULL, 0), FEN_OK);
    play("g1f3 g8f6 f3g1 f6g8");
    CHECK(position_is_repetition(&pos, 1));
    CHECK(!position_is_repetition(&pos, 2));
    CHECK_INT(position_status(&pos), STATUS_ONGOING);
    play("g1f3 g8f6 f3g1");
    CHECK_INT(position_status(&pos), STATUS_ONGOING);
    play("f6g8");
    CHECK_INT(position_status(&pos), STATUS_DRAW_REPETITION);
    /* Same placement but different castling rights is a different position. */
    CHECK_INT(fen_read(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", NULL, 0), FEN_OK);
    play("e1f1 e8f8 f1e1 f8e8 e1f1 e8f8 f1e1 f8e8");
    CHECK(!position_is_repetition(&pos, 2));
    play("e1f1 e8f8");
    CHECK_INT(position_status(&pos), STATUS_DRAW_REPETITION);
}

static void test_insufficient_material(void)
{
    static const struct {
        const char *fen;
        bool dead;
    } Cases[] = {
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1", true},     {"4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true},
        {"4k3/8/8/8/8/8/8/4KB2 w - - 0 1", true},    {"4kb2/8/8/8/8/8/8/4KB2 w - - 0 1", false},
        {"4k1b1/8/8/8/8/8/8/4KB2 w - - 0 1", true},  {"4kn2/8/8/8/8/8/8/4KN2 w - - 0 1", false},
        {"4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false},  {"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false},
        {"4k3/8/8/8/8/8/8/4K2R w - - 0 1", false},   {"2b1kb2/8/8/8/8/8/8/2B1KB2 w - - 0 1", false},
        {"4k1b1/7b/8/8/8/8/8/4KB2 w - - 0 1", true},
    };
    for (size_t i = 0; i < sizeof Cases / sizeof Cases[0]; i++) {
        CHECK_INT(fen_read(&pos, Cases[i].fen, NULL, 0), FEN_OK);
        CHECK_MSG(position_insufficient_material(&pos) == Cases[i].dead, "%s", Cases[i].fen);
        CHECK_INT(position_status(&pos) == STATUS_DRAW_MATERIAL, Cases[i].dead);
    }
}

static void test_long_game_trims_history(void)
{
    /* 3,000 plies of shuffling: more than the state stack holds without trimming. */
    CHECK_INT(fen_read(&pos, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", NULL, 0), FEN_OK);
    const char *cycle[4] = {"a1a2", "e8d8", "a2a1", "d8e8"};
    for (int i = 0; i < 3000; i++) {
        if (i % 200 == 0) {
            /* Reset the clock with a pawn-free capture-free trick: trim keeps rule50 states. */
            pos.st->rule50 = 0;
            position_trim_history(&pos);
        }
        Move m = move_from_uci(&pos, cycle[i % 4]);
        CHECK(m != MOVE_NONE);
        position_make_move(&pos, m);
    }
    CHECK(pos.stack_len < POSITION_STACK_SIZE);
    CHECK_INT(position_status(&pos), STATUS_DRAW_FIFTY);
}

void suite_rules(void)
{
    RUN(test_mate_and_stalemate);
    RUN(test_fifty_moves);
    RUN(test_threefold);
    RUN(test_insufficient_material);
    RUN(test_long_game_trims_history);
}
