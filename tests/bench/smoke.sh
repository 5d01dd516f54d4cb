#!/usr/bin/env bash
# Every part of `make bench` run small, in make test: each must run to its end (exit 0) and print its
# figure's line; no timing is judged (these machines are shared). A benchmark broken by a new limit
# or flag then fails a test instead of breaking unseen. Prints 'bench-smoke: N passed, N failed'.
set -u
cd "$(dirname "$0")/../.."
export BENCH_SMOKE=1
passed=0 failed=0
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT

# part NAME PATTERN CMD...: runs CMD, wants exit 0 and a line matching PATTERN in its output.
part() {
    local name=$1 pattern=$2; shift 2
    local t0=$SECONDS
    timeout 300 "$@" >"$LOG/$name.txt" 2>&1
    local rc=$?
    if [ "$rc" = 0 ] && grep -Eq "$pattern" "$LOG/$name.txt"; then
        echo "ok   $name ($((SECONDS - t0)) s): $(grep -E "$pattern" "$LOG/$name.txt" | tail -1)"
        passed=$((passed + 1))
    else
        echo "FAIL $name (exit $rc, $((SECONDS - t0)) s): no line matching '$pattern'"
        tail -15 "$LOG/$name.txt" | sed 's/^/    /'
        failed=$((failed + 1))
    fi
}

part perft 'ratio = stockfish time' tests/bench/perft.sh
part search 'speed-up: ' tests/bench/search.sh
part wac 'WAC at 10 ms/position' env WAC_MOVETIME=10 tests/bench/wac.sh
part lab 'lab: depths 1-3 on 50 positions: all six agree' python3 tests/bench/lab.py --depth 3
part server 'bench-server: 4 passed, 0 failed' python3 tests/bench/server.py --smoke
part scaling 'scaling: done' env BENCH_NODES=20000 BENCH_SECONDS=1 BENCH_PAIRS=2 python3 tests/bench/scaling.py
part web 'first engine line' node tests/bench/web.mjs 1
part soak '^soak: ' env SOAK_SECONDS=12 python3 tests/bench/soak.py
part flood 'victim' env FLOOD_SMOKE=1 python3 tests/bench/flood.py
part clock 'lost on time' python3 tests/bot/clock_test.py --games 1 --concurrency 1 --base 30 --max-plies 16
part calibrate 'largest bucket gap' python3 tests/bench/calibrate.py --games 40 --nodes 1000 --out "$LOG/calibration"
part levels '^1100 +1350 .* [0-9]+% \([0-9]+ plies\)$' env GAMES=2 ELOS=1100 TC=2+0.02 SF_TC=2+0.02 OUT="$LOG/levels" tests/bench/levels.sh
part level_8 '^full +2850 .* -$' env GAMES=2 ELOS=full FULL_MS=50 OUT="$LOG/levels" tests/bench/levels.sh
part strength '^vs 2850: ' env GAMES=2 TC=1+0.01 OUT="$LOG/strength" tests/bench/strength.sh
part review 'accuracy correlation' python3 tests/bench/review_quality.py --games 1 --nodes 5000 --speed-nodes 20000 --ceiling-nodes 50000

echo "bench-smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
