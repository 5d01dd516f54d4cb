/* The Lichess client: see lichess.h. Calls wait in one queue and go one at a time, those that decide
 * a game first (enqueue); the one to go is the first whose kind is not held back by a 429. */
#include "lichess.h"

#include <stdlib.h>
#include <string.h>

#include "../base/list.h"
#include "../base/log.h"
#include "../net/client.h"

#define CALL_TIMEOUT_MS 15000
#define STREAM_IDLE_MS 20000 /* Lichess sends a keep-alive line every 6-7 s */
#define RETRIES 3
#define HOLD_DEFAULT_S 60.0
#define KINDS 16

typedef struct Call {
    char kind[24];
    char *path, *form;
    bool post, token_test, once; /* once: not sent again after a 429 */
    int attempts;
    LichessDone done;
    void *user;
    struct Call *next;
} Call;

struct LichessStream {
    Lichess *l;
    ClientCall *call;
    void (*on_event)(json_t *event, void *user);
    void (*on_end)(const LichessAnswer *a, void *user);
    void *user;
    LichessStream *prev, *next;
};

struct Lichess {
    char url[256], ua[128];
    char *token;
    Call *queue;
    Call *current; /* in flight */
    ClientCall *call;
    uv_timer_t timer; /* the next hold's end, or a retry's delay */
    bool timer_ready;
    uint64_t retry_at; /* uv_now of the next retry, 0: none */
    struct {
        char kind[24];
        uint64_t until; /* uv_now */
    } holds[KINDS];
    LichessStream *streams;
    LichessStats stats;
};

static uv_loop_t *loop(void) { return uv_default_loop(); }

static uint64_t held_until(const Lichess *l, const char *kind)
{
    for (int i = 0; i < KINDS; i++)
        if (l->holds[i].until && !strcmp(l->holds[i].kind, kind))
            return l->holds[i].until;
    return 0;
}

double lichess_held(const Lichess *l, const char *kind)
{
    uint64_t until = held_until(l, kind), now = uv_now(loop());
    return until > now ? (double)(until - now) / 1000.0 : 0;
}

static void hold(Lichess *l, const char *kind, double seconds)
{
    uint64_t until = uv_now(loop()) + (uint64_t)(seconds * 1000);
    int free_slot = -1, oldest = 0;
    for (int i = 0; i < KINDS; i++) {
        if (!strcmp(l->holds[i].kind, kind)) {
            l->holds[i].until = until;
            return;
        }
        if (!l->holds[i].until || l->holds[i].until < uv_now(loop()))
            free_slot = free_slot < 0 ? i : free_slot;
        if (l->holds[i].until < l->holds[oldest].until)
            oldest = i;
    }
    int i = free_slot >= 0 ? free_slot : oldest;
    snprintf(l->holds[i].kind, sizeof l->holds[i].kind, "%s", kind);
    l->holds[i].until = until;
}

static void pump(Lichess *l);

static void on_timer(uv_timer_t *t)
{
    Lichess *l = t->data;
    l->retry_at = 0;
    pump(l);
}

static void free_call(Call *c)
{
    free(c->path);
    free(c->form);
    free(c);
}

static void answer(const ClientAnswer *a, void *user);

/* Starts the first queued call that may go now; or sets the timer for when one may. */
static void pump(Lichess *l)
{
    if (l->current)
        return;
    uint64_t now = uv_now(loop()), wake = l->retry_at > now ? l->retry_at : 0;
    bool retrying = wake != 0; /* a retry's delay holds everything back */
    for (Call **at = &l->queue; !retrying && *at;) {
        Call *c = *at;
        uint64_t until = held_until(l, c->kind);
        if (until > now) { /* held back: the next one of another kind may go */
            wake = !wake || until < wake ? until : wake;
            at = &c->next;
            continue;
        }
        *at = c->next;
        c->next = NULL;
        char url[1024];
        snprintf(url, sizeof url, "%s%s", l->url, c->path);
        ClientRequest r = {.method = c->post ? "POST" : "GET",
                           .url = url,
                           .bearer = c->token_test ? NULL : l->token,
                           .user_agent = l->ua,
                           .content_type = c->token_test ? "text/plain" : NULL,
                           .body = c->token_test ? l->token : c->form,
                           .body_len = c->token_test ? strlen(l->token)
                                       : c->form     ? strlen(c->form)
                                                     : 0,
                           .timeout_ms = CALL_TIMEOUT_MS,
                           .on_done = answer,
                           .user = l};
        l->current = c;
        l->stats.calls++;
        l->call = client_call(&r);
        if (l->call)
            return;
        l->current = NULL;
        LichessAnswer a = {0, NULL, "", "the HTTP client refused the call"};
        LichessDone done = c->done;
        void *user = c->user;
        free_call(c);
        if (done)
            done(&a, user);
        if (l->current)
            return;     /* the callback queued a call that started meanwhile */
        at = &l->queue; /* the queue may have changed under the callback: start over */
    }
    if (wake && l->timer_ready)
        uv_timer_start(&l->timer, on_timer, wake > now ? wake - now : 0, 0);
}

/* Calls that decide a game go before the rest (still one at a time): a move must not wait behind
 * chat lines or a challenge answer. */
static bool urgent(const char *kind)
{
    static const char *const Urgent[] = {"move", "resign", "abort", "draw", "claim", "takeback"};
    for (size_t i = 0; i < sizeof Urgent / sizeof Urgent[0]; i++)
        if (!strcmp(kind, Urgent[i]))
            return true;
    return false;
}

/* A new call goes last, an urgent one after the urgent ones waiting. A call tried again goes first of
 * its rank: an urgent one first of all, any other after the urgent ones waiting, so a call that timed
 * out (a stalled chat) delays a move once, not once per try. */
static void enqueue(Lichess *l, Call *c, bool again)
{
    Call **at = &l->queue;
    bool is_urgent = urgent(c->kind);
    if (!(again && is_urgent))
        while (*at && (!(again || is_urgent) || urgent((*at)->kind)))
            at = &(*at)->next;
    c->next = *at;
    *at = c;
}

/* A 429's hold: the JSON's ratelimit.seconds (bot.vsBot.day), else Retry-After, else 60 s. */
static double hold_seconds(const ClientAnswer *a, json_t *body)
{
    json_t *seconds = json_object_get(json_object_get(body, "ratelimit"), "seconds");
    if (json_is_integer(seconds) && json_integer_value(seconds) > 0)
        return (double)json_integer_value(seconds);
    return a->retry_after_s > 0 ? (double)a->retry_after_s : HOLD_DEFAULT_S;
}

static void answer(const ClientAnswer *a, void *user)
{
    Lichess *l = user;
    Call *c = l->current;
    l->current = NULL;
    l->call = NULL;
    json_t *body = a->status ? json_loadb(a->body, a->len, 0, NULL) : NULL;
    c->attempts++;
    if (a->status == 429) {
        double s = hold_seconds(a, body);
        hold(l, c->kind, s);
        l->stats.rate_limited++;
        log_msg(LOG_WARN, "lichess: 429 on %s: holding %s calls for %.0f s", c->kind, c->kind, s);
        if (c->attempts <= RETRIES && !c->once) { /* it goes again once the hold is over, first of its kind */
            json_decref(body);
            enqueue(l, c, true);
            pump(l);
            return;
        }
    } else if ((a->status == 0 || a->status >= 500) && c->attempts <= RETRIES) {
        l->stats.retries++;
        log_msg(LOG_WARN, "lichess: %s %s: %s; retrying", c->post ? "POST" : "GET", c->kind,
                a->error ? a->error : "server error");
        json_decref(body);
        enqueue(l, c, true);
        l->retry_at = uv_now(loop()) + (uint64_t)(250 << c->attempts); /* 0.5, 1, 2 s */
        uv_timer_start(&l->timer, on_timer, (uint64_t)(250 << c->attempts), 0);
        return;
    }
    if (a->status == 0 || a->status >= 400)
        l->stats.failures++;
    LichessAnswer la = {a->status, body, a->body, a->error};
    Call done = *c;
    free_call(c);
    if (done.done)
        done.done(&la, done.user);
    json_decref(body);
    pump(l);
}

void lichess_set_user_agent(Lichess *l, const char *user_agent) { snprintf(l->ua, sizeof l->ua, "%s", user_agent); }

Lichess *lichess_new(const char *url, const char *token, const char *user_agent)
{
    Lichess *l = calloc(1, sizeof *l);
    if (!l || !(l->token = strdup(token))) {
        free(l);
        return NULL;
    }
    snprintf(l->url, sizeof l->url, "%s", url);
    snprintf(l->ua, sizeof l->ua, "%s", user_agent);
    uv_timer_init(loop(), &l->timer);
    l->timer.data = l;
    l->timer_ready = true;
    return l;
}

static void free_after_close(uv_handle_t *h) { free(h->data); }

void lichess_free(Lichess *l)
{
    if (!l)
        return;
    while (l->streams)
        lichess_stream_close(l->streams);
    if (l->call)
        client_cancel(l->call);
    if (l->current)
        free_call(l->current);
    while (l->queue) {
        Call *c = l->queue;
        l->queue = c->next;
        free_call(c);
    }
    memset(l->token, 0, strlen(l->token));
    free(l->token);
    uv_timer_stop(&l->timer);
    uv_close((uv_handle_t *)&l->timer, free_after_close);
}

static void add(Lichess *l, const char *kind, const char *path, bool post, const char *form, bool token_test, bool once,
                LichessDone done, void *user)
{
    Call *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path)) || (form && !(c->form = strdup(form)))) {
        if (c)
            free_call(c);
        LichessAnswer a = {0, NULL, "", "out of memory"};
        if (done)
            done(&a, user);
        return;
    }
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    c->post = post;
    c->token_test = token_test;
    c->once = once;
    c->done = done;
    c->user = user;
    enqueue(l, c, false);
    pump(l);
}

void lichess_get(Lichess *l, const char *kind, const char *path, LichessDone done, void *user)
{
    add(l, kind, path, false, NULL, false, false, done, user);
}

void lichess_post(Lichess *l, const char *kind, const char *path, const char *form, LichessDone done, void *user)
{
    add(l, kind, path, true, form ? form : "", false, false, done, user);
}

void lichess_post_once(Lichess *l, const char *kind, const char *path, const char *form, LichessDone done, void *user)
{
    add(l, kind, path, true, form ? form : "", false, true, done, user);
}

void lichess_hold(Lichess *l, const char *kind, double seconds)
{
    hold(l, kind, seconds);
    pump(l);
}

void lichess_token_test(Lichess *l, LichessDone done, void *user)
{
    add(l, "token", "api/token/test", true, NULL, true, false, done, user);
}

/* ---- streams ---- */

static void stream_line(const char *line, size_t len, void *user)
{
    LichessStream *s = user;
    if (!len)
        return; /* a keep-alive */
    json_t *event = json_loadb(line, len, 0, NULL);
    if (!json_is_object(event)) {
        log_msg(LOG_WARN, "lichess: a stream line that is not a JSON object: %.80s", line);
        json_decref(event);
        return;
    }
    s->on_event(event, s->user);
    json_decref(event);
}

static void unlink_stream(LichessStream *s) { LIST_UNLINK(s->l->streams, s, prev, next); }

static void stream_done(const ClientAnswer *a, void *user)
{
    LichessStream *s = user;
    s->call = NULL;
    unlink_stream(s);
    json_t *body = a->status >= 400 ? json_loadb(a->body, a->len, 0, NULL) : NULL;
    if (a->status == 429) {
        s->l->stats.rate_limited++;
        hold(s->l, "stream", hold_seconds(a, body));
    }
    LichessAnswer la = {a->status, body, a->body, a->error};
    void (*on_end)(const LichessAnswer *, void *) = s->on_end;
    void *su = s->user;
    free(s);
    if (on_end)
        on_end(&la, su);
    json_decref(body);
}

LichessStream *lichess_stream(Lichess *l, const char *path, void (*on_event)(json_t *event, void *user),
                              void (*on_end)(const LichessAnswer *a, void *user), void *user)
{
    if (lichess_held(l, "stream") > 0)
        return NULL; /* a 429 on a stream holds every stream back: the caller tries again later */
    LichessStream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    *s = (LichessStream){.l = l, .on_event = on_event, .on_end = on_end, .user = user};
    char url[1024];
    snprintf(url, sizeof url, "%s%s", l->url, path);
    ClientRequest r = {.method = "GET",
                       .url = url,
                       .bearer = l->token,
                       .user_agent = l->ua,
                       .idle_timeout_ms = STREAM_IDLE_MS,
                       .on_line = stream_line,
                       .on_done = stream_done,
                       .user = s};
    l->stats.calls++;
    s->call = client_call(&r);
    if (!s->call) {
        free(s);
        return NULL;
    }
    LIST_PUSH(l->streams, s, prev, next);
    return s;
}

void lichess_stream_close(LichessStream *s)
{
    if (s->call)
        client_cancel(s->call);
    unlink_stream(s);
    free(s);
}

void lichess_stats(const Lichess *l, LichessStats *s) { *s = l->stats; }

void lichess_form_escape(const char *text, char *out, size_t size)
{
    static const char Hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && o + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-_.~", *p))
            out[o++] = (char)*p;
        else if (*p == ' ')
            out[o++] = '+';
        else {
            out[o++] = '%';
            out[o++] = Hex[*p >> 4];
            out[o++] = Hex[*p & 15];
        }
    }
    out[o] = 0;
}
