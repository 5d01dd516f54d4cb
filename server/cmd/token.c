/* `feelfish token`: see token.h. A running server sees a new or revoked token within a second. */
#include "token.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/config.h"
#include "../net/redis.h"
#include "../store/store.h"
#include "../store/tokens.h"

static int usage(void)
{
    fprintf(stderr,
            "usage: feelfish token create --scopes analyse,play,learn,admin [--name NAME] [--db FILE | --redis URL]\n"
            "       feelfish token list [--db FILE | --redis URL]\n"
            "       feelfish token revoke ID|NAME [--db FILE | --redis URL]\n"
            "Scopes: analyse (analyses, cloud-eval, style), play (games), learn (finished games teach the\n"
            "Bayesian model), admin (/metrics, any client's jobs). The token is printed once; the database\n"
            "keeps only its SHA-256. Send it as 'Authorization: Bearer TOKEN'. With --redis the token is\n"
            "the cluster's: every front using that Redis takes it within a second.\n");
    return 2;
}

static void print_token(const Token *t, FILE *out)
{
    char names[64], when[32];
    scopes_format(t->scopes, names, sizeof names);
    time_t secs = (time_t)(t->created_ms / 1000);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&secs));
    fprintf(out, "%s  %-24s %-28s %s\n", t->id, t->name, names, when);
}

/* The cluster's tokens, in Redis (store/tokens.h: TOKENS_REDIS_KEY). */
static int redis_tokens(const char *verb, const char *url, const char *name, unsigned bits, const char *scopes,
                        const char *target, FILE *out)
{
    RedisAddress a;
    char err[300];
    redisContext *c = redis_url_parse(url, &a, err, sizeof err) ? redis_connect_sync(&a, err, sizeof err) : NULL;
    if (!c) {
        fprintf(stderr, "feelfish token: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (!strcmp(verb, "create")) {
        char text[TOKEN_TEXT_LEN + 1], value[200];
        Token t;
        token_new(name, bits, text, &t);
        token_encode(&t, value, sizeof value);
        redisReply *r = redisCommand(c, "HSET %s %s %s", TOKENS_REDIS_KEY, t.hash, value);
        if (!r || r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "feelfish token create: %s\n", r ? r->str : c->errstr);
            rc = 1;
        } else {
            fprintf(stderr, "token %s (%s) with scopes %s for the cluster: keep it, it is not shown again\n", t.id,
                    t.name, scopes);
            fprintf(out, "%s\n", text);
        }
        freeReplyObject(r);
        redisFree(c);
        return rc;
    }
    redisReply *all = redisCommand(c, "HGETALL %s", TOKENS_REDIS_KEY);
    if (!all || all->type != REDIS_REPLY_ARRAY) {
        fprintf(stderr, "feelfish token %s: %s\n", verb, all && all->type == REDIS_REPLY_ERROR ? all->str : c->errstr);
        freeReplyObject(all);
        redisFree(c);
        return 1;
    }
    int revoked = 0;
    for (size_t i = 0; i + 1 < all->elements; i += 2) {
        Token t;
        if (!token_decode(all->element[i]->str, all->element[i + 1]->str, &t))
            continue;
        if (!strcmp(verb, "list"))
            print_token(&t, out);
        else if (!strcmp(t.id, target) || !strcmp(t.name, target)) {
            redisReply *d = redisCommand(c, "HDEL %s %s", TOKENS_REDIS_KEY, t.hash);
            revoked += d && d->type == REDIS_REPLY_INTEGER ? (int)d->integer : 0;
            freeReplyObject(d);
        }
    }
    freeReplyObject(all);
    redisFree(c);
    if (!strcmp(verb, "revoke")) {
        if (!revoked) {
            fprintf(stderr, "feelfish token revoke: no token with id or name '%s'\n", target);
            return 1;
        }
        fprintf(out, "revoked %d token%s\n", revoked, revoked == 1 ? "" : "s");
    }
    return 0;
}

int token_command(int argc, char **argv, FILE *out)
{
    const char *verb = argc > 0 ? argv[0] : NULL, *db_path = config_default_db(), *name = NULL, *scopes = NULL,
               *target = NULL, *redis = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            db_path = argv[++i];
        else if (!strcmp(argv[i], "--redis") && i + 1 < argc)
            redis = argv[++i];
        else if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--scopes") && i + 1 < argc)
            scopes = argv[++i];
        else if (argv[i][0] != '-' && !target)
            target = argv[i];
        else
            return usage();
    }
    if (!verb || (!strcmp(verb, "create") && (!scopes || target)) || (!strcmp(verb, "revoke") && !target) ||
        (!strcmp(verb, "list") && target) || (strcmp(verb, "create") && strcmp(verb, "list") && strcmp(verb, "revoke")))
        return usage();
    char err[512];
    unsigned bits = 0;
    if (scopes && !scopes_parse(scopes, &bits, err, sizeof err)) {
        fprintf(stderr, "feelfish token: --scopes: %s\n", err);
        return 2;
    }
    if (name && (strlen(name) >= sizeof((Token *)0)->name || strspn(name, "abcdefghijklmnopqrstuvwxyz"
                                                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@") !=
                                                                  strlen(name))) {
        fprintf(stderr, "feelfish token: --name: letters, digits and - _ . @, at most 63\n");
        return 2;
    }
    if (redis)
        return redis_tokens(verb, redis, name, bits, scopes, target, out);
    sqlite3 *db = store_open_db(db_path, err, sizeof err);
    if (!db) {
        fprintf(stderr, "feelfish token: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (!strcmp(verb, "create")) {
        char text[TOKEN_TEXT_LEN + 1];
        Token t;
        if (!tokens_create(db, name, bits, text, &t, err, sizeof err)) {
            fprintf(stderr, "feelfish token create: %s\n", err);
            rc = 1;
        } else {
            fprintf(stderr, "token %s (%s) with scopes %s: keep it, it is not shown again\n", t.id, t.name, scopes);
            fprintf(out, "%s\n", text);
        }
    } else if (!strcmp(verb, "list")) {
        Token *list;
        int n = tokens_list(db, &list, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "feelfish token list: %s\n", err);
            rc = 1;
        }
        for (int i = 0; i < n; i++)
            print_token(&list[i], out);
        free(list);
    } else {
        int n = tokens_revoke(db, target, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "feelfish token revoke: %s\n", err);
            rc = 1;
        } else if (n == 0) {
            fprintf(stderr, "feelfish token revoke: no token with id or name '%s'\n", target);
            rc = 1;
        } else
            fprintf(out, "revoked %d token%s\n", n, n == 1 ? "" : "s");
    }
    sqlite3_close(db);
    return rc;
}
