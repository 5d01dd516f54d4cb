#!/usr/bin/env bash
# Runs each libFuzzer harness (build/fuzz/fuzz_NAME, built by `make fuzz` or `make test`) for
# SECONDS (default 30) from its seed corpus in tests/fuzz/corpus/NAME; what it learns is kept in
# build/fuzz/corpus/NAME (not committed). Harnesses run side by side, one a core (FUZZ_JOBS, default
# nproc): each gets its full SECONDS. A crash, leak, sanitizer report or timeout is a failure and
# leaves its input in build/fuzz/crash-NAME-*. Ends with "fuzz-harnesses: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
seconds=${1:-30}
names=${FUZZ_NAMES:-fen move pgn uci request http ws}
jobs=${FUZZ_JOBS:-$(nproc)}

# One harness; its verdict line goes to build/fuzz/NAME.verdict (the first word ok or FAIL).
fuzz_one() {
    local name=$1 bin=build/fuzz/fuzz_$1 log=build/fuzz/$1.log verdict=build/fuzz/$1.verdict
    mkdir -p "build/fuzz/corpus/$name"
    if [ ! -x "$bin" ]; then
        echo "FAIL fuzz_$name: $bin is missing (make fuzz)" >"$verdict"
        return
    fi
    if "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="build/fuzz/crash-$name-" "build/fuzz/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1; then
        local runs cov
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
        echo "ok   fuzz_$name: $runs inputs in ${seconds}s, $cov, no finding" >"$verdict"
    else
        { echo "FAIL fuzz_$name: a finding (see $log and build/fuzz/crash-$name-*)"
          grep -E "ERROR|SUMMARY|runtime error|deadly signal" "$log" | head -5 | sed 's/^/    /'; } >"$verdict"
    fi
}

mkdir -p build/fuzz
running=0
for name in $names; do
    rm -f "build/fuzz/$name.verdict"
    fuzz_one "$name" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

passed=0 failed=0
for name in $names; do
    verdict=build/fuzz/$name.verdict
    [ -f "$verdict" ] || echo "FAIL fuzz_$name: ended without a verdict" >"$verdict"
    cat "$verdict"
    if grep -q '^ok ' "$verdict"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz-harnesses: $passed passed, $failed failed"
[ "$failed" = 0 ]
