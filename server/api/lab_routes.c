/* POST /api/lab {fen | moves, depth, algorithms}: the search lab's textbook algorithms (minimax,
 * alpha-beta, SCOUT, NegaScout, SSS* and MTD(f); engine/search/lab.h) side by side on the same
 * fixed-depth tree: value, best move, nodes, leaves and time of each. One lab runs at a time for
 * the whole server, on a thread of its own below the loop's priority (as search workers are), never
 * on the loop. A lab is bounded like a search: stopped at --max-movetime (its unfinished algorithms
 * say "complete": false) or when its client leaves; it counts as one of its client's jobs
 * (--client-jobs-max); a client has one lab at a time (429 too_many_labs), and the others wait
 * their turn in order (at most LAB_WAITING; 503 lab_busy beyond), so no client holds the lab for
 * ever. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../engine/engine.h"
#include "../../engine/search/lab.h"
#include "../base/list.h"
#include "encode.h"
#include "quota.h"
#include "reply.h"
#include "request.h"
#include "routes.h"

#define DEPTH_MAX 7         /* every algorithm but minimax */
#define MINIMAX_DEPTH_MAX 5 /* minimax sees every node: 35^5 is about 50 million */
#define LAB_WAITING 16      /* labs waiting for their turn */

static const char *const Keys[] = {"fen", "moves", "pgn", "depth", "algorithms", NULL};

typedef struct Lab {
    Request *r; /* NULL once the client has gone */
    char client[48];
    Position *pos;
    int depth;
    bool run[LAB_ALGORITHM_NB];
    LabResult result[LAB_ALGORITHM_NB];
    int64_t ms[LAB_ALGORITHM_NB];
    atomic_bool stop;        /* --max-movetime passed, or nobody waits for it any more */
    struct Lab *prev, *next; /* while waiting */
} Lab;

static struct {
    long max_movetime;
    Lab *running;
    pthread_t thread; /* the running lab's */
    Lab *waiting;     /* oldest first */
    int waiting_count;
    uv_timer_t deadline;
    uv_async_t finished; /* the running lab's thread is done */
    bool handles_ready;
    bool stopped; /* lab_routes_stop: no lab starts any more */
} L;

void lab_routes_init(const ServerConfig *cfg) { L.max_movetime = cfg->max_movetime; }

/* The lab's thread: as the search workers (jobs/local.c), below the loop's priority. */
enum { LAB_NICE = 10 };

static void *lab_thread(void *arg)
{
    Lab *lab = arg;
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), LAB_NICE); /* failing, it runs at the loop's */
    Evaluator e;
    evaluator_classical(&e);
    for (int a = 0; a < LAB_ALGORITHM_NB; a++)
        if (lab->run[a]) {
            int64_t t0 = time_now_ms();
            lab_run((LabAlgorithm)a, lab->pos, lab->depth, &e, &lab->stop, &lab->result[a]);
            lab->ms[a] = time_now_ms() - t0;
        }
    uv_async_send(&L.finished);
    return NULL;
}

static void free_lab(Lab *lab)
{
    quota_hold(lab->client, -1);
    free(lab->pos);
    free(lab);
}

static void start_next(void);

/* The running lab has ended (its thread is joined): its client is answered, the next one starts. */
static void finish_running(void)
{
    Lab *lab = L.running;
    L.running = NULL;
    uv_timer_stop(&L.deadline);
    if (lab->r) {
        Request *r = lab->r;
        http_end_wait(r);
        char fen[FEN_BUFFER_SIZE];
        fen_write(lab->pos, fen);
        json_t *list = json_array();
        for (int a = 0; a < LAB_ALGORITHM_NB; a++)
            if (lab->run[a])
                json_array_append_new(list, encode_lab((LabAlgorithm)a, &lab->result[a], lab->ms[a]));
        api_reply_json(r, 200, json_pack("{s:s, s:i, s:o}", "fen", fen, "depth", lab->depth, "algorithms", list));
        http_resume(r);
    }
    free_lab(lab);
    start_next();
}

static void lab_done(uv_async_t *handle)
{
    (void)handle;
    if (!L.running)
        return;
    pthread_join(L.thread, NULL); /* it has just rung: it is ending */
    finish_running();
}

static void on_deadline(uv_timer_t *t)
{
    (void)t;
    if (L.running)
        atomic_store(&L.running->stop, true);
}

/* The oldest waiting lab runs, if the lab is free. */
static void start_next(void)
{
    while (!L.running && L.waiting) {
        Lab *lab = L.waiting;
        LIST_UNLINK(L.waiting, lab, prev, next);
        L.waiting_count--;
        if (!L.handles_ready) {
            uv_timer_init(uv_default_loop(), &L.deadline);
            uv_async_init(uv_default_loop(), &L.finished, lab_done);
            uv_unref((uv_handle_t *)&L.deadline);
            uv_unref((uv_handle_t *)&L.finished);
            L.handles_ready = true;
        }
        L.running = lab;
        if (pthread_create(&L.thread, NULL, lab_thread, lab)) {
            L.running = NULL;
            if (lab->r) {
                http_end_wait(lab->r);
                api_reply_fail(lab->r, 503, "cancelled", NULL, "the lab could not run");
                http_resume(lab->r);
            }
            free_lab(lab);
            continue;
        }
        uv_timer_start(&L.deadline, on_deadline, (uint64_t)L.max_movetime, 0);
    }
}

static void lab_gone(Request *r)
{
    Lab *lab = r->waiter;
    lab->r = NULL;
    if (lab == L.running) {
        atomic_store(&lab->stop, true); /* nobody to answer: it stops, and lab_done frees it */
        return;
    }
    LIST_UNLINK(L.waiting, lab, prev, next);
    L.waiting_count--;
    free_lab(lab);
}

static bool has_lab(const char *client)
{
    if (L.running && !strcmp(L.running->client, client))
        return true;
    for (Lab *l = L.waiting; l; l = l->next)
        if (!strcmp(l->client, client))
            return true;
    return false;
}

void lab_route(Request *r, const char *param)
{
    (void)param;
    ApiError e;
    json_t *body = api_parse_body(r);
    if (!body)
        return;
    Lab *lab = calloc(1, sizeof *lab);
    if (!lab || !(lab->pos = malloc(sizeof *lab->pos))) {
        free(lab);
        json_decref(body);
        api_reply_fail(r, 503, "out_of_memory", NULL, "the server is out of memory");
        return;
    }
    bool ok = request_check_keys(&e, body, Keys, "");
    json_t *depth = json_object_get(body, "depth"), *algos = json_object_get(body, "algorithms");
    if (ok && (!json_is_integer(depth) || json_integer_value(depth) < 1 || json_integer_value(depth) > DEPTH_MAX)) {
        api_error_set(&e, 400, "bad_depth", "depth", "depth must be a whole number from 1 to %d", DEPTH_MAX);
        ok = false;
    }
    if (ok && algos && (!json_is_array(algos) || !json_array_size(algos))) {
        api_error_set(&e, 400, "bad_type", "algorithms",
                      "'algorithms' must be a list of minimax, alphabeta, scout, negascout, sss, mtdf (or leave it "
                      "out for all)");
        ok = false;
    }
    for (size_t i = 0; ok && algos && i < json_array_size(algos); i++) {
        const char *name = json_string_value(json_array_get(algos, i));
        int a = name ? lab_algorithm_from_name(name) : -1;
        if (a < 0) {
            api_error_set(&e, 400, "bad_algorithm", "algorithms",
                          "algorithms[%zu] '%.20s' is not one of minimax, alphabeta, scout, negascout, sss, mtdf", i,
                          name ? name : "?");
            ok = false;
        } else
            lab->run[a] = true;
    }
    if (ok && !algos)
        for (int a = 0; a < LAB_ALGORITHM_NB; a++)
            lab->run[a] = true;
    if (ok) {
        lab->depth = (int)json_integer_value(depth);
        if (lab->run[LAB_MINIMAX] && lab->depth > MINIMAX_DEPTH_MAX) {
            api_error_set(&e, 400, "bad_depth", "depth",
                          "minimax searches every node: depth %d at most (the others %d)", MINIMAX_DEPTH_MAX,
                          DEPTH_MAX);
            ok = false;
        }
    }
    if (ok) { /* the position, as an analysis request gives it */
        json_t *pos = json_object();
        static const char *const Position_keys[] = {"fen", "moves", "pgn"};
        for (size_t i = 0; i < 3; i++)
            if (json_object_get(body, Position_keys[i]))
                json_object_set(pos, Position_keys[i], json_object_get(body, Position_keys[i]));
        json_object_set_new(pos, "limits", json_pack("{s:i}", "depth", 1));
        Job *probe = request_analysis(&e, pos, false);
        json_decref(pos);
        ok = probe != NULL;
        if (probe) {
            position_copy(lab->pos, probe->pos);
            job_release(probe);
        }
    }
    json_decref(body);
    if (ok && has_lab(r->client)) {
        api_error_set(&e, 429, "too_many_labs", NULL, "%.48s has a lab running or waiting already: one at a time",
                      r->client);
        ok = false;
    } else if (ok && !quota_job_room(&e, r->client)) {
        ok = false;
    } else if (ok && L.stopped) {
        api_error_set(&e, 503, "shutting_down", NULL, "the server is stopping; retry in a moment");
        ok = false;
    } else if (ok && L.waiting_count >= LAB_WAITING) {
        api_error_set(&e, 503, "lab_busy", NULL, "%d labs are waiting for their turn already: try again in a moment",
                      LAB_WAITING);
        ok = false;
    }
    if (!ok) {
        free(lab->pos);
        free(lab);
        api_reply_error(r, &e);
        return;
    }
    snprintf(lab->client, sizeof lab->client, "%s", r->client);
    quota_hold(lab->client, +1);
    lab->r = r;
    LIST_APPEND(L.waiting, lab, prev, next);
    L.waiting_count++;
    http_suspend(r, lab, lab_gone);
    start_next();
}

void lab_routes_stop(void)
{
    L.stopped = true;
    while (L.waiting) { /* they never run */
        Lab *lab = L.waiting;
        LIST_UNLINK(L.waiting, lab, prev, next);
        L.waiting_count--;
        http_end_wait(lab->r);
        api_reply_fail(lab->r, 503, "shutting_down", NULL, "the server is stopping; retry in a moment");
        http_resume(lab->r);
        free_lab(lab);
    }
    if (L.running) { /* stopped where it is: its client gets what it has (incomplete) */
        atomic_store(&L.running->stop, true);
        pthread_join(L.thread, NULL);
        finish_running();
    }
    if (L.handles_ready) {
        uv_timer_stop(&L.deadline);
        uv_close((uv_handle_t *)&L.deadline, NULL);
        uv_close((uv_handle_t *)&L.finished, NULL);
        L.handles_ready = false;
    }
}
