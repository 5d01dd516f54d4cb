/* The REST API: the route table (from which the OpenAPI document also comes), request parsing
 * and validation, and the JSON of search results. */
#ifndef FEELFISH_API_H
#define FEELFISH_API_H

#include <jansson.h>

#include "../base/config.h"
#include "../net/http.h"
#include "../jobs/jobs.h"

/* A rejected request: what REST answers and what a WebSocket error frame carries. */
typedef struct {
    int status;
    char code[48];
    char field[64];
    char message[512];
} ApiError;

void api_error_set(ApiError *e, int status, const char *code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
json_t *api_error_json(const ApiError *e); /* {"code", "message", "field"?} */
json_t *api_parse_json_text(ApiError *e, const char *text, size_t len);
/* A REST request's JSON object body; NULL when the request already has its error answer (415 for
 * another content type, 400 for bad JSON). */
json_t *api_parse_body(Request *r);
void api_reply_error(Request *r, const ApiError *e);
/* Validates an analysis request (REST body or WebSocket op) into a new job, not yet submitted. */
Job *api_parse_analysis(ApiError *e, json_t *body, bool allow_infinite);

typedef struct {
    const char *method;
    const char *path; /* "/api/jobs/{id}" */
    void (*handler)(Request *r, const char *param);
    const char *summary;
} Route;

extern const Route Routes[];
extern const int RouteCount;

void api_init(const ServerConfig *cfg, int http_port, int ws_port);
void analysis_set_config(const ServerConfig *cfg);  /* analysis.c: the caps requests are held to */
int api_route_index(const Request *r);              /* index into Routes, RouteCount for none */
void metrics_handle(Request *r, const char *param); /* metrics.c: GET /metrics */
void api_handle(Request *r);
void api_request_done(Request *r);
void api_count_request(const Request *r);
json_t *api_openapi(void);

/* Worker threads: the JSON of an info event and of a finished search (scores from White's view). */
json_t *api_info_json(const Job *job, const SearchInfo *info);
json_t *api_result_json(const Job *job, const SearchResult *r, const SearchResult *classical, bool cancelled);
/* The emotion object of the API (relief, desirability, arousal, label, intensity, goal, ...). */
json_t *api_emotion_json(const Emotion *e);
/* The loop's hook for every job event (metrics). */
void api_on_job_event(Job *job, json_t *event, bool final);

#endif
