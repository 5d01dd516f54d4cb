/* `feelfish db`: see db.h. Safe beside a running server (SQLite's locking; WAL readers go on). */
#include "db.h"

#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/config.h"
#include "../store/store.h"

static int usage(void)
{
    fprintf(stderr, "usage: feelfish db stats [--db FILE]\n"
                    "       feelfish db prune [--retention-days N] [--retention-jobs N] [--retention-games N] "
                    "[--retention-evals N] [--vacuum]\n"
                    "                         [--db FILE]\n"
                    "prune deletes what the retention lets go (defaults as feelfish serve's: 30 days, 100000 jobs,\n"
                    "100000 games, 500000 cached evaluations; 0 = no limit); --vacuum then gives the freed space back\n"
                    "to the file system.\n");
    return 2;
}

static long long count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    long long n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static void stats(sqlite3 *db, const char *path, FILE *out)
{
    fprintf(out, "database %s: %lld bytes (%lld free pages)\n", path,
            count(db, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"),
            count(db, "PRAGMA freelist_count"));
    fprintf(out, "jobs: %lld (%lld queued or running)\n", count(db, "SELECT COUNT(*) FROM jobs"),
            count(db, "SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')"));
    fprintf(out, "games: %lld (%lld waiting for the engine)\n", count(db, "SELECT COUNT(*) FROM games"),
            count(db, "SELECT COUNT(*) FROM games WHERE engine_to_move = 1"));
    fprintf(out, "cached evaluations: %lld\n", count(db, "SELECT COUNT(*) FROM evals"));
    fprintf(out, "Bayesian model: %lld games learned\n", count(db, "SELECT COUNT(*) FROM bayes_games"));
    fprintf(out, "tokens: %lld\n", count(db, "SELECT COUNT(*) FROM tokens"));
}

static bool number(const char *text, long *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end || end == text || v < 0)
        return false;
    *out = v;
    return true;
}

int db_command(int argc, char **argv, FILE *out)
{
    const char *verb = argc > 0 ? argv[0] : NULL, *path = config_default_db();
    StoreRetention r = {30, 100000, 100000, 500000};
    bool vacuum = false;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--db") && more)
            path = argv[++i];
        else if (!strcmp(argv[i], "--retention-days") && more && number(argv[i + 1], &r.days))
            i++;
        else if (!strcmp(argv[i], "--retention-jobs") && more && number(argv[i + 1], &r.jobs))
            i++;
        else if (!strcmp(argv[i], "--retention-games") && more && number(argv[i + 1], &r.games))
            i++;
        else if (!strcmp(argv[i], "--retention-evals") && more && number(argv[i + 1], &r.evals))
            i++;
        else if (!strcmp(argv[i], "--vacuum"))
            vacuum = true;
        else
            return usage();
    }
    if (!verb || (strcmp(verb, "stats") && strcmp(verb, "prune")))
        return usage();
    char err[512];
    sqlite3 *db = store_open_db(path, err, sizeof err);
    if (!db) {
        fprintf(stderr, "feelfish db: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (!strcmp(verb, "prune")) {
        StorePruned total = {0, 0, 0}, step;
        bool ok = true;
        do { /* in batches, each its own transaction, so a running server's writes interleave */
            ok = store_exec(db, "BEGIN IMMEDIATE", err, sizeof err) &&
                 store_prune_db(db, &r, clock_wall_ms(), 5000, &step, err, sizeof err) &&
                 store_exec(db, "COMMIT", err, sizeof err);
            if (ok) {
                total.jobs += step.jobs;
                total.games += step.games;
                total.evals += step.evals;
            }
        } while (ok && (step.jobs || step.games || step.evals));
        if (!ok) {
            char ignored[64];
            store_exec(db, "ROLLBACK", ignored, sizeof ignored);
            fprintf(stderr, "feelfish db prune: %s\n", err);
            rc = 1;
        } else
            fprintf(out, "deleted %lld finished jobs, %lld games and %lld cached evaluations\n", total.jobs,
                    total.games, total.evals);
        if (ok && vacuum && !store_exec(db, "VACUUM", err, sizeof err)) {
            fprintf(stderr, "feelfish db prune --vacuum: %s\n", err);
            rc = 1;
        }
    }
    stats(db, path, out);
    sqlite3_close(db);
    return rc;
}
