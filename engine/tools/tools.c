/* The engine tools' table: what `feelfish help` lists under each name and what runs it. The
 * synopses stay as short as the usage lines; each tool prints its full usage on a bad argument. */
#include "tools.h"

const Command EngineTools[] = {
    {"bench", NULL, "[depth]", "fixed positions at a fixed depth: node signature and speed", bench_command},
    {"epd", NULL, "FILE.epd [--movetime MS] [--threads N] [--hash MB]",
     "run a bm/am test suite: misses and 'solved S/T'", epd_command},
    {"match", NULL, "--engine SPEC --engine SPEC (--tc B+I | --nodes N | --movetime MS | --depth D) [...]",
     "engine-vs-engine games over UCI (match --help)", match_command},
    {"perft", NULL, "FEN DEPTH [--divide]\n--suite FILE.epd [--max-nodes N]",
     "count leaf nodes (FEN may be 'startpos')\ncheck every ';Dn count' of an EPD file", perft_command},
    {"pgn", NULL, "FILE.pgn [--check] [--quiet]", "read and replay every game of a PGN file", pgn_command},
    {"style-train", NULL, "[--data DIR] [--out FILE]", "build the style model (default engine/style.model)",
     style_train_command},
    {"style", NULL, "FILE.pgn --player NAME [--model FILE]", "a player's style per game: posterior and features",
     style_command},
    {"style-cv", NULL, "[--data DIR] [--folds K] [--seed S] [--prior model|uniform]",
     "cross-validate the style classifier: confusion matrix", style_cv_command},
    {"datagen", NULL,
     "--games N [--nodes N] [--threads T] [--seed S] [--random-plies P] [--params engine|handset] [--scores] "
     "[--format text|bin] --out FILE | --convert TEXT --out FILE",
     "self-play positions labelled with results: text for tune, or records for the learned evaluation",
     datagen_command},
    {"train", NULL,
     "--out NET [--init NET] [--hidden N] [--king-buckets 1|4] [--epochs E] [--lr X] [...] DATA.bin...",
     "train the learned evaluation on datagen's records (resumes from NET.ckpt; `train` alone lists every option)",
     train_command},
    {"tune", NULL, "[--labels FILE | --data DIR] [--from engine|handset] [--rounds N] [--out FILE]",
     "tune the classical evaluation (engine/eval/tuned.c)", tune_command},
    {"affective-ranges", NULL, "FILE.epd...", "each affective term's range over the positions (AffectiveRanges)",
     affective_ranges_command},
    {"humanlike", NULL,
     "FILE.pgn... [--positions N] [--nodes N] [--from-ply P] [--every K] [--modes MODE,...] [--threads T] "
     "[--bayes-db FILE] [--style-model FILE]",
     "move matching: how often each mode plays the human's move, overall and by the mover's emotion",
     humanlike_command},
};
const int EngineToolCount = (int)(sizeof EngineTools / sizeof EngineTools[0]);
