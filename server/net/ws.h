/* WebSocket streaming: libwebsockets on the server's libuv loop (its foreign-loop mode). */
#ifndef FEELFISH_WS_H
#define FEELFISH_WS_H

#include <stdbool.h>
#include <uv.h>

#include "../base/config.h"

bool ws_start(uv_loop_t *loop, const ServerConfig *cfg, int *bound_port);
/* Closes every connection (their searches are cancelled) and the context; the loop then finishes
 * closing libwebsockets' handles. Loop thread. */
void ws_stop(void);

typedef struct {
    int clients;
    unsigned long long frames_sent, frames_coalesced;
} WsStats;
void ws_stats(WsStats *s);

#endif
