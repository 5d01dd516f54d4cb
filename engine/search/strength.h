/* Playing below full strength, asked as a rating (one search thread; docs/levels.md). UCI_Elo, a game's level or `elo`, POST /api/play's
 * level and the bot's feelfish.elo all come here, so one rating means one way of playing.
 *
 * A rating becomes a node budget and a temperature. The search looks at the best STRENGTH_LINES
 * moves within the budget, then draws one of them as it left them (docs/levels.md says which): a move STRENGTH_LINES-deep behind the best by d engine
 * units is drawn with weight exp(-d / T), where T grows with the number of legal moves (a person errs
 * more where there is more to choose from). A mate the search found is always played; a move it
 * sees losing to mate is drawn only when every move does. So a weak level misses what a short look
 * misses and prefers a nearly-as-good move to a blunder, rather than playing a random one. Each
 * move is searched from nothing (its own table key, empty histories): what was searched before, by
 * this game or another client, neither strengthens it nor narrows what it draws among.
 *
 * The table behind it is measured (docs/levels.md): each row's rating is what that budget and
 * temperature scored against Stockfish 15.1's UCI_Elo ladder; ratings between rows are
 * interpolated (the budget geometrically). */
#ifndef FEELFISH_STRENGTH_H
#define FEELFISH_STRENGTH_H

#include <stdint.h>

#define STRENGTH_LINES 5

/* The ratings a search can be asked for (UCI_Elo's range): the table's first and last rows. */
#define STRENGTH_ELO_MIN 1100
#define STRENGTH_ELO_MAX 2300

typedef struct {
    int elo;         /* as asked, clamped to the range */
    uint64_t nodes;  /* the search's budget */
    int temperature; /* engine units, at 20 legal moves */
} Strength;

void strength_of(int elo, Strength *s);

/* Index of the move to play among `count` root moves with the search's `scores` (engine units, side
 * to move's view; -VALUE_INFINITE: not searched, never chosen); `legal` is the position's number of
 * legal moves and `random` a fresh random number. */
int strength_choose(const Strength *s, const int *scores, int count, int legal, uint64_t random);

#endif
