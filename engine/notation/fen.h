/* FEN reading with strict validation (every failure its own code and message) and writing. */
#ifndef FEELFISH_FEN_H
#define FEELFISH_FEN_H

#include <stddef.h>

#include "../core/position.h"

#define FEN_MAX_LENGTH 256
#define FEN_BUFFER_SIZE 128 /* enough for any FEN fen_write() produces */
#define FEN_STARTPOS "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

typedef enum {
    FEN_OK,
    FEN_EMPTY,                 /* nothing but white space */
    FEN_TOO_LONG,              /* longer than FEN_MAX_LENGTH */
    FEN_FIELD_COUNT,           /* not 4 to 6 space-separated fields */
    FEN_BAD_PIECE,             /* a character that is neither a piece letter nor 1-8 */
    FEN_RANK_COUNT,            /* not exactly 8 ranks */
    FEN_RANK_LENGTH,           /* a rank that is not 8 squares */
    FEN_BAD_SIDE,              /* side to move not "w" or "b" */
    FEN_BAD_CASTLING,          /* castling field not "-" or a set of KQkq */
    FEN_IMPOSSIBLE_CASTLING,   /* a right whose king or rook is not on its square */
    FEN_BAD_EN_PASSANT,        /* en-passant field not "-" or a square on rank 3/6 */
    FEN_IMPOSSIBLE_EN_PASSANT, /* no pawn could just have moved two squares past it */
    FEN_BAD_HALFMOVE,          /* halfmove clock not a number 0..9999 */
    FEN_BAD_FULLMOVE,          /* fullmove number not a number 1..9999 */
    FEN_MISSING_KING,          /* a side without a king */
    FEN_TOO_MANY_KINGS,        /* a side with more than one king */
    FEN_PAWN_ON_BACK_RANK,     /* a pawn on rank 1 or 8 */
    FEN_TOO_MANY_PIECES,       /* more than 16 pieces or 8 pawns a side, or too many promoted */
    FEN_OPPONENT_IN_CHECK,     /* the side not to move is in check */
    FEN_IMPOSSIBLE_CHECK,      /* the side to move is in check by three or more pieces */
    FEN_ERROR_NB
} FenError;

/* Stable machine-readable name of an error ("fen_rank_count"...). */
const char *fen_error_code(FenError e);

/* Reads fen into p. On success returns FEN_OK and p is ready; on failure returns the error, writes a
 * message naming the problem into msg (if not NULL) and leaves p unchanged. Clocks may be omitted.
 * An en-passant square is kept only when a capture there is legal (the normal form). */
FenError fen_read(Position *p, const char *fen, char *msg, size_t msg_size);

/* Writes the position's FEN (normal form) into buf (FEN_BUFFER_SIZE bytes); returns buf. */
char *fen_write(const Position *p, char *buf);

#endif
