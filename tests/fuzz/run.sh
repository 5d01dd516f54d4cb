#!/usr/bin/env bash
# Runs each libFuzzer harness (build/fuzz/fuzz_NAME, built by `make fuzz` or `make test`) for
# SECONDS (default 30) from its seed corpus in tests/fuzz/corpus/NAME; what it learns is kept in
# build/fuzz/corpus/NAME (not committed). A crash, leak, sanitizer report or timeout is a failure
# and leaves its input in build/fuzz/crash-NAME-*. Ends with "fuzz-harnesses: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
seconds=${1:-30}
names=${FUZZ_NAMES:-fen move pgn uci request http ws}
passed=0 failed=0
for name in $names; do
    bin=build/fuzz/fuzz_$name
    mkdir -p "build/fuzz/corpus/$name"
    log=build/fuzz/$name.log
    if [ ! -x "$bin" ]; then
        echo "FAIL fuzz_$name: $bin is missing (make fuzz)"
        failed=$((failed + 1))
        continue
    fi
    if "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="build/fuzz/crash-$name-" "build/fuzz/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
        echo "ok   fuzz_$name: $runs inputs in ${seconds}s, $cov, no finding"
        passed=$((passed + 1))
    else
        echo "FAIL fuzz_$name: a finding (see $log and build/fuzz/crash-$name-*)"
        grep -E "ERROR|SUMMARY|runtime error|deadly signal" "$log" | head -5 | sed 's/^/    /'
        failed=$((failed + 1))
    fi
done
echo "fuzz-harnesses: $passed passed, $failed failed"
[ "$failed" = 0 ]
