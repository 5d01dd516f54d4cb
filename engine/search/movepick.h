/* Move ordering for the search: the table move, winning captures, killers, the counter-move,
 * quiet moves by history, then losing captures; each list generated only when reached. */
#ifndef FEELFISH_MOVEPICK_H
#define FEELFISH_MOVEPICK_H

#include "search_internal.h"

typedef struct {
    const Position *pos;
    const SearchThread *t;
    const Stack *ss;
    Move tt_move, killer[2], counter;
    int stage;
    bool noisy_only;               /* quiescence search not in check */
    const CheckInfo *quiet_checks; /* with noisy_only: then quiet moves giving check (by this), or NULL */
    MoveList noisy, quiet;
    bool noisy_ready; /* generated early, by the table move's stage */
    int noisy_score[MAX_MOVES], quiet_score[MAX_MOVES];
    int noisy_next, quiet_next;
    Move bad[MAX_MOVES];
    int bad_count, bad_next;
} MovePicker;

void movepick_init(MovePicker *mp, const Position *pos, const SearchThread *t, const Stack *ss, Move tt_move,
                   bool qsearch);
/* The next move, or MOVE_NONE. With skip_quiets, quiet moves are no longer returned. */
Move movepick_next(MovePicker *mp, bool skip_quiets);

/* Quiet-move score from the history tables, also used by the search's pruning and reductions. */
int movepick_quiet_history(const SearchThread *t, const Stack *ss, const Position *pos, Move m);

#endif
