/* A UCI engine as a child process for `feelfish match`: start (fork/exec, no shell), line-based
 * talk over pipes with deadlines, the UCI handshake, and stopping it without leaving a zombie. */
#ifndef FEELFISH_MATCH_ENGINE_H
#define FEELFISH_MATCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MATCH_LINE_MAX 8192 /* longer engine lines are cut here, the rest is dropped */

typedef struct {
    char *name;
    char *value; /* NULL: a button (sent without "value") */
} MatchOption;

/* How to run one engine: from `--engine cmd=..,name=..,arg=..,option.X=..`. */
typedef struct {
    char *cmd;
    char *name;  /* NULL until given or learnt from "id name" */
    char **argv; /* cmd then each arg, NULL-terminated: what exec receives */
    int argc;
    MatchOption *options;
    int option_count;
} MatchEngineConfig;

typedef struct {
    pid_t pid; /* 0: not running */
    int to_fd, from_fd;
    bool eof;        /* its stdout closed: dead or about to be */
    bool exited;     /* reaped; status is valid */
    int status;      /* waitpid status once exited */
    bool discarding; /* inside a line longer than MATCH_LINE_MAX */
    size_t len;      /* bytes in buf not yet returned */
    char buf[MATCH_LINE_MAX + 1];
} MatchEngine;

typedef enum { MATCH_READ_LINE, MATCH_READ_TIMEOUT, MATCH_READ_DEAD } MatchReadResult;

/* Nanoseconds on CLOCK_MONOTONIC. */
int64_t match_now_ns(void);

/* Starts the process; false with err when it cannot be executed. */
bool match_engine_spawn(MatchEngine *e, const MatchEngineConfig *cfg, char *err, size_t err_size);

/* Writes one line (a newline is added). False when the engine is gone or does not read. */
bool match_engine_send(MatchEngine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The next line without its line end, waiting until deadline (match_now_ns() time). */
MatchReadResult match_engine_read_line(MatchEngine *e, char *line, size_t size, int64_t deadline);

/* True while the process runs (reaps it, without blocking, when it has exited). */
bool match_engine_alive(MatchEngine *e);

/* Sends "isready" and waits for "readyok" for up to timeout_ms. */
bool match_engine_sync(MatchEngine *e, int timeout_ms, char *err, size_t err_size);

typedef enum {
    MATCH_STARTED,
    MATCH_START_REFUSED, /* cannot be run at all, or given an option value its declaration does not allow */
    MATCH_START_FAILED   /* started but failed the UCI handshake */
} MatchStart;

/* Spawn, "uci" ... "uciok", the options, "isready" ... "readyok"; err says why when not started.
 * Learns the engine's name into id_name (may be NULL); warns on stderr about options the engine does
 * not declare, and refuses a value the engine's declaration does not allow (it would ignore it). */
MatchStart match_engine_start(MatchEngine *e, const MatchEngineConfig *cfg, int timeout_ms, bool warn_options,
                              char *id_name, size_t id_size, char *err, size_t err_size);

/* "quit" (when polite), a short grace period, then SIGKILL to its process group, and the reaping. */
void match_engine_stop(MatchEngine *e, bool polite);

/* "exited with status 3", "killed by signal 11" or "closed its output": for reports. */
void match_engine_describe_death(MatchEngine *e, char *buf, size_t size);

#endif
