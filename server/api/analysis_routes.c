/* Analysis over REST: POST /api/analyse (answers when done), jobs (POST, GET, DELETE), Lichess's
 * cloud-eval shape; and the hooks that render a job's events (on its worker) and store finished
 * results. */
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/log.h"
#include "../domain/shared.h"
#include "../jobs/cluster.h"
#include "api.h"
#include "auth.h"
#include "eval_cache.h"
#include "game_analysis.h"
#include "job_wait.h"
#include "persist.h"
#include "encode.h"
#include "quota.h"
#include "reply.h"
#include "request.h"
#include "routes.h"
#include "saves.h"

/* ---- jobs' events ---- */

static void *render_info(const Job *job, const SearchInfo *info) { return encode_info(job, info); }

static void *render_result(const Job *job, const SearchResult *r, const SearchResult *classical, JobStatus status)
{
    return encode_result(job, r, classical, status);
}

static void free_rendered(void *rendered) { json_decref(rendered); }

static void on_job_event(Job *job, const JobEvent *ev)
{
    /* A finished result is stored (unless nobody can ask for it); so is the end of a queued job that was cancelled
     * (DELETE, its timeout), which must not run again at the next start. One cut short by a shutdown stays queued: the
     * next start runs it again. */
    bool ended = ev->kind == JOB_EVENT_FINAL && !job->unlisted &&
                 (job->status == JOB_DONE || (job->status == JOB_CANCELLED && job->durable && !ev->stopping));
    if (ended)
        persist_job(job->id, job->client, JobStatusNames[job->status], job->created_ms, job->finished_ms,
                    api_dumps(ev->rendered, false));
    else if (ev->kind == JOB_EVENT_STARTED && job->durable && shared_on()) {
        json_t *live = encode_job_status(job->id, "running");
        char *text = api_dumps(live, false);
        json_decref(live);
        if (text)
            persist_job_live(job->id, text); /* what the cluster's other fronts answer meanwhile */
        free(text);
    }
}

static void *rendered_from_text(const char *text, size_t len) { return json_loadb(text, len, 0, NULL); }

const JobHooks ApiJobHooks = {.render_info = render_info,
                              .render_result = render_result,
                              .free_rendered = free_rendered,
                              .on_event = on_job_event,
                              .rendered_from_text = rendered_from_text,
                              .cluster_ready = shared_up};

/* ---- a request waiting for its job ---- */

typedef void (*Shape)(Request *r, Job *job, json_t *result);

/* How a finished analysis is answered (the job_wait argument). */
typedef struct {
    Shape shape;
} Answer;

typedef struct {
    Job *job;
    Shape shape;
} Saving;

static void release_saving(void *arg)
{
    Saving *s = arg;
    job_release(s->job);
    free(s);
}

/* The result is committed (or could not be): the request gets it in its shape. */
static void answer_saved(Request *r, bool ok, void *arg)
{
    Saving *s = arg;
    if (ok)
        s->shape(r, s->job, s->job->result);
    else
        saves_reply_unavailable(r);
    release_saving(s);
}

static void answer_cloud_eval(Request *r, Job *job, json_t *result);
static void cloud_cache_put(Job *job);

/* The end of a job: a finished result is answered once it is stored, anything else with a 503. */
static void analysed(Request *r, Job *job, const JobEvent *final, void *arg)
{
    (void) final;
    const Answer *how = arg;
    if (job->status == JOB_DONE) {
        Saving *s = malloc(sizeof *s);
        if (!s)
            abort();
        *s = (Saving){job, how->shape};
        job_retain(job);
        if (how->shape == answer_cloud_eval)
            cloud_cache_put(job);
        saves_wait(r, job->id, answer_saved, s, release_saving);
        return;
    }
    api_reply_fail(r, 503, "cancelled", NULL, "the analysis was stopped before it finished (server shutting down?)");
    http_resume(r);
}

/* Validates body (consumed) into a job and queues it; NULL when the request already has its error
 * answer. With `shape`, the request then waits, suspended, for the job's final event. */
static Job *start_analysis(Request *r, json_t *body, Answer *how)
{
    ApiError e;
    Job *job = request_start(&e, body, false, r->client, 0);
    json_decref(body);
    if (!job) {
        api_reply_error(r, &e);
        return NULL;
    }
    if (how)
        job_wait(r, job, analysed, how);
    return job;
}

static void answer_result(Request *r, Job *job, json_t *result)
{
    (void)job;
    api_reply_json(r, 200, json_incref(result));
}

static Answer AsResult = {answer_result};

void analysis_analyse(Request *r, const char *param)
{
    (void)param;
    json_t *body = api_parse_body(r);
    if (body)
        start_analysis(r, body, &AsResult);
}

static void answer_queued(Request *r, bool ok, void *arg)
{
    Job *job = arg;
    if (ok)
        api_reply_json(r, 202, encode_job_status(job->id, "queued"));
    else {
        jobs_cancel(job); /* not acknowledged: it does not run either */
        saves_reply_unavailable(r);
    }
    job_release(job);
}

static void release_job(void *arg) { job_release(arg); }

/* A queued job is stored with its request before it is acknowledged, so a restart runs it again. */
void analysis_job_create(Request *r, const char *param)
{
    (void)param;
    json_t *body = api_parse_body(r);
    char *request = body ? api_dumps(body, false) : NULL;
    Job *job = body ? start_analysis(r, body, NULL) : NULL;
    if (!job) {
        free(request);
        return;
    }
    job_retain(job);
    job->durable = true;
    persist_job(job->id, job->client, "queued", job->created_ms, 0, request);
    saves_wait(r, job->id, answer_queued, job, release_job);
}

/* Jobs read back at start that found no room in the queue: they wait here (in the job table, so
 * GET answers "queued") and are submitted as workers free up. */
static struct {
    Job **jobs;
    int count, room;
} Waiting;

static void wait_for_room(Job *job)
{
    if (Waiting.count == Waiting.room) {
        int room = Waiting.room ? 2 * Waiting.room : 16;
        Job **grown = realloc(Waiting.jobs, (size_t)room * sizeof *grown);
        if (!grown) {
            job_release(job); /* stays stored as queued: the next start runs it */
            return;
        }
        Waiting.jobs = grown;
        Waiting.room = room;
    }
    Waiting.jobs[Waiting.count++] = job;
}

int analysis_retry_waiting(void)
{
    int kept = 0;
    for (int i = 0; i < Waiting.count; i++) {
        Job *job = Waiting.jobs[i];
        if (job->status != JOB_QUEUED)
            continue;                  /* deleted meanwhile: it is finished (and in the table's ring) */
        if (kept || !jobs_submit(job)) /* in order: after one that finds no room, the rest wait too */
            Waiting.jobs[kept++] = job;
    }
    return Waiting.count = kept;
}

void analysis_forget_waiting(void)
{
    free(Waiting.jobs); /* the jobs are the table's: jobs_shutdown frees them */
    memset(&Waiting, 0, sizeof Waiting);
}

/* At start: a job stored as queued or running (the server stopped before it finished) runs again
 * under its id; one that no longer reads stays stored. */
static void resume_job(const char *id, const char *owner, const char *request, long long created_ms, void *user)
{
    int *count = user;
    if (game_analysis_resume(id, owner, request, created_ms)) { /* a whole game's, not one position's */
        (*count)++;
        return;
    }
    if (shared_on()) /* a cluster's job is in Redis's stream: a worker finishes it, any front answers it */
        return;
    ApiError e = {0};
    json_t *body = request ? json_loads(request, 0, NULL) : NULL;
    Job *job = body ? request_analysis(&e, body, false) : NULL;
    json_decref(body);
    if (!job || !job_set_id(job, id)) {
        if (job)
            job_release(job);
        /* A request this server no longer takes (stored by an older one): failed, not queued for ever. */
        log_msg(LOG_WARN, "job %s cannot be resumed (%s: %s): marked failed", id, e.code[0] ? e.code : "unreadable",
                e.message);
        char *text = NULL;
        json_t *row = json_pack("{s:s, s:s}", "id", id, "status", "failed");
        if (row && (text = api_dumps(row, false)))
            persist_job(id, owner, "failed", created_ms, clock_wall_ms(), text);
        json_decref(row);
        return;
    }
    job->created_ms = created_ms;
    job->durable = true;
    snprintf(job->client, sizeof job->client, "%s", owner);
    if (Waiting.count || !jobs_submit(job))
        wait_for_room(job);
    (*count)++;
}

int analysis_resume(void)
{
    int count = 0;
    store_scan_unfinished(resume_job, NULL, &count);
    return count;
}

static void answer_job(Request *r, bool ok, void *arg)
{
    Job *job = arg;
    if (!ok)
        saves_reply_unavailable(r);
    else {
        json_t *o = job->result && job->status == JOB_DONE ? json_deep_copy(job->result) : json_object();
        json_object_set_new(o, "id", json_string(job->id));
        json_object_set_new(o, "status", json_string(JobStatusNames[job->status]));
        api_reply_json(r, 200, o);
    }
    job_release(job);
}

/* A finished job not in memory is read from storage; the request waits for the read. */
static void job_loaded(json_t *result, const char *owner, void *user)
{
    Request *r = user;
    ApiError e;
    Identity who = auth_of(r);
    if (result && !auth_sees_job(owner, &who, &e)) {
        json_decref(result);
        api_reply_error(r, &e);
    } else if (result)
        api_reply_json(r, 200, result);
    else
        api_reply_fail(r, 404, "unknown_job", NULL, "no job with that id");
    http_resume(r);
}

static void load_gone(Request *r) { persist_load_forget(r->waiter); }

static bool valid_id(const char *id)
{
    size_t n = strlen(id);
    return n > 0 && n < 40 && strspn(id, "0123456789abcdef") == n;
}

/* Whether the request may see (watch: auth_sees_job) or stop the job; answered 403 if not. */
static bool allowed(Request *r, const Job *job, bool stop)
{
    ApiError e;
    Identity who = auth_of(r);
    if (stop ? auth_owns_job(job->client, &who, &e) : auth_sees_job(job->client, &who, &e))
        return true;
    api_reply_error(r, &e);
    return false;
}

void analysis_job_get(Request *r, const char *id)
{
    Job *job = jobs_find(id);
    if (!job && valid_id(id)) {
        /* Not in memory: finished jobs are answerable from storage, even after a restart. */
        PersistLoad *load = persist_load_job(id, job_loaded, r);
        if (load) {
            http_suspend(r, load, load_gone);
            return;
        }
    }
    if (!job) {
        api_reply_fail(r, 404, "unknown_job", NULL, "no job with id '%.40s'", id);
        return;
    }
    if (!allowed(r, job, false))
        return;
    job_retain(job);
    saves_wait(r, job->id, answer_job, job, release_job); /* what it shows is stored */
}

/* A job of another front of the cluster: its owner may cancel it here too. */
static void delete_loaded(json_t *o, const char *owner, void *user)
{
    Request *r = user;
    ApiError e;
    Identity who = auth_of(r);
    const char *status = json_string_value(json_object_get(o, "status")),
               *id = json_string_value(json_object_get(o, "id"));
    if (!status || !id || json_object_get(o, "progress")) /* a game analysis has its own DELETE */
        api_reply_fail(r, 404, "unknown_job", NULL, "no job with that id");
    else if (!auth_owns_job(owner, &who, &e))
        api_reply_error(r, &e);
    else if (strcmp(status, "queued") && strcmp(status, "running"))
        api_reply_json(r, 200, encode_job_status(id, status));
    else if (!cluster_cancel(id))
        api_reply_fail(r, 503, "cluster_unavailable", NULL,
                       "this front cannot reach the cluster's Redis just now; retry shortly");
    else
        api_reply_json(r, 200, encode_job_status(id, "cancelling"));
    json_decref(o);
    http_resume(r);
}

void analysis_job_delete(Request *r, const char *id)
{
    Job *job = jobs_find(id);
    if (!job && shared_on() && valid_id(id)) {
        PersistLoad *load = persist_load_job(id, delete_loaded, r);
        if (load) {
            http_suspend(r, load, load_gone);
            return;
        }
    }
    if (!job) {
        api_reply_fail(r, 404, "unknown_job", NULL, "no job with id '%.40s'", id);
        return;
    }
    if (!allowed(r, job, true))
        return;
    jobs_cancel(job);
    api_reply_json(r, 200,
                   encode_job_status(job->id, job->status == JOB_RUNNING ? "cancelling" : JobStatusNames[job->status]));
}

/* ---- cloud-eval ---- */

/* The search cloud-eval runs when the cache has nothing as good: its key's `how`. */
#define CLOUD_DEPTH 18
#define CLOUD_MOVETIME_MS 2000
/* Another search's cached evaluation (a game analysis's) is answered when it was at least this deep
 * or this big; cloud-eval's own always is. */
#define CLOUD_CACHED_MIN_DEPTH CLOUD_DEPTH
#define CLOUD_CACHED_MIN_NODES 1000000

static json_t *cloud_how(void)
{
    return json_pack("{s:s, s:{s:i, s:i}}", "mode", "classical", "limits", "depth", CLOUD_DEPTH, "movetime",
                     CLOUD_MOVETIME_MS);
}

/* Lichess's cloud-eval shape, so existing Lichess clients can point at this server:
 * {"fen", "knodes", "depth", "pvs": [{"moves": "e2e4 e7e5", "cp": 20}]} (White's view). */
static json_t *cloud_answer(const char *fen, json_int_t nodes, int depth)
{
    return json_pack("{s:s, s:I, s:i, s:[]}", "fen", fen, "knodes", nodes / 1000, "depth", depth, "pvs");
}

/* A line's moves as one string ("e2e4 e7e5 ..."). */
static void line_text(json_t *line, char *text, size_t size)
{
    size_t k;
    json_t *m;
    text[0] = 0;
    json_array_foreach(json_object_get(line, "moves"), k, m)
    {
        if (k)
            strncat(text, " ", size - strlen(text) - 1);
        strncat(text, json_string_value(m), size - strlen(text) - 1);
    }
}

static void answer_cloud_eval(Request *r, Job *job, json_t *result)
{
    (void)job;
    json_t *lines = json_object_get(result, "pvs"), *line;
    json_t *o = cloud_answer(json_string_value(json_object_get(result, "fen")),
                             json_integer_value(json_object_get(result, "nodes")),
                             (int)json_integer_value(json_object_get(result, "depth")));
    size_t i;
    json_array_foreach(lines, i, line)
    {
        char text[4096];
        line_text(line, text, sizeof text);
        json_t *pv = json_pack("{s:s}", "moves", text);
        if (json_object_get(line, "mate"))
            json_object_set(pv, "mate", json_object_get(line, "mate"));
        else
            json_object_set(pv, "cp", json_object_get(line, "cp"));
        json_array_append_new(json_object_get(o, "pvs"), pv);
    }
    api_reply_json(r, 200, o);
}

/* The cache keeps best effort: a put that could not be written still lets the answer go. */
static void cache_written(bool ok, void *save)
{
    (void)ok;
    saves_done(true, save);
}

/* cloud-eval's first line goes into the cache (the side to move's view, as the cache keeps it),
 * tracked under the job's id, so the answer, which waits for the job's saves, leaves once it is
 * written and the same question asked again finds it. */
static void cloud_cache_put(Job *job)
{
    json_t *result = job->result, *best = json_array_get(json_object_get(result, "pvs"), 0);
    char fen[FEN_BUFFER_SIZE], first_moves[4096];
    if (!best || !job->pos || !fen_write(job->pos, fen))
        return;
    int sign = job->pos->side == WHITE ? 1 : -1;
    ReviewPosition first = {0};
    first.has = true;
    first.is_mate = json_object_get(best, "mate") != NULL;
    first.mate = first.is_mate ? sign * (int)json_integer_value(json_object_get(best, "mate")) : 0;
    first.cp = first.is_mate ? 0 : sign * (int)json_integer_value(json_object_get(best, "cp"));
    line_text(best, first_moves, sizeof first_moves);
    review_line_from_uci(&first, job->pos, first_moves);
    json_t *how = cloud_how();
    char *key = eval_cache_key(fen, how),
         *value = eval_cache_value(&first, (int)json_integer_value(json_object_get(result, "depth")),
                                   (uint64_t)json_integer_value(json_object_get(result, "nodes")));
    json_decref(how);
    if (key && value)
        persist_cache_put(key, value, cache_written, saves_begin(job->id));
    else {
        free(key);
        free(value);
    }
}

static Answer AsCloudEval = {answer_cloud_eval};

/* A cloud-eval request while the cache is read. */
typedef struct {
    Request *r; /* NULL once the request went away */
    char fen[FEN_BUFFER_SIZE];
    StoreCacheScan scan;
} CloudLookup;

/* NULL when the request already has its (error) answer. */
static Job *cloud_search(Request *r, const char *fen, long multipv)
{
    json_t *body = cloud_how();
    json_object_del(body, "mode");
    json_object_set_new(body, "fen", json_string(fen));
    if (multipv > 1)
        json_object_set_new(body, "multiPv", json_integer(multipv));
    return start_analysis(r, body, &AsCloudEval);
}

/* Whether a cached entry's `how` is the classical evaluator's (what cloud-eval serves). */
static bool classical_how(const char *key)
{
    const char *how = strchr(key, '{');
    json_t *o = how ? json_loads(how, 0, NULL) : NULL;
    json_t *mode = json_object_get(o, "mode");
    bool classical = o && (!mode || !strcmp(json_string_value(mode) ? json_string_value(mode) : "", "classical")) &&
                     !json_object_get(o, "affective") && !json_object_get(o, "bayesian");
    json_decref(o);
    return classical;
}

static void cloud_looked_up(void *arg)
{
    CloudLookup *c = arg;
    int best = -1, best_depth = 0;
    uint64_t best_nodes = 0;
    ReviewPosition pos, chosen;
    json_t *how = cloud_how();
    char *own = eval_cache_key(c->fen, how); /* what cloud-eval's own search stored */
    json_decref(how);
    for (int i = 0; c->r && i < c->scan.n; i++) {
        int depth;
        uint64_t nodes;
        bool mine = own && !strcmp(own, c->scan.keys[i]);
        if ((mine || classical_how(c->scan.keys[i])) &&
            eval_cache_parse(c->scan.values[i], c->fen, &pos, &depth, &nodes) &&
            (mine || depth >= CLOUD_CACHED_MIN_DEPTH || nodes >= CLOUD_CACHED_MIN_NODES) &&
            (nodes > best_nodes || (nodes == best_nodes && depth > best_depth))) {
            best = i, best_depth = depth, best_nodes = nodes;
            chosen = pos;
        }
    }
    free(own);
    for (int i = 0; i < c->scan.n; i++) {
        free(c->scan.keys[i]);
        free(c->scan.values[i]);
    }
    Request *r = c->r;
    if (r) {
        http_end_wait(r);
        if (best >= 0) {
            static Position p;
            fen_read(&p, c->fen, NULL, 0);
            int sign = p.side == WHITE ? 1 : -1;
            json_t *o = cloud_answer(c->fen, (json_int_t)best_nodes, best_depth), *pv = json_object();
            char text[REVIEW_LINE_MAX * 6 + 1] = "", uci[MOVE_STRING_SIZE];
            for (int k = 0; k < chosen.line_len; k++)
                strcat(strcat(text, k ? " " : ""), move_to_uci(chosen.line[k], uci));
            json_object_set_new(pv, "moves", json_string(text));
            json_object_set_new(pv, chosen.is_mate ? "mate" : "cp",
                                json_integer(sign * (chosen.is_mate ? chosen.mate : chosen.cp)));
            json_array_append_new(json_object_get(o, "pvs"), pv);
            http_add_header(r, "X-Feelfish-Cache", "hit");
            api_reply_json(r, 200, o);
            http_resume(r);
        } else if (!cloud_search(r, c->fen, 1)) /* else it waits for the search (job_wait) */
            http_resume(r);
    }
    free(c->scan.prefix);
    free(c);
}

static void cloud_gone(Request *r)
{
    CloudLookup *c = r->waiter;
    c->r = NULL;
}

void analysis_cloud_eval(Request *r, const char *param)
{
    (void)param;
    const char *fen = http_query(r, "fen"), *multi = http_query(r, "multiPv");
    if (!fen) {
        api_reply_fail(r, 400, "position_missing", "fen", "give the position as ?fen=...");
        return;
    }
    long multipv = 1;
    if (multi) {
        char *end;
        multipv = strtol(multi, &end, 10);
        if (*end || multipv < 1 || end == multi) {
            api_reply_fail(r, 400, "bad_type", "multiPv", "multiPv must be a whole number >= 1");
            return;
        }
    }
    /* One line, and a FEN that reads: the cache first (a bad FEN gets the search's own error). */
    static Position p;
    CloudLookup *c = multipv == 1 && fen_read(&p, fen, NULL, 0) == FEN_OK ? calloc(1, sizeof *c) : NULL;
    if (c) {
        fen_write(&p, c->fen);
        c->r = r;
        c->scan.prefix = eval_cache_prefix(c->fen);
        if (c->scan.prefix && persist_cache_scan(&c->scan, cloud_looked_up, c)) {
            http_suspend(r, c, cloud_gone);
            return;
        }
        free(c->scan.prefix);
        free(c);
    }
    cloud_search(r, fen, multipv);
}
