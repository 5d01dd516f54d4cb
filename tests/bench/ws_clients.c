/* Many WebSocket clients in one epoll loop, each running one analysis, measuring how long an info
 * event takes from a search worker publishing it (its "publishedUs", wall clock) to this client
 * reading it. Written in C so that the measuring side is not the bottleneck: a Python asyncio
 * client with 1,000 sockets on the same two cores measures mostly its own queue.
 *
 *   ws_clients PORT N DEPTH FENFILE [together]
 *
 * prints one line: analyses finished, info events, latency p50 p90 p99 max (ms), seconds. By default
 * every client connects first and then all start their analysis at once (the streaming path under
 * 1,000 running analyses); `together`: each sends its analysis as soon as its own handshake is done,
 * so the events also queue behind the connection storm.
 *
 * FENFILE: one position per line (EPD or FEN; the first four fields are used). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { CONNECTING, HANDSHAKE, RUNNING, DONE };

typedef struct {
    int fd, state;
    char *buf;
    size_t len, cap;
} Client;

static double *lat;
static size_t nlat, caplat;
static int done_ok, finished;
static FILE *trace; /* WS_TRACE=FILE: publish time (ms from start) and latency of every event */
static long long t0;

static long long now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void send_all(int fd, const char *p, size_t n) {
    while (n) { /* small writes on a fresh socket: the kernel buffer takes them whole */
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("write");
        p += w, n -= (size_t)w;
    }
}

static void send_text(int fd, const char *text) {
    size_t n = strlen(text), h = 0;
    char *f = malloc(n + 14);
    f[h++] = (char)0x81;
    if (n < 126) f[h++] = (char)(0x80 | n);
    else f[h++] = (char)(0x80 | 126), f[h++] = (char)(n >> 8), f[h++] = (char)n;
    unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
    memcpy(f + h, mask, 4), h += 4;
    for (size_t i = 0; i < n; i++) f[h + i] = (char)(text[i] ^ mask[i % 4]);
    send_all(fd, f, h + n);
    free(f);
}

static void record(double ms) {
    if (nlat == caplat) lat = realloc(lat, (caplat = caplat ? caplat * 2 : 4096) * sizeof *lat);
    lat[nlat++] = ms;
}

/* One text message: an info frame gives a latency; bestmove or error ends the client. */
static int on_message(const char *m, size_t n, long long t) {
    char *s = strndup(m, n);
    int end = 0;
    if (strstr(s, "\"type\":\"info\"") || strstr(s, "\"type\": \"info\"")) {
        char *p = strstr(s, "\"publishedUs\":");
        if (p) {
            long long pub = atoll(p + 14);
            record((double)(t - pub) / 1000.0);
            if (trace) fprintf(trace, "%.3f %.3f\n", (double)(pub - t0) / 1000.0, (double)(t - pub) / 1000.0);
        }
    } else if (strstr(s, "\"type\":\"bestmove\"") || strstr(s, "\"type\": \"bestmove\"")) {
        done_ok++, end = 1;
    } else if (strstr(s, "\"type\":\"error\"") || strstr(s, "\"type\": \"error\"")) {
        fprintf(stderr, "error frame: %s\n", s);
        end = 1;
    }
    free(s);
    return end;
}

/* Parses the whole frames in c->buf; returns 1 when the client is finished. */
static int on_frames(Client *c, long long t) {
    size_t off = 0;
    int end = 0;
    while (!end && c->len - off >= 2) {
        unsigned char *b = (unsigned char *)c->buf + off;
        size_t n = b[1] & 0x7F, h = 2;
        if (n == 126) {
            if (c->len - off < 4) break;
            n = (size_t)b[2] << 8 | b[3], h = 4;
        } else if (n == 127) {
            if (c->len - off < 10) break;
            n = 0;
            for (int i = 0; i < 8; i++) n = n << 8 | b[2 + i];
            h = 10;
        }
        if (c->len - off < h + n) break;
        if ((b[0] & 0x0F) == 1) end = on_message((char *)b + h, n, t);
        else if ((b[0] & 0x0F) == 8) end = 1;
        off += h + n;
    }
    memmove(c->buf, c->buf + off, c->len - off);
    c->len -= off;
    return end;
}

static char **fens;
static int nfens;

static void start_analysis(int fd, int i, int depth) {
    char msg[400];
    snprintf(msg, sizeof msg, "{\"op\":\"analyse\",\"id\":\"c%d\",\"fen\":\"%s\",\"limits\":{\"depth\":%d}}", i,
             fens[i % nfens], depth);
    send_text(fd, msg);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 5 && !(argc == 6 && !strcmp(argv[5], "together"))) {
        fprintf(stderr, "usage: ws_clients PORT N DEPTH FENFILE [together]\n");
        return 2;
    }
    int port = atoi(argv[1]), n = atoi(argv[2]), depth = atoi(argv[3]), together = argc == 6;
    char line[512];
    FILE *f = fopen(argv[4], "r");
    if (!f) die(argv[4]);
    while (fgets(line, sizeof line, f)) {
        char a[128], b[8], c[8], d[8];
        if (sscanf(line, "%127s %7s %7s %7s", a, b, c, d) != 4) continue;
        fens = realloc(fens, (size_t)(nfens + 1) * sizeof *fens);
        if (asprintf(&fens[nfens++], "%s %s %s %s 0 1", a, b, c, d) < 0) die("asprintf");
    }
    fclose(f);
    if (!nfens) return fprintf(stderr, "no positions in %s\n", argv[4]), 2;

    int ep = epoll_create1(0);
    Client *cl = calloc((size_t)n, sizeof *cl);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    t0 = now_us();
    if (getenv("WS_TRACE")) trace = fopen(getenv("WS_TRACE"), "w");
    for (int i = 0; i < n; i++) {
        Client *c = &cl[i];
        c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (c->fd < 0) die("socket");
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) die("connect");
        c->cap = 1 << 16, c->buf = malloc(c->cap);
        struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    }
    struct epoll_event evs[256];
    int connected = 0;
    while (finished < n) {
        int k = epoll_wait(ep, evs, 256, 30000);
        if (k == 0) {
            fprintf(stderr, "timed out with %d of %d clients finished\n", finished, n);
            break;
        }
        long long t = now_us();
        for (int e = 0; e < k; e++) {
            Client *c = &cl[evs[e].data.u32];
            if (c->state == CONNECTING && (evs[e].events & EPOLLOUT)) {
                char req[512];
                snprintf(req, sizeof req,
                         "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
                send_all(c->fd, req, strlen(req));
                c->state = HANDSHAKE;
                struct epoll_event ev = {.events = EPOLLIN, .data.u32 = evs[e].data.u32};
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
                continue;
            }
            if (!(evs[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
            ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
            if (r <= 0) {
                if (r < 0 && errno == EAGAIN) continue;
                fprintf(stderr, "client %u: connection closed early\n", evs[e].data.u32);
                goto finish;
            }
            c->len += (size_t)r;
            if (c->len == c->cap) c->buf = realloc(c->buf, c->cap *= 2);
            if (c->state == HANDSHAKE) {
                char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
                if (!end) continue;
                if (strncmp(c->buf, "HTTP/1.1 101", 12)) {
                    fprintf(stderr, "handshake refused: %.40s\n", c->buf);
                    goto finish;
                }
                size_t head = (size_t)(end + 4 - c->buf);
                memmove(c->buf, c->buf + head, c->len - head);
                c->len -= head;
                c->state = RUNNING;
                ++connected;
                if (together)
                    start_analysis(c->fd, (int)evs[e].data.u32, depth);
                else if (connected == n) /* every client connected: now all analyses start at once */
                    for (int i = 0; i < n; i++)
                        if (cl[i].state == RUNNING) start_analysis(cl[i].fd, i, depth);
            }
            if (c->state == RUNNING && on_frames(c, t)) goto finish;
            continue;
        finish:
            epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
            close(c->fd);
            c->state = DONE;
            finished++;
        }
    }
    double secs = (double)(now_us() - t0) / 1e6;
    qsort(lat, nlat, sizeof *lat, cmp);
    if (nlat)
        printf("%d %zu %.2f %.2f %.2f %.2f %.1f\n", done_ok, nlat, lat[nlat / 2], lat[nlat * 9 / 10],
               lat[nlat * 99 / 100], lat[nlat - 1], secs);
    else
        printf("%d 0 0 0 0 0 %.1f\n", done_ok, secs);
    for (int i = 0; i < n; i++) free(cl[i].buf);
    for (int i = 0; i < nfens; i++) free(fens[i]);
    free(cl), free(fens), free(lat);
    return done_ok == n ? 0 : 1;
}
