/* FEN: any text is read or refused with a reason; what is read writes back to a FEN that reads
 * again to the same position (key and FEN). */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    engine_init("magic");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Position p, q;
    char *text = fuzz_text(data, size), msg[200], a[FEN_BUFFER_SIZE], b[FEN_BUFFER_SIZE];
    if (fen_read(&p, text, msg, sizeof msg) == FEN_OK) {
        fen_write(&p, a);
        if (fen_read(&q, a, msg, sizeof msg) != FEN_OK || q.st->key != p.st->key || strcmp(fen_write(&q, b), a))
            abort(); /* a FEN of ours that does not read back */
        position_status(&p);
    }
    free(text);
    return 0;
}
