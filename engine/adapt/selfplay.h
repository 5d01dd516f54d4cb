/* Games between two evaluators inside this process, with fixed budgets per move: one game
 * (selfplay_game), and a pool of threads playing numbered games (selfplay_run) for `feelfish
 * datagen`, `feelfish learn` and the Bayesian experiments. No I/O. */
#ifndef FEELFISH_SELFPLAY_H
#define FEELFISH_SELFPLAY_H

#include <stdatomic.h>

#include "../notation/fen.h"
#include "../search/search.h"

#define SELFPLAY_MAX_PLIES 400 /* a longer game is a draw */

typedef struct {
    /* The evaluator for the side to move at this root; it must stay valid until the next call. */
    const Evaluator *(*evaluator)(void *user, const Position *root);
    void *user;
} SelfPlayer;

typedef struct {
    uint64_t nodes;  /* per move; 0: none */
    int depth;       /* per move; 0: none */
    int64_t base_ms; /* a clock for each side when > 0 ... */
    int64_t inc_ms;  /* ... with this increment */
    int resign_cp;   /* both sides agree |score| >= this for 4 plies in a row: adjudicated (0: off) */
} SelfPlaySettings;

typedef struct {
    int result; /* +1 White won, 0 draw, -1 Black won */
    char reason[32];
    int plies;
    Move moves[SELFPLAY_MAX_PLIES];
    int16_t scores[SELFPLAY_MAX_PLIES]; /* each move's search score, its mover's view */
} SelfPlayGame;

/* Plays from fen (NULL: the start position); players[WHITE], players[BLACK]; searches[c] is the
 * Search that colour uses (cleared first). Returns false only for a bad FEN. */
bool selfplay_game(Search *searches[COLOR_NB], const char *fen, const SelfPlayer players[COLOR_NB],
                   const SelfPlaySettings *settings, SelfPlayGame *game);

/* One game of a run, as the callbacks see it; each worker thread owns one. */
typedef struct {
    int index;                    /* the game number */
    Search *searches[COLOR_NB];   /* the worker's (setup may search with them, e.g. to test an opening) */
    char fen[FEN_BUFFER_SIZE];    /* setup writes the opening, or leaves "" for the start position */
    SelfPlayer players[COLOR_NB]; /* setup fills both */
    bool played;                  /* false: the FEN did not read, and game is empty */
    SelfPlayGame game;
} SelfPlayTask;

/* Workers claim game numbers 0 .. games-1 in order from one counter, so which thread plays a
 * game never matters to the game: a run is reproducible when setup depends on the index alone. */
typedef struct {
    int threads; /* workers, each with its own two Searches */
    int games;
    const SelfPlaySettings *settings;
    void *user; /* given to every callback */
    /* Optional: true for a game number to pass over (a resumed run's finished games). Called
     * under the run's counter lock, so it needs none of its own. */
    bool (*skip)(void *user, int index);
    /* Fills task->fen and task->players for task->index. */
    void (*setup)(void *user, SelfPlayTask *task);
    /* Called after every game set up (also to free what setup allocated). Called on the worker
     * thread under no lock of the run, concurrently with other workers' calls: what it shares
     * it guards itself. */
    void (*finish)(void *user, SelfPlayTask *task);
    /* Optional: once set, no further game is claimed; games under way are played and finished. */
    const atomic_bool *stop;
} SelfPlayRun;

/* Plays the run's games and returns when every worker has finished. */
void selfplay_run(const SelfPlayRun *run);

#endif
