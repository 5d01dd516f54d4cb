/* The Bayesian-adaptive choice per search. Decisions follow shared/spec/bayesian.md (§n). */
#include "adaptive.h"

#include <stdio.h>
#include <string.h>

#include "../core/random.h"

bool adaptive_parse_target(const char *name, BayesTarget *target, bool *automatic)
{
    *automatic = !strcmp(name, "auto");
    *target = TARGET_CONSERVATIVE; /* §6: the default when nothing else decides */
    if (*automatic || !strcmp(name, "conservative"))
        return true;
    if (!strcmp(name, "aggressive")) {
        *target = TARGET_AGGRESSIVE;
        return true;
    }
    return false;
}

/* The opponent's moves in the history: the opponent is the side not to move at the root. */
static int opponent_moves(const MoveHistory *h, Color opponent)
{
    return h->start->side == opponent ? (h->count + 1) / 2 : h->count / 2;
}

void adaptive_choose(const BayesModel *m, const StyleModel *style, const Position *root, const MoveHistory *history,
                     BayesTarget requested, bool automatic, uint64_t seed, BayesChoice *c, EvalParams *storage,
                     Evaluator *e)
{
    memset(c, 0, sizeof *c);
    c->phase = bayes_phase(root);
    c->target = requested;
    c->games = m->games;
    Color opponent = color_flip(root->side);
    if (!automatic)
        snprintf(c->reason, sizeof c->reason, "requested");
    else if (!history || !history->count)
        snprintf(c->reason, sizeof c->reason, "no opponent history (a bare position): the requested default");
    else if (opponent_moves(history, opponent) < STYLE_CLASSIFY_FROM)
        snprintf(c->reason, sizeof c->reason, "before the opponent's move %d: the requested default",
                 STYLE_CLASSIFY_FROM);
    else if (!style)
        snprintf(c->reason, sizeof c->reason, "no opponent-style model loaded: the requested default");
    else {
        StyleFeatures samples[STYLE_SAMPLE_NB + 1];
        int n =
            style_game_samples(history->start, history->moves, history->count, opponent, true, samples, &c->features);
        if (n > 0) {
            c->has_style = true;
            c->style = style_model_classify(style, samples, n, c->posterior);
            /* §6: an attacking opponent gets conservative parameters, a positional one aggressive,
             * a mixed one either, drawn once per game from its seed. */
            c->target = c->style == STYLE_ATTACKING    ? TARGET_CONSERVATIVE
                        : c->style == STYLE_POSITIONAL ? TARGET_AGGRESSIVE
                                                       : (BayesTarget)(splitmix64(&seed) & 1);
            snprintf(c->reason, sizeof c->reason, "opponent style %s (p=%.2f)%s", StyleNames[c->style],
                     c->posterior[c->style], c->style == STYLE_MIXED ? ": target drawn for this game" : "");
        } else
            snprintf(c->reason, sizeof c->reason, "the moves do not replay: the requested default");
    }
    c->changed = bayes_evaluator(m, c->phase, c->target, storage, e);
}

void adaptive_levels(const BayesModel *m, const BayesChoice *c, uint8_t *levels)
{
    bayes_select(m, c->phase, c->target, levels);
}

char *adaptive_choice_text(const BayesChoice *c, char *buf, size_t size)
{
    char style[512] = "null";
    if (c->has_style)
        style_json(c->style, c->posterior, &c->features, style, sizeof style);
    snprintf(buf, size,
             "{\"phase\": \"%s\", \"target\": \"%s\", \"reason\": \"%s\", \"gamesLearned\": %llu, "
             "\"changedParams\": %d, \"style\": %s}",
             GamePhaseNames[c->phase], BayesTargetNames[c->target], c->reason, (unsigned long long)c->games, c->changed,
             style);
    return buf;
}
