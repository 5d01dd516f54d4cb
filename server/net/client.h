/* HTTP as a client, on the loop: libcurl's multi interface driven by libuv (each socket curl
 * watches is a uv_poll, its timeout a uv_timer; curl_multi_socket_action does the rest), so no
 * call blocks. A call answers once, whole; a stream hands over each line as it comes (NDJSON, an
 * empty line being a keep-alive) and ends when the server closes it, it errs, or no byte came for
 * its idle timeout. Knows URLs, headers and bytes, never what they mean. Loop thread. */
#ifndef FEELFISH_CLIENT_H
#define FEELFISH_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

typedef struct ClientCall ClientCall;

typedef struct {
    int status;          /* the HTTP status; 0 when no answer came (then `error` says why) */
    const char *body;    /* the whole body (a stream's, when it was refused: its error page) */
    size_t len;
    long retry_after_s;  /* Retry-After in seconds, -1 if the answer had none */
    const char *error;   /* the transport's complaint (NULL when an answer came) */
} ClientAnswer;

typedef struct {
    const char *method; /* "GET", "POST" */
    const char *url;
    const char *bearer; /* sent as Authorization: Bearer ...; never logged */
    const char *user_agent;
    const char *content_type; /* with body */
    const char *body;
    size_t body_len;
    long timeout_ms;      /* the whole call (0: none, as for streams) */
    long idle_timeout_ms; /* a stream that sends nothing for this long is ended (0: none) */
    /* A stream: each line (without its newline) as it arrives, while the status is 2xx. */
    void (*on_line)(const char *line, size_t len, void *user);
    void (*on_done)(const ClientAnswer *answer, void *user); /* once, at the end */
    void *user;
} ClientRequest;

/* Starts the client (a second call does nothing). */
bool client_start(uv_loop_t *loop);
/* Ends every call without calling its on_done, and frees the client. */
void client_stop(void);
/* Starts a call (the request's strings are copied); NULL if it cannot be made (on_done is then
 * not called). */
ClientCall *client_call(const ClientRequest *request);
/* Ends a call; its on_done is not called. */
void client_cancel(ClientCall *call);

#endif
