/* Reading lichess-bot's config.yml: see config.h. One table names every key this bridge reads
 * (its path, type and range) and where it goes; the YAML is loaded as a document and walked. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "../../engine/search/strength.h"

typedef enum { K_BOOL, K_NUM, K_TEXT, K_LIST, K_IGNORED } KeyType;

typedef struct {
    const char *path; /* "challenge.max_base"; for K_IGNORED a whole subtree */
    KeyType type;
    size_t offset, size; /* into BotConfig */
    double min, max;     /* K_NUM (.inf allowed when max is BOT_INF) */
    const char *choices; /* K_TEXT and K_LIST items: "a|b|c", or NULL for any */
} Key;

#define AT(field) offsetof(BotConfig, field), sizeof(((BotConfig *)0)->field)
#define NUM(p, f, lo, hi)                                                                                              \
    {                                                                                                                  \
        p, K_NUM, AT(f), lo, hi, NULL                                                                                  \
    }
#define BOOL(p, f)                                                                                                     \
    {                                                                                                                  \
        p, K_BOOL, AT(f), 0, 0, NULL                                                                                   \
    }
#define TEXT(p, f, ch)                                                                                                 \
    {                                                                                                                  \
        p, K_TEXT, AT(f), 0, 0, ch                                                                                     \
    }
#define LIST(p, f, ch)                                                                                                 \
    {                                                                                                                  \
        p, K_LIST, AT(f), 0, 0, ch                                                                                     \
    }
#define IGNORED(p)                                                                                                     \
    {                                                                                                                  \
        p, K_IGNORED, 0, 0, 0, 0, NULL                                                                                 \
    }

static const char Variants[] =
    "standard|fromPosition|antichess|atomic|chess960|crazyhouse|horde|kingOfTheHill|racingKings|threeCheck";
static const char Speeds[] = "ultraBullet|bullet|blitz|rapid|classical|correspondence";

static const Key Keys[] = {
    TEXT("token", token, NULL),
    TEXT("url", url, NULL),
    NUM("abort_time", abort_time, 0, 86400),
    BOOL("fake_think_time", fake_think_time),
    NUM("rate_limiting_delay", rate_limiting_delay, 0, 60000),
    NUM("move_overhead", move_overhead, 0, 60000),
    NUM("max_takebacks_accepted", max_takebacks_accepted, 0, 1000),
    BOOL("quit_after_all_games_finish", quit_after_all_games_finish),
    TEXT("pgn_directory", pgn_directory, NULL),
    TEXT("pgn_file_grouping", pgn_file_grouping, "game|opponent|all"),
    BOOL("engine.draw_or_resign.resign_enabled", draw_or_resign.resign_enabled),
    NUM("engine.draw_or_resign.resign_score", draw_or_resign.resign_score, -100000, 100000),
    NUM("engine.draw_or_resign.resign_moves", draw_or_resign.resign_moves, 1, 1000),
    BOOL("engine.draw_or_resign.offer_draw_enabled", draw_or_resign.offer_draw_enabled),
    NUM("engine.draw_or_resign.offer_draw_score", draw_or_resign.offer_draw_score, 0, 100000),
    NUM("engine.draw_or_resign.offer_draw_moves", draw_or_resign.offer_draw_moves, 1, 1000),
    NUM("engine.draw_or_resign.offer_draw_pieces", draw_or_resign.offer_draw_pieces, 2, 32),
    IGNORED("engine.draw_or_resign.resign_for_egtb_minus_two"),
    IGNORED("engine.draw_or_resign.offer_draw_for_egtb_zero"),
    IGNORED("engine"), /* lichess-bot's engine wrapper, books, tablebases: feelfish is the engine */
    NUM("correspondence.move_time", correspondence.move_time, 1, 86400),
    NUM("correspondence.checkin_period", correspondence.checkin_period, 1, 864000),
    NUM("correspondence.disconnect_time", correspondence.disconnect_time, 1, 864000),
    IGNORED("correspondence.ponder"),
    NUM("challenge.concurrency", challenge.concurrency, 1, 100),
    NUM("challenge.games_reserved_for_humans", challenge.games_reserved_for_humans, 0, 100),
    TEXT("challenge.sort_by", challenge.sort_by, "best|first"),
    TEXT("challenge.preference", challenge.preference, "none|human|bot"),
    BOOL("challenge.accept_bot", challenge.accept_bot),
    BOOL("challenge.only_bot", challenge.only_bot),
    NUM("challenge.max_increment", challenge.max_increment, 0, BOT_INF),
    NUM("challenge.min_increment", challenge.min_increment, 0, BOT_INF),
    NUM("challenge.max_base", challenge.max_base, 0, BOT_INF),
    NUM("challenge.min_base", challenge.min_base, 0, BOT_INF),
    NUM("challenge.max_days", challenge.max_days, 0, BOT_INF),
    NUM("challenge.min_days", challenge.min_days, 0, BOT_INF),
    LIST("challenge.variants", challenge.variants, Variants),
    LIST("challenge.time_controls", challenge.time_controls, Speeds),
    LIST("challenge.modes", challenge.modes, "casual|rated"),
    LIST("challenge.block_list", challenge.block_list, NULL),
    LIST("challenge.allow_list", challenge.allow_list, NULL),
    IGNORED("challenge.online_block_list"),
    NUM("challenge.min_rating", challenge.min_rating, 0, 10000),
    NUM("challenge.max_rating", challenge.max_rating, 0, 10000),
    NUM("challenge.rating_difference", challenge.rating_difference, 0, 10000),
    NUM("challenge.recent_bot_challenge_age", challenge.recent_bot_challenge_age, 0, BOT_INF),
    NUM("challenge.max_recent_bot_challenges", challenge.max_recent_bot_challenges, 0, BOT_INF),
    BOOL("challenge.bullet_requires_increment", challenge.bullet_requires_increment),
    NUM("challenge.max_simultaneous_games_per_user", challenge.max_simultaneous_games_per_user, 1, 1000),
    TEXT("greeting.hello", greeting.hello, NULL),
    TEXT("greeting.goodbye", greeting.goodbye, NULL),
    TEXT("greeting.hello_spectators", greeting.hello_spectators, NULL),
    TEXT("greeting.goodbye_spectators", greeting.goodbye_spectators, NULL),
    BOOL("matchmaking.allow_matchmaking", matchmaking.allow_matchmaking),
    BOOL("matchmaking.allow_during_games", matchmaking.allow_during_games),
    TEXT("matchmaking.challenge_variant", matchmaking.challenge_variant, NULL),
    NUM("matchmaking.challenge_timeout", matchmaking.challenge_timeout, 0, BOT_INF), /* minutes; fractions too */
    LIST("matchmaking.challenge_initial_time", matchmaking.challenge_initial_time, NULL),
    LIST("matchmaking.challenge_increment", matchmaking.challenge_increment, NULL),
    LIST("matchmaking.challenge_days", matchmaking.challenge_days, NULL),
    NUM("matchmaking.opponent_min_rating", matchmaking.opponent_min_rating, 0, 10000),
    NUM("matchmaking.opponent_max_rating", matchmaking.opponent_max_rating, 0, 10000),
    NUM("matchmaking.opponent_rating_difference", matchmaking.opponent_rating_difference, 0, 10000),
    TEXT("matchmaking.rating_preference", matchmaking.rating_preference, "none|high|low"),
    TEXT("matchmaking.challenge_mode", matchmaking.challenge_mode, "casual|rated|random"),
    TEXT("matchmaking.challenge_filter", matchmaking.challenge_filter, "none|coarse|fine"),
    LIST("matchmaking.block_list", matchmaking.block_list, NULL),
    IGNORED("matchmaking.online_block_list"),
    BOOL("matchmaking.include_challenge_block_list", matchmaking.include_challenge_block_list),
    IGNORED("matchmaking.challenge_decliner_file_name"),
    IGNORED("matchmaking.overrides"),
    TEXT("feelfish.mode", feelfish.mode, "classical|affective|bayesian"),
    TEXT("feelfish.temperament", feelfish.temperament, "neutral|calm|anxious|bold|thesis"),
    NUM("feelfish.gain", feelfish.gain, 0, 1),
    TEXT("feelfish.target", feelfish.target, "auto|aggressive|conservative"),
    NUM("feelfish.elo", feelfish.elo, 0, STRENGTH_ELO_MAX),
    NUM("feelfish.depth", feelfish.depth, 0, 119),
    NUM("feelfish.nodes", feelfish.nodes, 0, 1e12),
    NUM("feelfish.movetime", feelfish.movetime, 0, 3600000),
    NUM("feelfish.hash", feelfish.hash, 1, 65536),
    NUM("feelfish.threads", feelfish.threads, 1, 256),
};
#define KEY_COUNT (sizeof Keys / sizeof Keys[0])

/* lichess-bot's defaults for keys the file leaves out (its code's, lib/config.py, where they differ
 * from config.yml.default: a missing key means what lichess-bot makes of it). */
static void defaults(BotConfig *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->url, "https://lichess.org/");
    c->abort_time = 20;
    c->move_overhead = 1000;
    strcpy(c->pgn_file_grouping, "game");
    c->draw_or_resign.resign_score = -1000;
    c->draw_or_resign.resign_moves = 3;
    c->draw_or_resign.offer_draw_moves = 5;
    c->draw_or_resign.offer_draw_pieces = 10;
    c->correspondence.move_time = 60;
    c->correspondence.checkin_period = 600;
    c->correspondence.disconnect_time = 300;
    c->challenge.concurrency = 1;
    strcpy(c->challenge.sort_by, "best");
    strcpy(c->challenge.preference, "none");
    c->challenge.max_increment = 180;
    c->challenge.max_base = BOT_INF;
    c->challenge.max_days = BOT_INF;
    c->challenge.min_days = 1;
    c->challenge.max_rating = 4000;
    c->challenge.rating_difference = -1;
    c->challenge.recent_bot_challenge_age = -1;
    c->challenge.max_recent_bot_challenges = -1;
    c->challenge.max_simultaneous_games_per_user = 5;
    strcpy(c->challenge.variants.items[c->challenge.variants.count++], "standard");
    const char *const speeds[] = {"bullet", "blitz", "rapid", "classical"};
    for (int i = 0; i < 4; i++)
        strcpy(c->challenge.time_controls.items[c->challenge.time_controls.count++], speeds[i]);
    strcpy(c->challenge.modes.items[c->challenge.modes.count++], "casual");
    strcpy(c->challenge.modes.items[c->challenge.modes.count++], "rated");
    strcpy(c->greeting.hello, "Hi! I'm {me}. Good luck! Type !help for a list of commands I can respond to.");
    strcpy(c->greeting.goodbye, "Good game!");
    strcpy(c->greeting.hello_spectators, "Hi! I'm {me}. Type !help for a list of commands I can respond to.");
    strcpy(c->greeting.goodbye_spectators, "Thanks for watching!");
    c->matchmaking.challenge_timeout = 30;
    strcpy(c->matchmaking.challenge_variant, "random");
    strcpy(c->matchmaking.challenge_mode, "random");
    strcpy(c->matchmaking.rating_preference, "none");
    strcpy(c->matchmaking.challenge_filter, "none");
    c->matchmaking.opponent_min_rating = 600;
    c->matchmaking.opponent_max_rating = 4000;
    c->matchmaking.opponent_rating_difference = -1;
    strcpy(c->feelfish.mode, "classical");
    strcpy(c->feelfish.temperament, "neutral");
    c->feelfish.gain = -1;
    strcpy(c->feelfish.target, "auto");
    c->feelfish.hash = 64;
    c->feelfish.threads = 1;
}

bool bot_list_has(const BotList *list, const char *text)
{
    for (int i = 0; i < list->count; i++)
        if (!strcmp(list->items[i], text))
            return true;
    return false;
}

bool bot_list_has_user(const BotList *list, const char *id, const char *name)
{
    for (int i = 0; i < list->count; i++)
        if ((id && !strcasecmp(list->items[i], id)) || (name && !strcasecmp(list->items[i], name)))
            return true;
    return false;
}

static bool in_choices(const char *choices, const char *value)
{
    if (!choices)
        return true;
    size_t n = strlen(value);
    for (const char *p = choices; *p;) {
        size_t k = strcspn(p, "|");
        if (k == n && !strncmp(p, value, n))
            return true;
        p += k + (p[k] == '|');
    }
    return false;
}

static const Key *find_key(const char *path)
{
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (!strcmp(Keys[i].path, path))
            return &Keys[i];
    return NULL;
}

/* The ignored subtree path lies in, if any ("engine" for "engine.polyglot.enabled"). */
static const Key *ignored_by(const char *path)
{
    for (size_t i = 0; i < KEY_COUNT; i++) {
        size_t n = strlen(Keys[i].path);
        if (Keys[i].type == K_IGNORED && !strncmp(Keys[i].path, path, n) && (path[n] == 0 || path[n] == '.'))
            return &Keys[i];
    }
    return NULL;
}

/* A key some known key lies under ("challenge" for "challenge.concurrency"): a section. */
static bool is_section(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (!strncmp(Keys[i].path, path, n) && Keys[i].path[n] == '.')
            return true;
    return false;
}

static bool null_scalar(const char *v) { return !*v || !strcmp(v, "~") || !strcasecmp(v, "null"); }

static bool parse_bool(const char *v, bool *out)
{
    static const char *const Yes[] = {"true", "yes", "on", "y"}, *const No[] = {"false", "no", "off", "n"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, Yes[i]))
            return *out = true, true;
        if (!strcasecmp(v, No[i]))
            return *out = false, true;
    }
    return false;
}

static bool parse_number(const char *v, double *out)
{
    const char *p = v + (*v == '+' || *v == '-');
    if (!strcasecmp(p, ".inf") || !strcasecmp(p, "inf")) {
        *out = *v == '-' ? -BOT_INF : BOT_INF;
        return true;
    }
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(d))
        return false;
    *out = d;
    return true;
}

typedef struct {
    BotConfig *c;
    yaml_document_t *doc;
    FILE *warn;
    char *err;
    size_t err_size;
    char ignored[16][64]; /* ignored subtrees already mentioned */
    int ignored_count;
} Walk;

static bool set_scalar(Walk *w, const Key *k, const char *path, const char *v)
{
    char *field = (char *)w->c + k->offset;
    if (k->type == K_BOOL) {
        if (parse_bool(v, (bool *)field))
            return true;
        snprintf(w->err, w->err_size, "%s: '%.40s' is not true or false", path, v);
        return false;
    }
    if (k->type == K_NUM) {
        double d;
        if (null_scalar(v) && k->max == BOT_INF) { /* lichess-bot: a removed limit is no limit */
            *(double *)field = BOT_INF;
            return true;
        }
        if (!parse_number(v, &d) || d < k->min || (d > k->max && !(k->max == BOT_INF && d == BOT_INF))) {
            if (k->max == BOT_INF)
                snprintf(w->err, w->err_size, "%s: '%.40s' is not a number from %g (or .inf)", path, v, k->min);
            else
                snprintf(w->err, w->err_size, "%s: '%.40s' is not a number from %g to %g", path, v, k->min, k->max);
            return false;
        }
        *(double *)field = d;
        return true;
    }
    /* K_TEXT */
    if (strlen(v) >= k->size) {
        snprintf(w->err, w->err_size, "%s: longer than %zu characters", path, k->size - 1);
        return false;
    }
    if (!in_choices(k->choices, v)) {
        snprintf(w->err, w->err_size, "%s: '%.40s' is not one of %s", path, v, k->choices);
        return false;
    }
    strcpy(field, v);
    return true;
}

static bool set_list(Walk *w, const Key *k, const char *path, yaml_node_t *node)
{
    BotList *list = (BotList *)((char *)w->c + k->offset);
    list->count = 0;
    if (node->type == YAML_SCALAR_NODE) { /* a single value where a list is expected, or empty */
        const char *v = (const char *)node->data.scalar.value;
        if (null_scalar(v))
            return true;
        snprintf(w->err, w->err_size, "%s: give a list (one '- item' a line)", path);
        return false;
    }
    if (node->type != YAML_SEQUENCE_NODE) {
        snprintf(w->err, w->err_size, "%s: give a list (one '- item' a line)", path);
        return false;
    }
    for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node(w->doc, *it);
        const char *v = item && item->type == YAML_SCALAR_NODE ? (const char *)item->data.scalar.value : NULL;
        if (!v || strlen(v) >= sizeof list->items[0] || list->count == BOT_LIST_MAX) {
            snprintf(w->err, w->err_size, "%s: items are short words or numbers, at most %d", path, BOT_LIST_MAX);
            return false;
        }
        if (!in_choices(k->choices, v)) {
            snprintf(w->err, w->err_size, "%s: '%.40s' is not one of %s", path, v, k->choices);
            return false;
        }
        strcpy(list->items[list->count++], v);
    }
    return true;
}

static bool walk(Walk *w, yaml_node_t *node, const char *prefix)
{
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *key = yaml_document_get_node(w->doc, pair->key);
        yaml_node_t *value = yaml_document_get_node(w->doc, pair->value);
        if (!key || key->type != YAML_SCALAR_NODE || !value)
            continue;
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", (const char *)key->data.scalar.value);
        const Key *k = find_key(path);
        if (k && k->type == K_LIST) {
            if (!set_list(w, k, path, value))
                return false;
        } else if (k && k->type != K_IGNORED) {
            if (value->type != YAML_SCALAR_NODE) {
                snprintf(w->err, w->err_size, "%s: give one value, not a list or a section", path);
                return false;
            }
            if (!set_scalar(w, k, path, (const char *)value->data.scalar.value))
                return false;
        } else if (value->type == YAML_MAPPING_NODE && is_section(path)) {
            if (!walk(w, value, path))
                return false;
        } else if ((k = ignored_by(path))) {
            int i = 0;
            while (i < w->ignored_count && strcmp(w->ignored[i], k->path))
                i++;
            if (i == w->ignored_count && w->ignored_count < 16)
                snprintf(w->ignored[w->ignored_count++], sizeof w->ignored[0], "%s", k->path);
        } else if (w->warn)
            fprintf(w->warn, "bot config: unknown key '%s' (ignored)\n", path);
    }
    return true;
}

bool bot_config_load(BotConfig *c, const char *path, FILE *warn, char *err, size_t err_size)
{
    defaults(c);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    bool ok = yaml_parser_load(&parser, &doc);
    if (!ok)
        snprintf(err, err_size, "%s: line %zu: %s", path, parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "not YAML");
    yaml_parser_delete(&parser);
    fclose(f);
    if (!ok)
        return false;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        snprintf(err, err_size, "%s: expected keys and values (token: ..., challenge: ...)", path);
        yaml_document_delete(&doc);
        return false;
    }
    Walk w = {c, &doc, warn, err, err_size, {{0}}, 0};
    ok = walk(&w, root, "");
    yaml_document_delete(&doc);
    if (!ok)
        return false;
    for (int i = 0; warn && i < w.ignored_count; i++)
        fprintf(warn, "bot config: '%s' is lichess-bot's and not used by feelfish\n", w.ignored[i]);
    const char *env = getenv("LICHESS_BOT_TOKEN");
    if (env && *env)
        snprintf(c->token, sizeof c->token, "%s", env);
    size_t n = strlen(c->token);
    if (!n || strspn(c->token, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n) {
        snprintf(err, err_size,
                 "token: give the bot account's API token (letters, digits and _), in the file or "
                 "in LICHESS_BOT_TOKEN");
        return false;
    }
    if (strncmp(c->url, "http://", 7) && strncmp(c->url, "https://", 8)) {
        snprintf(err, err_size, "url: '%.80s' is not an http:// or https:// address", c->url);
        return false;
    }
    if (c->url[strlen(c->url) - 1] != '/' && strlen(c->url) + 1 < sizeof c->url)
        strcat(c->url, "/");
    if (c->feelfish.elo && (c->feelfish.elo < STRENGTH_ELO_MIN || c->feelfish.elo != (int)c->feelfish.elo)) {
        snprintf(err, err_size, "feelfish.elo: 0 (full strength) or a whole number from %d to %d", STRENGTH_ELO_MIN,
                 STRENGTH_ELO_MAX);
        return false;
    }
    const char *cv = c->matchmaking.challenge_variant;
    if (strcmp(cv, "random") && strcmp(cv, "standard")) { /* lichess-bot picks among the engine's variants */
        if (warn)
            fprintf(warn,
                    "bot config: matchmaking.challenge_variant '%s': this engine plays standard chess only, "
                    "so it challenges to standard\n",
                    cv);
        strcpy(c->matchmaking.challenge_variant, "standard");
    }
    if (c->challenge.min_base > c->challenge.max_base || c->challenge.min_increment > c->challenge.max_increment) {
        snprintf(err, err_size, "challenge: a min_ is above its max_");
        return false;
    }
    return true;
}

static void print_number(FILE *out, double d)
{
    if (d >= BOT_INF)
        fprintf(out, ".inf\n");
    else
        fprintf(out, "%g\n", d);
}

void bot_config_print(const BotConfig *c, FILE *out)
{
    for (size_t i = 0; i < KEY_COUNT; i++) {
        const Key *k = &Keys[i];
        if (k->type == K_IGNORED)
            continue;
        const char *field = (const char *)c + k->offset;
        fprintf(out, "%s: ", k->path);
        if (!strcmp(k->path, "token"))
            fprintf(out, "%s\n", c->token[0] ? "********" : "");
        else if (k->type == K_BOOL)
            fprintf(out, "%s\n", *(const bool *)field ? "true" : "false");
        else if (k->type == K_NUM)
            print_number(out, *(const double *)field);
        else if (k->type == K_TEXT)
            fprintf(out, "\"%s\"\n", field);
        else {
            const BotList *list = (const BotList *)field;
            fprintf(out, "[");
            for (int j = 0; j < list->count; j++)
                fprintf(out, "%s%s", j ? ", " : "", list->items[j]);
            fprintf(out, "]\n");
        }
    }
}
