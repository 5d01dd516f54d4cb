/* Whole-game analysis over the API (POST /api/game-analysis and the rest; shared/design/API.md):
 * a game (PGN, or a FEN and moves) whose every position is searched as an analysis job of its
 * owner (so the fair queue serves it beside others' work), a few positions at a time, then
 * reviewed as Lichess's computer analysis (engine/review) and encoded once (encode_review.c). Stored
 * as a job row (its request while it runs, so a restart runs it again; its result when done, with
 * the annotated PGN). WebSocket clients subscribe to its progress. Loop thread. */
#ifndef FEELFISH_GAME_ANALYSIS_H
#define FEELFISH_GAME_ANALYSIS_H

#include <stdbool.h>

#include "../net/http.h"
#include "../net/ws.h"
#include "auth.h"

void game_analysis_create(Request *r, const char *param);
void game_analysis_get(Request *r, const char *id);
void game_analysis_pgn(Request *r, const char *id);
void game_analysis_delete(Request *r, const char *id);

/* A stored request found unfinished at start (its text has "kind": "game-analysis"): runs again. */
bool game_analysis_resume(const char *id, const char *owner, const char *request, long long created_ms);
/* Every second: analyses that found the queue full submit again. */
void game_analysis_retry(void);

/* {"op": "subscribe", "gameAnalysis": id}: progress frames, then the result; false with e set. */
bool game_analysis_subscribe(WsSession *ws, const char *id, const Identity *who, ApiError *e);
void game_analysis_forget_session(WsSession *ws);
/* At shutdown, before the jobs stop: every analysis leaves memory (unfinished ones stay stored). */
void game_analysis_shutdown(void);

#endif
