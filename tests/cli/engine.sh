#!/usr/bin/env bash
# Command-line tests of the engine tools: the real ./feelfish binary on the shared data.
# Prints "ok NAME" / "FAIL NAME" per test and "cli: N passed, N failed" last.
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-./feelfish}
DATA=${FEELFISH_DATA:-../shared/data}
. tests/cli/lib.sh

run perft_startpos_5 0 '^Nodes searched: 4865609$' $FF perft startpos 5
last=$($FF perft startpos 4 2>/dev/null | tail -1)
[ "$last" = "Nodes searched: 197281" ] && ok perft_last_line || fail perft_last_line "last line: $last"
run perft_kiwipete_4 0 '^Nodes searched: 4085603$' \
    $FF perft "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" 4
n=$($FF perft startpos 3 --divide 2>/dev/null | grep -cE '^[a-h][1-8][a-h][1-8][qrbn]?: [0-9]+$')
[ "$n" = 20 ] && ok perft_divide_lines || fail perft_divide_lines "$n move lines, want 20"
run perft_divide_total 0 '^Nodes searched: 8902$' $FF perft startpos 3 --divide
run perft_divide_e2e4 0 '^e2e4: 600$' $FF perft startpos 3 --divide
run perft_standard_suite 0 '^perft: 7/7 positions match$' $FF perft --suite "$DATA/perft/standard.epd" --max-nodes 5000000
run perft_random_suite 0 '^perft: 120/120 positions match$' $FF perft --suite "$DATA/perft/random.epd" --max-nodes 2000000
run perft_bad_fen 2 'bad FEN \(fen_missing_king\): white has no king' $FF perft "8/8/8/8/8/8/8/7k w - - 0 1" 2
run perft_bad_depth 2 'DEPTH must be a number from 0 to 20' $FF perft startpos x
run perft_missing_file 2 'cannot open' $FF perft --suite "$TMP/none.epd"

# A suite with a wrong count and a line that cannot run must fail, naming both.
{
    echo "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401"
    echo "not a fen ;D1 20"
    echo "8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3"
} >"$TMP/bad.epd"
run perft_suite_reports_mismatch 1 'line 1: depth 2: expected 401, got 400' $FF perft --suite "$TMP/bad.epd"
run perft_suite_reports_bad_line 1 'line 2: bad FEN' $FF perft --suite "$TMP/bad.epd"
run perft_suite_counts 1 '^perft: 1/3 positions match$' $FF perft --suite "$TMP/bad.epd"
echo "8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D5 999999999" >"$TMP/big.epd"
run perft_suite_skipped_depths_fail 1 'no depth ran' $FF perft --suite "$TMP/big.epd" --max-nodes 2

# PGN collections: every game read and replayed; SAN written back equals the input (mate marks
# compared as checks). The only differences are two moves where the source omits a real check:
# en-passant captures that uncover a discovered check (Kasparov 1991, 38.gxf6; Karpov, 24...hxg3).
run pgn_kasparov 1 '^games: 2017 read, 0 skipped, 154591 moves replayed$' $FF pgn "$DATA/pgn/Kasparov.pgn" --check
run pgn_kasparov_diff 1 "^game at line 14645, ply 75: read 'gxf6', writes 'gxf6\+'$" $FF pgn "$DATA/pgn/Kasparov.pgn" --check
run pgn_kasparov_count 1 '^check: 1 SAN mismatches, 0 round-trip failures$' $FF pgn "$DATA/pgn/Kasparov.pgn" --check
run pgn_karpov 1 '^games: 3243 read, 0 skipped, 269630 moves replayed$' $FF pgn "$DATA/pgn/Karpov.pgn" --check
run pgn_karpov_diff 1 "^game at line 31310, ply 48: read 'hxg3', writes 'hxg3\+'$" $FF pgn "$DATA/pgn/Karpov.pgn" --check
run pgn_anand 0 '^check: 0 SAN mismatches, 0 round-trip failures$' $FF pgn "$DATA/pgn/Anand.pgn" --check
run pgn_anand_count 0 '^games: 2680 read, 0 skipped, 211077 moves replayed$' $FF pgn "$DATA/pgn/Anand.pgn" --check

# A file with bad games: each reported with its line and reason, the good ones still read.
cat >"$TMP/mixed.pgn" <<'PGN'
[Event "good"]

1. e4 e5 2. Nf3 Nc6 1-0

[Event "illegal"]

1. e4 e5 2. Nf3 Nf3 0-1

[Event "good again"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"]

1. O-O-O Ke7 *

[Event "bad fen"]
[FEN "4k3/8/8/8/8/8/8/8 w - - 0 1"]

1. Kd1 *
PGN
run pgn_mixed_counts 0 '^games: 2 read, 2 skipped, 6 moves replayed$' $FF pgn "$TMP/mixed.pgn"
run pgn_mixed_illegal 0 "^skipped game at line 5: line 7: 'Nf3' is not a legal move at move 2\.\.\." $FF pgn "$TMP/mixed.pgn"
run pgn_mixed_fen 0 '^skipped game at line 15: line 15: FEN tag: white has no king$' $FF pgn "$TMP/mixed.pgn"
run pgn_missing_file 2 'cannot open' $FF pgn "$TMP/none.pgn"
head -c 200000 /dev/urandom >"$TMP/random.pgn"
run pgn_random_bytes 0 '^games: [0-9]+ read, [0-9]+ skipped' $FF pgn "$TMP/random.pgn"

# bench: the same node signature every run, and Stockfish's two closing lines.
b1=$($FF bench 7 2>/dev/null); b2=$($FF bench 7 2>/dev/null)
n1=$(grep '^Nodes searched:' <<<"$b1"); n2=$(grep '^Nodes searched:' <<<"$b2")
[ -n "$n1" ] && [ "$n1" = "$n2" ] && ok "bench_deterministic ($n1)" || fail bench_deterministic "$n1 / $n2"
tail -1 <<<"$b1" | grep -Eq '^Nodes/second: [0-9]+$' && ok bench_last_line || fail bench_last_line "$(tail -1 <<<"$b1")"
run bench_bad_depth 2 'depth must be a number' $FF bench deep

# epd: a small suite with a miss printed and the count last.
cat >"$TMP/mini.epd" <<'EPD'
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id "back rank";
r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - bm Qxf7#; id "scholar";
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - am e4 d4 Nf3 c4 g3 b3 Nc3 f4 e3 d3 c3 a3 b4 g4 h3 h4 a4 f3 Na3 Nh3; id "no good move";
8/8/8/8/8/8/8/K6k w - - bm Kc3; id "illegal bm";
r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - bm Qh3; id "wrong bm";
EPD
run epd_solved 0 '^solved 2/4$' $FF epd "$TMP/mini.epd" --movetime 100
run epd_miss_line 0 '^miss wrong bm: bm Qh3, played Qxf7#' $FF epd "$TMP/mini.epd" --movetime 100
run epd_unreadable_line 0 "^line 4: skipped: 'Kc3' is not a legal move here$" $FF epd "$TMP/mini.epd" --movetime 50
run epd_bad_args 2 'needs a positive number' $FF epd "$TMP/mini.epd" --movetime -5
run epd_missing_file 2 'cannot open' $FF epd "$TMP/none.epd"

# analyse: JSON with White-view scores; the lab's six algorithms agree.
out=$($FF analyse --fen "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1" --depth 6)
if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["pvs"][0]["cp"] > 300, d' <<<"$out"; then
    ok analyse_json_white_view
else
    fail analyse_json_white_view "$out"
fi
out=$($FF analyse --moves "e2e4 e7e5 g1f3" --depth 5 --multipv 3)
python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["pvs"]) == 3 and d["bestMove"] == d["pvs"][0]["moves"][0], d' <<<"$out" \
    && ok analyse_multipv_json || fail analyse_multipv_json "$out"
out=$($FF analyse --algorithm all --depth 3 --fen "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
python3 -c 'import json,sys; a=json.load(sys.stdin)["algorithms"]; assert [x["algorithm"] for x in a] == ["minimax", "alphabeta", "scout", "negascout", "sss", "mtdf"] and len({x["value"] for x in a}) == 1 and max(x["nodes"] for x in a) == a[0]["nodes"], a' <<<"$out" \
    && ok lab_cli_agree || fail lab_cli_agree "$out"
out=$($FF analyse --fen "6k1/5ppp/8/8/8/3q4/8/4K3 w - - 0 1" --depth 4 --mode affective)
python3 -c 'import json,sys; e=json.load(sys.stdin)["emotion"]; assert e["label"] == "fear" and e["goal"] == "reach_safety" and e["intensity"] > 0.9, e' <<<"$out" \
    && ok analyse_affective_emotion || fail analyse_affective_emotion "$out"
run analyse_bad_temperament 2 "temperament 'wild' is not one of" $FF analyse --mode affective --temperament wild --depth 2
out=$($FF analyse --fen "6k1/5ppp/8/8/8/3q4/8/4K3 w - - 0 1" --depth 4 --mode affective --temperament thesis --gain 0.3)
python3 -c 'import json,sys; e=json.load(sys.stdin)["emotion"]; assert e["gain"] == 0.3 and all(abs(e["weights"][k] - max(0, 1 + e["factors"][k] * e["intensity"]) ** 0.3) < 2e-3 for k in e["weights"]), e' <<<"$out" \
    && ok analyse_affective_gain || fail analyse_affective_gain "$out"
run analyse_bad_gain 2 "analyse: --gain takes a number from 0 to 1" $FF analyse --mode affective --gain 1.5 --depth 2
run annotate_bad_gain 2 "annotate: --gain takes a number from 0 to 1" $FF annotate x.pgn --mode affective --gain half
# Move matching (humanlike): 40 positions of the master games, one row per mode; the affective mode at
# gain 0 is the classical evaluation, so it matches the human exactly as often and never differs.
out=$($FF humanlike "$DATA/pgn/Kasparov.pgn" "$DATA/pgn/Karpov.pgn" --positions 40 --nodes 3000 --threads 2 \
      --modes classical,affective:neutral@0,affective:thesis 2>/dev/null)
c=$(awk '/^classical / { print $2, $3, $4 }' <<<"$out")
z=$(awk '/^affective:neutral@0 / { print $4, $5, $6, $(NF-3), $(NF-2), $NF }' <<<"$out")
grep -q '^humanlike: 40 positions from 2 files' <<<"$out" && grep -q '^affective:thesis (gain 1.00) ' <<<"$out" \
    && [ -n "$c" ] && [ "$z" = "$c 0.0% +0.0 0.0" ] && ok humanlike_rows || fail humanlike_rows "$out"
# Under each mode after the first, its paired difference per emotion: none at gain 0; the thesis's
# three sum, weighted by the emotions' counts, to its overall difference.
zl=$(awk '/^affective:neutral@0 / { getline; print }' <<<"$out")
[ "$zl" = "  by emotion, matching vs classical (paired): fear +0.0 +/- 0.0, neutral +0.0 +/- 0.0, relief +0.0 +/- 0.0" ] \
    && python3 -c '
import re, sys
t = sys.stdin.read()
n = [int(x) for x in re.findall(r"n=(\d+)", t)]
row = re.search(r"^affective:thesis .* ([-+]\d+\.\d) \+/- [\d.]+\n  by emotion.*: fear ([-+]\d+\.\d) .*neutral ([-+]\d+\.\d) .*relief ([-+]\d+\.\d) ", t, re.M)
total, parts = float(row[1]), [float(row[i]) for i in (2, 3, 4)]
assert abs(sum(a * b for a, b in zip(n, parts)) / sum(n) - total) < 0.2, (total, parts, n)' <<<"$out" \
    && ok humanlike_by_emotion || fail humanlike_by_emotion "$out"
# The Bayesian mode with the opponent's style: a model of two self-play games moves no parameter (the
# evidence rule), so it plays as classical; the line under its row says what it read.
$FF learn --games 2 --nodes 300 --concurrency 2 --db "$TMP/hl.db" >/dev/null 2>&1
out=$($FF humanlike "$DATA/pgn/Kasparov.pgn" --positions 30 --nodes 2000 --threads 2 --modes classical,bayesian \
      --bayes-db "$TMP/hl.db" 2>/dev/null)
c=$(grep '^classical ' <<<"$out" | cut -c35-)
b=$(grep '^bayesian ' <<<"$out" | cut -c35-)
[ -n "$c" ] && [ "$b" = "$c" ] && grep -Eq '^  bayesian: model of 2 games; the opponent read as attacking [0-9]+, .*; target aggressive [0-9]+, conservative [0-9]+; parameters away from the default in 0 positions$' <<<"$out" \
    && ok humanlike_bayesian || fail humanlike_bayesian "$out"
run humanlike_bayesian_no_model 1 "the bayesian mode's model: .*none.db" $FF humanlike "$DATA/pgn/Kasparov.pgn" \
    --positions 2 --modes bayesian --bayes-db "$TMP/none.db"
# The choice modes: with one line there is nothing to choose, so the thesis's choice is classical's move;
# with four lines and a wide margin, it differs from the same search's best line (gain 0) somewhere.
out=$($FF humanlike "$DATA/pgn/Kasparov.pgn" --positions 30 --nodes 2000 --threads 2 --lines 1 \
      --modes classical,choice:thesis 2>/dev/null)
c=$(grep '^classical ' <<<"$out" | cut -c35-76)
t=$(grep '^choice:thesis (gain 1.00) ' <<<"$out" | cut -c35-76)
[ -n "$c" ] && [ "$t" = "$c" ] && grep -Eq '^choice:thesis .*   0\.0%   \+0\.0 \+/- 0\.0$' <<<"$out" \
    && ok humanlike_choice_one_line || fail humanlike_choice_one_line "$out"
out=$($FF humanlike "$DATA/pgn/Kasparov.pgn" --positions 30 --nodes 2000 --threads 2 --lines 4 --margin 1000 \
      --modes choice:neutral@0,choice:thesis 2>/dev/null)
grep -Eq '^choice:thesis .* +([1-9][0-9]*\.[0-9]|0\.[1-9])% +[-+][0-9.]+ \+/- [0-9.]+$' <<<"$out" \
    && ok humanlike_choice_differs || fail humanlike_choice_differs "$out"
# patience: in relief, the four-line search's best move unless a close line's move captures nothing (simplify:
# unless one captures); with a wide margin each differs somewhere, always by a move of its kind for one of the other.
$FF humanlike "$DATA/pgn/Kasparov.pgn" --positions 20 --nodes 2000 --threads 2 --lines 4 --margin 1000 --emotion relief \
    --modes choice:neutral@0,patience,simplify --samples "$TMP/patience.samples" >/dev/null 2>&1
for mode in patience:5 simplify:6; do
    col=${mode#*:}
    PYTHONPATH=tests/bench:tests/integration python3 -c '
import sys
from humanlike_samples import traits
from fen import squares
col, take = int(sys.argv[2]), sys.argv[3] == "simplify"
rows = [l.rstrip("\n").split(";") for l in open(sys.argv[1])]
assert len(rows) == 20 and all(r[1] == "relief" for r in rows), rows[:3]
changed = [r for r in rows if r[4] != r[col]]
assert changed, "it chose as the search did in all 20 positions"
for r in changed:
    kind = lambda move: traits(squares(r[0]), r[0].split()[1], move).get("capture")
    assert kind(r[col]) is take and kind(r[4]) is (not take), r' "$TMP/patience.samples" $col ${mode%:*} \
        && ok humanlike_${mode%:*}_kind || fail humanlike_${mode%:*}_kind "$(head -3 "$TMP/patience.samples" 2>&1)"
done
# --emotion keeps one emotion's positions; --samples writes each with the human's move and every mode's,
# and those lines give back the printed matching rate.
out=$($FF humanlike "$DATA/pgn/Kasparov.pgn" --positions 20 --nodes 2000 --threads 2 --emotion fear \
      --modes classical,affective:thesis --samples "$TMP/hl.samples" 2>/dev/null)
python3 -c '
import re, sys
rows = [l.rstrip("\n").split(";") for l in open(sys.argv[1])]
assert len(rows) == 20 and all(len(r) == 6 and r[1] == "fear" and r[2] in ("reach_safety", "enclose_king", "gain_advantage") for r in rows), rows[:3]
t = sys.stdin.read()
assert re.search(r"fear +n=20 +neutral +n=0 +relief +n=0 ", t), t
for col, name in ((4, "classical"), (5, "affective:thesis")):
    rate = float(re.search(r"^" + name + r"[^%]* (\d+\.\d)%", t, re.M)[1])
    assert abs(100 * sum(r[3] == r[col] for r in rows) / 20 - rate) < 0.05, (name, rate)' "$TMP/hl.samples" <<<"$out" \
    && ok humanlike_emotion_samples || fail humanlike_emotion_samples "$out"
# tests/bench/humanlike_samples.py reads them: the paired table and the kinds of moves, for the 20 positions.
out=$(python3 tests/bench/humanlike_samples.py "$TMP/hl.samples" classical,affective:thesis 2>&1)
grep -Eq '^  fear +\* +n=20 +classical +[0-9.]+% +affective:thesis +[-+][0-9.]+ \+/- [0-9.]+$' <<<"$out" \
    && grep -q '^  fear (n=20)$' <<<"$out" && grep -Eq '^  the human +[0-9.]+%' <<<"$out" \
    && ok humanlike_samples_read || fail humanlike_samples_read "$out"
run humanlike_bad_emotion 2 "bad or incomplete argument '--emotion'" $FF humanlike "$DATA/pgn/Kasparov.pgn" --emotion joy
run humanlike_emotion_missing 2 "bad or incomplete argument '--emotion'" $FF humanlike "$DATA/pgn/Kasparov.pgn" --emotion
run humanlike_samples_missing 2 "bad or incomplete argument '--samples'" $FF humanlike "$DATA/pgn/Kasparov.pgn" --samples
# A path it cannot write fails before any search, and writes nothing else.
run humanlike_samples_unwritable 1 "^humanlike: cannot write $TMP/none/x.samples$" $FF humanlike "$DATA/pgn/Kasparov.pgn" \
    --positions 1 --nodes 100 --samples "$TMP/none/x.samples"
run humanlike_bad_mode 2 "bad mode 'affective:wild'" $FF humanlike "$DATA/pgn/Kasparov.pgn" --modes classical,affective:wild
# The affective evaluator's term ranges (engine/eval/affective.h) are what affective-ranges measures
# with this engine's evaluation: a change of the evaluation (or its tuned vector) must update them.
ranges=$($FF affective-ranges "$DATA/epd/wac.epd" "$DATA/openings.epd" "$DATA/perft/random.epd" \
    "$DATA/epd/bratko-kopec.epd" | awk '/range/ { printf "%s ", $NF }')
consts=$(awk '/#define AFFECTIVE_RANGE_/ { printf "%d ", $3 }' engine/eval/affective.h)
[ -n "$ranges" ] && [ "$ranges" = "$consts" ] && ok affective_ranges_match_evaluation \
    || fail affective_ranges_match_evaluation "measured: $ranges" "engine/eval/affective.h: $consts"
run analyse_bad_fen 2 'bad FEN \(fen_rank_count\)' $FF analyse --fen "8/8/8 w - - 0 1"
run analyse_bad_algorithm 2 "unknown algorithm 'bogo'" $FF analyse --algorithm bogo --depth 2
run analyse_illegal_move 2 "illegal move 'e2e5'" $FF analyse --moves "e2e5"

# The style classifier: the committed model is exactly what style-train builds from the three
# collections; style-cv prints its confusion matrix; style classifies one player's games.
run style_train 0 '^wrote .*: 15055 samples \(attacking 3875, positional 6095, mixed 5085\); decision prior [0-9]+:[0-9]+:[0-9]+ \(of 40\)$' \
    $FF style-train --data "$DATA" --out "$TMP/style.model"
cmp -s "$TMP/style.model" engine/style.model && ok style_model_is_committed_build \
    || fail style_model_is_committed_build "engine/style.model differs from 'feelfish style-train': rebuild and commit it"
cv=$($FF style-cv --data "$DATA" 2>&1)
for cls in attacking positional mixed; do
    grep -Eq "^$cls +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+% " <<<"$cv" && ok "style_cv_row_$cls" || fail "style_cv_row_$cls" "$(head -20 <<<"$cv")"
done
grep -q '^by game (.*): confusion matrix (rows: true class, columns: predicted)$' <<<"$cv" && ok style_cv_matrix \
    || fail style_cv_matrix "$(head -20 <<<"$cv")"
grep -Eq '^accuracy: [0-9.]+% \([0-9]+/7748, ' <<<"$cv" && ok style_cv_accuracy || fail style_cv_accuracy "$(head -20 <<<"$cv")"
# Better than chance, threshold-free: one-vs-rest AUC of attacking and positional above 0.55 (the
# first move, a player's repertoire, does not decide: with it 0.66-0.73, but held-out players misread).
auc=$(grep -m1 '^one class against the rest' <<<"$cv")
awk '{ for (i = 1; i < NF; i++) if ($i == "attacking" || $i == "positional") { if ($(i + 1) < 0.55) bad = 1; n++ } }
     END { exit !(n == 2 && !bad) }' <<<"$auc" && ok "style_cv_auc ($auc)" || fail style_cv_auc "$auc"
# The must-show: attacking and positional each recognised better than chance, by game: the lower end
# of the 95 % interval of their recall above the 33.3 % of a uniform guess.
for cls in attacking positional; do
    row=$(sed -n '/^by game/,/^accuracy/p' <<<"$cv" | grep -E "^$cls ")
    lo=$(sed -E 's/.*% \(([0-9.]+)-.*/\1/' <<<"$row")
    awk -v lo="$lo" 'BEGIN { exit !(lo > 33.3) }' && ok "style_cv_recall_above_chance_$cls ($row)" \
        || fail "style_cv_recall_above_chance_$cls" "$row"
done
# Players never counted (#28's must-show): every attacking one reads more attacking, and every
# positional one more positional, than the other; over their games both AUCs above chance.
grep -Eq '^pairs .*: ([0-9]+) of \1$' <<<"$cv" && ok style_held_out_pairs \
    || fail style_held_out_pairs "$(sed -n '/^held-out/,$p' <<<"$cv")"
held=$(grep '^by game, the attacking players' <<<"$cv")
awk '{ for (i = 1; i < NF; i++) if ($i == "posterior") { if ($(i + 1) + 0 <= 0.55) bad = 1; n++ } } END { exit !(n == 2 && !bad) }' \
    <<<"${held//,/ }" && ok "style_held_out_auc ($held)" || fail style_held_out_auc "$held"
[ "$cv" = "$($FF style-cv --data "$DATA" 2>&1)" ] && ok style_cv_deterministic || fail style_cv_deterministic
cat >"$TMP/style.pgn" <<'PGN'
[White "Kasparov, Gary"]
[Black "Someone, S"]

1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3 Be7 9. Qd2 O-O
10. O-O-O Nbd7 11. g4 b5 12. g5 b4 13. Ne2 Ne8 14. h4 Qa5 15. h5 Nc7 16. Kb1 *

[White "Other, O"]
[Black "Kasparov,G"]

1. e4 e5 2. Nf3 Nc6 *
PGN
run style_game_posterior 0 '^  posterior: attacking 0\.[0-9]{3} positional 0\.[0-9]{3} mixed 0\.[0-9]{3} -> ' \
    $FF style "$TMP/style.pgn" --player kasparov
run style_game_features 0 '^  after move 15: first_move=e4 castling=opposite pieces=0 \(0\) pawns=2 \(2\)$' \
    $FF style "$TMP/style.pgn" --player kasparov
run style_short_game 0 'too short: the game ended before kasparov.s move 10' $FF style "$TMP/style.pgn" --player kasparov
run style_whole_set 0 "^all games of 'kasparov': 2 with the player, 1 classified, 1 samples$" \
    $FF style "$TMP/style.pgn" --player kasparov
run style_missing_file 2 'style: cannot open .*none.pgn' $FF style "$TMP/none.pgn" --player kasparov
run style_unknown_player 1 "style: no game in .* has a player matching 'Fischer'" $FF style "$TMP/style.pgn" --player Fischer
run style_no_player 2 'usage: feelfish style FILE.pgn --player NAME' $FF style "$TMP/style.pgn"
run style_missing_model 2 'cannot open style model .*none.model' \
    $FF style "$TMP/style.pgn" --player kasparov --model "$TMP/none.model"
printf 'feelfish-style-model 2\n' >"$TMP/bad.model"
run style_bad_model 2 "line 1: unsupported model version '2'" $FF style "$TMP/style.pgn" --player kasparov --model "$TMP/bad.model"
run style_train_missing_data 2 'cannot open .*Kasparov.pgn' $FF style-train --data "$TMP/nowhere" --out "$TMP/x.model"
run style_cv_bad_folds 2 '\-\-folds needs a number from 2 to 100' $FF style-cv --folds 1
if command -v valgrind >/dev/null; then
    run valgrind_style 0 '^  posterior: ' valgrind -q --error-exitcode=9 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect $FF style "$TMP/style.pgn" --player kasparov
fi

# Tuning data and the tuner. datagen's file is the same whatever the thread count: one line saying
# how it was made, then "FEN;result" lines. tune fits on them (the error falls) and writes a vector
# the engine compiles, naming the commands that made it.
$FF datagen --games 30 --nodes 400 --threads 2 --out "$TMP/dg2.txt" >/dev/null 2>&1
$FF datagen --games 30 --nodes 400 --threads 1 --out "$TMP/dg1.txt" >"$TMP/dg1.log" 2>&1
cmp -s "$TMP/dg1.txt" "$TMP/dg2.txt" && ok datagen_same_with_any_thread_count \
    || fail datagen_same_with_any_thread_count "1 and 2 threads wrote different files"
first=$(head -1 "$TMP/dg1.txt")
[ "$first" = "# feelfish datagen --games 30 --nodes 400 --seed 1 --random-plies 8 --params engine" ] \
    && ok datagen_origin_line || fail datagen_origin_line "first line: $first"
n=$(tail -n +2 "$TMP/dg1.txt" | wc -l)
bad=$(tail -n +2 "$TMP/dg1.txt" | grep -cvE '^[1-8pnbrqkPNBRQK/]+ [wb] [KQkq-]+ (-|[a-h][36]) [0-9]+ [0-9]+;(1\.0|0\.5|0\.0)$')
[ "$bad" = 0 ] && [ "$n" -gt 1200 ] && ok datagen_lines || fail datagen_lines "$n lines, $bad not FEN;result"
run datagen_summary 0 "^30 games \(\+[0-9]+ =[0-9]+ -[0-9]+ for White\), $n positions written" cat "$TMP/dg1.log"
run datagen_no_out 2 'usage: feelfish datagen --games N' $FF datagen --games 3
run datagen_bad_nodes 2 "bad or incomplete argument '--nodes'" $FF datagen --games 3 --nodes x --out "$TMP/x.txt"
run datagen_bad_params 2 "bad or incomplete argument '--params'" $FF datagen --games 3 --params tuned --out "$TMP/x.txt"
run datagen_unwritable 1 'cannot write' $FF datagen --games 1 --out "$TMP/no/such/dir/x.txt"
# The learned evaluation's records (engine/tools/trainset.h): 32 bytes a position, the same whether
# written by the games or converted from the --scores text of the same games.
$FF datagen --games 8 --nodes 400 --threads 2 --seed 3 --format bin --out "$TMP/dg.bin" >/dev/null 2>&1
$FF datagen --games 8 --nodes 400 --threads 2 --seed 3 --scores --out "$TMP/dg-scores.txt" >/dev/null 2>&1
$FF datagen --convert "$TMP/dg-scores.txt" --out "$TMP/dg-converted.bin" >"$TMP/convert.log" 2>&1
records=$(( $(stat -c %s "$TMP/dg.bin") / 32 ))
lines=$(grep -vc '^#' "$TMP/dg-scores.txt")
[ "$records" -gt 300 ] && [ "$records" = "$lines" ] && [ $(( $(stat -c %s "$TMP/dg.bin") % 32 )) = 0 ] \
    && ok datagen_records || fail datagen_records "$records records for $lines text lines"
cmp -s "$TMP/dg.bin" "$TMP/dg-converted.bin" && grep -q "^$records records written" "$TMP/convert.log" \
    && ok datagen_convert_same_records || fail datagen_convert_same_records "$(cat "$TMP/convert.log")"
run datagen_bad_format 2 "bad or incomplete argument '--format'" $FF datagen --games 3 --format csv --out "$TMP/x.bin"

# The learned evaluation: a tiny training run whose validation loss falls below the untrained net's
# (epoch 0) and whose quantised net
# stays within 5 cp (mean) and 60 cp (worst) of the float one; the net it writes is used by --net and
# EvalFile; a truncated or corrupt file is refused with its reason, never a crash.
$FF datagen --games 200 --nodes 300 --threads 2 --seed 5 --format bin --out "$TMP/train.bin" >/dev/null 2>&1
$FF train --out "$TMP/tiny.nnue" --hidden 16 --epochs 6 --batch 512 --lr 0.002 --lambda 1 --val 0.1 --threads 2 \
    --log "$TMP/tiny.csv" "$TMP/train.bin" >"$TMP/train.log" 2>&1
first=$(sed -n 2p "$TMP/tiny.csv" | cut -d, -f3)
last=$(tail -1 "$TMP/tiny.csv" | cut -d, -f3)
awk -v a="$first" -v b="$last" 'BEGIN { exit !(a > 0 && b > 0 && b < 0.95 * a) }' && [ "$(wc -l <"$TMP/tiny.csv")" = 8 ] \
    && ok train_validation_loss_falls || fail train_validation_loss_falls "epoch 0 $first, epoch 6 $last" "$(tail -4 "$TMP/train.log")"
run train_resume_other_run_refused 1 "is from another run" $FF train --out "$TMP/tiny.nnue" --hidden 16 --epochs 7 "$TMP/train.bin"
run train_resume_finished 0 "resuming .*tiny.nnue.ckpt after epoch 6" $FF train --out "$TMP/tiny.nnue" --hidden 16 --epochs 6 \
    --batch 512 --lr 0.002 --lambda 1 --val 0.1 --threads 2 "$TMP/train.bin"
mean=$(sed -nE 's/^quantisation: .* mean ([0-9.]+) cp, max ([0-9.]+) cp$/\1/p' "$TMP/train.log")
worst=$(sed -nE 's/^quantisation: .* mean ([0-9.]+) cp, max ([0-9.]+) cp$/\2/p' "$TMP/train.log")
awk -v m="$mean" -v w="$worst" 'BEGIN { exit !(m != "" && m < 5 && w < 60) }' \
    && ok train_quantised_close_to_float || fail train_quantised_close_to_float "mean '$mean', worst '$worst'"
run train_writes_a_net 0 "^Nodes searched: [0-9]+$" $FF --net "$TMP/tiny.nnue" bench 5
# Eight output buckets (by piece count): trained the same way, the loss falls, the net is used.
$FF train --out "$TMP/buckets.nnue" --hidden 16 --buckets 8 --epochs 6 --batch 512 --lr 0.002 --lambda 1 --val 0.1 \
    --threads 2 --log "$TMP/buckets.csv" "$TMP/train.bin" >"$TMP/buckets.log" 2>&1
first=$(sed -n 2p "$TMP/buckets.csv" | cut -d, -f3)
last=$(tail -1 "$TMP/buckets.csv" | cut -d, -f3)
awk -v a="$first" -v b="$last" 'BEGIN { exit !(a > 0 && b > 0 && b < 0.95 * a) }' \
    && grep -q "^training 768->16x2->1 (8 output buckets) on " "$TMP/buckets.log" \
    && ok train_buckets_loss_falls || fail train_buckets_loss_falls "epoch 0 $first, epoch 6 $last" "$(tail -4 "$TMP/buckets.log")"
run train_buckets_net_used 0 "^Nodes searched: [0-9]+$" $FF --net "$TMP/buckets.nnue" bench 5
run train_bad_buckets 2 "bad or incomplete argument '--buckets'" $FF train --buckets 4 --out "$TMP/x.nnue" "$TMP/train.bin"
head -c 1600 "$TMP/train.bin" >"$TMP/few.bin"
run train_too_few 1 "50 positions: too few to train on" $FF train --out "$TMP/never.nnue" "$TMP/few.bin"
run train_no_out 2 "usage: feelfish train" $FF train "$TMP/train.bin"
run train_bad_hidden 2 "bad or incomplete argument '--hidden'" $FF train --hidden 30 --out "$TMP/x.nnue" "$TMP/train.bin"
head -c 5000 "$TMP/tiny.nnue" >"$TMP/short.nnue"
run net_truncated_refused 2 "truncated: 5000 bytes where a 16-wide network has" $FF --net "$TMP/short.nnue" bench 1
cp "$TMP/tiny.nnue" "$TMP/corrupt.nnue"
printf 'x' | dd of="$TMP/corrupt.nnue" bs=1 seek=3000 conv=notrunc 2>/dev/null
run net_corrupt_refused 2 "checksum mismatch" $FF --net "$TMP/corrupt.nnue" bench 1
run net_not_a_net 2 "not a feelfish network" $FF --net "$TMP/train.bin" bench 1
run net_missing 2 "cannot open" $FF --net "$TMP/none.nnue" bench 1
# --init: a run starts from a network's weights, so its epoch 0 is already near where that net
# ended (well under the untrained net's); another shape or a corrupt file is refused.
$FF train --out "$TMP/init.nnue" --init "$TMP/tiny.nnue" --epochs 1 --batch 512 --lr 0.0005 --lambda 1 --val 0.1 \
    --threads 2 --log "$TMP/init.csv" "$TMP/train.bin" >"$TMP/init.log" 2>&1
init0=$(sed -n 2p "$TMP/init.csv" | cut -d, -f3)
first=$(sed -n 2p "$TMP/tiny.csv" | cut -d, -f3)
last=$(tail -1 "$TMP/tiny.csv" | cut -d, -f3)
awk -v a="$first" -v b="$last" -v i="$init0" 'BEGIN { exit !(i > 0 && i < (a + b) / 2) }' \
    && grep -q "^starting from .*tiny.nnue (checksum " "$TMP/init.log" && grep -q "^training 768->16x2->1 on " "$TMP/init.log" \
    && ok train_init_starts_from_the_net || fail train_init_starts_from_the_net "untrained $first, trained $last, --init epoch 0 $init0" "$(tail -4 "$TMP/init.log")"
# Widened (--hidden wider than the net's): its neurons first, the new ones' output weights zero, so
# with a step too small to move a weight the wider net evaluates as the narrow one: the same tree.
$FF train --out "$TMP/wide.nnue" --init "$TMP/tiny.nnue" --hidden 32 --epochs 1 --batch 512 --lr 1e-12 --val 0.1 \
    "$TMP/train.bin" >"$TMP/wide.log" 2>&1
narrow=$($FF --net "$TMP/tiny.nnue" bench 5 2>&1 | grep '^Nodes searched')
wide=$($FF --net "$TMP/wide.nnue" bench 5 2>&1 | grep '^Nodes searched')
[ -n "$narrow" ] && [ "$narrow" = "$wide" ] && grep -q "^training 768->32x2->1 on " "$TMP/wide.log" \
    && grep -q "widened: its neurons first" "$TMP/wide.log" \
    && ok train_init_widened_same_function || fail train_init_widened_same_function "16 wide: $narrow, widened: $wide" "$(tail -4 "$TMP/wide.log")"
# King buckets (--king-buckets 4): from a net without them its feature weights become the factor the
# buckets share (their own parts zero), so with a step too small to move a weight it searches the same tree; trained, the loss falls
# and the net is used; another count, or a king-bucketed --init with --king-buckets 1, is refused.
$FF train --out "$TMP/kings0.nnue" --init "$TMP/tiny.nnue" --king-buckets 4 --epochs 1 --batch 512 --lr 1e-12 --val 0.1 \
    "$TMP/train.bin" >"$TMP/kings0.log" 2>&1
kings=$($FF --net "$TMP/kings0.nnue" bench 5 2>&1 | grep '^Nodes searched')
[ -n "$narrow" ] && [ "$narrow" = "$kings" ] && grep -q "^training 768->16x2->1 (4 king buckets) on " "$TMP/kings0.log" \
    && grep -q "the factor the four king buckets share" "$TMP/kings0.log" \
    && ok train_king_buckets_same_function || fail train_king_buckets_same_function "one set: $narrow, four: $kings" "$(tail -4 "$TMP/kings0.log")"
$FF train --out "$TMP/kings.nnue" --hidden 16 --buckets 8 --king-buckets 4 --epochs 6 --batch 512 --lr 0.002 --lambda 1 \
    --val 0.1 --threads 2 --log "$TMP/kings.csv" "$TMP/train.bin" >"$TMP/kings.log" 2>&1
first=$(sed -n 2p "$TMP/kings.csv" | cut -d, -f3)
last=$(tail -1 "$TMP/kings.csv" | cut -d, -f3)
awk -v a="$first" -v b="$last" 'BEGIN { exit !(a > 0 && b > 0 && b < 0.95 * a) }' \
    && ok train_king_buckets_loss_falls || fail train_king_buckets_loss_falls "epoch 0 $first, epoch 6 $last" "$(tail -4 "$TMP/kings.log")"
run train_king_buckets_net_used 0 "^Nodes searched: [0-9]+$" $FF --net "$TMP/kings.nnue" bench 5
# A king-bucketed --init keeps its sets whole (the shared factor starts at zero): the same tree again.
$FF train --out "$TMP/kings1.nnue" --init "$TMP/kings.nnue" --epochs 1 --batch 512 --lr 1e-12 --val 0.1 \
    "$TMP/train.bin" >"$TMP/kings1.log" 2>&1
a=$($FF --net "$TMP/kings.nnue" bench 5 2>&1 | grep '^Nodes searched')
b=$($FF --net "$TMP/kings1.nnue" bench 5 2>&1 | grep '^Nodes searched')
[ -n "$a" ] && [ "$a" = "$b" ] && ok train_init_king_buckets_same_function ||
    fail train_init_king_buckets_same_function "the net: $a, from it: $b" "$(tail -4 "$TMP/kings1.log")"
run train_bad_king_buckets 2 "bad or incomplete argument '--king-buckets'" $FF train --king-buckets 3 --out "$TMP/x.nnue" "$TMP/train.bin"
run train_init_king_buckets_kept 1 "has 4 king buckets, not --king-buckets 1" $FF train --init "$TMP/kings.nnue" --king-buckets 1 \
    --out "$TMP/x.nnue" "$TMP/train.bin"
run train_init_narrower_refused 1 "wide.nnue is 32 wide, more than --hidden 16" $FF train --out "$TMP/x.nnue" --init "$TMP/wide.nnue" --hidden 16 "$TMP/train.bin"
run train_init_other_buckets_refused 1 "buckets.nnue has 8 output buckets, not --buckets 1" $FF train --out "$TMP/x.nnue" --init "$TMP/buckets.nnue" --buckets 1 "$TMP/train.bin"
run train_init_corrupt_refused 1 "train: --init .*corrupt.nnue: checksum mismatch" $FF train --out "$TMP/x.nnue" --init "$TMP/corrupt.nnue" "$TMP/train.bin"
run net_none_is_hand_written 0 "^Nodes searched: " $FF --net none bench 3
printf 'uci\nsetoption name EvalFile value %s\nsetoption name EvalFile value %s\nisready\nquit\n' "$TMP/corrupt.nnue" \
    "$TMP/tiny.nnue" | $FF >"$TMP/evalfile.log" 2>&1
grep -q "^info string .*checksum mismatch" "$TMP/evalfile.log" \
    && grep -q "^info string evaluation: file 768->16x2->1 (checksum [0-9a-f]*)$" "$TMP/evalfile.log" \
    && grep -q "^readyok$" "$TMP/evalfile.log" && ok uci_evalfile || fail uci_evalfile "$(cat "$TMP/evalfile.log" | tail -4)"
$FF tune --labels "$TMP/dg1.txt" --from handset --rounds 1 --epochs 40 --out "$TMP/tuned.c" >"$TMP/tune.log" 2>&1
start=$(sed -nE 's/^start: error ([0-9.]+),.*/\1/p' "$TMP/tune.log")
after=$(sed -nE 's/^round 1: error ([0-9.]+),.*/\1/p' "$TMP/tune.log")
awk -v a="$start" -v b="$after" 'BEGIN { exit !(a > 0 && b > 0 && b < a) }' && ok tune_error_falls \
    || fail tune_error_falls "start '$start', after one round '$after'" "$(tail -3 "$TMP/tune.log")"
grep -q "^ \*   feelfish datagen --games 30 --nodes 400 --seed 1 --random-plies 8 --params engine --out FILE$" "$TMP/tuned.c" \
    && grep -q "^ \*   feelfish tune --labels FILE --from handset --rounds 1 --epochs 40 --out $TMP/tuned.c$" "$TMP/tuned.c" \
    && ok tune_names_its_commands || fail tune_names_its_commands "$(head -6 "$TMP/tuned.c")"
cc -std=c11 -Wall -Wextra -Werror -c -I engine/eval -o "$TMP/tuned.o" "$TMP/tuned.c" 2>"$TMP/cc.log" \
    && ok tune_output_compiles || fail tune_output_compiles "$(head -5 "$TMP/cc.log")"
head -200 "$TMP/dg1.txt" >"$TMP/few.txt"
run tune_too_few 1 'only [0-9]+ positions' $FF tune --labels "$TMP/few.txt" --out "$TMP/never.c"
run tune_bad_from 2 "unexpected argument '--from'" $FF tune --from tuned
[ ! -e "$TMP/never.c" ] && ok tune_writes_nothing_on_error || fail tune_writes_nothing_on_error "$TMP/never.c exists"

run unknown_command 2 "unknown command 'frobnicate'" $FF frobnicate
run help 0 'perft FEN DEPTH' $FF help

# The engine under valgrind: no invalid access, no leak.
if command -v valgrind >/dev/null; then
    run valgrind_perft 0 'Nodes searched: 8902' valgrind -q --error-exitcode=9 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect $FF perft startpos 3
    head -c 60000 "$DATA/pgn/Kasparov.pgn" >"$TMP/small.pgn"
    run valgrind_pgn 0 '^games: [0-9]+ read' valgrind -q --error-exitcode=9 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect $FF pgn "$TMP/small.pgn" --check
    run valgrind_bad_pgn 0 'skipped' valgrind -q --error-exitcode=9 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect $FF pgn "$TMP/mixed.pgn"
else
    fail valgrind "valgrind is not installed"
fi

echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
