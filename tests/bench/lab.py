#!/usr/bin/env python3
"""The search lab at full depth: minimax, alpha-beta, SCOUT, NegaScout, SSS* and MTD(f) on the same
fixed-depth tree (`feelfish analyse --algorithm all`), on the 50 positions the unit test uses (the
first 20 of openings.epd and the first 30 of perft/random.epd), at every depth 1..--depth (5).
Checks that the six agree on each value (a disagreement is a failure: exit 1) and prints, per depth,
the nodes and leaves each algorithm visited, summed over the positions, beside minimax's.
make test runs depths 1-4 in the unit test (tests/unit/search/test_search.c) and this script at
depth 3 (bench smoke); depth 5 costs minimax ~10^7-10^8 leaves a position, so it lives here.

    python3 tests/bench/lab.py [--depth 5] [--positions 50] [--jobs nproc]"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FF = os.path.join(ROOT, os.environ.get("FEELFISH", "feelfish"))
DATA = os.environ.get("FEELFISH_DATA", os.path.join(ROOT, "..", "shared", "data"))
ORDER = ["minimax", "alphabeta", "scout", "negascout", "sss", "mtdf"]


def read_fens(relative, count):
    fens = []
    with open(os.path.join(DATA, relative)) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 4:
                fens.append(" ".join(fields[:4]) + " 0 1")
            if len(fens) == count:
                break
    return fens


def run_lab(fen, depth):
    out = subprocess.run([FF, "analyse", "--algorithm", "all", "--depth", str(depth), "--fen", fen],
                         capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        raise RuntimeError(f"{fen} depth {depth}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)["algorithms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--positions", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    fens = read_fens("openings.epd", min(20, a.positions))
    fens += read_fens("perft/random.epd", a.positions - len(fens))
    print(f"lab: {len(fens)} positions, depths 1-{a.depth}, {a.jobs} at a time ({FF})")
    print("         " + "".join(f"{n:>23}" for n in ORDER) + "   (each beside minimax's)")
    disagreements = 0
    for depth in range(1, a.depth + 1):
        t0 = time.monotonic()
        nodes = {name: 0 for name in ORDER}
        leaves = {name: 0 for name in ORDER}
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for fen, algos in zip(fens, pool.map(lambda f: run_lab(f, depth), fens)):
                if [x["algorithm"] for x in algos] != ORDER or not all(x["complete"] for x in algos):
                    print(f"  {fen} depth {depth}: unexpected answer {algos}")
                    disagreements += 1
                    continue
                values = {x["algorithm"]: x["value"] for x in algos}
                if len(set(values.values())) != 1:
                    print(f"  DISAGREE {fen} depth {depth}: {values}")
                    disagreements += 1
                for x in algos:
                    nodes[x["algorithm"]] += x["nodes"]
                    leaves[x["algorithm"]] += x["leaves"]
        for what, counts in (("nodes", nodes), ("leaves", leaves)):
            cells = "".join(f"{counts[n]:>15,} {counts[n] / counts['minimax']:7.2%}" for n in ORDER)
            print(f"d{depth} {what:<6}{cells}" + (f"  [{time.monotonic() - t0:.0f} s]" if what == "nodes" else ""))
    verdict = "all six agree" if disagreements == 0 else f"{disagreements} disagreements"
    print(f"lab: depths 1-{a.depth} on {len(fens)} positions: {verdict}")
    return 0 if disagreements == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
