/* Standard Algebraic Notation: writing with minimal disambiguation and +/#, and tolerant reading. */
#ifndef FEELFISH_SAN_H
#define FEELFISH_SAN_H

#include "../core/position.h"

#define SAN_STRING_SIZE 10 /* longest: "Qa1xb2=Q#" is 9 characters */

/* Writes the SAN of legal move m into buf; p is used for make/unmake and left as it was. */
char *san_write(Position *p, Move m, char *buf);

/* Reads SAN (disambiguation by file, rank or both, optional 'x', '+', '#', "=Q" or "Q" promotion,
 * O-O/0-0, trailing !? marks ignored, the promotion letter in either case) and returns the legal move it names, or
 * MOVE_NONE when it names none or is ambiguous. */
Move san_read(const Position *p, const char *s);
/* The same; when it names none, *ambiguous (if not NULL) says whether it named more than one. */
Move san_read_ambiguous(const Position *p, const char *s, bool *ambiguous);

#endif
