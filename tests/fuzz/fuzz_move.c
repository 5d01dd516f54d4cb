/* Moves in UCI and SAN: the input's first line picks a position (a FEN, else the start), the
 * rest are move texts; each is read or refused; a move read is legal, and its SAN reads back to
 * the same move. */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    engine_init("magic");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Position p;
    char *text = fuzz_text(data, size), *save = NULL, san[SAN_STRING_SIZE];
    char *first = strtok_r(text, "\n", &save);
    if (!first || fen_read(&p, first, NULL, 0) != FEN_OK)
        fen_read(&p, FEN_STARTPOS, NULL, 0);
    for (char *t = strtok_r(NULL, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
        Move m = move_from_uci(&p, t);
        if (!m)
            m = san_read(&p, t);
        if (!m)
            continue;
        if (!movegen_is_legal(&p, m) || san_read(&p, san_write(&p, m, san)) != m)
            abort();
        if (p.stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(&p);
        position_make_move(&p, m);
    }
    free(text);
    return 0;
}
