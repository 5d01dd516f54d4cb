/* Perft: the leaf count of the legal move tree (the command is engine/tools/perft_command.c). */
#include "perft.h"

#include "../core/movegen.h"

uint64_t perft(Position *p, int depth)
{
    if (depth <= 1)
        return depth == 1 ? (uint64_t)movegen_count(p) : 1;
    MoveList list;
    movegen_legal(p, &list, GEN_ALL);
    uint64_t nodes = 0;
    if (depth == 2) {
        for (int i = 0; i < list.count; i++) {
            position_make_move(p, list.moves[i]);
            nodes += (uint64_t)movegen_count(p);
            position_unmake_move(p);
        }
        return nodes;
    }
    for (int i = 0; i < list.count; i++) {
        position_make_move(p, list.moves[i]);
        nodes += perft(p, depth - 1);
        position_unmake_move(p);
    }
    return nodes;
}
