/* A UCI session: any lines, as a GUI (or garbage) would send them, through the real protocol loop.
 * To keep each run short and local, every `go` becomes `go depth 2`, and the options that size
 * memory or name files are left out. */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    engine_init("magic");
    return 0;
}

static bool kept(const char *line)
{
    static const char *const Dropped[] = {"setoption name Hash", "setoption name Threads",
                                          "setoption name BayesModel", "setoption name StyleModel"};
    for (size_t i = 0; i < sizeof Dropped / sizeof Dropped[0]; i++)
        if (strstr(line, Dropped[i]))
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = fuzz_text(data, size), *save = NULL;
    char *script = malloc(2 * size + 64);
    size_t n = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ')
            line++;
        if (!kept(line))
            continue;
        if (!strncmp(line, "go", 2))
            n += (size_t)sprintf(script + n, "go depth 2\n");
        else
            n += (size_t)sprintf(script + n, "%s\n", line);
    }
    script[n] = 0;
    FILE *in = fmemopen(script, n ? n : 1, "r"), *out = fopen("/dev/null", "w");
    if (in && out)
        uci_loop(in, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    free(script);
    free(text);
    return 0;
}
