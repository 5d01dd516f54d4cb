/* The whole server in the fuzzing process: storage (a scratch database), one search worker, the
 * HTTP and WebSocket transports and the API, on one libuv loop the harness turns itself. An input
 * is bytes a client sends down one connection (a socket pair handed to the transport); the
 * harness reads what comes back while it turns the loop, then hangs up, so a search the input
 * started is cancelled as a client leaving would cancel it. */
#ifndef FEELFISH_FUZZ_SERVER_H
#define FEELFISH_FUZZ_SERVER_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../server/api/api.h"
#include "../../server/base/log.h"
#include "../../server/domain/models.h"
#include "../../server/store/store.h"
#include "fuzz.h"

static ServerConfig FuzzCfg;
static int FuzzHttpPort, FuzzWsPort;

static char FuzzDb[256];

static void fuzz_remove_db(void)
{
    char path[300];
    const char *const Suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s%s", FuzzDb, Suffixes[i]);
        unlink(path);
    }
}

/* Starts it all on a scratch database of this process (`name` and the pid, removed at exit); small
 * caps keep any search an input asks for short. */
static void fuzz_server_start(const char *name)
{
    snprintf(FuzzDb, sizeof FuzzDb, "build/fuzz/%s-%d.db", name, (int)getpid());
    const char *db = FuzzDb;
    atexit(fuzz_remove_db);
    engine_init("magic");
    bool help;
    char err[300];
    char *argv[] = {"--workers", "1",  "--hash", "1",   "--max-movetime", "20", "--max-depth", "3",
                    "--http",    "0",  "--ws",   "0",   "--max-nodes",    "20000", "--log-level", "error"};
    if (!config_load(&FuzzCfg, (int)(sizeof argv / sizeof argv[0]), argv, &help, err, sizeof err))
        abort();
    snprintf(FuzzCfg.db, sizeof FuzzCfg.db, "%s", db);
    unlink(db);
    log_set_level("error");
    uv_loop_t *loop = uv_default_loop();
    JobsSettings jobs = {1, 1, (int)FuzzCfg.queue, FuzzCfg.job_timeout, 1, NULL, 0};
    if (!store_open(loop, db, err, sizeof err) || !models_init(&FuzzCfg, err, sizeof err) ||
        !jobs_start(loop, &jobs, &ApiJobHooks) || !http_start(loop, &FuzzCfg, &ApiHttpHandlers, &FuzzHttpPort) ||
        !ws_start(loop, &FuzzCfg, &ApiWsHandlers, &FuzzWsPort)) {
        fprintf(stderr, "fuzz: cannot start the server: %s\n", err);
        abort();
    }
    api_init(&FuzzCfg, FuzzHttpPort, FuzzWsPort);
    api_resume(loop);
}

/* A socket pair: *client is the harness's end (non-blocking), the other end is the server's. */
static int fuzz_connect(int *client)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        abort();
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    *client = sv[0];
    return sv[1];
}

/* Sends everything (turning the loop when the socket is full). */
static void fuzz_send(int fd, const void *data, size_t size)
{
    const char *p = data;
    for (int turns = 0; size && turns < 1000; turns++) {
        ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            size -= (size_t)n;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR)
            return;
        else
            uv_run(uv_default_loop(), UV_RUN_NOWAIT);
    }
}

/* Turns the loop for up to `turns` rounds, collecting what the server sends into out (at most
 * size - 1 bytes, NUL-terminated); stops early when the server hangs up, or has said something and
 * then nothing for a few rounds. Returns the byte count. */
static size_t fuzz_collect(int fd, char *out, size_t size, int turns)
{
    size_t got = 0;
    for (int i = 0, quiet = 0; i < turns && !(got && quiet > 8); i++) {
        uv_run(uv_default_loop(), UV_RUN_NOWAIT);
        char buf[4096];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n == 0)
            break;
        if (n > 0) {
            size_t take = (size_t)n < size - 1 - got ? (size_t)n : size - 1 - got;
            memcpy(out + got, buf, take);
            got += take;
            quiet = 0;
        } else {
            quiet++;
            usleep(100);
        }
    }
    out[got] = 0;
    return got;
}

/* The client hangs up; the server notices and lets go of what the connection started. */
static void fuzz_hang_up(int fd)
{
    close(fd);
    for (int i = 0; i < 5; i++)
        uv_run(uv_default_loop(), UV_RUN_NOWAIT);
}

#endif
