/* `feelfish bench [depth]`: fixed positions at a fixed depth, one thread, fixed hash, each searched
 * from an empty table (as after ucinewgame). The total node count is the search's signature: it
 * changes only when search behaviour changes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../eval/affective.h"
#include "../notation/fen.h"
#include "../search/search.h"
#include "tools.h"

#define BENCH_DEFAULT_DEPTH 12

static const char *const BenchPositions[] = {
    FEN_STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbqkb1r/ppp2ppp/4pn2/3p2B1/2PP4/2N5/PP2PPPP/R2QKBNR b KQkq - 3 4",
    "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/2PP4/2N1PN2/PP1QBPPP/R1B2RK1 w - - 2 8",
    "r2q1rk1/1b1nbppp/pp1ppn2/8/2PNP3/1PN3P1/PB3PBP/R2Q1RK1 w - - 2 12",
    "2rq1rk1/pp1bppbp/3p1np1/4n3/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 9 13",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BP3/1BN5/PPPQ1PPP/2KR3R w - - 4 12",
    "rnbqk1nr/p1pp1ppp/1p2p3/2b5/2P2P2/7N/PP1PP1PP/RNBQKB1R w KQkq - 0 4",
    "r1b1kbnr/pp1ppp1p/2n3p1/q1p3B1/3P4/1P6/P1PQPPPP/RN2KBNR w KQkq - 4 5",
    "rnbqkb1r/p1ppnppp/1p2p3/4N3/P1P2P2/8/1P1PP1PP/RNBQKB1R w KQkq - 0 6",
    "r2qkbnr/pppbpppp/n7/3p4/1P1P4/2P2N2/P3PPPP/RNBQKB1R b KQkq - 0 4",
    "1r2kbnr/1bp2p2/1p3q2/Pn1pp1pp/2P1PNP1/N7/P2PQP1P/R1B1KB1R w KQk - 3 14",
    "r1bk2nr/ppb5/6pp/1qpPp1P1/1nPP1pQ1/BP5N/3N1P1P/R4K1R b - - 4 24",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/5pk1/6p1/8/5P2/6P1/6K1/8 w - - 0 1",
    "8/8/8/3k4/8/3K4/3P4/8 w - - 0 1",
    "8/8/4k3/3r4/3P4/4K3/8/4R3 w - - 0 1",
    "6r1/pb3k2/P2B3p/1P3PpP/8/1P4n1/6N1/6K1 w - - 0 58",
    "7r/1n4k1/p2bQr2/B1p1P1p1/Pp4p1/8/6K1/1RR1N3 w - - 2 54",
    "r7/pR6/1bq1b3/2n1k3/2P2p2/N4P1n/1K6/7Q w - - 10 68",
    "8/2RQ4/p4p2/4k3/4P3/p1p4N/n4rP1/1R4K1 b - - 1 66",
    "2k5/1pp5/p2p4/3P1r2/1P3N2/P4PK1/8/4R3 b - - 0 40",
    "5rk1/pp3ppp/8/3q4/3P4/2Q5/PP3PPP/4R1K1 w - - 0 25",
    "4r1k1/1p3pp1/p1p4p/3n4/3P4/P1N2P2/1P4PP/4R1K1 w - - 0 28",
};
static const int BenchPositionCount = (int)(sizeof BenchPositions / sizeof BenchPositions[0]);

int bench_command(int argc, char **argv, FILE *out)
{
    int depth = BENCH_DEFAULT_DEPTH, threads = 1;
    bool have_depth = false, affective = false;
    for (int i = 0; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            affective = !strcmp(argv[++i], "affective");
            if (!affective && strcmp(argv[i], "classical")) {
                fprintf(stderr, "bench: --mode is classical or affective\n");
                return 2;
            }
            continue;
        }
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            long t = strtol(argv[++i], &end, 10);
            if (*end || t < 1 || t > MAX_THREADS) {
                fprintf(stderr, "bench: --threads must be a number from 1 to %d\n", MAX_THREADS);
                return 2;
            }
            threads = (int)t;
            continue;
        }
        long d = strtol(argv[i], &end, 10);
        if (have_depth || end == argv[i] || *end || d < 1 || d >= MAX_PLY) {
            fprintf(stderr,
                    "bench: depth must be a number from 1 to %d\n"
                    "usage: feelfish bench [depth] [--threads N] [--mode classical|affective]\n",
                    MAX_PLY - 1);
            return 2;
        }
        depth = (int)d;
        have_depth = true;
    }
    Search *s = search_new();
    Position *p = malloc(sizeof *p);
    if (!s || !p || !search_set_threads(s, threads)) {
        fprintf(stderr, "bench: out of memory\n");
        return 1;
    }
    Evaluator eval;
    evaluator_classical(&eval);
    SearchLimits limits;
    search_limits_init(&limits);
    limits.depth = depth;
    uint64_t nodes = 0;
    int64_t start = time_now_ms();
    for (int i = 0; i < BenchPositionCount; i++) {
        char msg[200];
        if (fen_read(p, BenchPositions[i], msg, sizeof msg) != FEN_OK) {
            fprintf(stderr, "bench: position %d: %s\n", i + 1, msg);
            return 1;
        }
        search_clear(s);
        if (affective) { /* each position's own emotion, as a search in that mode would have */
            Emotion e;
            affective_emotion(p, NULL, NULL, &e);
            affective_evaluator(&e, &eval);
        }
        SearchResult r;
        search_run(s, p, &limits, &eval, NULL, &r);
        nodes += r.nodes;
        fprintf(stderr, "position %2d/%d: %10" PRIu64 " nodes  %s\n", i + 1, BenchPositionCount, r.nodes,
                BenchPositions[i]);
    }
    int64_t ms = time_now_ms() - start;
    fprintf(out, "Total time (ms): %" PRId64 "\n", ms);
    fprintf(out, "Nodes searched: %" PRIu64 "\n", nodes);
    fprintf(out, "Nodes/second: %" PRIu64 "\n", ms > 0 ? nodes * 1000 / (uint64_t)ms : nodes);
    search_free(s);
    free(p);
    return 0;
}
