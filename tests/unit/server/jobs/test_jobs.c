/* Search jobs on the real local backend (jobs/table.c, jobs/local.c), one worker, on a private uv
 * loop driven by hand: a job's events in order, the queue's capacity, cancelling queued and running
 * jobs, info events coalesced while the loop is busy, the job timeout, and shutdown. Every wait is
 * a bounded poll (uv_run NOWAIT until a condition or a deadline). */
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../../server/jobs/jobs.h"
#include "../server_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define SLOW 4
#else
#define SLOW 1
#endif

/* ---- hooks: small malloc'd payloads, every call counted ---- */

typedef struct {
    char kind[8]; /* "info" or "final" */
    int line, depth;
    JobStatus status;
    bool had_result;
    Move best;
} Rendered;

static atomic_int RenderInfos, RenderResults, RenderResultsUnrun, Frees;
static int OnEvents; /* loop thread */

static void *render_info(const Job *job, const SearchInfo *info)
{
    (void)job;
    Rendered *r = calloc(1, sizeof *r);
    strcpy(r->kind, "info");
    r->line = info->multipv;
    r->depth = info->depth;
    atomic_fetch_add(&RenderInfos, 1);
    return r;
}

static void *render_result(const Job *job, const SearchResult *res, const SearchResult *classical, JobStatus status)
{
    (void)job, (void)classical;
    Rendered *r = calloc(1, sizeof *r);
    strcpy(r->kind, "final");
    r->status = status;
    r->had_result = res != NULL;
    r->best = res ? res->best : MOVE_NONE;
    atomic_fetch_add(res ? &RenderResults : &RenderResultsUnrun, 1);
    return r;
}

static void free_rendered(void *p)
{
    atomic_fetch_add(&Frees, 1);
    free(p);
}

static void on_event(Job *job, const JobEvent *ev)
{
    (void)job, (void)ev;
    OnEvents++;
}

static const JobHooks Hooks = {render_info, render_result, free_rendered, on_event, NULL, NULL};

/* ---- what a job's listener heard ---- */

typedef struct {
    int started, infos, finals, events;
    bool out_of_order; /* an event after the final, an info before started, a rendered that does not match */
    int line_infos[MAX_MULTIPV + 1];
    JobStatus status;
    bool had_result, rendered_had_result;
    Move best;
    int depth;
} Heard;

static void hear(Job *job, const JobEvent *ev, void *user)
{
    Heard *h = user;
    const Rendered *r = ev->rendered;
    h->events++;
    if (h->finals)
        h->out_of_order = true;
    switch (ev->kind) {
    case JOB_EVENT_STARTED:
        if (h->started || h->infos || ev->status != JOB_RUNNING || job->status != JOB_RUNNING)
            h->out_of_order = true;
        h->started++;
        break;
    case JOB_EVENT_INFO:
        if (!h->started || !r || strcmp(r->kind, "info") || r->line != ev->line || ev->line < 1 ||
            ev->line > MAX_MULTIPV)
            h->out_of_order = true;
        else
            h->line_infos[ev->line]++;
        h->infos++;
        break;
    case JOB_EVENT_FINAL:
        h->finals++;
        h->status = ev->status;
        h->had_result = ev->result != NULL;
        h->best = ev->result ? ev->result->best : MOVE_NONE;
        h->depth = ev->result ? ev->result->depth : 0;
        if (!r || strcmp(r->kind, "final") || r->status != ev->status || r->best != h->best ||
            job->status != ev->status || job->result != ev->rendered)
            h->out_of_order = true;
        h->rendered_had_result = r && r->had_result;
        break;
    }
}

/* Listeners' records outlive a test's body: shutdown (after the body) still reports to them. */
static Heard HeardPool[8];
static int HeardUsed;

static Heard *heard(void)
{
    Heard *h = &HeardPool[HeardUsed++ % 8];
    memset(h, 0, sizeof *h);
    return h;
}

/* ---- the fixture: a loop and the backend, started and stopped around each test ---- */

static uv_loop_t Loop;
static Position Start;

static bool start_jobs(int64_t timeout_ms)
{
    atomic_store(&RenderInfos, 0);
    atomic_store(&RenderResults, 0);
    atomic_store(&RenderResultsUnrun, 0);
    atomic_store(&Frees, 0);
    OnEvents = 0;
    HeardUsed = 0;
    memset(HeardPool, 0, sizeof HeardPool);
    fen_read(&Start, FEN_STARTPOS, NULL, 0);
    if (uv_loop_init(&Loop))
        return false;
    JobsSettings s = {.workers = 1, .hash_mb = 16, .queue_capacity = 2, .timeout_ms = timeout_ms};
    return jobs_start(&Loop, &s, &Hooks);
}

/* Shuts the backend down and closes the loop; false if a handle was left open. */
static bool stop_jobs(void)
{
    jobs_shutdown();
    for (int i = 0; i < 100; i++) {
        if (uv_loop_close(&Loop) == 0)
            return true;
        uv_run(&Loop, UV_RUN_NOWAIT);
    }
    return false;
}

/* Runs the loop until *counter reaches at_least or ms pass (longer under ASan); whether it did. */
static bool wait_for(const int *counter, int at_least, int ms)
{
    int64_t deadline = time_now_ms() + (int64_t)ms * SLOW;
    while (*counter < at_least && time_now_ms() < deadline) {
        uv_run(&Loop, UV_RUN_NOWAIT);
        usleep(1000);
    }
    return *counter >= at_least;
}

/* Runs the loop for ms. */
static void run_for(int ms)
{
    int64_t deadline = time_now_ms() + ms;
    while (time_now_ms() < deadline) {
        uv_run(&Loop, UV_RUN_NOWAIT);
        usleep(1000);
    }
}

static Job *submit(const char *fen, int depth, bool infinite, int multipv, Heard *h)
{
    Position p;
    if (fen_read(&p, fen, NULL, 0) != FEN_OK)
        return NULL;
    SearchLimits l;
    search_limits_init(&l);
    l.depth = depth;
    l.infinite = infinite;
    l.multipv = multipv;
    Evaluator e;
    evaluator_classical(&e);
    Job *job = job_new(&p, &l, &e, "classical");
    if (!job)
        return NULL;
    job_add_listener(job, hear, h);
    if (!jobs_submit(job)) {
        job_remove_listener(job, hear, h);
        job_release(job);
        return NULL;
    }
    return job;
}

/* Each test body runs between start_jobs and stop_jobs, whatever CHECK returns early from it. */
#define JOBS_TEST(name, timeout_ms)                                                                                    \
    static void body_##name(void);                                                                                     \
    static void name(void)                                                                                             \
    {                                                                                                                  \
        CHECK(start_jobs(timeout_ms));                                                                                 \
        body_##name();                                                                                                 \
        bool closed = stop_jobs();                                                                                     \
        CHECK_MSG(closed, "a handle of the backend was left open");                                                    \
        CHECK_INT(atomic_load(&Frees),                                                                                 \
                  atomic_load(&RenderInfos) + atomic_load(&RenderResults) + atomic_load(&RenderResultsUnrun));         \
    }                                                                                                                  \
    static void body_##name(void)

#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

JOBS_TEST(test_depth_job_done, 60000)
{
    Heard *h = heard();
    Job *job = submit(KIWIPETE, 5, false, 1, h);
    CHECK(job);
    CHECK_MSG(wait_for(&h->finals, 1, 20000), "no final event (started %d, infos %d)", h->started, h->infos);
    CHECK(!h->out_of_order);
    CHECK_INT(h->started, 1);
    CHECK(h->infos >= 1);
    CHECK_INT(h->finals, 1);
    CHECK_INT(h->status, JOB_DONE);
    CHECK(h->had_result && h->rendered_had_result);
    CHECK_INT(h->depth, 5);
    Position p;
    fen_read(&p, KIWIPETE, NULL, 0);
    CHECK(h->best != MOVE_NONE && movegen_is_legal(&p, h->best));
    /* The job keeps its final rendering; the table finds it; the hook heard every event. */
    CHECK_INT(job->status, JOB_DONE);
    CHECK(job->result && !strcmp(((Rendered *)job->result)->kind, "final"));
    CHECK(jobs_find(job->id) == job);
    CHECK_INT(OnEvents, h->events);
    CHECK_INT(atomic_load(&RenderResults), 1);
    CHECK_INT(atomic_load(&RenderResultsUnrun), 0);
    JobsStats st;
    jobs_stats(&st);
    CHECK(st.workers == 1 && st.busy == 0 && st.queued == 0 && st.capacity == 2);
    CHECK(st.done == 1 && st.cancelled == 0 && st.failed == 0 && st.nodes > 0);
    /* Nothing more comes. */
    int events = h->events;
    run_for(50);
    CHECK_INT(h->events, events);
}

/* One worker busy with an infinite search, two jobs queued: a third is refused until one leaves. */
JOBS_TEST(test_queue_capacity, 60000)
{
    Heard *busy = heard(), *a = heard(), *b = heard(), *c = heard(), *d = heard();
    Job *running = submit(FEN_STARTPOS, 0, true, 1, busy);
    CHECK(running);
    CHECK(wait_for(&busy->started, 1, 5000)); /* the worker took it: the queue is empty */
    CHECK(submit(FEN_STARTPOS, 1, false, 1, a));
    Job *second = submit(FEN_STARTPOS, 1, false, 1, b);
    CHECK(second);
    JobsStats st;
    jobs_stats(&st);
    CHECK(st.busy == 1 && st.queued == 2 && st.capacity == 2);
    /* Full: refused, nothing changed (still queued, still in the table), and out of the table
     * once released. */
    SearchLimits l;
    search_limits_init(&l);
    l.depth = 1;
    Evaluator e;
    evaluator_classical(&e);
    Job *refused = job_new(&Start, &l, &e, "classical");
    CHECK(refused);
    char id[sizeof refused->id];
    strcpy(id, refused->id);
    CHECK(jobs_find(id) == refused);
    bool taken = jobs_submit(refused);
    CHECK(!taken);
    CHECK_INT(refused->status, JOB_QUEUED);
    CHECK(jobs_find(id) == refused);
    job_release(refused);
    CHECK(jobs_find(id) == NULL);
    CHECK(!submit(FEN_STARTPOS, 1, false, 1, c));
    jobs_stats(&st);
    CHECK_INT(st.queued, 2);
    /* One leaves the queue: room for one again, not two. */
    jobs_cancel(second);
    CHECK(submit(FEN_STARTPOS, 1, false, 1, c));
    CHECK(!submit(FEN_STARTPOS, 1, false, 1, d));
    CHECK(!busy->finals && !a->started && !c->started); /* the worker is still on the infinite search */
}

JOBS_TEST(test_cancel_queued, 60000)
{
    Heard *busy = heard(), *q = heard(), *other = heard();
    CHECK(submit(FEN_STARTPOS, 0, true, 1, busy));
    CHECK(wait_for(&busy->started, 1, 5000));
    Job *queued = submit(KIWIPETE, 3, false, 1, q);
    Job *left = submit(FEN_STARTPOS, 2, false, 1, other);
    CHECK(queued && left);
    /* Finished at once, during the call: cancelled, never run, no result. */
    jobs_cancel(queued);
    CHECK_INT(q->finals, 1);
    CHECK_INT(q->started, 0);
    CHECK_INT(q->infos, 0);
    CHECK_INT(q->status, JOB_CANCELLED);
    CHECK(!q->had_result && !q->rendered_had_result);
    CHECK_INT(queued->status, JOB_CANCELLED);
    CHECK_INT(atomic_load(&RenderResultsUnrun), 1);
    JobsStats st;
    jobs_stats(&st);
    CHECK(st.queued == 1 && st.cancelled == 1 && st.busy == 1);
    /* Cancelling it again does nothing. */
    jobs_cancel(queued);
    CHECK_INT(q->finals, 1);
    CHECK(!q->out_of_order);
    /* The other queued job is untouched. */
    CHECK_INT(other->events, 0);
    CHECK_INT(left->status, JOB_QUEUED);
}

JOBS_TEST(test_cancel_running, 60000)
{
    Heard *busy = heard(), *next = heard();
    Job *running = submit(FEN_STARTPOS, 0, true, 1, busy);
    CHECK(running);
    CHECK(wait_for(&busy->infos, 1, 5000));
    Job *after = submit(FEN_STARTPOS, 3, false, 1, next);
    CHECK(after);
    run_for(30);
    CHECK(!busy->finals && running->status == JOB_RUNNING); /* infinite: it would never end by itself */
    jobs_cancel(running);
    CHECK(wait_for(&busy->finals, 1, 5000));
    CHECK(!busy->out_of_order);
    CHECK_INT(busy->status, JOB_CANCELLED);
    CHECK(busy->had_result && busy->rendered_had_result); /* it ran: what it found so far */
    CHECK(busy->best != MOVE_NONE && movegen_is_legal(&Start, busy->best));
    CHECK_INT(running->status, JOB_CANCELLED);
    /* The worker goes on to the next job. */
    CHECK(wait_for(&next->finals, 1, 20000));
    CHECK_INT(next->status, JOB_DONE);
    JobsStats st;
    jobs_stats(&st);
    CHECK(st.done == 1 && st.cancelled == 1 && st.busy == 0);
}

/* While the loop does not run, a MultiPV 2 search publishes many infos; the loop then hears at most
 * one per line, the latest (the ones replaced were freed: the fixture counts every free). */
JOBS_TEST(test_info_coalescing, 60000)
{
    Heard *h = heard();
    Job *job = submit(KIWIPETE, 0, true, 2, h);
    CHECK(job);
    CHECK(wait_for(&h->infos, 1, 5000));
    jobs_deliver_pending();
    Heard before = *h;
    int rendered_before = atomic_load(&RenderInfos);
    usleep(300 * 1000); /* the loop is busy elsewhere */
    int rendered = atomic_load(&RenderInfos) - rendered_before;
    jobs_deliver_pending();
    int delivered = h->infos - before.infos;
    CHECK_MSG(delivered >= 1 && delivered <= 2, "%d infos delivered", delivered);
    for (int line = 1; line <= MAX_MULTIPV; line++) {
        int n = h->line_infos[line] - before.line_infos[line];
        CHECK_MSG(n <= 1 && (line <= 2 || n == 0), "line %d: %d infos at once", line, n);
    }
    CHECK_MSG(rendered > delivered, "%d infos rendered in 300 ms, %d delivered", rendered, delivered);
    CHECK(!h->out_of_order && !h->finals);
    jobs_cancel(job);
    CHECK(wait_for(&h->finals, 1, 5000));
    CHECK_INT(h->status, JOB_CANCELLED);
}

/* A search still running after the job timeout is stopped by the backend (it ends cancelled). */
JOBS_TEST(test_job_timeout, 300)
{
    Heard *h = heard();
    CHECK(submit(FEN_STARTPOS, 0, true, 1, h));
    CHECK(wait_for(&h->finals, 1, 5000));
    CHECK_INT(h->status, JOB_CANCELLED);
    CHECK(h->started && h->had_result);
}

/* Shutdown stops the running search and answers what waited as cancelled, never run. */
static void test_shutdown(void)
{
    CHECK(start_jobs(60000));
    Heard *busy = heard(), *q1 = heard(), *q2 = heard();
    bool ok = submit(FEN_STARTPOS, 0, true, 1, busy) && wait_for(&busy->started, 1, 5000) &&
              submit(FEN_STARTPOS, 4, false, 1, q1) && submit(KIWIPETE, 4, false, 1, q2);
    int queued_heard = q1->events + q2->events;
    bool closed = stop_jobs();
    CHECK_MSG(closed, "a handle of the backend was left open");
    CHECK(ok);
    CHECK_INT(queued_heard, 0);
    CHECK_INT(OnEvents, busy->events + q1->events + q2->events);
    CHECK_INT(busy->finals, 1);
    CHECK_INT(busy->status, JOB_CANCELLED);
    CHECK(busy->had_result);
    CHECK(!busy->out_of_order && !q1->out_of_order && !q2->out_of_order);
    CHECK(q1->finals == 1 && q1->status == JOB_CANCELLED && !q1->had_result && !q1->started);
    CHECK(q2->finals == 1 && q2->status == JOB_CANCELLED && !q2->had_result && !q2->started);
    CHECK_INT(atomic_load(&RenderResultsUnrun), 2);
    CHECK_INT(atomic_load(&Frees),
              atomic_load(&RenderInfos) + atomic_load(&RenderResults) + atomic_load(&RenderResultsUnrun));
}

void suite_jobs(void)
{
    RUN(test_depth_job_done);
    RUN(test_queue_capacity);
    RUN(test_cancel_queued);
    RUN(test_cancel_running);
    RUN(test_info_coalescing);
    RUN(test_job_timeout);
    RUN(test_shutdown);
}
