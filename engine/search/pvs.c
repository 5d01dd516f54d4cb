/* The search: iterative deepening with aspiration windows around a principal-variation
 * (NegaScout) alpha-beta search with a transposition table, null-move pruning with verification,
 * reverse futility, futility, late-move pruning and reductions, SEE pruning, singular and check
 * extensions, killers/history/counter-move/continuation ordering, a correction history on the
 * static evaluation, and a quiescence search.
 * Scores are from the side to move's point of view. */
#include <math.h>
#include <string.h>

#include "../core/movegen.h"
#include "movepick.h"
#include "search_internal.h"
#include "../core/see.h"

static int Reductions[MAX_PLY][MAX_MOVES];

void search_init(void)
{
    for (int d = 1; d < MAX_PLY; d++)
        for (int m = 1; m < MAX_MOVES; m++)
            Reductions[d][m] = (int)(0.75 + log(d) * log(m) / 2.25);
}

static inline int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A capture (en passant included) or a promotion. */
static inline bool is_noisy(const Position *p, Move m) { return is_capture(p, m) || move_kind(m) == MOVE_PROMOTION; }

static inline int mated_in(int ply) { return -VALUE_MATE + ply; }
static inline int mate_in(int ply) { return VALUE_MATE - ply; }

/* Mate scores are stored relative to the node, so they stay right wherever the node is reached. */
static inline int score_to_tt(int v, int ply)
{
    return v >= VALUE_MATE_IN_MAX_PLY ? v + ply : v <= -VALUE_MATE_IN_MAX_PLY ? v - ply : v;
}
static inline int score_from_tt(int v, int ply)
{
    if (v == VALUE_NONE)
        return v;
    return v >= VALUE_MATE_IN_MAX_PLY ? v - ply : v <= -VALUE_MATE_IN_MAX_PLY ? v + ply : v;
}

static inline int history_bonus(int depth) { return depth > 13 ? 1800 : 16 * depth * depth + 64 * depth - 64; }

static inline void history_update(int16_t *h, int bonus)
{
    int v = *h + bonus - *h * (bonus < 0 ? -bonus : bonus) / HISTORY_MAX;
    *h = (int16_t)(v > HISTORY_MAX ? HISTORY_MAX : v < -HISTORY_MAX ? -HISTORY_MAX : v);
}

void search_thread_reset(SearchThread *t)
{
    memset(t->history, 0, sizeof t->history);
    memset(t->capture_history, 0, sizeof t->capture_history);
    memset(t->cont_history, 0, sizeof t->cont_history);
    memset(t->counter, 0, sizeof t->counter);
    memset(t->correction, 0, sizeof t->correction);
}

/* Correction history: what searches below nodes of this pawn structure (and kings) found the
 * static evaluation to be off by, learnt per side to move; the evaluator's fingerprint is in the
 * index so that an affective or Bayesian search never reads the classical one's corrections. */
#define CORR_LIMIT 96 /* a pawn and a half */

static inline int16_t *correction_entry(SearchThread *t, const Position *p)
{
    return &t->correction[p->side][(p->st->pawn_key ^ t->search->eval->fingerprint) & (CORR_SIZE - 1)];
}

static inline int corrected_eval(SearchThread *t, const Position *p, int raw)
{
    return clamp_int(raw + *correction_entry(t, p) / CORR_GRAIN, -VALUE_MATE_IN_MAX_PLY + 1, VALUE_MATE_IN_MAX_PLY - 1);
}

/* The entry moves toward best - raw by min(depth + 1, 16) / 256 of the way. */
static void update_correction(SearchThread *t, const Position *p, int raw, int best, int depth)
{
    int diff = clamp_int(best - raw, -CORR_LIMIT, CORR_LIMIT) * CORR_GRAIN;
    int w = depth + 1 < 16 ? depth + 1 : 16;
    int16_t *e = correction_entry(t, p);
    *e = (int16_t)((*e * (256 - w) + diff * w) / 256); /* between the old entry and diff: within the limit */
}

/* Draw by the rules inside the tree: a repetition since the root counts at its first
 * occurrence, one before the root only as a threefold. */
static bool is_draw(const Position *p, int ply)
{
    const StateInfo *st = p->st;
    if (st->rule50 >= 100) {
        if (!st->checkers)
            return true;
        MoveList l;
        return movegen_legal(p, &l, GEN_ALL) > 0; /* mate on the hundredth move is still mate */
    }
    int end = st->rule50 < st->plies_from_null ? st->rule50 : st->plies_from_null;
    if (end > p->stack_len)
        end = p->stack_len;
    bool seen = false;
    for (int i = 4; i <= end; i += 2)
        if ((st - i)->key == st->key) {
            if (i <= ply || seen)
                return true;
            seen = true;
        }
    return position_insufficient_material(p);
}

static inline bool has_non_pawn_material(const Position *p, Color c) { return p->st->material[c] > 0; }

static void update_pv(SearchThread *t, int ply, Move m)
{
    t->pv[ply][ply] = m;
    for (int i = ply + 1; i < t->pv_length[ply + 1]; i++)
        t->pv[ply][i] = t->pv[ply + 1][i];
    t->pv_length[ply] = t->pv_length[ply + 1];
}

/* Plays m below this node: the stack's record of it, the child's table bucket fetched early, the node
 * counted, the move made, and in a PV node the child's line emptied (a child searched as a non-PV
 * node, a window narrowed to one point, leaves none, not a stale one). Returns the node count before. */
static inline uint64_t play(SearchThread *t, Stack *ss, Move m, bool pv_node)
{
    Position *p = &t->pos;
    ss->move = m;
    ss->piece = p->board[move_from(m)];
    ss->cont = &t->cont_history[ss->piece][move_to(m)];
    tt_prefetch(&t->search->tt, position_key_after(p, m) ^ t->search->salt);
    uint64_t nodes = atomic_load_explicit(&t->nodes, memory_order_relaxed);
    atomic_store_explicit(&t->nodes, nodes + 1, memory_order_relaxed);
    position_make_move(p, m);
    if (pv_node)
        t->pv_length[ss->ply + 1] = ss->ply + 1;
    return nodes;
}

/* Quiescence: captures and promotions until the position is quiet; at its first ply (depth 0)
 * also quiet checks, so a mate just past the horizon is not missed. */
static int qsearch(SearchThread *t, Stack *ss, int alpha, int beta, int depth)
{
    Search *s = t->search;
    Position *p = &t->pos;
    bool pv_node = beta - alpha > 1;
    int ply = ss->ply;

    if (pv_node)
        t->pv_length[ply] = ply;
    if (ply > t->seldepth)
        t->seldepth = ply;
    if (t->id == 0)
        search_check_time(t);
    if (atomic_load_explicit(&s->stop, memory_order_relaxed))
        return 0;
    if (is_draw(p, ply))
        return VALUE_DRAW;
    bool checked = in_check(p);
    if (ply >= MAX_PLY - 1)
        return checked ? VALUE_DRAW : evaluate_with(p, s->eval, &t->nnue);

    Key key = p->st->key ^ s->salt;
    TTData tte = {0};
    bool hit = tt_probe(&s->tt, key, &tte);
    int tt_score = hit ? score_from_tt(tte.score, ply) : VALUE_NONE;
    int tt_depth = checked || depth >= 0 ? 0 : -1;
    if (!pv_node && hit && tt_score != VALUE_NONE && tte.depth >= tt_depth &&
        (tte.bound & (tt_score >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return tt_score;

    int best, static_eval, futility_base;
    if (checked) {
        static_eval = VALUE_NONE;
        best = futility_base = -VALUE_INFINITE;
    } else {
        static_eval = hit && tte.eval != VALUE_NONE ? tte.eval : evaluate_with(p, s->eval, &t->nnue);
        best = corrected_eval(t, p, static_eval);
        if (hit && tt_score != VALUE_NONE && (tte.bound & (tt_score > best ? BOUND_LOWER : BOUND_UPPER)))
            best = tt_score;
        if (best >= beta) {
            if (!hit)
                tt_store(&s->tt, key, MOVE_NONE, score_to_tt(best, ply), static_eval, -2, BOUND_LOWER);
            return best;
        }
        if (best > alpha)
            alpha = best;
        futility_base = best + 160;
    }

    MovePicker mp;
    movepick_init(&mp, p, t, ss, hit ? tte.move : MOVE_NONE, true);
    CheckInfo ci;
    if (!checked)
        position_check_info(p, &ci);
    mp.quiet_checks = depth >= 0 && !checked ? &ci : NULL;
    Move m, best_move = MOVE_NONE;
    int move_count = 0;
    while ((m = movepick_next(&mp, false)) != MOVE_NONE) {
        move_count++;
        if (best > -VALUE_MATE_IN_MAX_PLY && !checked) {
            bool gives = position_gives_check_ci(p, &ci, m);
            if (!gives && move_kind(m) != MOVE_PROMOTION && futility_base > -VALUE_INFINITE) {
                PieceType victim = move_kind(m) == MOVE_EN_PASSANT ? PAWN : piece_type(p->board[move_to(m)]);
                int value = futility_base + SeeValue[victim];
                if (value <= alpha) {
                    if (value > best)
                        best = value;
                    continue;
                }
            }
            if (!see_ge(p, m, 0))
                continue;
        }
        play(t, ss, m, pv_node);
        int v = -qsearch(t, ss + 1, -beta, -alpha, depth - 1);
        position_unmake_move(p);
        if (atomic_load_explicit(&s->stop, memory_order_relaxed))
            return 0;
        if (v > best) {
            best = v;
            if (v > alpha) {
                best_move = m;
                if (pv_node)
                    update_pv(t, ply, m);
                if (v >= beta)
                    break;
                alpha = v;
            }
        }
    }
    if (checked && move_count == 0)
        return mated_in(ply);
    tt_store(&s->tt, key, best_move, score_to_tt(best, ply), static_eval, tt_depth,
             best >= beta ? BOUND_LOWER : BOUND_UPPER);
    return best;
}

static void update_quiet_stats(SearchThread *t, Stack *ss, Move best, int bonus, const Move *quiets, int nq)
{
    Position *p = &t->pos;
    Color us = p->side;
    if (ss->killer[0] != best) {
        ss->killer[1] = ss->killer[0];
        ss->killer[0] = best;
    }
    if (ss->ply > 0 && (ss - 1)->move != MOVE_NONE && (ss - 1)->move != MOVE_NULL)
        t->counter[(ss - 1)->piece][move_to((ss - 1)->move)] = best;
    for (int i = -1; i < nq; i++) {
        Move m = i < 0 ? best : quiets[i];
        int b = i < 0 ? bonus : -bonus;
        Piece pc = p->board[move_from(m)];
        history_update(&t->history[us][move_from(m)][move_to(m)], b);
        if (ss->ply >= 1)
            history_update(&(*(ss - 1)->cont)[pc][move_to(m)], b);
        if (ss->ply >= 2)
            history_update(&(*(ss - 2)->cont)[pc][move_to(m)], b);
        if (ss->ply >= 4)
            history_update(&(*(ss - 4)->cont)[pc][move_to(m)], b);
    }
}

static void update_capture_stats(SearchThread *t, Move m, int bonus)
{
    const Position *p = &t->pos;
    PieceType victim = move_kind(m) == MOVE_EN_PASSANT ? PAWN : piece_type(p->board[move_to(m)]);
    history_update(&t->capture_history[p->board[move_from(m)]][move_to(m)][victim], bonus);
}

static int search(SearchThread *t, Stack *ss, int alpha, int beta, int depth, bool cut_node)
{
    Search *s = t->search;
    Position *p = &t->pos;
    bool pv_node = beta - alpha > 1;
    int ply = ss->ply;
    bool root = ply == 0;

    if (depth <= 0)
        return qsearch(t, ss, alpha, beta, 0);
    if (pv_node)
        t->pv_length[ply] = ply;
    if (ply > t->seldepth)
        t->seldepth = ply;
    if (t->id == 0)
        search_check_time(t);

    bool checked = in_check(p);
    if (!root) {
        if (atomic_load_explicit(&s->stop, memory_order_relaxed))
            return 0;
        if (is_draw(p, ply))
            return VALUE_DRAW;
        if (ply >= MAX_PLY - 1)
            return checked ? VALUE_DRAW : evaluate_with(p, s->eval, &t->nnue);
        /* Mate distance pruning: no line from here can beat a mate already found nearer the root. */
        if (alpha < mated_in(ply))
            alpha = mated_in(ply);
        if (beta > mate_in(ply + 1))
            beta = mate_in(ply + 1);
        if (alpha >= beta)
            return alpha;
    }

    Move excluded = ss->excluded;
    Key key = p->st->key ^ s->salt;
    TTData tte = {0};
    bool hit = !excluded && tt_probe(&s->tt, key, &tte);
    int tt_score = hit ? score_from_tt(tte.score, ply) : VALUE_NONE;
    Move tt_move = root ? t->root[t->pv_idx].move : hit ? tte.move : MOVE_NONE;
    bool tt_capture = tt_move && is_capture(p, tt_move);
    (ss + 1)->killer[0] = (ss + 1)->killer[1] = MOVE_NONE;
    (ss + 1)->excluded = MOVE_NONE;

    if (!pv_node && hit && tt_score != VALUE_NONE && tte.depth >= depth && p->st->rule50 < 90 &&
        (tte.bound & (tt_score >= beta ? BOUND_LOWER : BOUND_UPPER))) {
        if (tt_score >= beta && tt_move && !tt_capture)
            update_quiet_stats(t, ss, tt_move, history_bonus(depth), NULL, 0);
        return tt_score;
    }

    int eval, raw_eval = VALUE_NONE; /* raw_eval: the evaluator's own, kept in the table */
    bool improving = false;
    if (checked) {
        ss->static_eval = eval = VALUE_NONE;
        goto moves_loop;
    }
    if (excluded) {
        raw_eval = ss->raw_eval;
        eval = ss->static_eval;
    } else if (hit) {
        raw_eval = tte.eval != VALUE_NONE ? tte.eval : evaluate_with(p, s->eval, &t->nnue);
        ss->static_eval = eval = corrected_eval(t, p, raw_eval);
        if (tt_score != VALUE_NONE && (tte.bound & (tt_score > eval ? BOUND_LOWER : BOUND_UPPER)))
            eval = tt_score;
    } else {
        raw_eval = evaluate_with(p, s->eval, &t->nnue);
        ss->static_eval = eval = corrected_eval(t, p, raw_eval);
        tt_store(&s->tt, key, MOVE_NONE, VALUE_NONE, raw_eval, -8, BOUND_NONE);
    }
    ss->raw_eval = raw_eval;
    if (ply >= 2 && (ss - 2)->static_eval != VALUE_NONE)
        improving = ss->static_eval > (ss - 2)->static_eval;
    else if (ply >= 4 && (ss - 4)->static_eval != VALUE_NONE)
        improving = ss->static_eval > (ss - 4)->static_eval;

    if (!pv_node && !excluded) {
        /* Reverse futility: far enough above beta that a quiet move will not fall below it. */
        if (depth < 9 && eval - 80 * (depth - improving) >= beta && eval < VALUE_MATE_IN_MAX_PLY)
            return eval;
        /* Razoring: hopeless at low depth unless a capture saves it. */
        if (depth <= 3 && eval + 220 * depth < alpha) {
            int v = qsearch(t, ss, alpha - 1, alpha, 0);
            if (v < alpha)
                return v;
        }
        /* Null move: give the opponent a free move; if we still beat beta, we surely would. */
        if (ss->ply > 0 && (ss - 1)->move != MOVE_NULL && eval >= beta && ss->static_eval >= beta - 10 * depth + 80 &&
            depth >= 3 && ply >= t->nmp_min_ply && has_non_pawn_material(p, p->side) && beta > -VALUE_MATE_IN_MAX_PLY) {
            int r = 4 + depth / 4 + ((eval - beta) / 96 < 3 ? (eval - beta) / 96 : 3);
            ss->move = MOVE_NULL;
            ss->piece = NO_PIECE;
            ss->cont = &t->cont_history[NO_PIECE][0];
            position_make_null(p);
            int v = -search(t, ss + 1, -beta, -beta + 1, depth - r, !cut_node);
            position_unmake_null(p);
            if (atomic_load_explicit(&s->stop, memory_order_relaxed))
                return 0;
            if (v >= beta) {
                if (v >= VALUE_MATE_IN_MAX_PLY)
                    v = beta;
                if (depth < 12 || t->nmp_min_ply)
                    return v;
                /* Verification at high depth guards against zugzwang. */
                t->nmp_min_ply = ply + 3 * (depth - r) / 4;
                int w = search(t, ss, beta - 1, beta, depth - r, false);
                t->nmp_min_ply = 0;
                if (w >= beta)
                    return v;
            }
        }
    }

    /* Internal iterative reduction: no table move means this node was not expected to matter. */
    if (depth >= 4 && !tt_move && (pv_node || cut_node))
        depth--;

moves_loop:;
    MovePicker mp;
    movepick_init(&mp, p, t, ss, tt_move, false);
    CheckInfo ci;
    position_check_info(p, &ci);
    Move quiets[64], captures[32], m, best_move = MOVE_NONE;
    int nq = 0, nc = 0, move_count = 0, best = -VALUE_INFINITE;
    bool skip_quiets = false;

    while ((m = movepick_next(&mp, skip_quiets)) != MOVE_NONE) {
        if (m == excluded)
            continue;
        if (root) {
            bool listed = false;
            for (int i = t->pv_idx; i < t->root_count && !listed; i++)
                listed = t->root[i].move == m;
            if (!listed)
                continue;
        }
        move_count++;
        bool noisy = is_noisy(p, m);
        bool gives = position_gives_check_ci(p, &ci, m);
        int history = noisy ? 0 : movepick_quiet_history(t, ss, p, m);
        int r = Reductions[depth < MAX_PLY ? depth : MAX_PLY - 1][move_count < MAX_MOVES ? move_count : MAX_MOVES - 1];

        /* Shallow-depth pruning, never while a mate against us is all we have. */
        if (!root && best > -VALUE_MATE_IN_MAX_PLY && has_non_pawn_material(p, p->side)) {
            int lmr_depth = depth - 1 - r;
            if (lmr_depth < 0)
                lmr_depth = 0;
            if (!noisy && !gives) {
                if (move_count >= (3 + depth * depth) / (2 - improving)) {
                    skip_quiets = true;
                    continue;
                }
                if (!checked && lmr_depth < 8 && ss->static_eval + 110 + 110 * lmr_depth <= alpha)
                    continue;
                if (lmr_depth < 4 && history < -3500 * depth)
                    continue;
                if (!see_ge(p, m, -24 * lmr_depth * lmr_depth))
                    continue;
            } else if (depth < 7 && !see_ge(p, m, -100 * depth))
                continue;
        }

        /* Extensions. */
        int ext = 0;
        if (!root && depth >= 8 && m == tt_move && !excluded && hit && (tte.bound & BOUND_LOWER) &&
            tte.depth >= depth - 3 && tt_score != VALUE_NONE && tt_score > -VALUE_MATE_IN_MAX_PLY &&
            tt_score < VALUE_MATE_IN_MAX_PLY) {
            /* Singular: is the table move the only one that holds? */
            int sbeta = tt_score - 2 * depth;
            ss->excluded = m;
            int v = search(t, ss, sbeta - 1, sbeta, (depth - 1) / 2, cut_node);
            ss->excluded = MOVE_NONE;
            if (v < sbeta) {
                ext = 1;
                if (!pv_node && v < sbeta - 24 && ss->extensions < 8)
                    ext = 2;
            } else if (sbeta >= beta)
                return sbeta; /* several moves beat beta: multi-cut */
            else if (tt_score >= beta)
                ext = -1;
        } else if (gives && ply < 2 * t->root_depth)
            ext = 1;

        (ss + 1)->extensions = ss->extensions + (ext > 0 ? ext : 0);
        uint64_t nodes_before = play(t, ss, m, pv_node);

        int new_depth = depth - 1 + ext, v = 0;
        if (depth >= 3 && move_count > 1 + root && (!noisy || !pv_node)) {
            /* Late-move reduction, adjusted by what we know of the move and the node. */
            r += !pv_node;
            r += cut_node;
            r -= improving;
            r -= in_check(p);
            r -= m == mp.killer[0] || m == mp.killer[1] || m == mp.counter;
            r -= tt_move && m != tt_move && pv_node;
            if (!noisy)
                r += tt_capture - history / 8000;
            else
                r -= 1;
            int d = new_depth - r;
            if (d < 1)
                d = 1;
            if (d > new_depth)
                d = new_depth;
            v = -search(t, ss + 1, -alpha - 1, -alpha, d, true);
            if (v > alpha && d < new_depth) {
                /* Far above alpha from a reduced depth: look one ply deeper than planned. */
                if (v > alpha + 24 + 4 * (new_depth - d))
                    new_depth++;
                v = -search(t, ss + 1, -alpha - 1, -alpha, new_depth, !cut_node);
            }
        } else if (!pv_node || move_count > 1)
            v = -search(t, ss + 1, -alpha - 1, -alpha, new_depth, !cut_node);
        if (pv_node && (move_count == 1 || (v > alpha && (root || v < beta))))
            v = -search(t, ss + 1, -beta, -alpha, new_depth, false);
        position_unmake_move(p);

        if (atomic_load_explicit(&s->stop, memory_order_relaxed))
            return 0;

        if (root) {
            RootMove *rm = NULL;
            for (int i = 0; i < t->root_count; i++)
                if (t->root[i].move == m)
                    rm = &t->root[i];
            rm->nodes += atomic_load_explicit(&t->nodes, memory_order_relaxed) - nodes_before;
            if (move_count == 1 || v > alpha) {
                rm->score = v;
                rm->score_depth = t->root_depth;
                rm->seldepth = t->seldepth;
                rm->bound = v >= beta ? BOUND_LOWER : BOUND_EXACT;
                rm->pv[0] = m;
                rm->pv_length = 1;
                for (int i = 1; i < t->pv_length[1] && rm->pv_length < MAX_PLY; i++)
                    rm->pv[rm->pv_length++] = t->pv[1][i];
                if (move_count > 1 && t->pv_idx == 0)
                    t->best_move_changes++;
            } else
                rm->score = -VALUE_INFINITE;
        }

        if (v > best) {
            best = v;
            if (v > alpha) {
                best_move = m;
                if (pv_node && !root)
                    update_pv(t, ply, m);
                if (v >= beta)
                    break;
                alpha = v;
            }
        }
        if (m != best_move) {
            if (!noisy && nq < 64)
                quiets[nq++] = m;
            else if (noisy && nc < 32)
                captures[nc++] = m;
        }
    }

    if (move_count == 0)
        return excluded ? alpha : checked ? mated_in(ply) : VALUE_DRAW;

    bool best_noisy = best_move && is_noisy(p, best_move);
    if (best_move && best >= beta) {
        int bonus = history_bonus(depth);
        if (!best_noisy)
            update_quiet_stats(t, ss, best_move, bonus, quiets, nq);
        else
            update_capture_stats(t, best_move, bonus);
        for (int i = 0; i < nc; i++)
            update_capture_stats(t, captures[i], -bonus);
    }

    int bound = best >= beta ? BOUND_LOWER : pv_node && best_move ? BOUND_EXACT : BOUND_UPPER;
    if (!excluded && !checked && !best_noisy &&
        best > -VALUE_MATE_IN_MAX_PLY && best < VALUE_MATE_IN_MAX_PLY && !(bound == BOUND_LOWER && best <= ss->static_eval) &&
        !(bound == BOUND_UPPER && best >= ss->static_eval))
        update_correction(t, p, raw_eval, best, depth);

    if (!excluded && !(root && t->pv_idx))
        tt_store(&s->tt, key, best_move, score_to_tt(best, ply), raw_eval, depth, bound);
    return best;
}

static void sort_root(RootMove *r, int from, int to)
{
    /* Stable insertion sort by score, highest first. */
    for (int i = from + 1; i < to; i++) {
        RootMove tmp = r[i];
        int j = i - 1;
        while (j >= from && r[j].score < tmp.score) {
            r[j + 1] = r[j];
            j--;
        }
        r[j + 1] = tmp;
    }
}

/* Iterative deepening for one thread. The main thread (id 0) also decides when to stop. */
void search_iterate(SearchThread *t)
{
    Search *s = t->search;
    Stack *ss = t->stack + 4; /* room for (ss - 4) look-backs */
    for (int i = 0; i < MAX_PLY + 8; i++) {
        t->stack[i].ply = i - 4;
        t->stack[i].move = MOVE_NONE;
        t->stack[i].piece = NO_PIECE;
        t->stack[i].static_eval = t->stack[i].raw_eval = VALUE_NONE;
        t->stack[i].killer[0] = t->stack[i].killer[1] = MOVE_NONE;
        t->stack[i].excluded = MOVE_NONE;
        t->stack[i].cont = &t->cont_history[NO_PIECE][0];
        t->stack[i].extensions = 0;
    }
    t->root_depth = t->completed_depth = 0;
    t->reported = MOVE_NONE;
    t->nmp_min_ply = 0;
    t->best_move_changes = 0;
    /* `mate N` does not cap the depth: reductions can hide a short mate at a shallow depth, so we
     * deepen until a mate that short is proven (or another limit stops us). */
    int max_depth = s->limits.depth ? s->limits.depth : MAX_PLY - 1;

    /* Lazy SMP: helpers skip iterations in a per-thread pattern (runs of `size` depths searched
     * then skipped, shifted by `phase`) so threads spread over neighbouring depths and fill the
     * shared table for each other; the depth limit itself is never skipped. */
    static const int SkipSize[16] = {1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4};
    static const int SkipPhase[16] = {0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3};
    int previous_best = 0; /* the best score of the last completed iteration (main thread) */
    for (int depth = 1; depth <= max_depth; depth++) {
        if (atomic_load_explicit(&s->stop, memory_order_relaxed))
            break;
        if (t->id > 0 && depth < max_depth) {
            int i = (t->id - 1) % 16;
            if (((depth + SkipPhase[i]) / SkipSize[i]) % 2)
                continue;
        }
        t->root_depth = depth;
        for (int i = 0; i < t->root_count; i++)
            t->root[i].previous_score = t->root[i].score;
        if (t->id == 0)
            t->best_move_changes /= 2;

        for (t->pv_idx = 0; t->pv_idx < t->multipv; t->pv_idx++) {
            t->seldepth = 0;
            int prev = t->root[t->pv_idx].previous_score;
            int delta = 14, alpha = -VALUE_INFINITE, beta = VALUE_INFINITE;
            if (depth >= 4 && prev > -VALUE_INFINITE) {
                delta += prev * prev / 16000;
                alpha = prev - delta > -VALUE_INFINITE ? prev - delta : -VALUE_INFINITE;
                beta = prev + delta < VALUE_INFINITE ? prev + delta : VALUE_INFINITE;
            }
            for (;;) {
                int v = search(t, ss, alpha, beta, depth, false);
                sort_root(t->root, t->pv_idx, t->root_count);
                if (atomic_load_explicit(&s->stop, memory_order_relaxed))
                    break;
                if (v <= alpha) {
                    beta = (alpha + beta) / 2;
                    alpha = v - delta > -VALUE_INFINITE ? v - delta : -VALUE_INFINITE;
                    t->root[t->pv_idx].bound = BOUND_UPPER;
                    if (t->id == 0 && time_now_ms() - s->tm.start > 2000)
                        search_report(t, depth);
                } else if (v >= beta) {
                    beta = v + delta < VALUE_INFINITE ? v + delta : VALUE_INFINITE;
                    if (t->id == 0 && time_now_ms() - s->tm.start > 2000)
                        search_report(t, depth);
                } else
                    break;
                delta += delta / 2;
            }
            sort_root(t->root, 0, t->pv_idx + 1);
            if (atomic_load_explicit(&s->stop, memory_order_relaxed))
                break;
        }
        if (atomic_load_explicit(&s->stop, memory_order_relaxed))
            break;
        t->completed_depth = depth;
        if (t->id != 0) {
            /* A helper that reaches the depth limit first ends the search for everyone. */
            if (s->limits.depth && depth >= s->limits.depth && !s->limits.infinite)
                atomic_store(&s->stop, true);
            continue;
        }
        search_report(t, depth);

        int best = t->root[0].score;
        if (s->limits.mate && best >= VALUE_MATE_IN_MAX_PLY && VALUE_MATE - best <= 2 * s->limits.mate)
            break;
        /* Time: stop early with a stable best move, later when it keeps changing. */
        if (s->tm.optimum && !atomic_load(&s->pondering) &&
            timeman_iteration_done(&s->tm, time_now_ms(), t->best_move_changes, t->root[0].nodes,
                                   atomic_load_explicit(&t->nodes, memory_order_relaxed),
                                   depth > 1 ? previous_best : best, best))
            break;
        previous_best = best;
    }
}
