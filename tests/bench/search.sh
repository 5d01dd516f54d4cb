#!/usr/bin/env bash
# Search benchmarks, feelfish and Stockfish 15.1 in the same run on this machine:
#  1. bench: node signature twice (must match) and nodes/second, beside the hand-written evaluation's
#     (--net none, other nodes) and Stockfish's `bench` nps;
#  2. Lazy SMP: wall time to depth 14 over the bench positions with 1 and 2 threads (target >= 1.5x).
# Prints ratios; fails only if the signature is not reproducible. BENCH_SMOKE=1: shallow (seconds).
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-./feelfish}
SF=${STOCKFISH:-/usr/games/stockfish}
status=0

echo "== bench (one thread, depth 12, 16 MB)"
a=$("$FF" bench 2>/dev/null); b=$("$FF" bench 2>/dev/null)
na=$(sed -n 's/^Nodes searched: //p' <<<"$a"); nb=$(sed -n 's/^Nodes searched: //p' <<<"$b")
ff_nps=$(sed -n 's/^Nodes\/second: //p' <<<"$b")
echo "feelfish signature: $na and $nb $([ "$na" = "$nb" ] && echo '(reproducible)' || echo '(DIFFERENT)')"
[ "$na" = "$nb" ] || status=1
echo "feelfish nodes/second: $ff_nps"
hand_nps=$("$FF" bench --net none 2>/dev/null | sed -n 's/^Nodes\/second: //p')
awk -v a="$ff_nps" -v b="$hand_nps" 'BEGIN { if (b > 0) printf "the hand-written evaluation (--net none): %d nodes/second; the network %.2fx its speed\n", b, a / b }'
if [ -x "$SF" ]; then
    sf_nps=$("$SF" bench 16 1 "$([ -n "${BENCH_SMOKE:-}" ] && echo 6 || echo 13)" default depth 2>&1 |
        sed -n 's/^Nodes\/second *: *//p')
    echo "stockfish 15.1 bench nodes/second (NNUE): $sf_nps"
    awk -v a="$ff_nps" -v b="$sf_nps" 'BEGIN { if (b > 0) printf "nps ratio feelfish/stockfish: %.2f (different evaluations: nodes are not equal work)\n", a / b }'
fi

echo
SMP_DEPTH=$([ -n "${BENCH_SMOKE:-}" ] && echo 8 || echo 14)
echo "== Lazy SMP: time to depth $SMP_DEPTH on the bench positions"
t1=$("$FF" bench "$SMP_DEPTH" --threads 1 2>/dev/null | sed -n 's/^Total time (ms): //p')
t2=$("$FF" bench "$SMP_DEPTH" --threads 2 2>/dev/null | sed -n 's/^Total time (ms): //p')
[ -n "$t1" ] && [ -n "$t2" ] || status=1
echo "1 thread: ${t1} ms, 2 threads: ${t2} ms"
awk -v a="$t1" -v b="$t2" 'BEGIN { printf "speed-up: %.2fx (target >= 1.5)\n", a / b }'
exit $status
