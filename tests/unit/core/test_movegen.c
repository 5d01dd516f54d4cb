/* Move generation and make/unmake: perft counts, the noisy/quiet split, incremental state. */
#include <inttypes.h>
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../test.h"

static Position pos, copy;

/* Runs every ";Dn count" up to max_nodes of an EPD file; returns the positions checked. */
static int perft_file(const char *relative, uint64_t max_nodes)
{
    FILE *f = fopen(test_data_path(relative), "r");
    if (!f) {
        test_fail(__FILE__, __LINE__, "cannot open %s", relative);
        return 0;
    }
    char line[4096];
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        char *semi = strchr(line, ';');
        if (!semi)
            continue;
        *semi = 0;
        if (fen_read(&pos, line, NULL, 0) != FEN_OK) {
            test_fail(__FILE__, __LINE__, "bad FEN %s", line);
            break;
        }
        for (char *tok = strtok(semi + 1, ";"); tok; tok = strtok(NULL, ";")) {
            int depth;
            unsigned long long want;
            if (sscanf(tok, " D%d %llu", &depth, &want) != 2 || want > max_nodes)
                continue;
            uint64_t got = perft(&pos, depth);
            if (got != want) {
                test_fail(__FILE__, __LINE__, "%s depth %d: %" PRIu64 " != %llu", line, depth, got, want);
                fclose(f);
                return checked;
            }
        }
        checked++;
    }
    fclose(f);
    return checked;
}

static void test_perft_standard(void) { CHECK_INT(perft_file("perft/standard.epd", 500000), 7); }

static void test_perft_random(void) { CHECK_INT(perft_file("perft/random.epd", 100000), 120); }

static void test_perft_tricky(void)
{
    /* Classic traps: en passant exposing the king, castling through check, promotions with check. */
    static const struct {
        const char *fen;
        int depth;
        uint64_t nodes;
    } Cases[] = {
        {"3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1134888},
        {"8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1015133},
        {"8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1440467},
        {"5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661072},
        {"3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803711},
        {"r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4, 1274206},
        {"r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4, 1720476},
        {"2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, 3821001},
        {"8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 5, 1004658},
        {"4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, 217342},
        {"8/P1k5/K7/8/8/8/8/8 w - - 0 1", 6, 92683},
        {"K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2217},
        {"8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 7, 567584},
        {"8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4, 23527},
    };
    for (size_t i = 0; i < sizeof Cases / sizeof Cases[0]; i++) {
        CHECK_INT(fen_read(&pos, Cases[i].fen, NULL, 0), FEN_OK);
        uint64_t got = perft(&pos, Cases[i].depth);
        CHECK_MSG(got == Cases[i].nodes, "%s depth %d: %" PRIu64 " != %" PRIu64, Cases[i].fen, Cases[i].depth, got,
                  Cases[i].nodes);
    }
}

/* Compares the incrementally updated state with one computed from scratch. */
static bool state_matches_refresh(const Position *p)
{
    position_copy_root(&copy, p);
    position_refresh_state(&copy);
    return copy.st->key == p->st->key && copy.st->pawn_key == p->st->pawn_key && copy.st->psq == p->st->psq &&
           copy.st->material[WHITE] == p->st->material[WHITE] && copy.st->material[BLACK] == p->st->material[BLACK] &&
           copy.st->checkers == p->st->checkers;
}

/* Random games from every random.epd position: at each ply the noisy and quiet lists partition the
 * legal list, the count agrees, one move's test agrees with the list, the incremental state matches
 * a fresh one, and unmake restores. */
static void test_random_playouts(void)
{
    FILE *f = fopen(test_data_path("perft/random.epd"), "r");
    CHECK(f);
    char line[4096];
    int plies = 0;
    while (fgets(line, sizeof line, f)) {
        *strchr(line, ';') = 0;
        CHECK(fen_read(&pos, line, NULL, 0) == FEN_OK);
        Key root_key = pos.st->key;
        char root_fen[FEN_BUFFER_SIZE], fen[FEN_BUFFER_SIZE];
        fen_write(&pos, root_fen);
        int made = 0;
        for (int ply = 0; ply < 120; ply++) {
            MoveList all, noisy, quiet;
            movegen_legal(&pos, &all, GEN_ALL);
            movegen_legal(&pos, &noisy, GEN_NOISY);
            movegen_legal(&pos, &quiet, GEN_QUIET);
            CHECK_INT(noisy.count + quiet.count, all.count);
            CHECK_INT(movegen_count(&pos), all.count);
            for (int i = 0; i < noisy.count; i++) {
                Move m = noisy.moves[i];
                CHECK(movelist_contains(&all, m));
                CHECK(is_capture(&pos, m) || move_kind(m) == MOVE_PROMOTION);
            }
            for (int i = 0; i < quiet.count; i++) {
                Move m = quiet.moves[i];
                CHECK(movelist_contains(&all, m));
                CHECK(!is_capture(&pos, m) && move_kind(m) != MOVE_PROMOTION);
            }
            CHECK_MSG(state_matches_refresh(&pos), "state differs from refresh at %s", fen_write(&pos, fen));
            for (int i = 0; i < all.count; i++)
                CHECK_MSG(movegen_is_legal(&pos, all.moves[i]), "is_legal false for a legal move in %s",
                          fen_write(&pos, fen));
            for (int i = 0; i < 64; i++) { /* and as many values the list may or may not hold */
                Move v = (Move)(test_rand() & 0xffff);
                CHECK_MSG(movegen_is_legal(&pos, v) == movelist_contains(&all, v), "is_legal(value %u) wrong in %s", v,
                          fen_write(&pos, fen));
            }
            CheckInfo ci;
            position_check_info(&pos, &ci);
            for (int i = 0; i < all.count; i++) {
                bool predicted = position_gives_check(&pos, all.moves[i]);
                bool looked_up = position_gives_check_ci(&pos, &ci, all.moves[i]);
                position_make_move(&pos, all.moves[i]);
                bool real = in_check(&pos);
                position_unmake_move(&pos);
                char u[MOVE_STRING_SIZE];
                CHECK_MSG(predicted == real, "gives_check(%s) = %d in %s", move_to_uci(all.moves[i], u), predicted,
                          fen_write(&pos, fen));
                CHECK_MSG(looked_up == real, "gives_check_ci(%s) = %d in %s", move_to_uci(all.moves[i], u), looked_up,
                          fen_write(&pos, fen));
            }
            if (all.count == 0)
                break;
            position_make_move(&pos, all.moves[test_rand() % (unsigned)all.count]);
            made++;
            plies++;
        }
        while (made--)
            position_unmake_move(&pos);
        CHECK(pos.st->key == root_key);
        CHECK_STR(fen_write(&pos, fen), root_fen);
    }
    fclose(f);
    CHECK(plies > 5000);
}

static void test_null_move(void)
{
    CHECK_INT(fen_read(&pos, "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3", NULL, 0), FEN_OK);
    Key k = pos.st->key;
    position_make_null(&pos);
    CHECK(pos.side == BLACK);
    CHECK(pos.st->ep == NO_SQUARE);
    CHECK(state_matches_refresh(&pos));
    position_unmake_null(&pos);
    CHECK(pos.st->key == k);
    CHECK(pos.side == WHITE);
}

/* movegen_is_legal tests one move with the generator limited to its squares: for every 16-bit
 * value, in the standard positions and the random ones, it must say exactly whether the value is in
 * the legal list (promotions, en passant, castling through or out of check, pins included). */
static void test_is_legal_any_value(void)
{
    static const char *files[] = {"perft/standard.epd", "perft/random.epd"};
    int positions = 0;
    for (int fi = 0; fi < 2; fi++) {
        FILE *f = fopen(test_data_path(files[fi]), "r");
        CHECK(f);
        char line[4096], fen[FEN_BUFFER_SIZE];
        while (f && fgets(line, sizeof line, f)) {
            *strchr(line, ';') = 0;
            CHECK(fen_read(&pos, line, NULL, 0) == FEN_OK);
            MoveList all;
            movegen_legal(&pos, &all, GEN_ALL);
            int legal = 0;
            for (unsigned v = 0; v < 65536; v++) {
                bool said = movegen_is_legal(&pos, (Move)v);
                legal += said;
                if (said != movelist_contains(&all, (Move)v)) {
                    char u[MOVE_STRING_SIZE];
                    CHECK_MSG(false, "is_legal(%s, value %u) = %d in %s", move_to_uci((Move)v, u), v, said,
                              fen_write(&pos, fen));
                    break;
                }
            }
            CHECK_INT(legal, all.count);
            positions++;
        }
        if (f)
            fclose(f);
    }
    CHECK_INT(positions, 127);
    CHECK_INT(fen_read(&pos, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", NULL, 0), FEN_OK);
    MoveList all;
    CHECK_INT(movegen_legal(&pos, &all, GEN_ALL), 48);
}

void suite_movegen(void)
{
    RUN(test_perft_standard);
    RUN(test_perft_random);
    RUN(test_perft_tricky);
    RUN(test_random_playouts);
    RUN(test_null_move);
    RUN(test_is_legal_any_value);
}
