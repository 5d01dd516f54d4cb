/* `feelfish bayes show|export|import`: the Bayesian model's counts in a database, looked at,
 * written out as JSON, or merged in from another machine's export. */
#include "bayes.h"

#include <stdlib.h>
#include <string.h>

#include "../base/config.h"
#include "../api/decode.h"
#include "../api/encode.h"
#include "../store/bayes_store.h"
#include "../store/store.h"

static int usage(void)
{
    fprintf(stderr, "usage: feelfish bayes show [--db FILE]          games learned and what the model selects\n"
                    "       feelfish bayes export FILE.json [--db FILE]  every count, as JSON\n"
                    "       feelfish bayes import FILE.json [--db FILE]  add an export's counts to the database\n");
    return 2;
}

int bayes_command(int argc, char **argv, FILE *out)
{
    const char *db_path = config_default_db(), *file = NULL, *verb = argc > 0 ? argv[0] : NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            db_path = argv[++i];
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else
            return usage();
    }
    if (!verb || (strcmp(verb, "show") && !file))
        return usage();
    char err[512];
    sqlite3 *db = store_open_db(db_path, err, sizeof err);
    if (!db) {
        fprintf(stderr, "feelfish bayes: %s\n", err);
        return 1;
    }
    BayesModel m;
    if (!bayes_model_init(&m)) {
        sqlite3_close(db);
        return 1;
    }
    int rc = 0;
    if (!strcmp(verb, "import")) {
        json_error_t je;
        json_t *j = json_load_file(file, 0, &je);
        if (!j) {
            fprintf(stderr, "feelfish bayes import: %s: %s (line %d)\n", file, je.text, je.line);
            rc = 1;
        } else if (!decode_bayes_model(j, &m, err, sizeof err) || !bayes_store_merge(db, &m, err, sizeof err)) {
            fprintf(stderr, "feelfish bayes import: %s: %s\n", file, err);
            rc = 1;
        } else
            fprintf(out, "imported %llu games from %s into %s\n", (unsigned long long)m.games, file, db_path);
        json_decref(j);
    } else if (!strcmp(verb, "export") || !strcmp(verb, "show")) {
        if (!bayes_store_load(db, &m, err, sizeof err)) {
            fprintf(stderr, "feelfish bayes: %s\n", err);
            rc = 1;
        } else {
            bool show = !strcmp(verb, "show");
            json_t *j = encode_bayes_model(&m, !show);
            if (show) {
                json_object_del(j, "params");
                char *text = json_dumps(j, JSON_INDENT(2));
                fprintf(out, "%s\n", text);
                free(text);
            } else if (json_dump_file(j, file, JSON_COMPACT)) {
                fprintf(stderr, "feelfish bayes export: cannot write %s\n", file);
                rc = 1;
            } else
                fprintf(out, "exported %llu games to %s\n", (unsigned long long)m.games, file);
            json_decref(j);
        }
    } else
        rc = usage();
    bayes_model_free(&m);
    sqlite3_close(db);
    return rc;
}
