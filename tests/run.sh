#!/usr/bin/env bash
# Runs every test runner, shows their output, and ends with the total over all of them:
# "N passed, N failed" (a runner that dies without its summary line counts as one failure).
set -u
cd "$(dirname "$0")/.."
export FEELFISH_DATA=${FEELFISH_DATA:-$(cd .. && pwd)/shared/data}
total_passed=0 total_failed=0
ASAN_SERVER=(env FEELFISH=build/feelfish-asan ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1)

# count NAME LOG RC SECONDS: adds a runner's summary line (in LOG) to the totals.
count() {
    local name=$1 log=$2 rc=$3 seconds=$4 summary p f
    echo "($name: $seconds s)"
    summary=$(grep -E '^[a-z0-9-]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
    if [ -z "$summary" ]; then
        echo "$name: no summary line (exit $rc): counted as one failure"
        total_failed=$((total_failed + 1))
        return
    fi
    p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$summary")
    f=$(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$summary")
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        echo "$name: exit $rc with no failed test: counted as one failure"
        f=1
    fi
    total_passed=$((total_passed + p))
    total_failed=$((total_failed + f))
}

runner() {
    local name=$1; shift
    echo "=== $name"
    local started=$SECONDS log
    log=$(mktemp)
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    count "$name" "$log" "$rc" $((SECONDS - started))
    rm -f "$log"
}

# The background lane: runners that mostly wait (on clocks, timeouts, a server's restart, Redis)
# rather than compute run one after another beside the others, started first; `collect` shows their output
# and counts them at the end. Every runner takes its own free ports and directories.
lane_dir=$(mktemp -d) lane_pid=
kill_tree() { local c; for c in $(pgrep -P "$1"); do kill_tree "$c"; done; kill "$1" 2>/dev/null; }
trap '[ -n "$lane_pid" ] && kill_tree "$lane_pid"; rm -rf "$lane_dir"' EXIT
trap 'exit 130' INT TERM
lane_names=()
in_background() {
    lane_names+=("$1")
    printf '%s\0' "$@" > "$lane_dir/${#lane_names[@]}.cmd"
}
start_lane() {
    (
        for i in $(seq 1 ${#lane_names[@]}); do
            mapfile -d '' -t cmd < "$lane_dir/$i.cmd"
            started=$SECONDS
            "${cmd[@]:1}" > "$lane_dir/$i.log" 2>&1
            echo "$? $((SECONDS - started))" > "$lane_dir/$i.done"
        done
    ) &
    lane_pid=$!
}
collect() {
    wait "$lane_pid"
    lane_pid=
    for i in $(seq 1 ${#lane_names[@]}); do
        echo "=== ${lane_names[$((i - 1))]} (in the background lane)"
        cat "$lane_dir/$i.log"
        local rc=1 seconds=0
        [ -f "$lane_dir/$i.done" ] && read -r rc seconds < "$lane_dir/$i.done"
        count "${lane_names[$((i - 1))]}" "$lane_dir/$i.log" "$rc" "$seconds"
    done
}

# The Lichess bot bridge (`feelfish bot`, `serve --bot`) against a fake Lichess with real rules and clocks
# (tests/bot/fake_lichess.py; Stockfish plays the opponent). tests/bot/clock_test.py (20 games at 1+0) is not here.
in_background "Lichess bot: config (--print-config, bad values named), a wrong token, an account not a BOT" \
    python3 tests/bot/test_bot_config.py
in_background "Lichess bot: challenges, games, 429s, dropped streams, aborts, PGN, token hygiene" \
    python3 tests/bot/test_bot.py
in_background "Lichess bot: matchmaking, takebacks, the challenge queue, rate_limiting_delay" \
    python3 tests/bot/test_bot_matchmaking.py
in_background "Lichess bot inside the server: serve --bot, GET /api/bot, affective and bayesian games" \
    python3 tests/bot/test_bot_serve.py
in_background "crash: kill -9 under mixed load, every acknowledged write survives" python3 tests/durability/test_crash.py
in_background "cluster: two fronts and two workers over a real redis-server (kill -9, Redis restart)" python3 tests/cluster/test_cluster.py
in_background "cluster (ASan+UBSan build)" "${ASAN_SERVER[@]}" python3 tests/cluster/test_cluster.py
in_background "security: heavy clients (idle connection floods and the listener, game analyses and the search lab within the job quotas, SIGTERM under mixed load)" \
    python3 tests/security/test_heavy_load.py
in_background "security: storage under floods (retention caps for games, jobs and cloud evals; reads on a full disk)" \
    python3 tests/security/test_storage_pressure.py
start_lane

runner "unit tests (release build)" ./build/unit
runner "include layers and circles" python3 tests/structure/layers.py
runner "docs: README size and opening, links and anchors, commands and serve flags shown" python3 tests/structure/docs.py
runner "the API contract: linted, every route and error code described" python3 tests/structure/api_contract.py
runner "unit tests (ASan+UBSan build)" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./build/unit-asan
runner "threaded search tests (ThreadSanitizer build)" env FEELFISH_SUITES=search \
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ./build/unit-tsan
runner "server unit tests (release build)" ./build/unit-server
runner "server unit tests (ASan+UBSan build)" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./build/unit-server-asan
runner "engine command-line tests" tests/cli/engine.sh
runner "UCI session" tests/cli/uci.sh
runner "match (engine-vs-engine games)" tests/cli/match.sh
runner "Bayesian model tools (learn, bayes, UCI)" tests/cli/learn.sh
runner "annotate: whole-game analysis of a PGN file, SIGTERM and resume" python3 tests/cli/test_annotate.py
# The server's integration tests: one file per API area (tests/integration/test_AREA.py), each ending
# with its own summary line; every HTTP area against the release and the ASan+UBSan binaries.
HTTP_AREAS="health_config analyse affective jobs games game_analysis play_lab"
for area in $HTTP_AREAS; do
    runner "server integration: $area (HTTP)" python3 tests/integration/test_$area.py
done
for area in $HTTP_AREAS; do
    runner "server integration: $area (HTTP, ASan+UBSan build)" "${ASAN_SERVER[@]}" python3 tests/integration/test_$area.py
done
runner "server integration (WebSocket)" python3 tests/integration/test_ws.py
runner "Bayesian mode through the server (ASan+UBSan build)" "${ASAN_SERVER[@]}" python3 tests/integration/test_bayesian.py
runner "server fuzzing (HTTP and WebSocket, ASan+UBSan build)" "${ASAN_SERVER[@]}" python3 tests/integration/test_fuzz.py
runner "server integration (WebSocket, ASan+UBSan build)" "${ASAN_SERVER[@]}" python3 tests/integration/test_ws.py
# ThreadSanitizer: the loop, the search workers, the storage writer and libuv's pool share jobs,
# events and tokens; a race report on the server's stderr fails the run (harness: servers_exit_clean).
TSAN_SERVER=(env FEELFISH=build/feelfish-tsan TSAN_OPTIONS=second_deadlock_stack=1)
for area in analyse jobs games ws; do
    runner "server integration: $area (ThreadSanitizer build)" "${TSAN_SERVER[@]}" python3 tests/integration/test_$area.py
done
runner "security: tokens, owners, fair queue (ThreadSanitizer build)" "${TSAN_SERVER[@]}" python3 tests/security/test_auth.py
runner "docs' examples: every command shown in README.md and docs/ run, its output compared" \
    python3 tests/integration/test_doc_examples.py
runner "cluster behind a real nginx: clients named by X-Forwarded-For, their own jobs and rates, logs and metrics" python3 tests/cluster/test_nginx.py
runner "disk full: refused writes, degraded health, nothing acknowledged lost" python3 tests/durability/test_disk_full.py
runner "restart: what is picked up again and what is not" python3 tests/durability/test_restart.py
runner "retention: caps by count and age, idle games leave memory, db prune and stats" python3 tests/durability/test_retention.py
runner "security basics (log injection and secrets, default bind, ids)" python3 tests/security/test_basics.py
runner "security: foreign origins and hosts, headers, a WebSocket client that never reads" python3 tests/security/test_browser.py
runner "security: per-client rate and analysis quotas" python3 tests/security/test_quotas.py
runner "security: tokens, scopes, owners, learning policy, fair queue" python3 tests/security/test_auth.py
# Its SIGTERM check runs build/feelfish-asan (ASAN_OPTIONS as above) whatever FEELFISH says.
runner "security: connection floods, per-address caps, slowloris, keep-alive, WebSocket idle, SIGTERM under ASan" \
    python3 tests/security/test_connections.py
runner "security: strict framing, paths not UTF-8, request ids, JSON log lines" python3 tests/security/test_framing_and_ids.py
runner "security: refusals (failed tokens rate limited, config paths hidden, HEAD, JSON errors for oversized requests and refused WebSocket handshakes)" \
    python3 tests/security/test_refusals.py
runner "security: trusted proxies (X-Forwarded-For and Forwarded from trusted peers only: owners, quotas, caps, log)" python3 tests/security/test_proxies.py
runner "libFuzzer harnesses (FEN, moves, PGN, a UCI session, an analysis request, HTTP and WebSocket in-process), ${FUZZ_SECONDS:-10} s each" \
    tests/fuzz/run.sh "${FUZZ_SECONDS:-10}"
runner "browser page (headless Chromium)" node tests/e2e/run.mjs
runner "make bench, every part small (each runs to its end and prints its figure; no timing judged)" \
    tests/bench/smoke.sh
collect

echo
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
