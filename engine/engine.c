/* One place that builds the engine's read-only tables, in dependency order. */
#include "engine.h"

void engine_init(const char *attacks)
{
    bitboard_init(attacks);
    position_init();
}
