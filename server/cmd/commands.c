/* The server's command table: what `feelfish help` lists under each name and what runs it. */
#include "commands.h"

#include "analyse.h"
#include "annotate.h"
#include "bayes.h"
#include "bot.h"
#include "cluster.h"
#include "db.h"
#include "learn.h"
#include "serve.h"
#include "token.h"
#include "worker.h"

const Command ServerCommands[] = {
    {"serve", NULL, "[options]", "the REST analysis server (serve --help)", serve_command},
    {"analyse", "analyze",
     "[--fen FEN] [--moves M] [--depth D|--movetime MS|--nodes N] [--multipv K]\n"
     "--algorithm minimax|alphabeta|scout|negascout|sss|mtdf|all --depth D [--fen FEN]",
     "one analysis as JSON (scores from White's view)\nthe search lab: textbook algorithms, value and nodes",
     analyse_command},
    {"annotate", NULL,
     "IN.pgn [--nodes N|--depth D|--movetime MS] [--mode M] [--threads N] [--out OUT.pgn] [--json F]\n"
     "[--db FILE]",
     "whole-game analysis of a PGN file as Lichess's (resumable)", annotate_command},
    {"worker", NULL, "--redis redis://HOST:PORT[/DB] [--threads N] [--hash MB] [--reclaim-ms MS]",
     "a cluster's search worker: runs the jobs fronts (serve --redis) put into Redis", worker_command},
    {"cluster", NULL, "status --redis redis://HOST:PORT[/DB]",
     "a cluster's live fronts and workers, the job backlog, what each worker holds", cluster_command},
    {"learn", NULL, "--games N [--concurrency C] [--nodes N | --tc S+I] [--db FILE]",
     "self-play for the Bayesian model (learn --help)", learn_command},
    {"bot", NULL, "--config FILE [--print-config] [serve options]",
     "play on Lichess as a BOT (lichess-bot's config.yml)", bot_command},
    {"token", NULL, "create --scopes S [--name N] | list | revoke ID [--db FILE]",
     "API tokens for --auth (token with no verb: help)", token_command},
    {"db", NULL, "stats | prune [--retention-days N] [--vacuum] [--db FILE]",
     "the database's contents; retention applied by hand", db_command},
    {"bayes", NULL, "show|export FILE|import FILE [--db FILE]", "inspect, export or merge the Bayesian model's counts",
     bayes_command},
    {"bayes-experiment", NULL, "[--sizes 0,50,100,200] [--games G] [...]",
     "the BayesChess paper's experiments (learning curve)", bayes_experiment_command},
};
const int ServerCommandCount = (int)(sizeof ServerCommands / sizeof ServerCommands[0]);
