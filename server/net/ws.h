/* WebSocket transport: libwebsockets on the server's libuv loop (its foreign-loop mode). It knows
 * sessions and frames, never ops: the layer above registers the handlers and keeps its own state
 * per session. Each session has an outgoing queue where info frames are coalesced per (id, line)
 * while they wait, so a slow client gets the latest state rather than a growing backlog; other
 * frames are never dropped. */
#ifndef FEELFISH_WS_H
#define FEELFISH_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "../base/config.h"

typedef struct WsSession WsSession;

typedef enum { WS_TEXT, WS_BINARY, WS_TOO_LARGE } WsMessageKind;

/* What the transport found wrong with a handshake before asking the layer above. */
typedef enum { WS_REFUSE_NONE, WS_REFUSE_HOST, WS_REFUSE_ORIGIN, WS_REFUSE_FULL } WsRefusal;

typedef struct {
    WsRefusal refusal;         /* HOST: not one of the server's names; ORIGIN: another site's page;
                                * FULL: past --connections-max or --connections-per-ip */
    const char *authorization; /* the Authorization header, NULL if none */
    const char *address;       /* the peer's */
} WsHandshake;

typedef struct {
    /* Whether the handshake may go on: 0, or the HTTP status it is refused with (before the
     * upgrade) and the JSON body of that answer in `body`. Called for refused ones too, to word
     * the answer. May be NULL: all may that the transport did not refuse. */
    int (*admit)(const WsHandshake *h, char *body, size_t size);
    /* authorization: the handshake's Authorization header, NULL if none (not kept after the call). */
    void (*opened)(WsSession *s, const char *authorization);
    /* A whole message; for WS_BINARY and WS_TOO_LARGE the text is empty. */
    void (*message)(WsSession *s, WsMessageKind kind, const char *text, size_t len);
    void (*closed)(WsSession *s); /* the session's user state must be let go of here */
    /* Called between messages and handshakes: a burst of input keeps the loop inside one
     * iteration, and what is ready to go out meanwhile should not wait for its end. */
    void (*between_messages)(void);
} WsHandlers;

bool ws_start(uv_loop_t *loop, const ServerConfig *cfg, const WsHandlers *handlers, int *bound_port);
/* Closes every connection (their searches are cancelled) and the context; the loop then finishes
 * closing libwebsockets' handles. Loop thread. */
void ws_stop(void);

/* Serves a connected socket as if it had been accepted (the fuzzing harness hands it one end of a
 * socket pair); false if libwebsockets will not take it. */
bool ws_adopt(int fd);

/* Queues a text frame. An info frame replaces a queued one with the same id and line. */
void ws_send(WsSession *s, const char *text, size_t len, bool info, const char *id, int line);
void *ws_user(const WsSession *s);
/* The peer's address: whose quotas the session counts against. */
const char *ws_client(const WsSession *s);
void ws_set_user(WsSession *s, void *user);
/* Sends what is queued, then closes with 1008 (policy violation) and `reason` (a literal). */
void ws_close(WsSession *s, const char *reason);

typedef struct {
    int clients;
    unsigned long long frames_sent, frames_coalesced, overflows;
    unsigned long long refused; /* foreign Origin or Host */
    unsigned long long full;    /* past --connections-max or --connections-per-ip */
    unsigned long long idle_closed;
} WsStats;
void ws_stats(WsStats *s);

#endif
