/* feelfish: one binary, subcommands. This file only dispatches; each command lives in its module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/engine.h"
#include "../engine/adapt/style.h"
#include "../engine/tools/datagen.h"
#include "../engine/tools/tune.h"
#include "store/bayes_store.h"
#include "cmd/learn.h"
#include "cmd/serve.h"

static int usage(FILE *f)
{
    fprintf(f, "feelfish - chess analysis engine and server\n\n"
               "usage: feelfish COMMAND [ARGS]\n\n"
               "  (no command) | uci               speak UCI on standard input/output\n"
               "  serve [options]                  the REST analysis server (serve --help)\n"
               "  bench [depth]                    fixed positions at a fixed depth: node signature and speed\n"
               "  analyse [--fen FEN] [--moves M] [--depth D|--movetime MS|--nodes N] [--multipv K]\n"
               "                                   one analysis as JSON (scores from White's view)\n"
               "  analyse --algorithm minimax|alphabeta|negascout|mtdf|all --depth D [--fen FEN]\n"
               "                                   the search lab: textbook algorithms, value and nodes\n"
               "  epd FILE.epd [--movetime MS] [--threads N] [--hash MB]\n"
               "                                   run a bm/am test suite: misses and 'solved S/T'\n"
               "  match --engine SPEC --engine SPEC (--tc B+I | --nodes N | --movetime MS | --depth D) [...]\n"
               "                                   engine-vs-engine games over UCI (match --help)\n"
               "  perft FEN DEPTH [--divide]       count leaf nodes (FEN may be 'startpos')\n"
               "  perft --suite FILE.epd [--max-nodes N]\n"
               "                                   check every ';Dn count' of an EPD file\n"
               "  pgn FILE.pgn [--check] [--quiet] read and replay every game of a PGN file\n"
               "  style-train [--data DIR] [--out FILE]\n"
               "                                   build the style model (default engine/style.model)\n"
               "  style FILE.pgn --player NAME [--model FILE]\n"
               "                                   a player's style per game: posterior and features\n"
               "  style-cv [--data DIR] [--folds K] [--seed S] [--prior model|uniform]\n"
               "                                   cross-validate the style classifier: confusion matrix\n"
               "  datagen --games N [--nodes N] [--threads T] [--seed S] [--params engine|handset] --out FILE\n"
               "                                   self-play positions labelled with results, for tune\n"
               "  tune [--labels FILE | --data DIR] [--from engine|handset] [--rounds N] [--out FILE]\n"
               "                                   tune the classical evaluation (engine/eval/tuned.c)\n"
               "  learn --games N [--concurrency C] [--nodes N | --tc S+I] [--db FILE]\n"
               "                                   self-play for the Bayesian model (learn --help)\n"
               "  bayes show|export FILE|import FILE [--db FILE]\n"
               "                                   inspect, export or merge the Bayesian model's counts\n"
               "  bayes-experiment [--sizes 0,50,100,200] [--games G] [...]\n"
               "                                   the BayesChess paper's experiments (learning curve)\n"
               "  help                             this text\n");
    return f == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
    engine_init(getenv("FEELFISH_ATTACKS"));
    bayes_set_reader(bayes_store_load_file);
    if (argc < 2)
        return uci_loop(stdin, stdout);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "uci"))
        return uci_loop(stdin, stdout);
    if (!strcmp(cmd, "analyse") || !strcmp(cmd, "analyze"))
        return analyse_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "serve"))
        return serve_command(argc - 2, argv + 2);
    if (!strcmp(cmd, "affective-ranges"))
        return affective_ranges_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "match"))
        return match_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "epd"))
        return epd_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "bench"))
        return bench_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "perft"))
        return perft_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "pgn"))
        return pgn_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "style-train"))
        return style_train_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "style"))
        return style_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "style-cv"))
        return style_cv_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "datagen"))
        return datagen_command(argc - 2, argv + 2);
    if (!strcmp(cmd, "tune"))
        return tune_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "learn"))
        return learn_command(argc - 2, argv + 2);
    if (!strcmp(cmd, "bayes"))
        return bayes_command(argc - 2, argv + 2);
    if (!strcmp(cmd, "bayes-experiment"))
        return bayes_experiment_command(argc - 2, argv + 2);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return usage(stdout);
    fprintf(stderr, "feelfish: unknown command '%s'\n\n", cmd);
    return usage(stderr);
}
