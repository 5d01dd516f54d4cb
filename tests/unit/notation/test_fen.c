/* FEN: strict validation with one code per failure, the normal form, and write(read(x)) == x. */
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../test.h"

static Position pos;

static void test_startpos_round_trip(void)
{
    char buf[FEN_BUFFER_SIZE];
    CHECK_INT(fen_read(&pos, FEN_STARTPOS, NULL, 0), FEN_OK);
    CHECK_STR(fen_write(&pos, buf), FEN_STARTPOS);
}

static void test_clocks_may_be_omitted(void)
{
    char buf[FEN_BUFFER_SIZE];
    CHECK_INT(fen_read(&pos, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", NULL, 0), FEN_OK);
    CHECK_STR(fen_write(&pos, buf), FEN_STARTPOS);
    CHECK_INT(fen_read(&pos, "  8/8/8/8/8/8/8/K6k   b  -  -  7 ", NULL, 0), FEN_OK);
    CHECK_STR(fen_write(&pos, buf), "8/8/8/8/8/8/8/K6k b - - 7 1");
    CHECK_INT(fen_read(&pos, "8/8/8/8/8/8/8/K6k b - - 3 40", NULL, 0), FEN_OK);
    CHECK_INT(pos.game_ply, 79);
}

/* Round trip over every FEN in the shared suites: normal-form FENs come back unchanged; the
 * others (an en-passant square nobody can capture on) normalise once and are then stable. */
static void round_trip_file(const char *relative, int *exact, int *total)
{
    FILE *f = fopen(test_data_path(relative), "r");
    if (!f) {
        test_fail(__FILE__, __LINE__, "cannot open %s", test_data_path(relative));
        return;
    }
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        /* First four fields, then the clocks if the line has them. */
        char fields[6][100];
        int n = sscanf(line, "%99s %99s %99s %99s %99s %99s", fields[0], fields[1], fields[2], fields[3], fields[4],
                       fields[5]);
        if (n < 4)
            continue;
        char fen[700], out[FEN_BUFFER_SIZE], again[FEN_BUFFER_SIZE];
        bool clocks = n == 6 && strspn(fields[4], "0123456789") == strlen(fields[4]) &&
                      strspn(fields[5], "0123456789") == strlen(fields[5]);
        snprintf(fen, sizeof fen, "%s %s %s %s %s %s", fields[0], fields[1], fields[2], fields[3],
                 clocks ? fields[4] : "0", clocks ? fields[5] : "1");
        char msg[200];
        FenError e = fen_read(&pos, fen, msg, sizeof msg);
        if (e != FEN_OK) {
            test_fail(__FILE__, __LINE__, "%s: %s rejected: %s", relative, fen, msg);
            fclose(f);
            return;
        }
        fen_write(&pos, out);
        (*total)++;
        if (!strcmp(out, fen))
            (*exact)++;
        else if (strcmp(fields[3], "-") == 0) {
            test_fail(__FILE__, __LINE__, "%s: %s written back as %s", relative, fen, out);
            fclose(f);
            return;
        }
        if (fen_read(&pos, out, NULL, 0) != FEN_OK || strcmp(fen_write(&pos, again), out)) {
            test_fail(__FILE__, __LINE__, "%s: normal form %s is not stable", relative, out);
            fclose(f);
            return;
        }
    }
    fclose(f);
}

static void test_round_trip_suites(void)
{
    int exact = 0, total = 0;
    round_trip_file("perft/standard.epd", &exact, &total);
    round_trip_file("perft/random.epd", &exact, &total);
    round_trip_file("openings.epd", &exact, &total);
    round_trip_file("epd/wac.epd", &exact, &total);
    round_trip_file("epd/bratko-kopec.epd", &exact, &total);
    CHECK_MSG(total > 700, "only %d FENs read", total);
    CHECK_MSG(exact >= total - 5, "%d of %d FENs came back unchanged", exact, total);
}

static void test_en_passant_normal_form(void)
{
    char buf[FEN_BUFFER_SIZE];
    /* Nobody can take on e6: the square is dropped. */
    CHECK_INT(fen_read(&pos, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2", NULL, 0), FEN_OK);
    CHECK_STR(fen_write(&pos, buf), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    /* d5xe6 is possible: kept. */
    CHECK_INT(fen_read(&pos, "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3", NULL, 0), FEN_OK);
    CHECK_STR(fen_write(&pos, buf), "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3");
    /* b5xc6 would expose the king on the fifth rank to the rook: dropped. */
    CHECK_INT(fen_read(&pos, "8/8/8/KPp4r/8/8/8/7k w - c6 0 2", NULL, 0), FEN_OK);
    CHECK_STR(fen_write(&pos, buf), "8/8/8/KPp4r/8/8/8/7k w - - 0 2");
    /* The key ignores a square nobody can use: same key as without it. */
    CHECK_INT(fen_read(&pos, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2", NULL, 0), FEN_OK);
    Key k1 = pos.st->key;
    CHECK_INT(fen_read(&pos, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", NULL, 0), FEN_OK);
    CHECK(k1 == pos.st->key);
}

typedef struct {
    const char *fen;
    FenError code;
} BadFen;

static const BadFen BadFens[] = {
    {"", FEN_EMPTY},
    {"   \t ", FEN_EMPTY},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", FEN_RANK_COUNT},
    {"rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_RANK_COUNT},
    {"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_RANK_LENGTH},
    {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_BAD_PIECE},
    {"rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_RANK_LENGTH},
    {"rnbqkbnr/pppppppp/44p/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_RANK_LENGTH},
    {"rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_RANK_LENGTH}, /* digits in a row */
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", FEN_BAD_PIECE},
    {"rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", FEN_MISSING_KING},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", FEN_MISSING_KING},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNK w kq - 0 1", FEN_TOO_MANY_KINGS},
    {"4k3/8/8/8/8/8/8/K3k3 w - - 0 1", FEN_TOO_MANY_KINGS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/PNBQKBNR w Kkq - 0 1", FEN_PAWN_ON_BACK_RANK},
    {"pnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_PAWN_ON_BACK_RANK},
    {"4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1", FEN_TOO_MANY_PIECES},
    {"QQQQk3/QQQQ4/8/8/8/8/PPPP4/4K3 w - - 0 1", FEN_TOO_MANY_PIECES},
    {"4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", FEN_OPPONENT_IN_CHECK},
    {"rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_OK}, /* sanity */
    {"4k3/8/8/8/8/8/4r3/4K3 b - - 0 1", FEN_OPPONENT_IN_CHECK},
    {"7k/8/8/8/1b6/3n4/8/R3K2q w - - 0 1", FEN_IMPOSSIBLE_CHECK},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", FEN_BAD_SIDE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", FEN_BAD_SIDE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqK - 0 1", FEN_BAD_CASTLING},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w XY - 0 1", FEN_BAD_CASTLING},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", FEN_IMPOSSIBLE_CASTLING},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w Q - 0 1", FEN_MISSING_KING},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Kk - 0 1", FEN_OK},
    {"rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1RK1 w K - 0 1", FEN_IMPOSSIBLE_CASTLING},
    {"rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1RK1 w k - 0 1", FEN_OK},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", FEN_BAD_EN_PASSANT},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1", FEN_BAD_EN_PASSANT},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", FEN_IMPOSSIBLE_EN_PASSANT},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", FEN_IMPOSSIBLE_EN_PASSANT},
    {"rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 1", FEN_IMPOSSIBLE_EN_PASSANT},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", FEN_BAD_HALFMOVE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", FEN_BAD_HALFMOVE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999 1", FEN_BAD_HALFMOVE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 z", FEN_BAD_FULLMOVE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.5", FEN_BAD_FULLMOVE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", FEN_FIELD_COUNT},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", FEN_FIELD_COUNT},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", FEN_FIELD_COUNT},
};

static void test_invalid_fens(void)
{
    char before[FEN_BUFFER_SIZE], after[FEN_BUFFER_SIZE];
    for (size_t i = 0; i < sizeof BadFens / sizeof BadFens[0]; i++) {
        CHECK_INT(fen_read(&pos, "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 5 30", NULL, 0), FEN_OK);
        fen_write(&pos, before);
        char msg[200] = "";
        FenError e = fen_read(&pos, BadFens[i].fen, msg, sizeof msg);
        CHECK_MSG(e == BadFens[i].code, "\"%s\": got %s (%s), want %s", BadFens[i].fen, fen_error_code(e), msg,
                  fen_error_code(BadFens[i].code));
        if (e == FEN_OK)
            continue;
        CHECK_MSG(strlen(msg) > 10, "\"%s\": message too short: '%s'", BadFens[i].fen, msg);
        CHECK_MSG(!strcmp(fen_write(&pos, after), before), "\"%s\" changed the position", BadFens[i].fen);
    }
}

static void test_each_failure_has_its_own_code(void)
{
    const char *seen[FEN_ERROR_NB];
    for (int i = 0; i < FEN_ERROR_NB; i++) {
        seen[i] = fen_error_code((FenError)i);
        CHECK(!strncmp(seen[i], i ? "fen_" : "ok", 2));
        for (int k = 0; k < i; k++)
            CHECK_MSG(strcmp(seen[i], seen[k]), "code %s used twice", seen[i]);
    }
    CHECK_STR(fen_error_code(FEN_ERROR_NB), "fen_unknown");
}

static void test_messages_name_the_problem(void)
{
    char msg[200];
    fen_read(&pos, "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", msg, sizeof msg);
    CHECK_STR(msg, "rank 7 has more than 8 squares");
    fen_read(&pos, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", msg, sizeof msg);
    CHECK_STR(msg, "the board has 7 ranks, it needs 8");
    fen_read(&pos, "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", msg, sizeof msg);
    CHECK_STR(msg, "black is not to move but is in check");
    fen_read(&pos, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", msg, sizeof msg);
    CHECK_STR(msg, "castling right 'K' needs the king on e1 and a rook on h1");
}

static void test_garbage_and_long_input(void)
{
    char *big = malloc(10 * 1024 + 1);
    for (int i = 0; i < 10 * 1024; i++)
        big[i] = (char)(33 + test_rand() % 90);
    big[10 * 1024] = 0;
    char msg[200];
    CHECK_INT(fen_read(&pos, big, msg, sizeof msg), FEN_TOO_LONG);
    free(big);
    CHECK_INT(fen_read(&pos, NULL, msg, sizeof msg), FEN_EMPTY);
    CHECK_INT(fen_read(&pos, "\x01\x02\x03 w - -", msg, sizeof msg), FEN_BAD_PIECE);
    CHECK_STR(msg, "byte 0x01 is not a piece (use PNBRQK/pnbrqk or 1-8)");
    CHECK_INT(fen_read(&pos, "hello world foo bar", msg, sizeof msg), FEN_BAD_PIECE);
}

void suite_fen(void)
{
    RUN(test_startpos_round_trip);
    RUN(test_clocks_may_be_omitted);
    RUN(test_round_trip_suites);
    RUN(test_en_passant_normal_form);
    RUN(test_invalid_fens);
    RUN(test_each_failure_has_its_own_code);
    RUN(test_messages_name_the_problem);
    RUN(test_garbage_and_long_input);
}
