/* HTTP as the server reads it: any bytes down a connection (request lines, headers, framing,
 * bodies, pipelined requests, paths with escapes) reach the real transport, routes and handlers.
 * Nothing may crash or trip a sanitizer, and the first answer, if any, is a well-formed status line
 * that is not a 5xx other than 503 (an internal error is a bug). */
#include "fuzz_server.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_server_start("http");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int client, server = fuzz_connect(&client);
    if (!http_adopt(server, "127.0.0.1")) {
        close(client);
        return 0;
    }
    fuzz_send(client, data, size);
    static char answer[1 << 16];
    size_t n = fuzz_collect(client, answer, sizeof answer, 60);
    if (n >= 12) {
        int status = 0;
        if (strncmp(answer, "HTTP/1.", 7) || sscanf(answer + 8, " %3d", &status) != 1 || status < 100 ||
            status > 599) {
            fprintf(stderr, "fuzz_http: a malformed status line: %.40s\n", answer);
            abort();
        }
        if (status >= 500 && status != 503 && status != 505) { /* 505: MHD, for HTTP/2.0 and such */
            fprintf(stderr, "fuzz_http: answered %d:\n%.600s\n", status, answer);
            abort();
        }
    }
    fuzz_hang_up(client);
    return 0;
}
