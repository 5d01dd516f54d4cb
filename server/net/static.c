/* Static files. Paths are matched exactly against the files found at start, after decoding %xx
 * and refusing any segment that is empty, "." or ".." — so `..`, `%2e%2e`, absolute paths and
 * encoded slashes name nothing. Symlinks are followed only when they resolve inside the root. */
#include "static.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/log.h"

#define STATIC_MAX_FILES 4096
#define STATIC_MAX_BYTES (64L * 1024 * 1024)

typedef struct {
    char *path; /* "/assets/app.js" */
    char *data;
    size_t len;
    char etag[24];
    const char *mime;
} StaticFile;

static StaticFile Files[STATIC_MAX_FILES];
static int FileCount;
static long TotalBytes;
static char RootReal[PATH_MAX];

static const struct {
    const char *ext, *mime;
} Mimes[] = {{".html", "text/html; charset=utf-8"},
             {".js", "text/javascript; charset=utf-8"},
             {".mjs", "text/javascript; charset=utf-8"},
             {".css", "text/css; charset=utf-8"},
             {".json", "application/json"},
             {".svg", "image/svg+xml"},
             {".png", "image/png"},
             {".jpg", "image/jpeg"},
             {".ico", "image/x-icon"},
             {".woff2", "font/woff2"},
             {".wasm", "application/wasm"},
             {".txt", "text/plain; charset=utf-8"},
             {".map", "application/json"}};

static const char *mime_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof Mimes / sizeof Mimes[0]; i++)
        if (!strcasecmp(dot, Mimes[i].ext))
            return Mimes[i].mime;
    return "application/octet-stream";
}

static void load_file(const char *real, const char *url)
{
    if (FileCount == STATIC_MAX_FILES)
        return;
    FILE *f = fopen(real, "rb");
    if (!f)
        return;
    struct stat st;
    if (fstat(fileno(f), &st) || st.st_size > STATIC_MAX_BYTES - TotalBytes) {
        fclose(f);
        log_msg(LOG_WARN, "static: skipping %s (too large)", url);
        return;
    }
    char *data = malloc((size_t)st.st_size + 1);
    size_t n = data ? fread(data, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    if (!data || n != (size_t)st.st_size) {
        free(data);
        return;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)data[i]) * 0x100000001b3ULL;
    StaticFile *sf = &Files[FileCount++];
    sf->path = strdup(url);
    sf->data = data;
    sf->len = n;
    sf->mime = mime_of(url);
    snprintf(sf->etag, sizeof sf->etag, "\"%016llx\"", (unsigned long long)h);
    TotalBytes += (long)n;
}

static void walk(const char *dir, const char *url, int depth)
{
    DIR *d = depth < 16 ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX], sub[PATH_MAX], real[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(sub, sizeof sub, "%s/%s", url, e->d_name);
        size_t root_len = strlen(RootReal);
        if (!realpath(path, real) || strncmp(real, RootReal, root_len) || (real[root_len] && real[root_len] != '/')) {
            log_msg(LOG_WARN, "static: ignoring %s: it leads outside the web root", sub);
            continue;
        }
        struct stat st;
        if (stat(real, &st))
            continue;
        if (S_ISDIR(st.st_mode))
            walk(path, sub, depth + 1);
        else if (S_ISREG(st.st_mode))
            load_file(real, sub);
    }
    closedir(d);
}

void static_load(const char *root)
{
    if (!realpath(root, RootReal)) {
        log_msg(LOG_INFO, "static: no web root at %s; the page is not served", root);
        return;
    }
    walk(RootReal, "", 0);
    log_msg(LOG_INFO, "static: %d files (%ld bytes) from %s", FileCount, TotalBytes, RootReal);
}

void static_free(void)
{
    for (int i = 0; i < FileCount; i++) {
        free(Files[i].path);
        free(Files[i].data);
    }
    FileCount = 0;
    TotalBytes = 0;
}

int static_file_count(void) { return FileCount; }

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Decodes %xx and checks every segment; false for anything that could not name a file of ours. */
static bool clean_path(const char *in, char *out, size_t size)
{
    size_t o = 0;
    for (const char *c = in; *c; c++) {
        char ch = *c;
        if (ch == '%') {
            int a = hex(c[1]), b = a >= 0 ? hex(c[2]) : -1;
            if (b < 0)
                return false;
            ch = (char)(a * 16 + b);
            c += 2;
            if (ch == '/' || ch == '\\' || ch == 0)
                return false; /* encoded separators and NULs name nothing */
        } else if (ch == '?' || ch == '#')
            break;
        if (o + 1 >= size)
            return false;
        out[o++] = ch;
    }
    out[o] = 0;
    if (out[0] != '/')
        return false;
    for (const char *seg = out + 1;;) {
        const char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);
        if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.') || (n == 0 && end))
            return false;
        if (!end)
            break;
        seg = end + 1;
    }
    return true;
}

/* Answers GET/HEAD r with the loaded file at path (a cleaned "/name"); false if there is none. */
bool static_serve_file(Request *r, const char *path)
{
    for (int i = 0; i < FileCount; i++) {
        StaticFile *f = &Files[i];
        if (strcmp(f->path, path))
            continue;
        const char *inm = http_header(r, "If-None-Match");
        http_add_header(r, "ETag", f->etag);
        if (inm && strstr(inm, f->etag)) {
            http_reply(r, 304, NULL, "", 0);
            return true;
        }
        http_reply(r, 200, f->mime, f->data, f->len);
        r->cacheable = true;
        return true;
    }
    return false;
}

bool static_serve(Request *r)
{
    if (strcmp(r->method, "GET") && strcmp(r->method, "HEAD"))
        return false;
    char path[1024];
    if (!clean_path(r->path, path, sizeof path))
        return false;
    if (!strcmp(path, "/"))
        strcpy(path, "/index.html");
    return static_serve_file(r, path);
}
