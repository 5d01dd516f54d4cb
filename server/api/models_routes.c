/* The live models over REST: GET /api/bayes/model, GET /api/bayes/curve and POST /api/style. */
#include <stdlib.h>
#include <string.h>

#include "../store/bayes_store.h"
#include "../store/store.h"
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

/* GET /api/bayes/curve. The change curve replays every stored game's records on the thread pool, so
 * one read runs at a time for everyone asking, and the replay is skipped while the database holds the
 * same games and measured points as the answer kept (its key: their newest row ids). */
#define CURVE_WAITING_MAX 256

typedef struct {
    BayesCurvePoint changes[BAYES_CURVE_MAX];
    BayesMatchPoint matches[BAYES_CURVE_MAX];
    int nchanges, nmatches;
    BayesCurveKey key, kept; /* what the database holds now; what the kept answer was read from */
    bool failed;             /* the database could not be read */
} CurveRead;

static struct {
    bool reading;
    Request *waiting[CURVE_WAITING_MAX];
    int nwaiting;
    char *body; /* the last answer */
    BayesCurveKey key;
} Curve;

static bool same_key(const BayesCurveKey *a, const BayesCurveKey *b)
{
    return a->games == b->games && a->matches == b->matches;
}

static void curve_read(sqlite3 *db, void *arg)
{
    CurveRead *c = arg;
    c->failed = !bayes_store_curve_key(db, &c->key);
    if (c->failed || same_key(&c->key, &c->kept))
        return;
    c->nchanges = bayes_store_change_curve(db, c->changes, BAYES_CURVE_MAX);
    c->nmatches = bayes_store_matches(db, c->matches, BAYES_CURVE_MAX);
}

static void curve_reply(Request *r) { http_reply(r, 200, "application/json", Curve.body, strlen(Curve.body)); }

static void curve_done(void *arg)
{
    CurveRead *c = arg;
    bool failed = c->failed;
    if (!failed && (!Curve.body || !same_key(&c->key, &Curve.key))) {
        json_t *o = encode_bayes_curve(models_bayes(), c->changes, c->nchanges, c->matches, c->nmatches);
        free(Curve.body);
        Curve.body = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        Curve.key = c->key;
    }
    Curve.reading = false;
    free(c);
    for (int i = 0; i < Curve.nwaiting; i++) {
        Request *r = Curve.waiting[i];
        http_end_wait(r);
        if (failed)
            api_reply_fail(r, 503, "storage_unavailable", NULL, "the database cannot be read now: try again shortly");
        else if (Curve.body)
            curve_reply(r);
        else
            api_reply_fail(r, 503, "out_of_memory", NULL, "the server is out of memory");
        http_resume(r);
    }
    Curve.nwaiting = 0;
}

static void curve_gone(Request *r)
{
    for (int i = 0; i < Curve.nwaiting; i++)
        if (Curve.waiting[i] == r) {
            Curve.waiting[i] = Curve.waiting[--Curve.nwaiting];
            break;
        }
}

void models_route_bayes_curve(Request *r, const char *param)
{
    (void)param;
    if (Curve.nwaiting == CURVE_WAITING_MAX) {
        api_reply_fail(r, 503, "overloaded", NULL,
                       "too many requests are waiting for the learning curve: try again shortly");
        return;
    }
    if (!Curve.reading) {
        CurveRead *c = calloc(1, sizeof *c);
        if (c)
            c->kept = Curve.key; /* {0, 0} before any answer: an empty database needs no replay either */
        if (!c || !store_read(curve_read, curve_done, c)) {
            free(c);
            api_reply_fail(r, 503, "storage_unavailable", NULL, "the database cannot be read now: try again shortly");
            return;
        }
        Curve.reading = true;
    }
    Curve.waiting[Curve.nwaiting++] = r;
    http_suspend(r, &Curve, curve_gone);
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
