/* The API's rows in the store and, in a cluster, in Redis (persist.h). */
#include "persist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/log.h"
#include "../domain/shared.h"
#include "../jobs/cluster.h"
#include "encode.h"
#include "saves.h"

#define JOB_KEY "feelfish:job:"
#define GAME_KEY "feelfish:game:"
#define EVAL_KEY "feelfish:eval:"
#define EVAL_KEEP_S (30 * 86400) /* a position's cache entries go 30 days after its last new one */
#define STALE (-1)               /* a game's version when this front's copy is known to be behind */
#define PERSIST_WAIT_MS 3000     /* a save made while the link reconnects waits this long for it (a Redis restart) */

static const ServerConfig *Cfg;

void persist_init(const ServerConfig *cfg) { Cfg = cfg; }

/* How long the shared copy of a game stays: the store's retention in days (0: for ever). A job's
 * stays CLUSTER_KEEP_S (a day: jobs are many, and the front that ran one keeps it in SQLite). */
static long keep_s(void) { return Cfg && Cfg->retention_days > 0 ? Cfg->retention_days * 86400 : 0; }

static bool failed_reply(const redisReply *r) { return !r || r->type == REDIS_REPLY_ERROR; }

/* A string reply's text, NULL if it is missing or "". */
static const char *nonempty(const redisReply *r) { return *redis_text(r) ? redis_text(r) : NULL; }

/* ---- saves ---- */

/* One tracked save (saves.c) made of the writes to SQLite and, in a cluster, to Redis: it succeeds
 * only if every one does, whichever answers first. */
typedef struct {
    void *save;
    int waiting;
    bool ok;
} Joint;

static Joint *joint_begin(const char *key)
{
    Joint *j = malloc(sizeof *j);
    if (!j)
        abort();
    *j = (Joint){saves_begin(key), shared_on() ? 2 : 1, true};
    return j;
}

static void joint_done(bool ok, void *arg)
{
    Joint *j = arg;
    j->ok = j->ok && ok;
    if (--j->waiting)
        return;
    saves_done(j->ok, j->save);
    free(j);
}

static void shared_saved(redisAsyncContext *ac, void *r, void *joint)
{
    (void)ac;
    joint_done(!failed_reply(r), joint);
}

/* A job's row; once it has ended, its live status and the worker's copy of the result go (the row
 * holds the result). */
static const char JobSave[] = "redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'status', ARGV[2], 'text', ARGV[3]) "
                              "redis.call('EXPIRE', KEYS[1], ARGV[4]) "
                              "if ARGV[2] ~= 'queued' and ARGV[2] ~= 'running' then "
                              "redis.call('HDEL', KEYS[1], 'live') redis.call('DEL', KEYS[2]) end "
                              "return 1";

void persist_job(const char *id, const char *owner, const char *status, long long created_ms, long long finished_ms,
                 char *text)
{
    Joint *j = joint_begin(id);
    if (shared_on() &&
        !redis_link_send(shared_link(), PERSIST_WAIT_MS, shared_saved, j, "EVAL %s 2 %s%s %s%s %s %s %s %d", JobSave,
                         JOB_KEY, id, CLUSTER_RESULT, id, owner, status, text ? text : "", CLUSTER_KEEP_S))
        joint_done(false, j); /* (a job cancelled before it ran has no text) */
    store_save_job(id, owner, status, created_ms, finished_ms, text, joint_done, j);
}

void persist_job_live(const char *id, const char *text)
{
    if (shared_on() && redis_link_command(shared_link(), NULL, NULL, "HSET %s%s live %s", JOB_KEY, id, text))
        redis_link_command(shared_link(), NULL, NULL, "EXPIRE %s%s %d", JOB_KEY, id, CLUSTER_KEEP_S);
}

/* Compare and set: the save applies only to the version it was made from. */
static const char GameSave[] = "local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0') "
                               "if v ~= tonumber(ARGV[1]) then return -1 end "
                               "redis.call('HSET', KEYS[1], 'v', v + 1, 'state', ARGV[2], 'thinker', ARGV[3]) "
                               "if tonumber(ARGV[4]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[4]) end "
                               "return v + 1";

typedef struct {
    char id[GAMES_ID_LEN + 1];
    Joint *joint;
} GameSaving;

static void game_saved(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    GameSaving *s = priv;
    const redisReply *reply = r;
    bool ok = reply && reply->type == REDIS_REPLY_INTEGER && reply->integer > 0;
    if (!ok) {
        Game *g = games_find(s->id);
        if (g) /* behind the shared copy (or unsure): read again before its next use */
            g->shared_version = STALE;
        if (reply && reply->type == REDIS_REPLY_INTEGER)
            log_msg(LOG_WARN, "game %s was changed through another front meanwhile: this change is not stored", s->id);
    }
    joint_done(ok, s->joint);
    free(s);
}

void persist_game(Game *g, char *text, bool engine_to_move)
{
    Joint *j = joint_begin(g->id);
    if (shared_on()) {
        GameSaving *s = malloc(sizeof *s);
        if (!s)
            abort();
        snprintf(s->id, sizeof s->id, "%s", g->id);
        s->joint = j;
        long long from = g->shared_version;
        g->shared_version = from == STALE ? STALE : from + 1; /* saves go out in order on one link */
        if (!text ||
            !redis_link_send(shared_link(), PERSIST_WAIT_MS, game_saved, s, "EVAL %s 1 %s%s %lld %s %s %ld", GameSave,
                             GAME_KEY, g->id, from, text, engine_to_move ? shared_name() : "", keep_s())) {
            g->shared_version = STALE;
            joint_done(false, j);
            free(s);
        }
    }
    store_save_game(g->id, g->updated_ms, text, engine_to_move, joint_done, j);
}

bool persist_game_current(const Game *g)
{
    return !shared_up() || g->thinking || g->external || g->pinned; /* (Redis away: what this front holds) */
}

/* ---- loads ---- */

struct PersistLoad {
    char id[64];
    PersistJobLoaded job_done;
    PersistGameLoaded game_done;
    void *user; /* NULL once forgotten */
};

void persist_load_forget(PersistLoad *l) { l->user = NULL; }

/* Hands a job's row (parsed from text) to its caller, unless forgotten; frees l. */
static void job_found(PersistLoad *l, const char *text, const char *owner)
{
    json_t *row = text && l->user ? json_loads(text, 0, NULL) : NULL;
    if (l->user)
        l->job_done(row, owner, l->user);
    else
        json_decref(row);
    free(l);
}

/* The same for a game's state. */
static void game_found(PersistLoad *l, const char *text, long long version, bool orphaned)
{
    json_t *state = text && l->user ? json_loads(text, 0, NULL) : NULL;
    if (l->user)
        l->game_done(state, version, orphaned, l->user);
    else
        json_decref(state);
    free(l);
}

/* From the store: what a single front has, and a cluster's fallback (rows from before it joined). */
static void local_loaded(char *text, const char *owner, void *arg)
{
    PersistLoad *l = arg;
    if (l->job_done)
        job_found(l, text, owner);
    else
        game_found(l, text, 0, false);
    free(text);
}

static bool load_locally(PersistLoad *l)
{
    return l->game_done ? store_load_game(l->id, local_loaded, l) != NULL
                        : store_load_job(l->id, local_loaded, l) != NULL;
}

/* A look-up, its Redis read sent or not: if not, the store when `locally` says so, else nothing. */
static PersistLoad *started(PersistLoad *l, bool sent, bool locally)
{
    if (sent || (locally && load_locally(l)))
        return l;
    free(l);
    return NULL;
}

static PersistLoad *new_load(const char *id, PersistJobLoaded job_done, PersistGameLoaded game_done, void *user)
{
    PersistLoad *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    snprintf(l->id, sizeof l->id, "%s", id);
    l->job_done = job_done;
    l->game_done = game_done;
    l->user = user;
    return l;
}

/* Missing fields come back as "" (a nil would end Lua's array there). */
static const char JobLoad[] = "local j = redis.call('HMGET', KEYS[1], 'owner', 'status', 'text', 'live') "
                              "return {j[1] or '', j[2] or '', j[3] or '', j[4] or '', "
                              "redis.call('HGET', KEYS[2], 'result') or ''}";

static bool unfinished(const char *status) { return !strcmp(status, "queued") || !strcmp(status, "running"); }

static void job_read(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    PersistLoad *l = priv;
    const redisReply *reply = r;
    const char *owner =
        reply && reply->type == REDIS_REPLY_ARRAY && reply->elements == 5 ? nonempty(reply->element[0]) : NULL;
    if (!owner) { /* not shared (or Redis went away): the store may have it */
        if (!load_locally(l))
            job_found(l, NULL, "");
        return;
    }
    const char *status = nonempty(reply->element[1]), *text = nonempty(reply->element[2]),
               *live = nonempty(reply->element[3]), *result = nonempty(reply->element[4]);
    if (status && !unfinished(status))
        job_found(l, text, owner);
    else if (result || live) /* a worker's result (its front has not said so: yet, or ever), or a live status */
        job_found(l, result ? result : live, owner);
    else { /* queued on another front */
        if (l->user)
            l->job_done(encode_job_status(l->id, status ? status : "queued"), owner, l->user);
        free(l);
    }
}

PersistLoad *persist_load_job(const char *id, PersistJobLoaded done, void *user)
{
    PersistLoad *l = new_load(id, done, NULL, user);
    if (!l)
        return NULL;
    /* Redis away: this front's own jobs are still in its store */
    return started(l,
                   shared_on() && redis_link_command(shared_link(), job_read, l, "EVAL %s 2 %s%s " CLUSTER_RESULT "%s",
                                                     JobLoad, JOB_KEY, id, id),
                   true);
}

/* The state only when it is not the version the caller holds; whether the thinker is alive. */
static const char GameLoad[] = "local h = redis.call('HMGET', KEYS[1], 'v', 'state', 'thinker') "
                               "if not h[1] then return {} end "
                               "if h[1] == ARGV[1] then return {h[1]} end "
                               "local alive = 1 "
                               "if h[3] and h[3] ~= '' then alive = redis.call('EXISTS', ARGV[2] .. h[3]) end "
                               "return {h[1], h[2], alive}";

static void game_read(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    PersistLoad *l = priv;
    const redisReply *reply = r;
    if (!reply || reply->type != REDIS_REPLY_ARRAY) /* Redis went away: SQLite may hold an older copy */
        game_found(l, NULL, PERSIST_UNREACHABLE, false);
    else if (reply->elements == 0) { /* not shared: from before the cluster, or none */
        if (!load_locally(l))
            game_found(l, NULL, 0, false);
    } else {
        const char *state = reply->elements == 3 ? nonempty(reply->element[1]) : NULL;
        bool orphaned = reply->elements == 3 && redis_number(reply->element[2]) == 0;
        game_found(l, state, redis_number(reply->element[0]), orphaned);
    }
}

PersistLoad *persist_load_game(const char *id, long long known_version, PersistGameLoaded done, void *user)
{
    PersistLoad *l = new_load(id, NULL, done, user);
    if (!l)
        return NULL;
    if (shared_on() && !saves_settled(id)) /* a save in flight may yet be refused: ask for the state */
        known_version = STALE;
    /* Redis away: the store may hold an older copy, so nothing is read (outside a cluster, the store) */
    return started(l,
                   shared_on() && redis_link_command(shared_link(), game_read, l, "EVAL %s 1 %s%s %lld %s", GameLoad,
                                                     GAME_KEY, id, known_version, SHARED_NODE),
                   !shared_on());
}

/* ---- the evaluation cache ---- */

/* The position a key is about: its FEN's first four fields (eval_cache_key's prefix, blank
 * included); NULL if the key has none. malloc'd. */
static char *position_of(const char *key)
{
    const char *p = key;
    for (int blanks = 0; *p && blanks < 4; p++)
        blanks += *p == ' ';
    return p > key && p[-1] == ' ' ? strndup(key, (size_t)(p - key)) : NULL;
}

void persist_cache_put(char *key, char *value, StoreSaved saved, void *user)
{
    char *position = shared_on() ? position_of(key) : NULL;
    if (position) {
        redis_link_command(shared_link(), NULL, NULL, "HSET %s%s %s %s", EVAL_KEY, position, key, value);
        redis_link_command(shared_link(), NULL, NULL, "EXPIRE %s%s %d", EVAL_KEY, position, EVAL_KEEP_S);
    }
    free(position);
    store_cache_put(key, value, saved, user);
}

typedef struct {
    char **keys, **values;
    int n, waiting;
    void (*done)(void *arg);
    void *arg;
} CacheGet;

static void cache_get_step(CacheGet *c)
{
    if (--c->waiting > 0)
        return;
    c->done(c->arg);
    free(c);
}

typedef struct {
    CacheGet *get;
    int index;
} CacheMiss;

static void cache_miss_read(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    CacheMiss *m = priv;
    const char *value = nonempty(r);
    if (value)
        m->get->values[m->index] = strdup(value);
    CacheGet *c = m->get;
    free(m);
    cache_get_step(c);
}

/* What this front's cache lacks, asked of Redis (one request per miss, pipelined). */
static void cache_got_locally(void *arg)
{
    CacheGet *c = arg;
    c->waiting = 1;
    for (int i = 0; i < c->n && shared_on(); i++) {
        char *position = c->values[i] ? NULL : position_of(c->keys[i]);
        CacheMiss *m = position ? malloc(sizeof *m) : NULL;
        if (m) {
            *m = (CacheMiss){c, i};
            if (redis_link_command(shared_link(), cache_miss_read, m, "HGET %s%s %s", EVAL_KEY, position, c->keys[i]))
                c->waiting++;
            else
                free(m);
        }
        free(position);
    }
    cache_get_step(c);
}

bool persist_cache_get(char **keys, char **values, int n, void (*done)(void *arg), void *arg)
{
    CacheGet *c = malloc(sizeof *c);
    if (!c)
        return false;
    *c = (CacheGet){keys, values, n, 0, done, arg};
    if (!store_cache_get(keys, values, n, cache_got_locally, c)) {
        free(c);
        return false;
    }
    return true;
}

typedef struct {
    StoreCacheScan *scan;
    void (*done)(void *arg);
    void *arg;
} CacheScan;

static void cache_scan_read(redisAsyncContext *ac, void *r, void *priv)
{
    (void)ac;
    CacheScan *c = priv;
    const redisReply *reply = r;
    StoreCacheScan *s = c->scan;
    for (size_t i = 0; reply && reply->type == REDIS_REPLY_ARRAY && i + 1 < reply->elements; i += 2) {
        const char *key = nonempty(reply->element[i]), *value = nonempty(reply->element[i + 1]);
        /* The position's hash holds every evaluation's entries: only those of the scanned prefix. */
        bool known = !key || !value || strncmp(key, s->prefix, strlen(s->prefix));
        for (int k = 0; k < s->n && !known; k++)
            known = !strcmp(s->keys[k], key);
        if (!known && s->n < STORE_CACHE_SCAN_MAX) {
            s->keys[s->n] = strdup(key);
            s->values[s->n] = strdup(value);
            if (s->keys[s->n] && s->values[s->n])
                s->n++;
            else {
                free(s->keys[s->n]);
                free(s->values[s->n]);
            }
        }
    }
    c->done(c->arg);
    free(c);
}

static void cache_scanned_locally(void *arg)
{
    CacheScan *c = arg;
    char *position = shared_on() ? position_of(c->scan->prefix) : NULL;
    bool asked = position && redis_link_command(shared_link(), cache_scan_read, c, "HGETALL %s%s", EVAL_KEY, position);
    free(position);
    if (asked)
        return;
    c->done(c->arg);
    free(c);
}

bool persist_cache_scan(StoreCacheScan *scan, void (*done)(void *arg), void *arg)
{
    CacheScan *c = malloc(sizeof *c);
    if (!c)
        return false;
    *c = (CacheScan){scan, done, arg};
    if (!store_cache_scan(scan, cache_scanned_locally, c)) {
        free(c);
        return false;
    }
    return true;
}
