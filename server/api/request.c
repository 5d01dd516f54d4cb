/* Requests shared by REST and WebSocket: the position or game a request names (fen + moves, moves,
 * or pgn), and an analysis request's JSON validated into a job (with ApiError): position, mode and
 * its settings, limits held to the server's caps. */
#include "request.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../domain/models.h"
#include "../domain/shared.h"
#include "quota.h"

static const ServerConfig *Cfg;

void request_set_config(const ServerConfig *cfg) { Cfg = cfg; }

void request_limit_caps(int64_t *nodes, int64_t *depth, int64_t *movetime)
{
    *nodes = Cfg->max_nodes;
    *depth = Cfg->max_depth;
    *movetime = Cfg->max_movetime;
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
bool request_check_keys(ApiError *r, json_t *obj, const char *const *allowed, const char *prefix)
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

bool request_read_fen(ApiError *e, json_t *fen, Position *p)
{
    char msg[200];
    if (fen && !json_is_string(fen)) {
        api_error_set(e, 400, "bad_type", "fen", "'fen' must be a string");
        return false;
    }
    FenError fe = fen_read(p, fen ? json_string_value(fen) : FEN_STARTPOS, msg, sizeof msg);
    if (fe != FEN_OK) {
        api_error_set(e, 400, fen_error_code(fe), "fen", "%s", msg);
        return false;
    }
    return true;
}

/* The first game of a request's "pgn" (a string) into g (cleared first; pgn_game_free it) and its
 * start position into start; false with e set (bad_type, bad_pgn) and g empty. */
static bool read_pgn(ApiError *e, json_t *pgn, PgnGame *g, Position *start)
{
    memset(g, 0, sizeof *g);
    if (!json_is_string(pgn)) {
        api_error_set(e, 400, "bad_type", "pgn", "'pgn' must be a string");
        return false;
    }
    char err[300] = "";
    PgnReader *rd = pgn_reader_open_string(json_string_value(pgn));
    if (!rd) {
        api_error_set(e, 503, "overloaded", NULL, "out of memory");
        return false;
    }
    PgnResult res = pgn_read_game(rd, g, err, sizeof err);
    pgn_reader_close(rd);
    /* pgn_read_game has read the FEN tag already: the start position cannot fail after it */
    if (res != PGN_GAME || !pgn_start_position(g, start, err, sizeof err)) {
        api_error_set(e, 400, "bad_pgn", "pgn", "%s", res == PGN_END ? "the PGN has no game" : err);
        pgn_game_free(g);
        return false;
    }
    return true;
}

/* Called with each move of a request, and the position it is played from, before it is played
 * (which it leaves as it found it). */
typedef void (*MoveSeen)(Position *p, Move m, void *user);

/* Plays a request's "moves" on p, each one shown to `seen` (may be NULL) first: a JSON array of UCI
 * moves, of at most `max`, or where `text_ok` also one space-separated string (of any length: the
 * body's size bounds it). False with e set (bad_type, or bad_move naming moves[i], counted from 0)
 * and p part-way. */
static bool play_moves(ApiError *e, json_t *moves, size_t max, bool text_ok, Position *p, MoveSeen seen, void *user)
{
    bool text = text_ok && json_is_string(moves);
    if (!text && (!json_is_array(moves) || json_array_size(moves) > max)) {
        if (text_ok)
            api_error_set(e, 400, "bad_type", "moves",
                          "'moves' must be UCI moves: an array of strings or one space-separated string");
        else
            api_error_set(e, 400, "bad_type", "moves", "'moves' must be an array of UCI moves (at most %zu)", max);
        return false;
    }
    char *copy = text ? strdup(json_string_value(moves)) : NULL, *save = NULL;
    if (text && !copy) {
        api_error_set(e, 503, "overloaded", NULL, "out of memory");
        return false;
    }
    const char *uci = text ? strtok_r(copy, " \t\r\n", &save) : NULL;
    for (size_t i = 0; text ? uci != NULL : i < json_array_size(moves); i++) {
        if (!text)
            uci = json_string_value(json_array_get(moves, i));
        Move m = uci ? move_from_uci(p, uci) : MOVE_NONE;
        if (!m) {
            api_error_set(e, 400, "bad_move", "moves", "moves[%zu] '%.12s' is not a legal move in UCI notation here", i,
                          uci ? uci : "?");
            free(copy);
            return false;
        }
        if (seen)
            seen(p, m, user);
        if (p->stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(p);
        position_make_move(p, m);
        if (text)
            uci = strtok_r(NULL, " \t\r\n", &save);
    }
    free(copy);
    return true;
}

/* Where a single-position request records the game so far (play_moves' MoveSeen). */
typedef struct {
    Move *played;
    int *count;
} Played;

static void record_played(Position *p, Move m, void *user)
{
    (void)p;
    Played *pl = user;
    if (pl->played)
        pl->played[(*pl->count)++] = m;
}

/* The position of a request: exactly one of fen (+ moves), moves alone, or pgn. With `start` and
 * `played` (room for MAX_REQUEST_MOVES), also the start position and the moves played from it (the
 * game so far, which the Bayesian mode's style recognition reads). */
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
    if (pgn) {
        PgnGame g;
        if (!read_pgn(r, pgn, &g, p))
            return false;
        if (moves) {
            pgn_game_free(&g);
            api_error_set(r, 400, "position_ambiguous", "moves", "'moves' goes with 'fen' or alone, not with 'pgn'");
            return false;
        }
        if (start && g.move_count <= MAX_REQUEST_MOVES) {
            position_copy_root(start, p);
            for (int i = 0; i < g.move_count; i++)
                played[(*count)++] = g.moves[i].move;
        }
        for (int i = 0; i < g.move_count; i++) {
            if (p->stack_len > POSITION_STACK_SIZE / 2)
                position_trim_history(p);
            position_make_move(p, g.moves[i].move);
        }
        pgn_game_free(&g);
        return true;
    }
    if (!request_read_fen(r, fen, p))
        return false;
    if (!fen && !moves) {
        api_error_set(r, 400, "position_missing", "fen", "give a position: 'fen', 'moves' or 'pgn'");
        return false;
    }
    if (start)
        position_copy_root(start, p);
    Played pl = {start ? played : NULL, count};
    return !moves || play_moves(r, moves, MAX_REQUEST_MOVES, false, p, record_played, &pl);
}

/* A game's moves kept, with their SAN, while there is room (play_moves' MoveSeen). */
typedef struct {
    PgnGame *game;
    int max_plies;
} KeptGame;

static void keep_move(Position *p, Move m, void *user)
{
    KeptGame *k = user;
    PgnGame *g = k->game;
    if (g->move_count < k->max_plies) {
        PgnMove *pm = pgn_game_add_move(g);
        pm->move = m;
        san_write(p, m, pm->san);
    }
}

bool request_read_game(ApiError *e, json_t *body, int max_plies, PgnGame *g, Position *start)
{
    memset(g, 0, sizeof *g);
    json_t *pgn = json_object_get(body, "pgn"), *fen = json_object_get(body, "fen"),
           *moves = json_object_get(body, "moves");
    if (pgn) {
        if (json_is_string(pgn) && (fen || moves)) {
            api_error_set(e, 400, "position_ambiguous", "pgn", "give 'pgn', or 'fen' and 'moves', not both");
            return false;
        }
        if (!read_pgn(e, pgn, g, start))
            return false;
        /* Its tags, start and moves are kept, the first max_plies of them; its own comments,
         * glyphs and variations are not (the annotated PGN has the analysis's). */
        free(g->comment);
        g->comment = NULL;
        for (int i = 0; i < g->move_count; i++) {
            PgnMove *m = &g->moves[i];
            free(m->comment);
            free(m->variations);
            PgnMove bare = {.move = m->move};
            memcpy(bare.san, m->san, sizeof bare.san);
            *m = bare;
        }
        if (g->move_count > max_plies)
            g->move_count = max_plies;
        g->line = 0;
        return true;
    }
    if (!request_read_fen(e, fen, start))
        return false;
    static Position p;
    position_copy(&p, start);
    KeptGame kept = {g, max_plies};
    if (moves && !play_moves(e, moves, SIZE_MAX, true, &p, keep_move, &kept)) {
        pgn_game_free(g);
        return false;
    }
    if (fen)
        g->start_fen = strdup(json_string_value(fen));
    snprintf(g->result, sizeof g->result, "*");
    return true;
}

/* An analysis request's keys; the last two, "op" and "id", only the WebSocket's analyse op has. */
static const char *const AnalyseKeys[] = {"fen",     "moves",     "pgn",      "mode", "limits", "multiPv",
                                          "compare", "affective", "bayesian", "op",   "id",     NULL};
enum { STREAM_ONLY_KEYS = 2 };
static const char *const AffectiveKeys[] = {"temperament", "gain", NULL};
static const char *const BayesianKeys[] = {"target", "default", NULL};
static const char *const LimitKeys[] = {"depth", "nodes", "movetime", "infinite", NULL};

/* Parses an analysis request into a job (not yet submitted). stream: the WebSocket's analyse op
 * (infinite allowed, and its "op" and "id" keys). */
Job *request_analysis(ApiError *r, json_t *body, bool stream)
{
    if (!request_check_keys(r, body, AnalyseKeys, ""))
        return NULL;
    size_t keys = sizeof AnalyseKeys / sizeof AnalyseKeys[0] - 1;
    for (size_t k = keys - STREAM_ONLY_KEYS; k < keys && !stream; k++)
        if (json_object_get(body, AnalyseKeys[k])) {
            api_error_set(r, 400, "unknown_field", AnalyseKeys[k],
                          "unknown field '%s': only the WebSocket's analyse op has it", AnalyseKeys[k]);
            return NULL;
        }
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
        if (!request_check_keys(r, bay, BayesianKeys, "bayesian."))
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
    double gain = -1; /* the temperament's */
    json_t *aff = json_object_get(body, "affective");
    if (aff) {
        if (!json_is_object(aff)) {
            api_error_set(r, 400, "bad_type", "affective",
                          "'affective' must be an object like {\"temperament\": \"calm\"}");
            return NULL;
        }
        if (!request_check_keys(r, aff, AffectiveKeys, "affective."))
            return NULL;
        json_t *t = json_object_get(aff, "temperament");
        if (t && (!json_is_string(t) || !(temperament = temperament_find(json_string_value(t))))) {
            api_error_set(r, 400, "bad_temperament", "affective.temperament",
                          "temperament must be one of " TEMPERAMENT_NAMES);
            return NULL;
        }
        json_t *g = json_object_get(aff, "gain");
        gain = !g ? -1 : json_is_number(g) ? json_number_value(g) : NAN;
        if (g && !affective_gain_valid(gain)) {
            api_error_set(r, 400, "bad_gain", "affective.gain", AFFECTIVE_GAIN_REFUSED);
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
    if (!request_check_keys(r, limits, LimitKeys, "limits."))
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
        if (!json_is_boolean(v) || (json_is_true(v) && !stream)) {
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
    Move *moves = bayesian ? malloc(MAX_REQUEST_MOVES * sizeof *moves) : NULL;
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
            Temperament at = temperament_at_gain(temperament, gain);
            affective_emotion(p, NULL, &at, &emotion);
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

Job *request_start(ApiError *e, json_t *body, bool stream, const char *client, int elo)
{
    if (!quota_job_room(e, client))
        return NULL;
    Job *job = request_analysis(e, body, stream);
    if (!job)
        return NULL;
    if (job->limits.infinite && !quota_infinite_allowed(client)) {
        job_release(job);
        api_error_set(e, 429, "too_many_infinite", NULL,
                      "%.48s already runs the most infinite analyses a client may; stop one, or give a depth or "
                      "movetime",
                      client);
        return NULL;
    }
    job->limits.elo = elo;
    snprintf(job->client, sizeof job->client, "%s", client); /* before the queue sees it: fairness */
    if (!jobs_submit(job)) {
        job_release(job);
        shared_queue_refused(e, "retry shortly");
        return NULL;
    }
    return job;
}
