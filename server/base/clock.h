/* Wall-clock time, for what is stored or shown (a job's or a game's times); intervals measured in
 * this process use the monotonic time_now_ms() of engine/search/search.h. */
#ifndef FEELFISH_CLOCK_H
#define FEELFISH_CLOCK_H

#include <stdint.h>

/* Milliseconds since the Unix epoch. */
int64_t clock_wall_ms(void);

#endif
