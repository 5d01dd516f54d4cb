/* The API: the only layer that knows routes, ops and JSON. `feelfish serve` starts it and hands
 * its handlers to the transports and its hooks to the jobs and games below. */
#ifndef FEELFISH_API_H
#define FEELFISH_API_H

#include "../base/config.h"
#include "../jobs/jobs.h"
#include "../net/http.h"
#include "../net/ws.h"

/* The routes' settings and the ports as bound; also makes games store themselves through the API. */
void api_init(const ServerConfig *cfg, int http_port, int ws_port);
/* Picks up what the last process left unfinished: stored queued jobs run again, games waiting
 * for the engine get their move (what finds no worker is retried every second). Before serving. */
void api_resume(uv_loop_t *loop);
/* At shutdown, before the jobs stop: no more retries. */
void api_stop(void);
extern const HttpHandlers ApiHttpHandlers;
extern const WsHandlers ApiWsHandlers;
extern const JobHooks ApiJobHooks;

#endif
