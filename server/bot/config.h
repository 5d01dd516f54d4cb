/* The bot's settings: lichess-bot's own config.yml (same keys, same defaults as its
 * config.yml.default), so a lichess-bot user points feelfish at the file they have, plus a
 * `feelfish:` section for this engine. Keys lichess-bot has for its engine wrapper, books and
 * tablebases are read and ignored (said once, at info level); unknown keys are warned about; a bad
 * value is refused naming its key path. */
#ifndef FEELFISH_BOT_CONFIG_H
#define FEELFISH_BOT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BOT_LIST_MAX 64
#define BOT_INF 1e300 /* ".inf" in the file, or a key removed where lichess-bot reads that as no limit */

typedef struct {
    char items[BOT_LIST_MAX][64];
    int count;
} BotList;

typedef struct {
    char token[600]; /* never printed */
    char url[256];
    double abort_time, move_overhead, rate_limiting_delay; /* s, ms, ms */
    double max_takebacks_accepted;
    bool quit_after_all_games_finish, fake_think_time;
    char pgn_directory[512], pgn_file_grouping[16];
    struct {
        double concurrency, games_reserved_for_humans;
        char sort_by[16], preference[16];
        bool accept_bot, only_bot, bullet_requires_increment;
        double max_increment, min_increment, max_base, min_base, max_days, min_days;
        BotList variants, time_controls, modes, block_list, allow_list;
        double min_rating, max_rating, rating_difference;           /* rating_difference < 0: none */
        double recent_bot_challenge_age, max_recent_bot_challenges; /* < 0: none */
        double max_simultaneous_games_per_user;
    } challenge;
    struct {
        bool resign_enabled, offer_draw_enabled;
        double resign_score, resign_moves, offer_draw_score, offer_draw_moves, offer_draw_pieces;
    } draw_or_resign;
    struct {
        char hello[300], goodbye[300], hello_spectators[300], goodbye_spectators[300];
    } greeting;
    struct {
        double move_time, checkin_period, disconnect_time; /* s */
    } correspondence;
    struct {
        bool allow_matchmaking, allow_during_games, include_challenge_block_list;
        double challenge_timeout; /* minutes */
        BotList challenge_initial_time, challenge_increment, challenge_days, block_list;
        char challenge_variant[32], challenge_mode[16], rating_preference[16], challenge_filter[16];
        double opponent_min_rating, opponent_max_rating, opponent_rating_difference;
    } matchmaking;
    struct {
        char mode[16];                 /* classical, affective or bayesian */
        char temperament[16];          /* affective: TEMPERAMENT_NAMES */
        double gain;                   /* affective: the emotion's hold, 0..1; -1: the temperament's */
        char target[16];               /* bayesian: auto, aggressive, conservative */
        double elo;                    /* play at this rating (strength.h), 0: full strength */
        double depth, nodes, movetime; /* caps on each search (0: the clock decides) */
        double hash, threads;          /* MB per game search, threads per search */
    } feelfish;
} BotConfig;

/* Reads the file into c (defaults first). False with a message naming the key path (or the YAML
 * line) in err. Warnings (unknown keys) go to `warn` one per line, which may be NULL. The token
 * may also come from LICHESS_BOT_TOKEN (which wins). */
bool bot_config_load(BotConfig *c, const char *path, FILE *warn, char *err, size_t err_size);
/* The settings as read, one "key: value" per line (the token starred). */
void bot_config_print(const BotConfig *c, FILE *out);
/* Whether list holds text. */
bool bot_list_has(const BotList *list, const char *text);
/* Whether a list of users (block_list, allow_list) names this one by id or by name, in any case (Lichess
 * ids are the lower-cased names; lichess-bot's lists hold names). */
bool bot_list_has_user(const BotList *list, const char *id, const char *name);

#endif
