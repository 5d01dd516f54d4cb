/* /metrics for a process without the API (`feelfish worker`): libmicrohttpd on a thread of its own
 * answers GET /metrics with the last text the loop handed over (metrics_http_set, every second), 404
 * to any other path, 405 to any other method. */
#ifndef FEELFISH_NET_METRICS_HTTP_H
#define FEELFISH_NET_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* Listens on bind:port (port 0: any; the one bound is written to *bound). False with a message. */
bool metrics_http_start(const char *bind, int port, int *bound, char *err, size_t err_size);
/* Replaces the text served (taken over). */
void metrics_http_set(char *text, size_t len);
void metrics_http_stop(void);

#endif
