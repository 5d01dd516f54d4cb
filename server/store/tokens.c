/* API tokens in the database: see tokens.h. */
#include "tokens.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/ids.h"

static const char *const ScopeNames[] = {"analyse", "play", "learn", "admin"};
#define SCOPE_NAMES (sizeof ScopeNames / sizeof ScopeNames[0])

bool scopes_parse(const char *text, unsigned *scopes, char *err, size_t size)
{
    *scopes = 0;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        while (i < SCOPE_NAMES && (strlen(ScopeNames[i]) != n || strncmp(ScopeNames[i], p, n)))
            i++;
        if (i == SCOPE_NAMES) {
            snprintf(err, size, "unknown scope '%.*s': use analyse, play, learn or admin", (int)(n > 40 ? 40 : n), p);
            return false;
        }
        *scopes |= 1u << i;
        p += n;
        if (*p == ',')
            p++;
    }
    if (!*scopes) {
        snprintf(err, size, "name at least one scope: analyse, play, learn or admin");
        return false;
    }
    return true;
}

void scopes_format(unsigned scopes, char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < SCOPE_NAMES; i++)
        if (scopes & (1u << i) && used < size)
            used += (size_t)snprintf(out + used, size - used, "%s%s", used ? "," : "", ScopeNames[i]);
}

void token_hash(const char *text, char *out)
{
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)text, strlen(text), digest);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        sprintf(out + 2 * i, "%02x", digest[i]);
}

void token_new(const char *name, unsigned scopes, char *text, Token *t)
{
    memset(t, 0, sizeof *t);
    strcpy(text, "ff_");
    ids_random_hex(text + 3, TOKEN_TEXT_LEN - 3);
    ids_random_hex(t->id, TOKEN_ID_LEN);
    snprintf(t->name, sizeof t->name, "%s", name && *name ? name : t->id);
    t->scopes = scopes;
    t->created_ms = clock_wall_ms();
    token_hash(text, t->hash);
}

void token_encode(const Token *t, char *out, size_t size)
{
    char names[64];
    scopes_format(t->scopes, names, sizeof names);
    snprintf(out, size, "%s\t%s\t%s\t%lld", t->id, t->name, names, t->created_ms);
}

bool token_decode(const char *hash, const char *value, Token *t)
{
    memset(t, 0, sizeof *t);
    char scopes[64], ignored[8];
    if (!hash || !value || strlen(hash) != TOKEN_HASH_HEX ||
        sscanf(value, "%8[0-9a-f]\t%63[^\t]\t%63[^\t]\t%lld", t->id, t->name, scopes, &t->created_ms) != 4)
        return false;
    snprintf(t->hash, sizeof t->hash, "%s", hash);
    if (!scopes_parse(scopes, &t->scopes, ignored, sizeof ignored))
        t->scopes = 0; /* a scope this build does not know gives nothing */
    return true;
}

bool tokens_create(sqlite3 *db, const char *name, unsigned scopes, char *text, Token *t, char *err, size_t size)
{
    token_new(name, scopes, text, t);
    char names[64];
    scopes_format(scopes, names, sizeof names);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO tokens(id, name, hash, scopes, created_ms) VALUES (?,?,?,?,?)", -1, &st,
                           NULL) != SQLITE_OK) {
        snprintf(err, size, "%s", sqlite3_errmsg(db));
        return false;
    }
    sqlite3_bind_text(st, 1, t->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, t->hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, names, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, t->created_ms);
    bool ok = sqlite3_step(st) == SQLITE_DONE;
    if (!ok)
        snprintf(err, size, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return ok;
}

int tokens_list(sqlite3 *db, Token **out, char *err, size_t size)
{
    *out = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT id, name, hash, scopes, created_ms FROM tokens ORDER BY created_ms, id", -1, &st,
                           NULL) != SQLITE_OK) {
        snprintf(err, size, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int n = 0, room = 0, rc;
    Token *list = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == room) {
            room = room ? 2 * room : 16;
            Token *grown = realloc(list, (size_t)room * sizeof *grown);
            if (!grown)
                break;
            list = grown;
        }
        Token *t = &list[n++];
        memset(t, 0, sizeof *t);
        snprintf(t->id, sizeof t->id, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(t->name, sizeof t->name, "%s", (const char *)sqlite3_column_text(st, 1));
        snprintf(t->hash, sizeof t->hash, "%s", (const char *)sqlite3_column_text(st, 2));
        char ignored[8];
        if (!scopes_parse((const char *)sqlite3_column_text(st, 3), &t->scopes, ignored, sizeof ignored))
            t->scopes = 0; /* a scope this build does not know gives nothing */
        t->created_ms = sqlite3_column_int64(st, 4);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        snprintf(err, size, "%s", sqlite3_errmsg(db));
        sqlite3_finalize(st);
        free(list);
        return -1;
    }
    sqlite3_finalize(st);
    *out = list;
    return n;
}

int tokens_revoke(sqlite3 *db, const char *id_or_name, char *err, size_t size)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "DELETE FROM tokens WHERE id = ?1 OR name = ?1", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, size, "%s", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_text(st, 1, id_or_name, -1, SQLITE_STATIC);
    int n = sqlite3_step(st) == SQLITE_DONE ? sqlite3_changes(db) : -1;
    if (n < 0)
        snprintf(err, size, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return n;
}
