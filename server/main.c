/* feelfish: one binary, subcommands. This file only dispatches: the server's commands and the
 * engine tools are each declared in one table (server/cmd/commands.c, engine/tools/tools.c), and
 * the usage text is made from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/engine.h"
#include "../engine/tools/tools.h"
#include "cmd/commands.h"
#include "store/bayes_store.h"

#define SUMMARY_COLUMN 35

/* One entry of the usage: each form on a line of its own with its summary line beside it, or
 * under it when the form reaches the summary's column. */
static void usage_entry(FILE *f, const char *name, const char *synopsis, const char *summary)
{
    const char *form = synopsis, *line = summary;
    while (form || line) {
        int width = 0;
        if (form) {
            int n = (int)strcspn(form, "\n");
            width = fprintf(f, "  %s%s%.*s", name, n ? " " : "", n, form);
            form = form[n] ? form + n + 1 : NULL;
        }
        if (line) {
            int n = (int)strcspn(line, "\n");
            if (width >= SUMMARY_COLUMN) {
                fputc('\n', f);
                width = 0;
            }
            fprintf(f, "%*s%.*s", SUMMARY_COLUMN - width, "", n, line);
            line = line[n] ? line + n + 1 : NULL;
        }
        fputc('\n', f);
    }
}

static int usage(FILE *f)
{
    fprintf(f, "feelfish - chess analysis engine and server\n\nusage: feelfish COMMAND [ARGS]\n\n");
    usage_entry(f, "(no command) | uci", "", "speak UCI on standard input/output");
    for (int i = 0; i < ServerCommandCount; i++)
        usage_entry(f, ServerCommands[i].name, ServerCommands[i].synopsis, ServerCommands[i].summary);
    for (int i = 0; i < EngineToolCount; i++)
        usage_entry(f, EngineTools[i].name, EngineTools[i].synopsis, EngineTools[i].summary);
    usage_entry(f, "help", "", "this text");
    return f == stderr ? 2 : 0;
}

static const Command *command_find(const Command *table, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(table[i].name, name) || (table[i].alias && !strcmp(table[i].alias, name)))
            return &table[i];
    return NULL;
}

int main(int argc, char **argv)
{
    engine_init(getenv("FEELFISH_ATTACKS"));
    bayes_set_reader(bayes_store_load_file);
    /* --net FILE|embedded|none, for any command (serve, bot, annotate, datagen, uci...): the network
     * the classical evaluation uses; taken out of the arguments before the command sees them. */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--net")) {
            char err[300];
            if (i + 1 >= argc || !nnue_select(argv[i + 1], err, sizeof err)) {
                fprintf(stderr, "feelfish: --net: %s\n", i + 1 >= argc ? "needs FILE, embedded or none" : err);
                return 2;
            }
            memmove(argv + i, argv + i + 2, (size_t)(argc - i - 1) * sizeof *argv); /* with argv[argc] */
            argc -= 2;
            i--;
        }
    const char *name = argc < 2 ? "uci" : argv[1];
    if (!strcmp(name, "uci"))
        return uci_loop(stdin, stdout);
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h"))
        return usage(stdout);
    const Command *c = command_find(ServerCommands, ServerCommandCount, name);
    if (!c)
        c = command_find(EngineTools, EngineToolCount, name);
    if (c)
        return c->run(argc - 2, argv + 2, stdout);
    fprintf(stderr, "feelfish: unknown command '%s'\n\n", name);
    return usage(stderr);
}
