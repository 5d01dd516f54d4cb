/* Log lines: see log.h. Each line is one fprintf. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "utf8.h"

static LogLevel Level = LOG_INFO;
static bool Json;
static const char *const Names[] = {"error", "warn", "info", "debug"};

void log_set_level(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, Names[i]))
            Level = (LogLevel)i;
}

bool log_set_format(const char *name)
{
    if (strcmp(name, "text") && strcmp(name, "json"))
        return false;
    Json = !strcmp(name, "json");
    return true;
}

static void stamp(char *buf, size_t size)
{
    struct timeval tv;
    struct tm tm;
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    size_t n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, size - n, ".%03ldZ", (long)tv.tv_usec / 1000);
}

/* Client text reaches the log (a path, a message quoting a field): control characters, DEL,
 * backslashes and bytes that are not valid UTF-8 are written as \xNN (in JSON lines, quotes and
 * backslashes as JSON escapes them and the rest as \u00NN), so no client can forge a line, break
 * the JSON or send terminal escapes. At most `limit` input bytes are taken. */
static void escape(char *out, size_t size, const char *in, size_t limit)
{
    size_t o = 0;
    for (size_t i = 0; in[i] && i < limit && o + 8 < size;) {
        unsigned char c = (unsigned char)in[i];
        size_t n = utf8_sequence(in + i);
        if (n > 1 && i + n <= limit && o + n + 1 < size) {
            memcpy(out + o, in + i, n);
            o += n;
            i += n;
            continue;
        }
        if (Json && (c == '"' || c == '\\'))
            o += (size_t)snprintf(out + o, size - o, "\\%c", c);
        else if (Json && (c < 0x20 || c >= 0x7f))
            o += (size_t)snprintf(out + o, size - o, "\\u00%02x", c);
        else if (c < 0x20 || c >= 0x7f || c == '\\')
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
        i++;
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
    if (Json)
        fprintf(stderr, "{\"time\":\"%s\",\"level\":\"%s\",\"message\":\"%s\"}\n", when, Names[level], safe);
    else
        fprintf(stderr, "%s %s %s\n", when, Names[level], safe);
}

void log_access(const AccessLine *a)
{
    if (Level < LOG_INFO)
        return;
    char when[40], id[160], client[160], m[80], p[1024];
    escape(id, sizeof id, a->request_id ? a->request_id : "", 64);
    escape(client, sizeof client, a->client ? a->client : "", 48);
    escape(m, sizeof m, a->method, 16);
    escape(p, sizeof p, a->path, 200);
    stamp(when, sizeof when);
    if (Json)
        fprintf(stderr,
                "{\"time\":\"%s\",\"level\":\"access\",\"requestId\":\"%s\",\"client\":\"%s\",\"method\":\"%s\","
                "\"path\":\"%s\",\"status\":%d,\"ms\":%.2f}\n",
                when, id, client, m, p, a->status, a->ms);
    else
        fprintf(stderr, "%s access %s %s %d %.2fms %s %s\n", when, m, p, a->status, a->ms, id, client);
}
