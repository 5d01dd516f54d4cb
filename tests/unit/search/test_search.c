/* The search lab's agreement, search determinism, mates, draws, threads and MultiPV. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../../../engine/eval/eval.h"
#include "../../../engine/search/timeman.h"
#include "../test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static Position pos;

/* What a root move is worth to the lab at depth: minimax after it, a mate one ply further off. */
static int lab_move_value(const Position *root, Move m, int depth, const Evaluator *e)
{
    Position *after = malloc(sizeof *after);
    if (!after)
        abort();
    position_copy(after, root);
    position_make_move(after, m);
    LabResult r;
    lab_run(LAB_MINIMAX, after, depth - 1, e, NULL, &r);
    free(after);
    int v = -r.value;
    return v > VALUE_MATE_IN_MAX_PLY ? v - 1 : v < -VALUE_MATE_IN_MAX_PLY ? v + 1 : v;
}

/* Every algorithm finds minimax's value and a move worth it (none where the root has no move); r
 * is to be read only when nothing failed. */
static void check_lab_agrees(const char *fen, int d, const Evaluator *e, LabResult r[LAB_ALGORITHM_NB])
{
    for (int a = 0; a < LAB_ALGORITHM_NB; a++) {
        lab_run((LabAlgorithm)a, &pos, d, e, NULL, &r[a]);
        CHECK_MSG(r[a].complete, "%s depth %d: %s incomplete", fen, d, LabAlgorithmNames[a]);
        CHECK_MSG(r[a].value == r[0].value, "%s depth %d: %s %d, minimax %d", fen, d, LabAlgorithmNames[a], r[a].value,
                  r[0].value);
        MoveList legal;
        if (movegen_legal(&pos, &legal, GEN_ALL) == 0)
            CHECK_MSG(r[a].best == MOVE_NONE, "%s depth %d: %s has a move where there is none", fen, d,
                      LabAlgorithmNames[a]);
        else {
            char u[MOVE_STRING_SIZE];
            int v = r[a].best ? lab_move_value(&pos, r[a].best, d, e) : -VALUE_INFINITE;
            CHECK_MSG(v == r[0].value, "%s depth %d: %s plays %s worth %d, not %d", fen, d, LabAlgorithmNames[a],
                      move_to_uci(r[a].best, u), v, r[0].value);
        }
    }
}

/* All six lab algorithms return the same value and a move worth it on 50 positions at depths 1-4
 * (1-3 under ASan; depth 5, where minimax alone takes minutes, is tests/bench/lab.py's); minimax evaluates the most leaves at every depth, and the one-pass algorithms
 * visit no more nodes than it; SSS* evaluates no leaf alpha-beta does not (Stockman's
 * theorem: same move order, memory enough). SSS* and MTD(f) make many passes, each revisiting the
 * interior nodes their memory cannot settle: in a small tree they can visit more nodes than minimax
 * (SSS* 483 against 389 at depth 2 in one of these positions), so only their leaves are bounded. */
static void test_lab_algorithms_agree(void)
{
    static char fens[60][128];
    int n = test_read_fens("openings.epd", fens, 20);
    n += test_read_fens("perft/random.epd", fens + n, 30);
    CHECK_INT(n, 50);
    Evaluator e;
    evaluator_classical(&e);
    int max_depth = SANITIZED ? 3 : 4;
    for (int i = 0; i < n; i++) {
        CHECK(fen_read(&pos, fens[i], NULL, 0) == FEN_OK);
        for (int d = 1; d <= max_depth; d++) {
            LabResult r[LAB_ALGORITHM_NB];
            check_lab_agrees(fens[i], d, &e, r);
            if (test_failed_flag)
                return;
            for (int a = 1; a < LAB_ALGORITHM_NB; a++) {
                CHECK_MSG(r[a].leaves <= r[0].leaves, "%s depth %d: %s evaluates %llu > minimax %llu", fens[i], d,
                          LabAlgorithmNames[a], (unsigned long long)r[a].leaves, (unsigned long long)r[0].leaves);
                CHECK_MSG(lab_makes_passes((LabAlgorithm)a) || r[a].nodes <= r[0].nodes,
                          "%s depth %d: %s visits %llu > minimax %llu", fens[i], d, LabAlgorithmNames[a],
                          (unsigned long long)r[a].nodes, (unsigned long long)r[0].nodes);
            }
            CHECK_MSG(r[LAB_SSS].leaves <= r[LAB_ALPHABETA].leaves, "%s depth %d: sss evaluates %llu > alphabeta %llu",
                      fens[i], d, (unsigned long long)r[LAB_SSS].leaves, (unsigned long long)r[LAB_ALPHABETA].leaves);
        }
    }
}

/* The same agreement where the tree ends early: mates and stalemates inside it, a single legal
 * move, a root mated or stalemated. (Trees this small can cost the others more than minimax: no
 * node counts here.) */
static void test_lab_algorithms_agree_at_the_edges(void)
{
    static const char *const fens[] = {
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",                                 /* mate in one, and mates later */
        "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", /* Qxf7# among 40 moves */
        "k7/8/1Q6/8/8/8/8/7K w - - 0 1",                                     /* a quiet king move stalemates */
        "k7/8/8/8/8/8/1q6/K7 w - - 0 1",                                     /* Kxb2, the only move */
        "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",                                 /* mated at the root */
        "k7/8/1Q6/8/8/8/8/7K b - - 0 1",                                     /* stalemated at the root */
    };
    Evaluator e;
    evaluator_classical(&e);
    for (size_t i = 0; i < sizeof fens / sizeof *fens; i++) {
        CHECK(fen_read(&pos, fens[i], NULL, 0) == FEN_OK);
        for (int d = 1; d <= (SANITIZED ? 3 : 4); d++) {
            LabResult r[LAB_ALGORITHM_NB];
            check_lab_agrees(fens[i], d, &e, r);
            if (test_failed_flag)
                return;
        }
    }
}

/* A stop already set ends every algorithm at its first check (node 4096), incomplete. */
static void test_lab_stops(void)
{
    atomic_bool stop = true;
    Evaluator e;
    evaluator_classical(&e);
    CHECK(fen_read(&pos, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", NULL, 0) == FEN_OK);
    for (int a = 0; a < LAB_ALGORITHM_NB; a++) {
        LabResult r;
        lab_run((LabAlgorithm)a, &pos, 6, &e, &stop, &r);
        CHECK_MSG(!r.complete && r.nodes < 4096 + 1000, "%s: complete %d after %llu nodes", LabAlgorithmNames[a],
                  r.complete, (unsigned long long)r.nodes);
    }
}

static SearchResult run(Search *s, const char *fen, int depth, uint64_t nodes)
{
    SearchResult r;
    memset(&r, 0, sizeof r);
    Evaluator e;
    evaluator_classical(&e);
    SearchLimits l;
    search_limits_init(&l);
    l.depth = depth;
    l.nodes = nodes;
    if (fen_read(&pos, fen, NULL, 0) != FEN_OK)
        return r;
    search_run(s, &pos, &l, &e, NULL, &r);
    return r;
}

static void test_search_deterministic(void)
{
    Search *s = search_new();
    CHECK(s);
    const char *fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    int depth = SANITIZED ? 6 : 10;
    search_clear(s);
    SearchResult a = run(s, fen, depth, 0);
    search_clear(s);
    SearchResult b = run(s, fen, depth, 0);
    CHECK(a.nodes > 1000);
    CHECK(a.nodes == b.nodes && a.best == b.best && a.score == b.score);
    /* A node limit stops at exactly that many nodes, every time. */
    search_clear(s);
    SearchResult c = run(s, FEN_STARTPOS, 0, 12345);
    search_clear(s);
    SearchResult d = run(s, FEN_STARTPOS, 0, 12345);
    CHECK_INT(c.nodes, 12345);
    CHECK(c.best == d.best && d.nodes == 12345);
    search_free(s);
}

static void test_search_finds_mates(void)
{
    static const struct {
        const char *fen;
        int mate;
        const char *move;
    } Cases[] = {
        {"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1, "d1d8"},
        {"r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, "h5f7"},
        {"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", 2, "g3g6"},
        {"r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3, NULL},
        {"8/8/8/8/8/5K2/4Q3/7k w - - 0 1", 1, "e2g2"},
        {"8/8/8/8/8/2K5/8/k1Q5 w - - 0 1", 0, NULL}, /* stalemate trap: Qb2?? not mate, Kb3 mates next */
    };
    static Search *s; /* kept between runs: a failed CHECK returns early */
    if (!s)
        s = search_new();
    CHECK(s);
    for (size_t i = 0; i < sizeof Cases / sizeof Cases[0]; i++) {
        search_clear(s);
        SearchResult r = run(s, Cases[i].fen, 12, 0);
        CHECK_MSG(search_mate_in(r.score) == Cases[i].mate, "%s: mate %d, want %d (score %d)", Cases[i].fen,
                  search_mate_in(r.score), Cases[i].mate, r.score);
        char u[MOVE_STRING_SIZE];
        if (Cases[i].move)
            CHECK_STR(move_to_uci(r.best, u), Cases[i].move);
    }
    /* From either view: the side to move mated in 2 or 4 plies, or (White's view) Black mating in 1 or 3. */
    CHECK(search_mate_in(-(VALUE_MATE - 2)) == -1 && search_mate_in(-(VALUE_MATE - 4)) == -2);
    CHECK(search_mate_in(-(VALUE_MATE - 1)) == -1 && search_mate_in(-(VALUE_MATE - 3)) == -2);
    /* Mated and stalemated roots: no move, and the score says why. */
    SearchResult r = run(s, "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", 5, 0);
    CHECK(r.best == MOVE_NONE && r.score == -VALUE_MATE);
    r = run(s, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 5, 0);
    CHECK(r.best == MOVE_NONE && r.score == VALUE_DRAW);
    search_free(s);
    s = NULL;
}

static void test_search_draws(void)
{
    Search *s = search_new();
    CHECK(s);
    /* Bare kings, and a fortress the rules call dead: 0. */
    SearchResult r = run(s, "8/8/4k3/8/8/3K4/8/8 w - - 0 1", 8, 0);
    CHECK_INT(r.score, 0);
    /* Perpetual check saves the side a queen down. */
    r = run(s, "6k1/5ppp/8/8/8/6Q1/q4PPP/6K1 b - - 0 1", SANITIZED ? 8 : 12, 0);
    CHECK_MSG(r.score > 400, "black is a queen up: %d", r.score);
    search_free(s);
}

static void test_search_threads_and_multipv(void)
{
    Search *s = search_new();
    CHECK(s);
    CHECK(search_set_threads(s, 3));
    Evaluator e;
    evaluator_classical(&e);
    SearchLimits l;
    search_limits_init(&l);
    l.depth = SANITIZED ? 6 : 9;
    l.multipv = 3;
    CHECK_INT(fen_read(&pos, FEN_STARTPOS, NULL, 0), FEN_OK);
    SearchResult r;
    search_run(s, &pos, &l, &e, NULL, &r);
    CHECK(movegen_is_legal(&pos, r.best));
    CHECK_INT(r.lines, 3);
    CHECK(r.line[0].score >= r.line[1].score && r.line[1].score >= r.line[2].score);
    CHECK(r.line[0].pv[0] != r.line[1].pv[0] && r.line[1].pv[0] != r.line[2].pv[0]);
    CHECK(r.line[0].pv[0] == r.best);
    /* searchmoves restricts the root. */
    l.multipv = 1;
    l.searchmoves_count = 1;
    l.searchmoves[0] = move_from_uci(&pos, "a2a3");
    search_run(s, &pos, &l, &e, NULL, &r);
    char u[MOVE_STRING_SIZE];
    CHECK_STR(move_to_uci(r.best, u), "a2a3");
    CHECK(search_set_threads(s, 1));
    search_free(s);
}

/* A search stopped by its node limit right after a fail high at the root has that move's line cut to
 * the move itself; every line it reports still shows a continuation (from the hash table) where the
 * position after the first move has one. Node limits from 2,000 to 60,000 stop at many such points. */
static void test_stopped_lines_have_continuations(void)
{
    Search *s = search_new();
    CHECK(s);
    Evaluator e;
    evaluator_classical(&e);
    const char *fens[] = {"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                          "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                          "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"};
    int short_lines = 0, lines = 0;
    for (int f = 0; f < 3; f++)
        for (uint64_t nodes = 2000; nodes <= (SANITIZED ? 20000u : 60000u); nodes += 1000) {
            SearchLimits l;
            search_limits_init(&l);
            l.nodes = nodes;
            l.multipv = 2;
            CHECK_INT(fen_read(&pos, fens[f], NULL, 0), FEN_OK);
            search_clear(s);
            SearchResult r;
            search_run(s, &pos, &l, &e, NULL, &r);
            for (int i = 0; i < r.lines; i++) {
                lines++;
                static Position after;
                position_copy(&after, &pos);
                position_make_move(&after, r.line[i].pv[0]);
                MoveList replies;
                if (r.line[i].pv_length < 2 && movegen_legal(&after, &replies, GEN_ALL) > 0)
                    short_lines++;
            }
        }
    CHECK_MSG(short_lines == 0, "%d of %d lines are their first move alone", short_lines, lines);
    search_free(s);
}

typedef struct {
    const char *fen;
    uint64_t nodes_limit;
    SearchResult result;
} ConcurrentJob;

static void *concurrent_search(void *arg)
{
    ConcurrentJob *j = arg;
    static __thread Position p;
    Search *s = search_new();
    Evaluator e;
    evaluator_classical(&e);
    SearchLimits l;
    search_limits_init(&l);
    l.nodes = j->nodes_limit;
    if (s && fen_read(&p, j->fen, NULL, 0) == FEN_OK)
        search_run(s, &p, &l, &e, NULL, &j->result);
    search_free(s);
    return NULL;
}

/* Two searches at once in one process, each with its own Search: each gives exactly the node
 * count and move it gives alone (no shared mutable state between them). */
static void test_concurrent_searches(void)
{
    ConcurrentJob jobs[2] = {{"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 40000, {0}},
                             {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 60000, {0}}};
    SearchResult alone[2];
    for (int i = 0; i < 2; i++) {
        concurrent_search(&jobs[i]);
        alone[i] = jobs[i].result;
    }
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, concurrent_search, &jobs[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        CHECK_INT(jobs[i].result.nodes, alone[i].nodes);
        CHECK(jobs[i].result.best == alone[i].best && jobs[i].result.score == alone[i].score);
    }
}

/* The clock's shares: the optimum and the hard maximum stay inside what is left at every stage of a
 * game and every clock; an iteration's scale is below neutral when the best move took nearly every
 * root node, above it when it took few or the score fell, and bounded whatever the scores (mates). */
static void test_time_management(void)
{
    static const int64_t Clocks[][2] = {{10000, 100}, {60000, 600}, {300000, 0}, {500, 10}, {40, 0}, {3, 0}};
    for (size_t c = 0; c < sizeof Clocks / sizeof Clocks[0]; c++)
        for (int ply = 0; ply < 300; ply += 7) {
            SearchLimits l;
            search_limits_init(&l);
            l.use_clock = true;
            l.time[BLACK] = Clocks[c][0];
            l.inc[BLACK] = Clocks[c][1];
            TimeManager tm;
            timeman_init(&tm, &l, BLACK, ply, 10, 0);
            CHECK_MSG(tm.optimum >= 1 && tm.optimum <= tm.maximum, "%lld ms + %lld, ply %d: optimum %lld, maximum %lld",
                      (long long)Clocks[c][0], (long long)Clocks[c][1], ply, (long long)tm.optimum,
                      (long long)tm.maximum);
            CHECK_MSG(tm.maximum <= (Clocks[c][0] > 20 ? Clocks[c][0] - 10 : 1), "%lld ms, ply %d: maximum %lld",
                      (long long)Clocks[c][0], ply, (long long)tm.maximum);
        }
    double neutral = timeman_scale(500, 1000, 0, 0);
    CHECK_MSG(neutral > 0.9 && neutral < 1.4, "half the nodes, a steady score: %.2f", neutral);
    CHECK(timeman_scale(980, 1000, 0, 0) < 1.0);
    CHECK(timeman_scale(200, 1000, 0, 0) > neutral);
    CHECK(timeman_scale(500, 1000, 0, -EVAL_PAWN) > neutral);
    CHECK(timeman_scale(500, 1000, 0, EVAL_PAWN) < neutral);
    double most = timeman_scale(0, 1000, VALUE_MATE, -VALUE_MATE),
           least = timeman_scale(1000, 1000, -VALUE_MATE, VALUE_MATE);
    CHECK_MSG(most <= 2.5 && least >= 0.5, "bounds %.2f .. %.2f", least, most);
    CHECK(timeman_scale(0, 0, 0, 0) == neutral); /* no node counted yet: neutral */
    /* The stop point: 0.6 optimum x instability x scale (neutral 0.81 of a 1,000 ms optimum here). */
    TimeManager tm = {.start = 0, .optimum = 1000, .maximum = 5000};
    CHECK(!timeman_iteration_done(&tm, 700, 0, 500, 1000, 0, 0) &&
          timeman_iteration_done(&tm, 900, 0, 500, 1000, 0, 0));
    CHECK(!timeman_iteration_done(&tm, 1500, 4, 500, 1000, 0, 0)); /* a changing best move: 2.5 x as long */
}

void suite_search(void)
{
    RUN(test_time_management);
    RUN(test_concurrent_searches);
    RUN(test_lab_algorithms_agree);
    RUN(test_lab_algorithms_agree_at_the_edges);
    RUN(test_lab_stops);
    RUN(test_search_deterministic);
    RUN(test_search_finds_mates);
    RUN(test_search_draws);
    RUN(test_search_threads_and_multipv);
    RUN(test_stopped_lines_have_continuations);
}
