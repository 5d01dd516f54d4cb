/* Ids no client can guess or walk: random hex digits from the operating system's CSPRNG. */
#ifndef FEELFISH_IDS_H
#define FEELFISH_IDS_H

#include <stddef.h>

/* Writes `digits` random hex digits and a NUL into out (room for digits + 1). Never fails: if the
 * kernel's generator is unavailable the process cannot hand out safe ids and aborts. */
void ids_random_hex(char *out, size_t digits);

#endif
