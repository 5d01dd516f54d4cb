/* The learned evaluation's inference (engine/eval/nnue.h) on a random network: the incremental
 * accumulators equal the ones computed from the boards over random games and random trees (every
 * move kind, null moves, both sides to move), a position and its colour-flipped mirror score the
 * same, AVX2 and portable kernels agree, a file survives its round trip, and a corrupt, truncated or
 * foreign file is refused with its reason. */
#include <stdlib.h>
#include <string.h>

#include "../../../engine/core/movegen.h"
#include "../../../engine/core/random.h"
#include "../../../engine/eval/eval.h"
#include "../../../engine/eval/nnue.h"
#include "../../../engine/notation/fen.h"
#include "../test.h"

/* A network with random weights of realistic size, through its file format. */
static Network *random_net(int hidden, int buckets, int kings, uint64_t seed)
{
    enum { MAX_HIDDEN = 256 };
    if (hidden > MAX_HIDDEN)
        return NULL;
    Network n = {.hidden = hidden, .buckets = buckets, .kings = kings};
    static int16_t ftw[NNUE_KING_BUCKETS * NNUE_INPUTS * MAX_HIDDEN], ftb[MAX_HIDDEN], outw[NNUE_BUCKETS * 2 * MAX_HIDDEN];
    uint64_t rng = seed;
    for (int i = 0; i < NNUE_INPUTS * kings * hidden; i++)
        ftw[i] = (int16_t)((int)(splitmix64(&rng) % 161) - 80);
    for (int i = 0; i < hidden; i++)
        ftb[i] = (int16_t)((int)(splitmix64(&rng) % 201) - 50);
    for (int i = 0; i < 2 * hidden * buckets; i++)
        outw[i] = (int16_t)((int)(splitmix64(&rng) % 255) - 127);
    n.ft_weight = ftw, n.ft_bias = ftb, n.out_weight = outw;
    for (int k = 0; k < buckets; k++)
        n.out_bias[k] = 1234 + 1000 * k;
    for (int i = 0; i < NNUE_INPUTS; i++)
        n.psqt[i] = (int32_t)(splitmix64(&rng) % 40001) - 20000;
    size_t size;
    uint8_t *bytes = nnue_serialize(&n, &size);
    char err[200];
    Network *net = nnue_load_memory(bytes, size, err, sizeof err);
    if (!net)
        fprintf(stderr, "random_net: %s\n", err);
    free(bytes);
    return net;
}

/* Random positions: the start, and ones where promotions, en passant and castling come quickly. */
static const char *const Starts[] = {
    FEN_STARTPOS,
    "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PpPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1",
    "4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 1",
};

/* Over random walks the incremental accumulators (the AVX2 update unrolled for the widths 128 and 256)
 * give what a refresh from the boards gives; with king buckets, across kings' moves from one bucket
 * to another too. */
static void incremental_equals_scratch(int hidden, int kings)
{
    Network *net = random_net(hidden, 1, kings, 7);
    CHECK(net != NULL);
    static Position p;
    static NnueStack stack;
    uint64_t rng = 26;
    int checked = 0, kinds[4] = {0}, nulls = 0, crossings = 0;
    char err[64];
    for (int game = 0; game < 60; game++) {
        fen_read(&p, Starts[game % 4], err, sizeof err);
        stack.base = p.stack_len;
        memset(stack.acc, 0, sizeof stack.acc);
        /* A random walk that goes down and back up, as a search does. */
        int depth = 0;
        for (int step = 0; step < 400; step++) {
            int scratch = nnue_evaluate(net, &p, NULL), incremental = nnue_evaluate(net, &p, &stack);
            CHECK_MSG(scratch == incremental, "game %d step %d: %d from scratch, %d incrementally", game, step,
                      scratch, incremental);
            checked++;
            MoveList l;
            int n = movegen_legal(&p, &l, GEN_ALL);
            uint64_t r = splitmix64(&rng) % 10;
            if ((r < 3 && depth > 0) || n == 0 || depth >= 100) {
                if (depth == 0)
                    break;
                if (p.st->move == MOVE_NULL)
                    position_unmake_null(&p);
                else
                    position_unmake_move(&p);
                depth--;
            } else if (r == 3 && !in_check(&p)) {
                position_make_null(&p);
                depth++, nulls++;
            } else {
                Move m = l.moves[splitmix64(&rng) % (uint64_t)n];
                kinds[move_kind(m) == MOVE_NORMAL ? 0 : move_kind(m) == MOVE_PROMOTION ? 1 : move_kind(m) == MOVE_CASTLING ? 2 : 3]++;
                Piece moved = p.board[move_from(m)];
                crossings += piece_type(moved) == KING &&
                             nnue_king_bucket(NNUE_KING_BUCKETS, piece_color(moved), move_from(m)) !=
                                 nnue_king_bucket(NNUE_KING_BUCKETS, piece_color(moved), move_to(m));
                position_make_move(&p, m);
                depth++;
            }
        }
    }
    CHECK_MSG(checked > 10000 && kinds[0] && kinds[1] && kinds[2] && kinds[3] && nulls && crossings > 100,
              "%d wide, %d king buckets: %d checked, kinds %d %d %d %d, %d bucket crossings", hidden, kings, checked,
              kinds[0], kinds[1], kinds[2], kinds[3], crossings);
    nnue_free(net);
}

static void test_incremental_equals_scratch(void)
{
    incremental_equals_scratch(128, 1);
    incremental_equals_scratch(256, 1);
    incremental_equals_scratch(128, NNUE_KING_BUCKETS);
}

/* The colour-flipped mirror (ranks flipped, colours swapped, the other side to move) scores the
 * same, and the portable kernels give what AVX2 gives. */
static void mirror_and_kernels(int kings)
{
    Network *net = random_net(64, NNUE_BUCKETS, kings, 99);
    CHECK(net != NULL);
    static Position p, q;
    uint64_t rng = 3;
    char err[64], fen[FEN_BUFFER_SIZE], flipped[FEN_BUFFER_SIZE];
    int checked = 0;
    for (int game = 0; game < 20; game++) {
        fen_read(&p, Starts[game % 4], err, sizeof err);
        for (int ply = 0; ply < 80; ply++) {
            fen_write(&p, fen);
            /* Mirror the FEN: ranks reversed, case swapped, side swapped (castling and ep dropped). */
            char board[100], side;
            sscanf(fen, "%99s %c", board, &side);
            char *ranks[8], *save = NULL;
            int nr = 0;
            for (char *t = strtok_r(board, "/", &save); t && nr < 8; t = strtok_r(NULL, "/", &save))
                ranks[nr++] = t;
            size_t len = 0;
            for (int i = 7; i >= 0; i--) {
                for (char *c = ranks[i]; *c; c++)
                    flipped[len++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
                flipped[len++] = i ? '/' : ' ';
            }
            snprintf(flipped + len, sizeof flipped - len, "%c - - 0 1", side == 'w' ? 'b' : 'w');
            CHECK_MSG(fen_read(&q, flipped, err, sizeof err) == FEN_OK, "%s: %s", flipped, err);
            int a = nnue_evaluate(net, &p, NULL), b = nnue_evaluate(net, &q, NULL);
            CHECK_MSG(a == b, "%s: %d, its mirror %d", fen, a, b);
            nnue_allow_simd(false);
            int portable = nnue_evaluate(net, &p, NULL);
            nnue_allow_simd(true);
            CHECK_MSG(a == portable, "%s: %d with SIMD, %d portable", fen, a, portable);
            checked++;
            MoveList l;
            int n = movegen_legal(&p, &l, GEN_ALL);
            if (!n)
                break;
            position_make_move(&p, l.moves[splitmix64(&rng) % (uint64_t)n]);
        }
    }
    CHECK(checked > 500);
    nnue_free(net);
}

static void test_mirror_and_kernels(void)
{
    mirror_and_kernels(1);
    mirror_and_kernels(NNUE_KING_BUCKETS);
}

/* Every kind of bad file is refused with its reason; a good one reads back the same. */
static void test_bad_files_refused(void)
{
    char err[200];
    for (int shape = 0; shape < 4; shape++) {
        int buckets = shape & 1 ? NNUE_BUCKETS : 1, kings = shape & 2 ? NNUE_KING_BUCKETS : 1;
        Network *net = random_net(32, buckets, kings, 5);
        size_t size;
        uint8_t *bytes = net ? nnue_serialize(net, &size) : NULL;
        Network *back = bytes ? nnue_load_memory(bytes, size, err, sizeof err) : NULL;
        CHECK_MSG(back && back->hidden == 32 && back->buckets == buckets && back->kings == kings &&
                      back->checksum == net->checksum &&
                      !memcmp(back->ft_weight, net->ft_weight, 2 * NNUE_INPUTS * 32 * (size_t)kings) &&
                      !memcmp(back->out_weight, net->out_weight, 2 * 2 * 32 * (size_t)buckets) &&
                      !memcmp(back->out_bias, net->out_bias, sizeof net->out_bias) &&
                      !memcmp(back->psqt, net->psqt, sizeof net->psqt),
                  "%d buckets, %d king buckets: %s", buckets, kings, back ? "read back different" : err);
        CHECK(back && back->out_bias[buckets - 1] == 1234 + 1000 * (buckets - 1));
        nnue_free(back);
        nnue_free(net);
        free(bytes);
    }
    Network *net = random_net(32, 1, 1, 5);
    CHECK(net != NULL);
    size_t size;
    uint8_t *bytes = nnue_serialize(net, &size), *copy = malloc(size + 16);

    struct {
        size_t at, len; /* where a change is made (len: the size handed over) */
        int delta;
        const char *reason;
    } cases[] = {
        {0, 0, 1, "FFNN"},              /* magic */
        {4, 0, 1, "version"},           /* version 3 */
        {8, 0, 1, "hidden size"},       /* 33 */
        {12, 0, 4, "version"},          /* an unknown flag */
        {12, 0, 2, "truncated"},        /* king buckets, the file has one set of feature weights */
        {12, 0, 1, "truncated"},        /* eight buckets, the file has one's weights */
        {1000, 0, 1, "checksum"},       /* a weight */
        {0, 1000, 0, "truncated"},      /* short */
        {0, 10, 0, "FFNN"},             /* shorter than a header */
        {0, 3, 0, "FFNN"},              /* shorter than the magic */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(copy, bytes, size);
        copy[cases[i].at] = (uint8_t)(copy[cases[i].at] + cases[i].delta);
        size_t len = cases[i].len ? cases[i].len : size;
        Network *n = nnue_load_memory(copy, len, err, sizeof err);
        CHECK_MSG(!n && strstr(err, cases[i].reason), "case %zu: %s", i, n ? "accepted" : err);
        nnue_free(n);
    }
    memcpy(copy, bytes, size);
    memset(copy + size, 0, 16);
    Network *n = nnue_load_memory(copy, size + 16, err, sizeof err);
    CHECK_MSG(!n && strstr(err, "too long"), "%s", n ? "accepted" : err);
    CHECK(!nnue_load_file("/nonexistent/net.nnue", err, sizeof err) && strstr(err, "cannot open"));
    free(bytes);
    free(copy);
    nnue_free(net);
}

/* With a network, the classical evaluator is the network alone (in engine units), but 0 in the drawn endings of
 * eval_drawn_ending; an evaluator that re-weights groups or swaps parameters adds what that changes in the
 * hand-written evaluation (nothing in those endings). */
/* The change a re-weighting makes, as the whole hand-written evaluation's groups give it: the sum of
 * (weight - 1) x group, side to move's view. */
static int reweighting_from_terms(const Position *p, const Evaluator *e)
{
    Evaluator hand;
    EvalTerms t;
    evaluator_hand(&hand);
    evaluate_terms(p, &hand, &t);
    long change = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        change += (long)t.group[g] * (e->weight[g] - EVAL_WEIGHT_ONE);
    int white = (int)(change / EVAL_WEIGHT_ONE);
    return p->side == WHITE ? white : -white;
}

/* Classical is the net alone (0 in eval_drawn_ending's endings); a re-weighted evaluator adds what the weights change in the
 * hand-written evaluation. Only the affective groups re-weighted: those are computed alone, and must
 * give what the whole evaluation's groups give, also in the endings whose scale depends on who is
 * ahead (a side without pawns) and in opposite bishops; a group outside them: the whole pass. */
static void test_evaluators_over_the_net(void)
{
    static const char *const Fens[] = {
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQK2R b KQ - 0 8",
        "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",
        "8/8/4k3/8/8/3BK3/8/8 w - - 0 1",         /* a bishop, no pawns: drawn material */
        "8/8/4k3/8/1n6/3RK3/8/8 b - - 0 1",       /* rook against knight, no pawns */
        "8/5k2/8/3b4/8/2B5/2P1K3/8 w - - 0 1",    /* opposite bishops */
        "4k3/pp6/8/8/8/8/8/R3K3 w - - 0 1",       /* a rook against two pawns */
        "8/p7/1k6/8/8/6N1/6K1/8 b - - 0 1",       /* a knight against a pawn */
        "2r3k1/5pp1/7p/3q4/8/1Q4P1/5P1P/2R3K1 w - - 0 30",
    };
    Network *net = random_net(32, 1, 1, 11);
    CHECK(net != NULL);
    const Network *before = nnue_default();
    nnue_set_default(net);
    static Position p;
    char err[64];
    for (size_t i = 0; i < sizeof Fens / sizeof Fens[0]; i++) {
        CHECK_MSG(fen_read(&p, Fens[i], err, sizeof err) == FEN_OK, "%s: %s", Fens[i], err);
        Evaluator classical, hand, affective, other;
        evaluator_classical(&classical);
        evaluator_hand(&hand);
        CHECK(classical.net == net && hand.net == NULL && !classical.reweighted);
        int cp = nnue_evaluate(net, &p, NULL), units = cp * EVAL_PAWN / 100;
        bool drawn = eval_drawn_ending(&p, p.side == WHITE ? units : -units);
        int scaled = drawn ? 0 : units;
        int want = scaled > EVAL_MAX ? EVAL_MAX : scaled < -EVAL_MAX ? -EVAL_MAX : scaled;
        CHECK_INT(evaluate(&p, &classical), want);
        affective = classical;
        affective.weight[GROUP_MATERIAL] = EVAL_WEIGHT_ONE * 3 / 4;
        affective.weight[GROUP_MOBILITY] = 2 * EVAL_WEIGHT_ONE;
        affective.weight[GROUP_KING_SAFETY] = EVAL_WEIGHT_ONE / 2;
        affective.weight[GROUP_OPP_KING_EXPOSURE] = EVAL_WEIGHT_ONE * 3 / 2;
        evaluator_update_fingerprint(&affective);
        other = affective;
        other.weight[GROUP_PAWN_STRUCTURE] = EVAL_WEIGHT_ONE * 5 / 4;
        evaluator_update_fingerprint(&other);
        CHECK(affective.reweighted && other.reweighted);
        const Evaluator *each[] = {&affective, &other};
        for (int k = 0; k < 2; k++) {
            int expect = scaled + (drawn ? 0 : reweighting_from_terms(&p, each[k]));
            expect = expect > EVAL_MAX ? EVAL_MAX : expect < -EVAL_MAX ? -EVAL_MAX : expect;
            CHECK_MSG(evaluate(&p, each[k]) == expect, "%s (%s): %d, want %d", Fens[i], k ? "pawn structure too" : "affective groups",
                      evaluate(&p, each[k]), expect);
        }
    }
    nnue_set_default(before);
    nnue_free(net);
}

/* The endings the net misjudges: drawn (the net's score 0) where docs/nnue.md says so, the net's score kept
 * elsewhere, for the side ahead (white_v's sign). */
static void test_drawn_endings(void)
{
    static const struct {
        const char *fen;
        int white_v;
        bool drawn;
    } Cases[] = {
        {"8/8/8/3k4/8/8/2NN4/4K3 w - - 0 1", 500, true},      /* two knights against a bare king */
        {"8/8/8/3k4/3p4/8/2NN4/4K3 w - - 0 1", 500, false},   /* ... against a pawn: it can be won */
        {"8/8/8/3k4/8/8/2NB4/4K3 w - - 0 1", 500, false},     /* bishop and knight: a win */
        {"7k/8/8/8/7P/8/2B5/4K3 w - - 0 1", 500, true},       /* h-pawn, light bishop, king on h8 */
        {"8/5k2/8/8/7P/8/2B5/4K3 w - - 0 1", 500, false},     /* ... the king not yet there */
        {"6k1/8/8/8/7P/8/2B5/4K3 w - - 0 1", 500, true},      /* ... beside the corner */
        {"7k/8/8/8/7P/8/3B4/4K3 w - - 0 1", 500, false},      /* the bishop that covers h8 */
        {"4k3/3b4/8/p7/8/8/8/K7 b - - 0 1", -500, true},      /* Black: a-pawn, light bishop, a1 dark */
        {"4k3/2b5/8/p7/8/8/8/K7 b - - 0 1", -500, false},     /* ... the dark bishop covers a1 */
        {"7k/8/8/8/P6P/8/2B5/4K3 w - - 0 1", 500, false},     /* pawns on two files */
        {"8/8/4k3/8/8/3BK3/8/8 w - - 0 1", 500, true},        /* a lone bishop */
        {"8/8/4k3/8/1n6/3BK3/8/8 w - - 0 1", 300, true},      /* bishop against knight */
        {"8/8/4k3/8/1n6/3RK3/8/8 b - - 0 1", 300, false},     /* rook against knight: often drawn, not always */
        {"8/5k2/8/3b4/8/2B5/2P1K3/8 w - - 0 1", 300, false},  /* opposite-coloured bishops: the net's to judge */
        {"6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1", 900, false},
    };
    static Position p;
    char err[64];
    for (size_t i = 0; i < sizeof Cases / sizeof Cases[0]; i++) {
        CHECK_MSG(fen_read(&p, Cases[i].fen, err, sizeof err) == FEN_OK, "%s: %s", Cases[i].fen, err);
        bool drawn = eval_drawn_ending(&p, Cases[i].white_v);
        CHECK_MSG(drawn == Cases[i].drawn, "%s: drawn %d, want %d", Cases[i].fen, drawn, Cases[i].drawn);
    }
}

/* Eight output buckets: the weights and bias used are those of the bucket of the position's piece
 * count. A network whose buckets differ only in their bias (bucket k's 1.0 more than bucket 0's, one
 * output unit = NNUE_SCALE cp) scores each position k * NNUE_SCALE above the same network with one
 * bucket; the buckets run from 2-5 pieces to 30-32. */
static void test_output_buckets(void)
{
    CHECK_INT(nnue_bucket(2, NNUE_BUCKETS), 0);
    CHECK_INT(nnue_bucket(5, NNUE_BUCKETS), 0);
    CHECK_INT(nnue_bucket(6, NNUE_BUCKETS), 1);
    CHECK_INT(nnue_bucket(29, NNUE_BUCKETS), 6);
    CHECK_INT(nnue_bucket(30, NNUE_BUCKETS), 7);
    CHECK_INT(nnue_bucket(32, NNUE_BUCKETS), 7);
    CHECK_INT(nnue_bucket(32, 1), 0);
    Network *one = random_net(32, 1, 1, 21), eight = *one;
    CHECK(one != NULL);
    static int16_t outw[NNUE_BUCKETS * 64];
    eight.buckets = NNUE_BUCKETS;
    eight.out_weight = outw;
    for (int k = 0; k < NNUE_BUCKETS; k++) {
        memcpy(outw + 64 * k, one->out_weight, 64 * sizeof *outw);
        eight.out_bias[k] = one->out_bias[0] + k * NNUE_QA * NNUE_QB;
    }
    static Position p;
    char err[64];
    uint64_t rng = 5;
    int seen[NNUE_BUCKETS] = {0};
    for (int game = 0; game < 40; game++) {
        fen_read(&p, Starts[game % 4], err, sizeof err);
        for (int ply = 0; ply < 300; ply++) {
            int k = nnue_bucket(popcount(occupied(&p)), NNUE_BUCKETS);
            int a = nnue_evaluate(one, &p, NULL), b = nnue_evaluate(&eight, &p, NULL);
            CHECK_MSG(abs(b - a - k * NNUE_SCALE) <= 1, "%d pieces: %d with one bucket, %d with eight", popcount(occupied(&p)),
                      a, b);
            seen[k]++;
            MoveList l;
            int n = movegen_legal(&p, &l, GEN_ALL);
            if (!n)
                break;
            /* Captures first, so that the games reach the few-piece buckets. */
            Move m = l.moves[splitmix64(&rng) % (uint64_t)n];
            for (int i = 0; i < n; i++)
                if (p.board[move_to(l.moves[i])] != NO_PIECE) {
                    m = l.moves[i];
                    break;
                }
            position_make_move(&p, m);
        }
    }
    for (int k = 0; k < NNUE_BUCKETS; k++)
        CHECK_MSG(seen[k] > 0, "bucket %d never reached", k);
    nnue_free(one);
}

/* King buckets: each perspective uses the feature weights of its own king's bucket (its first rank
 * a-c, d-e, f-h, or further up). A network whose four sets are copies of a one-set network's scores
 * every position the same; one whose set 3 is another network's scores as that network when both
 * kings are off their first ranks, and as neither when exactly one is. */
static void test_king_buckets(void)
{
    CHECK_INT(nnue_king_bucket(NNUE_KING_BUCKETS, WHITE, C1), 0);
    CHECK_INT(nnue_king_bucket(NNUE_KING_BUCKETS, WHITE, E1), 1);
    CHECK_INT(nnue_king_bucket(NNUE_KING_BUCKETS, WHITE, G1), 2);
    CHECK_INT(nnue_king_bucket(NNUE_KING_BUCKETS, WHITE, G2), 3);
    CHECK_INT(nnue_king_bucket(NNUE_KING_BUCKETS, BLACK, E8), 1);
    CHECK_INT(nnue_king_bucket(NNUE_KING_BUCKETS, BLACK, B8), 0);
    CHECK_INT(nnue_king_bucket(NNUE_KING_BUCKETS, BLACK, E1), 3);
    CHECK_INT(nnue_king_bucket(1, WHITE, E4), 0);
    Network *one = random_net(32, 1, 1, 21), *other = random_net(32, 1, 1, 22);
    CHECK(one && other);
    Network four = *one, mixed = *one;
    static int16_t copies[NNUE_KING_BUCKETS * NNUE_INPUTS * 32], withother[NNUE_KING_BUCKETS * NNUE_INPUTS * 32];
    size_t set = NNUE_INPUTS * 32;
    for (int k = 0; k < NNUE_KING_BUCKETS; k++) {
        memcpy(copies + k * set, one->ft_weight, set * sizeof *copies);
        memcpy(withother + k * set, k == 3 ? other->ft_weight : one->ft_weight, set * sizeof *copies);
    }
    four.kings = mixed.kings = NNUE_KING_BUCKETS;
    four.ft_weight = copies;
    mixed.ft_weight = withother;
    memcpy(other->ft_bias, one->ft_bias, 32 * sizeof *one->ft_bias);
    memcpy(other->out_weight, one->out_weight, 64 * sizeof *one->out_weight);
    other->out_bias[0] = one->out_bias[0];
    memcpy(other->psqt, one->psqt, sizeof one->psqt);
    const char *fens[] = {"4k3/8/8/8/8/8/8/4K3 w - - 0 1", "8/4k3/8/8/8/8/4K3/8 w - - 0 1",
                          "8/4k3/8/8/8/8/8/4K3 w - - 0 1", "r1bq1rk1/ppp2ppp/2n2n2/3pp3/3PP3/2N2N2/PPP1QPPP/R1B1K2R w KQ - 0 1"};
    static Position p;
    char err[64];
    for (int i = 0; i < 4; i++) {
        CHECK(fen_read(&p, fens[i], err, sizeof err) == FEN_OK);
        int a = nnue_evaluate(one, &p, NULL), b = nnue_evaluate(&four, &p, NULL);
        int c = nnue_evaluate(&mixed, &p, NULL), d = nnue_evaluate(other, &p, NULL);
        CHECK_MSG(a == b, "%s: %d with one set, %d with four copies", fens[i], a, b);
        if (i == 1)
            CHECK_MSG(c == d, "%s: both kings up the board: %d, the other network %d", fens[i], c, d);
        else if (i == 2)
            CHECK_MSG(c != a && c != d, "%s: one king up: %d, like one (%d) or the other (%d)", fens[i], c, a, d);
        else
            CHECK_MSG(c == a, "%s: both kings at home: %d, the first network %d", fens[i], c, a);
    }
    nnue_free(one);
    nnue_free(other);
}

void suite_nnue(void)
{
    RUN(test_king_buckets);
    RUN(test_output_buckets);
    RUN(test_evaluators_over_the_net);
    RUN(test_drawn_endings);
    RUN(test_incremental_equals_scratch);
    RUN(test_mirror_and_kernels);
    RUN(test_bad_files_refused);
}
