/* Matchmaking: see matchmaking.h. */
#include "matchmaking.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/clock.h"
#include "../base/log.h"
#include "bot_game.h"
#include "incoming.h"
#include "session.h"

#define BETWEEN_MS 60000       /* lichess-bot: a minute between challenges at least */
#define DURING_GAMES_MS 600000 /* with allow_during_games: ten minutes */
#define EXPIRE_MS 25000        /* unanswered: cancelled (Lichess lets a challenge live 20 s) */
#define DECLINED_MS 86400000LL /* a decline is remembered for a day */
#define DECLINERS 64
#define ONLINE_NB 100

static struct {
    int64_t idle_since, last_sent, held_until;
    char waiting[16]; /* our challenge's id while it waits for an answer */
    int64_t waiting_since;
    bool asking; /* the online list, or the challenge, is on its way */
    int sent;
    BotStamp decliners[DECLINERS]; /* "who|aspect" (aspect "": the bot as a whole) */
    json_t *perfs;
    /* what the challenge in flight was about, for the decline's fine filter */
    char opponent[64], speed[24], variant[32], mode[16];
} M;

static const BotConfig *cfg(void) { return &B.cfg; }

void matchmaking_set_perfs(json_t *perfs)
{
    json_decref(M.perfs);
    M.perfs = json_is_object(perfs) ? json_incref(perfs) : NULL;
}

void matchmaking_clear(void)
{
    json_decref(M.perfs);
    memset(&M, 0, sizeof M);
}

int matchmaking_sent(const char **waiting)
{
    *waiting = M.waiting;
    return M.sent;
}

static void decliner_key(const char *who, const char *aspect, char *out, size_t size)
{
    snprintf(out, size, "%s|%s", who, aspect);
}

static bool declined(const char *who, const char *speed, const char *variant, const char *mode)
{
    const char *aspects[] = {"", speed, variant, mode};
    char key[96];
    for (size_t i = 0; i < sizeof aspects / sizeof aspects[0]; i++) {
        decliner_key(who, aspects[i], key, sizeof key);
        if (bot_stamps(M.decliners, DECLINERS, key, clock_wall_ms() - DECLINED_MS))
            return true;
    }
    return false;
}

static void remember_decliner(const char *who, const char *aspect)
{
    char key[96];
    decliner_key(who, aspect, key, sizeof key);
    bot_stamp(M.decliners, DECLINERS, key, NULL, clock_wall_ms());
}

/* lila's speed of a clock: base + 40 × increment. */
static const char *speed_of(double base, double inc, double days)
{
    if (days > 0)
        return "correspondence";
    double t = base + 40 * inc;
    return t < 29 ? "ultraBullet" : t < 179 ? "bullet" : t < 479 ? "blitz" : t < 1499 ? "rapid" : "classical";
}

static double rating_in(json_t *perfs, const char *speed, double otherwise)
{
    json_t *r = json_object_get(json_object_get(perfs, speed), "rating");
    return json_is_number(r) ? json_number_value(r) : otherwise;
}

static const char *pick(const BotList *list) { return list->count ? list->items[rand() % list->count] : NULL; }

static void answered(const LichessAnswer *a, void *user);

/* The online bots came: one is chosen and challenged. */
static void got_online(const LichessAnswer *a, void *user)
{
    (void)user;
    M.asking = false;
    if (!B.running)
        return;
    if (a->status != 200 || !a->text) {
        bot_error("matchmaking: the online bots could not be read (HTTP %d)", a->status);
        return;
    }
    const BotConfig *c = cfg();
    /* The game to offer: a clock, or days (correspondence) when only those are set. */
    const char *base_s = pick(&c->matchmaking.challenge_initial_time);
    const char *inc_s = pick(&c->matchmaking.challenge_increment);
    const char *days_s = pick(&c->matchmaking.challenge_days);
    double base = base_s ? atof(base_s) : 0, inc = inc_s ? atof(inc_s) : 0, days = days_s ? atof(days_s) : 0;
    if (days > 0 && (base_s || inc_s) && rand() % 2)
        days = 0;
    if (days > 0)
        base = inc = 0;
    if (days <= 0 && !base_s && !inc_s) {
        bot_error("matchmaking: no challenge_initial_time, challenge_increment or challenge_days to offer");
        return;
    }
    const char *speed = speed_of(base, inc, days);
    const char *variant = "standard"; /* the one variant this engine plays (config.c says so of any other) */
    const char *mode = c->matchmaking.challenge_mode;
    if (!strcmp(mode, "random"))
        mode = rand() % 2 ? "rated" : "casual";
    double mine = rating_in(M.perfs, speed, 1500), lo = c->matchmaking.opponent_min_rating,
           hi = c->matchmaking.opponent_max_rating;
    if (c->matchmaking.opponent_rating_difference >= 0) {
        lo = mine - c->matchmaking.opponent_rating_difference;
        hi = mine + c->matchmaking.opponent_rating_difference;
    }
    /* The candidates, each weighed by rating_preference. */
    enum { MAX = ONLINE_NB };
    static char names[MAX][64];
    double weights[MAX], total = 0;
    int n = 0;
    const char *p = a->text;
    while (*p && n < MAX) {
        size_t len = strcspn(p, "\n");
        json_t *u = json_loadb(p, len, 0, NULL);
        p += len + (p[len] == '\n');
        const char *id = json_string_value(json_object_get(u, "id"));
        const char *name = json_string_value(json_object_get(u, "username"));
        json_t *perfs = json_object_get(u, "perfs");
        double r = rating_in(perfs, speed, -1);
        bool ok =
            id && name && strcasecmp(id, B.user_id) && !json_is_true(json_object_get(u, "disabled")) &&
            !json_is_true(json_object_get(u, "tosViolation")) && r >= lo && r <= hi &&
            !bot_list_has_user(&c->matchmaking.block_list, id, name) &&
            !(c->matchmaking.include_challenge_block_list && bot_list_has_user(&c->challenge.block_list, id, name)) &&
            !declined(id, speed, variant, mode);
        if (ok) {
            snprintf(names[n], sizeof names[n], "%s", name);
            const char *pref = c->matchmaking.rating_preference;
            weights[n] = !strcmp(pref, "high") ? r - lo + 1 : !strcmp(pref, "low") ? hi - r + 1 : 1;
            total += weights[n++];
        }
        json_decref(u);
    }
    if (!n) {
        log_msg(LOG_INFO, "bot: matchmaking: no online bot rated %.0f-%.0f in %s to challenge", lo, hi, speed);
        return;
    }
    double x = (double)rand() / RAND_MAX * total;
    int chosen = 0;
    while (chosen < n - 1 && (x -= weights[chosen]) > 0)
        chosen++;
    char path[128], form[200];
    snprintf(path, sizeof path, "api/challenge/%s", names[chosen]);
    if (days > 0)
        snprintf(form, sizeof form, "rated=%s&days=%.0f&color=random&variant=%s",
                 !strcmp(mode, "rated") ? "true" : "false", days, variant);
    else
        snprintf(form, sizeof form, "rated=%s&clock.limit=%.0f&clock.increment=%.0f&color=random&variant=%s",
                 !strcmp(mode, "rated") ? "true" : "false", base, inc, variant);
    snprintf(M.opponent, sizeof M.opponent, "%s", names[chosen]);
    snprintf(M.speed, sizeof M.speed, "%s", speed);
    snprintf(M.variant, sizeof M.variant, "%s", variant);
    snprintf(M.mode, sizeof M.mode, "%s", mode);
    log_msg(LOG_INFO, "bot: matchmaking: challenging %s (%s, %s)", names[chosen], form, speed);
    M.asking = true;
    M.last_sent = clock_wall_ms();
    M.sent++;
    lichess_post_once(B.li, "matchmaking", path, form, answered, NULL);
}

static void answered(const LichessAnswer *a, void *user)
{
    (void)user;
    M.asking = false;
    json_t *limit = json_object_get(a->json, "ratelimit");
    const char *key = json_string_value(json_object_get(limit, "key"));
    json_t *seconds = json_object_get(limit, "seconds");
    if (a->status == 200) {
        json_t *ch = json_object_get(a->json, "challenge");
        const char *id = json_string_value(json_object_get(json_is_object(ch) ? ch : a->json, "id"));
        snprintf(M.waiting, sizeof M.waiting, "%s", id ? id : "");
        M.waiting_since = clock_wall_ms();
    } else if (a->status == 429) {
        double s = json_is_number(seconds) ? json_number_value(seconds) : lichess_held(B.li, "matchmaking");
        M.held_until = clock_wall_ms() + (int64_t)((s > 60 ? s : 60) * 1000);
        bot_error("matchmaking: rate-limited (%s): no challenges for %.0f s", key ? key : "429", s > 60 ? s : 60);
    } else if (a->status == 400 && key) {
        remember_decliner(M.opponent, ""); /* over its own daily limit: left for the day */
        log_msg(LOG_INFO, "bot: matchmaking: %s cannot play now (%s)", M.opponent, key);
    } else
        bot_error("matchmaking: the challenge to %s failed (HTTP %d %.100s)", M.opponent, a->status,
                  a->error  ? a->error
                  : a->text ? a->text
                            : "");
}

bool matchmaking_declined(json_t *ch)
{
    const char *id = json_string_value(json_object_get(ch, "id"));
    if (!id || strcmp(id, M.waiting))
        return false;
    const char *reason = json_string_value(json_object_get(ch, "declineReasonKey"));
    json_t *dest = json_object_get(ch, "destUser");
    const char *who = json_string_value(json_object_get(dest, "id"));
    const char *filter = cfg()->matchmaking.challenge_filter;
    M.waiting[0] = 0;
    if (!who)
        who = M.opponent;
    if (!strcmp(filter, "coarse"))
        remember_decliner(who, "");
    else if (!strcmp(filter, "fine")) {
        /* the reason names the aspect refused (lower case in the event) */
        const char *r = reason ? reason : "generic";
        const char *aspect = !strcasecmp(r, "timeControl") || !strcasecmp(r, "tooFast") || !strcasecmp(r, "tooSlow")
                                 ? M.speed
                             : !strcasecmp(r, "variant") || !strcasecmp(r, "standard") ? M.variant
                             : !strcasecmp(r, "casual") || !strcasecmp(r, "rated")     ? M.mode
                                                                                       : "";
        remember_decliner(who, aspect);
    }
    log_msg(LOG_INFO, "bot: matchmaking: %s declined (%s)", who, reason ? reason : "?");
    return true;
}

void matchmaking_started(const char *game_id)
{
    if (!strcmp(game_id, M.waiting))
        M.waiting[0] = 0;
}

void matchmaking_tick(void)
{
    const BotConfig *c = cfg();
    int64_t now = clock_wall_ms();
    int bots, with_user;
    int playing = bot_games_now(&bots, NULL, &with_user) + incoming_pending();
    if (!M.idle_since || (playing && !c->matchmaking.allow_during_games))
        M.idle_since = now; /* idle counts from the last moment a game was on (or from the start) */
    if (M.waiting[0] && now - M.waiting_since > EXPIRE_MS) {
        char path[96];
        snprintf(path, sizeof path, "api/challenge/%s/cancel", M.waiting);
        log_msg(LOG_INFO, "bot: matchmaking: %s did not answer in 25 s: cancelled", M.opponent);
        lichess_post(B.li, "matchmaking", path, NULL, NULL, NULL);
        M.waiting[0] = 0;
    }
    if (!c->matchmaking.allow_matchmaking || !B.connected || M.asking || M.waiting[0] || now < M.held_until ||
        playing >= c->challenge.concurrency ||
        now - M.idle_since < (int64_t)(c->matchmaking.challenge_timeout * 60000) ||
        (M.last_sent && now - M.last_sent < (playing ? DURING_GAMES_MS : BETWEEN_MS)))
        return;
    char path[64];
    snprintf(path, sizeof path, "api/bot/online?nb=%d", ONLINE_NB);
    M.asking = true;
    lichess_get(B.li, "matchmaking", path, got_online, NULL);
}
