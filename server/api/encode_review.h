/* A reviewed game as JSON, the one encoder of this shape (GET /api/game-analysis/{id}'s result,
 * `feelfish annotate --json`): Lichess's export shape (shared/spec/game-analysis.md §8) plus
 * feelfish's fields. */
#ifndef FEELFISH_ENCODE_REVIEW_H
#define FEELFISH_ENCODE_REVIEW_H

#include <jansson.h>

#include "../../engine/eval/affective.h"
#include "../../engine/review/review.h"

/* `analysis`: per ply {ply, move (SAN), uci, eval | mate (White's view), best (UCI), variation (SAN),
 * judgment {name, comment}, winPercent, accuracy}, the mating move without eval; `players`:
 * {white, black} each {inaccuracy, mistake, blunder, acpl, accuracy}. `emotions` (affective mode,
 * or NULL): per position of the game (start first) the appraisal from the side to move, added per
 * ply as `emotion` (the mover's feeling before the move). */
json_t *encode_review(const Review *r, const Position *start, const Emotion *emotions);

#endif
