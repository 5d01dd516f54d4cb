/* UCI engines as child processes for `feelfish match`: fork/exec with three pipes (stdin, stdout,
 * and a close-on-exec pipe that reports a failed exec), lines read with poll() and deadlines, and
 * a stop that always reaps. Each MatchEngine is used by one thread at a time; nothing is shared. */
#include "match_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SEND_TIMEOUT_MS 2000 /* an engine that does not read its input for this long is hung */
#define QUIT_GRACE_MS 300

int64_t match_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Makes fd the child's standard descriptor target, keeping it across exec even when it already is. */
static void child_dup(int fd, int target)
{
    if (fd == target)
        fcntl(fd, F_SETFD, 0);
    else
        dup2(fd, target);
}

bool match_engine_spawn(MatchEngine *e, const MatchEngineConfig *cfg, char *err, size_t err_size)
{
    e->pid = 0;
    e->to_fd = e->from_fd = -1;
    e->eof = e->exited = e->discarding = false;
    e->status = 0;
    e->len = 0;
    /* Close-on-exec everywhere: a child started by another thread at the same moment must not
     * inherit these ends, or this engine's death would never show as end-of-file. */
    int in[2] = {-1, -1}, out[2] = {-1, -1}, report[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(report, O_CLOEXEC)) {
        snprintf(err, err_size, "cannot create pipes: %s", strerror(errno));
        for (int i = 0; i < 2; i++) {
            close_fd(&in[i]);
            close_fd(&out[i]);
            close_fd(&report[i]);
        }
        return false;
    }
    pid_t pid = fork();
    if (pid == 0) {
        /* Only async-signal-safe calls from here: other threads may hold locks. Its own process
         * group lets stop() kill helpers a wrapper script started; SIGPIPE is ignored in the
         * parent and an ignored signal would stay ignored across exec. */
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        child_dup(in[0], STDIN_FILENO);
        child_dup(out[1], STDOUT_FILENO);
        execvp(cfg->argv[0], cfg->argv);
        int code = errno;
        ssize_t unused = write(report[1], &code, sizeof code);
        (void)unused;
        _exit(127);
    }
    if (pid > 0)
        setpgid(pid, pid); /* also here, so a kill right after fork already finds the group */
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&report[1]);
    if (pid < 0) {
        snprintf(err, err_size, "cannot fork: %s", strerror(errno));
        close_fd(&in[1]);
        close_fd(&out[0]);
        close_fd(&report[0]);
        return false;
    }
    int code = 0;
    ssize_t n;
    do
        n = read(report[0], &code, sizeof code);
    while (n < 0 && errno == EINTR);
    close_fd(&report[0]);
    if (n == (ssize_t)sizeof code) {
        snprintf(err, err_size, "cannot run '%s': %s", cfg->cmd, strerror(code));
        close_fd(&in[1]);
        close_fd(&out[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return false;
    }
    e->pid = pid;
    e->to_fd = in[1];
    e->from_fd = out[0];
    fcntl(e->to_fd, F_SETFL, fcntl(e->to_fd, F_GETFL) | O_NONBLOCK);
    return true;
}

bool match_engine_send(MatchEngine *e, const char *fmt, ...)
{
    if (!e->pid || e->to_fd < 0)
        return false;
    char small[1024], *s = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return false;
    if ((size_t)n >= sizeof small - 1) { /* a long "position ... moves" line */
        s = malloc((size_t)n + 2);
        if (!s)
            return false;
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    s[n++] = '\n';
    bool ok = true;
    for (size_t done = 0; ok && done < (size_t)n;) {
        ssize_t w = write(e->to_fd, s + done, (size_t)n - done);
        if (w > 0) {
            done += (size_t)w;
        } else if (w < 0 && errno == EAGAIN) {
            struct pollfd p = {e->to_fd, POLLOUT, 0};
            int r = poll(&p, 1, SEND_TIMEOUT_MS);
            ok = r > 0 || (r < 0 && errno == EINTR);
        } else if (!(w < 0 && errno == EINTR)) {
            ok = false; /* EPIPE: the engine closed its input, probably dead */
        }
    }
    if (s != small)
        free(s);
    return ok;
}

MatchReadResult match_engine_read_line(MatchEngine *e, char *line, size_t size, int64_t deadline)
{
    for (;;) {
        char *nl = memchr(e->buf, '\n', e->len);
        if (nl) {
            size_t n = (size_t)(nl - e->buf);
            bool dropped = e->discarding;
            e->discarding = false;
            if (!dropped) {
                if (n && e->buf[n - 1] == '\r')
                    n--;
                size_t k = n < size - 1 ? n : size - 1;
                memcpy(line, e->buf, k);
                line[k] = 0;
            }
            size_t used = (size_t)(nl - e->buf) + 1;
            memmove(e->buf, e->buf + used, e->len - used);
            e->len -= used;
            if (!dropped)
                return MATCH_READ_LINE;
            continue;
        }
        if (e->len == MATCH_LINE_MAX) { /* no line is this long but an endless PV: drop it */
            e->len = 0;
            e->discarding = true;
        }
        if (e->eof || e->from_fd < 0)
            return MATCH_READ_DEAD;
        int64_t now = match_now_ns();
        if (now >= deadline)
            return MATCH_READ_TIMEOUT;
        int64_t ms = (deadline - now + 999999) / 1000000;
        struct pollfd p = {e->from_fd, POLLIN, 0};
        int r = poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
        if (r <= 0)
            continue; /* timeout, or EINTR: the deadline check above decides */
        ssize_t got = read(e->from_fd, e->buf + e->len, MATCH_LINE_MAX - e->len);
        if (got > 0)
            e->len += (size_t)got;
        else if (got == 0 || (errno != EINTR && errno != EAGAIN))
            e->eof = true;
    }
}

/* Whether the process has exited, without reaping it: while it is an unreaped zombie its pid (and
 * so its process group id) cannot be reused, which keeps the group kill in stop() safe. */
static bool has_exited(MatchEngine *e)
{
    if (e->exited)
        return true;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)e->pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
        if (errno == EINTR)
            return false;
        e->exited = true; /* ECHILD: not ours any more; nothing to wait for */
        e->status = -1;
        return true;
    }
    if (info.si_pid == 0)
        return false;
    e->exited = true;
    e->status = info.si_code == CLD_EXITED ? info.si_status : -info.si_status;
    return true;
}

bool match_engine_alive(MatchEngine *e) { return e->pid && !e->eof && !has_exited(e); }

void match_engine_describe_death(MatchEngine *e, char *buf, size_t size)
{
    if (e->pid && !has_exited(e)) {
        /* Its output closed but it still runs: give it a moment to finish exiting. */
        for (int i = 0; i < 10 && !has_exited(e); i++)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (!e->exited)
        snprintf(buf, size, "closed its output");
    else if (e->status >= 0)
        snprintf(buf, size, "exited with code %d", e->status);
    else
        snprintf(buf, size, "killed by signal %d", -e->status);
}

bool match_engine_sync(MatchEngine *e, int timeout_ms, char *err, size_t err_size)
{
    if (!match_engine_send(e, "isready")) {
        snprintf(err, err_size, "does not accept input");
        return false;
    }
    int64_t deadline = match_now_ns() + (int64_t)timeout_ms * 1000000;
    char line[MATCH_LINE_MAX];
    for (;;) {
        MatchReadResult r = match_engine_read_line(e, line, sizeof line, deadline);
        if (r == MATCH_READ_LINE && !strcmp(line, "readyok"))
            return true;
        if (r == MATCH_READ_TIMEOUT) {
            snprintf(err, err_size, "no 'readyok' within %d ms", timeout_ms);
            return false;
        }
        if (r == MATCH_READ_DEAD) {
            char why[64];
            match_engine_describe_death(e, why, sizeof why);
            snprintf(err, err_size, "died waiting for 'readyok' (%s)", why);
            return false;
        }
    }
}

/* When line is "option name NAME type ..." for this name (names may hold spaces, so up to " type "),
 * its declaration: the text from " type " on ("" when it has none); otherwise NULL. */
static const char *declared_option(const char *line, const char *name)
{
    if (strncmp(line, "option name ", 12))
        return NULL;
    const char *start = line + 12, *end = strstr(start, " type ");
    size_t n = end ? (size_t)(end - start) : strlen(start);
    if (n != strlen(name) || strncasecmp(start, name, n)) /* UCI names ignore case */
        return NULL;
    return end ? end : "";
}

/* The word after " KEY " in an option's declaration, copied into out (empty when absent). */
static void option_field(const char *decl, const char *key, char *out, size_t size)
{
    char pattern[16];
    snprintf(pattern, sizeof pattern, " %s ", key);
    const char *at = strstr(decl, pattern);
    size_t n = 0;
    for (const char *c = at ? at + strlen(pattern) : ""; *c && *c != ' ' && n + 1 < size; c++)
        out[n++] = *c;
    out[n] = '\0';
}

/* Whether a combo's " var X" items include value (UCI values ignore case too; a var may hold spaces:
 * up to the next " var "). */
static bool combo_has(const char *decl, const char *value)
{
    for (const char *at = strstr(decl, " var "); at; at = strstr(at + 1, " var ")) {
        const char *start = at + 5, *end = strstr(start, " var ");
        size_t n = end ? (size_t)(end - start) : strlen(start);
        if (n == strlen(value) && !strncasecmp(start, value, n))
            return true;
    }
    return false;
}

/* An engine ignores a setoption whose value its declaration does not allow (Stockfish 15.1 keeps
 * UCI_Elo at 1350 when asked 3190, outside its 1350-2850), and a match would then measure something
 * else than it says. Writes why into why and returns false when value does not fit the declaration. */
static bool option_value_fits(const char *decl, const MatchOption *o, char *why, size_t size)
{
    char type[64], lo[64], hi[64];
    option_field(decl, "type", type, sizeof type);
    if (!strcmp(type, "button")) {
        if (o->value)
            snprintf(why, size, "option '%s' is a button: give it as option.%s, without a value", o->name, o->name);
        return !o->value;
    }
    if (!o->value) {
        snprintf(why, size, "option '%s' is a %s, not a button: give it a value (option.%s=VALUE)", o->name, type,
                 o->name);
        return false;
    }
    if (!strcmp(type, "spin")) {
        option_field(decl, "min", lo, sizeof lo);
        option_field(decl, "max", hi, sizeof hi);
        char *end;
        errno = 0;
        long long v = strtoll(o->value, &end, 10);
        bool number = end != o->value && !*end && !errno;
        if (!number || (lo[0] && v < atoll(lo)) || (hi[0] && v > atoll(hi))) {
            snprintf(why, size, "option '%s' = '%s' is %s the engine's range %s..%s (it would ignore it)", o->name,
                     o->value, number ? "outside" : "not a whole number in", lo[0] ? lo : "?", hi[0] ? hi : "?");
            return false;
        }
    } else if (!strcmp(type, "check") && strcasecmp(o->value, "true") && strcasecmp(o->value, "false")) {
        snprintf(why, size, "option '%s' is a check: 'true' or 'false', not '%s'", o->name, o->value);
        return false;
    } else if (!strcmp(type, "combo") && !combo_has(decl, o->value)) {
        const char *vars = strstr(decl, " var ");
        snprintf(why, size, "option '%s' = '%s' is none of its choices:%s", o->name, o->value, vars ? vars : " (none)");
        return false;
    }
    return true;
}

MatchStart match_engine_start(MatchEngine *e, const MatchEngineConfig *cfg, int timeout_ms, bool warn_options,
                              char *id_name, size_t id_size, char *err, size_t err_size)
{
    if (!match_engine_spawn(e, cfg, err, err_size))
        return MATCH_START_REFUSED;
    bool *declared = calloc((size_t)cfg->option_count + 1, sizeof *declared);
    if (!declared)
        abort();
    if (!match_engine_send(e, "uci")) {
        char why[64];
        match_engine_describe_death(e, why, sizeof why);
        snprintf(err, err_size, "died during the 'uci' handshake (%s)", e->exited ? why : "closed its input");
        free(declared);
        return MATCH_START_FAILED;
    }
    int64_t deadline = match_now_ns() + (int64_t)timeout_ms * 1000000;
    char line[MATCH_LINE_MAX];
    bool refused = false; /* an option value the engine's declaration does not allow */
    for (;;) {
        MatchReadResult r = match_engine_read_line(e, line, sizeof line, deadline);
        if (r == MATCH_READ_LINE && !strcmp(line, "uciok"))
            break;
        if (r != MATCH_READ_LINE) {
            if (r == MATCH_READ_TIMEOUT) {
                snprintf(err, err_size, "no 'uciok' within %d ms", timeout_ms);
            } else {
                char why[64];
                match_engine_describe_death(e, why, sizeof why);
                snprintf(err, err_size, "died during the 'uci' handshake (%s)", why);
            }
            free(declared);
            return MATCH_START_FAILED;
        }
        if (id_name && !strncmp(line, "id name ", 8))
            snprintf(id_name, id_size, "%s", line + 8);
        for (int i = 0; i < cfg->option_count; i++) {
            const char *decl = declared_option(line, cfg->options[i].name);
            declared[i] |= decl != NULL;
            refused |= decl && !refused && !option_value_fits(decl, &cfg->options[i], err, err_size);
        }
    }
    if (refused) {
        free(declared);
        return MATCH_START_REFUSED;
    }
    for (int i = 0; i < cfg->option_count; i++) {
        const MatchOption *o = &cfg->options[i];
        if (!declared[i] && warn_options)
            fprintf(stderr, "match: warning: '%s' declares no option '%s' (sent anyway)\n", cfg->cmd, o->name);
        bool sent = o->value ? match_engine_send(e, "setoption name %s value %s", o->name, o->value)
                             : match_engine_send(e, "setoption name %s", o->name);
        if (!sent) {
            snprintf(err, err_size, "does not accept input");
            free(declared);
            return MATCH_START_FAILED;
        }
    }
    free(declared);
    return match_engine_sync(e, timeout_ms, err, err_size) ? MATCH_STARTED : MATCH_START_FAILED;
}

void match_engine_stop(MatchEngine *e, bool polite)
{
    if (!e->pid)
        return;
    if (polite && !e->eof && !e->exited && match_engine_send(e, "quit")) {
        for (int i = 0; i < QUIT_GRACE_MS / 10 && !has_exited(e); i++)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    /* The whole group: a wrapper script's own children go too. The leader is not reaped yet, so
     * the group id is still ours. */
    kill(-e->pid, SIGKILL);
    kill(e->pid, SIGKILL);
    while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    /* Orphans of the group (a wrapper's children) come to us when match_command made this process
     * a child subreaper: reap them too, but wait no longer than the grace period for them. */
    for (int i = 0; i < QUIT_GRACE_MS / 10;) {
        pid_t r = waitpid(-e->pid, NULL, WNOHANG);
        if (r < 0 && errno != EINTR)
            break; /* ECHILD: none left */
        if (r == 0) {
            nanosleep(&(struct timespec){0, 10000000}, NULL);
            i++;
        }
    }
    close_fd(&e->to_fd);
    close_fd(&e->from_fd);
    e->pid = 0;
    e->exited = true;
}
