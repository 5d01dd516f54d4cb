/* The server's live models. Decisions follow shared/spec/bayesian.md (§n). */
#include "models.h"

#include <stdlib.h>
#include <string.h>

#include "../store/bayes_store.h"
#include "../base/log.h"
#include "../store/store.h"
#include "shared.h"

/* v (bumped by every game), games, rPHASE.RESULT, cINDEX: counts. ":v2": the counts of the 15 grouped
 * variables (engine/eval/bayes.h); what a cluster shared under the old key indexes other variables. */
#define BAYES_KEY "feelfish:bayes:v2"

static struct {
    BayesModel model;
    StyleModel style;
    bool style_ready;
    /* A cluster's: the stored model (model is it plus the shared counts), the shared version read. */
    BayesModel stored;
    bool sharing;
    char shared_version[24];
} A;

bool models_init(const ServerConfig *cfg, char *err, size_t size)
{
    memset(&A, 0, sizeof A);
    if (!bayes_model_init(&A.model)) {
        snprintf(err, size, "out of memory for the Bayesian model");
        return false;
    }
    sqlite3 *db = store_open_db(cfg->db, err, size);
    if (!db)
        return false;
    bool ok = bayes_store_load(db, &A.model, err, size);
    sqlite3_close(db);
    if (!ok)
        return false;
    log_msg(LOG_INFO, "Bayesian model: %llu games learned", (unsigned long long)A.model.games);
    char serr[256];
    A.style_ready = style_model_load(&A.style, cfg->style_model, serr, sizeof serr);
    if (!A.style_ready)
        log_msg(LOG_WARN, "no opponent-style model (%s): bayesian auto uses the requested target", serr);
    return true;
}

void models_shutdown(void)
{
    if (A.sharing)
        bayes_model_free(&A.stored);
    bayes_model_free(&A.model);
    memset(&A, 0, sizeof A);
}

void models_choose(const Position *root, const MoveHistory *history, BayesTarget requested, bool automatic,
                   uint64_t seed, BayesChoice *choice, EvalParams *storage, Evaluator *e)
{
    adaptive_choose(&A.model, A.style_ready ? &A.style : NULL, root, history, requested, automatic, seed, choice,
                    storage, e);
}

void models_levels(const BayesChoice *choice, uint8_t *levels) { adaptive_levels(&A.model, choice, levels); }

const BayesModel *models_bayes(void) { return &A.model; }
const StyleModel *models_style(void) { return A.style_ready ? &A.style : NULL; }

/* ---- finished games ---- */

typedef struct {
    BayesGame game;
    char result[8], reason[32];
    uint8_t *levels[BAYES_PHASE_NB];
} PendingGame;

static void write_game(sqlite3 *db, void *arg)
{
    PendingGame *p = arg;
    char err[256];
    if (!bayes_store_add_game(db, &p->game, err, sizeof err))
        log_msg(LOG_ERROR, "storing a finished game's Bayesian records: %s", err);
}

static void free_game(void *arg)
{
    PendingGame *p = arg;
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        free(p->levels[ph]);
    free(p);
}

/* ---- a cluster's shared counts ---- */

/* A game's records are added once, whichever fronts report it (feelfish:bayes:v2:games holds the ids);
 * the version moves either way, so that a front that added them to its live model reads the truth. */
static const char BayesAdd[] = "if redis.call('SADD', KEYS[2], ARGV[2]) == 1 then "
                               "for f in string.gmatch(ARGV[1], '%S+') do redis.call('HINCRBY', KEYS[1], f, 1) end "
                               "redis.call('HINCRBY', KEYS[1], 'games', 1) end "
                               "return redis.call('HINCRBY', KEYS[1], 'v', 1)";
static const char BayesRead[] = "if redis.call('HGET', KEYS[1], 'v') == ARGV[1] then return false end "
                                "return redis.call('HGETALL', KEYS[1])";

/* False when Redis cannot take it now. */
static bool share_game(const char *id, const BayesGame *g)
{
    size_t size = (size_t)g->records * ((size_t)BayesParamCount + 1) * 12 + 1, used = 0;
    char *fields = malloc(size);
    if (!fields)
        return false;
    fields[0] = 0;
    for (int k = 0; k < g->records; k++) {
        const BayesRecord *rec = &g->record[k];
        if (!bayes_record_counted(rec))
            continue;
        for (int i = 0; i < BayesParamCount; i++)
            used += (size_t)snprintf(fields + used, size - used, "c%zu ",
                                     bayes_model_count_index(i, rec->phase, rec->result, rec->levels[i]));
        used += (size_t)snprintf(fields + used, size - used, "r%d.%d ", (int)rec->phase, (int)rec->result);
    }
    bool sent = redis_link_command(shared_link(), NULL, NULL, "EVAL %s 2 %s %s:games %s %s", BayesAdd, BAYES_KEY,
                                   BAYES_KEY, fields, id);
    free(fields);
    return sent;
}

/* The shared counts changed: the live model becomes the stored one plus them. */
static void on_read(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac, (void)priv;
    const redisReply *reply = r;
    if (!reply || reply->type != REDIS_REPLY_ARRAY)
        return; /* unchanged (nil), or Redis away */
    if (!reply->elements && !A.shared_version[0])
        return; /* still nothing shared */
    size_t counts =
        bayes_model_count_index(BayesParamCount - 1, BAYES_PHASE_NB - 1, BAYES_RESULT_NB - 1, BAYES_LEVELS - 1) + 1;
    bayes_model_clear(&A.model);
    bayes_model_merge(&A.model, &A.stored);
    for (size_t i = 0; i + 1 < reply->elements; i += 2) {
        const char *name = reply->element[i]->str, *value = reply->element[i + 1]->str;
        if (!name || !value)
            continue;
        unsigned long long n = strtoull(value, NULL, 10), index;
        int ph, res;
        if (name[0] == 'c' && sscanf(name + 1, "%llu", &index) == 1 && index < counts)
            A.model.counts[index] += (uint32_t)n;
        else if (name[0] == 'r' && sscanf(name + 1, "%d.%d", &ph, &res) == 2 && ph >= 0 && ph < BAYES_PHASE_NB &&
                 res >= 0 && res < BAYES_RESULT_NB)
            A.model.records[ph][res] += n;
        else if (!strcmp(name, "games"))
            A.model.games += n;
        else if (!strcmp(name, "v"))
            snprintf(A.shared_version, sizeof A.shared_version, "%s", value);
    }
    if (!reply->elements)
        A.shared_version[0] = 0;
    A.model.version++;
}

static void check_shared(void)
{
    redis_link_command(shared_link(), on_read, NULL, "EVAL %s 1 %s %s", BayesRead, BAYES_KEY, A.shared_version);
}

void models_share(void)
{
    if (!shared_on() || A.sharing || !bayes_model_init(&A.stored))
        return;
    bayes_model_merge(&A.stored, &A.model);
    snprintf(A.shared_version, sizeof A.shared_version, "none");
    shared_every_second(check_shared);
    A.sharing = true;
}

void models_game_finished(const char *game_id, const char *result, const char *reason, int plies,
                          GameResult engine_result, uint8_t *const levels[BAYES_PHASE_NB])
{
    PendingGame *p = calloc(1, sizeof *p);
    if (!p)
        return;
    snprintf(p->result, sizeof p->result, "%s", result);
    snprintf(p->reason, sizeof p->reason, "%s", reason);
    p->game =
        (BayesGame){.source = "game", .selfplay_index = -1, .result = p->result, .reason = p->reason, .plies = plies};
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++) {
        if (!levels[ph])
            continue;
        p->levels[ph] = malloc((size_t)BayesParamCount);
        if (!p->levels[ph])
            continue;
        memcpy(p->levels[ph], levels[ph], (size_t)BayesParamCount);
        p->game.record[p->game.records++] = (BayesRecord){'E', ph, engine_result, p->levels[ph]};
    }
    bayes_model_add_game(&A.model, &p->game);
    if (A.sharing && share_game(game_id, &p->game))
        free_game(p);
    else {
        if (A.sharing) { /* Redis away: kept here, in this front's own part of the model */
            log_msg(LOG_WARN, "Redis is unreachable: game %s's Bayesian records stay in this front's database",
                    game_id);
            bayes_model_add_game(&A.stored, &p->game);
        }
        store_write(write_game, free_game, p);
    }
}

/* ---- a player's style from PGN ---- */

bool models_read_style(const char *pgn, const char *player, StyleReading *out, ApiError *e)
{
    memset(out, 0, sizeof *out);
    if (!A.style_ready) {
        api_error_set(e, 503, "no_style_model", NULL, "the server has no opponent-style model (--style-model)");
        return false;
    }
    bool by_colour = !strcmp(player, "white") || !strcmp(player, "black");
    PgnReader *rd = pgn_reader_open_string(pgn);
    StyleFeatures *samples = NULL;
    int n = 0, games = 0, bad = 0;
    char err[300] = "";
    Position *start = malloc(sizeof *start);
    for (;;) {
        PgnGame g;
        PgnResult res = pgn_read_game(rd, &g, err, sizeof err);
        if (res == PGN_END) {
            pgn_game_free(&g);
            break;
        }
        char msg[160];
        if (res == PGN_BAD_GAME || !start || !pgn_start_position(&g, start, msg, sizeof msg)) {
            bad++;
            pgn_game_free(&g);
            continue;
        }
        Color c = WHITE;
        bool plays = true;
        if (by_colour)
            c = !strcmp(player, "white") ? WHITE : BLACK;
        else {
            const char *w = pgn_tag(&g, "White"), *b = pgn_tag(&g, "Black");
            plays = (w && strcasestr(w, player)) || (b && strcasestr(b, player));
            c = w && strcasestr(w, player) ? WHITE : BLACK;
        }
        Move *moves = plays ? malloc(sizeof *moves * (size_t)(g.move_count + 1)) : NULL;
        StyleFeatures *grown = plays ? realloc(samples, sizeof *samples * (size_t)(n + STYLE_SAMPLE_NB + 1)) : NULL;
        if (moves && grown) {
            samples = grown;
            for (int i = 0; i < g.move_count; i++)
                moves[i] = g.moves[i].move;
            int k = style_game_samples(start, moves, g.move_count, c, true, samples + n, &out->last);
            if (k > 0) {
                n += k;
                games++;
            }
        } else if (grown)
            samples = grown;
        free(moves);
        pgn_game_free(&g);
    }
    pgn_reader_close(rd);
    free(start);
    if (!games) {
        free(samples);
        if (bad)
            api_error_set(e, 400, "bad_pgn", "pgn", "no game could be read%s%s", err[0] ? ": " : "", err);
        else
            api_error_set(e, 400, "player_not_found", "player", "no game in the PGN where '%.40s' plays", player);
        return false;
    }
    out->style = style_model_classify(&A.style, samples, n, out->posterior);
    out->games = games;
    out->samples = n;
    out->skipped = bad;
    free(samples);
    return true;
}
