/* See hugepages.h. */
#include "hugepages.h"

#include <stdlib.h>
#include <sys/mman.h>

void *huge_alloc(size_t bytes)
{
    size_t page = (size_t)2 << 20, rounded = bytes ? (bytes + page - 1) / page * page : page;
    void *p = aligned_alloc(page, rounded);
#ifdef MADV_HUGEPAGE
    if (p)
        madvise(p, rounded, MADV_HUGEPAGE); /* advice only: 4 kB pages if refused */
#endif
    return p;
}
