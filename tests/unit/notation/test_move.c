/* UCI move text: reading (castling as king-takes-rook too, promotions, their letter in either case) and writing. */
#include "../../../engine/engine.h"
#include "../test.h"

static Position pos;

static Move uci(const char *s) { return move_from_uci(&pos, s); }

static void test_uci_read_write(void)
{
    char buf[MOVE_STRING_SIZE];
    CHECK_INT(fen_read(&pos, "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/1PPBBPPP/R3K2R w KQkq - 0 1", NULL, 0), FEN_OK);
    Move oo = uci("e1g1");
    CHECK(oo != MOVE_NONE && move_kind(oo) == MOVE_CASTLING);
    CHECK(uci("e1h1") == oo);
    CHECK(uci("e1c1") == uci("e1a1") && uci("e1c1") != MOVE_NONE);
    CHECK_STR(move_to_uci(uci("e1h1"), buf), "e1g1");
    CHECK_STR(move_to_uci(uci("b7a8q"), buf), "b7a8q");
    CHECK_STR(move_to_uci(uci("b7a8n"), buf), "b7a8n");
    CHECK(uci("b7a8") == MOVE_NONE);  /* promotion piece missing */
    CHECK(uci("e2e4q") == MOVE_NONE); /* not a promotion */
    CHECK(uci("b7a8Q") == uci("b7a8q") && uci("b7a8N") == uci("b7a8n")); /* either case, as Stockfish */
    CHECK(uci("b7a8k") == MOVE_NONE && uci("b7a8K") == MOVE_NONE);
    CHECK(uci("e2e5") == MOVE_NONE);
    CHECK(uci("") == MOVE_NONE);
    CHECK(uci("e2") == MOVE_NONE);
    CHECK(uci("i2i4") == MOVE_NONE);
    CHECK(uci("e2e4e5") == MOVE_NONE);
    CHECK(uci("E2E4") == MOVE_NONE);
    CHECK_STR(move_to_uci(MOVE_NONE, buf), "0000");
}

void suite_move(void) { RUN(test_uci_read_write); }
