/* Perft: counts the leaf nodes of the legal move tree, to check and time the move generator. */
#ifndef FEELFISH_PERFT_H
#define FEELFISH_PERFT_H

#include "../core/position.h"

/* Leaf count at depth (depth 1 counted in bulk, as Stockfish does). */
uint64_t perft(Position *p, int depth);

#endif
