/* PGN reading (tags, comments, NAGs, variations, escapes, SetUp/FEN, bad games) and writing. */
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../test.h"

static const char *const Sample = "% an escape line, ignored\n"
                                  "[Event \"Test \\\"quoted\\\" event\"]\n"
                                  "[Site \"Back\\\\slash\"]\n"
                                  "[Date \"2024.01.01\"]\n"
                                  "[Round \"1\"]\n"
                                  "[White \"A\"]\n"
                                  "[Black \"B\"]\n"
                                  "[Result \"1-0\"]\n"
                                  "[ECO \"C20\"]\n"
                                  "\n"
                                  "{Opening comment} 1. e4 $1 e5 {a (comment) with parens} 2. Nf3 (2. f4 exf4 (2... "
                                  "d5) 3. Nf3) 2... Nc6 ; rest of line\n"
                                  "3. Bb5!? a6?! 4. Ba4 Nf6 5. O-O Be7 1-0\n"
                                  "\n"
                                  "[Event \"Bad game\"]\n"
                                  "[Result \"*\"]\n"
                                  "\n"
                                  "1. e4 e5 2. Ke3 Nc6 *\n"
                                  "\n"
                                  "[Event \"From a position\"]\n"
                                  "[SetUp \"1\"]\n"
                                  "[FEN \"4k3/P7/8/8/8/8/8/4K3 w - - 0 60\"]\n"
                                  "[Result \"1/2-1/2\"]\n"
                                  "\n"
                                  "60. a8=Q+ Kd7 61. Qb7+ 1/2-1/2\n"
                                  "\n"
                                  "[Event \"Black starts\"]\n"
                                  "[FEN \"4k3/8/8/8/8/8/p7/4K3 b - - 0 1\"]\n"
                                  "\n"
                                  "1... a1Q# 0-1\n"
                                  "\n"
                                  "[Event \"Unclosed tag\n"
                                  "1. d4 d5 *\n"
                                  "\n"
                                  "[Event \"No result at the end\"]\n"
                                  "\n"
                                  "1. c4 c5 2. Nc3\n";

static void test_read_sample(void)
{
    PgnReader *r = pgn_reader_open_string(Sample);
    PgnGame g;
    char err[300];

    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_GAME);
    CHECK_STR(pgn_tag(&g, "Event"), "Test \"quoted\" event");
    CHECK_STR(pgn_tag(&g, "Site"), "Back\\slash");
    CHECK_STR(pgn_tag(&g, "ECO"), "C20");
    CHECK(pgn_tag(&g, "Annotator") == NULL);
    CHECK_INT(g.move_count, 10);
    CHECK_STR(g.comment, "Opening comment");
    CHECK_STR(g.moves[0].san, "e4");
    CHECK_INT(g.moves[0].nag_count, 1);
    CHECK_INT(g.moves[0].nags[0], 1);
    CHECK_STR(g.moves[1].comment, "a (comment) with parens");
    CHECK_STR(g.moves[2].variations, "(2. f4 exf4 (2... d5) 3. Nf3)");
    CHECK_STR(g.moves[3].comment, "rest of line");
    CHECK_INT(g.moves[4].nags[0], 5); /* !? */
    CHECK_INT(g.moves[5].nags[0], 6); /* ?! */
    CHECK_STR(g.moves[8].san, "O-O");
    CHECK_STR(g.result, "1-0");
    CHECK_INT(g.line, 2);
    pgn_game_free(&g);

    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_BAD_GAME);
    CHECK_STR(err, "line 17: 'Ke3' is not a legal move at move 2 in "
                   "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    pgn_game_free(&g);

    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_GAME);
    CHECK_STR(g.start_fen, "4k3/P7/8/8/8/8/8/4K3 w - - 0 60");
    CHECK_INT(g.move_count, 3);
    CHECK_STR(g.moves[0].san, "a8=Q+");
    CHECK_STR(g.result, "1/2-1/2");
    char *text = pgn_write(&g);
    CHECK(strstr(text, "\n60. a8=Q+ Kd7 61. Qb7+ 1/2-1/2\n") != NULL);
    free(text);
    pgn_game_free(&g);

    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_GAME);
    CHECK_INT(g.move_count, 1);
    CHECK_STR(g.moves[0].san, "a1=Q+"); /* the king can still step up */
    text = pgn_write(&g);
    CHECK(strstr(text, "\n1... a1=Q+ 0-1\n") != NULL);
    free(text);
    pgn_game_free(&g);

    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_BAD_GAME);
    CHECK_MSG(strstr(err, "line 31") != NULL, "%s", err);
    pgn_game_free(&g);

    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_GAME);
    CHECK_STR(pgn_tag(&g, "Event"), "No result at the end");
    CHECK_INT(g.move_count, 3);
    CHECK_STR(g.result, "*");
    pgn_game_free(&g);

    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_END);
    pgn_game_free(&g);
    pgn_reader_close(r);
}

static void test_write_export_format(void)
{
    PgnReader *r = pgn_reader_open_string(Sample);
    PgnGame g, g2;
    char err[300];
    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_GAME);
    char *text = pgn_write(&g);
    /* Seven-tag roster first, in order, then the rest. */
    const char *order[] = {"[Event ", "[Site ", "[Date ", "[Round ", "[White ", "[Black ", "[Result ", "[ECO "};
    const char *at = text;
    for (int i = 0; i < 8; i++) {
        const char *found = strstr(text, order[i]);
        CHECK_MSG(found && found >= at, "%s out of order in\n%s", order[i], text);
        at = found;
    }
    CHECK(strstr(text, "[Event \"Test \\\"quoted\\\" event\"]") != NULL);
    char *flat = strdup(strstr(text, "\n\n") + 2); /* the movetext, lines joined */
    for (char *c = flat; *c; c++)
        if (*c == '\n')
            *c = ' ';
    CHECK_STR(flat, "{Opening comment} 1. e4 $1 e5 {a (comment) with parens} 2. Nf3 (2. f4 exf4 (2... d5) 3. Nf3) "
                    "2... Nc6 {rest of line} 3. Bb5 $5 a6 $6 4. Ba4 Nf6 5. O-O Be7 1-0 ");
    free(flat);
    /* Read back: same moves, comments and text. */
    PgnReader *r2 = pgn_reader_open_string(text);
    CHECK_INT(pgn_read_game(r2, &g2, err, sizeof err), PGN_GAME);
    CHECK_INT(g2.move_count, g.move_count);
    for (int i = 0; i < g.move_count; i++) {
        CHECK(g.moves[i].move == g2.moves[i].move);
        CHECK_INT(g.moves[i].nag_count, g2.moves[i].nag_count);
    }
    CHECK_STR(g2.moves[1].comment, g.moves[1].comment);
    char *text2 = pgn_write(&g2);
    CHECK_STR(text2, text);
    free(text2);
    free(text);
    pgn_game_free(&g2);
    pgn_game_free(&g);
    pgn_reader_close(r2);
    pgn_reader_close(r);
}

static void test_lines_wrap_at_80(void)
{
    /* A long game with a long comment: no line of movetext passes 80 columns. */
    char *src = malloc(20000);
    strcpy(src, "[Event \"Long\"]\n\n");
    const char *cycle[4] = {"Nf3", "Nf6", "Ng1", "Ng8"};
    for (int i = 0; i < 200; i++) {
        char t[64];
        if (i % 2 == 0)
            snprintf(t, sizeof t, "%d. ", 1 + i / 2);
        else
            t[0] = 0;
        strcat(src, t);
        strcat(src, cycle[i % 4]);
        strcat(src, i == 7 ? " {a long comment that keeps going on and on, well past the eighty column limit "
                             "of export format, so that it has to be wrapped over several lines} "
                           : " ");
    }
    strcat(src, "1/2-1/2\n");
    PgnReader *r = pgn_reader_open_string(src);
    PgnGame g;
    char err[300];
    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_GAME);
    CHECK_INT(g.move_count, 200);
    char *text = pgn_write(&g);
    int lines = 0;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        CHECK_MSG(len <= 80, "line of %zu columns", len);
        lines++;
        line += len + (nl != NULL);
    }
    CHECK(lines > 20);
    CHECK(strstr(text, "{a long comment") != NULL);
    free(text);
    pgn_game_free(&g);
    pgn_reader_close(r);
    free(src);
}

static void test_latin1_becomes_utf8(void)
{
    const char *src = "[White \"Quadros, Andr\xe9\"]\n\n1. e4 {caf\xe9} *\n";
    PgnReader *r = pgn_reader_open_string(src);
    PgnGame g;
    char err[300];
    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_GAME);
    CHECK_STR(pgn_tag(&g, "White"), "Quadros, Andr\xc3\xa9");
    CHECK_STR(g.moves[0].comment, "caf\xc3\xa9");
    pgn_game_free(&g);
    pgn_reader_close(r);
}

static void test_bad_games_are_skipped(void)
{
    const char *src = "[Event \"1\"]\n\n1. e4 ) e5 *\n\n"
                      "[Event \"2\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n\n"
                      "[Event \"3\"]\n\n1. e4 (1. d4 d5 *\n\n"
                      "[Event \"4\"]\n\n( 1. e4 ) *\n\n"
                      "[Event \"5\"]\n\n1. e4 e5 *\n\n"
                      "[Event \"6\"]\n\n1. e4 {never closed\n";
    PgnReader *r = pgn_reader_open_string(src);
    PgnGame g;
    char err[300];
    const char *want[] = {"line 3: unexpected ')'",
                          "line 5: FEN tag: white has no king",
                          "line 14: variation not closed before the next game's tags",
                          "line 16: a variation before any move",
                          NULL,
                          "line 24: comment '{' is not closed"};
    for (int i = 0; i < 6; i++) {
        PgnResult res = pgn_read_game(r, &g, err, sizeof err);
        if (!want[i]) {
            CHECK_MSG(res == PGN_GAME && g.move_count == 2, "game %d: %d %s", i + 1, res, err);
            pgn_game_free(&g);
            continue;
        }
        pgn_game_free(&g);
        CHECK_MSG(res == PGN_BAD_GAME, "game %d read: %d", i + 1, res);
        CHECK_MSG(!strncmp(err, want[i], strlen(want[i])), "game %d: '%s', want '%s'", i + 1, err, want[i]);
    }
    CHECK_INT(pgn_read_game(r, &g, err, sizeof err), PGN_END);
    pgn_game_free(&g);
    pgn_reader_close(r);
}

static void test_shared_collections(void)
{
    const char *files[3] = {"pgn/Kasparov.pgn", "pgn/Karpov.pgn", "pgn/Anand.pgn"};
    const int games[3] = {2017, 3243, 2680};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(test_data_path(files[i]), "r");
        CHECK(f);
        PgnReader *r = pgn_reader_open(f);
        PgnGame g;
        char err[300];
        int read = 0, bad = 0;
        PgnResult res;
        while ((res = pgn_read_game(r, &g, err, sizeof err)) != PGN_END) {
            read += res == PGN_GAME;
            bad += res == PGN_BAD_GAME;
            pgn_game_free(&g);
        }
        pgn_reader_close(r);
        fclose(f);
        CHECK_MSG(read == games[i] && bad == 0, "%s: %d read, %d bad", files[i], read, bad);
    }
}

/* An empty comment as the text's very first token (found by fuzz_pgn: the token buffer did not
 * exist yet, and the comment's folding read through a null pointer: a crash of the server on a
 * {"pgn": ";\n1. d4 *"} request). */
static void test_empty_first_comment(void)
{
    const char *texts[] = {";\n1. d4 *\n", "{}1. e4 *", "%escape\n;\n1. c4 *"};
    for (int i = 0; i < 3; i++) {
        PgnReader *r = pgn_reader_open_string(texts[i]);
        PgnGame g;
        char err[200];
        PgnResult res = pgn_read_game(r, &g, err, sizeof err);
        CHECK_MSG(res == PGN_GAME && g.move_count == 1, "text %d: result %d, %d moves", i, res, g.move_count);
        pgn_game_free(&g);
        pgn_reader_close(r);
    }
}

/* Flavours other programs write (found by reading exports of Lichess, Chess.com, ChessBase, SCID and
 * python-chess's samples): each text is one game of `plies` moves with `result` and, where given, a NAG
 * on its first move; text around games (a banner before the tags, a comment after the result) makes
 * no game of its own. */
static void test_real_world_flavours(void)
{
    const struct {
        const char *text;
        int plies;
        const char *result;
        int first_nag;
    } cases[] = {
        {"\xEF\xBB\xBF[Event \"BOM\"]\n\n1. e4 e5 1-0\n", 2, "1-0", 0}, /* a byte order mark */
        {"\xEF\xBB\xBF"
         "1. e4 e5 2. Nf3 *\n",
         3, "*", 0},                                                             /* ... before moves */
        {"; Generated by SCID\n[Event \"a\"]\n\n1. e4 *\n{after}\n", 1, "*", 0}, /* banner, trailing */
        {"{Exported}\n[Event \"a\"]\n\n1. e4 e5 0-1 ; the end\n", 2, "0-1", 0},
        {"[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#\n", 7, "1-0", 0}, /* the tag's result */
        {"1. e4 ! e5 ?! 2. Nf3 !! Nc6 = 3. Bb5 +/- *", 5, "*", 1},                      /* glyphs apart */
        {"1. e4 +- *", 1, "*", 18},
        {"1. e4 a6 2. e5 d5 3. exd6 e.p. cxd6 *", 6, "*", 0},                /* e.p. */
        {"1. e4 e5 2. Nf3 2. ... Nc6 3. Bb5 3\xE2\x80\xA6 a6 *", 6, "*", 0}, /* "2. ...", "3…" */
        {"1.\xC2\xA0"
         "e4\xC2\xA0"
         "e5 *",
         2, "*", 0}, /* no-break spaces */
        {"1. e4 e5 \xC2\xBD-\xC2\xBD\n", 2, "1/2-1/2", 0}, /* a draw written "½-½" */
        {"[Result \"\xC2\xBD-\xC2\xBD\"]\n\n1. e4 e5\n", 2, "1/2-1/2", 0},
        {"1. e4 \xC2\xA0"
         "e5 *",
         2, "*", 0}, /* 0xC2 not a half */
        {"[Variant \"Standard\"]\n\n1. d4 *", 1, "*", 0},
        {"[Variant \"From Position\"]\n[FEN \"3r3k/4P3/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. exd8q+ *", 1, "*", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        PgnReader *r = pgn_reader_open_string(cases[i].text);
        PgnGame g;
        char err[300];
        PgnResult res = pgn_read_game(r, &g, err, sizeof err);
        CHECK_MSG(res == PGN_GAME && g.move_count == cases[i].plies && !strcmp(g.result, cases[i].result) &&
                      (!cases[i].first_nag || (g.moves[0].nag_count == 1 && g.moves[0].nags[0] == cases[i].first_nag)),
                  "case %zu: result %d, %d plies, '%s' (%s)", i, res, g.move_count, g.result, err);
        const char *tag = pgn_tag(&g, "Result"); /* "½-½" is written 1/2-1/2 in the tag too */
        CHECK_MSG(!tag || !strcmp(tag, g.result), "case %zu: Result tag '%s', result '%s'", i, tag, g.result);
        pgn_game_free(&g);
        res = pgn_read_game(r, &g, err, sizeof err);
        CHECK_MSG(res == PGN_END, "case %zu: a second game read (%d)", i, res);
        pgn_game_free(&g);
        pgn_reader_close(r);
    }
    /* Other variants are refused by name (they were replayed as standard chess, or refused for a move);
     * a character outside PGN is named whole. */
    const struct {
        const char *text, *error;
    } bad[] = {
        {"[Variant \"Three-check\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Bxf7+ 1-0", "line 1: the variant 'Three-check' is not"},
        {"[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d5 *", "line 1: the variant 'Crazyhouse'"},
        {"1. e4 e5 \xC2\xBD *", "line 1: unexpected '\xC2\xBD' in the moves"}, /* a half alone */
        {"[FEN \"8/K7/8/k7/4Q2Q/8/8/7Q w - - 0 1\"]\n\n1. Qe1+ *", "line 3: 'Qe1+' is ambiguous"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        PgnReader *r = pgn_reader_open_string(bad[i].text);
        PgnGame g;
        char err[300];
        PgnResult res = pgn_read_game(r, &g, err, sizeof err);
        CHECK_MSG(res == PGN_BAD_GAME && !strncmp(err, bad[i].error, strlen(bad[i].error)), "bad %zu: %d '%s'", i, res,
                  err);
        pgn_game_free(&g);
        pgn_reader_close(r);
    }
}

void suite_pgn(void)
{
    RUN(test_real_world_flavours);
    RUN(test_empty_first_comment);
    RUN(test_read_sample);
    RUN(test_write_export_format);
    RUN(test_lines_wrap_at_80);
    RUN(test_latin1_becomes_utf8);
    RUN(test_bad_games_are_skipped);
    RUN(test_shared_collections);
}
