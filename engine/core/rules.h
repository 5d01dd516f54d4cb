/* The game's status by the rules: checkmate and stalemate (from the legal moves), and the draw
 * rules (fifty moves, threefold repetition, insufficient material). */
#ifndef FEELFISH_RULES_H
#define FEELFISH_RULES_H

#include "position.h"

typedef enum {
    STATUS_ONGOING,
    STATUS_CHECKMATE,
    STATUS_STALEMATE,
    STATUS_DRAW_FIFTY,      /* fifty-move rule (claimable; not mate) */
    STATUS_DRAW_REPETITION, /* threefold repetition */
    STATUS_DRAW_MATERIAL,   /* neither side can mate */
} GameStatus;

/* Mate and stalemate first, then the draws. */
GameStatus position_status(const Position *p);
const char *game_status_name(GameStatus s);

#endif
