/* WebSocket ops as the server reads them: after a real handshake, the input is a sequence of
 * messages (split at NUL bytes), each sent as one masked text frame, so op sequences (analyse,
 * stop, subscribe, auth, ping, garbage, oversize ids...) reach the real transport and op layer.
 * A first byte of 0xFF sends the rest raw after the handshake instead, to fuzz the frame parser.
 * Nothing may crash or trip a sanitizer, and every text frame the server sends back is JSON. */
#include <jansson.h>

#include "fuzz_server.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_server_start("ws");
    return 0;
}

static void send_frame(int fd, const uint8_t *payload, size_t len)
{
    uint8_t head[14] = {0x81};
    size_t h = 2;
    if (len < 126)
        head[1] = (uint8_t)(0x80 | len);
    else {
        head[1] = 0x80 | 126;
        head[2] = (uint8_t)(len >> 8);
        head[3] = (uint8_t)len;
        h = 4;
    }
    static const uint8_t Mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    memcpy(head + h, Mask, 4);
    h += 4;
    uint8_t *frame = malloc(h + len);
    if (!frame)
        abort();
    memcpy(frame, head, h);
    for (size_t i = 0; i < len; i++)
        frame[h + i] = payload[i] ^ Mask[i % 4];
    fuzz_send(fd, frame, h + len);
    free(frame);
}

/* Every unfragmented text frame in what came back must be JSON (server frames are unmasked). */
static void check_frames(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i + 2 <= n) {
        int op = p[i] & 15;
        size_t len = p[i + 1] & 127, h = 2;
        if (len == 126) {
            if (i + 4 > n)
                return;
            len = (size_t)p[i + 2] << 8 | p[i + 3];
            h = 4;
        } else if (len == 127)
            return; /* larger than anything collected */
        if (i + h + len > n)
            return; /* cut off by the collection's end */
        if (op == 1 && (p[i] & 0x80)) {
            json_error_t je;
            json_t *v = json_loadb((const char *)p + i + h, len, 0, &je);
            if (!v) {
                fprintf(stderr, "fuzz_ws: a text frame that is not JSON: %.*s\n", (int)(len > 200 ? 200 : len),
                        p + i + h);
                abort();
            }
            json_decref(v);
        }
        i += h + len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int client, server = fuzz_connect(&client);
    if (!ws_adopt(server)) {
        close(server);
        close(client);
        return 0;
    }
    static const char Handshake[] = "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    fuzz_send(client, Handshake, sizeof Handshake - 1);
    static char answer[1 << 16];
    size_t n = fuzz_collect(client, answer, sizeof answer, 40);
    char *end = strstr(answer, "\r\n\r\n");
    if (!end || strncmp(answer, "HTTP/1.1 101", 12)) {
        fprintf(stderr, "fuzz_ws: the handshake was refused: %.200s\n", answer);
        abort();
    }
    if (size && data[0] == 0xFF)
        fuzz_send(client, data + 1, size - 1);
    else
        for (size_t start = 0; start <= size;) {
            const uint8_t *nul = memchr(data + start, 0, size - start);
            size_t len = nul ? (size_t)(nul - (data + start)) : size - start;
            if (len || nul)
                send_frame(client, data + start, len);
            start += len + 1;
        }
    size_t head = (size_t)(end + 4 - answer), more = fuzz_collect(client, answer, sizeof answer, 60);
    (void)head, (void)n;
    check_frames((const uint8_t *)answer, more);
    fuzz_hang_up(client);
    return 0;
}
