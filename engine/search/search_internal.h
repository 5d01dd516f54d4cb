/* Internal state of a search, shared by search.c (the tree), threads.c (the pool and reports)
 * and movepick.c (move ordering). Not part of the engine's public interface. */
#ifndef FEELFISH_SEARCH_TYPES_H
#define FEELFISH_SEARCH_TYPES_H

#include <pthread.h>
#include <stdatomic.h>

#include "search.h"
#include "strength.h"
#include "timeman.h"

#define HISTORY_MAX 16384
/* Correction history: entries per side to move, and the fixed-point scale of an entry. */
#define CORR_SIZE 16384
#define CORR_GRAIN 256

typedef int16_t ContHist[PIECE_NB][SQUARE_NB];

/* One ply of the current line. */
typedef struct {
    Move move;
    Piece piece; /* the piece that made `move` */
    int static_eval; /* corrected (correction history) */
    int raw_eval;    /* the evaluator's own */
    Move killer[2];
    Move excluded; /* singular-extension search skips this move */
    int ply;
    ContHist *cont; /* continuation history row of `move` */
    int extensions;
} Stack;

typedef struct {
    Move move;
    int score, previous_score;
    int score_depth; /* the iteration that gave `score` */
    int seldepth;
    int bound;
    int pv_length;
    uint64_t nodes; /* nodes spent below this move since the search began (time management) */
    Move pv[MAX_PLY];
} RootMove;

typedef struct SearchThread {
    struct Search *search;
    int id;
    pthread_t handle;
    Position pos;
    _Atomic uint64_t nodes;
    int seldepth;
    int root_depth, completed_depth;
    Move reported; /* the first move of the last line reported (main thread) */
    int pv_idx, multipv;
    int nmp_min_ply; /* null move disabled below this ply during verification */
    RootMove root[MAX_MOVES];
    int root_count;
    int pv_length[MAX_PLY + 1];
    Move pv[MAX_PLY + 1][MAX_PLY + 1];
    Stack stack[MAX_PLY + 8];
    int16_t history[COLOR_NB][SQUARE_NB][SQUARE_NB];
    int16_t capture_history[PIECE_NB][SQUARE_NB][PIECE_TYPE_NB];
    ContHist cont_history[PIECE_NB][SQUARE_NB];
    Move counter[PIECE_NB][SQUARE_NB];
    int16_t correction[COLOR_NB][CORR_SIZE]; /* static evaluation's error by pawn structure, x CORR_GRAIN */
    int best_move_changes;
    NnueStack nnue; /* the learned evaluation's accumulators, one per ply from the root */
} SearchThread;

struct Search {
    TT tt;
    size_t hash_mb;
    int thread_count;
    SearchThread *threads[MAX_THREADS];
    int move_overhead;

    /* The current search (set by search_run, read by every thread). */
    const Position *root_pos;
    SearchLimits limits;
    const Evaluator *eval;
    Key salt;
    const SearchCallbacks *cb;
    TimeManager tm;
    uint64_t node_limit;
    int report_lines;  /* lines reported: those asked (at most the root's), or every line a rating draws among */
    Strength strength; /* limits.elo's budget (nodes 0: full strength), counted once depth 1 is done */
    atomic_bool stop;
    atomic_bool prepared;  /* search_prepare() ran for the coming search_run() */
    atomic_bool pondering; /* cleared by ponderhit */
    atomic_bool stop_on_ponderhit;

    /* Helper threads sleep on cond until `generation` changes; `running` counts the busy ones. */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned generation;
    int running;
    bool quit;
};

/* search.c */
void search_thread_reset(SearchThread *t);
void search_iterate(SearchThread *t);
/* threads.c */
void search_check_time(SearchThread *t);
void search_report(SearchThread *t, int depth);
uint64_t search_total_nodes(const struct Search *s);

#endif
