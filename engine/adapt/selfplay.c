/* The in-process game loop. */
#include "selfplay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../notation/fen.h"
#include "../core/rules.h"

bool selfplay_game(Search *searches[COLOR_NB], const char *fen, const SelfPlayer players[COLOR_NB],
                   const SelfPlaySettings *settings, SelfPlayGame *game)
{
    Position *owned = malloc(sizeof *owned); /* large: kept off worker threads' stacks */
    if (!owned)
        return false;
    Position *p = owned;
    char err[128];
    if (fen_read(p, fen ? fen : FEN_STARTPOS, err, sizeof err) != FEN_OK) {
        free(owned);
        return false;
    }
    memset(game, 0, sizeof *game);
    for (Color c = WHITE; c <= BLACK; c++)
        search_clear(searches[c]);
    int64_t clock[COLOR_NB] = {settings->base_ms, settings->base_ms};
    int decisive_plies = 0, last_sign = 0;
    SearchResult *r = malloc(sizeof *r);
    if (!r) {
        free(owned);
        return false;
    }
    for (;;) {
        GameStatus st = position_status(p);
        if (st != STATUS_ONGOING) {
            game->result = st == STATUS_CHECKMATE ? (p->side == WHITE ? -1 : 1) : 0;
            snprintf(game->reason, sizeof game->reason, "%s", game_status_name(st));
            break;
        }
        if (game->plies >= SELFPLAY_MAX_PLIES) {
            snprintf(game->reason, sizeof game->reason, "move limit");
            break;
        }
        Color us = p->side;
        SearchLimits l;
        search_limits_init(&l);
        l.nodes = settings->nodes;
        l.depth = settings->depth;
        if (settings->base_ms > 0) {
            l.use_clock = true;
            l.time[WHITE] = clock[WHITE];
            l.time[BLACK] = clock[BLACK];
            l.inc[WHITE] = l.inc[BLACK] = settings->inc_ms;
        }
        const Evaluator *e = players[us].evaluator(players[us].user, p);
        int64_t start = time_now_ms();
        search_run(searches[us], p, &l, e, NULL, r);
        if (settings->base_ms > 0) {
            clock[us] -= time_now_ms() - start;
            if (clock[us] < 0) {
                game->result = us == WHITE ? -1 : 1;
                snprintf(game->reason, sizeof game->reason, "time forfeit");
                break;
            }
            clock[us] += settings->inc_ms;
        }
        if (r->best == MOVE_NONE) { /* cannot happen with a legal move available */
            snprintf(game->reason, sizeof game->reason, "no move");
            break;
        }
        /* Adjudication: both sides see the same winner by a clear margin for 4 plies. */
        int white_score = us == WHITE ? r->score : -r->score;
        int sign = settings->resign_cp && white_score >= settings->resign_cp    ? 1
                   : settings->resign_cp && white_score <= -settings->resign_cp ? -1
                                                                                : 0;
        decisive_plies = sign && sign == last_sign ? decisive_plies + 1 : sign ? 1 : 0;
        last_sign = sign;
        game->scores[game->plies] = (int16_t)r->score;
        game->moves[game->plies++] = r->best;
        position_make_move(p, r->best);
        position_trim_history(p);
        if (decisive_plies >= 4) {
            game->result = sign;
            snprintf(game->reason, sizeof game->reason, "adjudicated");
            break;
        }
    }
    free(r);
    free(owned);
    return true;
}
