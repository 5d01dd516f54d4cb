/* The API's JSON shapes: see encode.h. */
#include "encode.h"

#include "../base/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../engine/core/rules.h"

json_t *encode_error(const ApiError *e)
{
    json_t *err = json_pack("{s:s, s:s}", "code", e->code, "message", e->message);
    if (e->field[0])
        json_object_set_new(err, "field", json_string(e->field));
    return err;
}

/* A shape the engine writes as text (emotion, choice, style), as a value. */
static json_t *from_engine_text(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    return v ? v : json_null();
}

json_t *encode_emotion(const Emotion *e)
{
    char text[1024];
    return from_engine_text(affective_json(e, text, sizeof text));
}

json_t *encode_choice(const BayesChoice *c)
{
    char text[2048];
    return from_engine_text(adaptive_choice_text(c, text, sizeof text));
}

json_t *encode_style(Style s, const double posterior[STYLE_NB], const StyleFeatures *f)
{
    char text[1024];
    return from_engine_text(style_json(s, posterior, f, text, sizeof text));
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
        json_object_set_new(o, "cp", json_integer(search_cp(white)));
}

json_t *encode_line(Position *p, const SearchInfo *info, bool with_moves)
{
    json_t *o = json_object(), *uci = json_array(), *san = json_array();
    int made = 0;
    for (int i = 0; i < info->pv_length; i++) {
        /* A line is shown only as far as its moves are legal: a move that is not (a PV's tail
         * gone stale) is never made, since making it could take a king. */
        if (!movegen_is_legal(p, info->pv[i])) {
            log_msg(LOG_DEBUG, "a principal variation's move %d is not legal: the line is cut there", i + 1);
            break;
        }
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

json_t *encode_info(const Job *job, const SearchInfo *info)
{
    static __thread Position scratch;
    position_copy(&scratch, job->pos);
    json_t *o = encode_line(&scratch, info, false);
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
        json_object_set_new(o, "emotion", encode_emotion(&job->emotion));
    if (job->has_bayes)
        json_object_set_new(o, "bayesian", encode_choice(&job->bayes));
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
        json_array_append_new(pvs, encode_line(p, &r->line[i], true));
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
    json_t *terms = json_object(); /* in reported centipawns; the total is the sum of the terms shown */
    int total = 0;
    for (int g = 0; g < EVAL_GROUP_NB; g++) {
        total += search_cp(t.group[g]);
        json_object_set_new(terms, EvalGroupNames[g], json_integer(search_cp(t.group[g])));
    }
    json_object_set_new(terms, "total", json_integer(total));
    json_object_set_new(o, "terms", terms);
    return o;
}

json_t *encode_analysis(const Position *pos, const char *mode, const SearchResult *r, const SearchResult *classical,
                        const Emotion *emotion, const BayesChoice *choice)
{
    static __thread Position scratch;
    position_copy(&scratch, pos);
    char fen[FEN_BUFFER_SIZE], u[MOVE_STRING_SIZE], s[SAN_STRING_SIZE];
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:I}", "fen", fen_write(&scratch, fen), "mode", mode, "depth",
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
        json_array_append_new(pvs, encode_line(&scratch, &r->line[i], true));
    json_object_set_new(o, "pvs", pvs);
    if (emotion)
        json_object_set_new(o, "emotion", encode_emotion(emotion));
    if (choice)
        json_object_set_new(o, "bayesian", encode_choice(choice));
    if (classical)
        json_object_set_new(o, "compare",
                            json_pack("{s:o, s:o}", "classical", compare_side(&scratch, classical), "affective",
                                      compare_side(&scratch, r)));
    return o;
}

json_t *encode_job_status(const char *id, const char *status)
{
    return json_pack("{s:s, s:s}", "id", id, "status", status);
}

json_t *encode_result(const Job *job, const SearchResult *r, const SearchResult *classical, JobStatus status)
{
    json_t *o = encode_job_status(job->id, JobStatusNames[status]);
    if (r) {
        json_t *body = encode_analysis(job->pos, job->mode, r, classical, job->has_emotion ? &job->emotion : NULL,
                                       job->has_bayes ? &job->bayes : NULL);
        json_object_update(o, body);
        json_decref(body);
    }
    return o;
}

json_t *encode_game(const Game *g, GameView view)
{
    static Position p;
    json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:f, s:s, s:s, s:s, s:I, s:I, s:b}", "id", g->id, "mode", g->mode,
                          "color", g->human == WHITE ? "white" : "black", "level", g->level, "temperament",
                          g->temperament.name, "gain", g->temperament.gain, "initialFen", g->initial_fen, "status",
                          g->status, "result", g->result, "createdMs", (json_int_t)g->created_ms, "updatedMs",
                          (json_int_t)g->updated_ms, "thinking", g->thinking);
    json_object_set_new(o, "elo", g->elo ? json_integer(g->elo) : json_null()); /* null: full strength */
    if (g->reason[0])
        json_object_set_new(o, "reason", json_string(g->reason));
    if (view != GAME_FOR_ANYONE) {
        char full[GAMES_ID_LEN + GAMES_SECRET_LEN + 1];
        snprintf(full, sizeof full, "%s%s", g->id, g->secret);
        json_object_set_new(o, "fullId", json_string(full));
    }
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
    if (g->emotions) {
        json_t *emotions = json_array();
        for (int i = 0; i < g->emotion_count; i++) {
            json_t *rec = encode_emotion(&g->emotions[i].emotion);
            json_object_set_new(rec, "ply", json_integer(g->emotions[i].ply));
            json_array_append_new(emotions, rec);
        }
        json_object_set_new(o, "emotions", emotions);
    }
    if (!strcmp(g->mode, "bayesian")) {
        json_object_set_new(o, "target", json_string(g->auto_target ? "auto" : BayesTargetNames[g->target]));
        json_object_set_new(o, "defaultTarget", json_string(BayesTargetNames[g->target]));
        json_t *history = json_array();
        for (int i = 0; i < g->choice_count; i++) {
            json_t *rec = encode_choice(&g->choices[i].choice);
            json_object_set_new(rec, "ply", json_integer(g->choices[i].ply));
            json_array_append_new(history, rec);
        }
        json_object_set_new(o, "bayesianHistory", history);
        size_t n = json_array_size(history);
        json_object_set(o, "bayesian", n ? json_array_get(history, n - 1) : json_null());
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
    if (g->not_learned[0])
        json_object_set_new(o, "notLearned", json_string(g->not_learned));
    if (g->external) /* played elsewhere (the Lichess bot): who, and where */
        json_object_set_new(o, "external",
                            json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "white", g->white, "black", g->black,
                                      "site", g->site, "whiteTitle", g->white_title, "blackTitle", g->black_title,
                                      "timeControl", g->time_control, "event", g->event));
    if (view == GAME_FOR_STORAGE) {
        json_object_set_new(o, "owner", json_string(g->owner));
        json_object_set_new(o, "mayTeach", json_boolean(g->may_teach));
    }
    return o;
}

json_t *encode_lab(LabAlgorithm a, const LabResult *r, int64_t time_ms)
{
    char u[MOVE_STRING_SIZE];
    json_t *o = json_pack("{s:s, s:i, s:s, s:I, s:I, s:I, s:b}", "algorithm", LabAlgorithmNames[a], "value", r->value,
                          "bestMove", move_to_uci(r->best, u), "nodes", (json_int_t)r->nodes, "leaves",
                          (json_int_t)r->leaves, "timeMs", (json_int_t)time_ms, "complete", r->complete);
    if (lab_makes_passes(a))
        json_object_set_new(o, "passes", json_integer(r->passes));
    return o;
}

json_t *encode_bayes_curve(const BayesModel *m, const BayesCurvePoint *changes, int nchanges,
                           const BayesMatchPoint *matches, int nmatches)
{
    json_t *c = json_array(), *x = json_array();
    for (int i = 0; i < nchanges; i++)
        json_array_append_new(c, json_pack("{s:I, s:{s:i, s:i}}", "games", (json_int_t)changes[i].games,
                                           "changedParams", BayesTargetNames[TARGET_AGGRESSIVE],
                                           changes[i].changed[TARGET_AGGRESSIVE], BayesTargetNames[TARGET_CONSERVATIVE],
                                           changes[i].changed[TARGET_CONSERVATIVE]));
    for (int i = 0; i < nmatches; i++) {
        const BayesMatchPoint *p = &matches[i];
        long n = (long)p->wins + p->draws + p->losses;
        json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:I}", "games", (json_int_t)p->games, "target",
                              p->target, "rule", p->rule, "records", p->records, "control", p->control, "wins", p->wins,
                              "draws", p->draws, "losses", p->losses, "at", (json_int_t)p->created_ms);
        json_object_set_new(o, "score", n ? json_real((p->wins + 0.5 * p->draws) / (double)n) : json_null());
        json_object_set_new(o, "elo", isfinite(p->elo) ? json_real(round(p->elo * 10) / 10) : json_null());
        json_object_set_new(o, "eloMargin",
                            isfinite(p->elo_margin) ? json_real(round(p->elo_margin * 10) / 10) : json_null());
        json_array_append_new(x, o);
    }
    return json_pack("{s:I, s:I, s:s, s:o, s:o}", "games", (json_int_t)m->games, "gamesStored",
                     (json_int_t)(nchanges ? changes[nchanges - 1].games : 0), "rule", bayes_rule_name(m->evidence_z),
                     "changes", c, "matches", x);
}

json_t *encode_bayes_model(const BayesModel *m, bool full)
{
    json_t *records = json_object(), *params = json_object(), *levels = json_array();
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++) {
        json_t *row = json_object();
        for (int r = 0; r < BAYES_RESULT_NB; r++)
            json_object_set_new(row, GameResultNames[r], json_integer((json_int_t)m->records[ph][r]));
        json_object_set_new(records, GamePhaseNames[ph], row);
    }
    for (int l = 0; l < BAYES_LEVELS; l++)
        json_array_append_new(levels, json_real(BayesFactors[l]));
    uint8_t *sel[BAYES_PHASE_NB][BAYES_TARGET_NB] = {{0}};
    int changed[BAYES_PHASE_NB][BAYES_TARGET_NB] = {{0}};
    json_t *selected = json_object();
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++) {
        json_t *row = json_object();
        for (int t = 0; t < BAYES_TARGET_NB; t++) {
            sel[ph][t] = malloc((size_t)BayesParamCount);
            changed[ph][t] = sel[ph][t] ? bayes_select(m, ph, t, sel[ph][t]) : 0;
            json_object_set_new(row, BayesTargetNames[t], json_integer(changed[ph][t]));
        }
        json_object_set_new(selected, GamePhaseNames[ph], row);
    }
    for (int i = 0; i < BayesParamCount; i++) {
        json_t *p = json_object();
        for (int ph = 0; ph < BAYES_PHASE_NB; ph++) {
            json_t *row = json_object();
            if (full)
                for (int r = 0; r < BAYES_RESULT_NB; r++) {
                    json_t *n = json_array();
                    for (int l = 0; l < BAYES_LEVELS; l++)
                        json_array_append_new(n, json_integer(m->counts[bayes_model_count_index(i, ph, r, l)]));
                    json_object_set_new(row, GameResultNames[r], n);
                }
            else
                for (int t = 0; t < BAYES_TARGET_NB; t++)
                    if (sel[ph][t])
                        json_object_set_new(row, BayesTargetNames[t], json_real(BayesFactors[sel[ph][t][i]]));
            json_object_set_new(p, GamePhaseNames[ph], row);
        }
        json_object_set_new(params, BayesParams[i].name, p);
    }
    for (int ph = 0; ph < BAYES_PHASE_NB; ph++)
        for (int t = 0; t < BAYES_TARGET_NB; t++)
            free(sel[ph][t]);
    return json_pack("{s:s, s:i, s:I, s:I, s:o, s:o, s:i, s:o, s:s, s:o}", "format", "feelfish-bayes", "version", 1,
                     "games", (json_int_t)m->games, "updated", (json_int_t)m->updated_ms, "records", records, "levels",
                     levels, "parameters", BayesParamCount, "changedFromDefault", selected, "detail",
                     full ? "counts" : "selected", "params", params);
}

json_t *encode_bot_status(const BotStatus *s)
{
    json_t *games = json_array();
    for (int i = 0; i < s->games_now; i++) {
        const BotGameView *v = &s->games[i];
        json_t *g = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:i, s:s, s:s}", "id", v->id, "url", v->url, "game",
                              v->game, "opponent", v->opponent, "opponentBot", v->opponent_bot, "color", v->color,
                              "plies", v->plies, "fen", v->fen, "status", v->status);
        if (v->job[0])
            json_object_set_new(g, "job", json_string(v->job));
        json_array_append_new(games, g);
    }
    json_t *errors = json_array();
    for (int i = 0; i < s->error_count; i++)
        json_array_append_new(errors, json_string(s->errors[i]));
    json_t *o = json_pack(
        "{s:b, s:b, s:s, s:s, s:s, s:o, s:{s:i, s:i, s:i, s:i}, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:o}", "running",
        s->running, "connected", s->connected, "account", s->account, "url", s->url, "mode", s->mode, "games", games,
        "record", "wins", s->wins, "losses", s->losses, "draws", s->draws, "aborted", s->aborted, "counts", "moves",
        (json_int_t)s->moves, "challengesAccepted", (json_int_t)s->challenges_accepted, "challengesDeclined",
        (json_int_t)s->challenges_declined, "reconnects", (json_int_t)s->reconnects, "rateLimited",
        (json_int_t)s->rate_limited, "calls", (json_int_t)s->calls, "errors", errors);
    if (s->fatal[0])
        json_object_set_new(o, "fatal", json_string(s->fatal));
    json_t *queue = json_array();
    for (int i = 0; i < s->queued && i < BOT_QUEUE_SHOWN; i++)
        json_array_append_new(queue, json_string(s->queue[i]));
    json_object_set_new(o, "challengeQueue", queue);
    json_object_set_new(o, "matchmaking",
                        json_pack("{s:I, s:s?}", "sent", (json_int_t)s->challenges_sent, "waiting",
                                  s->challenge_waiting[0] ? s->challenge_waiting : NULL));
    if (s->has_style)
        json_object_set_new(o, "opponentStyle",
                            json_pack("{s:s, s:s}", "opponent", s->style_opponent, "style", s->style));
    return o;
}
