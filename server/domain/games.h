/* Stateful games against the engine (POST /api/games and friends): the human's moves, the
 * engine's replies at a level, the game's end by the rules, PGN, resignation, storage; in
 * affective mode the engine's emotion carries from one of its moves to the next (mood). */
#ifndef FEELFISH_GAMES_H
#define FEELFISH_GAMES_H

#include "../net/http.h"

void games_create(Request *r, const char *param);
void games_get(Request *r, const char *id);
void games_move(Request *r, const char *id);
void games_pgn(Request *r, const char *id);
void games_takeback(Request *r, const char *id); /* POST /api/games/{id}/takeback */
void games_resign(Request *r, const char *id);
/* The request goes away: it stops waiting (the game goes on). */
void games_request_done(Request *r);
void games_shutdown(void);

#endif
