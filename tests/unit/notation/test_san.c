/* SAN: reading every accepted form, writing with minimal disambiguation, and the round trip. */
#include "../../../engine/engine.h"
#include "../test.h"

static Position pos;

static const char *san_of(const char *u)
{
    static char buf[SAN_STRING_SIZE];
    Move m = move_from_uci(&pos, u);
    return m ? san_write(&pos, m, buf) : "(illegal)";
}
static const char *uci_of_san(const char *san)
{
    static char buf[MOVE_STRING_SIZE];
    return move_to_uci(san_read(&pos, san), buf);
}

static void test_san_write(void)
{
    CHECK_INT(fen_read(&pos, FEN_STARTPOS, NULL, 0), FEN_OK);
    CHECK_STR(san_of("e2e4"), "e4");
    CHECK_STR(san_of("g1f3"), "Nf3");
    /* Disambiguation: by file, by rank, by both. */
    CHECK_INT(fen_read(&pos, "4k3/8/8/8/8/8/8/RN2KN1R w - - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(san_of("b1d2"), "Nbd2");
    CHECK_STR(san_of("f1d2"), "Nfd2");
    CHECK_STR(san_of("f1e3"), "Ne3");
    CHECK_INT(fen_read(&pos, "4k3/8/R7/8/8/8/8/R3K3 w - - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(san_of("a1a3"), "R1a3");
    CHECK_STR(san_of("a6a3"), "R6a3");
    CHECK_STR(san_of("a1b1"), "Rb1");
    CHECK_INT(fen_read(&pos, "1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(san_of("h4e1"), "Qh4e1");
    CHECK_STR(san_of("e4b7"), "Qb7#"); /* the h1 queen guards b7 once e4 is empty */
    /* A pinned piece does not need to be told apart. */
    CHECK_INT(fen_read(&pos, "4k3/8/8/8/8/1N6/8/4KN1r w - - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(san_of("b3d2"), "Nd2");
    CHECK_STR(san_of("f1d2"), "(illegal)");
    /* Pawn captures, en passant, promotions, check and mate, castling. */
    CHECK_INT(fen_read(&pos, "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3", NULL, 0), FEN_OK);
    CHECK_STR(san_of("d5e6"), "dxe6");
    CHECK_INT(fen_read(&pos, "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(san_of("a7a8q"), "a8=Q");
    CHECK_STR(san_of("a7b8q"), "axb8=Q+");
    CHECK_STR(san_of("a7b8n"), "axb8=N");
    CHECK_INT(fen_read(&pos, "rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3", NULL, 0), FEN_OK);
    CHECK_STR(san_of("d1h5"), "Qh5#");
    CHECK_INT(fen_read(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(san_of("e1g1"), "O-O");
    CHECK_STR(san_of("e1c1"), "O-O-O");
    CHECK_INT(fen_read(&pos, "5k2/8/8/8/8/8/8/4K2R w K - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(san_of("e1g1"), "O-O+");
}

static void test_san_read(void)
{
    CHECK_INT(fen_read(&pos, "4k3/8/8/8/8/8/8/RN2KN1R w - - 0 1", NULL, 0), FEN_OK);
    CHECK(san_read(&pos, "Nd2") == MOVE_NONE); /* ambiguous */
    CHECK_STR(uci_of_san("Nbd2"), "b1d2");
    CHECK_STR(uci_of_san("Nfd2"), "f1d2");
    CHECK_STR(uci_of_san("N1d2"), "0000"); /* still ambiguous */
    CHECK_STR(uci_of_san("Nb1d2"), "b1d2");
    CHECK_STR(uci_of_san("Nfe3!?"), "f1e3"); /* more than needed is fine */
    CHECK_STR(uci_of_san("Ne3??"), "f1e3");
    CHECK_STR(uci_of_san("Ra7"), "a1a7");
    CHECK_STR(uci_of_san("Rxa7"), "0000"); /* nothing to take */
    CHECK_STR(uci_of_san("Kh9"), "0000");
    CHECK_STR(uci_of_san("Zf3"), "0000");
    CHECK_STR(uci_of_san(""), "0000");
    CHECK_STR(uci_of_san("+"), "0000");
    CHECK_INT(fen_read(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(uci_of_san("O-O"), "e1g1");
    CHECK_STR(uci_of_san("0-0"), "e1g1");
    CHECK_STR(uci_of_san("O-O-O+"), "e1c1");
    CHECK_STR(uci_of_san("0-0-0"), "e1c1");
    CHECK_INT(fen_read(&pos, "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", NULL, 0), FEN_OK);
    CHECK_STR(uci_of_san("a8=Q"), "a7a8q");
    CHECK_STR(uci_of_san("a8Q"), "a7a8q");
    CHECK_STR(uci_of_san("a8=q"), "a7a8q");
    CHECK_STR(uci_of_san("axb8=R+"), "a7b8r");
    CHECK_STR(uci_of_san("axb8N"), "a7b8n");
    CHECK_STR(uci_of_san("a8"), "0000"); /* a promotion needs its piece */
    CHECK_STR(uci_of_san("a8=K"), "0000");
    CHECK_INT(fen_read(&pos, "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3", NULL, 0), FEN_OK);
    CHECK_STR(uci_of_san("dxe6"), "d5e6");
    CHECK_STR(uci_of_san("de6"), "d5e6");
    CHECK_STR(uci_of_san("d6"), "d5d6");
    CHECK_STR(uci_of_san("Bf4"), "c1f4");
    CHECK_STR(uci_of_san("Bb5+"), "0000"); /* the e2 pawn is in the way */
}

/* Every legal move of every random.epd position: SAN written reads back as the same move. */
static void test_san_round_trip(void)
{
    FILE *f = fopen(test_data_path("perft/random.epd"), "r");
    CHECK(f);
    char line[4096];
    int moves = 0;
    while (fgets(line, sizeof line, f)) {
        *strchr(line, ';') = 0;
        CHECK(fen_read(&pos, line, NULL, 0) == FEN_OK);
        MoveList list;
        movegen_legal(&pos, &list, GEN_ALL);
        for (int i = 0; i < list.count; i++) {
            char san[SAN_STRING_SIZE], u[MOVE_STRING_SIZE];
            san_write(&pos, list.moves[i], san);
            move_to_uci(list.moves[i], u);
            CHECK_MSG(san_read(&pos, san) == list.moves[i], "%s: %s (%s) does not read back", line, san,
                      move_to_uci(list.moves[i], u));
            CHECK(move_from_uci(&pos, u) == list.moves[i]);
            moves++;
        }
    }
    fclose(f);
    CHECK(moves > 3000);
}

void suite_san(void)
{
    RUN(test_san_write);
    RUN(test_san_read);
    RUN(test_san_round_trip);
}
