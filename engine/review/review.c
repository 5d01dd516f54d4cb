/* The review of a game: see review.h. Infos as lila's AnalysisBuilder.makeInfos (the mating move
 * gets none; a line only when the engine preferred another move), advices as Advice.scala (only on
 * moves with a line), the annotated PGN as Annotator + addEvals. */
#include "review.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/movegen.h"
#include "../notation/move.h"
#include "../notation/san.h"

const char *const JudgementNames[] = {"", "Inaccuracy", "Mistake", "Blunder"};
const char *const JudgementGlyphs[] = {"", "?!", "?", "??"};
const char *const MateSequenceTexts[] = {"", "Checkmate is now unavoidable", "Lost forced checkmate sequence"};

static const uint8_t JudgementNags[] = {0, 6, 2, 4};

void review_position_from_search(ReviewPosition *r, const Position *p, const SearchResult *res)
{
    memset(r, 0, sizeof *r);
    r->has = true;
    if (movegen_count(p) == 0) {
        r->is_mate = in_check(p);
        return;
    }
    if (!res || res->lines < 1) {
        r->has = false;
        return;
    }
    const SearchInfo *best = &res->line[0];
    int mate = search_mate_in(best->score);
    r->is_mate = mate != 0;
    r->mate = mate;
    r->cp = mate ? 0 : search_cp(best->score);
    r->line_len = best->pv_length < REVIEW_LINE_MAX ? best->pv_length : REVIEW_LINE_MAX;
    memcpy(r->line, best->pv, sizeof r->line[0] * (size_t)r->line_len);
    if (!r->line_len && res->best) {
        r->line[0] = res->best;
        r->line_len = 1;
    }
}

/* The position's score from White's view. */
static ReviewEval white_view(const ReviewPosition *p, Color to_move)
{
    ReviewEval e = {p->has, p->is_mate, p->cp, p->mate};
    if (to_move == BLACK) {
        e.cp = -e.cp;
        e.mate = -e.mate;
    }
    return e;
}

Judgement review_judge(const ReviewEval *prev, const ReviewEval *info, Color mover, MateSequence *seq)
{
    *seq = MATE_NONE;
    if (prev->has && !prev->is_mate && info->has && !info->is_mate) { /* CpAdvice */
        double delta = review_winning_chances(info->cp) - review_winning_chances(prev->cp);
        if (mover == WHITE)
            delta = -delta;
        return delta >= 0.3   ? JUDGE_BLUNDER
               : delta >= 0.2 ? JUDGE_MISTAKE
               : delta >= 0.1 ? JUDGE_INACCURACY
                              : JUDGE_NONE;
    }
    /* MateAdvice, from the mover's view */
    int sign = mover == WHITE ? 1 : -1;
    bool prev_mate = prev->has && prev->is_mate, next_mate = info->has && info->is_mate;
    int pm = sign * prev->mate, nm = sign * info->mate;
    int prev_cp = prev->has && !prev->is_mate ? sign * prev->cp : 0;
    int next_cp = info->has && !info->is_mate ? sign * info->cp : 0;
    if (!prev_mate && next_mate && nm < 0) {
        *seq = MATE_CREATED;
        return prev_cp < -999 ? JUDGE_INACCURACY : prev_cp < -700 ? JUDGE_MISTAKE : JUDGE_BLUNDER;
    }
    if (prev_mate && pm > 0 && (!next_mate || nm < 0)) {
        *seq = MATE_LOST;
        return next_cp > 999 ? JUDGE_INACCURACY : next_cp > 700 ? JUDGE_MISTAKE : JUDGE_BLUNDER;
    }
    return JUDGE_NONE;
}

int review_second_look(const Review *r, bool *marks)
{
    int n = 0;
    for (int i = 0; i < r->plies; i++)
        if (r->ply[i].judgment == JUDGE_BLUNDER)
            for (int k = i; k <= i + 1; k++)
                if (!marks[k]) {
                    marks[k] = true;
                    n++;
                }
    return n;
}

void review_second_look_limits(int64_t *nodes, int64_t *depth, int64_t *movetime)
{
    int64_t *scaled[] = {nodes, movetime};
    for (int i = 0; i < 2; i++)
        *scaled[i] = *scaled[i] > INT64_MAX / REVIEW_SECOND_LOOK ? INT64_MAX : *scaled[i] * REVIEW_SECOND_LOOK;
    if (*depth > 0)
        *depth = *depth + 2 < MAX_PLY - 1 ? *depth + 2 : MAX_PLY - 1;
}

/* How many moves of the line are legal one after the other from p (the rest is dropped). */
static int legal_prefix(const Position *p, const Move *line, int len, Position *tmp)
{
    position_copy_root(tmp, p);
    int k = 0;
    while (k < len && movegen_is_legal(tmp, line[k]))
        position_make_move(tmp, line[k++]);
    return k;
}

bool review_build(Review *r, const Position *start, const Move *moves, int n, const ReviewPosition *pos)
{
    memset(r, 0, sizeof *r);
    Position *here = malloc(sizeof *here), *tmp = malloc(sizeof *tmp);
    if (!here || !tmp) {
        free(here);
        free(tmp);
        return false;
    }
    position_copy(here, start);
    r->plies = n;
    r->first_mover = start->side;
    r->ply = calloc((size_t)(n > 0 ? n : 1), sizeof *r->ply);
    if (!r->ply) {
        free(here);
        free(tmp);
        return false;
    }
    Color mover = start->side;
    ReviewEval initial = {true, false, REVIEW_CP_INITIAL, 0};
    const ReviewEval *prev = &initial;
    for (int i = 0; i < n; i++, mover = !mover) {
        ReviewPly *p = &r->ply[i];
        p->mover = mover;
        p->played = moves[i];
        const ReviewPosition *after = &pos[i + 1], *before = &pos[i];
        if (!movegen_is_legal(here, moves[i])) { /* not this game: nothing more is reviewed */
            r->plies = i;
            break;
        }
        int line_len = legal_prefix(here, before->line,
                                    before->line_len < REVIEW_LINE_MAX ? before->line_len : REVIEW_LINE_MAX, tmp);
        if (here->stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(here);
        position_make_move(here, moves[i]);
        p->has_info = !(after->has && after->is_mate && after->mate == 0); /* checkmate: dropped */
        if (!p->has_info)
            continue;
        p->eval = white_view(after, !mover);
        if (line_len > 0 && before->line[0] != moves[i]) {
            p->line_len = line_len;
            memcpy(p->line, before->line, sizeof p->line[0] * (size_t)p->line_len);
        }
        if (p->eval.has) {
            p->win_percent = review_win_percent(review_force_cp(&p->eval));
            if (prev->has) {
                double b = review_win_percent(review_force_cp(prev)), a = p->win_percent;
                p->accuracy = mover == WHITE ? review_move_accuracy(b, a) : review_move_accuracy(100 - b, 100 - a);
                p->has_accuracy = true;
            }
        }
        if (p->line_len)
            p->judgment = review_judge(prev, &p->eval, mover, &p->sequence);
        ReviewPlayer *pl = &r->player[mover];
        pl->inaccuracy += p->judgment == JUDGE_INACCURACY;
        pl->mistake += p->judgment == JUDGE_MISTAKE;
        pl->blunder += p->judgment == JUDGE_BLUNDER;
        prev = &p->eval;
    }
    free(here);
    free(tmp);
    n = r->plies;
    /* ACPL over the infos (missing evals allowed); accuracy over the evals that exist. */
    ReviewEval *evals = calloc((size_t)(n > 0 ? n : 1), sizeof *evals);
    double *cps = calloc((size_t)(n > 0 ? n : 1), sizeof *cps);
    if (!evals || !cps) {
        free(evals);
        free(cps);
        return false;
    }
    int infos = 0, scored = 0;
    for (int i = 0; i < n; i++)
        if (r->ply[i].has_info) {
            evals[infos++] = r->ply[i].eval;
            if (r->ply[i].eval.has)
                cps[scored++] = review_force_cp(&r->ply[i].eval);
        }
    bool white_first = start->side == WHITE;
    for (Color c = WHITE; c <= BLACK; c++)
        r->player[c].has_acpl = review_acpl(evals, infos, c == WHITE, white_first, &r->player[c].acpl);
    double wa, ba;
    if (review_game_accuracy(cps, scored, white_first, &wa, &ba)) {
        r->player[WHITE].accuracy = wa;
        r->player[BLACK].accuracy = ba;
        r->player[WHITE].has_accuracy = r->player[BLACK].has_accuracy = true;
    }
    free(evals);
    free(cps);
    return true;
}

void review_free(Review *r)
{
    free(r->ply);
    r->ply = NULL;
}

void review_eval_text(const ReviewEval *e, char *out, size_t size)
{
    if (!e->has)
        snprintf(out, size, "?");
    else if (e->is_mate)
        snprintf(out, size, "Mate in %d", abs(e->mate));
    else
        snprintf(out, size, "%.2f", e->cp / 100.0);
}

void review_pgn_eval(const ReviewEval *e, char *out, size_t size)
{
    if (e->is_mate) {
        snprintf(out, size, "[%%eval #%d]", e->mate);
        return;
    }
    /* Java's Float.toString of cp/100: the shortest form, one decimal at least (0.1, 2.0, -0.34) */
    char num[32];
    snprintf(num, sizeof num, "%.2f", e->cp / 100.0);
    size_t len = strlen(num);
    if (num[len - 1] == '0')
        num[len - 1] = 0;
    if (!strcmp(num, "-0.0"))
        snprintf(num, sizeof num, "0.0");
    snprintf(out, size, "[%%eval %s]", num);
}

void review_comment(const Review *r, int ply, const Position *before, bool with_eval, char *out, size_t size)
{
    const ReviewPly *p = &r->ply[ply];
    size_t o = 0;
    out[0] = 0;
    if (p->judgment == JUDGE_NONE)
        return;
    if (with_eval) {
        ReviewEval initial = {true, false, REVIEW_CP_INITIAL, 0};
        const ReviewEval *prev = ply == 0 ? &initial : &r->ply[ply - 1].eval;
        char a[24], b[24];
        review_eval_text(prev, a, sizeof a);
        review_eval_text(&p->eval, b, sizeof b);
        o += (size_t)snprintf(out, size, "(%s \xe2\x86\x92 %s) ", a, b);
    }
    const char *desc = p->sequence ? MateSequenceTexts[p->sequence] : JudgementNames[p->judgment];
    o += (size_t)snprintf(out + o, o < size ? size - o : 0, "%s.", desc);
    if (p->line_len && o < size) {
        Position *tmp = malloc(sizeof *tmp);
        char san[SAN_STRING_SIZE];
        if (tmp) {
            position_copy_root(tmp, before);
            snprintf(out + o, size - o, " %s was best.", san_write(tmp, p->line[0], san));
            free(tmp);
        }
    }
}

void review_line_san(const ReviewPly *p, const Position *before, bool numbered, char *out, size_t size)
{
    Position *tmp = malloc(sizeof *tmp);
    out[0] = 0;
    if (!tmp)
        return;
    position_copy_root(tmp, before);
    size_t o = 0;
    for (int i = 0; i < p->line_len && o < size; i++) {
        char san[SAN_STRING_SIZE];
        int full = 1 + tmp->game_ply / 2;
        const char *sep = i ? " " : "";
        if (numbered && tmp->side == WHITE)
            o += (size_t)snprintf(out + o, size - o, "%s%d. ", sep, full);
        else if (numbered && i == 0)
            o += (size_t)snprintf(out + o, size - o, "%d... ", full);
        else
            o += (size_t)snprintf(out + o, size - o, "%s", sep);
        if (o >= size)
            break;
        o += (size_t)snprintf(out + o, size - o, "%s", san_write(tmp, p->line[i], san));
        position_make_move(tmp, p->line[i]);
    }
    free(tmp);
}

/* The non-empty parts as one comment of Lichess's blocks: "a } { b } { c" (the writer adds the
 * outer braces). */
static char *blocks(const char *const *parts, int n)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += parts[i] && *parts[i] ? strlen(parts[i]) + 5 : 0;
    char *c = malloc(len), *at = c;
    if (!c)
        return NULL;
    *c = 0;
    for (int i = 0; i < n; i++)
        if (parts[i] && *parts[i])
            at += sprintf(at, "%s%s", at == c ? "" : " } { ", parts[i]);
    if (!*c) {
        free(c);
        return NULL;
    }
    return c;
}

/* The game's own comment without the [%eval ...] commands an earlier analysis left in it (ours replace
 * them: two evals on one move contradict each other); its clocks and words stay. NULL if nothing is
 * left. */
static char *without_evals(const char *comment)
{
    if (!comment)
        return NULL;
    char *c = malloc(strlen(comment) + 1), *o = c;
    if (!c)
        return NULL;
    for (const char *at = comment; *at;) {
        const char *end = !strncmp(at, "[%eval ", 7) ? strchr(at, ']') : NULL;
        if (end) {
            at = end + 1;
            while (*at == ' ')
                at++;
            continue;
        }
        *o++ = *at++;
    }
    while (o > c && o[-1] == ' ')
        o--;
    *o = 0;
    if (!*c) {
        free(c);
        return NULL;
    }
    return c;
}

static const char *status_text(const Position *end, const char *result)
{
    if (movegen_count(end) == 0)
        return in_check(end) ? (end->side == WHITE ? "Black wins by checkmate." : "White wins by checkmate.")
                             : "Draw by stalemate.";
    if (!strcmp(result, "1-0"))
        return "White wins.";
    if (!strcmp(result, "0-1"))
        return "Black wins.";
    if (!strcmp(result, "1/2-1/2"))
        return "The game is a draw.";
    return NULL;
}

bool review_annotate(const Review *r, const PgnGame *game, PgnGame *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (game->move_count != r->plies) {
        snprintf(err, err_size, "the review has %d plies, the game %d", r->plies, game->move_count);
        return false;
    }
    for (int i = 0; i < game->tag_count; i++)
        if (strcmp(game->tags[i].name, "Annotator"))
            pgn_game_add_tag(out, game->tags[i].name, game->tags[i].value);
    pgn_game_add_tag(out, "Annotator", "feelfish");
    out->start_fen = game->start_fen ? strdup(game->start_fen) : NULL;
    out->comment = game->comment ? strdup(game->comment) : NULL;
    snprintf(out->result, sizeof out->result, "%s", game->result);
    out->lichess_style = true;
    Position *pos = malloc(sizeof *pos);
    char msg[128];
    if (!pos || !pgn_start_position(game, pos, msg, sizeof msg)) {
        free(pos);
        snprintf(err, err_size, "the game's start: %s", pos ? msg : "out of memory");
        pgn_game_free(out);
        return false;
    }
    for (int i = 0; i < game->move_count; i++) {
        const PgnMove *src = &game->moves[i];
        const ReviewPly *p = &r->ply[i];
        PgnMove *m = pgn_game_add_move(out);
        m->move = src->move;
        snprintf(m->san, sizeof m->san, "%s", src->san);
        char text[600] = "", evaltext[32] = "";
        if (p->has_info && p->eval.has)
            review_pgn_eval(&p->eval, evaltext, sizeof evaltext);
        char line[700] = "";
        /* the judgement's glyph, then the game's own NAGs but its move glyphs ($1-$6): a move has one */
        if (p->judgment)
            m->nags[m->nag_count++] = JudgementNags[p->judgment];
        for (int k = 0; k < src->nag_count && m->nag_count < (int)(sizeof m->nags); k++)
            if (!p->judgment || src->nags[k] > 6)
                m->nags[m->nag_count++] = src->nags[k];
        if (p->judgment) {
            review_comment(r, i, pos, true, text, sizeof text);
            line[0] = '(';
            review_line_san(p, pos, true, line + 1, sizeof line - 2);
            strcat(line, ")");
        }
        const char *vars[] = {line, src->variations};
        for (int k = 0; k < 2; k++) /* the better line first, then the game's own variations */
            if (vars[k] && *vars[k]) {
                char *joined = malloc(strlen(vars[k]) + (m->variations ? strlen(m->variations) + 1 : 0) + 1);
                if (joined)
                    sprintf(joined, "%s%s%s", m->variations ? m->variations : "", m->variations ? " " : "", vars[k]);
                free(m->variations);
                m->variations = joined;
            }
        position_make_move(pos, src->move);
        /* the judgement's comment, the eval, the game's end, the game's own comment: each in a
         * block of its own ("} {"), as Lichess writes them */
        char *own = without_evals(src->comment);
        const char *parts[] = {text, evaltext, i == game->move_count - 1 ? status_text(pos, game->result) : NULL, own};
        m->comment = blocks(parts, 4);
        free(own);
        if (pos->stack_len > 200)
            position_trim_history(pos);
    }
    free(pos);
    return true;
}

void review_line_from_uci(ReviewPosition *r, const Position *p, const char *moves)
{
    r->line_len = 0;
    Position *tmp = malloc(sizeof *tmp);
    if (!tmp)
        return;
    position_copy(tmp, p);
    char uci[8];
    int used;
    for (const char *c = moves; r->line_len < REVIEW_LINE_MAX && sscanf(c, " %7s%n", uci, &used) == 1; c += used) {
        Move m = move_from_uci(tmp, uci);
        if (!m)
            break;
        r->line[r->line_len++] = m;
        position_make_move(tmp, m);
    }
    free(tmp);
}
