#!/usr/bin/env python3
"""Win% calibration: what feelfish's centipawns mean, measured on its own games.

Lichess's Win% curve, 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1), was fitted to Stockfish's
centipawns. feelfish's search scores are on their own scale, so the same curve applied to them says
something else. This plays feelfish against itself (`feelfish datagen --scores`: fixed nodes per move,
a few random opening plies, a seed the tuning never used, so the positions are held out), keeps each
quiet position's search score and the game's result, and fits

    expected score for White = Win% / 100 of (100 * score / SCORE_PAWN)

by maximum likelihood, as Lichess's curve itself with its clamp at +-1000 cp: feelfish reports
reported = score * 100 / SCORE_PAWN (engine/search/search.h), SCORE_PAWN the whole number that makes
Lichess's curve of the reported cp most likely on these results, as Stockfish reports
`100 * v / NormalizeToPawnValue`. Then a reported +100 means what +100 means on Lichess's graph.

Prints the fit with its 95 % interval (a bootstrap over the games: positions of one game share its
result, so they are not independent; 1,000 games fit within about +-6), the SCORE_PAWN it implies beside
the one compiled in, a table per bucket (predicted vs observed score, raw and normalised), writes the
buckets' CSV and a calibration plot (gnuplot) to --out. docs/calibration.md shows a run.

    python3 tests/bench/calibrate.py [--games 1000] [--nodes 20000] [--seed 900] [--labels FILE...]
                                     [--bootstrap 200] [--out DIR] [--plot docs/calibration.png]
    python3 tests/bench/calibrate.py --human ../shared/data/pgn/Anand.pgn --games 400   (human games)"""
import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FF = os.path.join(ROOT, os.environ.get("FEELFISH", "feelfish"))
LICHESS_A = 0.00368208


def lichess_score(cp):
    cp = max(-1000, min(1000, cp))
    return 1 / (1 + math.exp(-LICHESS_A * cp))


def compiled_pawn():
    text = open(os.path.join(ROOT, "engine", "search", "search.h")).read()
    m = re.search(r"#define SCORE_PAWN (\d+)", text)
    return int(m.group(1)) if m else None


def read_games(path, min_ply):
    """The (score, result) pairs of a `datagen --scores` file from ply min_ply on, a list per game:
    datagen writes each game's positions together, so a game starts where the ply stops growing or
    the result changes."""
    games, last, last_result = [], None, None
    for line in open(path):
        if line.startswith("#"):
            continue
        parts = line.strip().split(";")
        if len(parts) < 3:
            continue
        fen, result, score = parts[0], float(parts[1]), int(parts[2])
        fields = fen.split()
        ply = (int(fields[5]) - 1) * 2 + (fields[1] == "b") if len(fields) >= 6 else 0
        if last is None or ply <= last or result != last_result:
            games.append([])
        last, last_result = ply, result
        if ply >= min_ply:
            games[-1].append((score, result))
    return [g for g in games if g]


def human_games(pgn, games, nodes, threads, out, min_ply):
    """The other calibration: feelfish's scores on the positions of human games (`feelfish annotate`,
    the review's own pipeline, at --nodes) against those games' results. Its evals are reported cp
    (White's view): back to engine units with the compiled SCORE_PAWN. Mate scores are left out."""
    js = os.path.join(out, "human.ndjson")
    cmd = [FF, "annotate", pgn, "--games", str(games), "--nodes", str(nodes), "--threads", str(threads),
           "--out", os.path.join(out, "human.pgn"), "--json", js]
    print("analysing: " + " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
    pawn, read = compiled_pawn(), []
    for line in open(js):
        g = json.loads(line)
        result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(g.get("result"))
        if result is None:
            continue
        read.append([(p["eval"] * pawn / 100, result) for p in g["analysis"] if "eval" in p and p["ply"] >= min_ply])
    return [g for g in read if g]


def merge(tallies):
    """The sum of tallies (score -> [positions, sum of results]): all the log loss needs, whatever the
    number of positions."""
    t = {}
    for part in tallies:
        for s, (k, wins) in part.items():
            e = t.setdefault(s, [0, 0.0])
            e[0] += k
            e[1] += wins
    return t


def game_tally(game):
    return merge({s: (1, r)} for s, r in game)


def tally(games):
    return merge(game_tally(g) for g in games)


def log_loss(pawn, t):
    """Mean log loss of Lichess's curve (with its clamp) on the scores reported with this SCORE_PAWN."""
    total, n = 0.0, 0
    for s, (k, wins) in t.items():
        p = min(max(lichess_score(s * 100 / pawn), 1e-9), 1 - 1e-9)
        total -= wins * math.log(p) + (k - wins) * math.log(1 - p)
        n += k
    return total / n


FIT_RANGE = (30, 160)


def fit(t):
    """The whole SCORE_PAWN that makes Lichess's curve (clamp included, as the review applies it)
    most likely on these results: the loss is smooth and one-humped in it, so a ternary search over
    the whole numbers of FIT_RANGE finds its least."""
    lo, hi = FIT_RANGE
    while hi - lo > 2:
        a, b = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        if log_loss(a, t) <= log_loss(b, t):
            hi = b
        else:
            lo = a
    return min(range(lo, hi + 1), key=lambda pawn: log_loss(pawn, t))


def interval(games, n, seed=1):
    """The 95 % interval of the fit over n resamplings of the games (with replacement)."""
    rng, per_game = random.Random(seed), [game_tally(g) for g in games]
    fits = [fit(merge(rng.choices(per_game, k=len(per_game)))) for _ in range(n)]
    fits.sort()
    return fits[int(0.025 * (n - 1))], fits[int(math.ceil(0.975 * (n - 1)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=900)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--min-ply", type=int, default=16)
    ap.add_argument("--min-positions", type=int, default=1000, help="fewer labelled positions: no fit")
    ap.add_argument("--labels", nargs="+", help="existing `feelfish datagen --scores` files instead of playing "
                    "(several are pooled: runs with other seeds)")
    ap.add_argument("--bootstrap", type=int, default=200, help="resamplings of the games for the fit's interval "
                    "(0: none)")
    ap.add_argument("--human", metavar="PGN", help="fit on the results of these human games instead of self-play "
                    "(their positions analysed at --nodes by annotate; --games of them)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "calibration"))
    ap.add_argument("--plot", help="also copy the plot here (docs/calibration.png)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.human:
        games = human_games(a.human, a.games, a.nodes, a.threads, a.out, a.min_ply)
    else:
        labels = a.labels
        if not labels:
            labels = [os.path.join(a.out, "selfplay.txt")]
            cmd = [FF, "datagen", "--games", str(a.games), "--nodes", str(a.nodes), "--seed", str(a.seed),
                   "--threads", str(a.threads), "--scores", "--out", labels[0]]
            print("playing: " + " ".join(cmd[1:]), flush=True)
            subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
        games = [g for path in labels for g in read_games(path, a.min_ply)]
    samples = [x for g in games for x in g]
    if len(samples) < a.min_positions:
        sys.exit("calibrate: only %d positions; play more games" % len(samples))
    wins = sum(r for _, r in samples) / len(samples)
    t = tally(games)
    pawn = fit(t)
    have = compiled_pawn()
    print("positions: %d of %d games (from ply %d), White's mean score %.3f" % (len(samples), len(games), a.min_ply,
                                                                               wins))
    print("fit: Lichess's curve 1 / (1 + exp(-%.8f * cp)), cp clamped to +-1000, on cp = 100 * score / SCORE_PAWN"
          % LICHESS_A)
    spread = ""
    if a.bootstrap > 0:
        lo, hi = interval(games, a.bootstrap)
        spread = ", 95 %% [%d, %d] over %d resamplings of the games" % (lo, hi, a.bootstrap)
    print("one pawn (reported 100 cp) = %d engine units (fit%s);  compiled in: SCORE_PAWN %s" % (pawn, spread, have))
    use = have or pawn

    def norm(s):
        return s * 100 / use

    print("log loss of Lichess's curve: on raw engine scores %.4f, on reported cp (SCORE_PAWN %d) %.4f, "
          "at the fit (%d) %.4f" % (log_loss(100, t), use, log_loss(use, t), pawn, log_loss(pawn, t)))
    edges = [-1000, -600, -400, -300, -200, -150, -100, -60, -30, -10, 10, 30, 60, 100, 150, 200, 300, 400, 600, 1000]
    rows = []
    print("\n%-14s %7s %9s %11s %11s" % ("reported cp", "n", "observed", "raw->Win%", "reported->Win%"))
    for lo, hi in zip(edges, edges[1:]):
        b = [(s, r) for s, r in samples if lo <= norm(s) < hi]
        if len(b) < 30:
            continue
        obs = sum(r for _, r in b) / len(b)
        raw = sum(lichess_score(s) for s, _ in b) / len(b)
        rep = sum(lichess_score(norm(s)) for s, _ in b) / len(b)
        mid = sum(norm(s) for s, _ in b) / len(b)
        rows.append((mid, obs, raw, rep, len(b)))
        print("[%5d,%5d)  %7d %9.3f %11.3f %11.3f" % (lo, hi, len(b), obs, raw, rep))
    if not rows:
        sys.exit("calibrate: no bucket holds 30 positions; use more games")
    worst_raw = max(abs(o - r) for _, o, r, _, _ in rows)
    worst_rep = max(abs(o - p) for _, o, _, p, _ in rows)
    print("\nlargest bucket gap |observed - predicted|: raw scores %.3f, reported cp %.3f" % (worst_raw, worst_rep))
    csv = os.path.join(a.out, "calibration.csv")
    with open(csv, "w") as f:
        for mid, obs, raw, rep, n in rows:
            f.write("%.1f %.4f %.4f %.4f %d\n" % (mid, obs, raw, rep, n))
    png = os.path.join(a.out, "calibration.png")
    script = """set terminal pngcairo size 900,600 font ",11" noenhanced
set output "%s"
set title "Win%%: predicted vs observed (%s, %d held-out positions)"
set xlabel "mean reported centipawns in the bucket (White's view)"
set ylabel "White's score"
set key left top
set grid
set yrange [0:1]
plot "%s" using 1:2 with points pt 7 ps 1.3 title "observed score", \\
     "%s" using 1:4 with linespoints title "Lichess's Win%% of the reported cp (SCORE_PAWN %d)", \\
     "%s" using 1:3 with linespoints dt 2 title "Lichess's Win%% of the raw engine score"
""" % (png, "human games of " + os.path.basename(a.human) if a.human else "feelfish self-play", len(samples), csv, csv, use, csv)
    if not shutil.which("gnuplot"):
        print("plot: gnuplot is not installed, no chart (make deps-bench installs it)")
        return 0
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode == 0:
        print("plot: " + png)
        if a.plot:
            subprocess.run(["cp", png, a.plot], check=True)
    else:
        print("plot: gnuplot failed: " + r.stderr.strip()[:200])
    return 0


if __name__ == "__main__":
    sys.exit(main())
