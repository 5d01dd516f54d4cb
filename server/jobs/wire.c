/* Jobs and events as bytes (wire.h). */
#include "wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WIRE_MAGIC 0x66664a42u /* "ffJB" */
#define WIRE_VERSION 2u /* 2: SearchLimits.elo */

/* The layout stamp: the version and the sizes of what is copied as it is in memory. */
static uint64_t layout(void)
{
    return ((uint64_t)WIRE_VERSION << 56) ^ ((uint64_t)sizeof(Position) << 32) ^ ((uint64_t)sizeof(SearchResult) << 8) ^
           (uint64_t)(sizeof(EvalParams) + sizeof(Emotion) * 3 + sizeof(BayesChoice) * 7 + sizeof(SearchLimits) * 11);
}

typedef struct {
    uint32_t magic;
    uint64_t layout;
    char id[24], mode[16], client[48];
    SearchLimits limits;
    Evaluator eval; /* params: not read (own_params says where they are) */
    bool own_params;
    EvalParams params;
    bool compare, has_emotion, has_bayes, durable, unlisted, background;
    Emotion emotion;
    BayesChoice bayes;
    int64_t created_ms;
    int32_t stack_len;
} JobHeader;

/* The position: everything before its state stack, then the states in use. */
static size_t position_bytes(int stack_len)
{
    return offsetof(Position, stack) + (size_t)(stack_len + 1) * sizeof(StateInfo);
}

bool wire_job_encode(const Job *job, char **out, size_t *len)
{
    JobHeader h;
    memset(&h, 0, sizeof h);
    h.magic = WIRE_MAGIC;
    h.layout = layout();
    memcpy(h.id, job->id, sizeof h.id);
    memcpy(h.mode, job->mode, sizeof h.mode);
    memcpy(h.client, job->client, sizeof h.client);
    h.limits = job->limits;
    h.eval = job->eval;
    h.eval.params = NULL;
    h.own_params = job->eval.params == &job->params;
    if (h.own_params)
        h.params = job->params;
    h.compare = job->compare;
    h.has_emotion = job->has_emotion;
    h.emotion = job->emotion;
    h.has_bayes = job->has_bayes;
    h.bayes = job->bayes;
    h.durable = job->durable;
    h.unlisted = job->unlisted;
    h.background = job->background;
    h.created_ms = job->created_ms;
    h.stack_len = job->pos->stack_len;
    size_t pos = position_bytes(h.stack_len);
    *len = sizeof h + pos;
    *out = malloc(*len);
    if (!*out)
        return false;
    memcpy(*out, &h, sizeof h);
    memcpy(*out + sizeof h, job->pos, pos);
    return true;
}

Job *wire_job_decode(const char *data, size_t len, char *err, size_t err_size)
{
    JobHeader h;
    if (len < sizeof h) {
        snprintf(err, err_size, "a job message of %zu bytes is too short", len);
        return NULL;
    }
    memcpy(&h, data, sizeof h);
    if (h.magic != WIRE_MAGIC || h.layout != layout()) {
        snprintf(err, err_size, "a job from another build of feelfish (every node must run the same build)");
        return NULL;
    }
    if (h.stack_len < 0 || h.stack_len >= POSITION_STACK_SIZE || len != sizeof h + position_bytes(h.stack_len) ||
        !memchr(h.id, 0, sizeof h.id) || !memchr(h.mode, 0, sizeof h.mode) || !memchr(h.client, 0, sizeof h.client)) {
        snprintf(err, err_size, "a malformed job message");
        return NULL;
    }
    Position *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    memcpy(p, data + sizeof h, position_bytes(h.stack_len));
    p->st = &p->stack[p->stack_len];
    Evaluator e = h.eval;
    e.params = h.own_params ? &h.params : &DefaultParams;
    if (e.net) /* the sender's pointer says only that it used a network: this node's own (same build) */
        e.net = nnue_default();
    Job *job = job_new(p, &h.limits, &e, h.mode);
    free(p);
    if (!job) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    if (!job_set_id(job, h.id)) {
        snprintf(err, err_size, "job %s is here already", h.id);
        job_release(job);
        return NULL;
    }
    memcpy(job->client, h.client, sizeof job->client);
    job->compare = h.compare;
    job->has_emotion = h.has_emotion;
    job->emotion = h.emotion;
    job->has_bayes = h.has_bayes;
    job->bayes = h.bayes;
    job->durable = h.durable;
    job->unlisted = h.unlisted;
    job->background = h.background;
    job->created_ms = h.created_ms;
    return job;
}

typedef struct {
    uint32_t magic;
    uint64_t layout;
    int32_t kind, status, line;
    char id[24];
    uint32_t rendered_len;
    uint8_t has_result;
} EventHeader;

bool wire_event_encode(const WireEvent *e, char **out, size_t *len)
{
    EventHeader h;
    memset(&h, 0, sizeof h);
    h.magic = WIRE_MAGIC;
    h.layout = layout();
    h.kind = e->kind;
    h.status = e->status;
    h.line = e->line;
    memcpy(h.id, e->id, sizeof h.id);
    h.rendered_len = e->rendered ? (uint32_t)e->rendered_len : 0;
    h.has_result = e->result != NULL;
    *len = sizeof h + h.rendered_len + (h.has_result ? sizeof(SearchResult) : 0);
    *out = malloc(*len);
    if (!*out)
        return false;
    memcpy(*out, &h, sizeof h);
    if (h.rendered_len)
        memcpy(*out + sizeof h, e->rendered, h.rendered_len);
    if (h.has_result)
        memcpy(*out + sizeof h + h.rendered_len, e->result, sizeof(SearchResult));
    return true;
}

bool wire_event_decode(const char *data, size_t len, WireEvent *e, SearchResult *result)
{
    EventHeader h;
    if (len < sizeof h)
        return false;
    memcpy(&h, data, sizeof h);
    if (h.magic != WIRE_MAGIC || h.layout != layout() || !memchr(h.id, 0, sizeof h.id) ||
        len != sizeof h + h.rendered_len + (h.has_result ? sizeof(SearchResult) : 0) || h.kind < JOB_EVENT_STARTED ||
        h.kind > JOB_EVENT_FINAL || h.status < JOB_QUEUED || h.status > JOB_FAILED)
        return false;
    memset(e, 0, sizeof *e);
    e->kind = (JobEventKind)h.kind;
    e->status = (JobStatus)h.status;
    e->line = h.line;
    memcpy(e->id, h.id, sizeof e->id);
    e->rendered = h.rendered_len ? data + sizeof h : NULL;
    e->rendered_len = h.rendered_len;
    if (h.has_result) /* copied: the bytes need not be aligned for it */
        memcpy(result, data + sizeof h + h.rendered_len, sizeof *result);
    e->result = h.has_result ? result : NULL;
    return true;
}
