/* Reading back the API's shapes that are stored or imported: a game's JSON (encode_game's
 * shape) into a Game, so a game survives a restart; an exported Bayesian model. */
#ifndef FEELFISH_DECODE_H
#define FEELFISH_DECODE_H

#include <jansson.h>

#include "../domain/games.h"

/* A new Game (not inserted), or NULL when the JSON is not a game this build can replay. */
Game *decode_game(json_t *o);
/* A whole number a request may give (a level, a rating): 0 when absent or null, the number when it
 * is whole and from lo to hi, else -1 (the domain names what is wrong). */
int decode_asked_number(const json_t *v, long lo, long hi);
/* An exported Bayesian model (encode_bayes_model's shape with full counts), cleared first; false
 * with a message naming the problem. */
bool decode_bayes_model(json_t *j, BayesModel *m, char *err, size_t err_size);

#endif
