/* The affective evaluator. Decisions follow shared/spec/affective.md; comments cite it (§n) where
 * a reader would wonder. */
#include "affective.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/movegen.h"

const char *const ConceptNames[CONCEPT_NB] = {"desirability", "relief",     "arousal",        "material",
                                              "mobility",     "kingSafety", "oppKingExposure"};

/* Thesis Table 4.2 (row = from, column = to): Des, Relief, Arousal, BM, Mov, SegR, IndROp. */
const double FcmDefaultMatrix[CONCEPT_NB][CONCEPT_NB] = {
    {0, .25, .25, 0, 0, 0, 0},  {0, 0, 0, 0, 0, 0, 0},     {0, .5, 0, 0, 0, 0, 0}, {1, 1, 1, 0, 1, 1, 1},
    {.5, .5, 0, 0, .5, 1, .25}, {.5, .13, 0, 0, 0, .5, 0}, {1, 1, 1, 0, 0, 0, 0},
};

/* §2 mood and temperament: how much of the last emotion carries over, and a lean of relief. */
const Temperament Temperaments[] = {
    {"neutral", 0.5, 0.0, AFFECTIVE_GAIN}, {"calm", 0.25, 0.0, AFFECTIVE_GAIN}, {"anxious", 0.7, -0.3, AFFECTIVE_GAIN},
    {"bold", 0.5, 0.3, AFFECTIVE_GAIN},    {"thesis", 0.5, 0.0, 1.0}, /* the thesis's formula unbounded (Eq. 4.6):
                                                                         neutral's mood at gain 1 */
};
const int TemperamentCount = (int)(sizeof Temperaments / sizeof Temperaments[0]);

const Temperament *temperament_find(const char *name)
{
    for (int i = 0; i < TemperamentCount; i++)
        if (!strcmp(Temperaments[i].name, name))
            return &Temperaments[i];
    return NULL;
}

Temperament temperament_at_gain(const Temperament *t, double gain)
{
    Temperament at = *t;
    if (gain >= 0)
        at.gain = gain;
    return at;
}

/* §3: the goal table, tried in order; the last always applies. Adding a goal is a row here. */
const Goal Goals[] = {
    {"reach_safety", CONCEPT_KING_SAFETY, 1, -0.5, {0.20, 0.10, 0.60, 0.10}},
    {"enclose_king", CONCEPT_MATERIAL, 0, 0.5, {0.30, 0.10, 0.20, 0.40}},
    {"gain_advantage", CONCEPT_MATERIAL, 0, -INFINITY, {0.50, 0.20, 0.20, 0.10}},
};
const int GoalCount = (int)(sizeof Goals / sizeof Goals[0]);

/* The range of each grouped term of this engine's classical evaluation (centipawns, max - min of
 * the group over the 743 positions of wac.epd, openings.epd, random.epd and bratko-kopec.epd), as
 * printed by `feelfish affective-ranges`. They set the relevance factors (§4). */
const double AffectiveRanges[AFFECTIVE_TERM_NB] = {AFFECTIVE_RANGE_MATERIAL, AFFECTIVE_RANGE_MOBILITY,
                                                   AFFECTIVE_RANGE_KING_SAFETY, AFFECTIVE_RANGE_OPP_KING};

/* §1 membership functions, one table: a linear ramp from degree 0 at `zero` to 1 at `one`
 * (falling when one < zero). The thesis does not give its numbers; these are ours. */
typedef struct {
    double zero, one;
} Ramp;
static const Ramp MaterialAdvantage = {0.5, 2.0};      /* pawns up */
static const Ramp MaterialDisadvantage = {-0.5, -2.0}; /* pawns down */
static const Ramp Mobile = {10, 30};                   /* legal moves */
static const Ramp ShieldSafe = {-8, 16};               /* 8*p2 + 4*p3 - 8*open files */
/* The start position's tropism is about 61: calibrated as half safe (degree 0.5), so with equal
 * material and mobility the start position is the neutral point of §2 (all concepts near 0). */
static const Ramp TropismSafe = {90, 32};

static double degree(const Ramp *r, double x)
{
    double t = (x - r->zero) / (r->one - r->zero);
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

static const int PawnUnits[PIECE_TYPE_NB] = {0, 1, 3, 3, 5, 9, 0};

/* Thesis L1300-1340: h = 8*p2 + 4*p3 - 8*(open files next to the king, its own included). */
static int shield(const Position *p, Color c)
{
    Square k = king_square(p, c);
    int kf = square_file(k), h = 0;
    Bitboard own = pieces(p, c, PAWN);
    for (int f = kf - 1; f <= kf + 1; f++) {
        if (f < 0 || f > 7)
            continue;
        int r2 = relative_rank(c, k) + 1, r3 = r2 + 1;
        Bitboard file = file_bb(f);
        if (r2 <= 7 && (own & file & rank_bb(c == WHITE ? r2 : 7 - r2)))
            h += 8;
        else if (r3 <= 7 && (own & file & rank_bb(c == WHITE ? r3 : 7 - r3)))
            h += 4;
        if (!(own & file))
            h -= 8;
    }
    return h;
}

/* Thesis tropism: (14 - manhattan/2) * w for each enemy piece (queen 2.5, rook and bishop 0.5,
 * knight 1), plus 3/2/1 for a bishop on, one or two diagonals from the king, and 4 for a rook on
 * an open file next to the king. */
static double tropism(const Position *p, Color c)
{
    Color them = color_flip(c);
    Square k = king_square(p, c);
    int kf = square_file(k), kr = square_rank(k);
    static const double W[PIECE_TYPE_NB] = {0, 0, 1, 0.5, 0.5, 2.5, 0};
    double r = 0;
    for (PieceType pt = KNIGHT; pt <= QUEEN; pt++) {
        Bitboard b = pieces(p, them, pt);
        while (b) {
            Square s = pop_lsb(&b);
            int f = square_file(s), rk = square_rank(s);
            r += (14 - (abs(kf - f) + abs(kr - rk)) / 2.0) * W[pt];
            if (pt == BISHOP) {
                int d1 = abs((kf - kr) - (f - rk)), d2 = abs((kf + kr) - (f + rk));
                int d = d1 < d2 ? d1 : d2;
                if (d < 3)
                    r += 3 - d;
            } else if (pt == ROOK && abs(f - kf) <= 1 && !(p->by_type[PAWN] & file_bb(f)))
                r += 4;
        }
    }
    return r;
}

void affective_appraise(const Position *p, Color side, double concepts[AFFECTIVE_TERM_NB], Appraisal *raw)
{
    Color them = color_flip(side);
    Appraisal a;
    a.material = 0;
    for (PieceType pt = PAWN; pt <= QUEEN; pt++)
        a.material += PawnUnits[pt] * (popcount(pieces(p, side, pt)) - popcount(pieces(p, them, pt)));
    if (p->side == side)
        a.mobility = movegen_count(p);
    else {
        /* The side not to move: its moves as if it were to move (a null move lends the turn). */
        Position *tmp = malloc(sizeof *tmp);
        a.mobility = 0;
        if (tmp) {
            position_copy_root(tmp, p);
            if (!in_check(tmp)) {
                position_make_null(tmp);
                a.mobility = movegen_count(tmp);
            }
            free(tmp);
        }
    }
    a.shield = shield(p, side);
    a.tropism = tropism(p, side);
    a.opp_shield = shield(p, them);
    a.opp_tropism = tropism(p, them);
    if (raw)
        *raw = a;
    concepts[0] = degree(&MaterialAdvantage, a.material) - degree(&MaterialDisadvantage, a.material);
    double mobile = degree(&Mobile, a.mobility);
    concepts[1] = mobile - (1 - mobile);
    /* Fuzzy AND (min) of "shield safe" and "tropism safe", mapped to [-1, 1] (§1). */
    double own = fmin(degree(&ShieldSafe, a.shield), degree(&TropismSafe, a.tropism));
    double opp = fmin(degree(&ShieldSafe, a.opp_shield), degree(&TropismSafe, a.opp_tropism));
    concepts[2] = 2 * own - 1;
    concepts[3] = 1 - 2 * opp; /* + when the enemy king is defenceless */
}

double affective_squash(double x) { return 2.0 / (1.0 + exp(-5.0 * x)) - 1.0; }

void affective_feel(const double board[AFFECTIVE_TERM_NB], const Emotion *previous, const Temperament *t, Emotion *out)
{
    if (!t)
        t = &Temperaments[0];
    memset(out, 0, sizeof *out);
    double c[CONCEPT_NB] = {0}, carried[3] = {0};
    /* Mood (§2): the last emotion, decayed. The map has no self-loops, so a starting state alone
     * would be forgotten at the fixed point; the carried emotion is therefore a standing input
     * while the map settles (build-up and decay across moves, as Picard's properties ask). */
    if (previous)
        for (int i = 0; i < 3; i++)
            c[i] = carried[i] = previous->c[i] * t->decay;
    for (int i = 0; i < AFFECTIVE_TERM_NB; i++)
        c[CONCEPT_MATERIAL + i] = board[i];
    int it;
    for (it = 1; it <= 100; it++) {
        double next[CONCEPT_NB], moved = 0;
        for (int j = 0; j < CONCEPT_NB; j++) {
            double x = 0;
            for (int i = 0; i < CONCEPT_NB; i++)
                x += c[i] * FcmDefaultMatrix[i][j];
            if (j < 3)
                x += carried[j];
            if (j == CONCEPT_RELIEF)
                x += t->bias;
            next[j] = affective_squash(x);
        }
        /* §2: board concepts are measurements, re-imposed after every iteration. */
        for (int i = 0; i < AFFECTIVE_TERM_NB; i++)
            next[CONCEPT_MATERIAL + i] = board[i];
        for (int j = 0; j < CONCEPT_NB; j++) {
            moved = fmax(moved, fabs(next[j] - c[j]));
            c[j] = next[j];
        }
        if (moved <= 1e-6)
            break;
    }
    memcpy(out->c, c, sizeof c);
    out->iterations = it > 100 ? 100 : it;
    out->goal = GoalCount - 1;
    for (int g = 0; g < GoalCount; g++) {
        double v = c[Goals[g].concept];
        if (Goals[g].below ? v < Goals[g].threshold : v > Goals[g].threshold) {
            out->goal = g;
            break;
        }
    }
    out->intensity = fabs(c[CONCEPT_RELIEF]); /* §4: eps = |relief|, never the signed value */
    for (int i = 0; i < AFFECTIVE_TERM_NB; i++)
        out->factor[i] = affective_factor(Goals[out->goal].eta, AffectiveRanges, i);
    out->gain = t->gain;
}

void affective_emotion(const Position *p, const Emotion *previous, const Temperament *t, Emotion *out)
{
    double board[AFFECTIVE_TERM_NB];
    Appraisal raw;
    affective_appraise(p, p->side, board, &raw);
    affective_feel(board, previous, t, out);
    out->raw = raw;
}

double affective_factor(const double eta[AFFECTIVE_TERM_NB], const double ranges[AFFECTIVE_TERM_NB], int i)
{
    double sum = 0;
    for (int j = 0; j < AFFECTIVE_TERM_NB; j++)
        sum += ranges[j];
    return eta[i] * sum / ranges[i] - 1;
}

double affective_weight(const Emotion *e, int i)
{
    double base = fmax(0.0, 1 + e->factor[i] * e->intensity); /* r_i >= -1 and eps <= 1: never below 0 */
    return e->gain == 1.0 ? base : pow(base, e->gain);
}

void affective_evaluator(const Emotion *e, Evaluator *out)
{
    static const EvalGroup Group[AFFECTIVE_TERM_NB] = {GROUP_MATERIAL, GROUP_MOBILITY, GROUP_KING_SAFETY,
                                                       GROUP_OPP_KING_EXPOSURE};
    evaluator_classical(out);
    for (int i = 0; i < AFFECTIVE_TERM_NB; i++)
        out->weight[Group[i]] = (int)lround(EVAL_WEIGHT_ONE * affective_weight(e, i));
    evaluator_update_fingerprint(out);
}

const char *affective_label(Concept c, double v)
{
    static const char *const Labels[3][3] = {
        {"undesirable", "neutral", "desirable"}, {"fear", "neutral", "relief"}, {"calm", "neutral", "excited"}};
    int row = c == CONCEPT_DESIRABILITY ? 0 : c == CONCEPT_RELIEF ? 1 : 2;
    return Labels[row][v < -0.5 ? 0 : v > 0.5 ? 2 : 1];
}

char *affective_json(const Emotion *e, char *buf, size_t size)
{
    snprintf(buf, size,
             "{\"relief\": %.4f, \"desirability\": %.4f, \"arousal\": %.4f, \"label\": \"%s\", "
             "\"intensity\": %.4f, \"goal\": \"%s\", \"gain\": %.4f, "
             "\"factors\": {\"material\": %.4f, \"mobility\": %.4f, \"kingSafety\": %.4f, \"oppKingExposure\": %.4f}, "
             "\"weights\": {\"material\": %.4f, \"mobility\": %.4f, \"kingSafety\": %.4f, \"oppKingExposure\": %.4f}, "
             "\"inputs\": {\"material\": %.4f, \"mobility\": %.4f, \"kingSafety\": %.4f, \"oppKingExposure\": %.4f}}",
             e->c[CONCEPT_RELIEF], e->c[CONCEPT_DESIRABILITY], e->c[CONCEPT_AROUSAL],
             affective_label(CONCEPT_RELIEF, e->c[CONCEPT_RELIEF]), e->intensity, Goals[e->goal].name, e->gain,
             e->factor[0], e->factor[1], e->factor[2], e->factor[3], affective_weight(e, 0), affective_weight(e, 1),
             affective_weight(e, 2), affective_weight(e, 3), e->c[CONCEPT_MATERIAL], e->c[CONCEPT_MOBILITY],
             e->c[CONCEPT_KING_SAFETY], e->c[CONCEPT_OPP_KING_EXPOSURE]);
    return buf;
}
