/* Analysis requests, shared by REST and WebSocket: validation of a request's JSON into a job. */
#ifndef FEELFISH_REQUEST_H
#define FEELFISH_REQUEST_H

#include <jansson.h>

#include "../base/config.h"
#include "../base/error.h"
#include "../jobs/jobs.h"

/* The caps requests are held to (depth, nodes, movetime, MultiPV). */
void request_set_config(const ServerConfig *cfg);
/* Validates an analysis request (REST body or WebSocket op) into a new job, not yet submitted;
 * NULL with e set. stream: the WebSocket's analyse op, which may run until stopped and carries "op"
 * and "id" besides. */
Job *request_analysis(ApiError *e, json_t *body, bool stream);
/* request_analysis, then the job is queued for `client` (its owner: a token's name or an address),
 * counted against its quotas, its search at rating `elo` (0: full strength; POST /api/play's level
 * or elo): NULL with e set, among others 429 too_many_jobs, 429 too_many_infinite and 503 queue_full. */
Job *request_start(ApiError *e, json_t *body, bool stream, const char *client, int elo);
/* The "fen" of a request (NULL: the standard start) into p; false with e set (bad_type, fen_*). */
bool request_read_fen(ApiError *e, json_t *fen, Position *p);
/* Rejects keys not in `allowed` (NULL-terminated), suggesting the nearest one. */
bool request_check_keys(ApiError *e, json_t *obj, const char *const *allowed, const char *prefix);

#endif
