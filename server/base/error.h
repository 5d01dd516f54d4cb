/* A rejected request, whatever rejected it (a codec, a game's rules, a full queue): the HTTP
 * status, a stable code, the field to fix and a message saying how. REST answers it as JSON, a
 * WebSocket sends it as an error frame (server/api). */
#ifndef FEELFISH_ERROR_H
#define FEELFISH_ERROR_H

typedef struct {
    int status; /* 0: no error */
    char code[48];
    char field[64];
    char message[512];
    int retry_after; /* seconds to wait before asking again (the Retry-After header); 0: no such advice */
} ApiError;

/* Sets every part; the message and field are made valid UTF-8 (they may quote client text cut at
 * a byte limit). retry_after is the code's (error.c: 1 s for a refusal that passes by itself, 5 s for
 * storage that cannot be written, 0 for the rest); a caller that knows better sets it after. */
void api_error_set(ApiError *e, int status, const char *code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
