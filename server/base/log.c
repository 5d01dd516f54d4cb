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

void log_msg(LogLevel level, const char *fmt, ...)
{
    if (level > Level)
        return;
    char line[1024], when[40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    stamp(when, sizeof when);
    fprintf(stderr, "%s %s %s\n", when, Names[level], line);
}

void log_access(const char *method, const char *path, int status, double ms)
{
    if (Level < LOG_INFO)
        return;
    char when[40];
    stamp(when, sizeof when);
    fprintf(stderr, "%s access %s %.200s %d %.2fms\n", when, method, path, status, ms);
}
