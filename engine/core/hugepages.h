/* Large tables (the transposition table, a search thread's histories) in whole 2 MB pages, asked to
 * be backed by huge pages where the kernel lends them (Linux's transparent huge pages in "madvise"
 * mode): their reads are random over megabytes, and with 4 kB pages nearly every one also misses the
 * TLB. Freed with free(). */
#ifndef FEELFISH_HUGEPAGES_H
#define FEELFISH_HUGEPAGES_H

#include <stddef.h>

/* `bytes` rounded up to whole 2 MB pages, aligned to 2 MB, uninitialised; NULL when out of memory. */
void *huge_alloc(size_t bytes);

#endif
