/* The learned evaluation's training records (engine/tools/trainset.h): what is written is read back,
 * over random games (every move kind, both sides to move), and a record that is not one is refused. */
#include "../../../engine/core/movegen.h"
#include "../../../engine/core/random.h"
#include "../../../engine/notation/fen.h"
#include "../../../engine/tools/trainset.h"
#include "../test.h"

/* Every position of 40 random games of up to 120 plies: encoded, decoded, compared. */
static void test_records_read_back(void)
{
    uint64_t rng = 20261126;
    static Position p, q;
    char err[64], fen[FEN_BUFFER_SIZE];
    int positions = 0, kinds[4] = {0};
    for (int game = 0; game < 40; game++) {
        fen_read(&p, FEN_STARTPOS, err, sizeof err);
        for (int ply = 0; ply < 120; ply++) {
            int score = (int)(splitmix64(&rng) % 4001) - 2000, result = (int)(splitmix64(&rng) % 3);
            TrainRecord r;
            trainset_encode(&p, score, result, &r);
            TrainPosition t;
            CHECK(trainset_decode(&r, &t));
            CHECK(t.occupied == p.by_type[0]);
            for (int s = 0; s < SQUARE_NB; s++)
                CHECK_MSG(t.board[s] == p.board[s], "square %d: %d, not %d", s, t.board[s], p.board[s]);
            CHECK(t.side == p.side && t.score == score && t.result == result);
            CHECK(t.fullmove == 1 + p.game_ply / 2 && t.halfmove == p.st->rule50);
            trainset_fen(&t, fen, sizeof fen); /* read back into a Position: the same pieces */
            CHECK_MSG(fen_read(&q, fen, err, sizeof err) == FEN_OK, "%s: %s", fen, err);
            CHECK(q.by_type[0] == p.by_type[0] && q.side == p.side && !memcmp(q.board, p.board, sizeof q.board));
            positions++;
            MoveList l;
            if (movegen_legal(&p, &l, GEN_ALL) == 0)
                break;
            Move m = l.moves[splitmix64(&rng) % (uint64_t)l.count];
            kinds[move_kind(m) == MOVE_NORMAL      ? 0
                  : move_kind(m) == MOVE_PROMOTION ? 1
                  : move_kind(m) == MOVE_CASTLING  ? 2
                                                   : 3]++;
            position_make_move(&p, m);
            position_trim_history(&p);
        }
    }
    CHECK(positions > 2000 && kinds[0] && kinds[2]); /* castling happens in random games; promotions may not */
}

/* Scores past int16 are clamped; a record with a bad piece, result, side or reserved byte is refused. */
static void test_bad_records_refused(void)
{
    static Position p;
    char err[64];
    fen_read(&p, "8/P6k/8/8/8/8/6pK/8 w - - 3 60", err, sizeof err);
    TrainRecord r, bad;
    TrainPosition t;
    trainset_encode(&p, 100000, 2, &r);
    CHECK(trainset_decode(&r, &t) && t.score == 32767 && t.fullmove == 60 && t.halfmove == 3);
    bad = r;
    bad.bytes[8] = (uint8_t)((bad.bytes[8] & 0xf0) | 7); /* piece type 7 */
    CHECK(!trainset_decode(&bad, &t));
    bad = r;
    bad.bytes[26] = 3; /* a result that is none */
    CHECK(!trainset_decode(&bad, &t));
    bad = r;
    bad.bytes[27] = 2; /* a side that is none */
    CHECK(!trainset_decode(&bad, &t));
    bad = r;
    bad.bytes[31] = 1; /* reserved */
    CHECK(!trainset_decode(&bad, &t));
    bad = r;
    memset(bad.bytes, 0xff, 8); /* 64 squares occupied */
    CHECK(!trainset_decode(&bad, &t));
}

void suite_trainset(void)
{
    RUN(test_records_read_back);
    RUN(test_bad_records_refused);
}
