/* The engine library's public header (core, notation, eval, search, uci): what server/ and the
 * tests include. The command-line tools are declared apart, in tools/tools.h. */
#ifndef FEELFISH_ENGINE_H
#define FEELFISH_ENGINE_H

#include "core/types.h"
#include "core/bitboard.h"
#include "core/position.h"
#include "core/movegen.h"
#include "notation/fen.h"
#include "notation/move.h"
#include "notation/san.h"
#include "notation/pgn.h"
#include "eval/affective.h"
#include "eval/bayes.h"
#include "search/search.h"
#include "search/strength.h"
#include "search/lab.h"
#include "search/perft.h"
#include "review/review.h"
#include "uci/uci.h"

/* Builds every read-only table; attacks: "pext", "magic" or NULL to let the CPU decide. */
void engine_init(const char *attacks);

#endif
