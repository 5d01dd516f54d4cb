/* The REST route table and the handlers it names (each in the file of its area). Loop thread. */
#ifndef FEELFISH_ROUTES_H
#define FEELFISH_ROUTES_H

#include "../base/config.h"
#include "../net/http.h"

typedef struct {
    const char *method;
    const char *path; /* "/api/jobs/{id}" */
    void (*handler)(Request *r, const char *param);
    const char *summary;
    unsigned scopes; /* what a token needs for it (store/tokens.h), 0: any access */
    bool open;       /* answered to anyone, with or without a token, and not rate-limited */
} Route;

extern const Route Routes[];
extern const int RouteCount;

/* The route a request matched (index into Routes), RouteCount for none: for metrics (kept on the
 * request by routes_handle; matched here only for a request that never reached it). */
int routes_index(const Request *r);
/* Finds and runs the request's route (or the static page, or a 404/405/413). */
void routes_handle(Request *r);

/* analysis_routes.c */
void analysis_analyse(Request *r, const char *param);
void analysis_job_create(Request *r, const char *param);
void analysis_job_get(Request *r, const char *id);
void analysis_job_delete(Request *r, const char *id);
void analysis_cloud_eval(Request *r, const char *param);
/* At start: runs again the jobs stored as queued or running; returns how many. Those that found no
 * room wait: analysis_retry_waiting submits them as room comes (returns how many still wait). */
int analysis_resume(void);
int analysis_retry_waiting(void);
void analysis_forget_waiting(void);
/* games_routes.c; init: games store themselves through the API */
void games_routes_init(const ServerConfig *cfg);
/* At start: starts the engine's move of the games that waited for it; returns how many. */
int games_routes_resume(void);
void games_route_create(Request *r, const char *param);
void games_route_get(Request *r, const char *id);
void games_route_move(Request *r, const char *id);
void games_route_pgn(Request *r, const char *id);
void games_route_resign(Request *r, const char *id);
void games_route_takeback(Request *r, const char *id);
/* play_routes.c: POST /api/play; lab_routes.c: POST /api/lab */
void play_route(Request *r, const char *param);
void lab_route(Request *r, const char *param);
void lab_routes_init(const ServerConfig *cfg);
void lab_routes_stop(void); /* the loop is stopping: its deadline timer closes */
/* models_routes.c */
void models_route_bayes(Request *r, const char *param);
void models_route_bayes_curve(Request *r, const char *param);
void models_route_style(Request *r, const char *param);
/* bot_routes.c */
void bot_route_status(Request *r, const char *param);
/* ws_ops.c: the limits WebSocket ops are held to */
void ws_ops_set_config(const ServerConfig *cfg);
/* metrics.c */
void metrics_route(Request *r, const char *param);
void metrics_count_request(const Request *r);

#endif
