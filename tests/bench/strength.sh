#!/usr/bin/env bash
# Strength: feelfish against Stockfish 15.1 limited to UCI_Elo 2600 and 2850 (LEVELS; 15.1's UCI_Elo goes
# from 1350 to 2850, read from the engine: a step outside it is left out with a line saying so, since
# Stockfish would ignore the value and play at 1350; 3190 is a step of Stockfish 16's ladder) and against
# Ethereal 12 (Debian's ethereal-chess: a strong hand-written evaluation; ETHEREAL=none leaves it out)
# at 10 s + 0.1 s (TC), GAMES per opponent (default 100, two games at a time, the openings of
# openings.epd with both colours), then a rating estimate from the Stockfish levels:
# rating = UCI_Elo + Elo difference, and their average weighted by the inverse variance.
# Long: about 35 s a game pair, ~30 min an opponent on two cores. Run it as `make bench-strength` or
# directly (FEELFISH=path to test another binary). PGNs and each match's output in $OUT. RESUME=1 goes
# on with the games already in $OUT's PGNs (a run stopped at any point; same settings) instead of
# starting again. SEED=N plays the openings in an order drawn with that seed (--random-openings) instead
# of the file's, so a second run meets other openings (GAMES=100 uses 50 of the file's 300).
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-$(pwd)/feelfish}
SF=${STOCKFISH:-/usr/games/stockfish}
ETHEREAL=${ETHEREAL:-/usr/games/ethereal-chess}
DATA=${FEELFISH_DATA:-../shared/data}
GAMES=${GAMES:-100}
TC=${TC:-10+0.1}
OUT=${OUT:-build/strength}
LEVELS=${LEVELS-"2600 2850"} # LEVELS="": Ethereal alone
order=()
[ -n "${SEED:-}" ] && order=(--random-openings "$SEED")
mkdir -p "$OUT"
read -r LADDER_MIN LADDER_MAX < <(tests/bench/uci_elo_range.sh "$SF")
summary=""
play() { # NAME ENGINE-SPEC: GAMES games of feelfish against it
    local resume=()
    if [ "${RESUME:-0}" = 1 ]; then resume=(--resume); else rm -f "$OUT/$1.pgn"; fi
    "$FF" match --engine "cmd=$FF,name=feelfish,option.Hash=64" --engine "$2" \
        --tc "$TC" --games "$GAMES" --concurrency 2 --openings "$DATA/openings.epd" --pgn "$OUT/$1.pgn" \
        "${order[@]}" "${resume[@]}" --quiet >"$OUT/$1.txt" 2>"$OUT/$1.err"
    echo "== feelfish vs $1 ($TC, $GAMES games)"
    [ -s "$OUT/$1.err" ] && cat "$OUT/$1.err"
    cat "$OUT/$1.txt"
}
for elo in $LEVELS; do
    if [ -z "${LADDER_MAX:-}" ] || [ "$elo" -lt "$LADDER_MIN" ] || [ "$elo" -gt "$LADDER_MAX" ]; then
        echo "== feelfish vs sf$elo: left out, outside $SF's UCI_Elo range (${LADDER_MIN:-?}-${LADDER_MAX:-?})"
        continue
    fi
    play "sf$elo" "cmd=$SF,name=sf$elo,option.UCI_LimitStrength=true,option.UCI_Elo=$elo,option.Threads=1,option.Hash=64"
    line=$(grep '^Elo difference:' "$OUT/sf$elo.txt")
    summary+="$elo $line"$'\n'
done
if [ "$ETHEREAL" != none ]; then
    if [ -x "$ETHEREAL" ]; then
        play ethereal "cmd=$ETHEREAL,name=ethereal12,option.Threads=1,option.Hash=64"
    else
        echo "== Ethereal: $ETHEREAL is not installed (make deps-bench installs ethereal-chess)"
    fi
fi
echo
echo "== estimated rating (Stockfish UCI_Elo scale, $TC)"
awk 'NF >= 6 { d = $4; m = $6; if (d ~ /inf/ || m ~ /inf/) { printf "vs %s: difference %s, no finite estimate\n", $1, d; next }
       r = $1 + d; printf "vs %s: %+.0f +/- %.0f -> %.0f\n", $1, d, m, r; w = 1 / (m * m); sw += w; sr += w * r }
     END { if (sw > 0) printf "weighted estimate: %.0f +/- %.0f\n", sr / sw, 1 / sqrt(sw) }' <<<"$summary"
