/* One place that builds the engine's read-only tables, in dependency order. */
#include "engine.h"

#include "eval/bayes.h"

void engine_init(const char *attacks)
{
    bitboard_init(attacks);
    position_init();
    bayes_init();
}
