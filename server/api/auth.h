/* Who is asking, and what they may do. `--auth off` (the default when bound to loopback): no
 * token is looked at and everyone may do everything. `optional` (the default on any other
 * address): a request without a token may analyse and play; one with `Authorization: Bearer
 * TOKEN` has its token's scopes, and a token that is not (or no longer) valid gets 401.
 * `required`: every API request but health, config and OpenAPI needs a valid token. Tokens are
 * read from the database at start and again every second, so `feelfish token create` and
 * `revoke` reach a running server within a second. Loop thread. */
#ifndef FEELFISH_AUTH_H
#define FEELFISH_AUTH_H

#include <stdbool.h>
#include <uv.h>

#include "../base/config.h"
#include "../base/error.h"
#include "../net/http.h"
#include "../store/tokens.h"

typedef enum { AUTH_OFF, AUTH_OPTIONAL, AUTH_REQUIRED } AuthMode;

typedef struct {
    char who[48];    /* whose quotas, jobs and games: "token:ID" with a token, else the address */
    unsigned scopes; /* what it may do */
    bool token;      /* it showed a valid token */
} Identity;

/* The mode --auth asks for ("auto": off on a loopback --bind, optional otherwise); false for an
 * unknown mode. */
bool auth_parse_mode(const ServerConfig *cfg, AuthMode *mode);
/* Reads the tokens (before serving) and starts re-reading them every second. */
void auth_start(const ServerConfig *cfg, uv_loop_t *loop);
void auth_stop(void);
AuthMode auth_mode(void);
const char *auth_mode_name(void);

/* The identity of a request from `address` with that Authorization header (NULL: none); false
 * with e set (401 invalid_token) for a malformed, unknown or revoked token. */
bool auth_identify(const char *authorization, const char *address, Identity *id, ApiError *e);
/* Whether `id` may do what needs `scopes` (0: any access at all); false with e set: 401
 * auth_required without a token, 403 missing_scope with one. */
bool auth_allows(const Identity *id, unsigned scopes, ApiError *e);

/* A request's identity, as routes_handle set it on the request. */
Identity auth_of(const Request *r);
/* Whether `who` may see and stop a job of `owner`: its own, or any with an admin token (a job
 * stored before jobs had owners has owner "": anyone's). False with e set (403 not_your_job). */
bool auth_owns_job(const char *owner, const Identity *who, ApiError *e);
/* Whether `who` may watch a job (its result, its info frames): as auth_owns_job, and anyone for the
 * Lichess bot's searches (its games are public there, and GET /api/bot lists their jobs). */
bool auth_sees_job(const char *owner, const Identity *who, ApiError *e);

#endif
