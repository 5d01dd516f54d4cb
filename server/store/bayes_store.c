/* The Bayesian model's storage: SQLite rows (its JSON export format is the API's, server/api). */
#include "bayes_store.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool step_done(sqlite3 *db, sqlite3_stmt *st, char *err, size_t size)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_DONE)
        return true;
    snprintf(err, size, "%s", sqlite3_errmsg(db));
    return false;
}

/* Adds n[param][level] for one (phase, result) to the counts rows, and `records` to its class. */
static bool add_counts(sqlite3 *db, GamePhase ph, GameResult r, const uint32_t *n_of /* [param*5+level] */,
                       uint64_t records, char *err, size_t size)
{
    sqlite3_stmt *up = NULL, *cls = NULL;
    bool ok = sqlite3_prepare_v2(db,
                                 "INSERT INTO bayes_counts(param, phase, result, n0, n1, n2, n3, n4) "
                                 "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(param, phase, result) DO UPDATE SET "
                                 "n0 = n0 + excluded.n0, n1 = n1 + excluded.n1, n2 = n2 + excluded.n2, "
                                 "n3 = n3 + excluded.n3, n4 = n4 + excluded.n4",
                                 -1, &up, NULL) == SQLITE_OK &&
              sqlite3_prepare_v2(db,
                                 "INSERT INTO bayes_classes(phase, result, n) VALUES (?,?,?) "
                                 "ON CONFLICT(phase, result) DO UPDATE SET n = n + excluded.n",
                                 -1, &cls, NULL) == SQLITE_OK;
    if (!ok)
        snprintf(err, size, "%s", sqlite3_errmsg(db));
    for (int i = 0; ok && i < BayesParamCount; i++) {
        const uint32_t *n = n_of + (size_t)i * BAYES_LEVELS;
        if (!(n[0] | n[1] | n[2] | n[3] | n[4]))
            continue;
        sqlite3_bind_text(up, 1, BayesParams[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_int(up, 2, ph);
        sqlite3_bind_int(up, 3, r);
        for (int l = 0; l < BAYES_LEVELS; l++)
            sqlite3_bind_int64(up, 4 + l, n[l]);
        ok = step_done(db, up, err, size);
    }
    if (ok && records) {
        sqlite3_bind_int(cls, 1, ph);
        sqlite3_bind_int(cls, 2, r);
        sqlite3_bind_int64(cls, 3, (sqlite3_int64)records);
        ok = step_done(db, cls, err, size);
    }
    sqlite3_finalize(up);
    sqlite3_finalize(cls);
    return ok;
}

static bool add_meta(sqlite3 *db, uint64_t games, char *err, size_t size)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO bayes_meta(key, value) VALUES ('games', %llu) ON CONFLICT(key) DO UPDATE SET value = value + "
             "excluded.value; INSERT OR REPLACE INTO bayes_meta(key, value) VALUES ('updated_ms', %lld);",
             (unsigned long long)games, (long long)wall_ms());
    return store_exec(db, sql, err, size);
}

bool bayes_store_add_game(sqlite3 *db, const BayesGame *g, char *err, size_t size)
{
    if (!store_exec(db, "SAVEPOINT bayes_game", err, size))
        return false;
    sqlite3_stmt *game = NULL, *rec = NULL;
    bool ok =
        sqlite3_prepare_v2(db,
                           "INSERT INTO bayes_games(source, selfplay_index, finished_ms, result, reason, plies) "
                           "VALUES (?,?,?,?,?,?)",
                           -1, &game, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "INSERT INTO bayes_records(game_id, side, phase, result, levels) VALUES (?,?,?,?,?)", -1,
                           &rec, NULL) == SQLITE_OK;
    if (!ok)
        snprintf(err, size, "%s", sqlite3_errmsg(db));
    if (ok) {
        sqlite3_bind_text(game, 1, g->source, -1, SQLITE_STATIC);
        if (g->selfplay_index >= 0)
            sqlite3_bind_int(game, 2, g->selfplay_index);
        else
            sqlite3_bind_null(game, 2);
        sqlite3_bind_int64(game, 3, wall_ms());
        sqlite3_bind_text(game, 4, g->result, -1, SQLITE_STATIC);
        sqlite3_bind_text(game, 5, g->reason, -1, SQLITE_STATIC);
        sqlite3_bind_int(game, 6, g->plies);
        ok = step_done(db, game, err, size);
    }
    sqlite3_int64 id = sqlite3_last_insert_rowid(db);
    uint32_t *n = calloc((size_t)BayesParamCount * BAYES_LEVELS, sizeof *n);
    if (!n) {
        snprintf(err, size, "out of memory");
        ok = false;
    }
    for (int k = 0; ok && k < g->records; k++) {
        const BayesRecord *r = &g->record[k];
        char side[2] = {r->side, 0};
        sqlite3_bind_int64(rec, 1, id);
        sqlite3_bind_text(rec, 2, side, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(rec, 3, r->phase);
        sqlite3_bind_int(rec, 4, r->result);
        sqlite3_bind_blob(rec, 5, r->levels, BayesParamCount, SQLITE_STATIC);
        ok = step_done(db, rec, err, size);
        if (!bayes_record_counted(r))
            continue;
        memset(n, 0, (size_t)BayesParamCount * BAYES_LEVELS * sizeof *n);
        for (int i = 0; i < BayesParamCount; i++)
            n[(size_t)i * BAYES_LEVELS + r->levels[i]] = 1;
        ok = ok && add_counts(db, r->phase, r->result, n, 1, err, size);
    }
    free(n);
    ok = ok && add_meta(db, 1, err, size);
    sqlite3_finalize(game);
    sqlite3_finalize(rec);
    char ignored[8];
    if (!ok) {
        store_exec(db, "ROLLBACK TO bayes_game; RELEASE bayes_game", ignored, sizeof ignored);
        return false;
    }
    return store_exec(db, "RELEASE bayes_game", err, size);
}

void bayes_model_add_game(BayesModel *m, const BayesGame *g)
{
    for (int k = 0; k < g->records; k++)
        if (bayes_record_counted(&g->record[k]))
            bayes_model_add(m, g->record[k].phase, g->record[k].result, g->record[k].levels);
    m->games++;
}

static int64_t meta(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st;
    int64_t v = 0;
    if (sqlite3_prepare_v2(db, "SELECT value FROM bayes_meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static bool valid_class(int ph, int r) { return ph >= 0 && ph < BAYES_PHASE_NB && r >= 0 && r < BAYES_RESULT_NB; }

bool bayes_store_load(sqlite3 *db, BayesModel *m, char *err, size_t size)
{
    bayes_model_clear(m);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT param, phase, result, n0, n1, n2, n3, n4 FROM bayes_counts", -1, &st, NULL) !=
        SQLITE_OK) {
        snprintf(err, size, "%s", sqlite3_errmsg(db));
        return false;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        int i = bayes_param_find((const char *)sqlite3_column_text(st, 0));
        int ph = sqlite3_column_int(st, 1), r = sqlite3_column_int(st, 2);
        if (i < 0 || !valid_class(ph, r))
            continue; /* a parameter this version no longer has */
        for (int l = 0; l < BAYES_LEVELS; l++)
            m->counts[bayes_model_count_index(i, ph, r, l)] = (uint32_t)sqlite3_column_int64(st, 3 + l);
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(db, "SELECT phase, result, n FROM bayes_classes", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, size, "%s", sqlite3_errmsg(db));
        return false;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        int ph = sqlite3_column_int(st, 0), r = sqlite3_column_int(st, 1);
        if (valid_class(ph, r))
            m->records[ph][r] = (uint64_t)sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    m->games = (uint64_t)meta(db, "games");
    m->updated_ms = meta(db, "updated_ms");
    m->version++;
    return true;
}

/* Adds the records a prepared statement yields (game id, phase, result, levels; in game order) to m,
 * skipping those of another parameter set. Before the first record of each game after the first, calls
 * between(m, games added so far, arg) when given. Returns the games seen. */
static int replay_records(sqlite3_stmt *st, BayesModel *m, void (*between)(const BayesModel *m, int games, void *arg),
                          void *arg)
{
    sqlite3_int64 last = -1;
    int found = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int ph = sqlite3_column_int(st, 1), r = sqlite3_column_int(st, 2);
        if (sqlite3_column_bytes(st, 3) != BayesParamCount || !valid_class(ph, r))
            continue; /* recorded by a version with another parameter set */
        const uint8_t *levels = sqlite3_column_blob(st, 3);
        bool ok = true;
        for (int i = 0; i < BayesParamCount; i++)
            ok &= levels[i] < BAYES_LEVELS;
        if (!ok)
            continue;
        if (sqlite3_column_int64(st, 0) != last) {
            if (between && found)
                between(m, found, arg);
            last = sqlite3_column_int64(st, 0);
            found++;
        }
        bayes_model_add(m, ph, r, levels);
    }
    return found;
}

int bayes_store_load_selfplay_prefix(sqlite3 *db, int games, bool perturbed_only, BayesModel *m)
{
    bayes_model_clear(m);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT g.id, r.phase, r.result, r.levels FROM bayes_games g JOIN bayes_records r ON "
                           "r.game_id = g.id WHERE g.selfplay_index IS NOT NULL AND g.selfplay_index < ? "
                           "AND (? = 0 OR r.side = 'B') ORDER BY g.selfplay_index",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int(st, 1, games);
    sqlite3_bind_int(st, 2, perturbed_only);
    int found = replay_records(st, m, NULL, NULL);
    sqlite3_finalize(st);
    m->games = (uint64_t)found;
    return found;
}

typedef struct {
    BayesCurvePoint *out;
    int max, n;
    int next; /* the next checkpoint: 10, 20, 50, 100, 200, 500, ... */
    uint8_t *levels;
} CurveBuild;

/* The checkpoint after x in the series 1, 2, 5, 10, 20, 50, ... */
static int next_checkpoint(int x)
{
    int p = 1;
    while (p <= x / 10)
        p *= 10;
    int lead = x / p;
    return lead < 2 ? 2 * p : lead < 5 ? 5 * p : 10 * p;
}

static void curve_point(const BayesModel *m, int games, CurveBuild *b)
{
    if (b->n == b->max || (b->n && b->out[b->n - 1].games == games))
        return;
    BayesCurvePoint *p = &b->out[b->n++];
    p->games = games;
    for (int t = 0; t < BAYES_TARGET_NB; t++) {
        p->changed[t] = 0;
        for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
            p->changed[t] += bayes_select(m, (GamePhase)ph, (BayesTarget)t, b->levels);
    }
}

static void curve_between(const BayesModel *m, int games, void *arg)
{
    CurveBuild *b = arg;
    if (games < b->next)
        return;
    curve_point(m, games, b);
    while (b->next <= games)
        b->next = next_checkpoint(b->next);
}

int bayes_store_change_curve(sqlite3 *db, BayesCurvePoint *out, int max)
{
    BayesModel m;
    CurveBuild b = {.out = out, .max = max, .next = 10, .levels = malloc((size_t)BayesParamCount)};
    sqlite3_stmt *st = NULL;
    if (!b.levels || !bayes_model_init(&m)) {
        free(b.levels);
        return 0;
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT g.id, r.phase, r.result, r.levels FROM bayes_games g JOIN bayes_records r ON "
                           "r.game_id = g.id WHERE r.side != 'A' ORDER BY g.id",
                           -1, &st, NULL) == SQLITE_OK) {
        int games = replay_records(st, &m, curve_between, &b);
        if (games)
            curve_point(&m, games, &b); /* the whole store, whatever the checkpoint */
    }
    sqlite3_finalize(st);
    bayes_model_free(&m);
    free(b.levels);
    return b.n;
}

bool bayes_store_curve_key(sqlite3 *db, BayesCurveKey *key)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT IFNULL(MAX(id), 0) FROM bayes_games), "
                           "(SELECT IFNULL(MAX(id), 0) FROM bayes_matches)",
                           -1, &st, NULL) != SQLITE_OK)
        return false;
    bool ok = sqlite3_step(st) == SQLITE_ROW;
    if (ok)
        *key = (BayesCurveKey){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
    sqlite3_finalize(st);
    return ok;
}

bool bayes_store_add_match(sqlite3 *db, const BayesMatchPoint *p, char *err, size_t size)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO bayes_matches (games, target, rule, records, control, wins, draws, losses, "
                           "elo, elo_margin, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, size, "%s", sqlite3_errmsg(db));
        return false;
    }
    sqlite3_bind_int64(st, 1, p->games);
    sqlite3_bind_text(st, 2, p->target, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, p->rule, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, p->records, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, p->control, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 6, p->wins);
    sqlite3_bind_int(st, 7, p->draws);
    sqlite3_bind_int(st, 8, p->losses);
    if (isfinite(p->elo))
        sqlite3_bind_double(st, 9, p->elo);
    if (isfinite(p->elo_margin))
        sqlite3_bind_double(st, 10, p->elo_margin);
    sqlite3_bind_int64(st, 11, p->created_ms);
    bool ok = sqlite3_step(st) == SQLITE_DONE;
    if (!ok)
        snprintf(err, size, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return ok;
}

int bayes_store_matches(sqlite3 *db, BayesMatchPoint *out, int max)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT games, target, rule, records, control, wins, draws, losses, elo, elo_margin, "
                           "created_ms FROM "
                           "(SELECT * FROM bayes_matches ORDER BY id DESC LIMIT ?) ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int(st, 1, max);
    int n = 0;
    while (n < max && sqlite3_step(st) == SQLITE_ROW) {
        BayesMatchPoint *p = &out[n++];
        p->games = sqlite3_column_int64(st, 0);
        snprintf(p->target, sizeof p->target, "%s", (const char *)sqlite3_column_text(st, 1));
        snprintf(p->rule, sizeof p->rule, "%s", (const char *)sqlite3_column_text(st, 2));
        snprintf(p->records, sizeof p->records, "%s", (const char *)sqlite3_column_text(st, 3));
        snprintf(p->control, sizeof p->control, "%s", (const char *)sqlite3_column_text(st, 4));
        p->wins = sqlite3_column_int(st, 5);
        p->draws = sqlite3_column_int(st, 6);
        p->losses = sqlite3_column_int(st, 7);
        p->elo = sqlite3_column_type(st, 8) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 8);
        p->elo_margin = sqlite3_column_type(st, 9) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 9);
        p->created_ms = sqlite3_column_int64(st, 10);
    }
    sqlite3_finalize(st);
    return n;
}

int bayes_store_selfplay_done(sqlite3 *db, int n, uint8_t *done)
{
    memset(done, 0, (size_t)n);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT selfplay_index FROM bayes_games WHERE selfplay_index IS NOT NULL", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    int count = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int i = sqlite3_column_int(st, 0);
        if (i >= 0 && i < n && !done[i]) {
            done[i] = 1;
            count++;
        }
    }
    sqlite3_finalize(st);
    return count;
}

bool bayes_store_merge(sqlite3 *db, const BayesModel *m, char *err, size_t size)
{
    if (!store_exec(db, "BEGIN IMMEDIATE", err, size))
        return false;
    uint32_t *n = malloc((size_t)BayesParamCount * BAYES_LEVELS * sizeof *n);
    bool ok = n != NULL;
    for (int ph = 0; ok && ph < BAYES_PHASE_NB; ph++)
        for (int r = 0; ok && r < BAYES_RESULT_NB; r++) {
            for (int i = 0; i < BayesParamCount; i++)
                for (int l = 0; l < BAYES_LEVELS; l++)
                    n[(size_t)i * BAYES_LEVELS + l] = m->counts[bayes_model_count_index(i, ph, r, l)];
            ok = add_counts(db, ph, r, n, m->records[ph][r], err, size);
        }
    free(n);
    ok = ok && add_meta(db, m->games, err, size);
    char ignored[8];
    if (!ok) {
        store_exec(db, "ROLLBACK", ignored, sizeof ignored);
        return false;
    }
    return store_exec(db, "COMMIT", err, size);
}

bool bayes_store_load_file(const char *path, BayesModel *m, char *err, size_t size)
{
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, size, "cannot open %s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return false;
    }
    sqlite3_busy_timeout(db, 5000);
    bool ok = bayes_store_load(db, m, err, size);
    sqlite3_close(db);
    return ok;
}
