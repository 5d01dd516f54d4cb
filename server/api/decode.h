/* Reading back what the API stored: a game's JSON (encode_game's shape) into a Game, so a game
 * survives a restart. The inverse of encode.h for the shapes that are stored. */
#ifndef FEELFISH_DECODE_H
#define FEELFISH_DECODE_H

#include <jansson.h>

#include "../domain/games.h"

/* A new Game (not inserted), or NULL when the JSON is not a game this build can replay. */
Game *decode_game(json_t *o);

#endif
