/* A worker's /metrics (metrics_http.h). */
#include "metrics_http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    struct MHD_Daemon *daemon;
    pthread_mutex_t lock;
    char *text;
    size_t len;
} M = {.lock = PTHREAD_MUTEX_INITIALIZER};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, const char *body, size_t len)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", type);
    enum MHD_Result ok = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state)
{
    (void)cls, (void)version, (void)upload, (void)state;
    if (*upload_size) { /* a GET has no body: whatever comes is dropped */
        *upload_size = 0;
        return MHD_YES;
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return reply(c, 405, "text/plain", "GET /metrics only\n", 18);
    if (strcmp(url, "/metrics"))
        return reply(c, 404, "text/plain", "this worker serves /metrics only\n", 33);
    pthread_mutex_lock(&M.lock);
    enum MHD_Result ok = reply(c, 200, "text/plain; version=0.0.4", M.text ? M.text : "", M.text ? M.len : 0);
    pthread_mutex_unlock(&M.lock);
    return ok;
}

bool metrics_http_start(const char *bind, int port, int *bound, char *err, size_t err_size)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, bind, &addr.sin_addr) != 1) {
        snprintf(err, err_size, "'%s' is not an IPv4 address", bind);
        return false;
    }
    M.daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL,
                                on_request, NULL, MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_CONNECTION_LIMIT, 64,
                                MHD_OPTION_CONNECTION_TIMEOUT, 10, MHD_OPTION_END);
    if (!M.daemon) {
        snprintf(err, err_size, "cannot listen on %s:%d", bind, port);
        return false;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(M.daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound = info ? info->port : port;
    return true;
}

void metrics_http_set(char *text, size_t len)
{
    pthread_mutex_lock(&M.lock);
    free(M.text);
    M.text = text;
    M.len = len;
    pthread_mutex_unlock(&M.lock);
}

void metrics_http_stop(void)
{
    if (M.daemon)
        MHD_stop_daemon(M.daemon);
    M.daemon = NULL;
    metrics_http_set(NULL, 0);
}
