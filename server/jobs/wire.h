/* Jobs and their events as bytes, between a front and the search workers of a cluster (jobs/redis.c,
 * cmd/worker.c). Every node runs the same build: a message starts with a layout stamp (the format
 * version and the sizes of the structs it carries) and a node refuses a message of another layout
 * rather than misread it. */
#ifndef FEELFISH_JOBS_WIRE_H
#define FEELFISH_JOBS_WIRE_H

#include <stddef.h>

#include "jobs.h"

/* A job (its position with the history the draw rules need, limits, evaluator and mode data, its
 * id, client and creation time) as one malloc'd buffer. False when out of memory. */
bool wire_job_encode(const Job *job, char **out, size_t *len);
/* A new job (job_new: in this process's table, with the sender's id) from such bytes; NULL with a
 * message when they are not a job of this layout or the id is taken. */
Job *wire_job_decode(const char *data, size_t len, char *err, size_t err_size);

/* One event of a job, as a worker publishes it. */
typedef struct {
    JobEventKind kind;
    JobStatus status;     /* FINAL */
    int line;             /* INFO */
    char id[24];          /* the job's */
    const char *rendered; /* the render hook's output as JSON text (NULL: none) */
    size_t rendered_len;
    const SearchResult *result; /* FINAL: the search's result, or NULL */
} WireEvent;

bool wire_event_encode(const WireEvent *e, char **out, size_t *len);
/* Reads an event: `rendered` points into data (valid while data is), a result is copied to
 * *result and e->result points there. False if malformed. */
bool wire_event_decode(const char *data, size_t len, WireEvent *e, SearchResult *result);

#endif
