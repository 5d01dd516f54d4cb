#!/usr/bin/env bash
# WAC (Win at Chess, 299 scored positions) at 1 s per position, one thread, feelfish and Stockfish
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

"$FF" epd "$DATA/epd/wac.epd" --movetime "$MS" --threads 1 --hash 64 >"$TMP/ff.txt" &
"$FF" epd "$DATA/epd/wac.epd" --movetime "$MS" --threads 1 --hash 64 --engine "cmd=$SF" >"$TMP/sf.txt" &
wait
ff=$(tail -1 "$TMP/ff.txt"); sf=$(tail -1 "$TMP/sf.txt")
echo "feelfish misses:"; grep '^miss' "$TMP/ff.txt" | sed 's/^/  /'
echo "stockfish misses:"; grep '^miss' "$TMP/sf.txt" | sed 's/^/  /'
echo "WAC at ${MS} ms/position, 1 thread: feelfish $ff, stockfish 15.1 $sf"
f=$(sed 's/solved \([0-9]*\).*/\1/' <<<"$ff"); s=$(sed 's/solved \([0-9]*\).*/\1/' <<<"$sf")
[ "$f" -ge "$s" ] && echo "target met: feelfish >= stockfish" || echo "target missed by $((s - f))"
