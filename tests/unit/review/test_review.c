/* engine/review: lila's game-accuracy test vectors (AccuracyPercentTest.scala) within their
 * tolerances and within 1e-3 of the values computed from the algorithm (spec §10), the Win% and
 * move-accuracy tables (§2-§3), each judgement including both mate judgements (§5, §7.3-§7.4),
 * ACPL, the [%eval] number format, and an annotated game. */
#include <math.h>
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../../../engine/review/review.h"
#include "../test.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

typedef struct {
    const char *name;
    bool white_first;
    int cps[110];
    int n;
    bool none;
    double white, black; /* lila's expectation */
    double white_tol, black_tol;
    double white_exact, black_exact; /* the spec's computed values */
} AccCase;

static int fill(int *cps, int count, int a, int b, bool pairs)
{
    int n = 0;
    for (int i = 0; i < count; i++) {
        cps[n++] = a;
        if (pairs)
            cps[n++] = b;
    }
    return n;
}

static void test_game_accuracy_vectors(void)
{
    static AccCase c[20];
    int k = 0;
    c[k++] = (AccCase){"empty game", true, {0}, 0, true, 0, 0, 0, 0, 0, 0};
    c[k++] = (AccCase){"single move", true, {15}, 1, true, 0, 0, 0, 0, 0, 0};
    c[k++] = (AccCase){"two good moves", true, {15, 15}, 2, false, 100, 100, 1, 1, 100.000, 100.000};
    c[k++] = (AccCase){"white blunders on first move", true, {-900, -900}, 2, false, 10, 100, 5, 1, 10.664, 100.000};
    c[k++] = (AccCase){"black blunders on first move", true, {15, 900}, 2, false, 100, 10, 1, 5, 100.000, 12.303};
    c[k++] = (AccCase){"both blunder on first move", true, {-900, 0}, 2, false, 10, 10, 5, 5, 10.664, 11.459};
    c[k] = (AccCase){"20 perfect moves", true, {0}, 0, false, 100, 100, 1, 1, 100.000, 100.000};
    c[k].n = fill(c[k].cps, 20, 15, 0, false);
    k++;
    c[k] = (AccCase){"20 perfect moves and a white blunder", true, {0}, 0, false, 50, 100, 5, 1, 46.853, 100.000};
    c[k].n = fill(c[k].cps, 20, 15, 0, false);
    c[k].cps[c[k].n++] = -900;
    k++;
    c[k] = (AccCase){"21 perfect moves and a black blunder", true, {0}, 0, false, 100, 50, 1, 5, 100.000, 49.388};
    c[k].n = fill(c[k].cps, 21, 15, 0, false);
    c[k].cps[c[k].n++] = 900;
    k++;
    c[k] = (AccCase){"5 average moves", true, {0}, 0, false, 76, 76, 8, 8, 77.383, 77.383};
    c[k].n = fill(c[k].cps, 5, -50, 15, true);
    k++;
    c[k] = (AccCase){"50 average moves", true, {0}, 0, false, 76, 76, 8, 8, 77.383, 77.383};
    c[k].n = fill(c[k].cps, 50, -50, 15, true);
    k++;
    c[k] = (AccCase){"50 mediocre moves", true, {0}, 0, false, 54, 54, 8, 8, 55.001, 55.001};
    c[k].n = fill(c[k].cps, 50, -135, 15, true);
    k++;
    c[k] = (AccCase){"50 terrible moves", true, {0}, 0, false, 20, 20, 8, 8, 20.695, 20.695};
    c[k].n = fill(c[k].cps, 50, -435, 15, true);
    k++;
    c[k++] = (AccCase){"black first: empty", false, {0}, 0, true, 0, 0, 0, 0, 0, 0};
    c[k++] = (AccCase){"black first: single move", false, {15}, 1, true, 0, 0, 0, 0, 0, 0};
    c[k++] = (AccCase){"black first: two good moves", false, {15, 15}, 2, false, 100, 100, 1, 1, 100.000, 100.000};
    c[k++] = (AccCase){"black first: black blunders", false, {900, 900}, 2, false, 100, 10, 1, 5, 100.000, 12.303};
    c[k++] = (AccCase){"black first: white blunders", false, {15, -900}, 2, false, 10, 100, 5, 1, 10.664, 100.000};
    c[k++] = (AccCase){"black first: both blunder", false, {900, 0}, 2, false, 10, 10, 5, 5, 11.459, 12.303};
    for (int i = 0; i < k; i++) {
        double cps[110], w = -1, b = -1;
        for (int j = 0; j < c[i].n; j++)
            cps[j] = c[i].cps[j];
        bool some = review_game_accuracy(cps, c[i].n, c[i].white_first, &w, &b);
        CHECK_MSG(some == !c[i].none, "%s: %s", c[i].name, some ? "Some, expected None" : "None, expected Some");
        if (!some)
            continue;
        CHECK_MSG(NEAR(w, c[i].white, c[i].white_tol) && NEAR(b, c[i].black, c[i].black_tol),
                  "%s: white %.3f black %.3f, lila expects %.0f+-%.0f and %.0f+-%.0f", c[i].name, w, b, c[i].white,
                  c[i].white_tol, c[i].black, c[i].black_tol);
        CHECK_MSG(NEAR(w, c[i].white_exact, 1e-3) && NEAR(b, c[i].black_exact, 1e-3),
                  "%s: white %.4f black %.4f, computed %.3f %.3f", c[i].name, w, b, c[i].white_exact, c[i].black_exact);
    }
}

static void test_win_percent_and_move_accuracy_tables(void)
{
    static const double Cp[] = {0, 15, 50, 100, 200, 300, 500, 1000, 5000};
    static const double Win[] = {50.0000, 51.3804, 54.5896, 59.1026, 67.6212, 75.1126, 86.3072, 97.5447, 97.5447};
    for (size_t i = 0; i < sizeof Cp / sizeof Cp[0]; i++) {
        CHECK_MSG(NEAR(review_win_percent(Cp[i]), Win[i], 1e-4), "Win%%(%g) = %.4f, want %.4f", Cp[i],
                  review_win_percent(Cp[i]), Win[i]);
        CHECK_MSG(NEAR(review_win_percent(-Cp[i]), 100 - Win[i], 1e-4), "Win%%(-%g)", Cp[i]);
    }
    ReviewEval mate = {true, true, 0, 3}, mated = {true, true, 0, -1}, zero = {true, true, 0, 0};
    CHECK(NEAR(review_win_percent(review_force_cp(&mate)), 97.5447, 1e-4));
    CHECK(NEAR(review_win_percent(review_force_cp(&mated)), 2.4553, 1e-4));
    CHECK(NEAR(review_win_percent(review_force_cp(&zero)), 2.4553, 1e-4)); /* Mate.signum(0) = -1 */
    static const double Diff[] = {5, 10, 20, 40, 60, 80, 100};
    static const double Acc[] = {80.8153, 64.5798, 41.0168, 15.9090, 5.3993, 1.0002, 0};
    for (size_t i = 0; i < sizeof Diff / sizeof Diff[0]; i++)
        CHECK_MSG(NEAR(review_move_accuracy(100, 100 - Diff[i]), Acc[i], 1e-4), "accuracy(diff %g) = %.4f, want %.4f",
                  Diff[i], review_move_accuracy(100, 100 - Diff[i]), Acc[i]);
    CHECK(review_move_accuracy(40, 60) == 100);
}

static ReviewEval cp_of(int cp) { return (ReviewEval){true, false, cp, 0}; }
static ReviewEval mate_of(int m) { return (ReviewEval){true, true, 0, m}; }

static void test_judgements(void)
{
    MateSequence seq;
    ReviewEval a, b;
    /* cp: winning chances lost >= 0.1 / 0.2 / 0.3 (lila's example 4... Nd7?! 0.05 -> 0.85) */
    a = cp_of(5), b = cp_of(85);
    CHECK_INT(review_judge(&a, &b, BLACK, &seq), JUDGE_INACCURACY);
    a = cp_of(190), b = cp_of(44);
    CHECK_INT(review_judge(&a, &b, WHITE, &seq), JUDGE_MISTAKE); /* 14. Qf3? */
    a = cp_of(-34), b = cp_of(158);
    CHECK_INT(review_judge(&a, &b, BLACK, &seq), JUDGE_BLUNDER); /* 16... Kf7?? */
    a = cp_of(319), b = cp_of(851);
    CHECK_INT(review_judge(&a, &b, BLACK, &seq), JUDGE_BLUNDER); /* 10... Bxd5?? */
    a = cp_of(20), b = cp_of(30);
    CHECK_INT(review_judge(&a, &b, BLACK, &seq), JUDGE_NONE);
    a = cp_of(20), b = cp_of(60);
    CHECK_INT(review_judge(&a, &b, WHITE, &seq), JUDGE_NONE); /* a gain */
    /* mate created: 11... gxf6? (8.39 -> Mate in 3): Black's prev -839 < -700: Mistake */
    a = cp_of(839), b = mate_of(3);
    CHECK_INT(review_judge(&a, &b, BLACK, &seq), JUDGE_MISTAKE);
    CHECK_INT(seq, MATE_CREATED);
    /* 17... Bxg7?! (37.31 -> Mate in 1): -3731 < -999: Inaccuracy */
    a = cp_of(3731), b = mate_of(1);
    CHECK_INT(review_judge(&a, &b, BLACK, &seq), JUDGE_INACCURACY);
    CHECK_INT(seq, MATE_CREATED);
    a = cp_of(0), b = mate_of(-5);
    CHECK_INT(review_judge(&a, &b, WHITE, &seq), JUDGE_BLUNDER);
    CHECK_INT(seq, MATE_CREATED);
    /* mate lost: 12. Qxf6?? (Mate in 3 -> 1.68): 168 <= 700: Blunder */
    a = mate_of(3), b = cp_of(168);
    CHECK_INT(review_judge(&a, &b, WHITE, &seq), JUDGE_BLUNDER);
    CHECK_INT(seq, MATE_LOST);
    a = mate_of(3), b = cp_of(800);
    CHECK_INT(review_judge(&a, &b, WHITE, &seq), JUDGE_MISTAKE);
    a = mate_of(-4), b = cp_of(-1200);
    CHECK_INT(review_judge(&a, &b, BLACK, &seq), JUDGE_INACCURACY);
    CHECK_INT(seq, MATE_LOST);
    a = mate_of(2), b = mate_of(-3); /* from mating to mated */
    CHECK_INT(review_judge(&a, &b, WHITE, &seq), JUDGE_BLUNDER);
    CHECK_INT(seq, MATE_LOST);
    a = mate_of(3), b = mate_of(4); /* a slower mate: MateDelayed is never given */
    CHECK_INT(review_judge(&a, &b, WHITE, &seq), JUDGE_NONE);
}

static void test_eval_formats_and_acpl(void)
{
    static const struct {
        ReviewEval e;
        const char *pgn, *text;
    } Cases[] = {
        {{true, false, 85, 0}, "[%eval 0.85]", "0.85"},    {{true, false, 10, 0}, "[%eval 0.1]", "0.10"},
        {{true, false, 200, 0}, "[%eval 2.0]", "2.00"},    {{true, false, 0, 0}, "[%eval 0.0]", "0.00"},
        {{true, false, -34, 0}, "[%eval -0.34]", "-0.34"}, {{true, false, 4051, 0}, "[%eval 40.51]", "40.51"},
        {{true, false, -5, 0}, "[%eval -0.05]", "-0.05"},  {{true, true, 0, 3}, "[%eval #3]", "Mate in 3"},
        {{true, true, 0, -3}, "[%eval #-3]", "Mate in 3"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof Cases / sizeof Cases[0]; i++) {
        review_pgn_eval(&Cases[i].e, buf, sizeof buf);
        CHECK_STR(buf, Cases[i].pgn);
        review_eval_text(&Cases[i].e, buf, sizeof buf);
        CHECK_STR(buf, Cases[i].text);
    }
    /* ACPL: White 15 -> -50 (65), -50 -> ... ; mates forced to +-1000, a move's loss at most 2000 */
    ReviewEval evals[] = {cp_of(-50), cp_of(15), cp_of(-50), cp_of(15), mate_of(-2), mate_of(3)};
    double w, b;
    CHECK(review_acpl(evals, 4, true, true, &w) && NEAR(w, 65, 1e-9));
    CHECK(review_acpl(evals, 4, false, true, &b) && NEAR(b, 65, 1e-9));
    CHECK(review_acpl(evals, 6, true, true, &w) && NEAR(w, (65 + 65 + 1015) / 3.0, 1e-9));
    CHECK(review_acpl(evals, 6, false, true, &b) && NEAR(b, (65 + 65 + 2000) / 3.0, 1e-9));
    ReviewEval gap[] = {cp_of(15), {false, false, 0, 0}, cp_of(-200), cp_of(-200)};
    CHECK(review_acpl(gap, 4, false, true, &b) && NEAR(b, 0, 1e-9)); /* its first move has no eval: skipped */
}

/* A short game with the engine's view of each position given: the review's plies, counts,
 * comments and annotated PGN as Lichess writes them. */
static void test_annotated_game(void)
{
    const char *text = "[Event \"t\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n"
                       "1. e4 e5 2. Bc4 Nc6 3. Qh5!? $14 Nf6! $32 4. Qxf7# 1-0\n";
    PgnReader *rd = pgn_reader_open_string(text);
    PgnGame g = {0};
    char err[200];
    CHECK(pgn_read_game(rd, &g, err, sizeof err) == PGN_GAME);
    pgn_reader_close(rd);
    Position *p = malloc(sizeof *p);
    CHECK(pgn_start_position(&g, p, err, sizeof err));
    Move moves[8];
    for (int i = 0; i < g.move_count; i++)
        moves[i] = g.moves[i].move;
    /* side-to-move views: after 3... Nf6 the engine sees mate in 1 for White; the start and the
     * others ordinary; the best line before 3... Nf6 is 3... g6 */
    ReviewPosition pos[8] = {0};
    int cps[8] = {30, -25, 30, -40, 50, 120, 0, 0};
    for (int i = 0; i < 8; i++)
        pos[i] = (ReviewPosition){true, false, cps[i], 0, {0}, 0};
    pos[6] = (ReviewPosition){true, true, 0, 1, {0}, 0}; /* White to move: mates in 1 */
    pos[7] = (ReviewPosition){true, true, 0, 0, {0}, 0}; /* Black is checkmated */
    Position *q = malloc(sizeof *q);
    position_copy(q, p);
    for (int i = 0; i < 7; i++) {
        if (i == 5) { /* before 3... Nf6: the engine prefers g6 */
            pos[i].line[0] = move_from_uci(q, "g7g6");
            pos[i].line_len = 1;
        } else {
            pos[i].line[0] = moves[i];
            pos[i].line_len = 1;
        }
        position_make_move(q, moves[i]);
    }
    Review r;
    CHECK(review_build(&r, p, moves, g.move_count, pos));
    CHECK_INT(r.plies, 7);
    CHECK(!r.ply[6].has_info); /* the mating move: no eval, no judgement */
    CHECK(r.ply[5].judgment == JUDGE_BLUNDER && r.ply[5].sequence == MATE_CREATED); /* -120 for Black, > -700 */
    CHECK(r.ply[0].eval.cp == 25 && r.ply[1].eval.cp == 30 && r.ply[4].eval.cp == -120);
    CHECK(r.ply[5].eval.is_mate && r.ply[5].eval.mate == 1);
    CHECK_INT(r.player[BLACK].blunder, 1);
    CHECK_INT(r.player[WHITE].blunder + r.player[WHITE].mistake + r.player[WHITE].inaccuracy, 0);
    /* the second look: the two positions around the one blunder (before and after 3... Nf6), no other */
    bool marks[8] = {0};
    CHECK_INT(review_second_look(&r, marks), 2);
    for (int k = 0; k < 8; k++)
        CHECK_MSG(marks[k] == (k == 5 || k == 6), "position %d", k);
    PgnGame out;
    CHECK(review_annotate(&r, &g, &out, err, sizeof err));
    char *pgn = pgn_write(&out);
    for (char *c = pgn; *c; c++) /* lines wrap at 80 columns: compare as one line */
        if (*c == '\n' && c[1] && c[1] != '\n' && c[-1] != '\n' && c[-1] != ']')
            *c = ' ';
    CHECK_MSG(strstr(pgn, "[Annotator \"feelfish\"]"), "%s", pgn);
    CHECK_MSG(strstr(pgn, "1. e4 { [%eval 0.25] }"), "%s", pgn);
    CHECK_MSG(strstr(pgn, "3. Qh5!? $14 { [%eval -1.2] }"), "%s", pgn); /* the game's own glyphs kept */
    CHECK_MSG(strstr(pgn,
                     "3... Nf6?? $32 { (-1.20 \xe2\x86\x92 Mate in 1) Checkmate is now unavoidable. g6 was best. } "
                     "{ [%eval #1] } (3... g6)"),
              "%s", pgn);
    CHECK_MSG(strstr(pgn, "4. Qxf7# { White wins by checkmate. } 1-0"), "%s", pgn);
    /* read back: the same moves; the judged move's glyph as its NAG, its own "!" replaced, its $32 kept */
    rd = pgn_reader_open_string(pgn);
    PgnGame back = {0};
    CHECK_MSG(pgn_read_game(rd, &back, err, sizeof err) == PGN_GAME, "%s", err);
    pgn_reader_close(rd);
    CHECK_INT(back.move_count, 7);
    CHECK(back.moves[5].nag_count == 2 && back.moves[5].nags[0] == 4 && back.moves[5].nags[1] == 32);
    CHECK(back.moves[4].nag_count == 2 && back.moves[4].nags[0] == 5 && back.moves[4].nags[1] == 14);
    pgn_game_free(&back);
    free(pgn);
    pgn_game_free(&out);
    review_free(&r);
    pgn_game_free(&g);
    free(p);
    free(q);
}

void suite_review(void)
{
    RUN(test_game_accuracy_vectors);
    RUN(test_win_percent_and_move_accuracy_tables);
    RUN(test_judgements);
    RUN(test_eval_formats_and_acpl);
    RUN(test_annotated_game);
}
