/* The affective evaluator (shared/spec/affective.md, after the "Deep Feeling" thesis): the board
 * is appraised into four concepts, a fuzzy cognitive map turns them into an emotional state, the
 * state picks a goal, and the goal re-weights the classical evaluation's groups in proportion to
 * the emotion's intensity. With no emotion the evaluation is exactly the classical one. */
#ifndef FEELFISH_AFFECTIVE_H
#define FEELFISH_AFFECTIVE_H

#include "eval.h"

typedef enum {
    CONCEPT_DESIRABILITY,
    CONCEPT_RELIEF, /* relief > 0, fear < 0 */
    CONCEPT_AROUSAL,
    CONCEPT_MATERIAL,
    CONCEPT_MOBILITY,
    CONCEPT_KING_SAFETY,
    CONCEPT_OPP_KING_EXPOSURE,
    CONCEPT_NB
} Concept;

#define AFFECTIVE_TERM_NB 4 /* material, mobility, king safety, opp king exposure */
#define AFFECTIVE_GOAL_MAX 12

extern const char *const ConceptNames[CONCEPT_NB];
/* The default weight matrix E (row = from, column = to; thesis Table 4.2). */
extern const double FcmDefaultMatrix[CONCEPT_NB][CONCEPT_NB];

/* The raw measurements behind the board concepts, for one side. */
typedef struct {
    int material;   /* pawns 1/3/3/5/9, own minus opponent */
    int mobility;   /* legal moves of the side */
    int shield;     /* 8*p2 + 4*p3 - 8*open files by the king, -24..24 */
    double tropism; /* enemy pieces' closeness to the king, weighted, with bishop/rook penalties */
    int opp_shield;
    double opp_tropism;
} Appraisal;

typedef struct {
    const char *name;
    double decay; /* mood: share of the previous emotion carried into the next appraisal */
    double bias;  /* added to relief's input each iteration: anxious < 0 < bold */
    double gain;  /* the emotion's hold on the evaluation: each group's weight is (1 + r_i * eps)^gain, so
                   * 1 is the thesis's formula (temperament "thesis") and smaller gains bound the effect
                   * geometrically (a factor 16 becomes 16^gain); chosen by move matching (docs/affective.md) */
} Temperament;

/* The gain of the everyday temperaments (neutral, calm, anxious, bold). */
#define AFFECTIVE_GAIN_PERCENT 5 /* in percent, as UCI's AffectiveGain takes it */
#define AFFECTIVE_GAIN (AFFECTIVE_GAIN_PERCENT / 100.0)

/* Their names, as error messages list them (the table's order). */
#define TEMPERAMENT_NAMES "neutral, calm, anxious, bold, thesis"
extern const Temperament Temperaments[];
extern const int TemperamentCount;
const Temperament *temperament_find(const char *name); /* NULL if unknown */
/* The gains one may ask for (0: no hold, the classical evaluation; 1: the thesis's formula), and
 * what a refusal says. NaN is not one. */
#define AFFECTIVE_GAIN_MAX 1.0
#define AFFECTIVE_GAIN_REFUSED                                                                                  \
    "gain (the emotion's hold on the evaluation) must be a number from 0 (no hold: classical) to 1 (the "        \
    "thesis's formula)"
static inline bool affective_gain_valid(double gain) { return gain >= 0 && gain <= AFFECTIVE_GAIN_MAX; }
/* t with its gain replaced by gain, unless gain is negative (not asked: t's own). */
Temperament temperament_at_gain(const Temperament *t, double gain);

typedef struct {
    const char *name;
    Concept concept; /* the condition: concepts[concept] compared with threshold */
    int below;       /* 1: true when below the threshold; 0: when above */
    double threshold;
    double eta[AFFECTIVE_TERM_NB]; /* desired shares of the evaluation's range (Table 4.5) */
} Goal;

extern const Goal Goals[];
extern const int GoalCount;

typedef struct {
    double c[CONCEPT_NB]; /* every concept after the map settled (board concepts clamped) */
    int iterations;
    int goal;                         /* index into Goals */
    double intensity;                 /* eps = |relief| */
    double factor[AFFECTIVE_TERM_NB]; /* relevance factors r_i of the goal */
    double gain;                      /* the temperament's (weight[i] = (1 + factor[i] * intensity)^gain) */
    Appraisal raw;
} Emotion;

/* This engine's term ranges (centipawns), measured by `feelfish affective-ranges`
 * (engine/tools/affective_ranges.c). */
#define AFFECTIVE_RANGE_MATERIAL 5033.0
#define AFFECTIVE_RANGE_MOBILITY 252.0
#define AFFECTIVE_RANGE_KING_SAFETY 360.0
#define AFFECTIVE_RANGE_OPP_KING 576.0
extern const double AffectiveRanges[AFFECTIVE_TERM_NB];

/* The board concepts in [-1, 1] from side's point of view (membership degrees, continuous). */
void affective_appraise(const Position *p, Color side, double concepts[AFFECTIVE_TERM_NB], Appraisal *raw);
/* Runs the map from the board concepts and an optional previous emotion (mood, may be NULL). */
void affective_feel(const double board[AFFECTIVE_TERM_NB], const Emotion *previous, const Temperament *t, Emotion *out);
/* Appraises p for the side to move and feels. */
void affective_emotion(const Position *p, const Emotion *previous, const Temperament *t, Emotion *out);
/* The map's squashing function S(x) = 2 / (1 + exp(-5x)) - 1. */
double affective_squash(double x);
/* r_i = eta_i * (sum_j range_j) / range_i - 1 (Eq. 4.6 at unit intensity). */
double affective_factor(const double eta[AFFECTIVE_TERM_NB], const double ranges[AFFECTIVE_TERM_NB], int i);
/* The weight of term i (1 = unchanged): (1 + r_i * eps)^gain. */
double affective_weight(const Emotion *e, int i);
/* The evaluator for an emotion: classical groups weighted by affective_weight. */
void affective_evaluator(const Emotion *e, Evaluator *out);

const char *affective_label(Concept c, double value); /* fear/neutral/relief, ... */

/* The emotion as JSON text, the one writer of this shape (UCI's info string; the server parses it
 * into its answers): relief, desirability, arousal, label, intensity, goal, factors, inputs, four
 * decimals each. Written into buf; returns buf. */
char *affective_json(const Emotion *e, char *buf, size_t size);

#endif
