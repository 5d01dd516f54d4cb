/* The opponent-style classifier: features on hand-checked games, Naive Bayes counts and add-1
 * smoothing against hand-computed posteriors, the model file (round trip, malformed files), and
 * the classification of finished games and games in progress. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../engine/engine.h"
#include "../../../engine/adapt/style.h"
#include "../test.h"

/* A Sicilian with opposite castling and a pawn storm. After 15...Nc7 (ply 30): White Kc1 Qd2
 * Be3 Bf1 Ne2 Nb3 Rd1 Rh1, pawns a2 b2 c2 e4 f3 g5 h5; Black Kg8 Qa5 Be6 Be7 Nd7 Nc7 Ra8 Rf8,
 * pawns a6 b4 d6 e5 f7 g7 h7. */
static const char *const GameA = "[White \"Attacker, Anna\"]\n[Black \"Defender, Bo\"]\n\n"
                                 "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3 Be7 "
                                 "9. Qd2 O-O 10. O-O-O Nbd7 11. g4 b5 12. g5 b4 13. Ne2 Ne8 14. h4 Qa5 15. h5 Nc7 "
                                 "16. Kb1 *\n";

/* A Queen's Gambit Declined, both castled short, exactly 20 full moves. After 15...Qe4: White
 * Kg1 Qd1 Rc3 Rf1 Bc4, pawns a2 b2 e3 f4 g2 h2; Black Kg8 Qe4 Ra8 Rf8 Bc8, pawns a7 b7 c6 f7 g7
 * h7. After 20...Rd2: White Kg1 Qg3 Rc3 Rf1 Bb3, pawns a2 b2 e3 f4 g2 h4; Black Kg8 Qe4 Rd2 Rf8
 * Bg6, pawns a7 b7 c6 f7 g7 h6. */
static const char *const GameB =
    "[White \"Quiet, Q\"]\n[Black \"Solid, S\"]\n\n"
    "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 Nbd7 7. Rc1 c6 8. Bd3 dxc4 9. Bxc4 Nd5 "
    "10. Bxe7 Qxe7 11. O-O Nxc3 12. Rxc3 e5 13. dxe5 Nxe5 14. Nxe5 Qxe5 15. f4 Qe4 16. Bb3 Bf5 17. Qh5 Bg6 "
    "18. Qg5 h6 19. Qg3 Rad8 20. h4 Rd2 1/2-1/2\n";

/* A King's Indian reversed: 1. Nf3 g6, both castled short; after 9...exd4 Black has a pawn on d4
 * (past its fourth rank, but not next to the king on g1). */
static const char *const GameC = "[White \"Flank, F\"]\n[Black \"Hyper, H\"]\n\n"
                                 "1. Nf3 g6 2. g3 Bg7 3. Bg2 Nf6 4. O-O O-O 5. d3 d6 6. Nc3 Nc6 7. e4 e5 8. h3 Nd4 "
                                 "9. Nxd4 exd4 10. Ne2 c5 11. f4 Nd7 *\n";

static bool read_game(const char *text, PgnGame *g)
{
    PgnReader *r = pgn_reader_open_string(text);
    char err[300];
    PgnResult res = pgn_read_game(r, g, err, sizeof err);
    pgn_reader_close(r);
    if (res != PGN_GAME)
        printf("    %s\n", err);
    return res == PGN_GAME;
}

/* The samples of colour c (checkpoints only) of a PGN text; returns the count or -1. */
static int samples_of(const char *text, Color c, bool current, StyleFeatures *s, StyleFeatures *last)
{
    PgnGame g;
    int n = -1;
    if (read_game(text, &g)) {
        static Position start;
        Move moves[512];
        char msg[200];
        for (int i = 0; i < g.move_count; i++)
            moves[i] = g.moves[i].move;
        if (pgn_start_position(&g, &start, msg, sizeof msg))
            n = style_game_samples(&start, moves, g.move_count, c, current, s, last);
    }
    pgn_game_free(&g);
    return n;
}

#define CHECK_FEATURES(f, first, castling, npieces, npawns)                                                            \
    do {                                                                                                               \
        CHECK_INT((f).value[STYLE_F_FIRST_MOVE], first);                                                               \
        CHECK_INT((f).value[STYLE_F_CASTLING], castling);                                                              \
        CHECK_INT((f).pieces, npieces);                                                                                \
        CHECK_INT((f).value[STYLE_F_PIECES], (npieces) < 3 ? (npieces) : 3);                                           \
        CHECK_INT((f).pawns, npawns);                                                                                  \
        CHECK_INT((f).value[STYLE_F_PAWNS], (npawns) < 3 ? (npawns) : 3);                                              \
    } while (0)

static void test_features_opposite_castling(void)
{
    StyleFeatures s[3], last;
    /* The game ends at ply 31: only the sample after move 15. */
    CHECK_INT(samples_of(GameA, WHITE, false, s, &last), 1);
    CHECK_INT(s[0].ply, 30);
    CHECK_INT(s[0].fullmove, 15);
    CHECK_INT(s[0].color, WHITE);
    /* White: no piece beyond rank 3 (Be3, Nb3 on it), pawns g5 h5 by the king on g8. */
    CHECK_FEATURES(s[0], STYLE_FIRST_E4, STYLE_CASTLED_OPPOSITE, 0, 2);
    CHECK_INT(last.ply, 31);
    CHECK_INT(samples_of(GameA, BLACK, false, s, &last), 1);
    /* Black: Qa5 beyond its rank 6; b4 by the king on c1 (a6 on the a-file, e5 not past rank 5). */
    CHECK_FEATURES(s[0], STYLE_FIRST_C5, STYLE_CASTLED_OPPOSITE, 1, 1);
    /* With the current position: the final one is added (ply 31, after White's 16th move). */
    CHECK_INT(samples_of(GameA, BLACK, true, s, &last), 2);
    CHECK_INT(s[1].ply, 31);
    CHECK_FEATURES(s[1], STYLE_FIRST_C5, STYLE_CASTLED_OPPOSITE, 1, 1);
}

static void test_features_same_side(void)
{
    StyleFeatures s[3], last;
    CHECK_INT(samples_of(GameB, WHITE, false, s, &last), 2);
    CHECK_INT(s[0].ply, 30);
    CHECK_INT(s[1].ply, 40);
    /* White after 15: Bc4 on rank 4; f4 is on rank 4, not past it. After 20: nothing beyond rank 3
     * (Bb3, Rc3, Qg3) and h4 is not past rank 4. */
    CHECK_FEATURES(s[0], STYLE_FIRST_D4, STYLE_CASTLED_SAME, 1, 0);
    CHECK_FEATURES(s[1], STYLE_FIRST_D4, STYLE_CASTLED_SAME, 0, 0);
    CHECK_INT(samples_of(GameB, BLACK, false, s, &last), 2);
    /* Black after 15: Qe4; after 20: Qe4 and Rd2 (Bg6 is on its third rank). */
    CHECK_FEATURES(s[0], STYLE_FIRST_D5, STYLE_CASTLED_SAME, 1, 0);
    CHECK_FEATURES(s[1], STYLE_FIRST_D5, STYLE_CASTLED_SAME, 2, 0);
    /* The last sample is the final position itself: `current` adds nothing. */
    CHECK_INT(samples_of(GameB, BLACK, true, s, &last), 2);
}

static void test_features_first_moves_and_files(void)
{
    StyleFeatures s[3], last;
    CHECK_INT(samples_of(GameC, WHITE, false, s, &last), 0); /* ends at ply 22 */
    CHECK_INT(last.ply, 22);
    CHECK_FEATURES(last, STYLE_FIRST_NF3, STYLE_CASTLED_SAME, 0, 0);
    CHECK_INT(samples_of(GameC, BLACK, false, s, &last), 0);
    /* 1...g6 is "other"; the d4 pawn is past Black's fourth rank but on the d-file (king on g1). */
    CHECK_FEATURES(last, STYLE_FIRST_BLACK_OTHER, STYLE_CASTLED_SAME, 0, 0);
    CHECK_STR(style_value_name(STYLE_F_FIRST_MOVE, last.value[STYLE_F_FIRST_MOVE]), "other(black)");
    CHECK_STR(style_value_name(STYLE_F_PIECES, 3), "3+");
    CHECK_STR(style_value_name(STYLE_F_CASTLING, STYLE_CASTLED_NOT_BOTH), "not_both");
}

/* Features at the end of moves (UCI) from a FEN, for colour c. */
static bool features_after(const char *fen, const char *uci, Color c, StyleFeatures *f)
{
    static Position start, p;
    if (fen_read(&start, fen, NULL, 0) != FEN_OK)
        return false;
    position_copy_root(&p, &start);
    Move moves[64];
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", uci);
    for (char *save, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        Move m = move_from_uci(&p, t);
        if (m == MOVE_NONE)
            return false;
        moves[n++] = m;
        position_make_move(&p, m);
    }
    StyleFeatures s[3];
    return style_game_samples(&start, moves, n, c, true, s, f) >= 1;
}

static void test_features_castling_by_moves(void)
{
    const char *rooks = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    StyleFeatures f;
    CHECK(features_after(rooks, "e1g1 e8c8", WHITE, &f));
    CHECK_INT(f.value[STYLE_F_CASTLING], STYLE_CASTLED_OPPOSITE);
    CHECK(features_after(rooks, "e1c1 e8c8", BLACK, &f));
    CHECK_INT(f.value[STYLE_F_CASTLING], STYLE_CASTLED_SAME);
    CHECK(features_after(rooks, "e1g1 e8g8", BLACK, &f));
    CHECK_INT(f.value[STYLE_F_CASTLING], STYLE_CASTLED_SAME);
    CHECK(features_after(rooks, "e1g1", WHITE, &f));
    CHECK_INT(f.value[STYLE_F_CASTLING], STYLE_CASTLED_NOT_BOTH);
    /* A king walked to g1 has not castled. */
    CHECK(features_after(rooks, "e1f1 e8g8 f1g1", WHITE, &f));
    CHECK_INT(f.value[STYLE_F_CASTLING], STYLE_CASTLED_NOT_BOTH);
    /* A start position with kings already "castled" counts only castling moves played after it. */
    CHECK(features_after("r4rk1/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 0 1", "a2a3", WHITE, &f));
    CHECK_INT(f.value[STYLE_F_CASTLING], STYLE_CASTLED_NOT_BOTH);
    /* First moves are read by piece and square from any start: Black's first here is e5. */
    CHECK(features_after("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1", "e7e5 d2d4", BLACK, &f));
    CHECK_INT(f.value[STYLE_F_FIRST_MOVE], STYLE_FIRST_E5);
    CHECK(features_after("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1", "e7e5 d2d4", WHITE, &f));
    CHECK_INT(f.value[STYLE_F_FIRST_MOVE], STYLE_FIRST_D4);
    /* Before its first move a side is "other". */
    CHECK(features_after(FEN_STARTPOS, "g1f3", BLACK, &f));
    CHECK_INT(f.value[STYLE_F_FIRST_MOVE], STYLE_FIRST_BLACK_OTHER);
    CHECK_INT(f.value[STYLE_F_CASTLING], STYLE_CASTLED_NOT_BOTH);
}

static void test_features_pawns_follow_the_king(void)
{
    /* White pawns d5 and b5; the black king's files are counted where it stands now. */
    const char *fen = "4k3/8/8/1P1P4/8/8/8/4K3 w - - 0 1";
    StyleFeatures f;
    CHECK(features_after(fen, "e1e2", WHITE, &f)); /* king e8: files d e f */
    CHECK_INT(f.pawns, 1);
    CHECK(features_after(fen, "e1e2 e8f7", WHITE, &f)); /* king f7: files e f g */
    CHECK_INT(f.pawns, 0);
    CHECK(features_after(fen, "e1e2 e8d8 e2e3 d8c7", WHITE, &f)); /* king c7: files b c d */
    CHECK_INT(f.pawns, 2);
    /* Pieces: rank 4 is beyond White's third rank; Black's knight on rank 5 is beyond its third. */
    CHECK(features_after("4k3/8/8/8/2n5/3N4/8/4KQ2 w - - 0 1", "f1f4", WHITE, &f));
    CHECK_INT(f.pieces, 1); /* Qf4; Nd3 is on rank 3; the king never counts */
    CHECK(features_after("4k3/8/8/8/2n5/3N4/8/4KQ2 w - - 0 1", "f1f4", BLACK, &f));
    CHECK_INT(f.pieces, 1);
    /* 3+ caps the value, not the count. */
    CHECK(features_after("3k4/8/8/8/8/8/8/RNB1KBNR w - - 0 1",
                         "b1c3 d8e8 c3d5 e8d8 g1f3 d8e8 f3e5 e8d8 f1c4 d8e8 c4b5 e8d8 a1a5", WHITE, &f));
    CHECK_INT(f.pieces, 4);
    CHECK_INT(f.value[STYLE_F_PIECES], 3);
}

/* A hand-made training set: attacking {e4 opposite 2 1} and {e4 same 3 0}, positional
 * {d4 same 0 0}, mixed nothing. */
static void hand_model(StyleModel *m)
{
    StyleFeatures a1 = {.value = {STYLE_FIRST_E4, STYLE_CASTLED_OPPOSITE, 2, 1}};
    StyleFeatures a2 = {.value = {STYLE_FIRST_E4, STYLE_CASTLED_SAME, 3, 0}};
    StyleFeatures p1 = {.value = {STYLE_FIRST_D4, STYLE_CASTLED_SAME, 0, 0}};
    style_model_init(m);
    style_model_add(m, STYLE_ATTACKING, &a1);
    style_model_add(m, STYLE_ATTACKING, &a2);
    style_model_add(m, STYLE_POSITIONAL, &p1);
}

#define CHECK_NEAR(a, b) CHECK_MSG(fabs((a) - (b)) < 1e-9, "%s = %.12f, want %.12f", #a, (double)(a), (double)(b))

static void test_counts_and_smoothing(void)
{
    StyleModel m;
    hand_model(&m);
    CHECK_INT(m.prior[STYLE_ATTACKING], 2);
    CHECK_INT(m.count[STYLE_F_FIRST_MOVE][STYLE_ATTACKING][STYLE_FIRST_E4], 2);
    CHECK_INT(m.count[STYLE_F_PIECES][STYLE_ATTACKING][3], 1);
    /* Priors (n_c + 1) / (3 + 3). */
    CHECK_NEAR(style_model_prior(&m, STYLE_ATTACKING), 3.0 / 6);
    CHECK_NEAR(style_model_prior(&m, STYLE_POSITIONAL), 2.0 / 6);
    CHECK_NEAR(style_model_prior(&m, STYLE_MIXED), 1.0 / 6);
    /* Likelihoods (n_cv + 1) / (n_c + K): K = 12, 3, 4, 4. */
    CHECK_NEAR(style_model_likelihood(&m, STYLE_F_FIRST_MOVE, STYLE_ATTACKING, STYLE_FIRST_E4), 3.0 / 14);
    CHECK_NEAR(style_model_likelihood(&m, STYLE_F_FIRST_MOVE, STYLE_POSITIONAL, STYLE_FIRST_E4), 1.0 / 13);
    CHECK_NEAR(style_model_likelihood(&m, STYLE_F_CASTLING, STYLE_MIXED, STYLE_CASTLED_SAME), 1.0 / 3);
    CHECK_NEAR(style_model_likelihood(&m, STYLE_F_PAWNS, STYLE_POSITIONAL, 0), 2.0 / 5);

    /* The first move is counted but does not decide (StyleFeatureDecides): only castling, pieces
     * and pawns are multiplied in. q1 = {e4 same 0 0}:
     *   attacking  1/2 * 2/5 * 1/6 * 2/6 = 1/90
     *   positional 1/3 * 2/4 * 2/5 * 2/5 = 2/75
     *   mixed      1/6 * 1/3 * 1/4 * 1/4 = 1/288 */
    CHECK(!StyleFeatureDecides[STYLE_F_FIRST_MOVE] && StyleFeatureDecides[STYLE_F_CASTLING]);
    StyleFeatures q[2] = {{.value = {STYLE_FIRST_E4, STYLE_CASTLED_SAME, 0, 0}},
                          {.value = {STYLE_FIRST_D4, STYLE_CASTLED_OPPOSITE, 2, 1}}};
    double post[STYLE_NB];
    double a = 1.0 / 90, p = 2.0 / 75, x = 1.0 / 288;
    CHECK_INT(style_model_classify(&m, q, 1, post), STYLE_POSITIONAL);
    CHECK_NEAR(post[STYLE_ATTACKING], a / (a + p + x));
    CHECK_NEAR(post[STYLE_POSITIONAL], p / (a + p + x));
    CHECK_NEAR(post[STYLE_MIXED], x / (a + p + x));
    /* Another first move changes nothing. */
    StyleFeatures q1d4 = q[0];
    q1d4.value[STYLE_F_FIRST_MOVE] = STYLE_FIRST_D4;
    double again[STYLE_NB];
    style_model_classify(&m, &q1d4, 1, again);
    CHECK_NEAR(again[STYLE_POSITIONAL], post[STYLE_POSITIONAL]);
    /* q2 = {d4 opposite 2 1} alone: attacking 1/2 * 2/5 * 2/6 * 2/6 = 1/45, positional
     * 1/3 * 1/4 * 1/5 * 1/5 = 1/300, mixed 1/288. Both samples together multiply the
     * likelihoods, the prior counted once: attacking 1/2 * (1/45) * (2/45) = 1/2025, positional
     * 1/3 * (2/25) * (1/100) = 1/3750, mixed 1/6 * (1/48)^2 = 1/13824. */
    a = 1.0 / 45, p = 1.0 / 300;
    CHECK_INT(style_model_classify(&m, q + 1, 1, post), STYLE_ATTACKING);
    CHECK_NEAR(post[STYLE_POSITIONAL], p / (a + p + x));
    a = 1.0 / 2025, p = 1.0 / 3750, x = 1.0 / 13824;
    CHECK_INT(style_model_classify(&m, q, 2, post), STYLE_ATTACKING);
    CHECK_NEAR(post[STYLE_ATTACKING], a / (a + p + x));
    CHECK_NEAR(post[STYLE_POSITIONAL], p / (a + p + x));
    CHECK_NEAR(post[STYLE_MIXED], x / (a + p + x));
    /* No sample: the smoothed prior. */
    CHECK_INT(style_model_classify(&m, q, 0, post), STYLE_ATTACKING);
    CHECK_NEAR(post[STYLE_MIXED], 1.0 / 6);
    /* An empty model is uniform. */
    StyleModel empty;
    style_model_init(&empty);
    style_model_classify(&empty, q, 2, post);
    CHECK_NEAR(post[STYLE_ATTACKING], 1.0 / 3);
    CHECK_NEAR(post[STYLE_MIXED], 1.0 / 3);
    /* A given prior replaces the model's: uniform against q1 gives 1/45 : 2/25 : 1/48. */
    const double uniform[STYLE_NB] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    a = 1.0 / 45, p = 2.0 / 25, x = 1.0 / 48;
    CHECK_INT(style_model_classify_with_prior(&m, uniform, q, 1, post), STYLE_POSITIONAL);
    CHECK_NEAR(post[STYLE_POSITIONAL], p / (a + p + x));
}

static void test_model_round_trip(void)
{
    StyleModel m, back;
    hand_model(&m);
    m.count[STYLE_F_PAWNS][STYLE_MIXED][3] = 4000000000u; /* the largest counts survive */
    m.prior[STYLE_MIXED] = 4000000000u;
    for (int f = 0; f < STYLE_FEATURE_NB - 1; f++)
        m.count[f][STYLE_MIXED][1] = 4000000000u;
    char *text = style_model_format(&m);
    CHECK(text && !strncmp(text, "feelfish-style-model 1\n", 23));
    char err[300];
    memset(&back, 0xAB, sizeof back);
    bool ok = style_model_parse(&back, text, err, sizeof err);
    if (!ok)
        printf("    %s\n", err);
    CHECK(ok);
    CHECK(!memcmp(&m, &back, sizeof m));
    char *again = style_model_format(&back);
    CHECK_STR(again, text);
    free(again);
    /* Through a file. */
    char path[] = "/tmp/feelfish-style-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(style_model_save(&m, path, err, sizeof err));
    CHECK(style_model_load(&back, path, err, sizeof err));
    CHECK(!memcmp(&m, &back, sizeof m));
    remove(path);
    free(text);
}

static void test_model_malformed(void)
{
    StyleModel m;
    hand_model(&m);
    char *good = style_model_format(&m);
    static const struct {
        const char *find, *replace, *message;
    } Cases[] = {
        {"feelfish-style-model 1", "feelfish-style-model 2", "line 1: unsupported model version '2'"},
        {"feelfish-style-model 1", "{\"json\": 1}", "line 1: not a style model"},
        {"prior attacking: 2", "prior attacking: x", "line 5: 'x' is not a count"},
        {"prior attacking: 2", "prior attacking: -2", "line 5: '-2' is not a count"},
        {"prior attacking: 2", "prior attacking: 99999999999", "line 5: '99999999999' is not a count"},
        {"prior attacking: 2", "prior attacking: 3", "counts of class attacking add up to 2, the prior says 3"},
        {"prior attacking: 2", "prior attack: 2", "line 5: expected 'attacking:', found 'attack:'"},
        {"castling attacking:", "castling attacking: 0", "expected 12 fields"},
        {"pawns attacking:", "knights attacking:", "unknown table 'knights'"},
        {"pawns attacking:", "pieces attacking:", "table 'pieces' appears twice"},
    };
    char err[300];
    for (size_t i = 0; i < sizeof Cases / sizeof Cases[0]; i++) {
        char text[4096];
        const char *at = strstr(good, Cases[i].find);
        CHECK_MSG(at, "case %zu: '%s' not in the model text", i, Cases[i].find);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, Cases[i].replace, at + strlen(Cases[i].find));
        StyleModel before = m;
        CHECK_MSG(!style_model_parse(&m, text, err, sizeof err), "case %zu parsed", i);
        CHECK_MSG(strstr(err, Cases[i].message), "case %zu: '%s' lacks '%s'", i, err, Cases[i].message);
        CHECK(!memcmp(&before, &m, sizeof m)); /* left unchanged */
    }
    /* A missing table, an empty text, a missing file. */
    char text[4096];
    snprintf(text, sizeof text, "%s", good);
    *strstr(text, "pawns attacking:") = 0;
    CHECK(!style_model_parse(&m, text, err, sizeof err));
    CHECK_STR(err, "style model: table 'pawns' is missing");
    CHECK(!style_model_parse(&m, "", err, sizeof err));
    CHECK(strstr(err, "empty"));
    CHECK(!style_model_load(&m, "/nonexistent/style.model", err, sizeof err));
    CHECK(strstr(err, "cannot open style model /nonexistent/style.model"));
    free(good);
}

static void test_decision_prior(void)
{
    StyleModel m, back;
    hand_model(&m);
    m.decision[STYLE_ATTACKING] = 20, m.decision[STYLE_POSITIONAL] = 10, m.decision[STYLE_MIXED] = 10;
    /* It replaces the sample shares as P(class). */
    CHECK_NEAR(style_model_prior(&m, STYLE_ATTACKING), 0.5);
    CHECK_NEAR(style_model_prior(&m, STYLE_MIXED), 0.25);
    double post[STYLE_NB];
    CHECK_INT(style_model_classify(&m, NULL, 0, post), STYLE_ATTACKING);
    CHECK_NEAR(post[STYLE_POSITIONAL], 0.25);
    /* Saved and read back; the line is absent when there is none. */
    char *text = style_model_format(&m), err[300];
    CHECK(strstr(text, "\ndecision_prior attacking: 20 positional: 10 mixed: 10\n"));
    CHECK(style_model_parse(&back, text, err, sizeof err));
    CHECK(!memcmp(&m, &back, sizeof m));
    static const struct {
        const char *replace, *message;
    } Bad[] = {
        {"decision_prior attacking: 21 positional: 10 mixed: 10", "must be 40 parts, none of them 0"},
        {"decision_prior attacking: 30 positional: 10 mixed: 0", "must be 40 parts, none of them 0"},
        {"decision_prior attacking: 20 positional: 10", "expected 6 fields"},
    };
    for (size_t i = 0; i < sizeof Bad / sizeof Bad[0]; i++) {
        char bad[4096];
        const char *at = strstr(text, "decision_prior");
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - text), text, Bad[i].replace, strchr(at, '\n'));
        CHECK_MSG(!style_model_parse(&back, bad, err, sizeof err), "case %zu parsed", i);
        CHECK_MSG(strstr(err, Bad[i].message), "case %zu: '%s' lacks '%s'", i, err, Bad[i].message);
    }
    free(text);
    hand_model(&m);
    text = style_model_format(&m);
    CHECK(!strstr(text, "decision_prior"));
    free(text);
}

static void test_committed_model(void)
{
    StyleModel m;
    char err[300];
    bool ok = style_model_load(&m, "engine/style.model", err, sizeof err);
    CHECK_MSG(ok, "%s", err);
    CHECK(m.prior[STYLE_ATTACKING] > 3000 && m.prior[STYLE_POSITIONAL] > 5000 && m.prior[STYLE_MIXED] > 4000);
    /* style-train fitted a decision prior: it weighs attacking above its share of the samples. */
    CHECK_INT(m.decision[0] + m.decision[1] + m.decision[2], STYLE_DECISION_UNITS);
    double share = m.prior[STYLE_ATTACKING] / (double)(m.prior[0] + m.prior[1] + m.prior[2]);
    CHECK(m.decision[STYLE_ATTACKING] / (double)STYLE_DECISION_UNITS > share);
    /* Karpov's Caro-Kann and Queen's Gambit answers make a quiet Black game positional. */
    StyleFeatures q = {.value = {STYLE_FIRST_C6, STYLE_CASTLED_SAME, 0, 0}};
    double post[STYLE_NB];
    CHECK_INT(style_model_classify(&m, &q, 1, post), STYLE_POSITIONAL);
}

static void test_classify_pgn_and_moves(void)
{
    StyleModel m;
    hand_model(&m);
    StyleResult r;
    char err[300];
    CHECK(style_classify_pgn(&m, GameA, WHITE, &r, err, sizeof err));
    CHECK(r.ready);
    CHECK_INT(r.samples, 1);
    CHECK_FEATURES(r.features, STYLE_FIRST_E4, STYLE_CASTLED_OPPOSITE, 0, 2);
    double post[STYLE_NB];
    CHECK_INT(style_model_classify(&m, &r.features, 1, post), r.style);
    CHECK_NEAR(post[STYLE_ATTACKING], r.posterior[STYLE_ATTACKING]);
    /* A finished game that ended before move 15: its final position, once the player made 10 moves. */
    CHECK(style_classify_pgn(&m, GameC, BLACK, &r, err, sizeof err));
    CHECK(r.ready);
    CHECK_INT(r.samples, 1);
    CHECK_INT(r.features.ply, 22);
    CHECK(style_classify_pgn(&m, "1. e4 e5 2. Nf3 Nc6 *", WHITE, &r, err, sizeof err));
    CHECK(!r.ready);
    CHECK_INT(r.samples, 0);
    CHECK_NEAR(r.posterior[STYLE_ATTACKING], 0.5); /* the prior */
    CHECK(!style_classify_pgn(&m, "1. e4 e5 2. Ke3 *", WHITE, &r, err, sizeof err));
    CHECK(strstr(err, "bad PGN"));
    CHECK(!style_classify_pgn(&m, "", WHITE, &r, err, sizeof err));

    /* In progress: the opponent is classified from its 10th move on. */
    PgnGame g;
    CHECK(read_game(GameB, &g));
    Move moves[64];
    for (int i = 0; i < g.move_count; i++)
        moves[i] = g.moves[i].move;
    pgn_game_free(&g);
    CHECK(style_classify_moves(&m, NULL, moves, 18, WHITE, &r, err, sizeof err)); /* after 9...Nd5 */
    CHECK(!r.ready);
    CHECK(style_classify_moves(&m, NULL, moves, 19, WHITE, &r, err, sizeof err)); /* after 10. Bxe7 */
    CHECK(r.ready);
    CHECK_INT(r.samples, 1);
    CHECK_INT(r.features.ply, 19);
    CHECK(style_classify_moves(&m, NULL, moves, 19, BLACK, &r, err, sizeof err));
    CHECK(!r.ready);
    CHECK(style_classify_moves(&m, NULL, moves, 20, BLACK, &r, err, sizeof err));
    CHECK(r.ready);
    /* After 17...Bg6: the sample after move 15 and the current position. */
    CHECK(style_classify_moves(&m, NULL, moves, 34, BLACK, &r, err, sizeof err));
    CHECK_INT(r.samples, 2);
    CHECK_INT(r.sample[0].ply, 30);
    CHECK_INT(r.sample[1].ply, 34);
    CHECK_FEATURES(r.sample[0], STYLE_FIRST_D5, STYLE_CASTLED_SAME, 1, 0);
    CHECK_INT(style_model_classify(&m, r.sample, 2, post), r.style);
    CHECK_NEAR(post[STYLE_MIXED], r.posterior[STYLE_MIXED]);
    /* At the end (ply 40 is the move-20 sample itself): 15 and 20, not 20 twice. */
    CHECK(style_classify_moves(&m, NULL, moves, 40, BLACK, &r, err, sizeof err));
    CHECK_INT(r.samples, 2);
    CHECK_FEATURES(r.features, STYLE_FIRST_D5, STYLE_CASTLED_SAME, 2, 0);
    /* Errors: a bad FEN, an illegal move. */
    CHECK(!style_classify_moves(&m, "not a fen", moves, 4, WHITE, &r, err, sizeof err));
    CHECK(strstr(err, "bad FEN"));
    Move bad[2] = {moves[0], moves[0]};
    CHECK(!style_classify_moves(&m, NULL, bad, 2, WHITE, &r, err, sizeof err));
    CHECK(strstr(err, "illegal"));
}

static void test_name_matching(void)
{
    CHECK(style_name_matches("Kasparov, Gary", "kasparov"));
    CHECK(style_name_matches("Kasparov,G", "KASPAROV"));
    CHECK(style_name_matches("Short, Nigel:Kasparov, Garry", "kasparov"));
    CHECK(!style_name_matches("Karpov, Anatoly", "Kasparov"));
    CHECK(!style_name_matches("Karpov, Anatoly", ""));
    CHECK(!style_name_matches(NULL, "Karpov"));
}

void suite_style(void)
{
    RUN(test_features_opposite_castling);
    RUN(test_features_same_side);
    RUN(test_features_first_moves_and_files);
    RUN(test_features_castling_by_moves);
    RUN(test_features_pawns_follow_the_king);
    RUN(test_counts_and_smoothing);
    RUN(test_model_round_trip);
    RUN(test_model_malformed);
    RUN(test_decision_prior);
    RUN(test_committed_model);
    RUN(test_classify_pgn_and_moves);
    RUN(test_name_matching);
}
