#!/bin/sh
# The learned evaluation's training curve: `feelfish train --log CSV`'s losses per epoch (training and
# held-out validation) as a PNG, with gnuplot (make deps-bench installs it).
#   tests/bench/plot_loss.sh data/nnue/gen1.csv docs/nnue-loss.png ["title"]
set -e
csv=$1 png=$2 title=${3:-$(basename "$csv" .csv)}
[ -f "$csv" ] && [ -n "$png" ] || { echo "usage: $0 LOG.csv OUT.png [TITLE]" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot_loss: gnuplot is missing (make deps-bench)" >&2; exit 1; }
gnuplot <<PLOT
set terminal pngcairo size 900,520 font ",11" noenhanced
set output "$png"
set datafile separator ","
set title "feelfish train: $title"
set xlabel "epoch"
set ylabel "mean squared error (Win% scale)"
set key top right
set grid
plot "$csv" every ::1 using 1:2 with linespoints title "training", \
     "$csv" every ::1 using 1:3 with linespoints title "validation (held out)"
PLOT
echo "plot: $png"
