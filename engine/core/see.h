/* Static exchange evaluation: does a capture sequence on one square win at least a threshold? */
#ifndef FEELFISH_SEE_H
#define FEELFISH_SEE_H

#include "position.h"

extern const int SeeValue[PIECE_TYPE_NB];

/* True if the exchange started by m gains at least threshold centipawns (SeeValue units). */
bool see_ge(const Position *p, Move m, int threshold);

#endif
