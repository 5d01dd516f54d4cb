/* PGN: every game of any text is read or skipped with a reason, and a game read replays. */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    engine_init("magic");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size), err[300], msg[200];
    static Position p;
    PgnReader *r = pgn_reader_open_string(text);
    for (int games = 0; games < 64; games++) {
        PgnGame g;
        PgnResult res = pgn_read_game(r, &g, err, sizeof err);
        if (res == PGN_GAME && pgn_start_position(&g, &p, msg, sizeof msg))
            for (int i = 0; i < g.move_count; i++) {
                if (!movegen_is_legal(&p, g.moves[i].move))
                    abort(); /* the reader let an illegal move through */
                if (p.stack_len > POSITION_STACK_SIZE / 2)
                    position_trim_history(&p);
                position_make_move(&p, g.moves[i].move);
            }
        pgn_game_free(&g);
        if (res == PGN_END)
            break;
    }
    pgn_reader_close(r);
    free(text);
    return 0;
}
