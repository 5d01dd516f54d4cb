/* Games against the engine. Loop thread only. A game is its start position and move list (the
 * position is replayed when needed); while the engine thinks, a job is running for it and the
 * human's request, if any, waits suspended. Every change is written to storage; a game not in
 * memory (after a restart) is loaded from it. Levels 1-8 limit depth or time and, below 6, choose
 * at random among the lines close to the best (Lichess-like weaker play). */
#include "games.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../engine/engine.h"
#include "models.h"
#include "../api/api.h"
#include "../jobs/jobs.h"
#include "../base/log.h"
#include "../store/store.h"
#include "../../engine/core/rules.h"

#define GAMES_MAX_MOVES 1200
#define GAMES_TABLE 1024

typedef struct Game {
    char id[24];
    char mode[16];
    Color human;
    int level;
    const Temperament *temperament;
    char initial_fen[FEN_BUFFER_SIZE];
    Move moves[GAMES_MAX_MOVES];
    int move_count;
    char status[24], result[8], reason[32];
    bool thinking;
    Request *waiting;
    bool has_emotion;
    Emotion emotion;                 /* the engine's last emotion: the mood carried into its next appraisal */
    json_t *emotions;                /* history, one per engine move */
    BayesTarget target;              /* bayesian mode: the requested target ... */
    bool auto_target;                /* ... or auto (the opponent's style decides from its move 10) */
    json_t *bayes;                   /* bayesian mode: the choice of every engine move */
    uint8_t *levels[BAYES_PHASE_NB]; /* the engine's parameter levels in each phase it reached */
    bool learned;                    /* its records are in the Bayesian model */
    long long created_ms, updated_ms;
    struct Game *next;
} Game;

static Game *Table[GAMES_TABLE];
static unsigned long long Serial;

static const struct {
    int depth;
    int movetime;
    int multipv; /* lines to choose among */
    int margin;  /* centipawns behind the best a chosen line may be */
} Levels[9] = {{0, 0, 0, 0},  {1, 0, 4, 250},  {2, 0, 4, 150}, {3, 0, 3, 100}, {5, 0, 3, 60},
               {7, 0, 2, 30}, {10, 300, 1, 0}, {0, 600, 1, 0}, {0, 1500, 1, 0}};

static long long wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned hash(const char *id)
{
    unsigned h = 2166136261u;
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h % GAMES_TABLE;
}

static Game *find(const char *id)
{
    for (Game *g = Table[hash(id)]; g; g = g->next)
        if (!strcmp(g->id, id))
            return g;
    return NULL;
}

static void insert(Game *g)
{
    g->next = Table[hash(g->id)];
    Table[hash(g->id)] = g;
}

/* The current position; false if the stored moves do not replay (cannot happen for our games). */
static bool replay(const Game *g, Position *p)
{
    if (fen_read(p, g->initial_fen, NULL, 0) != FEN_OK)
        return false;
    for (int i = 0; i < g->move_count; i++) {
        if (!movegen_is_legal(p, g->moves[i]))
            return false;
        if (p->stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(p);
        position_make_move(p, g->moves[i]);
    }
    return true;
}

static bool over(const Game *g) { return strcmp(g->status, "started") != 0; }

/* Status after a move, by the rules. */
static void update_status(Game *g, Position *p)
{
    GameStatus st = position_status(p);
    if (st == STATUS_ONGOING)
        return;
    if (st == STATUS_CHECKMATE) {
        strcpy(g->status, "mate");
        strcpy(g->result, p->side == WHITE ? "0-1" : "1-0");
    } else {
        strcpy(g->status, st == STATUS_STALEMATE ? "stalemate" : "draw");
        strcpy(g->result, "1/2-1/2");
        snprintf(g->reason, sizeof g->reason, "%s", game_status_name(st));
    }
}

static json_t *game_json(const Game *g)
{
    static Position p;
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:I, s:I, s:b}", "id", g->id, "mode", g->mode, "color",
                  g->human == WHITE ? "white" : "black", "level", g->level, "temperament", g->temperament->name,
                  "initialFen", g->initial_fen, "status", g->status, "result", g->result, "createdMs",
                  (json_int_t)g->created_ms, "updatedMs", (json_int_t)g->updated_ms, "thinking", g->thinking);
    if (g->reason[0])
        json_object_set_new(o, "reason", json_string(g->reason));
    json_t *uci = json_array(), *san = json_array();
    fen_read(&p, g->initial_fen, NULL, 0);
    for (int i = 0; i < g->move_count; i++) {
        char u[MOVE_STRING_SIZE], s[SAN_STRING_SIZE];
        json_array_append_new(uci, json_string(move_to_uci(g->moves[i], u)));
        json_array_append_new(san, json_string(san_write(&p, g->moves[i], s)));
        if (p.stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(&p);
        position_make_move(&p, g->moves[i]);
    }
    char fen[FEN_BUFFER_SIZE];
    json_object_set_new(o, "moves", uci);
    json_object_set_new(o, "san", san);
    json_object_set_new(o, "fen", json_string(fen_write(&p, fen)));
    json_object_set_new(o, "turn", json_string(p.side == WHITE ? "white" : "black"));
    if (g->emotions)
        json_object_set(o, "emotions", g->emotions);
    if (!strcmp(g->mode, "bayesian")) {
        json_object_set_new(o, "target", json_string(g->auto_target ? "auto" : BayesTargetNames[g->target]));
        json_object_set_new(o, "defaultTarget", json_string(BayesTargetNames[g->target]));
        json_t *history = g->bayes ? g->bayes : json_array();
        json_object_set(o, "bayesianHistory", history);
        size_t n = json_array_size(history);
        json_object_set(o, "bayesian", n ? json_array_get(history, n - 1) : json_null());
        if (!g->bayes)
            json_decref(history);
    }
    json_t *levels = json_object();
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        if (g->levels[ph]) {
            char *digits = malloc((size_t)BayesParamCount + 1);
            for (int i = 0; digits && i < BayesParamCount; i++)
                digits[i] = (char)('0' + g->levels[ph][i]);
            if (digits) {
                digits[BayesParamCount] = 0;
                json_object_set_new(levels, GamePhaseNames[ph], json_string(digits));
            }
            free(digits);
        }
    json_object_set_new(o, "levelsUsed", levels);
    json_object_set_new(o, "learned", json_boolean(g->learned));
    return o;
}

/* A finished game's records go to the Bayesian model, once (§3: every game the engine finishes).
 * Affective games are left out: their evaluation is the default vector re-weighted by emotion,
 * which no level of the parameters describes. */
static void learn_from(Game *g)
{
    if (g->learned || !strcmp(g->mode, "affective") || !strcmp(g->status, "started"))
        return;
    bool any = false;
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        any |= g->levels[ph] != NULL;
    g->learned = true;
    if (!any)
        return; /* the engine never moved */
    Color engine = color_flip(g->human);
    GameResult r = !strcmp(g->result, "1/2-1/2")                         ? RESULT_DRAW
                   : !strcmp(g->result, engine == WHITE ? "1-0" : "0-1") ? RESULT_WIN
                                                                         : RESULT_LOSS;
    models_game_finished(g->result, g->reason[0] ? g->reason : g->status, g->move_count, r, g->levels);
}

static void game_free(Game *g)
{
    json_decref(g->emotions);
    json_decref(g->bayes);
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        free(g->levels[ph]);
    free(g);
}

static void save(Game *g)
{
    learn_from(g);
    g->updated_ms = wall_ms();
    store_save_game(g->id, g->updated_ms, game_json(g));
}

static void answer(Game *g)
{
    Request *r = g->waiting;
    if (!r)
        return;
    g->waiting = NULL;
    r->pending_game = NULL;
    http_reply_json(r, 200, game_json(g));
    http_resume(r);
}

/* The engine's reply arrives: pick the move (weaker levels choose among close lines), play it. */
static void engine_done(Job *job, json_t *event, bool final, void *user)
{
    Game *g = user;
    if (!final)
        return;
    job_remove_listener(job, engine_done, g);
    g->thinking = false;
    json_t *pvs = json_object_get(event, "pvs");
    size_t n = json_array_size(pvs), pick = 0;
    if (n > 1 && Levels[g->level].margin) {
        json_int_t best = json_integer_value(json_object_get(json_array_get(pvs, 0), "cp"));
        size_t close = 1;
        for (size_t i = 1; i < n; i++) {
            json_t *cp = json_object_get(json_array_get(pvs, i), "cp");
            json_int_t v = json_integer_value(cp);
            bool white = g->human == BLACK; /* the engine's colour; scores are White's view */
            if (cp && (white ? best - v : v - best) <= Levels[g->level].margin)
                close = i + 1;
        }
        pick = (size_t)rand() % close;
    }
    json_t *line = json_array_get(pvs, pick);
    const char *uci = json_string_value(json_array_get(json_object_get(line, "moves"), 0));
    static Position p;
    if (uci && job->status == JOB_DONE && replay(g, &p)) {
        Move m = move_from_uci(&p, uci);
        if (m && g->move_count < GAMES_MAX_MOVES) {
            g->moves[g->move_count++] = m;
            position_make_move(&p, m);
            update_status(g, &p);
        }
    }
    save(g);
    answer(g);
    job_release(job);
}

/* Starts the engine's move: a job at the game's level; in affective mode the emotion is appraised
 * with the last one as mood and recorded. False if no worker can take it (queue full). */
static bool engine_move(Game *g)
{
    static Position p;
    if (!replay(g, &p))
        return false;
    SearchLimits l;
    search_limits_init(&l);
    l.depth = Levels[g->level].depth;
    l.movetime = Levels[g->level].movetime;
    l.multipv = Levels[g->level].multipv;
    Evaluator e;
    BayesChoice choice;
    bool has_choice = false;
    if (!strcmp(g->mode, "affective")) {
        Emotion now;
        affective_emotion(&p, g->has_emotion ? &g->emotion : NULL, g->temperament, &now);
        g->emotion = now;
        g->has_emotion = true;
        affective_evaluator(&now, &e);
        if (!g->emotions)
            g->emotions = json_array();
        json_t *rec = api_emotion_json(&now);
        json_object_set_new(rec, "ply", json_integer(g->move_count));
        json_array_append_new(g->emotions, rec);
    } else if (!strcmp(g->mode, "bayesian")) {
        static Position start;
        static EvalParams storage;
        fen_read(&start, g->initial_fen, NULL, 0);
        MoveHistory h = {&start, g->moves, g->move_count};
        models_choose(&p, &h, g->target, g->auto_target, hash(g->id) * 0x9E3779B97F4A7C15ULL, &choice, &storage, &e);
        has_choice = true;
    } else
        evaluator_classical(&e);
    GamePhase ph = bayes_phase(&p);
    if (!g->levels[ph] && strcmp(g->mode, "affective") && (g->levels[ph] = malloc((size_t)BayesParamCount))) {
        if (has_choice)
            models_levels(&choice, g->levels[ph]);
        else
            memset(g->levels[ph], BAYES_DEFAULT_LEVEL, (size_t)BayesParamCount);
    }
    Job *job = job_new(&p, &l, &e, g->mode);
    if (!job)
        return false;
    if (has_choice) {
        job->has_bayes = true;
        job->bayes = choice;
        if (!g->bayes)
            g->bayes = json_array();
        json_t *rec = models_choice_json(&choice);
        json_object_set_new(rec, "ply", json_integer(g->move_count));
        json_array_append_new(g->bayes, rec);
    }
    if (!jobs_submit(job)) {
        job_release(job);
        return false;
    }
    job_retain(job);
    job_add_listener(job, engine_done, g);
    g->thinking = true;
    return true;
}

static void wait_for_engine(Request *r, Game *g)
{
    g->waiting = r;
    r->pending_game = g;
    if (!r->suspended) /* a request that waited for storage is suspended already */
        http_suspend(r);
}

static const char *const CreateKeys[] = {"mode",          "color", "level", "temperament", "target",
                                         "defaultTarget", "fen",   "moves", NULL};

/* A new game's opening moves (UCI or SAN) played from p, so the game and its PGN start with them
 * and repetitions across them count. */
static bool play_opening(ApiError *e, json_t *moves, Position *p, Game *g)
{
    if (!moves)
        return true;
    if (!json_is_array(moves) || json_array_size(moves) > GAMES_MAX_MOVES / 2) {
        api_error_set(e, 400, "bad_type", "moves", "'moves' must be an array of moves (UCI or SAN, at most %d)",
                      GAMES_MAX_MOVES / 2);
        return false;
    }
    size_t i;
    json_t *m;
    json_array_foreach(moves, i, m)
    {
        const char *text = json_string_value(m);
        Move mv = text ? move_from_uci(p, text) : MOVE_NONE;
        if (text && !mv)
            mv = san_read(p, text);
        if (!mv) {
            api_error_set(e, 400, "bad_move", "moves", "moves[%zu] '%.20s' is not a legal move here", i,
                          text ? text : "?");
            return false;
        }
        g->moves[g->move_count++] = mv;
        if (p->stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(p);
        position_make_move(p, mv);
    }
    return true;
}

void games_create(Request *r, const char *param)
{
    (void)param;
    ApiError e;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    Game *g = calloc(1, sizeof *g);
    if (!g) {
        json_decref(body);
        http_reply_error(r, 503, "overloaded", NULL, "out of memory");
        return;
    }
    const char *mode = json_string_value(json_object_get(body, "mode"));
    const char *color = json_string_value(json_object_get(body, "color"));
    const char *temper = json_string_value(json_object_get(body, "temperament"));
    const char *fen = json_string_value(json_object_get(body, "fen"));
    const char *target = json_string_value(json_object_get(body, "target"));
    const char *default_target = json_string_value(json_object_get(body, "defaultTarget"));
    bool ignored;
    json_t *level = json_object_get(body, "level");
    const char *key;
    json_t *v;
    bool known = true;
    json_object_foreach(body, key, v)
    {
        bool k = false;
        for (int i = 0; CreateKeys[i]; i++)
            k |= !strcmp(key, CreateKeys[i]);
        known &= k;
    }
    static Position p;
    char msg[200];
    FenError fe = FEN_OK;
    if (!known)
        api_error_set(&e, 400, "unknown_field", NULL,
                      "a game takes mode, color, level, temperament, target, defaultTarget, fen and moves");
    else if (mode && strcmp(mode, "classical") && strcmp(mode, "affective") && strcmp(mode, "bayesian"))
        api_error_set(&e, 400, "bad_mode", "mode", "mode must be classical, affective or bayesian");
    else if ((json_object_get(body, "target") && !target) ||
             (target && !adaptive_parse_target(target, &g->target, &g->auto_target)))
        api_error_set(&e, 400, "bad_target", "target", "target must be auto, aggressive or conservative");
    else if ((json_object_get(body, "defaultTarget") && !default_target) ||
             (default_target && (!strcmp(default_target, "auto") || (target && strcmp(target, "auto")) ||
                                 !adaptive_parse_target(default_target, &g->target, &ignored))))
        api_error_set(&e, 400, "bad_target", "defaultTarget",
                      "defaultTarget (with target auto: the target before the opponent's style is known) must be "
                      "aggressive or conservative");
    else if (color && strcmp(color, "white") && strcmp(color, "black") && strcmp(color, "random"))
        api_error_set(&e, 400, "bad_color", "color", "color must be white, black or random (yours)");
    else if (level && (!json_is_integer(level) || json_integer_value(level) < 1 || json_integer_value(level) > 8))
        api_error_set(&e, 400, "bad_level", "level", "level must be a whole number from 1 to 8");
    else if (temper && !temperament_find(temper))
        api_error_set(&e, 400, "bad_temperament", "temperament", "temperament must be neutral, calm, anxious or bold");
    else if ((json_object_get(body, "mode") && !mode) || (json_object_get(body, "color") && !color) ||
             (json_object_get(body, "temperament") && !temper) || (json_object_get(body, "fen") && !fen))
        api_error_set(&e, 400, "bad_type", NULL, "mode, color, temperament and fen are strings");
    else if ((fe = fen_read(&p, fen ? fen : FEN_STARTPOS, msg, sizeof msg)) != FEN_OK)
        api_error_set(&e, 400, fen_error_code(fe), "fen", "%s", msg);
    else if (fen_write(&p, g->initial_fen), !play_opening(&e, json_object_get(body, "moves"), &p, g))
        ; /* e is set */
    else if (position_status(&p) != STATUS_ONGOING)
        api_error_set(&e, 400, "game_over", g->move_count ? "moves" : "fen", "this position is already over (%s)",
                      game_status_name(position_status(&p)));
    else
        e.status = 0;
    if (e.status) {
        json_decref(body);
        free(g);
        api_reply_error(r, &e);
        return;
    }
    snprintf(g->mode, sizeof g->mode, "%s", mode ? mode : "classical");
    g->human = color && !strcmp(color, "black") ? BLACK : color && !strcmp(color, "random") ? rand() & 1 : WHITE;
    g->level = level ? (int)json_integer_value(level) : 8;
    g->temperament = temperament_find(temper ? temper : "neutral");
    if (!target)
        g->auto_target = true; /* g->target: defaultTarget, or conservative (§6) */
    strcpy(g->status, "started");
    strcpy(g->result, "*");
    uint64_t rnd = ((uint64_t)rand() << 31) ^ (uint64_t)rand() ^ (uint64_t)uv_hrtime();
    snprintf(g->id, sizeof g->id, "g%05llx%010llx", ++Serial & 0xFFFFF, (unsigned long long)(rnd & 0xFFFFFFFFFFULL));
    g->created_ms = wall_ms();
    json_decref(body);
    insert(g);
    if (p.side != g->human) {
        if (!engine_move(g)) {
            http_add_header(r, "Retry-After", "1");
            http_reply_error(r, 503, "queue_full", NULL, "every worker is busy; the game %s waits for its first move",
                             g->id);
            return;
        }
        save(g);
        wait_for_engine(r, g);
        return;
    }
    save(g);
    http_reply_json(r, 201, game_json(g));
}

/* Runs fn once the game is in memory (loading it from storage first if need be). */
typedef void (*GameAction)(Request *r, Game *g);
typedef struct {
    Request *r;
    GameAction fn;
    char id[64];
} GameLoad;

static Game *game_from_json(json_t *o)
{
    Game *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    snprintf(g->id, sizeof g->id, "%s", json_string_value(json_object_get(o, "id")));
    snprintf(g->mode, sizeof g->mode, "%s", json_string_value(json_object_get(o, "mode")));
    g->human = !strcmp(json_string_value(json_object_get(o, "color")), "black") ? BLACK : WHITE;
    g->level = (int)json_integer_value(json_object_get(o, "level"));
    g->temperament = temperament_find(json_string_value(json_object_get(o, "temperament")));
    snprintf(g->initial_fen, sizeof g->initial_fen, "%s", json_string_value(json_object_get(o, "initialFen")));
    snprintf(g->status, sizeof g->status, "%s", json_string_value(json_object_get(o, "status")));
    snprintf(g->result, sizeof g->result, "%s", json_string_value(json_object_get(o, "result")));
    const char *reason = json_string_value(json_object_get(o, "reason"));
    snprintf(g->reason, sizeof g->reason, "%s", reason ? reason : "");
    g->created_ms = json_integer_value(json_object_get(o, "createdMs"));
    g->updated_ms = json_integer_value(json_object_get(o, "updatedMs"));
    if (!g->temperament || g->level < 1 || g->level > 8)
        goto bad;
    static Position p;
    if (fen_read(&p, g->initial_fen, NULL, 0) != FEN_OK)
        goto bad;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(o, "moves"), i, m)
    {
        Move mv = json_is_string(m) ? move_from_uci(&p, json_string_value(m)) : MOVE_NONE;
        if (!mv || g->move_count >= GAMES_MAX_MOVES)
            goto bad;
        g->moves[g->move_count++] = mv;
        if (p.stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(&p);
        position_make_move(&p, mv);
    }
    json_t *emotions = json_object_get(o, "emotions");
    if (emotions)
        g->emotions = json_incref(emotions);
    const char *target = json_string_value(json_object_get(o, "target"));
    const char *default_target = json_string_value(json_object_get(o, "defaultTarget"));
    bool ignored;
    if (!adaptive_parse_target(target ? target : "auto", &g->target, &g->auto_target) ||
        (g->auto_target && default_target && !adaptive_parse_target(default_target, &g->target, &ignored)))
        goto bad;
    json_t *history = json_object_get(o, "bayesianHistory");
    if (json_is_array(history))
        g->bayes = json_incref(history);
    g->learned = json_is_true(json_object_get(o, "learned"));
    json_t *levels = json_object_get(o, "levelsUsed");
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++) {
        const char *digits = json_string_value(json_object_get(levels, GamePhaseNames[ph]));
        if (!digits || (int)strlen(digits) != BayesParamCount || !(g->levels[ph] = malloc((size_t)BayesParamCount)))
            continue; /* recorded by a build with another parameter set: that phase is not learned */
        for (int k = 0; k < BayesParamCount; k++)
            g->levels[ph][k] = digits[k] >= '0' && digits[k] <= '4' ? (uint8_t)(digits[k] - '0') : BAYES_DEFAULT_LEVEL;
    }
    return g;
bad:
    game_free(g);
    return NULL;
}

static void on_game_loaded(json_t *o, void *user)
{
    GameLoad *l = user;
    Request *r = l->r;
    Game *g = NULL;
    if (r)
        r->pending_game_load = NULL; /* l is freed below: the request must not point at it */
    if (o && !(g = find(l->id)) && (g = game_from_json(o)))
        insert(g);
    json_decref(o);
    if (r) {
        if (g)
            l->fn(r, g);
        else
            http_reply_error(r, 404, "unknown_game", NULL, "no game with id '%.40s'", l->id);
        if (!r->suspended || r->response)
            http_resume(r);
    }
    free(l);
}

static void with_game(Request *r, const char *id, GameAction fn)
{
    Game *g = find(id);
    if (g) {
        fn(r, g);
        return;
    }
    if (strlen(id) > 40 || id[0] != 'g') {
        http_reply_error(r, 404, "unknown_game", NULL, "no game with id '%.40s'", id);
        return;
    }
    GameLoad *l = calloc(1, sizeof *l);
    if (!l) {
        http_reply_error(r, 503, "overloaded", NULL, "out of memory");
        return;
    }
    l->r = r;
    l->fn = fn;
    snprintf(l->id, sizeof l->id, "%s", id);
    r->pending_game_load = l;
    http_suspend(r);
    store_load_game(id, on_game_loaded, l);
}

static void do_get(Request *r, Game *g) { http_reply_json(r, 200, game_json(g)); }

static void do_move(Request *r, Game *g)
{
    ApiError e;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    const char *text = json_string_value(json_object_get(body, "move"));
    static Position p;
    Move m = MOVE_NONE;
    if (over(g))
        api_error_set(&e, 409, "game_over", NULL, "the game is over (%s)", g->status);
    else if (g->thinking || !replay(g, &p) || p.side != g->human)
        api_error_set(&e, 409, "not_your_turn", NULL, "wait for the engine's move");
    else if (!text || json_object_size(body) != 1)
        api_error_set(&e, 400, "bad_move", "move", "send {\"move\": \"e2e4\"} (UCI; SAN is read too)");
    else if (!(m = move_from_uci(&p, text)) && !(m = san_read(&p, text)))
        api_error_set(&e, 400, "illegal_move", "move", "'%.20s' is not a legal move here", text);
    else if (g->move_count >= GAMES_MAX_MOVES)
        api_error_set(&e, 409, "game_too_long", NULL, "the game has reached %d moves", GAMES_MAX_MOVES);
    else
        e.status = 0;
    json_decref(body);
    if (e.status) {
        api_reply_error(r, &e);
        return;
    }
    g->moves[g->move_count++] = m;
    position_make_move(&p, m);
    update_status(g, &p);
    if (over(g)) {
        save(g);
        http_reply_json(r, 200, game_json(g));
        return;
    }
    if (!engine_move(g)) {
        g->move_count--; /* nothing changed: the client may retry */
        http_add_header(r, "Retry-After", "1");
        http_reply_error(r, 503, "queue_full", NULL, "every worker is busy; retry the move shortly");
        return;
    }
    save(g);
    wait_for_engine(r, g);
}

static void do_pgn(Request *r, Game *g)
{
    PgnGame pg;
    memset(&pg, 0, sizeof pg);
    pgn_game_add_tag(&pg, "Event", "feelfish game");
    pgn_game_add_tag(&pg, "Site", "feelfish");
    pgn_game_add_tag(&pg, "White", g->human == WHITE ? "You" : "feelfish");
    pgn_game_add_tag(&pg, "Black", g->human == BLACK ? "You" : "feelfish");
    char level[64];
    snprintf(level, sizeof level, "%s, level %d", g->mode, g->level);
    pgn_game_add_tag(&pg, "FeelfishMode", level);
    if (strcmp(g->initial_fen, FEN_STARTPOS))
        pg.start_fen = strdup(g->initial_fen);
    static Position p;
    fen_read(&p, g->initial_fen, NULL, 0);
    for (int i = 0; i < g->move_count; i++) {
        PgnMove *m = pgn_game_add_move(&pg);
        m->move = g->moves[i];
        san_write(&p, g->moves[i], m->san);
        if (p.stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(&p);
        position_make_move(&p, g->moves[i]);
    }
    snprintf(pg.result, sizeof pg.result, "%s", g->result);
    char *text = pgn_write(&pg);
    pgn_game_free(&pg);
    http_reply(r, 200, "application/x-chess-pgn", text, strlen(text));
    free(text);
}

static void do_resign(Request *r, Game *g)
{
    if (over(g)) {
        http_reply_error(r, 409, "game_over", NULL, "the game is already over (%s)", g->status);
        return;
    }
    strcpy(g->status, "resign");
    strcpy(g->result, g->human == WHITE ? "0-1" : "1-0");
    snprintf(g->reason, sizeof g->reason, "%s resigned", g->human == WHITE ? "white" : "black");
    save(g);
    http_reply_json(r, 200, game_json(g));
}

/* Takes back the human's last move and the engine's reply to it (or just the human's move if the
 * engine has not replied), so the human is to move again. Histories lose what came after. */
static void do_takeback(Request *r, Game *g)
{
    static Position p;
    int n = g->move_count;
    if (over(g)) {
        http_reply_error(r, 409, "game_over", NULL, "the game is over (%s): start a new one from its moves", g->status);
        return;
    }
    if (g->thinking) {
        http_reply_error(r, 409, "not_your_turn", NULL, "wait for the engine's move, then take back");
        return;
    }
    /* The side to move after n moves: the start's side when n is even. */
    fen_read(&p, g->initial_fen, NULL, 0);
    Color start_side = p.side;
    int keep = n;
    do
        keep--;
    while (keep >= 0 && ((keep % 2 == 0) ? start_side : color_flip(start_side)) != g->human);
    if (keep < 0) {
        http_reply_error(r, 409, "nothing_to_take_back", NULL, "you have not moved yet");
        return;
    }
    g->move_count = keep;
    json_t *histories[2] = {g->emotions, g->bayes};
    for (int k = 0; k < 2; k++)
        for (size_t i = json_array_size(histories[k]); i-- > 0;)
            if (json_integer_value(json_object_get(json_array_get(histories[k], i), "ply")) >= keep)
                json_array_remove(histories[k], i);
    if (g->emotions && json_array_size(g->emotions)) {
        /* the mood goes back to the last emotion still in the game */
        json_t *last = json_array_get(g->emotions, json_array_size(g->emotions) - 1);
        g->emotion.c[CONCEPT_RELIEF] = json_real_value(json_object_get(last, "relief"));
        g->emotion.c[CONCEPT_DESIRABILITY] = json_real_value(json_object_get(last, "desirability"));
        g->emotion.c[CONCEPT_AROUSAL] = json_real_value(json_object_get(last, "arousal"));
    } else
        g->has_emotion = false;
    save(g);
    http_reply_json(r, 200, game_json(g));
}

void games_get(Request *r, const char *id) { with_game(r, id, do_get); }
void games_takeback(Request *r, const char *id) { with_game(r, id, do_takeback); }
void games_move(Request *r, const char *id) { with_game(r, id, do_move); }
void games_pgn(Request *r, const char *id) { with_game(r, id, do_pgn); }
void games_resign(Request *r, const char *id) { with_game(r, id, do_resign); }

void games_request_done(Request *r)
{
    if (r->pending_game) {
        ((Game *)r->pending_game)->waiting = NULL; /* the engine's move is still played and saved */
        r->pending_game = NULL;
    }
    if (r->pending_game_load) {
        ((GameLoad *)r->pending_game_load)->r = NULL;
        r->pending_game_load = NULL;
    }
}

void games_shutdown(void)
{
    for (int i = 0; i < GAMES_TABLE; i++)
        for (Game *g = Table[i], *next; g; g = next) {
            next = g->next;
            game_free(g);
        }
    memset(Table, 0, sizeof Table);
}
