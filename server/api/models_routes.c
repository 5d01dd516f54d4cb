/* The live models over REST: GET /api/bayes/model and POST /api/style. */
#include <string.h>

#include "encode.h"
#include "reply.h"
#include "request.h"
#include "routes.h"

void models_route_bayes(Request *r, const char *param)
{
    (void)param;
    const char *detail = http_query(r, "detail");
    if (detail && strcmp(detail, "counts") && strcmp(detail, "selected")) {
        api_reply_fail(r, 400, "bad_detail", "detail", "detail must be 'selected' (default) or 'counts' (an export)");
        return;
    }
    json_t *o = encode_bayes_model(models_bayes(), detail && !strcmp(detail, "counts"));
    json_object_set_new(o, "styleModel", json_boolean(models_style() != NULL));
    api_reply_json(r, 200, o);
}

static const char *const StyleKeys[] = {"pgn", "player", NULL};

void models_route_style(Request *r, const char *param)
{
    (void)param;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    ApiError e = {0};
    const char *pgn = json_string_value(json_object_get(body, "pgn"));
    const char *player = json_string_value(json_object_get(body, "player"));
    StyleReading s;
    if (!request_check_keys(&e, body, StyleKeys, ""))
        ;
    else if (!models_style())
        api_error_set(&e, 503, "no_style_model", NULL, "the server has no opponent-style model (--style-model)");
    else if (!pgn)
        api_error_set(&e, 400, "bad_pgn", "pgn", "give 'pgn': the game (or games) as PGN text");
    else if (!player)
        api_error_set(&e, 400, "bad_player", "player",
                      "give 'player': white, black, or a name found in the White/Black tags");
    else
        models_read_style(pgn, player, &s, &e);
    json_decref(body); /* pgn and player point into it */
    if (e.status) {
        api_reply_error(r, &e);
        return;
    }
    json_t *o = encode_style(s.style, s.posterior, &s.last);
    json_object_set_new(o, "games", json_integer(s.games));
    json_object_set_new(o, "samples", json_integer(s.samples));
    json_object_set_new(o, "skipped", json_integer(s.skipped));
    api_reply_json(r, 200, o);
}
