/* A reviewed game as JSON: see encode_review.h. */
#include "encode_review.h"

#include <math.h>
#include <stdlib.h>

#include "../../engine/notation/move.h"
#include "../../engine/notation/san.h"
#include "encode.h"

static json_t *player(const ReviewPlayer *p)
{
    json_t *o = json_pack("{s:i, s:i, s:i}", "inaccuracy", p->inaccuracy, "mistake", p->mistake, "blunder", p->blunder);
    if (p->has_acpl)
        json_object_set_new(o, "acpl", json_integer((json_int_t)lround(p->acpl)));
    if (p->has_accuracy)
        json_object_set_new(o, "accuracy", json_integer((json_int_t)lround(p->accuracy)));
    return o;
}

json_t *encode_review(const Review *r, const Position *start, const Emotion *emotions)
{
    Position *pos = malloc(sizeof *pos);
    if (!pos)
        return NULL;
    position_copy(pos, start);
    json_t *plies = json_array();
    for (int i = 0; i < r->plies; i++) {
        const ReviewPly *p = &r->ply[i];
        char san[SAN_STRING_SIZE], uci[MOVE_STRING_SIZE];
        json_t *o = json_pack("{s:i, s:s, s:s}", "ply", pos->game_ply + 1, "move", san_write(pos, p->played, san),
                              "uci", move_to_uci(p->played, uci));
        if (p->has_info && p->eval.has) {
            json_object_set_new(o, p->eval.is_mate ? "mate" : "eval",
                                json_integer(p->eval.is_mate ? p->eval.mate : p->eval.cp));
            json_object_set_new(o, "winPercent", json_real(round(p->win_percent * 100) / 100));
        }
        if (p->has_accuracy)
            json_object_set_new(o, "accuracy", json_real(round(p->accuracy * 100) / 100));
        if (p->line_len) {
            json_object_set_new(o, "best", json_string(move_to_uci(p->line[0], uci)));
            char line[REVIEW_LINE_MAX * (SAN_STRING_SIZE + 1)];
            review_line_san(p, pos, false, line, sizeof line);
            json_object_set_new(o, "variation", json_string(line));
        }
        if (p->judgment) {
            char comment[400];
            review_comment(r, i, pos, false, comment, sizeof comment);
            json_object_set_new(o, "judgment",
                                json_pack("{s:s, s:s}", "name", JudgementNames[p->judgment], "comment", comment));
        }
        if (emotions)
            json_object_set_new(o, "emotion", encode_emotion(&emotions[i]));
        json_array_append_new(plies, o);
        position_make_move(pos, p->played);
        if (pos->stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(pos);
    }
    free(pos);
    return json_pack("{s:o, s:{s:o, s:o}}", "analysis", plies, "players", "white", player(&r->player[WHITE]), "black",
                     player(&r->player[BLACK]));
}
