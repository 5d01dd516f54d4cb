/* What a whole-game analysis is while the server holds it, shared by game_analysis.c (creating and
 * running it: its positions, the second look, the review) and game_analysis_access.c (reading,
 * cancelling and following it over HTTP and WebSocket). Loop thread. */
#ifndef FEELFISH_GAME_ANALYSIS_STATE_H
#define FEELFISH_GAME_ANALYSIS_STATE_H

#include <jansson.h>
#include <stdbool.h>

#include "../../engine/engine.h"
#include "../jobs/jobs.h"
#include "../net/ws.h"

#define IN_FLIGHT 4    /* positions of one analysis searched (or queued) at once */
#define SUBSCRIBERS 16 /* WebSocket sessions following one analysis */

typedef struct GameAnalysis GameAnalysis;

typedef struct {
    GameAnalysis *ga;
    int index; /* the position: 0 the start, k after k plies */
    Job *job;  /* held; released once its final event came (`ended`) */
    bool ended;
} Slot;

struct GameAnalysis {
    char id[24], owner[48];
    JobStatus status;
    json_t *request;  /* the client's body, as stored */
    json_t *position; /* what each position's analysis request has besides its fen */
    PgnGame game;     /* tags and the first MAX_PLIES moves */
    Position *start;
    char (*fens)[FEN_BUFFER_SIZE]; /* each position's (0: the start), replayed once */
    int total, done, next;         /* positions: plies + 1 */
    ReviewPosition *pos;
    Emotion *emotions; /* affective: each position's, else NULL */
    Slot slots[IN_FLIGHT];
    int in_flight;
    bool holding; /* unfinished with nothing in flight: it holds one of its owner's job places */
    bool *cached; /* the position has its result for this pass: from the evaluation cache, or not in it */
    int cache_hits;
    /* The second look (review_second_look): once every position has its first search, the two around
     * each move judged a blunder are searched again with `deeper`'s limits, then the review is built. */
    bool second_look;   /* asked (the default) */
    bool second;        /* under way: `next`, `cached` and the slots are its */
    json_t *deeper;     /* what its positions' requests have besides their fen */
    bool deeper_limits; /* some limit in `deeper` is larger than the first searches' (else no second look) */
    int again_total, again_done;
    bool looking;   /* the cache is being read: nothing is searched until it answers */
    bool stored;    /* its creation is committed (or it was read back): nothing is searched before */
    json_t *result; /* done: {analysis, players} */
    char *pgn;      /* done: the annotated PGN */
    int64_t created_ms, finished_ms;
    WsSession *subs[SUBSCRIBERS];
    int sub_count;
    GameAnalysis *list_prev, *list_next; /* the analyses in memory, newest first */
};

/* The analyses in memory, newest first. */
extern GameAnalysis *GameAnalyses;

GameAnalysis *ga_find(const char *id);
bool ga_unfinished(const GameAnalysis *ga);
/* What GET answers for it: id, status, progress, mode, and when done analysis and players. */
json_t *ga_status_json(const GameAnalysis *ga);
/* It has ended: its row gets what GET shows plus the PGN. */
void ga_store_final(GameAnalysis *ga);
/* It has ended: its followers get the final frame and follow no more. */
void ga_send_final(GameAnalysis *ga);

#endif
