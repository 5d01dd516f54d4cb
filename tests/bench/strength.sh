#!/usr/bin/env bash
# Strength: feelfish against Stockfish 15.1 limited to UCI_Elo 2000, 2400 and 2850 at 10 s + 0.1 s
# (GAMES per level, default 100, two games at a time), then a rating estimate from each level:
# rating = UCI_Elo + Elo difference, and their average weighted by the inverse variance.
# Long: about 35 s a game pair... run it as `make bench-strength` or directly. PGNs in $OUT.
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-$(pwd)/feelfish}
SF=${STOCKFISH:-/usr/games/stockfish}
DATA=${FEELFISH_DATA:-../shared/data}
GAMES=${GAMES:-100}
TC=${TC:-10+0.1}
OUT=${OUT:-build/strength}
LEVELS=${LEVELS:-"2000 2400 2850"}
mkdir -p "$OUT"
summary=""
for elo in $LEVELS; do
    rm -f "$OUT/sf$elo.pgn"
    "$FF" match --engine "cmd=$FF,name=feelfish,option.Hash=64" \
        --engine "cmd=$SF,name=sf$elo,option.UCI_LimitStrength=true,option.UCI_Elo=$elo,option.Threads=1,option.Hash=64" \
        --tc "$TC" --games "$GAMES" --concurrency 2 --openings "$DATA/openings.epd" --pgn "$OUT/sf$elo.pgn" \
        --quiet >"$OUT/sf$elo.txt" 2>/dev/null
    cat "$OUT/sf$elo.txt"
    line=$(grep '^Elo difference:' "$OUT/sf$elo.txt")
    summary+="$elo $line"$'\n'
done
echo
echo "== estimated rating (Stockfish UCI_Elo scale, $TC)"
awk 'NF >= 6 { d = $4; m = $6; if (d ~ /inf/ || m ~ /inf/) { printf "vs %s: difference %s, no finite estimate\n", $1, d; next }
       r = $1 + d; printf "vs %s: %+.0f +/- %.0f -> %.0f\n", $1, d, m, r; w = 1 / (m * m); sw += w; sr += w * r }
     END { if (sw > 0) printf "weighted estimate: %.0f +/- %.0f\n", sr / sw, 1 / sqrt(sw) }' <<<"$summary"
