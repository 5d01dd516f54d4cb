/* The Lichess bot over REST: GET /api/bot, what it is doing (404 bot_off when the server runs
 * without --bot). */
#include "encode.h"
#include "reply.h"
#include "routes.h"

void bot_route_status(Request *r, const char *param)
{
    (void)param;
    BotStatus s;
    bot_status(&s);
    if (!s.running && !s.account[0] && !s.fatal[0]) {
        api_reply_fail(r, 404, "bot_off", NULL, "this server runs no bot (start it with --bot CONFIG.yml)");
        return;
    }
    api_reply_json(r, 200, encode_bot_status(&s));
}
