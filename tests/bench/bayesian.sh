#!/usr/bin/env bash
# The BayesChess paper's two experiments (shared/spec/bayesian.md section 7), reproduced; not part
# of make test. Learns GAMES self-play games (default 400) into OUT/learn.db (resumable), then for
# growing prefixes of that database plays the learned evaluator against the fixed default
# (MATCH games per size) and evaluates a knight-and-two-pawns-up position. Both record sets are
# measured: the spec's (the default side's records counted too) and the perturbed side's alone.
# Prints the tables; writes OUT/curve-*.csv and the chart OUT/bayes-curve.png (gnuplot).
set -eu
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-$(pwd)/feelfish}
OUT=${OUT:-build/bayes}
GAMES=${GAMES:-400}
MATCH=${MATCH:-60}
NODES=${NODES:-20000}
SIZES=${SIZES:-0,25,50,100,200,400}
CONC=${CONCURRENCY:-2}
mkdir -p "$OUT"
if [ -z "${CHART_ONLY:-}" ]; then # CHART_ONLY=1 redraws the chart from the CSV files
    echo "== learning: $GAMES self-play games at $NODES nodes a move"
    "$FF" learn --games "$GAMES" --nodes "$NODES" --concurrency "$CONC" --db "$OUT/learn.db"
    for records in all perturbed; do
        echo; echo "== learning curve and convergence ($records records)"
        "$FF" bayes-experiment --db "$OUT/learn.db" --sizes "$SIZES" --games "$MATCH" --nodes "$NODES" \
            --concurrency "$CONC" --records "$records" --csv "$OUT/curve-$records.csv"
    done
fi
if command -v gnuplot >/dev/null; then
    gnuplot <<GP
set terminal pngcairo size 1000,420 font "sans,10"
set output "$OUT/bayes-curve.png"
set datafile separator ","
set multiplot layout 1,2
set title "Learned vs default: score of the learned side ($MATCH games per point, 95% error bars)"
set xlabel "self-play games learned"; set ylabel "score %"; set yrange [0:100]; set grid
set xrange [-15:*]; set offsets 0, graph 0.05, 0, 0
set key top right
plot 50 with lines dt 2 lc rgb "gray" title "even", \
     "$OUT/curve-all.csv" every ::1 using 1:(\$5*100):(\$6*100) with yerrorlines lw 2 title "spec's records (both sides)", \
     "$OUT/curve-perturbed.csv" every ::1 using (\$1+4):(\$5*100):(\$6*100) with yerrorlines lw 2 title "perturbed side's records"
set title "Evaluation of a knight-and-two-pawns-up position (cp)"
set ylabel "centipawns"; set yrange [200:600]
plot 500 with lines dt 2 lc rgb "gray" title "500 (paper)", \
     "$OUT/curve-all.csv" every ::1 using 1:9 with linespoints title "spec's records, aggressive", \
     "$OUT/curve-all.csv" every ::1 using 1:10 with linespoints title "spec's records, conservative", \
     "$OUT/curve-perturbed.csv" every ::1 using 1:9 with linespoints title "perturbed records, aggressive", \
     "$OUT/curve-perturbed.csv" every ::1 using 1:10 with linespoints title "perturbed records, conservative"
unset multiplot
GP
    echo; echo "chart: $OUT/bayes-curve.png"
else
    echo "gnuplot is not installed: no chart (apt-get install gnuplot-nox)"
fi
