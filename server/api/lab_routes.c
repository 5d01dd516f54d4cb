/* POST /api/lab {fen | moves, depth, algorithms}: the search lab's textbook algorithms (minimax,
 * alpha-beta, NegaScout, MTD(f); engine/search/lab.h) side by side on the same fixed-depth tree:
 * value, best move, nodes, leaves and time of each. They run on libuv's thread pool, one lab at a
 * time for the whole server (503 lab_busy meanwhile), never on the loop. */
#include <stdlib.h>
#include <string.h>

#include "../../engine/engine.h"
#include "../../engine/search/lab.h"
#include "encode.h"
#include "reply.h"
#include "request.h"
#include "routes.h"

#define DEPTH_MAX 7         /* alpha-beta, NegaScout and MTD(f) */
#define MINIMAX_DEPTH_MAX 5 /* minimax sees every node: 35^5 is about 50 million */

static const char *const Keys[] = {"fen", "moves", "pgn", "depth", "algorithms", NULL};

typedef struct {
    uv_work_t work;
    Request *r; /* NULL once the client has gone */
    Position *pos;
    int depth;
    bool run[LAB_ALGORITHM_NB];
    LabResult result[LAB_ALGORITHM_NB];
    int64_t ms[LAB_ALGORITHM_NB];
} Lab;

static bool Busy;

static void lab_work(uv_work_t *w)
{
    Lab *lab = w->data;
    Evaluator e;
    evaluator_classical(&e);
    for (int a = 0; a < LAB_ALGORITHM_NB; a++)
        if (lab->run[a]) {
            int64_t t0 = time_now_ms();
            lab_run((LabAlgorithm)a, lab->pos, lab->depth, &e, &lab->result[a]);
            lab->ms[a] = time_now_ms() - t0;
        }
}

static void lab_done(uv_work_t *w, int status)
{
    Lab *lab = w->data;
    Busy = false;
    if (lab->r) {
        Request *r = lab->r;
        http_end_wait(r);
        if (status) {
            api_reply_fail(r, 503, "cancelled", NULL, "the lab could not run");
        } else {
            char fen[FEN_BUFFER_SIZE];
            fen_write(lab->pos, fen);
            json_t *list = json_array();
            for (int a = 0; a < LAB_ALGORITHM_NB; a++)
                if (lab->run[a])
                    json_array_append_new(list, encode_lab((LabAlgorithm)a, &lab->result[a], lab->ms[a]));
            api_reply_json(r, 200, json_pack("{s:s, s:i, s:o}", "fen", fen, "depth", lab->depth, "algorithms", list));
        }
        http_resume(r);
    }
    free(lab->pos);
    free(lab);
}

static void lab_gone(Request *r)
{
    Lab *lab = r->waiter;
    lab->r = NULL; /* it runs to its end (no stop in the lab); nobody is answered */
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
                      "'algorithms' must be a list of minimax, alphabeta, negascout, mtdf (or leave it out for all)");
        ok = false;
    }
    for (size_t i = 0; ok && algos && i < json_array_size(algos); i++) {
        const char *name = json_string_value(json_array_get(algos, i));
        int a = name ? lab_algorithm_from_name(name) : -1;
        if (a < 0) {
            api_error_set(&e, 400, "bad_algorithm", "algorithms",
                          "algorithms[%zu] '%.20s' is not one of minimax, "
                          "alphabeta, negascout, mtdf",
                          i, name ? name : "?");
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
    if (ok && Busy) {
        http_add_header(r, "Retry-After", "1");
        api_error_set(&e, 503, "lab_busy", NULL, "the lab is running another request: try again in a moment");
        ok = false;
    }
    if (!ok) {
        free(lab->pos);
        free(lab);
        api_reply_error(r, &e);
        return;
    }
    Busy = true;
    lab->r = r;
    lab->work.data = lab;
    if (uv_queue_work(uv_default_loop(), &lab->work, lab_work, lab_done)) {
        Busy = false;
        free(lab->pos);
        free(lab);
        api_reply_fail(r, 503, "cancelled", NULL, "the lab could not run");
        return;
    }
    http_suspend(r, lab, lab_gone);
}
