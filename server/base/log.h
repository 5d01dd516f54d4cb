/* Logging: levelled error log and the access log, both to standard error, one line each. */
#ifndef FEELFISH_LOG_H
#define FEELFISH_LOG_H

typedef enum { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG } LogLevel;

void log_set_level(const char *name);
void log_msg(LogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_access(const char *method, const char *path, int status, double ms);

#endif
