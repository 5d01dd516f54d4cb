/* The Bayesian-adaptive evaluator's choice for one search (shared/spec/bayesian.md §2, §4, §6):
 * the phase by the rule, the target from the request or from the opponent's recognised style, and
 * the parameter vector the model selects for them. Used by the server, UCI and self-play. */
#ifndef FEELFISH_ADAPTIVE_H
#define FEELFISH_ADAPTIVE_H

#include "../eval/bayes.h"
#include "style.h"

typedef struct {
    GamePhase phase;
    BayesTarget target;
    char reason[160];
    uint64_t games; /* games the model has learned from */
    int changed;    /* parameters away from their default level */
    bool has_style; /* the opponent's style was recognised (a game from its move 10 on) */
    Style style;
    double posterior[STYLE_NB];
    StyleFeatures features; /* the opponent's, at the current position */
} BayesChoice;

/* The moves of a game so far, from its start position: what the style classifier reads. */
typedef struct {
    const Position *start;
    const Move *moves;
    int count;
} MoveHistory;

/* "auto", "aggressive" or "conservative" into a target (auto: *automatic true and the target the
 * default, conservative); false for anything else. */
bool adaptive_parse_target(const char *name, BayesTarget *target, bool *automatic);

/* Chooses for a search at root. `requested` is the target, or in auto mode the target until the
 * opponent's style is known: from the opponent's move 10 on, attacking -> conservative, positional
 * -> aggressive, mixed -> one of the two drawn from `seed` (a game's own number, so a game can be
 * replayed). style may be NULL (no style model: the requested target). *storage must outlive *e. */
void adaptive_choose(const BayesModel *m, const StyleModel *style, const Position *root, const MoveHistory *history,
                     BayesTarget requested, bool automatic, uint64_t seed, BayesChoice *choice, EvalParams *storage,
                     Evaluator *e);
/* The levels the choice stands for (BayesParamCount entries), for a game's records. */
void adaptive_levels(const BayesModel *m, const BayesChoice *choice, uint8_t *levels);
/* The choice as one line of JSON text, the one writer of this shape (UCI's info string; the server
 * parses it into its answers): {"phase", "target", "reason", "gamesLearned", "changedParams",
 * "style": style_json or null}. */
char *adaptive_choice_text(const BayesChoice *c, char *buf, size_t size);

#endif
