/* The hash of an id or a name for the server's in-memory tables (jobs, games, quota clients):
 * FNV-1a, 32 bits. */
#ifndef FEELFISH_HASH_H
#define FEELFISH_HASH_H

static inline unsigned hash_text(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

#endif
