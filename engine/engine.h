/* The engine's public header: what server/ and the tools include. */
#ifndef FEELFISH_ENGINE_H
#define FEELFISH_ENGINE_H

#include "analyse.h"
#include "bench.h"
#include "bitboard.h"
#include "epd.h"
#include "eval/affective.h"
#include "eval/bayes.h"
#include "fen.h"
#include "lab.h"
#include "match.h"
#include "move.h"
#include "movegen.h"
#include "perft.h"
#include "pgn.h"
#include "position.h"
#include "san.h"
#include "search.h"
#include "types.h"
#include "uci.h"

/* Builds every read-only table; attacks: "pext", "magic" or NULL to let the CPU decide. */
void engine_init(const char *attacks);

#endif
