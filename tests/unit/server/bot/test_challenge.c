/* The bot's config and challenge rules (bot/config, bot/challenge): lichess-bot's own
 * config.yml.default is read with its values; bad values are refused naming their key path; each
 * of lichess-bot's decline reasons comes from the rule that gives it, in its order. */
#include <stdio.h>
#include <stdlib.h>

#include "../../../../server/bot/challenge.h"
#include "../server_test.h"

static bool load_text(BotConfig *c, const char *yaml, char *err, size_t size)
{
    char path[] = "/tmp/feelfish-bot-config-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return false;
    fputs(yaml, f);
    fclose(f);
    FILE *warn = fopen("/dev/null", "w");
    bool ok = bot_config_load(c, path, warn, err, size);
    fclose(warn);
    remove(path);
    return ok;
}

static void test_lichess_bot_default_file(void)
{
    BotConfig c;
    char err[300];
    FILE *warn = fopen("/dev/null", "w");
    bool ok = bot_config_load(&c, "tests/bot/lichess-bot.config.yml.default", warn, err, sizeof err);
    fclose(warn);
    CHECK_MSG(ok, "%s", err);
    CHECK_STR(c.url, "https://lichess.org/");
    CHECK(c.abort_time == 30 && c.move_overhead == 2000);
    CHECK(c.challenge.concurrency == 1 && c.challenge.accept_bot && !c.challenge.only_bot);
    CHECK(c.challenge.max_base == 1800 && c.challenge.max_increment == 20 && c.challenge.max_days == 14);
    CHECK(bot_list_has(&c.challenge.variants, "standard") && c.challenge.variants.count == 1);
    CHECK(c.challenge.time_controls.count == 4 && !bot_list_has(&c.challenge.time_controls, "correspondence"));
    CHECK(c.draw_or_resign.offer_draw_enabled && c.draw_or_resign.offer_draw_moves == 10);
    CHECK(!c.draw_or_resign.resign_enabled && c.draw_or_resign.resign_score == -1000);
    CHECK(c.correspondence.checkin_period == 300 && c.challenge.max_simultaneous_games_per_user == 5);
}

static void test_missing_keys_take_lichess_bots_code_defaults(void)
{
    BotConfig c;
    char err[300];
    CHECK_MSG(load_text(&c, "token: abc_DEF1\nchallenge:\n  max_days: .inf\n", err, sizeof err), "%s", err);
    CHECK(!c.challenge.accept_bot);         /* code default False (the file's is true) */
    CHECK(c.challenge.max_base >= BOT_INF); /* no limit */
    CHECK(c.challenge.max_days >= BOT_INF && c.move_overhead == 1000 && c.abort_time == 20);
    CHECK_STR(c.feelfish.mode, "classical");
    CHECK_STR(c.url, "https://lichess.org/");
}

static void test_bad_values_name_their_key(void)
{
    BotConfig c;
    char err[300];
    CHECK(!load_text(&c, "token: abc\nchallenge:\n  concurrency: lots\n", err, sizeof err));
    CHECK_MSG(strstr(err, "challenge.concurrency"), "%s", err);
    CHECK(!load_text(&c, "token: abc\nchallenge:\n  variants: [standard, bughouse]\n", err, sizeof err));
    CHECK_MSG(strstr(err, "challenge.variants") && strstr(err, "bughouse"), "%s", err);
    CHECK(!load_text(&c, "token: abc\nfeelfish:\n  mode: psychic\n", err, sizeof err));
    CHECK_MSG(strstr(err, "feelfish.mode"), "%s", err);
    CHECK(!load_text(&c, "token: abc\nengine:\n  draw_or_resign:\n    resign_enabled: maybe\n", err, sizeof err));
    CHECK_MSG(strstr(err, "engine.draw_or_resign.resign_enabled"), "%s", err);
    CHECK(!load_text(&c, "token: \"has space\"\n", err, sizeof err));
    CHECK_MSG(strstr(err, "token") && !strstr(err, "has space"), "%s", err); /* the token is not repeated */
    CHECK(!load_text(&c, "token: abc\nurl: ftp://x/\n", err, sizeof err));
    CHECK(!load_text(&c, "token: [unclosed\n", err, sizeof err));
}

/* A challenge event's ChallengeJson. */
static json_t *challenge(const char *variant, const char *speed, const char *tc, bool rated, bool bot)
{
    json_error_t je;
    json_t *t = json_loads(tc, 0, &je);
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:i, s:s?}, s:{s:s}, s:{s:s}, s:s, s:o, s:b, s:{s:i}}", "id", "abcd1234",
                     "direction", "in", "challenger", "id", "someone", "name", "Someone", "rating", 1500, "title",
                     bot ? "BOT" : NULL, "destUser", "id", "feelbot", "variant", "key", variant, "speed", speed,
                     "timeControl", t, "rated", rated, "perf", "icon", 1);
}

#define BLITZ "{\"type\": \"clock\", \"limit\": 300, \"increment\": 2}"

static void test_challenge_verdicts_in_lichess_bots_order(void)
{
    BotConfig c;
    char err[300];
    CHECK_MSG(load_text(&c,
                        "token: abc\nchallenge:\n  accept_bot: false\n  max_base: 1800\n  max_increment: 20\n"
                        "  max_days: 14\n  modes: [casual]\n  time_controls: [bullet, blitz, rapid, correspondence]\n"
                        "  variants: [standard, chess960]\n  block_list: [pest]\n",
                        err, sizeof err),
              "%s", err);
    BotLoad idle = {0, 0, 0, 0}, busy = {1, 0, 0, 0}, same_user = {5, 0, 5, 0};
    struct {
        json_t *ch;
        const BotLoad *load;
        const char *verdict;
    } cases[] = {
        {challenge("standard", "blitz", BLITZ, false, false), &idle, NULL},
        {challenge("standard", "blitz", BLITZ, false, true), &idle, "noBot"},
        {challenge("standard", "blitz", "{\"type\": \"clock\", \"limit\": 5400, \"increment\": 0}", false, false),
         &idle, "timeControl"},
        {challenge("standard", "classical", "{\"type\": \"clock\", \"limit\": 1800, \"increment\": 30}", false, false),
         &idle, "timeControl"},
        {challenge("standard", "correspondence", "{\"type\": \"correspondence\", \"daysPerTurn\": 30}", false, false),
         &idle, "timeControl"},
        {challenge("standard", "correspondence", "{\"type\": \"unlimited\"}", false, false), &idle, "timeControl"},
        {challenge("standard", "ultraBullet", "{\"type\": \"clock\", \"limit\": 15, \"increment\": 0}", false, false),
         &idle, "timeControl"},
        {challenge("chess960", "blitz", BLITZ, false, false), &idle, "variant"}, /* allowed, but not playable */
        {challenge("atomic", "blitz", BLITZ, false, false), &idle, "variant"},
        {challenge("standard", "blitz", BLITZ, true, false), &idle, "casual"},
        {challenge("standard", "blitz", BLITZ, false, false), &busy, NULL},         /* queued: no room is not a no */
        {challenge("standard", "blitz", BLITZ, false, false), &same_user, "later"}, /* 5 games with them */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *v = bot_challenge_verdict(&c, cases[i].ch, cases[i].load);
        CHECK_MSG((!v && !cases[i].verdict) || (v && cases[i].verdict && !strcmp(v, cases[i].verdict)),
                  "case %zu: %s, expected %s", i, v ? v : "accept", cases[i].verdict ? cases[i].verdict : "accept");
        json_decref(cases[i].ch);
    }
    json_t *pest = challenge("standard", "blitz", BLITZ, false, false);
    json_object_set_new(json_object_get(pest, "challenger"), "id", json_string("pest"));
    const char *v = bot_challenge_verdict(&c, pest, &idle);
    json_decref(pest);
    CHECK_STR(v, "generic");
    json_t *human = challenge("standard", "blitz", BLITZ, false, false);
    CHECK(bot_challenge_fits(&c, human, &idle));
    CHECK(!bot_challenge_fits(&c, human, &busy));
    json_decref(human);
}

static json_t *rated_by(double rating, bool rated, bool bot, const char *title)
{
    json_t *ch = challenge("standard", "blitz", BLITZ, rated, bot);
    json_t *who = json_object_get(ch, "challenger");
    json_object_set_new(who, "rating", json_real(rating));
    if (title)
        json_object_set_new(who, "title", json_string(title));
    return ch;
}

/* lichess-bot's queue order: best = rating + 200 rated + 200 titled human; preference first. */
static void test_queue_order(void)
{
    BotConfig c;
    char err[300];
    CHECK_MSG(load_text(&c, "token: abc\nchallenge:\n  accept_bot: true\n", err, sizeof err), "%s", err);
    json_t *a = rated_by(1900, false, false, NULL), *b = rated_by(1800, true, false, NULL),
           *gm = rated_by(1700, false, false, "GM"), *bot = rated_by(2500, false, true, NULL);
    CHECK(bot_challenge_before(&c, b, a));           /* 2000 > 1900 */
    CHECK(bot_challenge_before(&c, gm, a) == false); /* 1900 = 1900: first come */
    CHECK(bot_challenge_before(&c, bot, b));         /* 2500 */
    strcpy(c.challenge.preference, "human");
    CHECK(bot_challenge_before(&c, a, bot));
    CHECK(!bot_challenge_before(&c, bot, a));
    strcpy(c.challenge.preference, "none");
    strcpy(c.challenge.sort_by, "first");
    CHECK(!bot_challenge_before(&c, b, a) && !bot_challenge_before(&c, a, b));
    /* the recent-bot limit: a bot's third challenge within the age */
    CHECK_MSG(load_text(&c,
                        "token: abc\nchallenge:\n  accept_bot: true\n  recent_bot_challenge_age: 60\n"
                        "  max_recent_bot_challenges: 2\n",
                        err, sizeof err),
              "%s", err);
    BotLoad two = {0, 0, 0, 2}, one = {0, 0, 0, 1};
    CHECK_STR(bot_challenge_verdict(&c, bot, &two), "later");
    CHECK(bot_challenge_verdict(&c, bot, &one) == NULL);
    CHECK(bot_challenge_verdict(&c, a, &two) == NULL); /* humans are not counted */
    json_decref(a);
    json_decref(b);
    json_decref(gm);
    json_decref(bot);
}

/* Ratings as lichess-bot checks them: min_rating-max_rating narrowed (not replaced) by rating_difference
 * around the bot's own rating (destUser's), an unrated challenger let through; block_list and
 * allow_list name users by id or name in any case (lichess-bot's lists hold names). */
static void test_ratings_and_user_lists(void)
{
    BotConfig c;
    char err[300];
    CHECK_MSG(load_text(&c,
                        "token: abc\nchallenge:\n  min_rating: 1000\n  rating_difference: 300\n"
                        "  block_list: [PEST]\n  allow_list: [MyFriend, Pest, Rated900, Rated1400, Unrated]\n",
                        err, sizeof err),
              "%s", err);
    BotLoad idle = {0, 0, 0, 0};
    struct {
        const char *id, *name;
        double rating; /* < 0: none */
        const char *verdict;
    } cases[] = {
        {"myfriend", "MyFriend", 1300, NULL},     /* in the allow list by name, any case */
        {"pest", "Pest", 1300, "generic"},        /* blocked (PEST) though allowed */
        {"rated900", "Rated900", 900, "generic"}, /* within 300 of 1200, but under min_rating */
        {"rated1400", "Rated1400", 1400, NULL},   {"rated1400", "Rated1400", 1600, "generic"}, /* beyond 1200 + 300 */
        {"unrated", "Unrated", -1, NULL},         {"stranger", "Stranger", 1300, "generic"}, /* not on the allow list */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *ch = challenge("standard", "blitz", BLITZ, false, false);
        json_t *who = json_object_get(ch, "challenger");
        json_object_set_new(who, "id", json_string(cases[i].id));
        json_object_set_new(who, "name", json_string(cases[i].name));
        if (cases[i].rating < 0)
            json_object_del(who, "rating");
        else
            json_object_set_new(who, "rating", json_real(cases[i].rating));
        json_object_set_new(json_object_get(ch, "destUser"), "rating", json_integer(1200));
        const char *v = bot_challenge_verdict(&c, ch, &idle);
        CHECK_MSG((!v && !cases[i].verdict) || (v && cases[i].verdict && !strcmp(v, cases[i].verdict)),
                  "case %zu (%s %g): %s, expected %s", i, cases[i].id, cases[i].rating, v ? v : "accept",
                  cases[i].verdict ? cases[i].verdict : "accept");
        json_decref(ch);
    }
}

void suite_bot(void)
{
    RUN(test_lichess_bot_default_file);
    RUN(test_missing_keys_take_lichess_bots_code_defaults);
    RUN(test_bad_values_name_their_key);
    RUN(test_challenge_verdicts_in_lichess_bots_order);
    RUN(test_queue_order);
    RUN(test_ratings_and_user_lists);
}
