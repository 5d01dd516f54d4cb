#!/usr/bin/env python3
"""The scale of network B against network A: both evaluate the same positions (UCI `eval`, the
network's line: side to move, engine units), and this prints the least-squares slope of B on A
(through 0) over the positions A scores within +-LIMIT units, and mean |B| / mean |A|. A slope near 1
means the Win% calibration (docs/calibration.md) still holds for B; otherwise calibrate.py again.

    tests/bench/net_scale.py NET_A NET_B POSITIONS [LIMIT]
    POSITIONS: lines with a FEN first (";" after it), e.g. self-play positions from
    ./feelfish datagen --games 60 --nodes 3000 --seed 77 --random-plies 8 --scores --out pos.txt
    (FEELFISH: the binary, ./feelfish by default; NET_A, NET_B: files, "embedded" or "none")"""
import os
import re
import subprocess
import sys

if len(sys.argv) < 4:
    sys.exit(__doc__)
ff = os.environ.get("FEELFISH", "./feelfish")
net_a, net_b, path = sys.argv[1:4]
limit = int(sys.argv[4]) if len(sys.argv) > 4 else 400
fens = [line.split(";")[0] for line in open(path) if line.strip() and not line.startswith("#")]


def evals(net):
    cmds = ["uci", "setoption name EvalFile value " + net, "isready"]
    for f in fens:
        cmds += ["position fen " + f, "eval"]
    cmds.append("quit")
    out = subprocess.run([ff], input="\n".join(cmds) + "\n", capture_output=True, text=True).stdout
    return [int(m.group(1)) for m in re.finditer(r"^network\s+(-?\d+) \(side to move", out, re.M)]


a, b = evals(net_a), evals(net_b)
if not (len(a) == len(b) == len(fens)):
    sys.exit("net_scale: %d positions but %d and %d network lines (is each a network?)" % (len(fens), len(a), len(b)))
pairs = [(x, y) for x, y in zip(a, b) if abs(x) <= limit]
slope = sum(x * y for x, y in pairs) / sum(x * x for x, _ in pairs)
ma = sum(abs(x) for x, _ in pairs) / len(pairs)
mb = sum(abs(y) for _, y in pairs) / len(pairs)
print("%d positions (%d within +-%d of A): slope of B on A %.3f, mean |B| / mean |A| %.3f"
      % (len(fens), len(pairs), limit, slope, mb / ma))
