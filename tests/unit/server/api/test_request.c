/* Analysis requests (api/request): JSON bodies validated into jobs, held to the server's caps, and
 * every rejection's code and field. The jobs are made, never submitted. */
#include <stdlib.h>

#include "../../../../server/api/request.h"
#include "../server_test.h"

#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

static ServerConfig cfg; /* request.c keeps the pointer */
static ApiError err;

/* The job a JSON text makes (NULL with err set); the text must be valid JSON. */
static Job *analyse(const char *text, bool allow_infinite)
{
    json_error_t je;
    json_t *body = json_loads(text, 0, &je);
    if (!body) {
        printf("    bad test JSON: %s: %s\n", text, je.text);
        return NULL;
    }
    memset(&err, 0, sizeof err);
    Job *job = request_analysis(&err, body, allow_infinite);
    json_decref(body);
    return job;
}

/* A request that must be rejected with status 400, code and field (field NULL: no field); true
 * when it was. Prints what came instead. */
static bool rejected(const char *text, bool allow_infinite, const char *code, const char *field)
{
    Job *job = analyse(text, allow_infinite);
    if (job) {
        printf("    %s: accepted, expected %s\n", text, code);
        job_release(job);
        return false;
    }
    if (err.status != 400 || strcmp(err.code, code) || strcmp(err.field, field ? field : "") || !err.message[0]) {
        printf("    %s: %d %s (field '%s': %s), expected 400 %s (field '%s')\n", text, err.status, err.code, err.field,
               err.message, code, field ? field : "");
        return false;
    }
    return true;
}

static const char *fen_of(const Job *job)
{
    static char buf[FEN_BUFFER_SIZE];
    return fen_write(job->pos, buf);
}

static void test_config_defaults(void)
{
    char msg[256];
    bool help = true;
    ServerConfig c;
    memset(&c, 0xAB, sizeof c);
    CHECK_MSG(config_load(&c, 0, NULL, &help, msg, sizeof msg), "%s", msg);
    CHECK(!help);
    /* The caps the other tests are held to: set, and with room above and below. */
    CHECK(c.max_depth > 2 && c.max_depth < 119);
    CHECK(c.max_multipv > 1 && c.max_multipv < 64);
    CHECK(c.max_movetime > 100);
    CHECK(c.max_nodes > 1000);
    cfg = c;
    request_set_config(&cfg);
}

static void test_valid_classical(void)
{
    Job *job = analyse("{\"fen\": \"" KIWIPETE "\", \"limits\": {\"depth\": 7}}", false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_INT(err.status, 0);
    CHECK_STR(job->mode, "classical");
    CHECK_INT(job->status, JOB_QUEUED);
    CHECK_INT(job->limits.depth, 7);
    CHECK_INT(job->limits.nodes, 0);
    CHECK_INT(job->limits.movetime, cfg.max_movetime); /* every search ends: the time cap bounds it */
    CHECK_INT(job->limits.multipv, 1);
    CHECK(!job->limits.infinite && !job->compare && !job->has_emotion && !job->has_bayes);
    CHECK(job->eval.params == &DefaultParams && job->eval.fingerprint == 0);
    CHECK_STR(fen_of(job), KIWIPETE);
    CHECK(job->id[0] && !job->result && job->listener_count == 0);
    job_release(job);

    /* A REST body has no "op" or "id" (the WebSocket's analyse op has them). */
    CHECK(!analyse("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 2}, \"id\": \"x\"}", false) &&
          !strcmp(err.code, "unknown_field") && !strcmp(err.field, "id"));

    /* Every limit at once, below the caps: kept as given (the WebSocket's op, with its "op" and "id"). */
    job = analyse("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 2, \"nodes\": 5000, \"movetime\": 250},"
                  " \"multiPv\": 2, \"mode\": \"classical\", \"compare\": false, \"id\": \"x\", \"op\": \"analyse\"}",
                  true);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_INT(job->limits.depth, 2);
    CHECK_INT(job->limits.nodes, 5000);
    CHECK_INT(job->limits.movetime, 250);
    CHECK_INT(job->limits.multipv, 2);
    job_release(job);
}

/* Each way of giving the position: fen + moves, moves alone (from the start), pgn. */
static void test_positions(void)
{
    Job *job = analyse("{\"moves\": [\"e2e4\", \"e7e5\", \"g1f3\"], \"limits\": {\"nodes\": 1000}}", false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_STR(fen_of(job), "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    CHECK_INT(job->limits.nodes, 1000);
    CHECK_INT(job->limits.depth, 0);
    CHECK_INT(job->limits.movetime, cfg.max_movetime);
    job_release(job);
    job = analyse("{\"fen\": \"" KIWIPETE "\", \"moves\": [\"e1g1\"], \"limits\": {\"movetime\": 50}}", false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_STR(fen_of(job), "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R4RK1 b kq - 1 1");
    CHECK_INT(job->limits.movetime, 50);
    job_release(job);
    job = analyse("{\"pgn\": \"[Event \\\"t\\\"]\\n\\n1. d4 d5 2. c4 *\\n\", \"limits\": {\"depth\": 1}}", false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_STR(fen_of(job), "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2");
    job_release(job);
}

static void test_caps(void)
{
    char text[512];
    snprintf(text, sizeof text, "{\"fen\": \"%s\", \"limits\": {\"depth\": %ld}, \"multiPv\": %ld}", FEN_STARTPOS,
             cfg.max_depth + 10, cfg.max_multipv + 5);
    Job *job = analyse(text, false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_INT(job->limits.depth, cfg.max_depth);
    CHECK_INT(job->limits.multipv, cfg.max_multipv);
    CHECK_INT(job->limits.movetime, cfg.max_movetime);
    job_release(job);
    /* At the cap exactly: unchanged; one below: unchanged. */
    snprintf(text, sizeof text, "{\"fen\": \"%s\", \"limits\": {\"depth\": %ld}, \"multiPv\": %ld}", FEN_STARTPOS,
             cfg.max_depth - 1, cfg.max_multipv - 1);
    job = analyse(text, false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_INT(job->limits.depth, cfg.max_depth - 1);
    CHECK_INT(job->limits.multipv, cfg.max_multipv - 1);
    job_release(job);
    snprintf(text, sizeof text, "{\"fen\": \"%s\", \"limits\": {\"movetime\": %ld, \"nodes\": %lld}}", FEN_STARTPOS,
             cfg.max_movetime * 3, cfg.max_nodes * 2);
    job = analyse(text, false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_INT(job->limits.movetime, cfg.max_movetime);
    CHECK_INT(job->limits.nodes, cfg.max_nodes);
    CHECK_INT(job->limits.depth, 0);
    job_release(job);
    /* The caps come from the configuration in force. */
    long saved = cfg.max_depth;
    cfg.max_depth = 3;
    job = analyse("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 9}}", false);
    cfg.max_depth = saved;
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_INT(job->limits.depth, 3);
    job_release(job);
}

static void test_infinite(void)
{
    const char *text = "{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"infinite\": true}}";
    CHECK(rejected(text, false, "bad_limit", "limits.infinite"));
    CHECK(strstr(err.message, "WebSocket"));
    Job *job = analyse(text, true);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK(job->limits.infinite);
    CHECK_INT(job->limits.movetime, 0); /* runs until stopped: no time cap */
    CHECK_INT(job->limits.depth, 0);
    job_release(job);
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"infinite\": false}}", true, "limits_missing",
                   "limits"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"infinite\": 1}}", true, "bad_limit",
                   "limits.infinite"));
    /* false beside a real limit is accepted over REST. */
    job = analyse("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"infinite\": false, \"depth\": 3}}", false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK(!job->limits.infinite);
    CHECK_INT(job->limits.depth, 3);
    job_release(job);
}

static void test_unknown_fields(void)
{
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"multipv\": 2}", false,
                   "unknown_field", "multipv"));
    CHECK_MSG(strstr(err.message, "did you mean 'multiPv'"), "%s", err.message);
    CHECK(
        rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"dept\": 1}}", false, "unknown_field", "limits.dept"));
    CHECK_MSG(strstr(err.message, "did you mean 'limits.depth'"), "%s", err.message);
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": \"affective\","
                   " \"affective\": {\"temper\": \"calm\"}}",
                   false, "unknown_field", "affective.temper"));
    CHECK_MSG(strstr(err.message, "did you mean 'affective.temperament'"), "%s", err.message);
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": \"bayesian\","
                   " \"bayesian\": {\"targt\": \"auto\"}}",
                   false, "unknown_field", "bayesian.targt"));
    CHECK_MSG(strstr(err.message, "did you mean 'bayesian.target'"), "%s", err.message);
    /* Nothing near: no suggestion. */
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"qqqqqqqqqqqq\": 1}", false,
                   "unknown_field", "qqqqqqqqqqqq"));
    CHECK_MSG(!strstr(err.message, "did you mean"), "%s", err.message);
}

static void test_bad_types(void)
{
    static const struct {
        const char *text, *field;
    } cases[] = {
        {"{\"fen\": 7, \"limits\": {\"depth\": 1}}", "fen"},
        {"{\"fen\": \"" FEN_STARTPOS "\", \"limits\": \"depth 1\"}", "limits"},
        {"{\"fen\": \"" FEN_STARTPOS "\", \"limits\": [1]}", "limits"},
        {"{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": 3}", "mode"},
        {"{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"multiPv\": 0}", "multiPv"},
        {"{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"multiPv\": \"2\"}", "multiPv"},
        {"{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"compare\": \"yes\"}", "compare"},
        {"{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"affective\": \"calm\"}", "affective"},
        {"{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"bayesian\": [\"auto\"]}", "bayesian"},
        {"{\"moves\": \"e2e4\", \"limits\": {\"depth\": 1}}", "moves"},
        {"{\"pgn\": 1, \"limits\": {\"depth\": 1}}", "pgn"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(rejected(cases[i].text, false, "bad_type", cases[i].field));
}

static void test_limits(void)
{
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\"}", false, "limits_missing", "limits"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {}}", false, "limits_missing", "limits"));
    static const struct {
        const char *limits, *field;
    } cases[] = {
        {"{\"depth\": 0}", "limits.depth"},
        {"{\"depth\": -3}", "limits.depth"},
        {"{\"depth\": \"5\"}", "limits.depth"},
        {"{\"depth\": 2.5}", "limits.depth"},
        {"{\"nodes\": 0}", "limits.nodes"},
        {"{\"nodes\": -1}", "limits.nodes"},
        {"{\"movetime\": 0}", "limits.movetime"},
        {"{\"movetime\": null}", "limits.movetime"},
        {"{\"depth\": 3, \"nodes\": true}", "limits.nodes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"fen\": \"%s\", \"limits\": %s}", FEN_STARTPOS, cases[i].limits);
        CHECK(rejected(text, false, "bad_limit", cases[i].field));
    }
}

static void test_modes(void)
{
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": \"fancy\"}", false,
                   "bad_mode", "mode"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": \"Classical\"}", false,
                   "bad_mode", "mode"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": \"affective\","
                   " \"affective\": {\"temperament\": \"grumpy\"}}",
                   false, "bad_temperament", "affective.temperament"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": \"affective\","
                   " \"affective\": {\"temperament\": 1}}",
                   false, "bad_temperament", "affective.temperament"));
    /* compare is the affective search beside the classical one, on a finite budget. */
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"compare\": true}", false,
                   "bad_compare", "compare"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"infinite\": true}, \"mode\": \"affective\","
                   " \"compare\": true}",
                   true, "bad_compare", "compare"));
    Job *job = analyse("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 2}, \"mode\": \"affective\","
                       " \"affective\": {\"temperament\": \"bold\"}, \"compare\": true}",
                       false);
    CHECK_MSG(job, "%s: %s", err.code, err.message);
    CHECK_STR(job->mode, "affective");
    CHECK(job->compare && job->has_emotion && !job->has_bayes);
    Evaluator expected; /* the evaluator of the emotion appraised at the root */
    affective_evaluator(&job->emotion, &expected);
    CHECK(!memcmp(expected.weight, job->eval.weight, sizeof expected.weight));
    CHECK(job->eval.fingerprint == expected.fingerprint);
    job_release(job);
    /* Bayesian mode's own errors come before anything is chosen. */
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": \"bayesian\","
                   " \"bayesian\": {\"target\": \"wild\"}}",
                   false, "bad_target", "bayesian.target"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"limits\": {\"depth\": 1}, \"mode\": \"bayesian\","
                   " \"bayesian\": {\"target\": \"auto\", \"default\": \"auto\"}}",
                   false, "bad_target", "bayesian.default"));
}

static void test_positions_rejected(void)
{
    CHECK(rejected("{\"limits\": {\"depth\": 1}}", false, "position_missing", "fen"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"pgn\": \"1. e4 *\", \"limits\": {\"depth\": 1}}", false,
                   "position_ambiguous", "pgn"));
    CHECK(rejected("{\"pgn\": \"1. e4 *\", \"moves\": [\"e7e5\"], \"limits\": {\"depth\": 1}}", false,
                   "position_ambiguous", "moves"));
    CHECK(rejected("{\"pgn\": \"1. e4 e5 2. Ke3 *\", \"limits\": {\"depth\": 1}}", false, "bad_pgn", "pgn"));
    CHECK(rejected("{\"pgn\": \"\", \"limits\": {\"depth\": 1}}", false, "bad_pgn", "pgn"));
    CHECK(rejected("{\"moves\": [\"e2e5\"], \"limits\": {\"depth\": 1}}", false, "bad_move", "moves"));
    CHECK_MSG(strstr(err.message, "moves[0] 'e2e5'"), "%s", err.message);
    CHECK(rejected("{\"moves\": [\"e2e4\", \"e7e5\", \"e1e2\", 5], \"limits\": {\"depth\": 1}}", false, "bad_move",
                   "moves"));
    CHECK_MSG(strstr(err.message, "moves[3]"), "%s", err.message);
    CHECK(rejected("{\"moves\": [\"e2e4\", \"e2e4\"], \"limits\": {\"depth\": 1}}", false, "bad_move", "moves"));
    CHECK(rejected("{\"fen\": \"" FEN_STARTPOS "\", \"moves\": [\"Nf3\"], \"limits\": {\"depth\": 1}}", false,
                   "bad_move", "moves")); /* UCI only */
}

/* The game of a request, as whole-game analysis reads it (request_read_game): a PGN without its
 * comments, or moves as an array or one string, the first max_plies kept with their SAN. */
static bool read_game_text(const char *text, int max_plies, PgnGame *g, Position *start)
{
    json_t *body = json_loads(text, 0, NULL);
    memset(&err, 0, sizeof err);
    bool ok = body && request_read_game(&err, body, max_plies, g, start);
    json_decref(body);
    return ok;
}

static void test_read_game(void)
{
    PgnGame g;
    static Position start;
    CHECK(read_game_text("{\"moves\": \" e2e4\\te7e5\\n g1f3  b8c6 \"}", 300, &g, &start));
    CHECK_INT(g.move_count, 4);
    CHECK_STR(g.moves[2].san, "Nf3");
    CHECK_STR(g.result, "*");
    CHECK(g.start_fen == NULL);
    pgn_game_free(&g);
    CHECK(read_game_text("{\"fen\": \"" KIWIPETE "\", \"moves\": [\"e1g1\", \"e8c8\", \"d5e6\"]}", 2, &g, &start));
    CHECK_INT(g.move_count, 2); /* the first two kept; the third still checked */
    CHECK_STR(g.moves[0].san, "O-O");
    CHECK_STR(g.start_fen, KIWIPETE);
    pgn_game_free(&g);
    CHECK(read_game_text("{\"pgn\": \"[White \\\"A\\\"]\\n\\n{start} 1. e4 $1 {best} (1. d4) e5 2. Nf3 1-0\"}", 2, &g,
                         &start));
    CHECK_INT(g.move_count, 2);
    CHECK_STR(pgn_tag(&g, "White"), "A");
    CHECK(g.comment == NULL && g.moves[0].comment == NULL && g.moves[0].variations == NULL);
    CHECK_INT(g.moves[0].nag_count, 0);
    CHECK_STR(g.moves[1].san, "e5");
    CHECK_STR(g.result, "1-0");
    pgn_game_free(&g);
    CHECK(!read_game_text("{\"moves\": \"e2e4 e7e5 e1e3\"}", 300, &g, &start));
    CHECK_STR(err.code, "bad_move");
    CHECK_MSG(strstr(err.message, "moves[2] 'e1e3'"), "%s", err.message);
    CHECK(read_game_text("{\"fen\": \"" KIWIPETE "\"}", 300, &g, &start)); /* no moves: none */
    CHECK_INT(g.move_count, 0);
    pgn_game_free(&g);
    CHECK(!read_game_text("{\"moves\": 5}", 300, &g, &start));
    CHECK_STR(err.code, "bad_type");
    CHECK(!read_game_text("{\"pgn\": \"1. e4 *\", \"moves\": \"e7e5\"}", 300, &g, &start));
    CHECK_STR(err.code, "position_ambiguous");
    CHECK(!read_game_text("{\"pgn\": 1}", 300, &g, &start));
    CHECK_STR(err.code, "bad_type");
    CHECK(!read_game_text("{\"pgn\": \"1. e4 e5 2. Ke3 *\"}", 300, &g, &start));
    CHECK_STR(err.code, "bad_pgn");
}

/* A bad FEN is rejected with the FEN reader's own code, on the field "fen". */
static void test_fen_errors(void)
{
    static const struct {
        const char *fen, *code;
    } cases[] = {
        {"", "fen_empty"},
        {"   ", "fen_empty"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "fen_field_count"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "fen_bad_piece"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "fen_rank_count"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "fen_rank_length"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "fen_bad_side"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "fen_bad_castling"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "fen_impossible_castling"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "fen_bad_en_passant"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "fen_impossible_en_passant"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "fen_bad_halfmove"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x", "fen_bad_fullmove"},
        {"8/8/8/8/8/8/8/4K3 w - - 0 1", "fen_missing_king"},
        {"4k3/8/8/8/8/8/8/4KK2 w - - 0 1", "fen_too_many_kings"},
        {"4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "fen_pawn_on_back_rank"},
        {"4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "fen_opponent_in_check"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"fen\": \"%s\", \"limits\": {\"depth\": 1}}", cases[i].fen);
        CHECK_MSG(rejected(text, false, cases[i].code, "fen"), "FEN '%s'", cases[i].fen);
    }
    /* Too long: the reader's limit, not a buffer of ours. */
    char text[1024], fen[700];
    memset(fen, '8', 600);
    fen[600] = 0;
    snprintf(text, sizeof text, "{\"fen\": \"%s\", \"limits\": {\"depth\": 1}}", fen);
    CHECK(rejected(text, false, "fen_too_long", "fen"));
}

void suite_request(void)
{
    RUN(test_config_defaults);
    RUN(test_valid_classical);
    RUN(test_positions);
    RUN(test_caps);
    RUN(test_infinite);
    RUN(test_unknown_fields);
    RUN(test_bad_types);
    RUN(test_limits);
    RUN(test_modes);
    RUN(test_positions_rejected);
    RUN(test_read_game);
    RUN(test_fen_errors);
}
