/* The classical evaluator's weights: one named parameter vector with a default. Every weight is a
 * middlegame/endgame pair (Score); the Bayesian evaluator swaps whole vectors per search. */
#ifndef FEELFISH_PARAMS_H
#define FEELFISH_PARAMS_H

#include "../core/types.h"

#define S(mg, eg) score_make((mg), (eg))

/* Every field is a Score or an array of Scores, so the struct is also a flat Score array. */
typedef struct {
    Score piece_value[PIECE_TYPE_NB];    /* [PAWN..QUEEN] */
    Score psq[PIECE_TYPE_NB][SQUARE_NB]; /* White's view, a1 = 0; material not included */
    Score mobility_knight[9];
    Score mobility_bishop[14];
    Score mobility_rook[15];
    Score mobility_queen[28];
    /* pawn structure */
    Score pawn_isolated;
    Score pawn_doubled;
    Score pawn_backward;
    Score pawn_weak_unopposed;     /* an isolated or backward pawn no enemy pawn faces */
    Score pawn_connected[RANK_NB]; /* by relative rank */
    Score passed[RANK_NB];         /* by relative rank */
    Score passed_free_path[RANK_NB];
    Score passed_own_king_distance; /* per square of distance to the stop square (endgame) */
    Score passed_enemy_king_distance;
    Score passed_stop_safe;     /* the stop square is empty and not attacked (times the rank weight) */
    Score passed_stop_defended; /* the stop square is defended, or a rook or queen backs the pawn (same) */
    /* own king: shelter and storms, by the file's distance from the edge (0: a/h .. 3: d/e) */
    Score shelter[4][RANK_NB]; /* own pawn's relative rank on the file (0: none) */
    Score storm[4][RANK_NB];   /* enemy pawn's relative rank on the file (0: none), not blocked */
    Score storm_blocked[RANK_NB];
    Score king_open_file; /* no pawn of either colour on a king file */
    Score king_pawnless_flank;
    /* attacks on the enemy king: danger units (middlegame halves only) */
    Score attack_weight[PIECE_TYPE_NB]; /* per attacked king-zone square, by attacker type */
    Score safe_check[PIECE_TYPE_NB];    /* per piece type that can check safely */
    Score unsafe_check;                 /* checks that are possible but not safe */
    Score king_ring_weak;               /* per weak square next to the king we attack */
    Score flank_attack;                 /* per attack on the king's flank (twice-attacked count twice) */
    Score attack_scale;                 /* mg: danger^2 / this; eg: danger / (this / 16) */
    /* the rest */
    Score bishop_pair;
    Score bishop_pawns; /* per own pawn on the bishop's colour, more with blocked centre pawns */
    Score bishop_long_diagonal;
    Score minor_behind_pawn;
    Score king_protector; /* per square of distance between a minor and its king */
    Score rook_open_file;
    Score rook_semi_open_file;
    Score rook_seventh;
    Score rook_trapped; /* by its own king, with little mobility */
    Score knight_outpost;
    Score bishop_outpost;
    Score threat_by_pawn;                 /* a safe pawn attacks a piece */
    Score threat_by_pawn_push;            /* a safe pawn push would attack a piece */
    Score threat_by_minor[PIECE_TYPE_NB]; /* a minor attacks a defended or weak piece, by victim */
    Score threat_by_rook[PIECE_TYPE_NB];  /* a rook attacks a weak piece, by victim */
    Score threat_by_king;                 /* the king attacks a weak piece */
    Score hanging;                        /* a weak piece attacked and undefended (or attacked twice) */
    Score space;                          /* middlegame: safe squares behind the pawns, by piece count */
    Score initiative[5];                  /* endgame: passed pawns, pawns, both flanks, pawn ending, bias */
    Score tempo;
} EvalParams;

#define PARAM_SLOT_COUNT ((int)(sizeof(EvalParams) / sizeof(Score)))

/* A named run of slots in the vector, for listing, exporting and the Bayesian levels. */
typedef struct {
    const char *name;
    int offset; /* first slot */
    int count;
} ParamInfo;

extern const ParamInfo ParamTable[];
extern const int ParamTableCount;
const ParamInfo *param_table_find(const char *name); /* NULL if no run has that name */

/* The tuned vector (engine/eval/tuned.c, written by `feelfish tune`): {mg, eg} per slot. Applied
 * over the hand-set defaults when its count matches the vector's. */
extern const int TunedSlotCount;
extern const short TunedSlots[][2];

/* Read-only after params_init(): the engine's vector (tuned when engine/eval/tuned.c holds one),
 * and the hand-set vector the tuning starts from. */
extern EvalParams DefaultParams, HandSetParams;

void params_init(void);

static inline const Score *params_slots(const EvalParams *p) { return (const Score *)p; }
static inline Score *params_slots_mut(EvalParams *p) { return (Score *)p; }

/* A 64-bit fingerprint of a vector: salts transposition-table keys so entries computed under
 * different weights never mix. */
uint64_t params_fingerprint(const EvalParams *p);

#endif
