/* The static page: every file under the web root loaded into memory at start (no disk I/O on the
 * loop thread), served with its MIME type and an ETag; nothing outside the root can be named. */
#ifndef FEELFISH_STATIC_H
#define FEELFISH_STATIC_H

#include <stdbool.h>
#include <stddef.h>

#include "http.h"

/* Loads root (missing root: nothing to serve, not an error). */
void static_load(const char *root);
void static_free(void);
int static_file_count(void);
/* Answers GET/HEAD for path if a file matches ("/" is index.html); false if none does. */
bool static_serve(Request *r);
/* Answers r with the loaded file at path ("/docs.html"), whatever r's path; false if none is loaded. */
bool static_serve_file(Request *r, const char *path);

#endif
