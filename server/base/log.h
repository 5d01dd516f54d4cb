/* Logging: levelled messages and the access log, both to standard error, one line each: as text
 * ("2026-11-21T10:40:00.123Z info message") or, with log_set_format("json"), as JSON lines
 * ({"time", "level", "message"}; access lines {"time", "level": "access", "requestId", "client",
 * "method", "path", "status", "ms"}). Client text is escaped either way. Thread-safe. */
#ifndef FEELFISH_LOG_H
#define FEELFISH_LOG_H

#include <stdbool.h>

typedef enum { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG } LogLevel;

void log_set_level(const char *name);
/* "text" or "json"; false for another name. */
bool log_set_format(const char *name);
void log_msg(LogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct {
    const char *request_id, *client, *method, *path;
    int status;
    double ms;
} AccessLine;
void log_access(const AccessLine *a);

#endif
