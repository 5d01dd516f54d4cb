/* Random and mutated input for every parser: none may crash (this suite matters most in the
 * ASan+UBSan build), and whatever is accepted must be consistent. */
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../test.h"

static Position pos;

static void mutate(char *s, size_t cap)
{
    size_t n = strlen(s);
    int edits = 1 + (int)(test_rand() % 4);
    for (int e = 0; e < edits; e++) {
        size_t at = n ? test_rand() % n : 0;
        switch (test_rand() % 4) {
        case 0: /* replace */
            if (n)
                s[at] = (char)(1 + test_rand() % 255);
            break;
        case 1: /* delete */
            if (n) {
                memmove(s + at, s + at + 1, n - at);
                n--;
            }
            break;
        case 2: /* insert */
            if (n + 2 < cap) {
                memmove(s + at + 1, s + at, n - at + 1);
                s[at] = "pnbrqkPNBRQK12345678/ -wbKQkqa3e6x0"[test_rand() % 35];
                n++;
            }
            break;
        default: /* duplicate a chunk */
            if (n && n * 2 + 2 < cap) {
                size_t len = 1 + test_rand() % (n - at);
                memmove(s + at + len, s + at, n - at + 1);
                n += len;
            }
            break;
        }
    }
}

static void test_fen_random_bytes(void)
{
    char buf[300], msg[200], out[FEN_BUFFER_SIZE];
    for (int i = 0; i < 100000; i++) {
        size_t n = test_rand() % 120;
        for (size_t k = 0; k < n; k++)
            buf[k] = (char)(1 + test_rand() % 255);
        buf[n] = 0;
        if (fen_read(&pos, buf, msg, sizeof msg) == FEN_OK)
            CHECK(fen_read(&pos, fen_write(&pos, out), NULL, 0) == FEN_OK);
    }
}

static void test_fen_mutations(void)
{
    static const char *seeds[] = {FEN_STARTPOS, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                                  "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3",
                                  "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"};
    char buf[600], msg[200], out[FEN_BUFFER_SIZE];
    int accepted = 0;
    for (int i = 0; i < 200000; i++) {
        snprintf(buf, sizeof buf, "%s", seeds[i % 4]);
        mutate(buf, sizeof buf);
        if (fen_read(&pos, buf, msg, sizeof msg) != FEN_OK)
            continue;
        accepted++;
        /* An accepted position is fully usable. */
        CHECK(fen_read(&pos, fen_write(&pos, out), NULL, 0) == FEN_OK);
        perft(&pos, 2);
        MoveList l;
        movegen_legal(&pos, &l, GEN_ALL);
        for (int k = 0; k < l.count; k++) {
            char san[SAN_STRING_SIZE];
            san_write(&pos, l.moves[k], san);
            CHECK_MSG(san_read(&pos, san) == l.moves[k], "%s: %s", out, san);
        }
    }
    CHECK(accepted > 1000);
}

static void test_move_text_random(void)
{
    CHECK_INT(fen_read(&pos, "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/1PPBBPPP/R3K2R w KQkq - 0 1", NULL, 0), FEN_OK);
    char buf[32];
    const char *alphabet = "abcdefgh12345678NBRQKOx=+#-0!?qnrb";
    for (int i = 0; i < 200000; i++) {
        size_t n = test_rand() % 10;
        for (size_t k = 0; k < n; k++)
            buf[k] = (i & 1) ? alphabet[test_rand() % strlen(alphabet)] : (char)(1 + test_rand() % 255);
        buf[n] = 0;
        Move m = san_read(&pos, buf);
        if (m)
            CHECK(movegen_is_legal(&pos, m));
        m = move_from_uci(&pos, buf);
        if (m)
            CHECK(movegen_is_legal(&pos, m));
    }
}

static void test_pgn_mutations(void)
{
    const char *seed = "[Event \"E\"]\n[White \"W\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n"
                       "{c} 1. O-O $1 (1. O-O-O {v} O-O) 1... O-O-O ; x\n2. Rf2 Rd2 3. Rxd2?! Rxd2 1-0\n\n"
                       "[Event \"F\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";
    char buf[2048];
    for (int i = 0; i < 20000; i++) {
        snprintf(buf, sizeof buf, "%s", seed);
        mutate(buf, sizeof buf);
        PgnReader *r = pgn_reader_open_string(buf);
        PgnGame g;
        char err[300];
        int guard = 0;
        PgnResult res;
        while ((res = pgn_read_game(r, &g, err, sizeof err)) != PGN_END && guard++ < 100) {
            if (res == PGN_GAME) {
                char *text = pgn_write(&g);
                free(text);
            }
            pgn_game_free(&g);
        }
        pgn_game_free(&g);
        pgn_reader_close(r);
        CHECK(guard < 100);
    }
}

void suite_fuzz(void)
{
    RUN(test_fen_random_bytes);
    RUN(test_fen_mutations);
    RUN(test_move_text_random);
    RUN(test_pgn_mutations);
}
