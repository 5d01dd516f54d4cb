#!/usr/bin/env bash
# Move-generator benchmark: feelfish perft vs Stockfish `go perft` on the same machine in the same
# run (single thread, best of 3 wall-clock times, each program's start-up time subtracted), then the
# full perft suites at every depth. Prints ratios; fails only if a count is wrong. BENCH_SMOKE=1: small
# depths and suites, in seconds (tests/bench/smoke.sh).
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-./feelfish}
SF=${STOCKFISH:-/usr/games/stockfish}
DATA=${FEELFISH_DATA:-../shared/data}
KIWIPETE="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
STARTPOS="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
status=0

now_ns() { date +%s%N; }

# best_of3 CMD...: the smallest wall time in ms over three runs (output to /dev/null)
best_of3() {
    local best=
    for _ in 1 2 3; do
        local t0 t1
        t0=$(now_ns); "$@" >/dev/null 2>&1; t1=$(now_ns)
        local ms=$(((t1 - t0) / 1000000))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    echo "$best"
}

sf_perft() { printf 'setoption name Threads value 1\nposition fen %s\ngo perft %s\nquit\n' "$1" "$2" | "$SF"; }

if [ ! -x "$SF" ]; then
    echo "Stockfish not found at $SF (apt-get install stockfish)"; exit 1
fi
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "stockfish: $("$SF" </dev/null 2>/dev/null | head -1)"
sf_start=$(best_of3 sf_perft "$STARTPOS" 1)
ff_start=$(best_of3 "$FF" perft "$STARTPOS" 1)
echo "start-up: stockfish ${sf_start} ms, feelfish ${ff_start} ms (subtracted below)"
echo
printf '%-10s %5s %12s %12s %12s %8s\n' position depth nodes "feelfish ms" "stockfish ms" ratio
specs=("startpos|$STARTPOS|6|119060324" "kiwipete|$KIWIPETE|5|193690690")
[ -n "${BENCH_SMOKE:-}" ] && specs=("startpos|$STARTPOS|4|197281" "kiwipete|$KIWIPETE|3|97862")
for spec in "${specs[@]}"; do
    IFS='|' read -r name fen depth want <<<"$spec"
    got=$("$FF" perft "$fen" "$depth" 2>/dev/null | tail -1)
    sfgot=$(sf_perft "$fen" "$depth" | grep 'Nodes searched')
    if [ "$got" != "Nodes searched: $want" ] || [ "$sfgot" != "Nodes searched: $want" ]; then
        echo "$name: count mismatch: feelfish '$got', stockfish '$sfgot', want $want"; status=1
    fi
    ff=$(($(best_of3 "$FF" perft "$fen" "$depth") - ff_start))
    sf=$(($(best_of3 sf_perft "$fen" "$depth") - sf_start))
    [ "$ff" -lt 1 ] && ff=1
    ratio=$(awk -v a="$sf" -v b="$ff" 'BEGIN { printf "%.2f", a / b }')
    printf '%-10s %5s %12s %12s %12s %8s\n' "$name" "$depth" "$want" "$ff" "$sf" "$ratio"
done
echo "(ratio = stockfish time / feelfish time; target >= 1.0)"
echo
for suite in standard random; do
    echo "full suite $suite.epd:"
    "$FF" perft --suite "$DATA/perft/$suite.epd" ${BENCH_SMOKE:+--max-nodes 20000} || status=1
done
exit $status
