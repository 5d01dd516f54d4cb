/* The staged move picker. Our generator is legal, so a noisy table move, killers and the counter-move
 * are validated by finding them in the generated lists (each generated once); a quiet table move is
 * tested alone, so a node it cuts off never generates the quiet moves. */
#include "movepick.h"

#include "../core/movegen.h"
#include "../core/see.h"

#include <limits.h>
#ifdef __SSE4_1__
#include <smmintrin.h>
#endif

enum {
    STAGE_TT,
    STAGE_GEN_NOISY,
    STAGE_GOOD_NOISY,
    STAGE_GEN_QUIET,
    STAGE_KILLER1,
    STAGE_KILLER2,
    STAGE_COUNTER,
    STAGE_QUIET,
    STAGE_BAD_NOISY,
    STAGE_QUIET_CHECKS,
    STAGE_DONE
};

static bool looks_noisy(const Position *p, Move m)
{
    return move_kind(m) == MOVE_PROMOTION || move_kind(m) == MOVE_EN_PASSANT ||
           (move_kind(m) != MOVE_CASTLING && p->board[move_to(m)] != NO_PIECE);
}

void movepick_init(MovePicker *mp, const Position *pos, const SearchThread *t, const Stack *ss, Move tt_move,
                   bool qsearch)
{
    mp->pos = pos;
    mp->t = t;
    mp->ss = ss;
    mp->tt_move = tt_move;
    mp->noisy_only = qsearch && !in_check(pos);
    mp->quiet_checks = NULL;
    mp->killer[0] = qsearch ? MOVE_NONE : ss->killer[0];
    mp->killer[1] = qsearch ? MOVE_NONE : ss->killer[1];
    mp->counter = MOVE_NONE;
    if (!qsearch && ss->ply > 0) {
        const Stack *prev = ss - 1;
        if (prev->move != MOVE_NONE && prev->move != MOVE_NULL)
            mp->counter = t->counter[prev->piece][move_to(prev->move)];
    }
    mp->stage = tt_move ? STAGE_TT : STAGE_GEN_NOISY;
    mp->noisy_ready = false;
    mp->noisy_next = mp->quiet_next = mp->bad_count = mp->bad_next = 0;
}

int movepick_quiet_history(const SearchThread *t, const Stack *ss, const Position *pos, Move m)
{
    Piece pc = pos->board[move_from(m)];
    Square to = move_to(m);
    int h = t->history[pos->side][move_from(m)][to];
    if (ss->ply >= 1)
        h += (*(ss - 1)->cont)[pc][to];
    if (ss->ply >= 2)
        h += (*(ss - 2)->cont)[pc][to];
    if (ss->ply >= 4)
        h += (*(ss - 4)->cont)[pc][to];
    return h;
}

/* best_index's padding: the four scores after a list's last (MAX_MOVES leaves room: a position has
 * at most 218 moves). */
_Static_assert(MAX_MOVES >= 218 + 4, "score lists need room for best_index's padding");

static void pad_scores(int *scores, int count)
{
    for (int i = count; i < count + 4; i++)
        scores[i] = INT_MIN;
}

static void gen_noisy(MovePicker *mp)
{
    const Position *p = mp->pos;
    movegen_legal(p, &mp->noisy, GEN_NOISY);
    for (int i = 0; i < mp->noisy.count; i++) {
        Move m = mp->noisy.moves[i];
        Piece pc = p->board[move_from(m)];
        PieceType victim = move_kind(m) == MOVE_EN_PASSANT ? PAWN : piece_type(p->board[move_to(m)]);
        int s = SeeValue[victim] * 8 + mp->t->capture_history[pc][move_to(m)][victim] / 16;
        if (move_kind(m) == MOVE_PROMOTION)
            s += move_promo(m) == QUEEN ? 8000 : -8000;
        mp->noisy_score[i] = s;
    }
    pad_scores(mp->noisy_score, mp->noisy.count);
    mp->noisy_ready = true;
}

static void gen_quiet(MovePicker *mp)
{
    movegen_legal(mp->pos, &mp->quiet, GEN_QUIET);
}

static void score_quiets(MovePicker *mp)
{
    for (int i = 0; i < mp->quiet.count; i++)
        mp->quiet_score[i] = movepick_quiet_history(mp->t, mp->ss, mp->pos, mp->quiet.moves[i]);
    pad_scores(mp->quiet_score, mp->quiet.count);
}

/* Index of the first highest score in scores[from, count): the move a left-to-right scan keeping the
 * first maximum finds. With SSE4.1, four scores at a time, reading up to three past count: the lists
 * are padded with INT_MIN (pad_scores), which can only tie a real score that is INT_MIN itself, and
 * the first equal index found is then still a real one (from < count). */
static int best_index(const int *scores, int from, int count)
{
#ifdef __SSE4_1__
    __m128i top = _mm_set1_epi32(INT_MIN);
    for (int i = from; i < count; i += 4)
        top = _mm_max_epi32(top, _mm_loadu_si128((const __m128i *)(scores + i)));
    top = _mm_max_epi32(top, _mm_shuffle_epi32(top, _MM_SHUFFLE(1, 0, 3, 2)));
    top = _mm_max_epi32(top, _mm_shuffle_epi32(top, _MM_SHUFFLE(2, 3, 0, 1)));
    for (int i = from;; i += 4) {
        __m128i eq = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(scores + i)), top);
        int mask = _mm_movemask_ps(_mm_castsi128_ps(eq));
        if (mask)
            return i + __builtin_ctz((unsigned)mask);
    }
#else
    int best = from;
    for (int i = from + 1; i < count; i++)
        if (scores[i] > scores[best])
            best = i;
    return best;
#endif
}

/* Removes and returns the best-scored remaining move (selection: lists are short, most nodes
 * take only one or two moves before a cutoff). */
static Move pick_best(MoveList *l, int *scores, int *next)
{
    int best = best_index(scores, *next, l->count);
    Move m = l->moves[best];
    int s = scores[best];
    l->moves[best] = l->moves[*next];
    scores[best] = scores[*next];
    l->moves[*next] = m;
    scores[*next] = s;
    (*next)++;
    return m;
}

static bool is_special_quiet(const MovePicker *mp, Move m)
{
    return m == mp->tt_move || m == mp->killer[0] || m == mp->killer[1] || m == mp->counter;
}

Move movepick_next(MovePicker *mp, bool skip_quiets)
{
    for (;;) {
        switch (mp->stage) {
        case STAGE_TT:
            mp->stage = STAGE_GEN_NOISY;
            if (looks_noisy(mp->pos, mp->tt_move)) {
                gen_noisy(mp); /* scored now, before the table move's search moves the capture history */
                if (movelist_contains(&mp->noisy, mp->tt_move))
                    return mp->tt_move;
            } else if (!mp->noisy_only && movegen_is_legal(mp->pos, mp->tt_move)) {
                return mp->tt_move; /* the quiet list waits: a cutoff may come first */
            }
            mp->tt_move = MOVE_NONE; /* not legal here: a key collision */
            break;
        case STAGE_GEN_NOISY:
            if (!mp->noisy_ready)
                gen_noisy(mp);
            mp->stage = STAGE_GOOD_NOISY;
            break;
        case STAGE_GOOD_NOISY:
            while (mp->noisy_next < mp->noisy.count) {
                Move m = pick_best(&mp->noisy, mp->noisy_score, &mp->noisy_next);
                if (m == mp->tt_move)
                    continue;
                /* Losing captures wait until the quiet moves have been tried. */
                if (!mp->noisy_only && !see_ge(mp->pos, m, -mp->noisy_score[mp->noisy_next - 1] / 64)) {
                    mp->bad[mp->bad_count++] = m;
                    continue;
                }
                return m;
            }
            if (mp->noisy_only) {
                mp->stage = mp->quiet_checks ? STAGE_QUIET_CHECKS : STAGE_DONE;
                if (mp->quiet_checks)
                    gen_quiet(mp);
                break;
            }
            mp->stage = STAGE_GEN_QUIET;
            break;
        case STAGE_GEN_QUIET:
            gen_quiet(mp);
            mp->stage = STAGE_KILLER1;
            break;
        case STAGE_KILLER1:
        case STAGE_KILLER2:
        case STAGE_COUNTER: {
            Move m = mp->stage == STAGE_COUNTER ? mp->counter : mp->killer[mp->stage - STAGE_KILLER1];
            int stage = mp->stage++;
            if (stage == STAGE_COUNTER && (m == mp->killer[0] || m == mp->killer[1]))
                break;
            if (stage == STAGE_KILLER2 && m == mp->killer[0])
                break;
            if (skip_quiets || !m || m == mp->tt_move || !movelist_contains(&mp->quiet, m))
                break;
            return m;
        }
        case STAGE_QUIET:
            if (!skip_quiets) {
                if (mp->quiet_next == 0)
                    score_quiets(mp);
                while (mp->quiet_next < mp->quiet.count) {
                    Move m = pick_best(&mp->quiet, mp->quiet_score, &mp->quiet_next);
                    if (!is_special_quiet(mp, m))
                        return m;
                }
            }
            mp->stage = STAGE_BAD_NOISY;
            break;
        case STAGE_BAD_NOISY:
            if (mp->bad_next < mp->bad_count)
                return mp->bad[mp->bad_next++];
            mp->stage = STAGE_DONE;
            break;
        case STAGE_QUIET_CHECKS:
            while (mp->quiet_next < mp->quiet.count) {
                Move m = mp->quiet.moves[mp->quiet_next++];
                if (m != mp->tt_move && position_gives_check_ci(mp->pos, mp->quiet_checks, m))
                    return m;
            }
            mp->stage = STAGE_DONE;
            break;
        default: return MOVE_NONE;
        }
    }
}
