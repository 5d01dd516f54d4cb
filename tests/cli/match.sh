#!/usr/bin/env bash
# Command-line tests of `feelfish match`: real Stockfish games, faulty fake engines (illegal move,
# crash, hang), SPRT early stop, clocks, openings, PGN output read back, --resume, and bad arguments.
# Prints "ok NAME" / "FAIL NAME" per test and "match: N passed, N failed" last.
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-./feelfish}
DATA=${FEELFISH_DATA:-../shared/data}
SF=${STOCKFISH:-/usr/games/stockfish}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; shift; printf '    %s\n' "$@"; }

if [ ! -x "$SF" ]; then
    echo "FAIL stockfish: $SF is not installed"
    echo "match: 0 passed, 1 failed"
    exit 1
fi

# The fakes start Stockfish through a link with a name of our own, so a process left behind by a
# match (zombie or not) can be found afterwards.
CHILD=mt-sf-$$
ln -s "$SF" "$TMP/$CHILD"
export STOCKFISH="$TMP/$CHILD"
FAKE=tests/cli/fake-engines/faulty.sh
SFA="cmd=$SF,name=sfA,option.Threads=1,option.Hash=16"
SFB="cmd=$SF,name=sfB,option.Threads=1,option.Hash=16"
head -2 "$DATA/openings.epd" >"$TMP/two.epd"

# match NAME WANT_EXIT ARGS...: runs a match; its output (stdout+stderr) is left in $out.
out=""
match() {
    local name=$1 want_rc=$2 rc; shift 2
    out=$($FF match "$@" 2>&1); rc=$?
    if [ "$rc" != "$want_rc" ]; then fail "$name" "exit $rc, want $want_rc" "$(echo "$out" | tail -5)"; return 1; fi
    ok "$name"
}
# has NAME REGEX [TEXT]: TEXT (default $out) has a line matching REGEX.
has() {
    if grep -Eq -- "$2" <<<"${3-$out}"; then ok "$1"; else fail "$1" "output lacks /$2/" "$(echo "${3-$out}" | tail -5)"; fi
}
# pgn_ok NAME FILE GAMES: the file reads back with every game replayed and no SAN difference.
pgn_ok() {
    local check; check=$($FF pgn "$2" --check 2>&1)
    if grep -q "^games: $3 read, 0 skipped" <<<"$check" && grep -q "^check: 0 SAN mismatches, 0 round-trip failures$" <<<"$check"
    then ok "$1"; else fail "$1" "$check"; fi
}
no_leftovers() {
    sleep 0.2
    local left; left=$(ps -eo stat=,comm=,args= | grep -F "$CHILD" | grep -v grep)
    if [ -z "$left" ]; then ok "$1"; else fail "$1" "processes left: $left"; fi
}

# --- Stockfish against Stockfish: 4 games on 2 openings, 2 at a time.
match sf_vs_sf 0 --engine "$SFA" --engine "$SFB" --nodes 2000 --games 4 --concurrency 2 \
    --openings "$TMP/two.epd" --pgn "$TMP/sf.pgn"
score=$(grep -E '^Score of sfA vs sfB: [0-9]+ - [0-9]+ - [0-9]+  \[[0-9.]+\]  4$' <<<"$out")
if [ -n "$score" ] && [ $(($(awk '{print $6 + $8 + $10}' <<<"$score"))) = 4 ]; then ok sf_vs_sf_score; else
    fail sf_vs_sf_score "no 'Score of sfA vs sfB: W - L - D  [s]  4' with W+L+D = 4" "$(echo "$out" | tail -3)"; fi
has sf_vs_sf_last_line '^Elo difference: [-+]([0-9]+\.[0-9]|inf) \+/- ([0-9]+\.[0-9]|inf)$' "$(echo "$out" | tail -1)"
has sf_vs_sf_all_played '^Match sfA vs sfB, nodes 2000: 4 of 4 games played$'
has sf_vs_sf_progress '^games 4/4: \+[0-9]+ =[0-9]+ -[0-9]+  score [0-9.]+%  elo '
has sf_vs_sf_game_line '^game [1-4]: sf[AB] vs sf[AB] (1-0|0-1|1/2-1/2) \([a-z ]+\), [0-9]+ plies$'
has sf_vs_sf_no_faults '^Time losses: sfA 0, sfB 0$'
[ "$(grep -c '^\[Event ' "$TMP/sf.pgn")" = 4 ] && ok sf_vs_sf_pgn_games || fail sf_vs_sf_pgn_games "$(grep -c '^\[Event ' "$TMP/sf.pgn") games in the PGN"
pgn_ok sf_vs_sf_pgn_check "$TMP/sf.pgn" 4
# Each opening twice, once with each engine as White.
pairs=$(awk -F'"' '/^\[White /{w=$2} /^\[FEN /{print $2 "|" w}' "$TMP/sf.pgn" | sort -u)
fens=$(cut -d'|' -f1 <<<"$pairs" | sort -u | wc -l)
[ "$(wc -l <<<"$pairs")" = 4 ] && [ "$fens" = 2 ] && ok sf_vs_sf_colours_swapped || fail sf_vs_sf_colours_swapped "$pairs"
has sf_vs_sf_tags '^\[Termination "normal"\]$' "$(cat "$TMP/sf.pgn")"
has sf_vs_sf_plycount '^\[PlyCount "[0-9]+"\]$' "$(cat "$TMP/sf.pgn")"

# --- Faulty engines: each failure loses for the faulty side, is reported, and the match goes on.
match illegal_move 1 --engine "cmd=$FAKE,arg=illegal,arg=2,name=fake" --engine "$SFB" --nodes 1000 --games 2 \
    --openings "$TMP/two.epd" --pgn "$TMP/illegal.pgn"
has illegal_move_counted '^Illegal moves: fake 2, sfB 0$'
has illegal_move_score '^Score of fake vs sfB: 0 - 2 - 0  \[0.000\]  2$'
has illegal_move_reported "^game 1: fake vs sfB 0-1 \(illegal move: White makes an illegal move: 'a2a5' in [^ ]+ w "
has illegal_move_termination '^\[Termination "illegal move"\]$' "$(cat "$TMP/illegal.pgn")"
pgn_ok illegal_move_pgn "$TMP/illegal.pgn" 2

match null_move 1 --engine "$SFA" --engine "cmd=$FAKE,arg=null,arg=1,name=fake" --nodes 1000 --games 1
has null_move_illegal "illegal move: Black makes an illegal move: '0000' in "

match crash 1 --engine "cmd=$FAKE,arg=crash,arg=3,name=fake" --engine "$SFB" --nodes 1000 --games 3 \
    --concurrency 2 --openings "$TMP/two.epd" --pgn "$TMP/crash.pgn"
has crash_counted '^Crashes: fake 3, sfB 0$'
has crash_all_played '^Match fake vs sfB, nodes 1000: 3 of 3 games played$'
has crash_reported "crashed \(exited with code 3\)\), [0-9]+ plies$"
has crash_termination '^\[Termination "abandoned"\]$' "$(cat "$TMP/crash.pgn")"
pgn_ok crash_pgn "$TMP/crash.pgn" 3
no_leftovers crash_no_processes_left

start=$(date +%s)
match hang_loses_on_time 0 --engine "cmd=$FAKE,arg=hang,arg=2,name=fake" --engine "$SFB" --tc 1+0.01 --games 2 \
    --concurrency 2 --pgn "$TMP/hang.pgn"
has hang_time_losses '^Time losses: fake 2, sfB 0$'
has hang_termination '^\[Termination "time forfeit"\]$' "$(cat "$TMP/hang.pgn")"
[ $(($(date +%s) - start)) -le 10 ] && ok hang_quick || fail hang_quick "took $(($(date +%s) - start)) s"
no_leftovers hang_no_processes_left

match stall 1 --engine "cmd=$FAKE,arg=hang,arg=1,name=fake" --engine "$SFB" --nodes 1000 --move-timeout 300 --games 1
has stall_counted '^Stalls: fake 1, sfB 0$'
has stall_reported 'stalled: White.s engine fake stalled: no bestmove within 300 ms'

match dead_at_start 1 --engine "cmd=/bin/true" --engine "$SFB" --nodes 100
has dead_at_start_reported "^match: engine 1 \(/bin/true\): died during the 'uci' handshake"

# --- SPRT: full strength against Skill Level 0 is decided within a few games.
match sprt_stops_early 0 --engine "cmd=$SF,name=strong" --engine "cmd=$SF,name=weak,option.Skill Level=0" \
    --nodes 3000 --games 100 --concurrency 2 --openings "$DATA/openings.epd" --sprt elo0=0,elo1=50
has sprt_h1 '^SPRT: elo0 0, elo1 50, alpha 0.05, beta 0.05: llr [0-9.]+, bounds \(-2.94, 2.94\): H1 accepted$'
has sprt_stopped '^Match strong vs weak, nodes 3000: [0-9] of 100 games played \(stopped by the SPRT\)$'

# --- A real clock: no losses on time at 1+0.01.
match clock 0 --engine "$SFA" --engine "$SFB" --tc 1+0.01 --games 2 --concurrency 2 --openings "$TMP/two.epd" \
    --pgn "$TMP/clock.pgn"
has clock_no_time_losses '^Time losses: sfA 0, sfB 0$'
has clock_games '^Score of sfA vs sfB: [0-9] - [0-9] - [0-9]  \[[0-9.]+\]  2$'
has clock_tag '^\[TimeControl "1\+0.01"\]$' "$(cat "$TMP/clock.pgn")"

# --- Each engine its own limits: one at a fixed move time, the other on its own clock; an engine
# that names none plays under the flags'. The go lines each is sent, the report and the PGN's tags.
match own_limits 0 --engine "cmd=$FAKE,arg=log,arg=$TMP/goA,name=fakeA,movetime=40" \
    --engine "cmd=$FAKE,arg=log,arg=$TMP/goB,name=fakeB,tc=1+0.01" --games 2 --max-moves 4 \
    --openings "$TMP/two.epd" --pgn "$TMP/own.pgn"
has own_limits_report '^Match fakeA vs fakeB, fakeA movetime 40 ms, fakeB tc 1\+0.01: 2 of 2 games played$'
has own_limits_go_movetime '^go movetime 40$' "$(sort -u "$TMP/goA")"
[ "$(sort -u "$TMP/goA" | wc -l)" = 1 ] && ok own_limits_only_movetime || fail own_limits_only_movetime "$(sort -u "$TMP/goA")"
has own_limits_go_clock '^go wtime [0-9]+ btime [0-9]+ winc (0|10) binc (0|10)$' "$(cat "$TMP/goB")"
grep -q movetime "$TMP/goB" && fail own_limits_clock_only "$(head -3 "$TMP/goB")" || ok own_limits_clock_only
has own_limits_tags '^\[WhiteTimeControl "-"\]$' "$(sed -n '1,/^$/p' "$TMP/own.pgn")"
has own_limits_tags_black '^\[BlackTimeControl "1\+0.01"\]$' "$(sed -n '1,/^$/p' "$TMP/own.pgn")"
rm -f "$TMP/goA"
match own_limits_beside_flags 0 --engine "cmd=$FAKE,arg=log,arg=$TMP/goA,name=fakeA,depth=3" --engine "$SFB" \
    --nodes 200 --games 1 --max-moves 2
has own_limits_beside_flags_report '^Match fakeA vs sfB, fakeA depth 3, sfB nodes 200: 1 of 1 games played$'
[ "$(sort -u "$TMP/goA")" = "go depth 3" ] && ok own_limits_replace_flags || fail own_limits_replace_flags "$(sort -u "$TMP/goA")"
match own_limits_clash 2 --engine "$SFA,tc=1,movetime=10" --engine "$SFB" --nodes 10
has own_limits_clash_message '^match: --engine sfA: tc= and movetime= cannot be combined'
match own_limits_bad 2 --engine "$SFA,nodes=lots" --engine "$SFB" --nodes 10
has own_limits_bad_message "nodes='lots' is not a whole number"

# --- Openings: a start offset, a seeded shuffle, and draw adjudication.
match opening_start 0 --engine "$SFA" --engine "$SFB" --nodes 100 --games 1 --max-moves 3 --quiet \
    --openings "$DATA/openings.epd" --opening-start 5 --pgn "$TMP/start.pgn"
want=$(sed -n 6p "$DATA/openings.epd" | awk '{print $1, $2, $3, $4}')
has opening_start_fen "^\[FEN \"$want " "$(cat "$TMP/start.pgn")"
has max_moves_adjudication '^\[Termination "adjudication"\]$' "$(cat "$TMP/start.pgn")"
has max_moves_plies '^\[PlyCount "6"\]$' "$(cat "$TMP/start.pgn")"
for seed in 7 7 8; do
    $FF match --engine "$SFA" --engine "$SFB" --nodes 100 --games 4 --max-moves 1 --quiet \
        --openings "$DATA/openings.epd" --random-openings $seed --pgn "$TMP/seed$seed.pgn" >/dev/null 2>&1
done
a=$(grep '^\[FEN' "$TMP/seed7.pgn"); b=$(grep '^\[FEN' "$TMP/seed8.pgn")
[ "$(wc -l <<<"$a")" = 8 ] && [ "$(sort -u <<<"$a" | wc -l)" = 2 ] && [ "$a" != "$b" ] && ok random_openings ||
    fail random_openings "seed 7: $a" "seed 8: $b"
match start_position 0 --engine "$SFA" --engine "$SFB" --nodes 100 --games 1 --max-moves 2 --pgn "$TMP/startpos.pgn"
if grep -q '^\[FEN' "$TMP/startpos.pgn"; then fail startpos_no_fen_tag "a FEN tag for the standard start"; else ok startpos_no_fen_tag; fi

# --- --resume: a match killed with SIGKILL after its third game (and an unfinished game left at the
# file's end) goes on with the missing games: the same games and score as the run never stopped
# (fixed nodes, one thread: Stockfish plays the same moves). A file of another match is refused.
RES=(--engine "$SFA" --engine "$SFB" --nodes 2000 --games 6 --openings "$DATA/openings.epd")
$FF match "${RES[@]}" --quiet --pgn "$TMP/whole.pgn" >"$TMP/whole.txt" 2>/dev/null
$FF match "${RES[@]}" --quiet --pgn "$TMP/resume.pgn" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do n=$(grep -c '^\[Round' "$TMP/resume.pgn" 2>/dev/null); [ "${n:-0}" -ge 3 ] && break; sleep 0.05; done
kill -9 $pid; wait $pid 2>/dev/null
before=$(grep -c '^\[Round' "$TMP/resume.pgn")
head -c 600 "$TMP/resume.pgn" | sed 's/^\[Round "1"\]/[Round "6"]/' >>"$TMP/resume.pgn" # cut mid-game
match resume_after_kill 0 "${RES[@]}" --pgn "$TMP/resume.pgn" --resume
has resume_reports_games "^match: resuming: $before of 6 games already in "
score=$(grep '^Score of' "$TMP/whole.txt")
grep -qxF "$score" <<<"$out" && ok resume_same_score || fail resume_same_score "want: $score" "$(grep '^Score of' <<<"$out")"
[ "$(grep '^\[Round' "$TMP/resume.pgn" | sort)" = "$(grep '^\[Round' "$TMP/whole.pgn" | sort)" ] &&
    [ "$before" -ge 3 ] && [ "$before" -lt 6 ] && ok resume_each_game_once ||
    fail resume_each_game_once "killed after $before games" "$(grep '^\[Round' "$TMP/resume.pgn" | tr '\n' ' ')"
pgn_ok resume_pgn_check "$TMP/resume.pgn" 6
cp "$TMP/resume.pgn" "$TMP/resume.keep"
match resume_other_limits 2 --engine "$SFA" --engine "$SFB" --nodes 1000 --games 6 --openings "$DATA/openings.epd" \
    --pgn "$TMP/resume.pgn" --resume
has resume_other_limits_message 'Event "feelfish match \(nodes 2000\)", but this match is "feelfish match \(nodes 1000\)"'
match resume_other_engine 2 --engine "cmd=$SF,name=sfC" --engine "$SFB" --nodes 2000 --games 6 \
    --openings "$DATA/openings.epd" --pgn "$TMP/resume.pgn" --resume
has resume_other_engine_message 'game 1 is sfA vs sfB; this match plays it sfC vs sfB'
match resume_fewer_games 2 "${RES[@]:0:6}" --games 4 --openings "$DATA/openings.epd" --pgn "$TMP/resume.pgn" --resume
cmp -s "$TMP/resume.pgn" "$TMP/resume.keep" && ok resume_refused_file_unchanged || fail resume_refused_file_unchanged
match resume_needs_pgn 2 "${RES[@]}" --resume
has resume_needs_pgn_message '^match: --resume needs --pgn FILE'

# --- Bad arguments: a clear message and exit code 2.
match no_engines 2 --nodes 10
has no_engines_message 'a match needs two engines'
match one_engine 2 --engine "$SFA" --nodes 10
match unknown_flag 2 --engine "$SFA" --engine "$SFB" --nodes 10 --frobnicate 3
has unknown_flag_message "unknown option '--frobnicate'"
match bad_tc 2 --engine "$SFA" --engine "$SFB" --tc 10+x
has bad_tc_message "--tc: '10\+x' is not BASE or BASE\+INC"
match no_limit 2 --engine "$SFA" --engine "$SFB"
match missing_openings 2 --engine "$SFA" --engine "$SFB" --nodes 10 --openings "$TMP/none.epd"
has missing_openings_message "--openings: cannot open .*none.epd"
echo "not a fen at all" >"$TMP/bad.epd"
match bad_openings 2 --engine "$SFA" --engine "$SFB" --nodes 10 --openings "$TMP/bad.epd"
has bad_openings_message 'bad.epd line 1: not a FEN'
match bad_option_syntax 2 --engine "cmd=$SF,option.=3" --engine "$SFB" --nodes 10
# A value the engine's declaration does not allow would be ignored by the engine (Stockfish 15.1 keeps
# UCI_Elo at 1350 when asked 3190, outside its 1350-2850) and the match would measure something else.
match option_out_of_range 2 --engine "cmd=$SF,name=sf3190,option.UCI_LimitStrength=true,option.UCI_Elo=3190" \
    --engine "$SFB" --nodes 10
has option_out_of_range_message "option 'UCI_Elo' = '3190' is outside the engine's range 1350..2850"
match option_not_a_number 2 --engine "cmd=$SF,option.Hash=lots" --engine "$SFB" --nodes 10
has option_not_a_number_message "option 'Hash' = 'lots' is not a whole number"
match option_bad_check 2 --engine "cmd=$SF,option.Ponder=yes" --engine "$SFB" --nodes 10
has option_bad_check_message "option 'Ponder' is a check: 'true' or 'false', not 'yes'"
match option_bad_combo 2 --engine "$SFA" --engine "cmd=$FF,name=ff,option.Mode=wild" --nodes 10
has option_bad_combo_message "option 'Mode' = 'wild' is none of its choices: var classical"
match option_button_with_value 2 --engine "cmd=$SF,option.Clear Hash=1" --engine "$SFB" --nodes 10
has option_button_with_value_message "option 'Clear Hash' is a button"
match option_values_that_fit 0 --engine "cmd=$SF,name=sf2850,option.UCI_LimitStrength=TRUE,option.uci_elo=2850" \
    --engine "cmd=$FF,name=ff,option.mode=AFFECTIVE,option.Clear Hash" --nodes 200 --games 2 --quiet
match bad_engine_key 2 --engine "cmd=$SF,colour=red" --engine "$SFB" --nodes 10
has bad_engine_key_message "unknown or empty key 'colour'"
match missing_engine 2 --engine "cmd=$TMP/no-such-engine" --engine "$SFB" --nodes 10
has missing_engine_message 'cannot execute'
match bad_games 2 --engine "$SFA" --engine "$SFB" --nodes 10 --games -1
match bad_sprt 2 --engine "$SFA" --engine "$SFB" --nodes 10 --sprt elo0=5
match missing_value 2 --engine "$SFA" --engine "$SFB" --nodes
match help 0 --help
has help_usage '^usage: feelfish match --engine SPEC --engine SPEC'

no_leftovers no_processes_left

echo "match: $passed passed, $failed failed"
[ "$failed" = 0 ]
