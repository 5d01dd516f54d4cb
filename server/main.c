/* feelfish: one binary, subcommands. This file only dispatches; each command lives in its module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/engine.h"

static int usage(FILE *f)
{
    fprintf(f, "feelfish - chess analysis engine and server\n\n"
               "usage: feelfish COMMAND [ARGS]\n\n"
               "  perft FEN DEPTH [--divide]       count leaf nodes (FEN may be 'startpos')\n"
               "  perft --suite FILE.epd [--max-nodes N]\n"
               "                                   check every ';Dn count' of an EPD file\n"
               "  pgn FILE.pgn [--check] [--quiet] read and replay every game of a PGN file\n"
               "  help                             this text\n");
    return f == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
    engine_init(getenv("FEELFISH_ATTACKS"));
    if (argc < 2)
        return usage(stderr);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "perft"))
        return perft_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "pgn"))
        return pgn_command(argc - 2, argv + 2, stdout);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return usage(stdout);
    fprintf(stderr, "feelfish: unknown command '%s'\n\n", cmd);
    return usage(stderr);
}
