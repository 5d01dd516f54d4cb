/* The evaluation cache's entries (server/store keeps them in the evals table). The key is a
 * position, its FEN without the move counters, the evaluation that searched it ("hand", or "nn" and
 * the network's checksum), then how it was searched (mode, limits, temperament or target) as
 * canonical JSON; the value is what the search found, the side to move's view:
 * "cp 31 depth 18 nodes 200512 pv e2e4 e7e5 ..." or "mate -2 depth 9 nodes 4100 pv ...".
 * Whole-game analyses read and fill it position by position; cloud-eval answers from it. */
#ifndef FEELFISH_EVAL_CACHE_H
#define FEELFISH_EVAL_CACHE_H

#include <jansson.h>
#include <stdint.h>

#include "../../engine/review/review.h"

/* The key of fen searched as `how` (a JSON object; NULL: none); its prefix alone (how NULL, and
 * with the trailing blank) is what every entry of that position starts with. malloc'd. */
char *eval_cache_key(const char *fen, const json_t *how);
char *eval_cache_prefix(const char *fen);
/* A value from a review position and its search's depth and nodes. malloc'd. */
char *eval_cache_value(const ReviewPosition *r, int depth, uint64_t nodes);
/* Reads a value for the position fen (its line's moves are checked against it: the line stops at
 * the first that is not legal). False if it is not a value. */
bool eval_cache_parse(const char *value, const char *fen, ReviewPosition *r, int *depth, uint64_t *nodes);

#endif
