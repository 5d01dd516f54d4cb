#!/usr/bin/env bash
# A UCI engine for the match tests: Stockfish (run as a coprocess) until the Nth "go" after its
# start, then it fails on purpose. Usage: faulty.sh MODE [N]; MODE is one of
#   crash    exit with code 3          illegal  answer "bestmove a2a5" (never a legal move)
#   hang     never answer "go"         null     answer "bestmove 0000"
#   log      never fails: appends every "go" line it is sent to the file N
set -u
mode=${1:?usage: faulty.sh crash|illegal|hang|null|log [N]}
after=${2:-0}
coproc SF { exec "${STOCKFISH:-/usr/games/stockfish}"; }
exec 3<&"${SF[0]}" 4>&"${SF[1]}"
cat <&3 &
gos=0
while IFS= read -r line; do
    case $line in
    go*)
        gos=$((gos + 1))
        [ "$mode" = log ] && echo "$line" >>"$after"
        if [ "$mode" != log ] && [ "$gos" -gt "$after" ]; then
            case $mode in
            crash) exit 3 ;;
            illegal) echo "bestmove a2a5"; continue ;;
            hang) continue ;;
            null) echo "bestmove 0000"; continue ;;
            esac
        fi
        ;;
    quit)
        echo quit >&4
        exit 0
        ;;
    esac
    echo "$line" >&4
done
