/* Retention: the database lets go of finished jobs and games past --retention-days,
 * --retention-jobs and --retention-games (a bounded batch at a time, on the writer thread): every
 * minute (sooner while a pass leaves a backlog), and within the writer's own transaction as soon as
 * a fiftieth of the smaller count cap has been written since the last pass, so the caps hold at the
 * rate a client can write;
 * every few seconds games untouched for --game-memory-idle leave memory (they are read back when
 * asked for), and past 10,000 games in memory those untouched for 10 s. */
#ifndef FEELFISH_RETENTION_H
#define FEELFISH_RETENTION_H

#include <uv.h>

#include "../base/config.h"

void retention_start(const ServerConfig *cfg, uv_loop_t *loop);
void retention_stop(void);

#endif
