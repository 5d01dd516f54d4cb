/* The lab's algorithms, written to read like their textbook definitions (negamax form). */
#include "lab.h"

#include <stdlib.h>
#include <string.h>

#include "../core/movegen.h"
#include "search.h"

/* Names fit for a URL and a JSON key: SSS*'s star is dropped as MTD(f)'s parentheses are. */
const char *const LabAlgorithmNames[LAB_ALGORITHM_NB] = {"minimax", "alphabeta", "scout", "negascout", "sss", "mtdf"};

int lab_algorithm_from_name(const char *name)
{
    for (int i = 0; i < LAB_ALGORITHM_NB; i++)
        if (!strcmp(name, LabAlgorithmNames[i]))
            return i;
    return -1;
}

typedef struct {
    Position pos;
    const Evaluator *eval;
    uint64_t nodes, leaves;
    int root_depth;
    Move best;
    const atomic_bool *stop;
    bool stopped; /* every node from then on is a leaf worth 0: the search unwinds at once */
    /* The memory of SSS* and MTD(f): bounds per (position, remaining depth), and for MTD(f) the
     * move to try first. */
    struct LabEntry {
        Key key;
        int depth, lower, upper;
        Move move;
    } * table;
    size_t table_size;
    bool remembered_first;
} Lab;

/* Captures first, most valuable victim by least valuable attacker: the one ordering every
 * algorithm but minimax gets (minimax visits everything whatever the order). */
static void order_moves(const Position *p, MoveList *list)
{
    int score[MAX_MOVES];
    for (int i = 0; i < list->count; i++) {
        Move m = list->moves[i];
        Piece victim = move_kind(m) == MOVE_CASTLING ? NO_PIECE : p->board[move_to(m)];
        score[i] = victim ? 8 * piece_type(victim) - piece_type(p->board[move_from(m)]) : 0;
        if (move_kind(m) == MOVE_PROMOTION)
            score[i] += 4 * move_promo(m);
    }
    for (int i = 1; i < list->count; i++) {
        Move m = list->moves[i];
        int sc = score[i], j = i - 1;
        while (j >= 0 && score[j] < sc) {
            list->moves[j + 1] = list->moves[j];
            score[j + 1] = score[j];
            j--;
        }
        list->moves[j + 1] = m;
        score[j + 1] = sc;
    }
}

/* A node with no legal move: mated (nearer mates score higher) or stalemate. */
static int terminal_value(Lab *lab, int ply)
{
    lab->leaves++;
    return in_check(&lab->pos) ? -VALUE_MATE + ply : VALUE_DRAW;
}

/* Every algorithm's node: counts it, and answers at once (returns true, *value set) when it is a
 * leaf: no legal move, or the depth is used up. Otherwise list holds the moves. */
static bool lab_leaf(Lab *lab, int depth, int ply, MoveList *list, int *value)
{
    lab->nodes++;
    if ((lab->nodes & 4095) == 0 && lab->stop && atomic_load_explicit(lab->stop, memory_order_relaxed))
        lab->stopped = true;
    if (lab->stopped) {
        *value = 0;
        return true;
    }
    if (movegen_legal(&lab->pos, list, GEN_ALL) == 0) {
        *value = terminal_value(lab, ply);
        return true;
    }
    if (depth == 0) {
        lab->leaves++;
        *value = evaluate(&lab->pos, lab->eval);
        return true;
    }
    return false;
}

static int minimax(Lab *lab, int depth, int ply)
{
    Position *p = &lab->pos;
    MoveList list;
    int leaf;
    if (lab_leaf(lab, depth, ply, &list, &leaf))
        return leaf;
    int best = -VALUE_INFINITE;
    for (int i = 0; i < list.count; i++) {
        position_make_move(p, list.moves[i]);
        int v = -minimax(lab, depth - 1, ply + 1);
        position_unmake_move(p);
        if (v > best) {
            best = v;
            if (ply == 0)
                lab->best = list.moves[i];
        }
    }
    return best;
}

/* Fail-soft alpha-beta: the value returned may lie outside the window, which MTD(f) needs. */
static int alphabeta(Lab *lab, int alpha, int beta, int depth, int ply)
{
    Position *p = &lab->pos;
    MoveList list;
    int leaf;
    if (lab_leaf(lab, depth, ply, &list, &leaf))
        return leaf;
    order_moves(p, &list);
    int best = -VALUE_INFINITE;
    for (int i = 0; i < list.count; i++) {
        position_make_move(p, list.moves[i]);
        int v = -alphabeta(lab, -beta, -(alpha > best ? alpha : best), depth - 1, ply + 1);
        position_unmake_move(p);
        if (v > best) {
            best = v;
            if (ply == 0)
                lab->best = list.moves[i];
            if (best >= beta)
                break;
        }
    }
    return best;
}

/* SCOUT (J. Pearl, "Asymptotic properties of minimax trees and game-searching procedures",
 * Artificial Intelligence 14, 1980). TEST answers one yes-or-no question, "is this position worth
 * more than v to the side to move?", and stops as soon as it knows: a single move proving it, or
 * every move failing to. Negamax turns the textbook's "more than v" at a max node and "less than v"
 * at a min node into one question: we are above v when some move leaves the opponent below -v,
 * that is not above -v - 1 (values are whole centipawns). */
static bool scout_test(Lab *lab, int v, int depth, int ply)
{
    Position *p = &lab->pos;
    MoveList list;
    int leaf;
    if (lab_leaf(lab, depth, ply, &list, &leaf))
        return leaf > v;
    order_moves(p, &list);
    bool above = false;
    for (int i = 0; i < list.count && !above; i++) {
        position_make_move(p, list.moves[i]);
        above = !scout_test(lab, -v - 1, depth - 1, ply + 1);
        position_unmake_move(p);
    }
    return above;
}

/* SCOUT's EVAL: the first move searched fully, every other one only TESTed against the value so
 * far, and searched fully again (EVAL) when TEST says it is better. Unlike NegaScout, a test gives
 * no bound to start that search from: the move is searched again from scratch. */
static int scout_eval(Lab *lab, int depth, int ply)
{
    Position *p = &lab->pos;
    MoveList list;
    int leaf;
    if (lab_leaf(lab, depth, ply, &list, &leaf))
        return leaf;
    order_moves(p, &list);
    int best = -VALUE_INFINITE;
    for (int i = 0; i < list.count; i++) {
        position_make_move(p, list.moves[i]);
        /* Where the moves lead to leaves, TEST would evaluate each just as EVAL does: one look each. */
        bool better = i == 0 || depth == 1 || !scout_test(lab, -best - 1, depth - 1, ply + 1);
        int v = better ? -scout_eval(lab, depth - 1, ply + 1) : best;
        position_unmake_move(p);
        if (v > best) {
            best = v;
            if (ply == 0)
                lab->best = list.moves[i];
        }
    }
    return best;
}

/* NegaScout: the first move with the full window, the others with a null window, re-searched
 * only when they prove better. */
static int negascout(Lab *lab, int alpha, int beta, int depth, int ply)
{
    Position *p = &lab->pos;
    MoveList list;
    int leaf;
    if (lab_leaf(lab, depth, ply, &list, &leaf))
        return leaf;
    order_moves(p, &list);
    int best = -VALUE_INFINITE;
    for (int i = 0; i < list.count; i++) {
        int a = alpha > best ? alpha : best;
        position_make_move(p, list.moves[i]);
        int v;
        if (i == 0)
            v = -negascout(lab, -beta, -a, depth - 1, ply + 1);
        else {
            v = -negascout(lab, -a - 1, -a, depth - 1, ply + 1);
            /* A leaf's fail-soft value is exact whatever the window: re-search only inner nodes. */
            if (v > a && v < beta && depth > 1)
                v = -negascout(lab, -beta, -v, depth - 1, ply + 1);
        }
        position_unmake_move(p);
        if (v > best) {
            best = v;
            if (ply == 0)
                lab->best = list.moves[i];
            if (best >= beta)
                break;
        }
    }
    return best;
}

/* Alpha-beta with memory for SSS* and MTD(f): stored bounds are reused only at the same remaining
 * depth. */
static int ab_memory(Lab *lab, int alpha, int beta, int depth, int ply)
{
    Position *p = &lab->pos;
    Key key = p->st->key;
    struct LabEntry *e = &lab->table[key & (lab->table_size - 1)];
    bool known = e->key == key && e->depth == depth;
    if (known && ply > 0) {
        if (e->lower == e->upper)
            return e->lower;
        if (e->lower >= beta)
            return e->lower;
        if (e->upper <= alpha)
            return e->upper;
        if (e->lower > alpha)
            alpha = e->lower;
        if (e->upper < beta)
            beta = e->upper;
    }
    /* (an answer from memory above is a look-up, not a node searched) */
    MoveList list;
    int best;
    Move best_move = MOVE_NONE;
    if (lab_leaf(lab, depth, ply, &list, &best))
        list.count = 0; /* stored as exact below */
    else {
        order_moves(p, &list);
        /* Try the move that was best here before first (SSS* keeps alpha-beta's order: see mtd). */
        if (known && e->move && lab->remembered_first)
            for (int i = 1; i < list.count; i++)
                if (list.moves[i] == e->move) {
                    list.moves[i] = list.moves[0];
                    list.moves[0] = e->move;
                }
        best = -VALUE_INFINITE;
        for (int i = 0; i < list.count; i++) {
            position_make_move(p, list.moves[i]);
            int v = -ab_memory(lab, -beta, -(alpha > best ? alpha : best), depth - 1, ply + 1);
            position_unmake_move(p);
            if (v > best) {
                best = v;
                best_move = list.moves[i];
                if (best >= beta)
                    break;
            }
        }
    }
    if (!known) {
        e->key = key;
        e->depth = depth;
        e->lower = -VALUE_INFINITE;
        e->upper = VALUE_INFINITE;
        e->move = MOVE_NONE;
    }
    /* A leaf's value is exact whatever the window; an inner node's is a bound outside it. */
    if (list.count == 0 || (best > alpha && best < beta))
        e->lower = e->upper = best;
    else if (best <= alpha)
        e->upper = best;
    else
        e->lower = best;
    if (best_move)
        e->move = best_move;
    if (ply == 0 && best_move && best > alpha)
        lab->best = best_move;
    return best;
}

/* MTD: converge on the value with null-window searches from a first guess, each pass moving the
 * bound to the value it returned (A. Plaat, J. Schaeffer, W. Pijls, A. de Bruin, "Best-first
 * fixed-depth minimax algorithms", Artificial Intelligence 87, 1996). MTD(f) guesses the static
 * evaluation. From +infinity every pass fails low and lowers the bound until one holds: this is
 * their MT-SSS*, which they proved evaluates the same leaves in the same order as Stockman's SSS*
 * ("A minimax algorithm better than alpha-beta?", Artificial Intelligence 12, 1979) given the same
 * move order and memory enough, without its OPEN list. So SSS* keeps alpha-beta's order (no
 * remembered move first) and, as Stockman proved, evaluates no leaf alpha-beta does not. */
static int mtd(Lab *lab, int guess, int depth, int *passes)
{
    int value = guess, lower = -VALUE_INFINITE, upper = VALUE_INFINITE;
    while (lower < upper && !lab->stopped) {
        int beta = value == lower ? value + 1 : value;
        value = ab_memory(lab, beta - 1, beta, depth, 0);
        (*passes)++;
        if (value < beta)
            upper = value;
        else
            lower = value;
    }
    return value;
}

void lab_run(LabAlgorithm a, const Position *p, int depth, const Evaluator *e, const atomic_bool *stop, LabResult *out)
{
    Lab *lab = calloc(1, sizeof *lab);
    if (!lab)
        abort();
    position_copy(&lab->pos, p);
    lab->eval = e;
    lab->root_depth = depth;
    lab->stop = stop;
    memset(out, 0, sizeof *out);
    switch (a) {
    case LAB_MINIMAX: out->value = minimax(lab, depth, 0); break;
    case LAB_ALPHABETA: out->value = alphabeta(lab, -VALUE_INFINITE, VALUE_INFINITE, depth, 0); break;
    case LAB_SCOUT: out->value = scout_eval(lab, depth, 0); break;
    case LAB_NEGASCOUT: out->value = negascout(lab, -VALUE_INFINITE, VALUE_INFINITE, depth, 0); break;
    default: /* lab_makes_passes: SSS* and MTD(f) */
        lab->table_size = 1 << 20;
        lab->table = calloc(lab->table_size, sizeof *lab->table);
        if (!lab->table)
            abort();
        lab->remembered_first = a == LAB_MTDF;
        out->value = mtd(lab, a == LAB_SSS ? VALUE_INFINITE : evaluate(p, e), depth, &out->passes);
        /* The root's best move: the one stored with the final (exact) bound. */
        struct LabEntry *root = &lab->table[p->st->key & (lab->table_size - 1)];
        if (root->key == p->st->key && root->move)
            lab->best = root->move;
        free(lab->table);
        break;
    }
    out->best = lab->best;
    out->complete = !lab->stopped;
    out->nodes = lab->nodes;
    out->leaves = lab->leaves;
    free(lab);
}
