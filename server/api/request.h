/* Requests shared by REST and WebSocket: the position or game a request names, and an analysis
 * request validated into a job. */
#ifndef FEELFISH_REQUEST_H
#define FEELFISH_REQUEST_H

#include <jansson.h>

#include "../base/config.h"
#include "../base/error.h"
#include "../jobs/jobs.h"
#include "../../engine/notation/pgn.h"

/* The caps requests are held to (depth, nodes, movetime, MultiPV). */
void request_set_config(const ServerConfig *cfg);

/* The server's caps on a search's limits (--max-nodes, --max-depth, --max-movetime): a larger limit
 * asked is searched at the cap. */
void request_limit_caps(int64_t *nodes, int64_t *depth, int64_t *movetime);
/* Validates an analysis request (REST body or WebSocket op) into a new job, not yet submitted;
 * NULL with e set. stream: the WebSocket's analyse op, which may run until stopped and carries "op"
 * and "id" besides. */
Job *request_analysis(ApiError *e, json_t *body, bool stream);
/* request_analysis, then the job is queued for `client` (its owner: a token's name or an address),
 * counted against its quotas, its search at rating `elo` (0: full strength; POST /api/play's level
 * or elo): NULL with e set, among others 429 too_many_jobs, 429 too_many_infinite and 503 queue_full. */
Job *request_start(ApiError *e, json_t *body, bool stream, const char *client, int elo);
/* The most moves a request that names one position may give (its "moves" array, or a PGN's moves
 * kept as the game so far). */
#define MAX_REQUEST_MOVES 2000

/* The "fen" of a request (NULL: the standard start) into p; false with e set (bad_type, fen_*). */
bool request_read_fen(ApiError *e, json_t *fen, Position *p);
/* The game of a request: "pgn" (its first game: tags, start and moves, without its comments,
 * glyphs and variations), or "fen" (default: the standard start) and "moves" (UCI, a JSON array or
 * one space-separated string; none when absent); its first max_plies moves kept, with their SAN.
 * Into g (cleared first; pgn_game_free it) and start; false with e set (position_ambiguous,
 * bad_type, bad_pgn, fen_*, bad_move naming moves[i], 503 overloaded). */
bool request_read_game(ApiError *e, json_t *body, int max_plies, PgnGame *g, Position *start);
/* Rejects keys not in `allowed` (NULL-terminated), suggesting the nearest one. */
bool request_check_keys(ApiError *e, json_t *obj, const char *const *allowed, const char *prefix);

#endif
