#!/usr/bin/env bash
# Levels: what each rating plays like, measured. feelfish with UCI_LimitStrength at each rating of
# ELOS (default: the game levels 1-7, docs/levels.md) plays GAMES games (default 60, two at a time,
# openings.epd with both colours) against Stockfish 15.1 with UCI_LimitStrength at the nearest step of
# its UCI_Elo ladder (Stockfish 15.1's is 1350-2850, read from the engine: a step outside it meets its
# nearest end, since Stockfish ignores a value outside and plays at 1350). feelfish plays on TC
# (default 120+1.2: a rating's move ends at its node budget, about half a second at most, long before
# that clock would cut it, and is searched from nothing, so its clock changes nothing else; a shorter
# clock did cut the budgets in long games). Stockfish plays on SF_TC (default 15+0.15 at every step:
# its limited play picks its move at depth 1 + its skill level, 11 at 2300, but it thinks on to its
# clock and its next pick reads the hash table that deeper search filled, so its strength grows with
# its clock: at the step 2200 the same feelfish scored 75 % against it on 3+0.03 and 37 % on 15+0.15.
# Its ladder was calibrated at 60+0.6, which would take four times as long; 15+0.15 is one condition
# for every step, the longest affordable). Each line: the rating asked, the step, the score, and the
# measured rating = step + Elo difference with its 95 % interval, and the largest share of its clock
# feelfish used in one game (tests/bench/clock_use.py; near 100 %, the clock and not the budget set
# its moves in that game: lengthen TC and measure again). An entry RATING@STEP names the step;
# full@STEP is level 8 (full strength, FULL_MS a move, default 1500 as in a game; Stockfish then gets
# 1.5 s a move too: about 3.5 minutes a game, so `ELOS=full GAMES=30` takes about an hour; full alone
# meets the ladder's top). About 20-50 s a game (Stockfish's 15 s and feelfish's budget): 3-25
# minutes a rating on two cores. `make bench-levels`, or directly (FEELFISH=path for another binary,
# OUT for the PGNs and each match's output, SEED for other random openings than the default draw, the
# rating's own number or 8 for full: a second run adds independent games).
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-$(pwd)/feelfish}
SF=${STOCKFISH:-/usr/games/stockfish}
DATA=${FEELFISH_DATA:-../shared/data}
GAMES=${GAMES:-60}
TC=${TC:-120+1.2}
SF_TC=${SF_TC:-15+0.15}
OUT=${OUT:-build/levels}
ELOS=${ELOS:-"1200 1350 1500 1700 1900 2100 2300"}
FULL_MS=${FULL_MS:-1500}
mkdir -p "$OUT"
read -r LADDER_MIN LADDER_MAX < <(tests/bench/uci_elo_range.sh "$SF")
if [ -z "${LADDER_MAX:-}" ]; then echo "levels: $SF declares no UCI_Elo option"; exit 1; fi
printf '%-8s %-8s %-22s %-26s %s\n' asked step "won drawn lost, score" "measured rating" \
    "feelfish's clock, most used in a game"
for spec in $ELOS; do
    elo=${spec%@*} step=${spec#*@} # "1500@1700": 1500 against the step 1700
    [ "$step" = full ] && step=$LADDER_MAX # (level 8 alone: against the ladder's top)
    [ "$step" -lt "$LADDER_MIN" ] && step=$LADDER_MIN
    [ "$step" -gt "$LADDER_MAX" ] && step=$LADDER_MAX
    name="ff$elo-sf$step"
    rm -f "$OUT/$name.pgn"
    if [ "$elo" = full ]; then # level 8: full strength, both on the fixed time a move a game gives it
        clock="movetime=$FULL_MS" sf_clock="movetime=$FULL_MS" strength="" seed=${SEED:-8}
    else
        clock="tc=$TC" sf_clock="tc=$SF_TC" seed=${SEED:-$elo}
        strength="option.UCI_LimitStrength=true,option.UCI_Elo=$elo,"
    fi
    "$FF" match --engine "cmd=$FF,name=ff$elo,$clock,${strength}option.Hash=16" \
        --engine "cmd=$SF,name=sf$step,$sf_clock,option.UCI_LimitStrength=true,option.UCI_Elo=$step,option.Threads=1,option.Hash=16" \
        --games "$GAMES" --concurrency 2 --openings "$DATA/openings.epd" --random-openings "$seed" \
        --pgn "$OUT/$name.pgn" --quiet >"$OUT/$name.txt" 2>&1
    score=$(awk '/^Results of/ { print $4, $5, $6 ",", $8; exit }' "$OUT/$name.txt")
    use=$(python3 tests/bench/clock_use.py "$OUT/$name.pgn" "ff$elo")
    awk -v asked="$elo" -v step="$step" -v score="$score" -v use="$use" '/^Elo difference:/ {
            d = $3; m = $5
            if (d ~ /inf/) rating = "beyond the step (" d ")"
            else if (m ~ /inf/) rating = "no interval: too few games"
            else rating = sprintf("%.0f +/- %.0f", step + d, m)
            printf "%-8s %-8s %-22s %-26s %s\n", asked, step, score, rating, use }' "$OUT/$name.txt"
done
