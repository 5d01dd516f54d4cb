/* The incoming challenges: see incoming.h. */
#include "incoming.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/clock.h"
#include "../base/log.h"
#include "bot_game.h"
#include "challenge.h"
#include "session.h"

#define PENDING_MAX 16
#define PENDING_MS 20000 /* an accepted challenge whose game has not started after this is forgotten */
#define QUEUE_MAX 32
#define RECENT_MAX 64

static BotStamp Pending[PENDING_MAX]; /* challenges accepted whose game has not started, by id */
static json_t *Queue[QUEUE_MAX];      /* best first */
static int Queued;

static BotStamp Recent[RECENT_MAX]; /* challenges taken from bots, by challenger, for recent_bot_challenge_age */

static const char *text(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

static const char *challenger_of(json_t *ch) { return text(json_object_get(ch, "challenger"), "id"); }

int incoming_pending(void) { return bot_stamps(Pending, PENDING_MAX, NULL, clock_wall_ms() - PENDING_MS); }

void incoming_started(const char *id) { bot_unstamp(Pending, PENDING_MAX, id); }

static BotLoad load_for(const char *who)
{
    BotLoad load = {0, 0, 0, 0};
    load.games_now = bot_games_now(&load.bot_games_now, who, &load.games_with_user) + incoming_pending();
    load.games_with_user += bot_stamps_about(Pending, PENDING_MAX, who, clock_wall_ms() - PENDING_MS);
    load.recent_from_user = bot_stamps(Recent, RECENT_MAX, who,
                                       clock_wall_ms() - (int64_t)(B.cfg.challenge.recent_bot_challenge_age * 1000));
    return load;
}

static void answered(const LichessAnswer *a, void *user)
{
    char *id = user;
    if (a->status != 200)
        incoming_started(id); /* not a game after all: no longer pending */
    if (a->status == 404)
        log_msg(LOG_INFO, "bot: challenge %s was gone before the answer", id);
    else if (a->status != 200)
        bot_error("challenge %s: HTTP %d %s", id, a->status, a->error ? a->error : "");
    free(id);
}

static void answer(const char *id, const char *who, const char *reason)
{
    char path[96], form[64];
    if (!reason) {
        bot_stamp(Pending, PENDING_MAX, id, who, clock_wall_ms());
        B.counts.challenges_accepted++;
        log_msg(LOG_INFO, "bot: accepting challenge %s from %s", id, who);
        snprintf(path, sizeof path, "api/challenge/%s/accept", id);
        lichess_post(B.li, "challenge", path, NULL, answered, strdup(id));
    } else {
        B.counts.challenges_declined++;
        log_msg(LOG_INFO, "bot: declining challenge %s from %s: %s", id, who, reason);
        snprintf(path, sizeof path, "api/challenge/%s/decline", id);
        snprintf(form, sizeof form, "reason=%s", reason);
        lichess_post(B.li, "challenge", path, form, answered, strdup(id));
    }
}

/* The queue as GET /api/bot and the !queue command show it (B.counts). */
static void show_queue(void)
{
    BotStatus *c = &B.counts;
    c->queued = Queued;
    for (int i = 0; i < Queued && i < BOT_QUEUE_SHOWN; i++) {
        json_t *who = json_object_get(Queue[i], "challenger");
        const char *name = text(who, "name");
        snprintf(c->queue[i], sizeof c->queue[i], "%s", *name ? name : text(who, "id"));
    }
}

static void remove_at(int i)
{
    json_decref(Queue[i]);
    memmove(&Queue[i], &Queue[i + 1], sizeof Queue[0] * (size_t)(Queued - i - 1));
    Queued--;
    show_queue();
}

void incoming_accept_waiting(void)
{
    for (int i = 0; i < Queued;) {
        json_t *ch = Queue[i];
        BotLoad load = load_for(challenger_of(ch));
        if (!bot_challenge_fits(&B.cfg, ch, &load)) {
            i++; /* a bot's challenge may wait while a human's fits (games reserved for humans) */
            continue;
        }
        /* Its challenger may have started another game with the bot meanwhile. */
        const char *reason = load.games_with_user >= B.cfg.challenge.max_simultaneous_games_per_user ? "later" : NULL;
        answer(text(ch, "id"), challenger_of(ch), reason);
        remove_at(i);
    }
}

void incoming_challenge(json_t *ch)
{
    const char *id = text(ch, "id"), *who = challenger_of(ch);
    if (!*id || strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != strlen(id) ||
        strlen(id) > 12 || !strcmp(text(ch, "direction"), "out") || !strcasecmp(who, B.user_id))
        return; /* ours, or not one we can name */
    for (int i = 0; i < Queued; i++)
        if (!strcmp(text(Queue[i], "id"), id))
            return; /* replayed after a reconnection: already waiting */
    if (bot_stamps(Pending, PENDING_MAX, id, 0))
        return; /* already accepted */
    BotLoad load = load_for(who);
    for (int i = 0; i < Queued; i++) /* as lichess-bot: the challenger's waiting challenges count as games */
        load.games_with_user += !strcasecmp(challenger_of(Queue[i]), who);
    const char *reason = bot_challenge_verdict(&B.cfg, ch, &load);
    if (!reason && Queued == QUEUE_MAX)
        reason = "later";
    if (reason) {
        answer(id, *who ? who : "?", reason);
        return;
    }
    if (bot_challenge_from_bot(ch) && B.cfg.challenge.recent_bot_challenge_age >= 0)
        bot_stamp(Recent, RECENT_MAX, who, NULL, clock_wall_ms());
    int at = Queued;
    while (at > 0 && bot_challenge_before(&B.cfg, ch, Queue[at - 1]))
        at--;
    memmove(&Queue[at + 1], &Queue[at], sizeof Queue[0] * (size_t)(Queued - at));
    Queue[at] = json_incref(ch);
    Queued++;
    show_queue();
    if (at || Queued > 1 || !bot_challenge_fits(&B.cfg, ch, &load))
        log_msg(LOG_INFO, "bot: challenge %s from %s waits (%d in the queue)", id, *who ? who : "?", Queued);
    incoming_accept_waiting();
}

void incoming_gone(const char *id)
{
    for (int i = 0; i < Queued; i++)
        if (!strcmp(text(Queue[i], "id"), id)) {
            log_msg(LOG_INFO, "bot: challenge %s was withdrawn while it waited", id);
            remove_at(i);
            return;
        }
}

void incoming_clear(void)
{
    while (Queued)
        remove_at(Queued - 1);
    memset(Pending, 0, sizeof Pending);
    memset(Recent, 0, sizeof Recent);
}
