/* Server settings: one table gives each its flag, environment variable, default, range and help,
 * so `--help`, validation and GET /api/config all come from the same place. */
#ifndef FEELFISH_CONFIG_H
#define FEELFISH_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    long http_port, ws_port, workers, quick_workers, hash_mb, queue;
    long body_max, ws_message_max, ws_searches_max, ws_send_buffer, ws_queue_max;
    long rate, rate_burst, client_jobs_max, client_infinite_max, learn_min_plies, learn_per_hour;
    long max_depth, max_movetime, max_multipv, job_timeout;
    long connections_max, connections_per_ip, header_timeout, body_timeout, keepalive_timeout, keepalive_requests;
    long ws_idle_timeout, ws_ping_interval;
    long retention_days, retention_jobs, retention_games, retention_evals, game_memory_idle;
    long long max_nodes;
    char db[512], web[512], style_model[512], bind[64], log_level[16], log_format[16], auth[16];
    char allowed_origins[512], allowed_hosts[512], bot[512], redis[300], trusted_proxies[512], public_url[256];
    /* Bound to anything but loopback, the quotas nobody set take the exposed defaults (config_load):
     * their flags, for GET /api/config ("--rate,--rate-burst,..."; "" when none). */
    char exposed_defaults[160];
} ServerConfig;

/* The quotas a server reachable from other machines starts with when they are not set (flag or
 * environment): a client's --rate and burst, its analyses (at least 2: the page plays a game beside
 * its live analysis; else one less than the workers), its infinite analyses. */
#define EXPOSED_RATE 20
#define EXPOSED_RATE_BURST 40
#define EXPOSED_CLIENT_INFINITE_MAX 1

/* Whether --public-url's value is http(s)://host[:port][/path]. */
bool config_public_url_valid(const char *url);
/* Whether an address given to --bind is a loopback one (127.0.0.0/8, ::1, localhost). */
bool config_bind_is_loopback(const char *bind);

typedef enum { SETTING_NUMBER, SETTING_TEXT } SettingType;

typedef struct {
    const char *flag; /* --http */
    const char *env;  /* FEELFISH_HTTP_PORT */
    const char *json; /* httpPort: the key in GET /api/config */
    SettingType type;
    const char *def;
    long long min, max;
    size_t offset; /* into ServerConfig */
    size_t size;   /* of the field (a text's room) */
    const char *help;
    bool private; /* a path or URL of the operator's: GET /api/config shows it only to an admin */
} Setting;

extern const Setting Settings[];
extern const int SettingCount;

/* Defaults, then environment, then flags. False with a one-line reason on a bad value or flag;
 * *help is set when --help was asked for. Sets the process's trusted proxies (base/proxy.h). */
bool config_load(ServerConfig *c, int argc, char **argv, bool *help, char *err, size_t err_size);
void config_usage(FILE *f);
/* The database the commands beside serve use unless told (--db): FEELFISH_DB, else serve's default. */
const char *config_default_db(void);

#endif
