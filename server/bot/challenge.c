/* The challenge rules: see challenge.h. */
#include "challenge.h"

#include <string.h>

#include "../../engine/engine.h"

static const char *text(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

static double number(json_t *o, const char *key, double otherwise)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : otherwise;
}

/* A fromPosition FEN this engine can play: standard castling rights (no Chess960 files). */
static bool standard_fen(const char *fen)
{
    static Position p;
    if (!*fen || !strcmp(fen, "startpos"))
        return true;
    if (fen_read(&p, fen, NULL, 0) != FEN_OK)
        return false;
    const char *rights = strchr(fen, ' ');
    rights = rights ? strchr(rights + 1, ' ') : NULL;
    return !rights || strspn(rights + 1, "KQkq-") >= strcspn(rights + 1, " ");
}

static bool time_control_ok(const BotConfig *c, json_t *tc, const char *speed, bool from_bot)
{
    const char *type = text(tc, "type");
    if (!bot_list_has(&c->challenge.time_controls, speed))
        return false;
    if (!strcmp(type, "clock")) {
        double base = number(tc, "limit", 0), inc = number(tc, "increment", 0);
        if (inc < c->challenge.min_increment || inc > c->challenge.max_increment || base < c->challenge.min_base ||
            base > c->challenge.max_base)
            return false;
        return !(from_bot && !strcmp(speed, "bullet") && c->challenge.bullet_requires_increment && inc < 1);
    }
    if (!strcmp(type, "correspondence")) {
        double days = number(tc, "daysPerTurn", 0);
        return days >= c->challenge.min_days && days <= c->challenge.max_days;
    }
    return c->challenge.max_days >= BOT_INF; /* unlimited: only when days have no limit */
}

const char *bot_challenge_verdict(const BotConfig *c, json_t *ch, const BotLoad *load)
{
    json_t *challenger = json_object_get(ch, "challenger");
    bool is_bot = bot_challenge_from_bot(ch);
    const char *who = text(challenger, "id"), *variant = text(json_object_get(ch, "variant"), "key");
    if (!c->challenge.accept_bot && is_bot)
        return "noBot";
    if (c->challenge.only_bot && !is_bot)
        return "onlyBot";
    if (!time_control_ok(c, json_object_get(ch, "timeControl"), text(ch, "speed"), is_bot))
        return "timeControl";
    bool from_position = !strcmp(variant, "fromPosition");
    if ((strcmp(variant, "standard") && !from_position) || !bot_list_has(&c->challenge.variants, variant) ||
        (from_position && !standard_fen(text(ch, "initialFen"))))
        return "variant"; /* and this engine plays standard chess only */
    bool rated = json_is_true(json_object_get(ch, "rated"));
    if (!bot_list_has(&c->challenge.modes, rated ? "rated" : "casual"))
        return rated ? "casual" : "rated";
    /* The rating, as lichess-bot checks it: min_rating-max_rating, narrowed by rating_difference around
     * the bot's own rating in the challenge's perf (destUser's) when that is known; an unrated
     * challenger passes. */
    double rating = number(challenger, "rating", -1), mine = number(json_object_get(ch, "destUser"), "rating", -1);
    if (rating >= 0) {
        double lo = c->challenge.min_rating, hi = c->challenge.max_rating, diff = c->challenge.rating_difference;
        if (diff >= 0 && diff < BOT_INF && mine > 0) {
            lo = lo > mine - diff ? lo : mine - diff;
            hi = hi < mine + diff ? hi : mine + diff;
        }
        if (rating < lo || rating > hi)
            return "generic";
    }
    const char *name = text(challenger, "name");
    if (bot_list_has_user(&c->challenge.block_list, who, name))
        return "generic";
    if (c->challenge.allow_list.count && !bot_list_has_user(&c->challenge.allow_list, who, name))
        return "generic";
    if (is_bot && c->challenge.max_recent_bot_challenges >= 0 && c->challenge.recent_bot_challenge_age >= 0 &&
        load->recent_from_user >= c->challenge.max_recent_bot_challenges)
        return "later";
    if (load->games_with_user >= c->challenge.max_simultaneous_games_per_user)
        return "later";
    return NULL;
}

bool bot_challenge_from_bot(json_t *ch) { return !strcmp(text(json_object_get(ch, "challenger"), "title"), "BOT"); }

bool bot_challenge_fits(const BotConfig *c, json_t *ch, const BotLoad *load)
{
    return load->games_now < c->challenge.concurrency &&
           !(bot_challenge_from_bot(ch) &&
             load->bot_games_now >= c->challenge.concurrency - c->challenge.games_reserved_for_humans);
}

static double score(json_t *ch)
{
    json_t *who = json_object_get(ch, "challenger");
    bool titled_human = !bot_challenge_from_bot(ch) && *text(who, "title");
    return number(who, "rating", 0) + (json_is_true(json_object_get(ch, "rated")) ? 200 : 0) + (titled_human ? 200 : 0);
}

bool bot_challenge_before(const BotConfig *c, json_t *a, json_t *b)
{
    const char *pref = c->challenge.preference;
    if (strcmp(pref, "none") && bot_challenge_from_bot(a) != bot_challenge_from_bot(b))
        return bot_challenge_from_bot(a) == !strcmp(pref, "bot");
    return !strcmp(c->challenge.sort_by, "best") && score(a) > score(b);
}
