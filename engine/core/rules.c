/* The game's status by the rules. */
#include "rules.h"

#include "movegen.h"

const char *game_status_name(GameStatus s)
{
    static const char *names[] = {
        "started", "mate", "stalemate", "fifty_moves", "threefold_repetition", "insufficient_material"};
    return names[s];
}

GameStatus position_status(const Position *p)
{
    MoveList list;
    movegen_legal(p, &list, GEN_ALL);
    if (list.count == 0)
        return in_check(p) ? STATUS_CHECKMATE : STATUS_STALEMATE;
    if (position_insufficient_material(p))
        return STATUS_DRAW_MATERIAL;
    if (p->st->rule50 >= 100)
        return STATUS_DRAW_FIFTY;
    if (position_is_repetition(p, 2))
        return STATUS_DRAW_REPETITION;
    return STATUS_ONGOING;
}
