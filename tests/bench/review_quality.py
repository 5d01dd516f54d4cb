#!/usr/bin/env python3
"""Whole-game analysis against a reference: the same games of ../shared/data/pgn analysed by feelfish
and by Stockfish (/usr/games/stockfish over UCI) through the same pipeline (`feelfish annotate
--engine`), the same nodes per position. Prints, per issue #16:
  - the per-player accuracy correlation (goal >= 0.85),
  - the share of Stockfish's blunders that feelfish calls a mistake or blunder (goal >= 80 %),
  - the share of feelfish's blunders that Stockfish calls no error (goal <= 10 %),
  feelfish as it reviews (a second look, four times deeper, at the positions around each move its first
  searches judge a blunder) and with one search a position as Lichess (--no-second-look); Stockfish, the
  reference, always as Lichess runs it: one search a position,
  - the same three for Stockfish at --nodes against Stockfish at --ceiling-nodes (ten times more),
    the ceiling any engine can reach on this measure, and for feelfish against that deeper reference,
  - speed: one 40-move game at --speed-nodes per position with 2 workers, feelfish beside Stockfish.
Targets are printed, not asserted (shared machines are noisy; the numbers are the product).

    python3 tests/bench/review_quality.py [--games 20] [--nodes 200000] [--speed-nodes 1000000]
        [--ceiling-nodes 2000000]"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FF = os.path.join(ROOT, os.environ.get("FEELFISH", "feelfish"))
DATA = os.environ.get("FEELFISH_DATA", os.path.join(ROOT, "..", "shared", "data"))
SF = os.environ.get("STOCKFISH", "/usr/games/stockfish")


def annotate(pgn, games, nodes, engine, out_dir, tag, threads=2, db=None, second_look=True):
    js = os.path.join(out_dir, tag + ".ndjson")
    cmd = [FF, "annotate", pgn, "--games", str(games), "--nodes", str(nodes), "--threads", str(threads),
           "--out", os.path.join(out_dir, tag + ".pgn"), "--json", js]
    if not second_look:
        cmd.append("--no-second-look")
    if engine:
        cmd += ["--engine", engine]
    if db:
        cmd += ["--db", db]
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    secs = time.monotonic() - t0
    if r.returncode:
        sys.exit("annotate failed (%s): %s" % (tag, r.stderr[-800:]))
    return [json.loads(x) for x in open(js)], secs


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    return sxy / (sx * sy) if sx and sy else float("nan")


def mean_accuracy(games):
    xs = [g["players"][side]["accuracy"] for g in games for side in ("white", "black") if "accuracy" in g["players"][side]]
    return sum(xs) / len(xs) if xs else float("nan")


def agreement(name, test, ref_name, ref):
    """The three figures of the issue for `test` judged against `ref` (the same games, ply by ply)."""
    xs, ys = [], []
    ref_blunders = caught = blunders = false = 0
    for g_t, g_r in zip(test, ref):
        for side in ("white", "black"):
            pt, pr = g_t["players"][side], g_r["players"][side]
            if "accuracy" in pt and "accuracy" in pr:
                xs.append(pt["accuracy"])
                ys.append(pr["accuracy"])
        for p_t, p_r in zip(g_t["analysis"], g_r["analysis"]):
            j_t = p_t.get("judgment", {}).get("name")
            j_r = p_r.get("judgment", {}).get("name")
            if j_r == "Blunder":
                ref_blunders += 1
                caught += j_t in ("Mistake", "Blunder")
            if j_t == "Blunder":
                blunders += 1
                false += j_r is None
    pct = lambda a, b: 100.0 * a / b if b else float("nan")
    print("  per-player accuracy correlation: %.3f over %d players (goal >= 0.85)" % (pearson(xs, ys), len(xs)))
    print("  %s's blunders %s calls a mistake or blunder: %d of %d = %.0f %% (goal >= 80 %%)"
          % (ref_name, name, caught, ref_blunders, pct(caught, ref_blunders)))
    print("  %s's blunders %s calls no error: %d of %d = %.0f %% (goal <= 10 %%)"
          % (name, ref_name, false, blunders, pct(false, blunders)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=200000)
    ap.add_argument("--speed-nodes", type=int, default=1000000)
    ap.add_argument("--ceiling-nodes", type=int, default=2000000,
                    help="Stockfish at this many nodes judges Stockfish at --nodes too: the ceiling (0: skip)")
    ap.add_argument("--pgn", default=os.path.join(DATA, "pgn", "Kasparov.pgn"))
    ap.add_argument("--speed-only", action="store_true", help="only the speed part (its game: --speed-game)")
    ap.add_argument("--speed-game", type=int, default=0, help="with --speed-only: the game's index in --pgn")
    a = ap.parse_args()
    if not os.access(SF, os.X_OK):
        print("review-quality: Stockfish not found at %s" % SF)
        return 1
    tmp = tempfile.mkdtemp(prefix="feelfish-review-quality-")
    if a.speed_only:
        return speed(a, tmp, a.speed_game)
    ff, t_ff = annotate(a.pgn, a.games, a.nodes, None, tmp, "feelfish")
    one, t_one = annotate(a.pgn, a.games, a.nodes, None, tmp, "feelfish-one", second_look=False)
    sf, t_sf = annotate(a.pgn, a.games, a.nodes, "cmd=" + SF, tmp, "stockfish", second_look=False)
    plies = sum(len(g["analysis"]) for g in ff)
    print("review quality: %d games (%d plies) of %s at %d nodes per position, 2 workers each"
          % (len(ff), plies, os.path.basename(a.pgn), a.nodes))
    print("  time: feelfish %.1f s (one search a position: %.1f s), Stockfish %.1f s" % (t_ff, t_one, t_sf))
    agreement("feelfish", ff, "Stockfish", sf)
    print("feelfish with one search a position (--no-second-look, as Lichess):")
    agreement("feelfish", one, "Stockfish", sf)
    print("  mean accuracy: feelfish %.1f, Stockfish %.1f" % (mean_accuracy(ff), mean_accuracy(sf)))
    # The centipawn scales side by side (docs/calibration.md): Stockfish's cp against feelfish's on
    # the same positions, both within +-500 and neither a mate; the least-squares slope through 0.
    pairs = [(p_ff["eval"], p_sf["eval"]) for g_ff, g_sf in zip(ff, sf) for p_ff, p_sf in zip(g_ff["analysis"], g_sf["analysis"])
             if "eval" in p_ff and "eval" in p_sf and abs(p_ff["eval"]) <= 500 and abs(p_sf["eval"]) <= 500]
    if pairs:
        slope = sum(x * y for x, y in pairs) / max(1, sum(x * x for x, _ in pairs))
        print("  centipawn scales: Stockfish cp = %.2f x feelfish cp (least squares through 0, %d positions "
              "within +-500), correlation %.3f" % (slope, len(pairs), pearson([x for x, _ in pairs], [y for _, y in pairs])))
    if a.ceiling_nodes:
        # The ceiling: how far Stockfish itself at --nodes agrees with Stockfish at ten times more.
        deep, t_deep = annotate(a.pgn, a.games, a.ceiling_nodes, "cmd=" + SF, tmp, "stockfish-deep", second_look=False)
        print("the ceiling: Stockfish at %d nodes against Stockfish at %d (%.1f s)" % (a.nodes, a.ceiling_nodes, t_deep))
        agreement("Stockfish %d" % a.nodes, sf, "Stockfish %d" % a.ceiling_nodes, deep)
        print("and feelfish at %d nodes against Stockfish at %d:" % (a.nodes, a.ceiling_nodes))
        agreement("feelfish", ff, "Stockfish %d" % a.ceiling_nodes, deep)

    # Speed: the first game of at least 80 plies, at speed-nodes per position, 2 workers.
    return speed(a, tmp, next((i for i, g in enumerate(ff) if len(g["analysis"]) >= 80), 0))


def speed(a, tmp, long_game):
    """One game at --speed-nodes per position, 2 workers, feelfish then Stockfish; then feelfish again
    on the evaluation cache the first run filled (annotate --db, the server's cache)."""
    sub = os.path.join(tmp, "one.pgn")
    with open(a.pgn, errors="replace") as f:
        text = f.read()
    import re
    games = re.split(r"\n(?=\[Event )", text)
    with open(sub, "w") as f:
        f.write(games[long_game] + "\n")
    db = os.path.join(tmp, "cache.db")
    one_ff, s_ff = annotate(sub, 1, a.speed_nodes, None, tmp, "speed-ff", db=db)
    one_sf, s_sf = annotate(sub, 1, a.speed_nodes, "cmd=" + SF, tmp, "speed-sf", second_look=False)
    again, s_again = annotate(sub, 1, a.speed_nodes, None, tmp, "speed-cached", db=db)
    n = len(one_ff[0]["analysis"])
    print("  speed: a %d-ply game at %d nodes per position, 2 workers: feelfish %.1f s, Stockfish %.1f s "
          "(ratio %.2f); feelfish again from the evaluation cache: %.2f s (%s)"
          % (n, a.speed_nodes, s_ff, s_sf, s_ff / s_sf if s_sf else float("nan"), s_again,
             "same result" if again == one_ff else "DIFFERENT result"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
