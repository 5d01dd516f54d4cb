/* The engine's public header: what server/ and the tools include. */
#ifndef FEELFISH_ENGINE_H
#define FEELFISH_ENGINE_H

#include "tools/analyse.h"
#include "tools/bench.h"
#include "core/bitboard.h"
#include "tools/epd.h"
#include "eval/affective.h"
#include "eval/bayes.h"
#include "notation/fen.h"
#include "search/lab.h"
#include "tools/match/match.h"
#include "notation/move.h"
#include "core/movegen.h"
#include "search/perft.h"
#include "notation/pgn.h"
#include "core/position.h"
#include "notation/san.h"
#include "search/search.h"
#include "core/types.h"
#include "uci/uci.h"

/* Builds every read-only table; attacks: "pext", "magic" or NULL to let the CPU decide. */
void engine_init(const char *attacks);

#endif
