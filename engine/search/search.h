/* The search's public interface, protocol-neutral: a request (position, limits, evaluator) goes
 * in, plain structs come out through a callback. Nothing here prints. Each Search owns its own
 * transposition table and threads, so several can run at once in one process. */
#ifndef FEELFISH_SEARCH_H
#define FEELFISH_SEARCH_H

#include <stddef.h>

#include "../eval/eval.h"
#include "../core/position.h"
#include "../core/tt.h"

#define MAX_PLY 120
#define MAX_MULTIPV 64
#define MAX_THREADS 256
#define VALUE_DRAW 0
#define VALUE_MATE 32000
#define VALUE_INFINITE 32001
#define VALUE_NONE 32002
#define VALUE_MATE_IN_MAX_PLY (VALUE_MATE - MAX_PLY)

typedef struct {
    int depth;        /* 0: no limit */
    uint64_t nodes;   /* 0: no limit */
    int64_t movetime; /* ms, 0: no limit */
    bool use_clock;   /* time/inc below are set */
    int64_t time[COLOR_NB], inc[COLOR_NB];
    int movestogo;         /* 0: sudden death */
    int mate;              /* look for a mate in this many moves, 0: no */
    bool infinite;         /* search until stopped */
    bool ponder;           /* search until ponderhit or stop */
    int multipv;           /* lines to report, >= 1 */
    int elo;               /* play at this rating (strength.h), 0: full strength */
    int searchmoves_count; /* 0: every legal move */
    Move searchmoves[MAX_MOVES];
} SearchLimits;

void search_limits_init(SearchLimits *l);

typedef struct {
    int depth, seldepth, multipv;
    int score; /* side to move's view; |score| >= VALUE_MATE_IN_MAX_PLY means mate */
    int bound; /* BOUND_EXACT, BOUND_LOWER (fail high) or BOUND_UPPER (fail low) */
    uint64_t nodes, nps;
    int64_t time_ms;
    int hashfull;
    int pv_length;
    Move pv[MAX_PLY];
} SearchInfo;

typedef struct {
    void (*on_info)(void *user, const SearchInfo *info);
    void *user;
} SearchCallbacks;

typedef struct {
    Move best, ponder; /* MOVE_NONE when there is no legal move */
    int score;
    int depth;
    uint64_t nodes;
    int64_t time_ms;
    int lines; /* the last complete report of each line */
    SearchInfo line[MAX_MULTIPV];
} SearchResult;

typedef struct Search Search;

/* Builds the search's read-only tables (engine_init calls it, before any thread searches). */
void search_init(void);

Search *search_new(void); /* 16 MB hash, one thread */
void search_free(Search *s);
bool search_set_hash(Search *s, size_t mb);
bool search_set_threads(Search *s, int threads);
void search_set_move_overhead(Search *s, int ms);
void search_clear(Search *s); /* new game: empty table and histories */
size_t search_hash_mb(const Search *s);

/* Arms a search's stop and ponder flags for `limits`. A caller that runs search_run on another
 * thread calls this first, on its own thread, so a stop or ponderhit sent at once is never lost
 * to a search that has not started yet. search_run calls it itself when the caller did not. */
void search_prepare(Search *s, const SearchLimits *limits);

/* Runs a search to its end on the calling thread (plus helper threads). The position's history
 * is used for repetitions. Safe to call search_stop/search_ponderhit from another thread. */
void search_run(Search *s, const Position *pos, const SearchLimits *limits, const Evaluator *eval,
                const SearchCallbacks *cb, SearchResult *result);
void search_stop(Search *s);
void search_ponderhit(Search *s);

/* Mate in moves from a score, the side to move's or White's (positive: that side mates), or 0 when not a
 * mate score. */
int search_mate_in(int score);

/* One pawn, as shown, in the engine's units. Every centipawn feelfish shows (UCI `score cp`, the API's
 * `cp`/`eval`, the game review and its Win%) is search_cp(score) = 100 * score / SCORE_PAWN, rounded,
 * as Stockfish shows 100 * v / NormalizeToPawnValue: the value makes Lichess's Win% curve, fitted to
 * Stockfish's centipawns, predict the results of feelfish's own games (tests/bench/calibrate.py; each
 * network's fit is in docs/calibration.md). The search itself, its margins and the evaluation stay in
 * engine units (EVAL_PAWN). */
#define SCORE_PAWN 58
int search_cp(int score);

/* Milliseconds on a monotonic clock. */
int64_t time_now_ms(void);

#endif
