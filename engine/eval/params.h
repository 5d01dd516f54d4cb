/* The classical evaluator's weights: one named parameter vector with a default. Every weight is a
 * middlegame/endgame pair (Score); the Bayesian evaluator swaps whole vectors per search. */
#ifndef FEELFISH_PARAMS_H
#define FEELFISH_PARAMS_H

#include "../position.h"

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
    Score pawn_connected[RANK_NB]; /* by relative rank */
    Score passed[RANK_NB];         /* by relative rank */
    Score passed_free_path[RANK_NB];
    Score passed_own_king_distance; /* per square of distance to the stop square (endgame) */
    Score passed_enemy_king_distance;
    /* own king: shelter and storms */
    Score shield_rank2;
    Score shield_rank3;
    Score shield_missing; /* no own pawn on a file next to or of the king */
    Score king_open_file; /* no pawn of either colour on such a file */
    Score storm_near;     /* an enemy pawn on relative rank 4-5 of a king file */
    /* attacks on the enemy king */
    Score attack_weight[PIECE_TYPE_NB]; /* per attacked king-zone square, by attacker type */
    Score safe_check[PIECE_TYPE_NB];    /* per piece type that can check safely */
    Score attack_scale;                 /* mg: danger^2 / this; eg: danger / (this / 16) */
    /* the rest */
    Score bishop_pair;
    Score rook_open_file;
    Score rook_semi_open_file;
    Score rook_seventh;
    Score knight_outpost;
    Score bishop_outpost;
    Score threat_by_pawn;  /* a pawn attacks a piece */
    Score threat_by_minor; /* a minor attacks a rook or queen */
    Score threat_by_rook;  /* a rook attacks a queen */
    Score hanging;         /* an attacked piece nobody defends */
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

/* Read-only after params_init(). */
extern EvalParams DefaultParams;

void params_init(void);

static inline const Score *params_slots(const EvalParams *p) { return (const Score *)p; }
static inline Score *params_slots_mut(EvalParams *p) { return (Score *)p; }

/* A 64-bit fingerprint of a vector: salts transposition-table keys so entries computed under
 * different weights never mix. */
uint64_t params_fingerprint(const EvalParams *p);

#endif
