/* Stored games back into Games: see decode.h. */
#include "decode.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static double real_at(json_t *o, const char *key) { return json_number_value(json_object_get(o, key)); }

static int name_index(const char *name, const char *const *names, int n)
{
    for (int i = 0; name && i < n; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

static bool decode_emotion(json_t *o, Emotion *e)
{
    memset(e, 0, sizeof *e);
    const char *goal = json_string_value(json_object_get(o, "goal"));
    e->goal = -1;
    for (int i = 0; goal && i < GoalCount; i++)
        if (!strcmp(goal, Goals[i].name))
            e->goal = i;
    if (e->goal < 0)
        return false;
    e->c[CONCEPT_RELIEF] = real_at(o, "relief");
    e->c[CONCEPT_DESIRABILITY] = real_at(o, "desirability");
    e->c[CONCEPT_AROUSAL] = real_at(o, "arousal");
    e->intensity = real_at(o, "intensity");
    static const char *const Terms[AFFECTIVE_TERM_NB] = {"material", "mobility", "kingSafety", "oppKingExposure"};
    static const Concept Inputs[AFFECTIVE_TERM_NB] = {CONCEPT_MATERIAL, CONCEPT_MOBILITY, CONCEPT_KING_SAFETY,
                                                      CONCEPT_OPP_KING_EXPOSURE};
    json_t *factors = json_object_get(o, "factors"), *inputs = json_object_get(o, "inputs");
    for (int i = 0; i < AFFECTIVE_TERM_NB; i++) {
        e->factor[i] = real_at(factors, Terms[i]);
        e->c[Inputs[i]] = real_at(inputs, Terms[i]);
    }
    return true;
}

static int feature_value(StyleFeature f, const char *name)
{
    for (int v = 0; name && v < StyleFeatureValues[f]; v++)
        if (!strcmp(name, style_value_name(f, v)))
            return v;
    return 0;
}

static bool decode_choice(json_t *o, BayesChoice *c)
{
    memset(c, 0, sizeof *c);
    int phase = name_index(json_string_value(json_object_get(o, "phase")), GamePhaseNames, BAYES_PHASE_NB);
    int target = name_index(json_string_value(json_object_get(o, "target")), BayesTargetNames, BAYES_TARGET_NB);
    if (phase < 0 || target < 0)
        return false;
    c->phase = (GamePhase)phase;
    c->target = (BayesTarget)target;
    const char *reason = json_string_value(json_object_get(o, "reason"));
    snprintf(c->reason, sizeof c->reason, "%s", reason ? reason : "");
    c->games = (uint64_t)json_integer_value(json_object_get(o, "gamesLearned"));
    c->changed = (int)json_integer_value(json_object_get(o, "changedParams"));
    json_t *style = json_object_get(o, "style");
    int s = name_index(json_string_value(json_object_get(style, "style")), StyleNames, STYLE_NB);
    if (s >= 0) {
        c->has_style = true;
        c->style = (Style)s;
        json_t *posterior = json_object_get(style, "posterior"), *f = json_object_get(style, "features");
        for (int k = 0; k < STYLE_NB; k++)
            c->posterior[k] = real_at(posterior, StyleNames[k]);
        c->features.value[STYLE_F_FIRST_MOVE] =
            (uint8_t)feature_value(STYLE_F_FIRST_MOVE, json_string_value(json_object_get(f, "firstMove")));
        c->features.value[STYLE_F_CASTLING] =
            (uint8_t)feature_value(STYLE_F_CASTLING, json_string_value(json_object_get(f, "castling")));
        c->features.pieces = (uint8_t)json_integer_value(json_object_get(f, "pieces"));
        c->features.pawns = (uint8_t)json_integer_value(json_object_get(f, "pawns"));
    }
    return true;
}

/* Each record of a stored history array, with its ply; false if one does not read. */
static bool decode_history(json_t *array, void **out, int *count, size_t size, size_t ply_offset,
                           bool (*decode)(json_t *, void *))
{
    *out = calloc(json_array_size(array) + 1, size); /* an empty history is still a history */
    if (!*out)
        return false;
    size_t i;
    json_t *rec;
    json_array_foreach(array, i, rec)
    {
        char *item = (char *)*out + (size_t)*count * size;
        if (!decode(rec, item))
            return false;
        *(int *)(item + ply_offset) = (int)json_integer_value(json_object_get(rec, "ply"));
        (*count)++;
    }
    return true;
}

static bool decode_emotion_record(json_t *o, void *item) { return decode_emotion(o, &((GameEmotion *)item)->emotion); }
static bool decode_choice_record(json_t *o, void *item) { return decode_choice(o, &((GameChoice *)item)->choice); }

int decode_asked_number(const json_t *v, long lo, long hi)
{
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    return (int)json_integer_value(v);
}

Game *decode_game(json_t *o)
{
    Game *g = games_alloc();
    if (!g)
        return NULL;
    const char *id = json_string_value(json_object_get(o, "id")), *mode = json_string_value(json_object_get(o, "mode"));
    const char *color = json_string_value(json_object_get(o, "color"));
    const char *fen = json_string_value(json_object_get(o, "initialFen"));
    const char *status = json_string_value(json_object_get(o, "status"));
    const char *result = json_string_value(json_object_get(o, "result"));
    const char *reason = json_string_value(json_object_get(o, "reason"));
    if (!id || !mode || !color || !fen || !status || !result)
        goto bad;
    snprintf(g->id, sizeof g->id, "%s", id);
    const char *full = json_string_value(json_object_get(o, "fullId"));
    if (full && strlen(full) == GAMES_ID_LEN + GAMES_SECRET_LEN && !strncmp(full, id, GAMES_ID_LEN))
        snprintf(g->secret, sizeof g->secret, "%s", full + GAMES_ID_LEN);
    /* else a game stored before games had owners: it can be watched, no longer played */
    snprintf(g->mode, sizeof g->mode, "%s", mode);
    g->human = !strcmp(color, "black") ? BLACK : WHITE;
    g->level = (int)json_integer_value(json_object_get(o, "level"));
    json_t *elo = json_object_get(o, "elo"); /* stored since games had ratings; before, the level's */
    g->elo = json_is_integer(elo)                                              ? (int)json_integer_value(elo)
             : json_is_null(elo) || g->level < 1 || g->level > GAMES_LEVEL_MAX ? 0
                                                                               : GamesLevelElo[g->level];
    const Temperament *temperament = temperament_find(json_string_value(json_object_get(o, "temperament")));
    json_t *gain = json_object_get(o, "gain"); /* stored since games could ask for one */
    if (temperament)
        g->temperament = temperament_at_gain(temperament, json_is_number(gain) ? json_number_value(gain) : -1);
    snprintf(g->initial_fen, sizeof g->initial_fen, "%s", fen);
    snprintf(g->status, sizeof g->status, "%s", status);
    snprintf(g->result, sizeof g->result, "%s", result);
    snprintf(g->reason, sizeof g->reason, "%s", reason ? reason : "");
    g->created_ms = json_integer_value(json_object_get(o, "createdMs"));
    g->updated_ms = json_integer_value(json_object_get(o, "updatedMs"));
    if (!temperament || g->level < 1 || g->level > GAMES_LEVEL_MAX || g->elo < 0)
        goto bad; /* (a rating outside today's range is played at its end: strength_of) */
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
    if (json_is_array(emotions) &&
        !decode_history(emotions, (void **)&g->emotions, &g->emotion_count, sizeof *g->emotions,
                        offsetof(GameEmotion, ply), decode_emotion_record))
        goto bad;
    const char *target = json_string_value(json_object_get(o, "target"));
    const char *default_target = json_string_value(json_object_get(o, "defaultTarget"));
    bool ignored;
    if (!adaptive_parse_target(target ? target : "auto", &g->target, &g->auto_target) ||
        (g->auto_target && default_target && !adaptive_parse_target(default_target, &g->target, &ignored)))
        goto bad;
    json_t *history = json_object_get(o, "bayesianHistory");
    if (json_is_array(history) && !decode_history(history, (void **)&g->choices, &g->choice_count, sizeof *g->choices,
                                                  offsetof(GameChoice, ply), decode_choice_record))
        goto bad;
    g->learned = json_is_true(json_object_get(o, "learned"));
    const char *not_learned = json_string_value(json_object_get(o, "notLearned"));
    const char *owner = json_string_value(json_object_get(o, "owner"));
    snprintf(g->not_learned, sizeof g->not_learned, "%s", not_learned ? not_learned : "");
    snprintf(g->owner, sizeof g->owner, "%s", owner ? owner : "");
    g->may_teach = json_is_true(json_object_get(o, "mayTeach"));
    json_t *external = json_object_get(o, "external");
    if (json_is_object(external)) {
        g->external = true;
        const char *const keys[] = {"white", "black", "site", "whiteTitle", "blackTitle", "timeControl", "event"};
        char *fields[] = {g->white, g->black, g->site, g->white_title, g->black_title, g->time_control, g->event};
        const size_t sizes[] = {sizeof g->white,       sizeof g->black,        sizeof g->site, sizeof g->white_title,
                                sizeof g->black_title, sizeof g->time_control, sizeof g->event};
        for (int k = 0; k < 7; k++) {
            const char *v = json_string_value(json_object_get(external, keys[k]));
            snprintf(fields[k], sizes[k], "%s", v ? v : "");
        }
    }
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
    games_free(g);
    return NULL;
}

bool decode_bayes_model(json_t *j, BayesModel *m, char *err, size_t size)
{
    bayes_model_clear(m);
    if (!json_is_object(j) || !json_is_string(json_object_get(j, "format")) ||
        strcmp(json_string_value(json_object_get(j, "format")), "feelfish-bayes")) {
        snprintf(err, size, "not a feelfish Bayesian model: \"format\" must be \"feelfish-bayes\"");
        return false;
    }
    if (json_integer_value(json_object_get(j, "version")) != 1) {
        snprintf(err, size, "unsupported model version (this build reads version 1)");
        return false;
    }
    json_t *games = json_object_get(j, "games"), *records = json_object_get(j, "records"),
           *params = json_object_get(j, "params");
    if (!json_is_integer(games) || json_integer_value(games) < 0 || !json_is_object(records) ||
        !json_is_object(params)) {
        snprintf(err, size, "the model needs \"games\" (a count), \"records\" and \"params\" objects");
        return false;
    }
    m->games = (uint64_t)json_integer_value(games);
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        for (int r = 0; r < BAYES_RESULT_NB; r++) {
            json_t *n = json_object_get(json_object_get(records, GamePhaseNames[ph]), GameResultNames[r]);
            if (!json_is_integer(n) || json_integer_value(n) < 0) {
                snprintf(err, size, "records.%s.%s must be a count", GamePhaseNames[ph], GameResultNames[r]);
                return false;
            }
            m->records[ph][r] = (uint64_t)json_integer_value(n);
        }
    const char *name;
    json_t *p;
    json_object_foreach(params, name, p)
    {
        int i = bayes_param_find(name);
        if (i < 0)
            continue; /* a parameter this version does not have */
        for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
            for (int r = 0; r < BAYES_RESULT_NB; r++) {
                json_t *n = json_object_get(json_object_get(p, GamePhaseNames[ph]), GameResultNames[r]);
                if (!n)
                    continue;
                if (!json_is_array(n) || json_array_size(n) != BAYES_LEVELS) {
                    snprintf(err, size, "params.%s.%s.%s must be an array of %d counts (an export with full counts)",
                             name, GamePhaseNames[ph], GameResultNames[r], BAYES_LEVELS);
                    return false;
                }
                for (int l = 0; l < BAYES_LEVELS; l++) {
                    json_t *c = json_array_get(n, (size_t)l);
                    if (!json_is_integer(c) || json_integer_value(c) < 0 || json_integer_value(c) > UINT32_MAX) {
                        snprintf(err, size, "params.%s.%s.%s[%d] must be a count", name, GamePhaseNames[ph],
                                 GameResultNames[r], l);
                        return false;
                    }
                    m->counts[bayes_model_count_index(i, ph, r, l)] = (uint32_t)json_integer_value(c);
                }
            }
    }
    return true;
}
