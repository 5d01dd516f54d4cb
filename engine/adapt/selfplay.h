/* One game between two evaluators inside this process, with fixed budgets per move: the game
 * loop of `feelfish learn` and the Bayesian experiments. No I/O. */
#ifndef FEELFISH_SELFPLAY_H
#define FEELFISH_SELFPLAY_H

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

#endif
