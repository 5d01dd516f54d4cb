/* `feelfish analyse`: one analysis (or the search lab's textbook algorithms) from the command line,
 * printed in the API's shapes (server/api/encode.h): the same JSON as POST /api/analyse, without
 * an id. Scores from White's point of view; the lab's `value` is the side to move's. */
#include "analyse.h"

#include <stdlib.h>
#include <string.h>

#include "../base/config.h"
#include "../../engine/adapt/adaptive.h"
#include "../../engine/engine.h"
#include "../../engine/search/lab.h"
#include "../api/encode.h"
#include "../api/reply.h"
#include "args.h"

static void print_json(FILE *out, json_t *o)
{
    char *text = api_dumps(o, true);
    json_decref(o);
    fprintf(out, "%s\n", text ? text : "null");
    free(text);
}

int analyse_command(int argc, char **argv, FILE *out)
{
    const char *fen = FEN_STARTPOS, *moves = NULL, *algorithm = NULL, *mode = "classical", *temper = "neutral";
    const char *target_name = "auto", *db = config_default_db(), *style_path = "engine/style.model";
    long depth = 0, movetime = 0, nodes = 0, multipv = 1, threads = 1, hash = 64;
    double gain = -1; /* affective: the temperament's */
    for (int i = 0; i < argc; i += 2) { /* a flag and its value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (!strcmp(a, "--fen") && v)
            fen = v;
        else if (!strcmp(a, "--moves") && v)
            moves = v;
        else if (!strcmp(a, "--algorithm") && v)
            algorithm = v;
        else if (!strcmp(a, "--mode") && v)
            mode = v;
        else if (!strcmp(a, "--temperament") && v)
            temper = v;
        else if (!strcmp(a, "--gain"))
            ok = args_double("analyse", a, v, 0, AFFECTIVE_GAIN_MAX, &gain);
        else if (!strcmp(a, "--target") && v)
            target_name = v;
        else if (!strcmp(a, "--db") && v)
            db = v;
        else if (!strcmp(a, "--style-model") && v)
            style_path = v;
        else if (!strcmp(a, "--depth"))
            ok = args_long("analyse", a, v, 1, MAX_PLY - 1, &depth);
        else if (!strcmp(a, "--movetime"))
            ok = args_long("analyse", a, v, 1, 1L << 31, &movetime);
        else if (!strcmp(a, "--nodes"))
            ok = args_long("analyse", a, v, 1, 1L << 40, &nodes);
        else if (!strcmp(a, "--multipv"))
            ok = args_long("analyse", a, v, 1, MAX_MULTIPV, &multipv);
        else if (!strcmp(a, "--threads"))
            ok = args_long("analyse", a, v, 1, MAX_THREADS, &threads);
        else if (!strcmp(a, "--hash"))
            ok = args_long("analyse", a, v, 1, 32768, &hash);
        else {
            fprintf(stderr,
                    "analyse: unknown or incomplete argument '%s'\n"
                    "usage: feelfish analyse [--fen FEN] [--moves \"e2e4 e7e5\"] [--depth D | --movetime MS |"
                    " --nodes N]\n"
                    "                        [--multipv K] [--threads N] [--hash MB]\n"
                    "                        [--mode classical|affective|bayesian] [--temperament "
                    "neutral|calm|anxious|bold|thesis] [--gain 0..1]\n"
                    "                        [--target auto|aggressive|conservative] [--db FILE] [--style-model FILE]\n"
                    "       feelfish analyse --algorithm minimax|alphabeta|scout|negascout|sss|mtdf|all --depth D "
                    "[--fen FEN]\n",
                    a);
            return 2;
        }
        if (!ok)
            return 2;
    }
    if (strcmp(mode, "classical") && strcmp(mode, "affective") && strcmp(mode, "bayesian")) {
        fprintf(stderr, "analyse: mode '%s' is not one of classical, affective, bayesian\n", mode);
        return 2;
    }
    BayesTarget target;
    bool auto_target;
    if (!adaptive_parse_target(target_name, &target, &auto_target)) {
        fprintf(stderr, "analyse: target '%s' is not one of auto, aggressive, conservative\n", target_name);
        return 2;
    }
    const Temperament *temperament = temperament_find(temper);
    if (!temperament) {
        fprintf(stderr, "analyse: temperament '%s' is not one of " TEMPERAMENT_NAMES "\n", temper);
        return 2;
    }
    Position *p = malloc(sizeof *p);
    if (!p)
        return 1;
    char msg[200];
    FenError e = fen_read(p, fen, msg, sizeof msg);
    if (e != FEN_OK) {
        fprintf(stderr, "analyse: bad FEN (%s): %s\n", fen_error_code(e), msg);
        free(p);
        return 2;
    }
    Position *start = malloc(sizeof *start);
    Move *played = malloc(2048 * sizeof *played);
    int played_count = 0;
    if (!start || !played) {
        free(p);
        free(start);
        free(played);
        return 1;
    }
    position_copy_root(start, p);
    if (moves) {
        char buf[8192];
        snprintf(buf, sizeof buf, "%s", moves);
        for (char *save, *t = strtok_r(buf, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
            Move m = move_from_uci(p, t);
            if (!m)
                m = san_read(p, t);
            if (!m) {
                fprintf(stderr, "analyse: illegal move '%s'\n", t);
                free(p);
                free(start);
                free(played);
                return 2;
            }
            if (p->stack_len > POSITION_STACK_SIZE / 2)
                position_trim_history(p);
            position_make_move(p, m);
            if (played_count < 2048)
                played[played_count++] = m;
        }
    }
    Evaluator eval;
    Emotion emotion;
    bool affective = !strcmp(mode, "affective");
    if (affective) {
        Temperament at = temperament_at_gain(temperament, gain);
        affective_emotion(p, NULL, &at, &emotion); /* once at the root, fixed for the search */
        affective_evaluator(&emotion, &eval);
    } else
        evaluator_classical(&eval);
    bool bayesian = !strcmp(mode, "bayesian");
    BayesChoice choice;
    static EvalParams bayes_params;
    if (bayesian) {
        BayesModel model;
        StyleModel style;
        char err[300];
        bool has_style = style_model_load(&style, style_path, err, sizeof err);
        if (!has_style && auto_target)
            fprintf(stderr, "analyse: style model: %s (auto uses the conservative default)\n", err);
        if (!bayes_model_init(&model)) {
            free(p);
            free(start);
            free(played);
            return 1;
        }
        if (!bayes_read_model(db, &model, err, sizeof err))
            fprintf(stderr, "analyse: Bayesian model %s: %s (the default vector)\n", db, err);
        MoveHistory h = {start, played, played_count};
        adaptive_choose(&model, has_style ? &style : NULL, p, &h, target, auto_target, start->st->key, &choice,
                        &bayes_params, &eval);
        bayes_model_free(&model);
    }
    free(start);
    free(played);
    char fen_out[FEN_BUFFER_SIZE];
    fen_write(p, fen_out);

    if (algorithm) {
        int only = strcmp(algorithm, "all") ? lab_algorithm_from_name(algorithm) : -1;
        if (strcmp(algorithm, "all") && only < 0) {
            fprintf(stderr, "analyse: unknown algorithm '%s' (minimax, alphabeta, scout, negascout, sss, mtdf, all)\n",
                    algorithm);
            free(p);
            return 2;
        }
        if (!depth || depth > 8) {
            fprintf(stderr, "analyse: --algorithm needs --depth from 1 to 8\n");
            free(p);
            return 2;
        }
        json_t *algorithms = json_array();
        for (int a = 0; a < LAB_ALGORITHM_NB; a++) {
            if (only >= 0 && a != only)
                continue;
            LabResult r;
            int64_t t0 = time_now_ms();
            lab_run((LabAlgorithm)a, p, (int)depth, &eval, NULL, &r);
            json_array_append_new(algorithms, encode_lab((LabAlgorithm)a, &r, time_now_ms() - t0));
        }
        print_json(out, json_pack("{s:s, s:i, s:o}", "fen", fen_out, "depth", (int)depth, "algorithms", algorithms));
        free(p);
        return 0;
    }

    if (!depth && !movetime && !nodes)
        depth = 12;
    Search *s = search_new();
    if (!s || !search_set_hash(s, (size_t)hash) || !search_set_threads(s, (int)threads)) {
        fprintf(stderr, "analyse: cannot set up the search (memory or threads)\n");
        free(p);
        return 1;
    }
    SearchLimits l;
    search_limits_init(&l);
    l.depth = (int)depth;
    l.movetime = movetime;
    l.nodes = (uint64_t)nodes;
    l.multipv = (int)multipv;
    SearchResult r;
    search_run(s, p, &l, &eval, NULL, &r);
    print_json(out, encode_analysis(p, mode, &r, NULL, affective ? &emotion : NULL, bayesian ? &choice : NULL));
    search_free(s);
    free(p);
    return 0;
}
