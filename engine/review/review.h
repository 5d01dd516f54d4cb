/* A whole game reviewed as Lichess's computer analysis does (shared/spec/game-analysis.md): from an
 * engine evaluation of every position of the game (the start, then after each move), each ply's
 * eval (White's view), the engine's better move and line when it differs from the move played, the
 * judgement (Inaccuracy, Mistake, Blunder; the two mate judgements), each player's counts, ACPL
 * and accuracy, and the annotated PGN (`[%eval]`, glyphs, comments, the better line as a
 * variation). The engine that evaluates is the caller's: this file only computes. */
#ifndef FEELFISH_REVIEW_H
#define FEELFISH_REVIEW_H

#include "../core/position.h"
#include "../notation/pgn.h"
#include "../search/search.h"
#include "accuracy.h"

#define REVIEW_LINE_MAX 12 /* lila's Info.LineMaxPlies */

/* One position as the engine saw it: its score from the side to move's view (mate in moves:
 * positive, the side to move mates), its best line. A checkmated position has mate 0. */
typedef struct {
    bool has;
    bool is_mate;
    int cp, mate;
    Move line[REVIEW_LINE_MAX];
    int line_len;
} ReviewPosition;

/* A search's view of p as a review position: its first line's score and moves; a position without a
 * legal move is mate 0 (checkmated) or 0 cp (stalemate), as lila's engines report them. */
void review_position_from_search(ReviewPosition *r, const Position *p, const SearchResult *res);

/* r's line from UCI moves separated by blanks, played from p (unchanged): its legal prefix, at most
 * REVIEW_LINE_MAX moves (an engine's pv, a cached line). */
void review_line_from_uci(ReviewPosition *r, const Position *p, const char *moves);

typedef enum { JUDGE_NONE, JUDGE_INACCURACY, JUDGE_MISTAKE, JUDGE_BLUNDER } Judgement;
typedef enum { MATE_NONE, MATE_CREATED, MATE_LOST } MateSequence;

extern const char *const JudgementNames[];    /* "", "Inaccuracy", "Mistake", "Blunder" */
extern const char *const JudgementGlyphs[];   /* "", "?!", "?", "??" */
extern const char *const MateSequenceTexts[]; /* "", "Checkmate is now unavoidable", ... */

typedef struct {
    bool has_info;   /* false for the mating move (no eval, no judgement), as lila */
    ReviewEval eval; /* after the move, White's view */
    Color mover;
    Move played;
    Move line[REVIEW_LINE_MAX]; /* the engine's line from the position before, if it starts with
                                 * another move than the one played (line_len 0 otherwise) */
    int line_len;
    Judgement judgment;
    MateSequence sequence;
    double win_percent; /* after the move, White's view (mates as +-1000 cp) */
    double accuracy;    /* the move's accuracy for its mover, when it has an eval before and after */
    bool has_accuracy;
} ReviewPly;

typedef struct {
    int inaccuracy, mistake, blunder;
    bool has_acpl, has_accuracy;
    double acpl, accuracy; /* rounded by who shows them (lila: Math.round) */
} ReviewPlayer;

typedef struct {
    int plies;
    ReviewPly *ply; /* plies entries */
    ReviewPlayer player[COLOR_NB];
    Color first_mover;
} Review;

/* Builds the review of the game from `start` with moves[0..n-1] and the engine's view of its n+1
 * positions (pos[0] the start). The review owns its ply array (review_free). */
bool review_build(Review *r, const Position *start, const Move *moves, int n, const ReviewPosition *pos);
void review_free(Review *r);

/* The second look (feelfish's addition to lila's review): a search at a fixed budget often takes a
 * sound move for a blunder, and a deeper search of the two positions around it withdraws most of
 * those judgements while keeping the real ones (docs/engine.md, annotate). marks[k] (k = 0..plies,
 * the positions as in review_build) is set for both positions around every move judged a blunder;
 * returns how many positions are marked. Callers search those again with the budget made
 * REVIEW_SECOND_LOOK times larger (two plies deeper for a depth) and build the review again. */
#define REVIEW_SECOND_LOOK 4
int review_second_look(const Review *r, bool *marks);

/* The second look's limits from the first's, in place: nodes and time REVIEW_SECOND_LOOK times larger,
 * a depth two plies more (below MAX_PLY); a limit that is 0 (not set) stays 0. */
void review_second_look_limits(int64_t *nodes, int64_t *depth, int64_t *movetime);

/* The judgement of a move from the evals before and after it (White's view), lila's CpAdvice, then
 * MateAdvice. */
Judgement review_judge(const ReviewEval *prev, const ReviewEval *info, Color mover, MateSequence *seq);

/* lila's texts: "0.05" or "Mate in 3" (the eval comment); "[%eval 0.1]" / "[%eval #-3]"; the
 * judgement comment "Inaccuracy. dxe4 was best." with "(0.05 → 0.85) " in front when with_eval. */
void review_eval_text(const ReviewEval *e, char *out, size_t size);
void review_pgn_eval(const ReviewEval *e, char *out, size_t size);
void review_comment(const Review *r, int ply, const Position *before, bool with_eval, char *out, size_t size);
/* The ply's better line in SAN from the position before it: "dxe4 Nxe4 Bb4+", or numbered as in a
 * PGN variation, "4... dxe4 5. Nxe4 Bb4+". */
void review_line_san(const ReviewPly *p, const Position *before, bool numbered, char *out, size_t size);

/* The game annotated: a copy of `game` (tags, moves) with [%eval] on every move that has an eval,
 * the glyph, judgement comment and better line on judged moves, [Annotator "feelfish"]. The
 * result must be freed with pgn_game_free. */
bool review_annotate(const Review *r, const PgnGame *game, PgnGame *out, char *err, size_t err_size);

#endif
