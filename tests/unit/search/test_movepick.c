/* The move picker: every legal move exactly once, the table move first, and the quiet moves in the
 * order a selection by history score gives (the first of equal scores first), under histories with
 * many ties and without. */
#include <stdlib.h>

#include "../../../engine/engine.h"
#include "../../../engine/search/movepick.h"
#include "../test.h"

static Position pos;

/* The picker's quiet order by its definition: repeatedly the first highest-scored remaining move,
 * swapped into place (so ties are settled the same way the picker settles them). */
static void reference_quiet_order(const SearchThread *t, const Stack *ss, MoveList *out)
{
    int score[MAX_MOVES];
    movegen_legal(&pos, out, GEN_QUIET);
    for (int i = 0; i < out->count; i++)
        score[i] = movepick_quiet_history(t, ss, &pos, out->moves[i]);
    for (int next = 0; next < out->count; next++) {
        int best = next;
        for (int i = next + 1; i < out->count; i++)
            if (score[i] > score[best])
                best = i;
        Move m = out->moves[best];
        int s = score[best];
        out->moves[best] = out->moves[next], score[best] = score[next];
        out->moves[next] = m, score[next] = s;
    }
}

/* The moves the picker returns before its quiet stage: the table move, killers (no counter-move at
 * the root ply). */
static bool special(Move m, Move tt, const Stack *ss) { return m == tt || m == ss->killer[0] || m == ss->killer[1]; }

/* One position: the picker with a table move and killers drawn from the legal moves. */
static void check_picker(SearchThread *t, Stack *ss, const char *fen)
{
    MoveList all, quiet;
    movegen_legal(&pos, &all, GEN_ALL);
    reference_quiet_order(t, ss, &quiet);
    Move tt = all.count && test_rand() % 4 ? all.moves[test_rand() % all.count] : MOVE_NONE;
    ss->killer[0] = quiet.count ? quiet.moves[test_rand() % quiet.count] : MOVE_NONE;
    ss->killer[1] = quiet.count > 1 ? quiet.moves[test_rand() % quiet.count] : MOVE_NONE;
    if (ss->killer[1] == ss->killer[0])
        ss->killer[1] = MOVE_NONE;

    MovePicker mp;
    movepick_init(&mp, &pos, t, ss, tt, false);
    Move seen[MAX_MOVES];
    int n = 0, next_quiet = 0;
    for (Move m; (m = movepick_next(&mp, false)) != MOVE_NONE;) {
        CHECK_MSG(n < all.count && movelist_contains(&all, m), "%s: a move not legal or one too many", fen);
        for (int i = 0; i < n; i++)
            CHECK_MSG(seen[i] != m, "%s: a move picked twice", fen);
        CHECK_MSG(n > 0 || !tt || m == tt, "%s: the table move not first", fen);
        seen[n++] = m;
        if (special(m, tt, ss) || !movelist_contains(&quiet, m))
            continue;
        /* A quiet move from the quiet stage: the next of the reference order that is not special. */
        while (next_quiet < quiet.count && special(quiet.moves[next_quiet], tt, ss))
            next_quiet++;
        CHECK_MSG(next_quiet < quiet.count && quiet.moves[next_quiet] == m, "%s: quiet move %d out of order", fen,
                  next_quiet);
        next_quiet++;
    }
    CHECK_MSG(n == all.count, "%s: %d moves picked of %d", fen, n, all.count);
}

static void test_picker_order(void)
{
    SearchThread *t = calloc(1, sizeof *t);
    CHECK(t);
    Stack ss = {0};
    static const char *files[] = {"perft/standard.epd", "perft/random.epd"};
    static char fens[200][128];
    int positions = 0;
    for (int spread = 0; spread < 2; spread++) {
        /* Small histories tie often (the order among ties is where a faster picker could differ);
         * full-range ones rarely. */
        int range = spread ? 2 * HISTORY_MAX : 7;
        for (int c = 0; c < COLOR_NB; c++)
            for (int from = 0; from < SQUARE_NB; from++)
                for (int to = 0; to < SQUARE_NB; to++)
                    t->history[c][from][to] = (int16_t)((int)(test_rand() % (unsigned)range) - range / 2);
        for (int fi = 0; fi < 2; fi++) {
            int count = test_read_fens(files[fi], fens, 200);
            CHECK(count > 0);
            for (int i = 0; i < count; i++) {
                CHECK_MSG(fen_read(&pos, fens[i], NULL, 0) == FEN_OK, "%s", fens[i]);
                check_picker(t, &ss, fens[i]);
                positions++;
            }
        }
    }
    CHECK_INT(positions, 2 * 127);
    free(t);
}

void suite_movepick(void) { RUN(test_picker_order); }
