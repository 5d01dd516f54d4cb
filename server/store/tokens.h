/* API tokens: what `feelfish token create` hands out and `Authorization: Bearer` carries. A token
 * is "ff_" and 48 random hex digits (192 bits); the database keeps only its SHA-256, a public id
 * (to list and revoke it), a name and its scopes. */
#ifndef FEELFISH_TOKENS_H
#define FEELFISH_TOKENS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

/* What a token lets its bearer do. */
enum {
    SCOPE_ANALYSE = 1, /* analyses: REST, WebSocket, cloud-eval, style */
    SCOPE_PLAY = 2,    /* games against the engine */
    SCOPE_LEARN = 4,   /* its finished games teach the shared Bayesian model */
    SCOPE_ADMIN = 8,   /* /metrics, and any client's jobs */
    SCOPE_ALL = 15
};

#define TOKEN_TEXT_LEN 51 /* "ff_" + 48 hex digits */
#define TOKEN_ID_LEN 8
#define TOKEN_HASH_HEX 64

typedef struct {
    char id[TOKEN_ID_LEN + 1];
    char name[64];
    unsigned scopes;
    long long created_ms;
    char hash[TOKEN_HASH_HEX + 1]; /* SHA-256 of the token, hex */
} Token;

/* "analyse,play" -> the scope bits; false with a message naming the unknown scope. */
bool scopes_parse(const char *text, unsigned *scopes, char *err, size_t err_size);
/* The scope bits as "analyse,play" ("" for none). */
void scopes_format(unsigned scopes, char *out, size_t size);

/* The SHA-256 of a token's text, as hex (out: TOKEN_HASH_HEX + 1). */
void token_hash(const char *text, char *out);

/* A new token (not stored): its text to `text` (TOKEN_TEXT_LEN + 1), its record to *t (the name is
 * its id when none is given). */
void token_new(const char *name, unsigned scopes, char *text, Token *t);

/* A cluster's tokens (`feelfish token ... --redis URL`): the Redis hash TOKENS_REDIS_KEY, a token's
 * SHA-256 to "ID<TAB>NAME<TAB>SCOPES<TAB>CREATED_MS" (token_encode); every front reads it each second. */
#define TOKENS_REDIS_KEY "feelfish:tokens"
void token_encode(const Token *t, char *out, size_t size);
/* The record for a hash and its value; false when the value is not one. */
bool token_decode(const char *hash, const char *value, Token *t);

/* A new token with those scopes and name, stored hashed: its text (shown once) goes to `text`
 * (TOKEN_TEXT_LEN + 1) and its record to *t. False with SQLite's message. */
bool tokens_create(sqlite3 *db, const char *name, unsigned scopes, char *text, Token *t, char *err, size_t err_size);
/* Every token (malloc'd array, oldest first); -1 with a message on error. */
int tokens_list(sqlite3 *db, Token **out, char *err, size_t err_size);
/* Deletes the token with that id (or name); how many were deleted, -1 on error. */
int tokens_revoke(sqlite3 *db, const char *id_or_name, char *err, size_t err_size);

#endif
