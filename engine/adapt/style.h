/* The opponent-style classifier of the Bayesian-adaptive evaluator (shared/spec/bayesian.md,
 * section 5): four discrete features of one player's play, and a Naive Bayes model over the
 * classes attacking / positional / mixed, trained by counting and saved as a small text file.
 *
 * The features of colour c at a position, given the moves of the game that led there:
 *  1. first move: c's first move of the game (the first of c's moves in the move list), by the
 *     piece and its destination square: White pawn to e4/d4/c4, knight to f3, else "other";
 *     Black pawn to c5/e5/e6/c6/d5, knight to f6, else "other". One variable of 12 values (White's
 *     five, then Black's seven), so a sample also says which colour the player had. Before c has
 *     moved at all the value is c's "other".
 *  2. castling: a side counts as castled when a castling move (kind MOVE_CASTLING) of that side
 *     is in the move list so far, on the side the king went (g-file: king side, c-file: queen
 *     side). Squares are not looked at: a king walked to g1 by hand has not castled, and a game
 *     started from a FEN counts only the castling moves played after it. Values: both castled on
 *     the same side / on opposite sides / at least one of the two not castled.
 *  3. pieces: c's knights, bishops, rooks and queens (not the king, not pawns) standing beyond
 *     c's own third rank (relative rank 4 to 8): 0, 1, 2, 3+.
 *  4. pawns: c's pawns past c's own fourth rank (relative rank 5 to 7) on the file of the other
 *     side's king or a file next to it; the king's square is the one it stands on now (after
 *     castling or any king move), so the pawns are counted "towards" wherever the king is: 0-3+.
 *
 * Samples: the features at the position after full move N (both sides have made their N-th
 * move: the position where game_ply == 2N), for N in StyleSampleMoves (15 and 20). Several
 * samples of one player are combined as independent observations of one class: the posterior is
 * the prior times the product over samples and features of P(value | class), normalised. */
#ifndef FEELFISH_STYLE_H
#define FEELFISH_STYLE_H

#include <stdio.h>

#include "../notation/pgn.h"
#include "../core/position.h"

typedef enum { STYLE_ATTACKING, STYLE_POSITIONAL, STYLE_MIXED, STYLE_NB } Style;

typedef enum { STYLE_F_FIRST_MOVE, STYLE_F_CASTLING, STYLE_F_PIECES, STYLE_F_PAWNS, STYLE_FEATURE_NB } StyleFeature;

typedef enum {
    STYLE_FIRST_E4,
    STYLE_FIRST_D4,
    STYLE_FIRST_C4,
    STYLE_FIRST_NF3,
    STYLE_FIRST_WHITE_OTHER,
    STYLE_FIRST_C5,
    STYLE_FIRST_E5,
    STYLE_FIRST_E6,
    STYLE_FIRST_C6,
    STYLE_FIRST_NF6,
    STYLE_FIRST_D5,
    STYLE_FIRST_BLACK_OTHER,
    STYLE_FIRST_NB
} StyleFirstMove;

typedef enum { STYLE_CASTLED_SAME, STYLE_CASTLED_OPPOSITE, STYLE_CASTLED_NOT_BOTH, STYLE_CASTLED_NB } StyleCastling;

#define STYLE_VALUES_MAX 12 /* the most values of one feature (first move) */
#define STYLE_SAMPLE_NB 2
#define STYLE_CLASSIFY_FROM 10 /* a game in progress is classified from the player's 10th move */

extern const int StyleSampleMoves[STYLE_SAMPLE_NB];    /* 15, 20 */
extern const int StyleFeatureValues[STYLE_FEATURE_NB]; /* 12, 3, 4, 4 */
/* The features the classification multiplies in: all but the first move. The first move is counted
 * (the spec's table, shown in every reading) but it is a player's repertoire, not a style: with it the
 * classifier tells Kasparov, Karpov and Anand apart well (cross-validated AUC 0.66-0.73) but reads
 * players it never saw by whose openings they share: of nine held-out players, 9 of the 20 (attacking,
 * positional) pairs read the right way round with it, 20 of 20 without (`feelfish style-cv`,
 * docs/bayesian.md). */
extern const bool StyleFeatureDecides[STYLE_FEATURE_NB];
extern const char *const StyleNames[STYLE_NB];                /* attacking, positional, mixed */
extern const char *const StyleFeatureNames[STYLE_FEATURE_NB]; /* first_move, castling, pieces, pawns */
/* The name of value v of feature f ("e4", "opposite", "3+"...). */
const char *style_value_name(StyleFeature f, int v);

/* One sample: the four features of one player at one position. */
typedef struct {
    uint8_t value[STYLE_FEATURE_NB];
    uint8_t pieces, pawns; /* the counts behind features 3 and 4, before capping at 3 */
    Color color;           /* whose features */
    int fullmove;          /* full moves completed (game_ply / 2): after full move N it is N */
    int ply;               /* the position's game_ply */
} StyleFeatures;

/* What the move list has told so far: each side's first move and castling. Update it with every
 * move, before the move is made. */
typedef struct {
    int8_t first[COLOR_NB];   /* StyleFirstMove, or -1 before the side's first move */
    int8_t castled[COLOR_NB]; /* 0 not castled, 1 king side, 2 queen side */
} StyleTrack;

void style_track_init(StyleTrack *t);
void style_track_move(StyleTrack *t, const Position *before, Move m);
/* The features of colour c in position p, given what the moves so far told. */
void style_features(const Position *p, const StyleTrack *t, Color c, StyleFeatures *out);

/* Replays moves (legal, from start) and collects the samples of colour c at the positions after
 * full moves StyleSampleMoves (in that order, only those reached); with `current`, the final
 * position is a sample too unless it is one of those. Returns the number of samples (at most
 * STYLE_SAMPLE_NB + 1); *last (if not NULL) gets the features at the final position. Returns -1 if
 * a move is illegal. */
int style_game_samples(const Position *start, const Move *moves, int n, Color c, bool current, StyleFeatures *samples,
                       StyleFeatures *last);

/* The classifier's counts: samples per class and, per feature, samples per class and value.
 * Laplace smoothing (add 1) is applied when probabilities are read, never stored. */
typedef struct {
    uint32_t prior[STYLE_NB];
    /* The decision prior in fortieths (they add up to STYLE_DECISION_UNITS), or all 0: then the
     * class prior is the smoothed share of the training samples. style-train sets it to the prior
     * that maximises the mean recall of the three classes on the training games: the collections'
     * sizes say nothing about how common a style is among opponents, and with the shares as prior
     * the classifier named attacking for only 12 % of the games (recall 22 %, below chance). */
    uint32_t decision[STYLE_NB];
    uint32_t count[STYLE_FEATURE_NB][STYLE_NB][STYLE_VALUES_MAX];
} StyleModel;

void style_model_init(StyleModel *m);
void style_model_add(StyleModel *m, Style s, const StyleFeatures *f);
#define STYLE_DECISION_UNITS 40

/* P(class): the decision prior when the model has one, else the smoothed share (n_c + 1) / (N + 3);
 * P(value | class) = (n_cv + 1) / (n_c + K_f). */
double style_model_prior(const StyleModel *m, Style s);
double style_model_likelihood(const StyleModel *m, StyleFeature f, Style s, int v);
/* log P(samples | s): over the samples and the deciding features (StyleFeatureDecides), log P(value | s). */
double style_model_log_likelihood(const StyleModel *m, Style s, const StyleFeatures *samples, int n);
/* Posterior over the classes given n samples of one player (n = 0: the smoothed prior); returns
 * the most probable class (the first of equals). */
Style style_model_classify(const StyleModel *m, const StyleFeatures *samples, int n, double posterior[STYLE_NB]);
/* The same with a prior given instead of the model's (cross-validation compares them). */
Style style_model_classify_with_prior(const StyleModel *m, const double prior[STYLE_NB], const StyleFeatures *samples,
                                      int n, double posterior[STYLE_NB]);

/* The model as text: a header line with the format version, then one line per table. Returns a
 * malloc'd string. */
char *style_model_format(const StyleModel *m);
/* Reads text written by style_model_format (lines starting with '#' are comments). On failure
 * returns false with a message naming the line and the problem, and leaves *m unchanged. */
bool style_model_parse(StyleModel *m, const char *text, char *err, size_t err_size);
bool style_model_load(StyleModel *m, const char *path, char *err, size_t err_size);
bool style_model_save(const StyleModel *m, const char *path, char *err, size_t err_size);

/* A classification of one player in one game. */
typedef struct {
    bool ready; /* false: no sample yet (the player has not reached move 10): posterior = prior */
    double posterior[STYLE_NB];
    Style style;
    int samples;                               /* how many samples were combined */
    StyleFeatures sample[STYLE_SAMPLE_NB + 1]; /* those samples, in game order */
    StyleFeatures features;                    /* the last sample's features (the final position's when !ready) */
} StyleResult;

/* A finished game, for colour c: the samples after full moves 15 and 20; a game that ended
 * earlier but after c's 10th move gives its final position as the one sample. */
bool style_classify_game(const StyleModel *m, const PgnGame *g, Color c, StyleResult *out, char *err, size_t err_size);
/* The same for the first game of a PGN text. False (with a message) if the text holds no
 * readable game. */
bool style_classify_pgn(const StyleModel *m, const char *pgn_text, Color c, StyleResult *out, char *err,
                        size_t err_size);
/* A game in progress from start_fen (NULL: the standard start) and its moves: classifies the
 * opponent, once it has made its 10th move (ready), from the samples after full moves 15 and 20
 * already passed and the current position. Call it after every opponent move. False (with a
 * message) if the FEN or a move is bad. */
bool style_classify_moves(const StyleModel *m, const char *start_fen, const Move *moves, int n, Color opponent,
                          StyleResult *out, char *err, size_t err_size);

/* Whether a PGN player tag names the player: case-insensitive substring. */
bool style_name_matches(const char *tag, const char *name);

/* A style reading as JSON text, the one writer of this shape (UCI, the analyse command and the
 * server's API all show it): {"style", "posterior": {class: p}, "features": {"firstMove",
 * "castling", "pieces", "pawns"}}. Posteriors keep nine digits. Returns buf. */
char *style_json(Style s, const double posterior[STYLE_NB], const StyleFeatures *f, char *buf, size_t size);

#endif
