/* Games against the engine. A game is its start position and move list (the position is replayed
 * when needed); while the engine thinks, a job is running for it. Levels 1-7 are ratings (the search
 * plays as strength.h says), level 8 is the engine's full strength; a game may ask a rating itself. */
#include "games.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/hash.h"
#include "../../engine/core/rules.h"
#include "../base/clock.h"
#include "../base/ids.h"
#include "../jobs/jobs.h"
#include "models.h"
#include "shared.h"

#define GAMES_TABLE 1024

static struct {
    Game *table[GAMES_TABLE];
    int count;      /* games in the table */
    Game **stalled; /* games whose engine is to move but has no search: retried */
    int stalled_count, stalled_room;
    GameHooks hooks;
} G;

/* Each level's rating (0: full strength); every level's move takes at most GAMES_MOVE_MS. */
const int GamesLevelElo[GAMES_LEVEL_MAX + 1] = {0, 1200, 1350, 1500, 1700, 1900, 2100, 2300, 0};

static unsigned hash(const char *id) { return hash_text(id) % GAMES_TABLE; }

Game *games_find(const char *id)
{
    for (Game *g = G.table[hash(id)]; g; g = g->next)
        if (!strcmp(g->id, id))
            return g;
    return NULL;
}

static void insert(Game *g)
{
    g->next = G.table[hash(g->id)];
    G.table[hash(g->id)] = g;
    G.count++;
}

int games_in_memory(void) { return G.count; }

bool games_is_secret(const Game *g, const char *secret)
{
    unsigned char diff = strlen(secret) != GAMES_SECRET_LEN || !g->secret[0];
    for (int i = 0; i < GAMES_SECRET_LEN && secret[i]; i++)
        diff |= (unsigned char)(secret[i] ^ g->secret[i]);
    return diff == 0;
}

Game *games_alloc(void)
{
    Game *g = calloc(1, sizeof(Game));
    if (g)
        g->engine_move_ply = -1;
    return g;
}

void games_free(Game *g)
{
    if (!g)
        return;
    free(g->emotions);
    free(g->choices);
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        free(g->levels[ph]);
    free(g);
}

Game *games_adopt(Game *g)
{
    Game *known = games_find(g->id);
    if (known) {
        games_free(g);
        return known;
    }
    insert(g);
    return g;
}

bool games_position(const Game *g, Position *p)
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

bool games_over(const Game *g) { return strcmp(g->status, "started") != 0; }

/* The side to move after `plies` of the game's moves: the initial FEN's second field, flipped by
 * each move (no replay needed). */
static Color side_after(const Game *g, int plies)
{
    const char *side = strchr(g->initial_fen, ' ');
    Color start = side && side[1] == 'b' ? BLACK : WHITE;
    return plies % 2 ? color_flip(start) : start;
}

bool games_engine_to_move(const Game *g) { return !games_over(g) && side_after(g, g->move_count) != g->human; }

static void discard(Game *g)
{
    Game **at = &G.table[hash(g->id)];
    while (*at && *at != g)
        at = &(*at)->next;
    if (*at) {
        *at = g->next;
        G.count--;
    }
    games_free(g);
}

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

/* A finished game's records go to the Bayesian model, once (§3: every game the engine finishes).
 * Affective games are left out: their evaluation is the default vector re-weighted by emotion,
 * which no level of the parameters describes. */
static void learn_from(Game *g)
{
    if (g->learned || g->not_learned[0] || !strcmp(g->mode, "affective") || !strcmp(g->status, "started"))
        return;
    bool any = false;
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        any |= g->levels[ph] != NULL;
    if (!any) {
        g->learned = true;
        return; /* the engine never moved: nothing to learn */
    }
    const char *why = G.hooks.may_learn ? G.hooks.may_learn(g) : NULL;
    if (why) {
        snprintf(g->not_learned, sizeof g->not_learned, "%s", why);
        return;
    }
    g->learned = true;
    Color engine = color_flip(g->human);
    GameResult r = !strcmp(g->result, "1/2-1/2")                         ? RESULT_DRAW
                   : !strcmp(g->result, engine == WHITE ? "1-0" : "0-1") ? RESULT_WIN
                                                                         : RESULT_LOSS;
    models_game_finished(g->id, g->result, g->reason[0] ? g->reason : g->status, g->move_count, r, g->levels);
}

static void changed(Game *g)
{
    learn_from(g);
    g->updated_ms = clock_wall_ms();
    if (G.hooks.changed)
        G.hooks.changed(g);
}

void games_listen(Game *g, GameListener fn, void *user)
{
    g->listener = fn;
    g->listener_user = user;
}

void games_unlisten(Game *g)
{
    g->listener = NULL;
    g->listener_user = NULL;
}

int games_level_of_elo(int elo)
{
    int best = 1;
    for (int level = 2; level < GAMES_LEVEL_MAX; level++)
        if (abs(GamesLevelElo[level] - elo) < abs(GamesLevelElo[best] - elo))
            best = level;
    return best;
}

const SearchInfo *games_played_line(const SearchResult *r, Move *move)
{
    *move = r->best;
    for (int i = 0; i < r->lines; i++)
        if (r->line[i].pv_length && r->line[i].pv[0] == r->best)
            return &r->line[i];
    return &r->line[0];
}

bool games_strength(ApiError *e, int level, int elo, int *level_out, int *elo_out)
{
    if (level && elo)
        api_error_set(e, 400, "level_and_elo", "elo", "give a level or an elo, not both");
    else if (level < 0 || level > GAMES_LEVEL_MAX)
        api_error_set(e, 400, "bad_level", "level", "level must be a whole number from 1 to %d", GAMES_LEVEL_MAX);
    else if (elo && (elo < STRENGTH_ELO_MIN || elo > STRENGTH_ELO_MAX))
        api_error_set(e, 400, "bad_elo", "elo", "elo must be a whole number from %d to %d (or give a level)",
                      STRENGTH_ELO_MIN, STRENGTH_ELO_MAX);
    else {
        *level_out = elo ? games_level_of_elo(elo) : level;
        *elo_out = elo ? elo : GamesLevelElo[level];
        return true;
    }
    return false;
}

void games_rating_limits(int elo, SearchLimits *l)
{
    search_limits_init(l);
    l->movetime = GAMES_MOVE_MS;
    l->elo = elo;
}

/* A game whose engine is to move with no search: games_retry_stalled tries it again. */
static void stall(Game *g)
{
    for (int i = 0; i < G.stalled_count; i++)
        if (G.stalled[i] == g)
            return;
    if (G.stalled_count == G.stalled_room) {
        int room = G.stalled_room ? 2 * G.stalled_room : 16;
        Game **grown = realloc(G.stalled, (size_t)room * sizeof *grown);
        if (!grown)
            return;
        G.stalled = grown;
        G.stalled_room = room;
    }
    G.stalled[G.stalled_count++] = g;
}

/* The engine's reply arrives: its move is played (a rating's search has chosen it, strength.h). */
static void engine_done(Job *job, const JobEvent *ev, void *user)
{
    Game *g = user;
    if (ev->kind != JOB_EVENT_FINAL)
        return;
    job_remove_listener(job, engine_done, g);
    g->thinking = false;
    g->job = NULL;
    static Position p;
    const SearchResult *r = ev->result;
    /* A search stopped early (the job timeout, a shutdown) still plays the best move it found,
     * as an engine told to stop does; a game that ended meanwhile (the human resigned) takes none. */
    bool searched = ev->status == JOB_DONE || ev->status == JOB_CANCELLED;
    bool current = g->move_count == g->think_ply; /* an external game may have moved on meanwhile */
    if (r && searched && current && r->lines && r->best && !games_over(g) && games_position(g, &p)) {
        Move m;
        const SearchInfo *line = games_played_line(r, &m);
        if (movegen_is_legal(&p, m) && g->move_count < GAMES_MAX_MOVES) {
            g->last_score = line->score;
            g->last_depth = line->depth;
            g->engine_move_ply = g->move_count;
            g->moves[g->move_count++] = m;
            position_make_move(&p, m);
            if (!g->external) /* an external game ends when the other side says so (games_end) */
                update_status(g, &p);
        }
    }
    if (games_engine_to_move(g) && !g->external) /* no move came of it (stopped before its first iteration) */
        stall(g);
    changed(g);
    GameListener fn = g->listener;
    void *listener_user = g->listener_user;
    games_unlisten(g);
    if (fn)
        fn(g, listener_user);
    job_release(job);
}

static bool record(void **array, int *count, size_t size, const void *item)
{
    char *grown = realloc(*array, (size_t)(*count + 1) * size);
    if (!grown)
        return false;
    memcpy(grown + (size_t)*count * size, item, size);
    *array = grown;
    (*count)++;
    return true;
}

/* Starts the engine's move: a job at the game's level; in affective mode the emotion is appraised
 * with the last one as mood and recorded. False if no worker can take it (queue full). */
static bool engine_move(Game *g)
{
    static Position p;
    if (!games_position(g, &p))
        return false;
    SearchLimits l;
    if (g->external)
        l = g->think_limits;
    else
        games_rating_limits(g->elo, &l);
    Evaluator e;
    BayesChoice choice;
    Emotion now;
    bool affective = !strcmp(g->mode, "affective"), bayesian = !strcmp(g->mode, "bayesian");
    if (affective) {
        affective_emotion(&p, g->has_emotion ? &g->emotion : NULL, &g->temperament, &now);
        affective_evaluator(&now, &e);
    } else if (bayesian) {
        static Position start;
        static EvalParams storage;
        fen_read(&start, g->initial_fen, NULL, 0);
        MoveHistory h = {&start, g->moves, g->move_count};
        models_choose(&p, &h, g->target, g->auto_target, hash(g->id) * 0x9E3779B97F4A7C15ULL, &choice, &storage, &e);
    } else
        evaluator_classical(&e);
    Job *job = job_new(&p, &l, &e, g->mode);
    if (!job)
        return false;
    snprintf(job->client, sizeof job->client, "%s", g->owner); /* served fairly among its jobs */
    if (bayesian) {
        job->has_bayes = true;
        job->bayes = choice;
    }
    if (!jobs_submit(job)) {
        job_release(job);
        return false; /* nothing recorded: a retry appraises and chooses afresh */
    }
    /* The move is under way: its emotion (the mood from now on), its choice and the levels of the
     * phase it is played in become the game's. */
    if (affective) {
        g->emotion = now;
        g->has_emotion = true;
        record((void **)&g->emotions, &g->emotion_count, sizeof *g->emotions, &(GameEmotion){g->move_count, now});
    } else if (bayesian)
        record((void **)&g->choices, &g->choice_count, sizeof *g->choices, &(GameChoice){g->move_count, choice});
    GamePhase ph = bayes_phase(&p);
    if (!g->levels[ph] && !affective && (g->levels[ph] = malloc((size_t)BayesParamCount))) {
        if (bayesian)
            models_levels(&choice, g->levels[ph]);
        else
            memset(g->levels[ph], BAYES_DEFAULT_LEVEL, (size_t)BayesParamCount);
    }
    job_retain(job);
    job_add_listener(job, engine_done, g);
    g->thinking = true;
    g->think_ply = g->move_count;
    g->job = job;
    return true;
}

/* A new game's opening moves (UCI or SAN) played from p, so the game and its PGN start with them
 * and repetitions across them count. */
static bool play_opening(ApiError *e, const GameSettings *s, Position *p, Game *g)
{
    if (s->move_count > GAMES_MAX_MOVES / 2) {
        api_error_set(e, 400, "bad_type", "moves", "'moves' must be an array of moves (UCI or SAN, at most %d)",
                      GAMES_MAX_MOVES / 2);
        return false;
    }
    for (int i = 0; i < s->move_count; i++) {
        const char *text = s->moves[i];
        Move mv = text ? move_from_uci(p, text) : MOVE_NONE;
        if (text && !mv)
            mv = san_read(p, text);
        if (!mv) {
            api_error_set(e, 400, "bad_move", "moves", "moves[%d] '%.20s' is not a legal move here", i,
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

Game *games_create(const GameSettings *s, ApiError *e)
{
    Game *g = games_alloc();
    if (!g) {
        api_error_set(e, 503, "overloaded", NULL, "out of memory");
        return NULL;
    }
    bool ignored;
    static Position p;
    char msg[200];
    FenError fe = FEN_OK;
    if (s->mode && strcmp(s->mode, "classical") && strcmp(s->mode, "affective") && strcmp(s->mode, "bayesian"))
        api_error_set(e, 400, "bad_mode", "mode", "mode must be classical, affective or bayesian");
    else if (s->target && !adaptive_parse_target(s->target, &g->target, &g->auto_target))
        api_error_set(e, 400, "bad_target", "target", "target must be auto, aggressive or conservative");
    else if (s->default_target && (!strcmp(s->default_target, "auto") || (s->target && strcmp(s->target, "auto")) ||
                                   !adaptive_parse_target(s->default_target, &g->target, &ignored)))
        api_error_set(e, 400, "bad_target", "defaultTarget",
                      "defaultTarget (with target auto: the target before the opponent's style is known) must be "
                      "aggressive or conservative");
    else if (s->color && strcmp(s->color, "white") && strcmp(s->color, "black") && strcmp(s->color, "random"))
        api_error_set(e, 400, "bad_color", "color", "color must be white, black or random (yours)");
    else if (!games_strength(e, s->level ? s->level : s->elo ? 0 : GAMES_LEVEL_MAX, s->elo, &g->level, &g->elo))
        ; /* e is set */
    else if (s->temperament && !temperament_find(s->temperament))
        api_error_set(e, 400, "bad_temperament", "temperament", "temperament must be one of " TEMPERAMENT_NAMES);
    else if (s->gain && !affective_gain_valid(*s->gain))
        api_error_set(e, 400, "bad_gain", "gain", AFFECTIVE_GAIN_REFUSED);
    else if ((fe = fen_read(&p, s->fen ? s->fen : FEN_STARTPOS, msg, sizeof msg)) != FEN_OK)
        api_error_set(e, 400, fen_error_code(fe), "fen", "%s", msg);
    else if (fen_write(&p, g->initial_fen), !play_opening(e, s, &p, g))
        ; /* e is set */
    else if (position_status(&p) != STATUS_ONGOING)
        api_error_set(e, 400, "game_over", g->move_count ? "moves" : "fen", "this position is already over (%s)",
                      game_status_name(position_status(&p)));
    else
        e->status = 0;
    if (e->status) {
        games_free(g);
        return NULL;
    }
    snprintf(g->mode, sizeof g->mode, "%s", s->mode ? s->mode : "classical");
    g->human = s->color && !strcmp(s->color, "black")    ? BLACK
               : s->color && !strcmp(s->color, "random") ? (Color)(rand() & 1)
                                                         : WHITE;
    g->temperament =
        temperament_at_gain(temperament_find(s->temperament ? s->temperament : "neutral"), s->gain ? *s->gain : -1);
    if (!s->target)
        g->auto_target = true; /* g->target: defaultTarget, or conservative (§6) */
    strcpy(g->status, "started");
    strcpy(g->result, "*");
    g->id[0] = 'g';
    ids_random_hex(g->id + 1, GAMES_ID_LEN - 1); /* 60 random bits */
    ids_random_hex(g->secret, GAMES_SECRET_LEN);
    g->created_ms = clock_wall_ms();
    snprintf(g->owner, sizeof g->owner, "%s", s->owner ? s->owner : "");
    g->may_teach = s->may_teach;
    g->external = s->external;
    insert(g);
    if (p.side != g->human && !g->external && !engine_move(g)) {
        discard(g); /* nothing was created: the client may retry */
        shared_queue_refused(e, "retry shortly");
        return NULL;
    }
    changed(g);
    return g;
}

bool games_resume(Game *g)
{
    if (g->thinking || !games_engine_to_move(g) || engine_move(g))
        return true;
    stall(g);
    return false;
}

int games_retry_stalled(void)
{
    int kept = 0;
    for (int i = 0; i < G.stalled_count; i++) {
        Game *g = G.stalled[i];
        if (!g->thinking && games_engine_to_move(g) && !engine_move(g))
            G.stalled[kept++] = g;
    }
    return G.stalled_count = kept;
}

/* Nothing refers to g: no search, no listener, not pinned, not waiting for a worker. */
bool games_unreferenced(const Game *g)
{
    bool stalled = false;
    for (int k = 0; k < G.stalled_count && !stalled; k++)
        stalled = G.stalled[k] == g;
    return !g->thinking && !g->listener && !g->pinned && !stalled;
}

int games_evict_idle(long long before_ms, bool (*may)(const Game *g))
{
    int evicted = 0;
    for (int i = 0; i < GAMES_TABLE; i++)
        for (Game **at = &G.table[i]; *at;) {
            Game *g = *at;
            if (g->updated_ms < before_ms && games_unreferenced(g) && (!may || may(g))) {
                *at = g->next;
                games_free(g);
                G.count--;
                evicted++;
            } else
                at = &g->next;
        }
    return evicted;
}

Game *games_replace(Game *g, Game *fresh)
{
    if (!games_unreferenced(g) || strcmp(g->id, fresh->id)) {
        games_free(fresh);
        return g;
    }
    /* In place: a reply waiting for a save still holds g, and sees the newer copy. */
    Game *next = g->next;
    free(g->emotions);
    free(g->choices);
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        free(g->levels[ph]);
    *g = *fresh;
    g->next = next;
    free(fresh); /* the shell: what it pointed to is g's now */
    return g;
}

bool games_sync(Game *g, const char *const *uci, int count, ApiError *e)
{
    static Position p;
    if (count > GAMES_MAX_MOVES) {
        api_error_set(e, 409, "game_too_long", NULL, "the game has reached %d moves", GAMES_MAX_MOVES);
        return false;
    }
    fen_read(&p, g->initial_fen, NULL, 0);
    Move moves[GAMES_MAX_MOVES];
    for (int i = 0; i < count; i++) {
        Move m = move_from_uci(&p, uci[i]);
        if (!m) {
            api_error_set(e, 400, "illegal_move", "moves", "move %d, '%.20s', is not legal there", i + 1, uci[i]);
            return false;
        }
        moves[i] = m;
        if (p.stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(&p);
        position_make_move(&p, m);
    }
    if (count == g->move_count && !memcmp(moves, g->moves, (size_t)count * sizeof *moves))
        return true; /* nothing new (a draw offer, a clock) */
    memcpy(g->moves, moves, (size_t)count * sizeof *moves);
    g->move_count = count; /* a search under way for another position finds think_ply changed */
    if (g->engine_move_ply >= count)
        g->engine_move_ply = -1;
    if (g->thinking && g->job) {
        g->think_ply = -1;   /* whatever it finds is not played */
        jobs_cancel(g->job); /* its move is for a position gone: the worker is freed at once */
    }
    changed(g);
    return true;
}

bool games_think(Game *g, const SearchLimits *limits)
{
    if (g->thinking || !games_engine_to_move(g))
        return true;
    g->think_limits = *limits;
    return engine_move(g); /* no worker: the caller asks again with its clock then (never stalled here,
                            * where a retry would search on limits gone stale) */
}

void games_end(Game *g, const char *status, const char *result, const char *reason)
{
    if (games_over(g) && !strcmp(g->status, status))
        return;
    snprintf(g->status, sizeof g->status, "%s", status);
    snprintf(g->result, sizeof g->result, "%s", result);
    snprintf(g->reason, sizeof g->reason, "%s", reason ? reason : "");
    changed(g);
}

bool games_move(Game *g, const char *text, ApiError *e)
{
    static Position p;
    Move m = MOVE_NONE;
    if (games_over(g))
        api_error_set(e, 409, "game_over", NULL, "the game is over (%s)", g->status);
    else if (g->thinking || !games_position(g, &p) || p.side != g->human)
        api_error_set(e, 409, "not_your_turn", NULL, "wait for the engine's move");
    else if (!text)
        api_error_set(e, 400, "bad_move", "move", "send {\"move\": \"e2e4\"} (UCI; SAN is read too)");
    else if (!(m = move_from_uci(&p, text)) && !(m = san_read(&p, text)))
        api_error_set(e, 400, "illegal_move", "move", "'%.20s' is not a legal move here", text);
    else if (g->move_count >= GAMES_MAX_MOVES)
        api_error_set(e, 409, "game_too_long", NULL, "the game has reached %d moves", GAMES_MAX_MOVES);
    else
        e->status = 0;
    if (e->status)
        return false;
    g->moves[g->move_count++] = m;
    position_make_move(&p, m);
    update_status(g, &p);
    if (!games_over(g) && !engine_move(g)) {
        g->move_count--; /* nothing changed: the client may retry */
        shared_queue_refused(e, "retry the move shortly");
        return false;
    }
    changed(g);
    return true;
}

bool games_resign(Game *g, ApiError *e)
{
    if (games_over(g)) {
        api_error_set(e, 409, "game_over", NULL, "the game is already over (%s)", g->status);
        return false;
    }
    strcpy(g->status, "resign");
    strcpy(g->result, g->human == WHITE ? "0-1" : "1-0");
    snprintf(g->reason, sizeof g->reason, "%s resigned", g->human == WHITE ? "white" : "black");
    changed(g);
    return true;
}

bool games_takeback(Game *g, ApiError *e)
{
    int n = g->move_count;
    if (games_over(g)) {
        api_error_set(e, 409, "game_over", NULL, "the game is over (%s): start a new one from its moves", g->status);
        return false;
    }
    if (g->thinking) {
        api_error_set(e, 409, "not_your_turn", NULL, "wait for the engine's move, then take back");
        return false;
    }
    int keep = n; /* back to the last position where the human was to move */
    do
        keep--;
    while (keep >= 0 && side_after(g, keep) != g->human);
    if (keep < 0) {
        api_error_set(e, 409, "nothing_to_take_back", NULL, "you have not moved yet");
        return false;
    }
    g->move_count = keep;
    while (g->emotion_count && g->emotions[g->emotion_count - 1].ply >= keep)
        g->emotion_count--;
    while (g->choice_count && g->choices[g->choice_count - 1].ply >= keep)
        g->choice_count--;
    if (g->emotion_count) /* the mood goes back to the last emotion still in the game */
        g->emotion = g->emotions[g->emotion_count - 1].emotion;
    else
        g->has_emotion = false;
    changed(g);
    return true;
}

/* What the engine felt or chose before its move at `ply`, as a PGN comment (NULL if nothing):
 * "relief 0.31, goal attack, intensity 0.31" in affective mode; "target conservative, phase
 * middlegame, opponent attacking" in Bayesian mode. */
static char *move_comment(const Game *g, int ply)
{
    char text[256] = "";
    for (int i = 0; i < g->emotion_count; i++)
        if (g->emotions[i].ply == ply) {
            const Emotion *e = &g->emotions[i].emotion;
            double relief = e->c[CONCEPT_RELIEF];
            snprintf(text, sizeof text, "%s %.2f, goal %s, intensity %.2f", affective_label(CONCEPT_RELIEF, relief),
                     relief, Goals[e->goal].name, e->intensity);
        }
    for (int i = 0; i < g->choice_count; i++)
        if (g->choices[i].ply == ply) {
            const BayesChoice *c = &g->choices[i].choice;
            int n = snprintf(text, sizeof text, "target %s, phase %s", BayesTargetNames[c->target],
                             GamePhaseNames[c->phase]);
            if (c->has_style && n > 0 && (size_t)n < sizeof text)
                snprintf(text + n, sizeof text - (size_t)n, ", opponent %s", StyleNames[c->style]);
        }
    return text[0] ? strdup(text) : NULL;
}

char *games_pgn(const Game *g)
{
    PgnGame pg;
    memset(&pg, 0, sizeof pg);
    char date[16] = "????.??.??";
    time_t created = (time_t)(g->created_ms / 1000);
    struct tm tm;
    if (g->created_ms > 0 && gmtime_r(&created, &tm))
        strftime(date, sizeof date, "%Y.%m.%d", &tm);
    pgn_game_add_tag(&pg, "Event", g->external ? (g->event[0] ? g->event : "feelfish bot game") : "feelfish game");
    pgn_game_add_tag(&pg, "Site", g->external && g->site[0] ? g->site : "feelfish");
    pgn_game_add_tag(&pg, "Date", date);
    pgn_game_add_tag(&pg, "White", g->external ? g->white : g->human == WHITE ? "You" : "feelfish");
    pgn_game_add_tag(&pg, "Black", g->external ? g->black : g->human == BLACK ? "You" : "feelfish");
    if (g->external && g->white_title[0])
        pgn_game_add_tag(&pg, "WhiteTitle", g->white_title);
    if (g->external && g->black_title[0])
        pgn_game_add_tag(&pg, "BlackTitle", g->black_title);
    if (g->external && g->time_control[0])
        pgn_game_add_tag(&pg, "TimeControl", g->time_control);
    /* The engine's side carries the rating it played at (none at full strength), as a rated
     * player's would; the mode tag names the level and, where one was asked, the rating. */
    char level[80], elo[16];
    if (g->elo)
        snprintf(level, sizeof level, "%s, level %d, rating %d", g->mode, g->level, g->elo);
    else
        snprintf(level, sizeof level, "%s, level %d", g->mode, g->level);
    if (!g->external && g->elo) {
        snprintf(elo, sizeof elo, "%d", g->elo);
        pgn_game_add_tag(&pg, g->human == WHITE ? "BlackElo" : "WhiteElo", elo);
    }
    pgn_game_add_tag(&pg, "FeelfishMode", level);
    if (strcmp(g->initial_fen, FEN_STARTPOS))
        pg.start_fen = strdup(g->initial_fen);
    static Position p;
    fen_read(&p, g->initial_fen, NULL, 0);
    for (int i = 0; i < g->move_count; i++) {
        PgnMove *m = pgn_game_add_move(&pg);
        m->move = g->moves[i];
        san_write(&p, g->moves[i], m->san);
        if (p.side != g->human)
            m->comment = move_comment(g, i);
        if (p.stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(&p);
        position_make_move(&p, g->moves[i]);
    }
    snprintf(pg.result, sizeof pg.result, "%s", g->result);
    char *text = pgn_write(&pg);
    pgn_game_free(&pg);
    return text;
}

void games_init(const GameHooks *hooks) { G.hooks = *hooks; }

void games_shutdown(void)
{
    free(G.stalled);
    G.stalled = NULL;
    G.stalled_count = G.stalled_room = 0;
    for (int i = 0; i < GAMES_TABLE; i++)
        for (Game *g = G.table[i], *next; g; g = next) {
            next = g->next;
            games_free(g);
        }
    memset(G.table, 0, sizeof G.table);
    G.count = 0;
}
