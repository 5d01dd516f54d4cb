/* The Lichess Bot API as the bridge uses it (shared/spec/lichess-bot.md): calls and NDJSON
 * streams over net/client.c, with Lichess's rules kept here: one call at a time (streams aside),
 * a 429 holds back every call of its kind for its Retry-After (else 60 s; the body may be HTML),
 * transport errors and 5xx retried a few times, the token only in the Authorization header (and in
 * the body of the token test). Loop thread. */
#ifndef FEELFISH_LICHESS_H
#define FEELFISH_LICHESS_H

#include <jansson.h>
#include <stdbool.h>

typedef struct Lichess Lichess;
typedef struct LichessStream LichessStream;

typedef struct {
    int status;        /* HTTP status, 0 when none came (error says why) */
    json_t *json;      /* the body as JSON, NULL if it is not (borrowed: valid during the call) */
    const char *text;  /* the body as sent */
    const char *error; /* transport error, or NULL */
} LichessAnswer;

typedef void (*LichessDone)(const LichessAnswer *a, void *user);

typedef struct {
    unsigned long long calls, rate_limited, retries, failures;
} LichessStats;

/* url ends with '/'. */
Lichess *lichess_new(const char *url, const char *token, const char *user_agent);
/* Ends every call and stream without their callbacks. */
void lichess_free(Lichess *l);
/* The User-Agent of the calls and streams started from now on. */
void lichess_set_user_agent(Lichess *l, const char *user_agent);

/* GET or POST `path` (no leading '/'); `kind` names its rate limit ("move", "chat", "challenge",
 * ...): a 429 on one kind holds back that kind only. `form` (POST) is an urlencoded body or NULL.
 * done may be NULL. */
void lichess_get(Lichess *l, const char *kind, const char *path, LichessDone done, void *user);
void lichess_post(Lichess *l, const char *kind, const char *path, const char *form, LichessDone done, void *user);
/* The same, but a 429 ends it (done gets the 429) instead of sending it again after the hold: for
 * what is stale by then (a challenge made to an opponent chosen now). */
void lichess_post_once(Lichess *l, const char *kind, const char *path, const char *form, LichessDone done, void *user);
/* Holds back calls of this kind for `seconds` (rate_limiting_delay after a move). */
void lichess_hold(Lichess *l, const char *kind, double seconds);
/* POST /api/token/test with the token itself as the body. */
void lichess_token_test(Lichess *l, LichessDone done, void *user);

/* An NDJSON stream: on_event for each JSON line (keep-alive lines are not passed), on_end once when
 * it ends (status and error say how: a refusal, a drop, no byte for 20 s). NULL when it cannot be
 * opened now (a 429 holds streams back: lichess_held(l, "stream") says how long). */
LichessStream *lichess_stream(Lichess *l, const char *path, void (*on_event)(json_t *event, void *user),
                              void (*on_end)(const LichessAnswer *a, void *user), void *user);
void lichess_stream_close(LichessStream *s);

void lichess_stats(const Lichess *l, LichessStats *s);
/* Seconds a call of this kind must still wait (a 429's hold), 0 if none. */
double lichess_held(const Lichess *l, const char *kind);
/* form-urlencodes text into out (size bytes). */
void lichess_form_escape(const char *text, char *out, size_t size);

#endif
