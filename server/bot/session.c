/* The bot's shared state and its error list: see session.h. */
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../base/log.h"

Bot B;

void bot_error(const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    bot_note(LOG_WARN, text);
}

void bot_note(int level, const char *text)
{
    log_msg((LogLevel)level, "bot: %s", text);
    BotStatus *c = &B.counts;
    memmove(c->errors[1], c->errors[0], sizeof c->errors[0] * (BOT_ERRORS - 1));
    snprintf(c->errors[0], sizeof c->errors[0], "%s", text);
    if (c->error_count < BOT_ERRORS)
        c->error_count++;
}

void bot_stamp(BotStamp *ring, int n, const char *key, const char *who, int64_t at)
{
    int slot = 0; /* the first free one, else the oldest */
    for (int i = 0; i < n; i++) {
        if (!ring[i].key[0]) {
            slot = i;
            break;
        }
        if (ring[i].at < ring[slot].at)
            slot = i;
    }
    snprintf(ring[slot].key, sizeof ring[slot].key, "%s", key);
    snprintf(ring[slot].who, sizeof ring[slot].who, "%s", who ? who : "");
    ring[slot].at = at;
}

int bot_stamps(const BotStamp *ring, int n, const char *key, int64_t since)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += ring[i].key[0] && ring[i].at >= since && (!key || !strcasecmp(ring[i].key, key));
    return count;
}

int bot_stamps_about(const BotStamp *ring, int n, const char *who, int64_t since)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += ring[i].key[0] && ring[i].at >= since && !strcasecmp(ring[i].who, who);
    return count;
}

void bot_unstamp(BotStamp *ring, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp(ring[i].key, key))
            ring[i].key[0] = 0;
}
