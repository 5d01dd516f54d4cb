#!/usr/bin/env bash
# WAC (Win at Chess, 299 scored positions), then Bratko-Kopec (24) and Kaufman (25) at 1 s per
# position, one thread, feelfish and Stockfish
# 15.1 under the same conditions in the same run (each on its own core, side by side), through the
# same runner (`feelfish epd`, with --engine for Stockfish). Target: feelfish solves at least as many.
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-./feelfish}
SF=${STOCKFISH:-/usr/games/stockfish}
DATA=${FEELFISH_DATA:-../shared/data}
MS=${WAC_MOVETIME:-1000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# SUITES: the files of $DATA/epd to run, each scored separately (WAC first: the others are small).
status=0
for suite in ${SUITES:-wac bratko-kopec kaufman}; do
    "$FF" epd "$DATA/epd/$suite.epd" --movetime "$MS" --threads 1 --hash 64 >"$TMP/ff.txt" &
    "$FF" epd "$DATA/epd/$suite.epd" --movetime "$MS" --threads 1 --hash 64 --engine "cmd=$SF" >"$TMP/sf.txt" &
    wait
    ff=$(tail -1 "$TMP/ff.txt"); sf=$(tail -1 "$TMP/sf.txt")
    echo "== $suite: feelfish misses:"; grep '^miss' "$TMP/ff.txt" | sed 's/^/  /'
    echo "stockfish misses:"; grep '^miss' "$TMP/sf.txt" | sed 's/^/  /'
    f=$(sed -n 's/^solved \([0-9]*\).*/\1/p' <<<"$ff"); s=$(sed -n 's/^solved \([0-9]*\).*/\1/p' <<<"$sf")
    [ -n "$f" ] && [ -n "$s" ] || { echo "$suite: no score (feelfish '$ff', stockfish '$sf')"; status=1; continue; }
    name=$([ "$suite" = wac ] && echo WAC || echo "$suite")
    echo "$name at ${MS} ms/position, 1 thread: feelfish $ff, stockfish 15.1 $sf"
    [ "$f" -ge "$s" ] && echo "target met: feelfish >= stockfish" || echo "target missed by $((s - f))"
done
exit $status
