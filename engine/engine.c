/* One place that builds the engine's read-only tables, in dependency order. */
#include "engine.h"

#include "core/psqt.h"
#include "eval/bayes.h"
#include "eval/nnue.h"
#include "eval/params.h"

void engine_init(const char *attacks)
{
    bitboard_init(attacks);
    position_init();
    params_init();
    psqt_init(DefaultParams.piece_value, DefaultParams.psq);
    bayes_init();
    nnue_init();
    search_init();
}
