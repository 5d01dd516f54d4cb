/* The settings of `feelfish match`, read from its arguments, and the opening book it plays from. */
#ifndef FEELFISH_MATCH_CONFIG_H
#define FEELFISH_MATCH_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "match_engine.h"
#include "match_stats.h"

/* How an engine is asked for its moves: a clock, a fixed time a move, nodes, a depth (any of them
 * together but a clock and a move time). */
typedef struct {
    bool has_tc; /* a clock with base and increment */
    int64_t base_ms, inc_ms;
    char tc_text[48];    /* the TimeControl tag: "10+0.1" */
    long nodes;          /* 0: none */
    int depth;           /* 0: none */
    int64_t movetime_ms; /* 0: none */
    char text[96];       /* for reports: "tc 10+0.1", "nodes 2000" */
} MatchLimits;

typedef struct {
    MatchEngineConfig engines[2];
    /* Each engine's limits: --tc, --movetime, --nodes and --depth for both, unless an engine names
     * its own (tc=, movetime=, nodes=, depth= in its --engine), which then replace them for it. */
    MatchLimits limits[2];
    bool same_limits;     /* both engines play under the same limits */
    char limit_text[200]; /* for reports: "tc 10+0.1", or each engine's: "a movetime 1500 ms, b tc 3+0.03" */
    int time_margin_ms;
    int move_timeout_ms; /* hard limit per move when no clock bounds it */
    char **openings;     /* normal-form FENs; NULL: the standard start only */
    int opening_count;
    int *order; /* play order (file order or shuffled) */
    int opening_start;
    int games, concurrency, max_moves;
    const char *pgn_path;
    bool quiet, help;
    bool resume; /* --resume: the games already in pgn_path count and are not played again */
    bool has_sprt;
    MatchSprt sprt;
} MatchConfig;

/* Appends the positions of a FEN/EPD file (first four fields, plus the clocks when present) to
 * *list as normal-form FENs. False with "--openings: ..." on an unreadable file, a bad line or no
 * position. Used by match and learn. */
bool openings_load(const char *path, char ***list, int *count, char *err, size_t err_size);

/* Reads the arguments (and the openings file). False with a one-line reason on a bad argument;
 * the config must be freed with match_config_free either way. */
bool match_config_parse(MatchConfig *c, int argc, char **argv, char *err, size_t err_size);
void match_config_free(MatchConfig *c);

void match_config_usage(FILE *f);

/* One `cmd=PATH[,name=N][,arg=A]...[,option.NAME=VALUE]...` engine description (also used by
 * `feelfish epd --engine`); free with match_engine_config_free either way. */
bool match_engine_config_parse(MatchEngineConfig *e, const char *spec, char *err, size_t err_size);
void match_engine_config_free(MatchEngineConfig *e);

/* The start position of game `index` (0-based): games 2k and 2k+1 share an opening. */
const char *match_config_opening(const MatchConfig *c, int index);

#endif
