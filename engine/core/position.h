/* The position: bitboards and a mailbox, incrementally updated keys and accumulators, and the
 * stack of states that make/unmake and the draw rules walk. */
#ifndef FEELFISH_POSITION_H
#define FEELFISH_POSITION_H

#include "bitboard.h"
#include "types.h"

/* Enough for a long game plus a deep search; game-replay code trims it with
 * position_trim_history() long before it fills. */
#define POSITION_STACK_SIZE 1024

typedef struct {
    Key key;                /* Zobrist key of the whole position */
    Key pawn_key;           /* pawns and kings only */
    Bitboard checkers;      /* pieces giving check to the side to move */
    Score psq;              /* material + piece-square, White's view */
    int material[COLOR_NB]; /* non-pawn material, middlegame piece values */
    int castling;
    Square ep; /* set only when an en-passant capture is legal */
    int rule50;
    int plies_from_null;
    Piece captured;
    Piece moved; /* the piece that made `move` (the learned evaluation's accumulators read it) */
    Move move; /* the move that led here (MOVE_NONE at the root) */
} StateInfo;

typedef struct {
    Bitboard by_type[PIECE_TYPE_NB]; /* [0] is every occupied square */
    Bitboard by_color[COLOR_NB];
    Piece board[SQUARE_NB];
    uint8_t piece_count[PIECE_NB];
    Color side;
    int game_ply; /* plies since the game's start: fullmove = 1 + game_ply / 2 */
    StateInfo *st;
    int stack_len; /* states in use below st (st == &stack[stack_len]) */
    StateInfo stack[POSITION_STACK_SIZE];
} Position;

/* Tables the position needs (Zobrist keys, piece values); called once from main(). */
void position_init(void);

/* Value of a piece type for the material accumulators and SEE (middlegame, centipawns). */
extern const int PieceValueMg[PIECE_TYPE_NB];
extern const int PieceValueEg[PIECE_TYPE_NB];

static inline Bitboard pieces(const Position *p, Color c, PieceType pt) { return p->by_color[c] & p->by_type[pt]; }
static inline Bitboard occupied(const Position *p) { return p->by_type[0]; }
static inline Square king_square(const Position *p, Color c) { return lsb(pieces(p, c, KING)); }
static inline Piece piece_on(const Position *p, Square s) { return p->board[s]; }
static inline bool in_check(const Position *p) { return p->st->checkers != 0; }
static inline bool is_capture(const Position *p, Move m)
{
    return (p->board[move_to(m)] != NO_PIECE && move_kind(m) != MOVE_CASTLING) || move_kind(m) == MOVE_EN_PASSANT;
}

/* Pieces of either colour attacking s, given an occupancy. */
Bitboard position_attackers_to(const Position *p, Square s, Bitboard occ);
/* Whether colour c attacks s, given an occupancy. */
bool position_attacked_by(const Position *p, Color c, Square s, Bitboard occ);

/* Whether legal move m gives check, without making it. */
bool position_gives_check(const Position *p, Move m);

/* What makes a move of the side to move give check, computed once per node so that each move's
 * test is a lookup: the squares from which each piece type attacks their king, and our pieces
 * that alone block a line from one of our sliders to it. */
typedef struct {
    Bitboard check_squares[PIECE_TYPE_NB];
    Bitboard discoverers;
    Square ksq;
} CheckInfo;

void position_check_info(const Position *p, CheckInfo *ci);
/* The same answer as position_gives_check. */
static inline bool position_gives_check_ci(const Position *p, const CheckInfo *ci, Move m)
{
    Square from = move_from(m), to = move_to(m);
    if (move_kind(m) != MOVE_NORMAL)
        return position_gives_check(p, m); /* promotion, en passant, castling: rare, the full test */
    if (ci->check_squares[piece_type(p->board[from])] & square_bb(to))
        return true;
    return (ci->discoverers & square_bb(from)) && !(LineBB[from][ci->ksq] & square_bb(to));
}

/* The move must be legal (from the legal generator or matched against it). */
void position_make_move(Position *p, Move m);
void position_unmake_move(Position *p);
void position_make_null(Position *p);
void position_unmake_null(Position *p);

/* Drops states older than the last irreversible move so a long game never fills the stack. Makes
 * unmake past that point impossible; call it only between moves of a game, never in a search. */
void position_trim_history(Position *p);

/* Key after move m, for prefetching; approximate (ignores castling and en passant changes). */
Key position_key_after(const Position *p, Move m);

/* Computes key, checkers and accumulators from the boards (after a FEN or a trim). */
void position_refresh_state(Position *p);

/* True if the current position occurred `count` times before since the last irreversible move
 * (1: it is a twofold repetition, 2: threefold). */
bool position_is_repetition(const Position *p, int count);
bool position_insufficient_material(const Position *p);

/* A deep copy that keeps only the current state (cheap: no history). */
void position_copy_root(Position *dst, const Position *src);
/* A deep copy with the whole history (repetitions before the copy are still seen). */
void position_copy(Position *dst, const Position *src);

#endif
