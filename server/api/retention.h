/* Retention: every minute (or half of --game-memory-idle, if shorter) the database lets go of finished jobs and games past --retention-days,
 * --retention-jobs and --retention-games (a bounded batch at a time, on the writer thread), and
 * games untouched for --game-memory-idle leave memory (they are read back when asked for). */
#ifndef FEELFISH_RETENTION_H
#define FEELFISH_RETENTION_H

#include <uv.h>

#include "../base/config.h"

void retention_start(const ServerConfig *cfg, uv_loop_t *loop);
void retention_stop(void);

#endif
