/* The HTTP client: see client.h. Design: one curl multi handle; curl tells us which sockets to
 * watch (on_socket) and when to call it back (on_timer); libuv tells curl when a socket is ready
 * (on_poll) or the time has come (on_timeout), and finished transfers are collected after each. */
#include "client.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "../base/list.h"
#include "../base/log.h"

struct ClientCall {
    CURL *easy;
    struct curl_slist *headers;
    char *body;      /* what the server sent (a call's whole answer; a stream's unfinished line) */
    size_t len, cap;
    char *request_body;
    void (*on_line)(const char *line, size_t len, void *user);
    void (*on_done)(const ClientAnswer *answer, void *user);
    void *user;
    char error[CURL_ERROR_SIZE];
    bool cancelled; /* while curl runs our callbacks a call cannot be freed: it ends at the next collect */
    bool added;     /* handed to curl (a call made inside curl's callbacks waits until they return) */
    bool unstarted; /* curl would not take it: collect tells its on_done */
    long idle_timeout_ms;
    uint64_t last_byte_ms; /* uv_now of the last byte received (or the start) */
    ClientCall *prev, *next;
};

typedef struct {
    uv_poll_t poll;
    curl_socket_t fd;
} Watch;

static struct {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t timer, idle;
    ClientCall *calls;
    bool running;
    int in_curl; /* inside curl_multi_socket_action (whose callbacks may cancel calls) */
} C;

static void collect(void);
static void add_waiting(void);

static void on_poll(uv_poll_t *p, int status, int events)
{
    Watch *w = p->data;
    int flags = status < 0 ? CURL_CSELECT_ERR : 0, running;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    C.in_curl++;
    curl_multi_socket_action(C.multi, w->fd, flags, &running);
    C.in_curl--;
    add_waiting();
    collect();
}

static void on_timeout(uv_timer_t *t)
{
    (void)t;
    int running;
    C.in_curl++;
    curl_multi_socket_action(C.multi, CURL_SOCKET_TIMEOUT, 0, &running);
    C.in_curl--;
    add_waiting();
    collect();
}

static int on_timer(CURLM *multi, long ms, void *user)
{
    (void)multi, (void)user;
    if (ms < 0)
        uv_timer_stop(&C.timer);
    else
        uv_timer_start(&C.timer, on_timeout, (uint64_t)ms, 0); /* 0: as soon as the loop turns */
    return 0;
}

static void free_watch(uv_handle_t *h) { free(h->data); }

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *user, void *socket_user)
{
    (void)easy, (void)user;
    Watch *w = socket_user;
    if (what == CURL_POLL_REMOVE) {
        if (w) {
            uv_poll_stop(&w->poll);
            uv_close((uv_handle_t *)&w->poll, free_watch);
            curl_multi_assign(C.multi, fd, NULL);
        }
        return 0;
    }
    if (!w) {
        w = calloc(1, sizeof *w);
        if (!w || uv_poll_init_socket(C.loop, &w->poll, fd)) {
            free(w);
            return -1;
        }
        w->fd = fd;
        w->poll.data = w;
        curl_multi_assign(C.multi, fd, w);
    }
    int events = (what & CURL_POLL_IN ? UV_READABLE : 0) | (what & CURL_POLL_OUT ? UV_WRITABLE : 0);
    uv_poll_start(&w->poll, events, on_poll);
    return 0;
}

static bool append(ClientCall *c, const char *data, size_t n)
{
    if (c->len + n + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 1024;
        while (cap < c->len + n + 1)
            cap *= 2;
        char *grown = realloc(c->body, cap);
        if (!grown)
            return false;
        c->body = grown;
        c->cap = cap;
    }
    memcpy(c->body + c->len, data, n);
    c->len += n;
    c->body[c->len] = 0;
    return true;
}

#define BODY_MAX (16 << 20) /* no answer this client waits for is larger */

static size_t on_write(char *data, size_t size, size_t count, void *user)
{
    ClientCall *c = user;
    size_t n = size * count;
    if (c->cancelled)
        return 0;
    c->last_byte_ms = uv_now(C.loop);
    long status = 0;
    curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
    if (c->len + n > BODY_MAX || !append(c, data, n))
        return 0; /* ends the transfer with an error */
    if (!c->on_line || status < 200 || status > 299)
        return n;
    /* A stream: hand over each whole line, keep the unfinished one. */
    size_t start = 0;
    for (size_t i = 0; i < c->len && !c->cancelled; i++)
        if (c->body[i] == '\n') {
            size_t end = i > start && c->body[i - 1] == '\r' ? i - 1 : i;
            c->body[end] = 0;
            c->on_line(c->body + start, end - start, c->user);
            start = i + 1;
        }
    memmove(c->body, c->body + start, c->len - start);
    c->len -= start;
    c->body[c->len] = 0;
    return n;
}

static void unlink_call(ClientCall *c) { LIST_UNLINK(C.calls, c, prev, next); }

static void free_call(ClientCall *c)
{
    if (c->added)
        curl_multi_remove_handle(C.multi, c->easy);
    curl_easy_cleanup(c->easy);
    curl_slist_free_all(c->headers);
    free(c->body);
    free(c->request_body);
    free(c);
}

/* Calls made while curl ran our callbacks (a stream's line that starts another call): curl refuses
 * a handle added from inside itself, so they are added once it has returned. */
static void add_waiting(void)
{
    for (ClientCall *c = C.calls; c; c = c->next)
        if (!c->added && !c->cancelled) {
            c->added = true;
            if (curl_multi_add_handle(C.multi, c->easy) != CURLM_OK) {
                c->added = false;
                c->unstarted = true; /* collect tells its on_done */
            }
        }
}

/* Every second: a stream that received no byte for its idle timeout is ended (a keep-alive line
 * counts, so a live Lichess stream never is), and its on_done hears why. */
static void on_idle_check(uv_timer_t *t)
{
    uint64_t now = uv_now(t->loop);
    for (ClientCall *c = C.calls, *next; c; c = next) {
        next = c->next;
        if (c->cancelled || !c->idle_timeout_ms || now - c->last_byte_ms < (uint64_t)c->idle_timeout_ms)
            continue;
        char why[64];
        snprintf(why, sizeof why, "no data for %ld s", c->idle_timeout_ms / 1000);
        ClientAnswer a = {0, "", 0, -1, why}; /* the body is freed with the call */
        unlink_call(c);
        void (*done)(const ClientAnswer *, void *) = c->on_done;
        void *user = c->user;
        free_call(c);
        if (done)
            done(&a, user);
        next = C.calls; /* on_done may have changed the list: start over (the idle ones are gone) */
    }
}

/* Finished transfers: each call's on_done hears how it went; cancelled ones just go. */
static void collect(void)
{
    for (ClientCall *c = C.calls, *next; c; c = next) {
        next = c->next;
        if (c->cancelled || c->unstarted) {
            void (*done)(const ClientAnswer *, void *) = c->cancelled ? NULL : c->on_done;
            void *user = c->user;
            unlink_call(c);
            free_call(c);
            if (done) {
                ClientAnswer a = {0, "", 0, -1, "the HTTP client could not start the call"};
                done(&a, user);
                next = C.calls; /* on_done may have changed the list */
            }
        }
    }
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(C.multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        ClientCall *c = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&c);
        if (!c)
            continue;
        long status = 0;
        curl_off_t retry = -1;
        curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
        if (curl_easy_getinfo(c->easy, CURLINFO_RETRY_AFTER, &retry) != CURLE_OK || retry == 0)
            retry = -1;
        bool failed = m->data.result != CURLE_OK;
        ClientAnswer a = {failed ? 0 : (int)status, c->body ? c->body : "", c->len, (long)retry, NULL};
        if (failed)
            a.error = c->error[0] ? c->error : curl_easy_strerror(m->data.result);
        unlink_call(c);
        if (c->on_done)
            c->on_done(&a, c->user);
        free_call(c);
    }
}

bool client_start(uv_loop_t *loop)
{
    if (C.running)
        return true;
    if (curl_global_init(CURL_GLOBAL_DEFAULT))
        return false;
    memset(&C, 0, sizeof C);
    C.loop = loop;
    C.multi = curl_multi_init();
    if (!C.multi)
        return false;
    curl_multi_setopt(C.multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(C.multi, CURLMOPT_TIMERFUNCTION, on_timer);
    uv_timer_init(loop, &C.timer);
    uv_timer_init(loop, &C.idle);
    uv_timer_start(&C.idle, on_idle_check, 1000, 1000);
    C.running = true;
    return true;
}

void client_stop(void)
{
    if (!C.running)
        return;
    while (C.calls) {
        ClientCall *c = C.calls;
        unlink_call(c);
        free_call(c);
    }
    curl_multi_cleanup(C.multi); /* removes the sockets: their watches close */
    uv_timer_stop(&C.timer);
    uv_close((uv_handle_t *)&C.timer, NULL);
    uv_timer_stop(&C.idle);
    uv_close((uv_handle_t *)&C.idle, NULL);
    C.running = false;
    curl_global_cleanup();
}

ClientCall *client_call(const ClientRequest *r)
{
    ClientCall *c = C.running ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    c->easy = curl_easy_init();
    if (!c->easy) {
        free(c);
        return NULL;
    }
    c->on_line = r->on_line;
    c->on_done = r->on_done;
    c->user = r->user;
    CURL *e = c->easy;
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, c);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->error);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""); /* what curl can decode */
    if (r->user_agent)
        curl_easy_setopt(e, CURLOPT_USERAGENT, r->user_agent);
    if (r->timeout_ms)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, r->timeout_ms);
    c->idle_timeout_ms = r->idle_timeout_ms; /* on_idle_check */
    c->last_byte_ms = uv_now(C.loop);
    if (r->bearer) {
        curl_easy_setopt(e, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
        curl_easy_setopt(e, CURLOPT_XOAUTH2_BEARER, r->bearer);
    }
    if (r->on_line)
        c->headers = curl_slist_append(c->headers, "Accept: application/x-ndjson");
    if (!strcmp(r->method, "POST")) {
        c->request_body = malloc(r->body_len + 1);
        if (!c->request_body) {
            free_call(c);
            return NULL;
        }
        memcpy(c->request_body, r->body ? r->body : "", r->body_len);
        c->request_body[r->body_len] = 0;
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, c->request_body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)r->body_len);
        char type[160];
        snprintf(type, sizeof type, "Content-Type: %s",
                 r->content_type ? r->content_type : "application/x-www-form-urlencoded");
        c->headers = curl_slist_append(c->headers, type);
    } else if (strcmp(r->method, "GET"))
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->headers);
    LIST_PUSH(C.calls, c, prev, next);
    if (C.in_curl)
        return c; /* added when curl returns (add_waiting) */
    if (curl_multi_add_handle(C.multi, e) != CURLM_OK) {
        unlink_call(c);
        free_call(c);
        return NULL;
    }
    c->added = true;
    return c;
}

void client_cancel(ClientCall *c)
{
    c->cancelled = true;
    c->on_done = NULL;
    c->on_line = NULL;
    if (!C.in_curl) {
        unlink_call(c);
        free_call(c);
    }
}
