/* Log lines: "2026-11-21T10:40:00.123Z info message". Thread-safe: each line is one fprintf. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static LogLevel Level = LOG_INFO;
static const char *const Names[] = {"error", "warn", "info", "debug"};

void log_set_level(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, Names[i]))
            Level = (LogLevel)i;
}

static void stamp(char *buf, size_t size)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    size_t n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, size - n, ".%03ldZ", (long)tv.tv_usec / 1000);
}

/* Client text reaches the log (a path, a message quoting a field): control characters, DEL and
 * backslashes are written as \xNN, so no client can forge a line or send terminal escapes. At most
 * `limit` input bytes are taken. */
static void escape(char *out, size_t size, const char *in, size_t limit)
{
    size_t o = 0;
    for (size_t i = 0; in[i] && i < limit && o + 5 < size; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c < 0x20 || c == 0x7f || c == '\\')
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = 0;
}

void log_msg(LogLevel level, const char *fmt, ...)
{
    if (level > Level)
        return;
    char line[1024], safe[4096], when[40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    escape(safe, sizeof safe, line, sizeof line);
    stamp(when, sizeof when);
    fprintf(stderr, "%s %s %s\n", when, Names[level], safe);
}

void log_access(const char *method, const char *path, int status, double ms)
{
    if (Level < LOG_INFO)
        return;
    char when[40], m[80], p[1024];
    escape(m, sizeof m, method, 16);
    escape(p, sizeof p, path, 200);
    stamp(when, sizeof when);
    fprintf(stderr, "%s access %s %s %d %.2fms\n", when, m, p, status, ms);
}
