#!/usr/bin/env bash
# Prints "MIN MAX" of a UCI engine's UCI_Elo option (Stockfish 15.1: "1350 2850"), nothing when it
# declares none. strength.sh and levels.sh keep their Stockfish steps inside it: an engine ignores a
# value outside its range (Stockfish 15.1 asked 3190 plays at its default 1350).
# Usage: uci_elo_range.sh ENGINE
printf 'uci\nquit\n' | "$1" 2>/dev/null | awk '/^option name UCI_Elo / {
    for (i = 1; i < NF; i++) { if ($i == "min") lo = $(i + 1); if ($i == "max") hi = $(i + 1) } }
    END { if (hi != "") print lo, hi }'
