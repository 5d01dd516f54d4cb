/* The bot's shared state and its error list: see session.h. */
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
