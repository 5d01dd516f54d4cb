/* The analysis request and answer models, shared by REST, WebSocket and games: validation of a
 * request into a job (with ApiError), and the JSON of info events and results (scores from
 * White's point of view). The JSON builders run on worker threads and touch only their job. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../engine/eval/affective.h"
#include "../domain/models.h"
#include "api.h"
#include "../../engine/core/rules.h"

static const ServerConfig *Cfg;

void analysis_set_config(const ServerConfig *cfg) { Cfg = cfg; }

/* ---- errors ---- */

/* Makes s valid UTF-8 in place: a message may quote client text cut at a byte limit, and
 * jansson (rightly) refuses invalid strings. Bad or cut sequences become '?'. */
static void utf8_clean(char *s)
{
    unsigned char *c = (unsigned char *)s;
    while (*c) {
        int len = *c < 0x80 ? 1 : (*c >> 5) == 6 ? 2 : (*c >> 4) == 14 ? 3 : (*c >> 3) == 30 ? 4 : 0;
        int ok = len > 0;
        for (int k = 1; ok && k < len; k++)
            ok = (c[k] & 0xC0) == 0x80;
        if (!ok) {
            *c++ = '?';
            continue;
        }
        c += len;
    }
}

void api_error_set(ApiError *e, int status, const char *code, const char *field, const char *fmt, ...)
{
    e->status = status;
    snprintf(e->code, sizeof e->code, "%s", code);
    snprintf(e->field, sizeof e->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    utf8_clean(e->message);
    utf8_clean(e->field);
}

json_t *api_error_json(const ApiError *e)
{
    json_t *err = json_pack("{s:s, s:s}", "code", e->code, "message", e->message);
    if (e->field[0])
        json_object_set_new(err, "field", json_string(e->field));
    return err;
}

/* ---- JSON helpers ---- */

static bool is_uint(json_t *v) { return json_is_integer(v) && json_integer_value(v) >= 0; }

/* Levenshtein distance, small strings only: for "did you mean". */
static int distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 30 || lb > 30)
        return 99;
    int d[31][31];
    for (int i = 0; i <= la; i++)
        d[i][0] = i;
    for (int j = 0; j <= lb; j++)
        d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int c = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int m = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < m)
                m = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + c < m)
                m = d[i - 1][j - 1] + c;
            d[i][j] = m;
        }
    return d[la][lb];
}

/* Rejects keys not in `allowed`, suggesting the nearest allowed one. */
static bool check_keys(ApiError *r, json_t *obj, const char *const *allowed, const char *prefix)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        bool known = false;
        const char *best = NULL;
        int best_d = 99;
        for (int i = 0; allowed[i]; i++) {
            if (!strcmp(key, allowed[i]))
                known = true;
            int d = distance(key, allowed[i]);
            /* A truncated or extended name ("temper", "depths") is as good a hint as a typo. */
            size_t kl = strlen(key), al = strlen(allowed[i]);
            if (kl >= 3 && al >= 3 && !strncasecmp(key, allowed[i], kl < al ? kl : al))
                d = d < 1 ? d : 1;
            if (d < best_d)
                best_d = d, best = allowed[i];
        }
        if (known)
            continue;
        char field[128];
        snprintf(field, sizeof field, "%s%s", prefix, key);
        if (best && best_d <= 3)
            api_error_set(r, 400, "unknown_field", field, "unknown field '%.60s': did you mean '%s%s'?", key, prefix,
                          best);
        else
            api_error_set(r, 400, "unknown_field", field, "unknown field '%.60s'", key);
        return false;
    }
    return true;
}

json_t *api_parse_json_text(ApiError *e, const char *text, size_t len)
{
    if (!text || !len) {
        api_error_set(e, 400, "bad_json", NULL, "the message is empty; send a JSON object");
        return NULL;
    }
    json_error_t je;
    json_t *body = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!body) {
        api_error_set(e, 400, "bad_json", NULL, "malformed JSON at line %d, column %d: %s", je.line, je.column,
                      je.text);
        return NULL;
    }
    if (!json_is_object(body)) {
        json_decref(body);
        api_error_set(e, 400, "bad_json", NULL, "send a JSON object");
        return NULL;
    }
    return body;
}

/* The position of a request: exactly one of fen (+ moves), moves alone, or pgn. With `start` and
 * `played` (room for 2000), also the start position and the moves played from it (the game so far,
 * which the Bayesian mode's style recognition reads). */
static bool parse_position(ApiError *r, json_t *body, Position *p, Position *start, Move *played, int *count)
{
    *count = 0;
    json_t *fen = json_object_get(body, "fen"), *moves = json_object_get(body, "moves"),
           *pgn = json_object_get(body, "pgn");
    if (fen && pgn) {
        api_error_set(r, 400, "position_ambiguous", "pgn",
                      "give either 'fen' (with optional 'moves') or 'pgn', not both");
        return false;
    }
    char msg[256];
    if (pgn) {
        if (!json_is_string(pgn)) {
            api_error_set(r, 400, "bad_type", "pgn", "'pgn' must be a string");
            return false;
        }
        PgnReader *rd = pgn_reader_open_string(json_string_value(pgn));
        PgnGame g;
        char err[300];
        PgnResult res = pgn_read_game(rd, &g, err, sizeof err);
        bool ok = res == PGN_GAME && pgn_start_position(&g, p, msg, sizeof msg);
        if (ok && start && g.move_count <= 2000) {
            position_copy_root(start, p);
            for (int i = 0; i < g.move_count; i++)
                played[(*count)++] = g.moves[i].move;
        }
        if (ok)
            for (int i = 0; i < g.move_count; i++) {
                if (p->stack_len > POSITION_STACK_SIZE / 2)
                    position_trim_history(p);
                position_make_move(p, g.moves[i].move);
            }
        pgn_game_free(&g);
        pgn_reader_close(rd);
        if (!ok) {
            api_error_set(r, 400, "bad_pgn", "pgn", "%s", res == PGN_END ? "the PGN has no game" : err);
            return false;
        }
        if (moves) {
            api_error_set(r, 400, "position_ambiguous", "moves", "'moves' goes with 'fen' or alone, not with 'pgn'");
            return false;
        }
        return true;
    }
    if (fen && !json_is_string(fen)) {
        api_error_set(r, 400, "bad_type", "fen", "'fen' must be a string");
        return false;
    }
    FenError e = fen_read(p, fen ? json_string_value(fen) : FEN_STARTPOS, msg, sizeof msg);
    if (e != FEN_OK) {
        api_error_set(r, 400, fen_error_code(e), "fen", "%s", msg);
        return false;
    }
    if (!fen && !moves) {
        api_error_set(r, 400, "position_missing", "fen", "give a position: 'fen', 'moves' or 'pgn'");
        return false;
    }
    if (start)
        position_copy_root(start, p);
    if (moves) {
        if (!json_is_array(moves) || json_array_size(moves) > 2000) {
            api_error_set(r, 400, "bad_type", "moves", "'moves' must be an array of UCI moves (at most 2000)");
            return false;
        }
        size_t i;
        json_t *m;
        json_array_foreach(moves, i, m)
        {
            Move mv = json_is_string(m) ? move_from_uci(p, json_string_value(m)) : MOVE_NONE;
            if (!mv) {
                char shown[16] = "?";
                if (json_is_string(m))
                    snprintf(shown, sizeof shown, "%s", json_string_value(m));
                api_error_set(r, 400, "bad_move", "moves", "moves[%zu] '%s' is not a legal move in UCI notation here",
                              i, shown);
                return false;
            }
            if (p->stack_len > POSITION_STACK_SIZE / 2)
                position_trim_history(p);
            position_make_move(p, mv);
            if (start)
                played[(*count)++] = mv;
        }
    }
    return true;
}

static const char *const AnalyseKeys[] = {"fen",     "moves",     "pgn",      "mode", "limits", "multiPv",
                                          "compare", "affective", "bayesian", "op",   "id",     NULL};
static const char *const AffectiveKeys[] = {"temperament", NULL};
static const char *const BayesianKeys[] = {"target", "default", NULL};
static const char *const LimitKeys[] = {"depth", "nodes", "movetime", "infinite", NULL};

/* Parses an analysis request into a job (not yet submitted). ws: infinite allowed. */
Job *api_parse_analysis(ApiError *r, json_t *body, bool allow_infinite)
{
    if (!check_keys(r, body, AnalyseKeys, ""))
        return NULL;
    json_t *mode = json_object_get(body, "mode");
    const char *mode_name = "classical";
    if (mode) {
        if (!json_is_string(mode)) {
            api_error_set(r, 400, "bad_type", "mode", "'mode' must be a string");
            return NULL;
        }
        mode_name = json_string_value(mode);
        if (strcmp(mode_name, "classical") && strcmp(mode_name, "affective") && strcmp(mode_name, "bayesian")) {
            api_error_set(r, 400, "bad_mode", "mode", "mode '%.40s' is not one of classical, affective, bayesian",
                          mode_name);
            return NULL;
        }
    }
    BayesTarget target = TARGET_CONSERVATIVE;
    bool auto_target = true; /* no target given: auto, which falls back to conservative (§6) */
    json_t *bay = json_object_get(body, "bayesian");
    if (bay) {
        if (!json_is_object(bay)) {
            api_error_set(r, 400, "bad_type", "bayesian", "'bayesian' must be an object like {\"target\": \"auto\"}");
            return NULL;
        }
        if (!check_keys(r, bay, BayesianKeys, "bayesian."))
            return NULL;
        json_t *t = json_object_get(bay, "target");
        if (t && (!json_is_string(t) || !adaptive_parse_target(json_string_value(t), &target, &auto_target))) {
            api_error_set(r, 400, "bad_target", "bayesian.target",
                          "target must be one of auto, aggressive, conservative");
            return NULL;
        }
        json_t *d = json_object_get(bay, "default");
        bool ignored;
        if (d && (!json_is_string(d) || !strcmp(json_string_value(d), "auto") ||
                  !adaptive_parse_target(json_string_value(d), &target, &ignored))) {
            api_error_set(
                r, 400, "bad_target", "bayesian.default",
                "default (the target before the opponent's style is known) must be aggressive or conservative");
            return NULL;
        }
    }
    const Temperament *temperament = temperament_find("neutral");
    json_t *aff = json_object_get(body, "affective");
    if (aff) {
        if (!json_is_object(aff)) {
            api_error_set(r, 400, "bad_type", "affective",
                          "'affective' must be an object like {\"temperament\": \"calm\"}");
            return NULL;
        }
        if (!check_keys(r, aff, AffectiveKeys, "affective."))
            return NULL;
        json_t *t = json_object_get(aff, "temperament");
        if (t && (!json_is_string(t) || !(temperament = temperament_find(json_string_value(t))))) {
            api_error_set(r, 400, "bad_temperament", "affective.temperament",
                          "temperament must be one of neutral, calm, anxious, bold");
            return NULL;
        }
    }
    SearchLimits l;
    search_limits_init(&l);
    json_t *limits = json_object_get(body, "limits");
    if (!json_is_object(limits)) {
        api_error_set(r, 400, limits ? "bad_type" : "limits_missing", "limits",
                      "give 'limits' as an object with at least one of depth, nodes, movetime");
        return NULL;
    }
    if (!check_keys(r, limits, LimitKeys, "limits."))
        return NULL;
    json_t *v;
    if ((v = json_object_get(limits, "depth"))) {
        if (!is_uint(v) || json_integer_value(v) < 1) {
            api_error_set(r, 400, "bad_limit", "limits.depth", "'limits.depth' must be a whole number >= 1");
            return NULL;
        }
        l.depth = (int)(json_integer_value(v) > Cfg->max_depth ? Cfg->max_depth : json_integer_value(v));
    }
    if ((v = json_object_get(limits, "nodes"))) {
        if (!is_uint(v) || json_integer_value(v) < 1) {
            api_error_set(r, 400, "bad_limit", "limits.nodes", "'limits.nodes' must be a whole number >= 1");
            return NULL;
        }
        l.nodes = (uint64_t)(json_integer_value(v) > Cfg->max_nodes ? Cfg->max_nodes : json_integer_value(v));
    }
    if ((v = json_object_get(limits, "movetime"))) {
        if (!is_uint(v) || json_integer_value(v) < 1) {
            api_error_set(r, 400, "bad_limit", "limits.movetime", "'limits.movetime' must be milliseconds >= 1");
            return NULL;
        }
        l.movetime = json_integer_value(v) > Cfg->max_movetime ? Cfg->max_movetime : json_integer_value(v);
    }
    if ((v = json_object_get(limits, "infinite"))) {
        if (!json_is_boolean(v) || (json_is_true(v) && !allow_infinite)) {
            api_error_set(r, 400, "bad_limit", "limits.infinite",
                          "'limits.infinite' is for WebSocket analyses; over REST give depth, nodes or movetime");
            return NULL;
        }
        l.infinite = json_is_true(v);
    }
    if (!l.depth && !l.nodes && !l.movetime && !l.infinite) {
        api_error_set(r, 400, "limits_missing", "limits", "give at least one of limits.depth, nodes, movetime");
        return NULL;
    }
    if (!l.infinite && !l.movetime)
        l.movetime = Cfg->max_movetime; /* every search ends: the cap bounds depth and node limits too */
    if ((v = json_object_get(body, "multiPv"))) {
        if (!is_uint(v) || json_integer_value(v) < 1) {
            api_error_set(r, 400, "bad_type", "multiPv", "'multiPv' must be a whole number >= 1");
            return NULL;
        }
        l.multipv = (int)(json_integer_value(v) > Cfg->max_multipv ? Cfg->max_multipv : json_integer_value(v));
    }
    json_t *compare = json_object_get(body, "compare");
    if (compare && !json_is_boolean(compare)) {
        api_error_set(r, 400, "bad_type", "compare", "'compare' must be true or false");
        return NULL;
    }
    if (json_is_true(compare) && strcmp(mode_name, "affective")) {
        api_error_set(
            r, 400, "bad_compare", "compare",
            "'compare' sets the affective search beside the classical one: use it with \"mode\": \"affective\"");
        return NULL;
    }
    if (json_is_true(compare) && l.infinite) {
        api_error_set(r, 400, "bad_compare", "compare", "compare needs a finite budget (depth, nodes or movetime)");
        return NULL;
    }
    bool bayesian = !strcmp(mode_name, "bayesian");
    Position *p = malloc(sizeof *p), *start = bayesian ? malloc(sizeof *start) : NULL;
    Move *moves = bayesian ? malloc(2001 * sizeof *moves) : NULL;
    if (!p || (bayesian && (!start || !moves))) {
        free(p);
        free(start);
        free(moves);
        api_error_set(r, 503, "overloaded", NULL, "out of memory");
        return NULL;
    }
    Job *job = NULL;
    int move_count = 0;
    if (parse_position(r, body, p, start, moves, &move_count)) {
        Evaluator e;
        Emotion emotion;
        BayesChoice choice;
        static EvalParams storage; /* loop thread; job_new copies it */
        bool affective = !strcmp(mode_name, "affective");
        if (bayesian) {
            MoveHistory h = {start, moves, move_count};
            models_choose(p, &h, target, auto_target, p->st->key, &choice, &storage, &e);
        } else if (affective) {
            /* Appraised once, from the side to move at the root, fixed for the search (spec §4). */
            affective_emotion(p, NULL, temperament, &emotion);
            affective_evaluator(&emotion, &e);
        } else
            evaluator_classical(&e);
        job = job_new(p, &l, &e, mode_name);
        if (!job)
            api_error_set(r, 503, "overloaded", NULL, "out of memory");
        else if (affective) {
            job->has_emotion = true;
            job->emotion = emotion;
            job->compare = json_is_true(compare);
        } else if (bayesian) {
            job->has_bayes = true;
            job->bayes = choice;
        }
    }
    free(p);
    free(start);
    free(moves);
    return job;
}

/* ---- results (worker threads) ---- */

json_t *api_emotion_json(const Emotion *e)
{
    return json_pack("{s:f, s:f, s:f, s:s, s:f, s:s, s:{s:f, s:f, s:f, s:f}, s:{s:f, s:f, s:f, s:f}}", "relief",
                     e->c[CONCEPT_RELIEF], "desirability", e->c[CONCEPT_DESIRABILITY], "arousal", e->c[CONCEPT_AROUSAL],
                     "label", affective_label(CONCEPT_RELIEF, e->c[CONCEPT_RELIEF]), "intensity", e->intensity, "goal",
                     Goals[e->goal].name, "factors", "material", e->factor[0], "mobility", e->factor[1], "kingSafety",
                     e->factor[2], "oppKingExposure", e->factor[3], "inputs", "material", e->c[CONCEPT_MATERIAL],
                     "mobility", e->c[CONCEPT_MOBILITY], "kingSafety", e->c[CONCEPT_KING_SAFETY], "oppKingExposure",
                     e->c[CONCEPT_OPP_KING_EXPOSURE]);
}

static void put_score(json_t *o, int score_stm, Color side)
{
    int white = side == WHITE ? score_stm : -score_stm;
    int mate = search_mate_in(white);
    if (score_stm == -VALUE_MATE) /* mated at the root */
        json_object_set_new(o, "mate", json_integer(0));
    else if (mate)
        json_object_set_new(o, "mate", json_integer(mate));
    else
        json_object_set_new(o, "cp", json_integer(white));
}

static json_t *line_json(Position *p, const SearchInfo *info, bool with_moves)
{
    json_t *o = json_object(), *uci = json_array(), *san = json_array();
    int made = 0;
    for (int i = 0; i < info->pv_length; i++) {
        char u[MOVE_STRING_SIZE], s[SAN_STRING_SIZE];
        json_array_append_new(uci, json_string(move_to_uci(info->pv[i], u)));
        json_array_append_new(san, json_string(san_write(p, info->pv[i], s)));
        position_make_move(p, info->pv[i]);
        made++;
    }
    while (made--)
        position_unmake_move(p);
    if (with_moves) {
        json_object_set_new(o, "moves", uci);
        json_object_set_new(o, "san", san);
    } else {
        json_object_set_new(o, "pv", uci);
        json_object_set_new(o, "san", san);
    }
    put_score(o, info->score, p->side);
    return o;
}

json_t *api_info_json(const Job *job, const SearchInfo *info)
{
    static __thread Position scratch;
    position_copy(&scratch, job->pos);
    json_t *o = line_json(&scratch, info, false);
    json_object_set_new(o, "type", json_string("info"));
    json_object_set_new(o, "job", json_string(job->id));
    json_object_set_new(o, "depth", json_integer(info->depth));
    json_object_set_new(o, "seldepth", json_integer(info->seldepth));
    json_object_set_new(o, "multiPv", json_integer(info->multipv));
    json_object_set_new(o, "bound",
                        json_string(info->bound == BOUND_LOWER   ? "lower"
                                    : info->bound == BOUND_UPPER ? "upper"
                                                                 : "exact"));
    json_object_set_new(o, "nodes", json_integer((json_int_t)info->nodes));
    json_object_set_new(o, "nps", json_integer((json_int_t)info->nps));
    json_object_set_new(o, "time", json_integer(info->time_ms));
    json_object_set_new(o, "hashfull", json_integer(info->hashfull));
    /* When the worker published it (wall clock, microseconds): lets a client on the same machine
     * measure how long an info event takes to reach it. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    json_object_set_new(o, "publishedUs", json_integer((json_int_t)now.tv_sec * 1000000 + now.tv_nsec / 1000));
    if (job->has_emotion)
        json_object_set_new(o, "emotion", api_emotion_json(&job->emotion));
    if (job->has_bayes)
        json_object_set_new(o, "bayesian", models_choice_json(&job->bayes));
    return o;
}

/* One side of compare mode: best move, lines (SAN) and the classical grouped terms at the end of
 * the first line (the thesis's Tables 5.2/5.4), White's point of view. */
static json_t *compare_side(Position *p, const SearchResult *r)
{
    char u[MOVE_STRING_SIZE], s[SAN_STRING_SIZE];
    json_t *o = json_object(), *pvs = json_array();
    json_object_set_new(o, "bestMove", r->best ? json_string(move_to_uci(r->best, u)) : json_null());
    for (int i = 0; i < r->lines && r->best; i++)
        json_array_append_new(pvs, line_json(p, &r->line[i], true));
    json_object_set_new(o, "pvs", pvs);
    int made = 0;
    for (int i = 0; r->lines && i < r->line[0].pv_length; i++, made++) {
        (void)s;
        position_make_move(p, r->line[0].pv[i]);
    }
    Evaluator classical;
    evaluator_classical(&classical);
    EvalTerms t;
    evaluate_terms(p, &classical, &t);
    while (made--)
        position_unmake_move(p);
    json_t *terms = json_object();
    for (int g = 0; g < EVAL_GROUP_NB; g++)
        json_object_set_new(terms, EvalGroupNames[g], json_integer(t.group[g]));
    json_object_set_new(terms, "total", json_integer(t.total));
    json_object_set_new(o, "terms", terms);
    return o;
}

json_t *api_result_json(const Job *job, const SearchResult *r, const SearchResult *classical, bool cancelled)
{
    static __thread Position scratch;
    position_copy(&scratch, job->pos);
    char fen[FEN_BUFFER_SIZE], u[MOVE_STRING_SIZE], s[SAN_STRING_SIZE];
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:I}", "id", job->id, "status",
                          cancelled ? "cancelled" : "done", "fen", fen_write(&scratch, fen), "mode", job->mode, "depth",
                          r->depth, "seldepth", r->lines ? r->line[0].seldepth : 0, "nodes", (json_int_t)r->nodes,
                          "time", (json_int_t)r->time_ms, "nps",
                          (json_int_t)(r->time_ms > 0 ? r->nodes * 1000 / (uint64_t)r->time_ms : r->nodes));
    if (r->best) {
        json_object_set_new(o, "bestMove", json_string(move_to_uci(r->best, u)));
        json_object_set_new(o, "bestMoveSan", json_string(san_write(&scratch, r->best, s)));
        if (r->ponder)
            json_object_set_new(o, "ponder", json_string(move_to_uci(r->ponder, u)));
    } else {
        json_object_set_new(o, "bestMove", json_null());
        json_object_set_new(o, "bestMoveSan", json_null());
        json_object_set_new(o, "gameStatus", json_string(game_status_name(position_status(&scratch))));
    }
    json_t *pvs = json_array();
    for (int i = 0; i < r->lines && r->best; i++)
        json_array_append_new(pvs, line_json(&scratch, &r->line[i], true));
    json_object_set_new(o, "pvs", pvs);
    if (job->has_emotion)
        json_object_set_new(o, "emotion", api_emotion_json(&job->emotion));
    if (job->has_bayes)
        json_object_set_new(o, "bayesian", models_choice_json(&job->bayes));
    if (classical)
        json_object_set_new(o, "compare",
                            json_pack("{s:o, s:o}", "classical", compare_side(&scratch, classical), "affective",
                                      compare_side(&scratch, r)));
    return o;
}
