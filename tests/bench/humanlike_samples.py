#!/usr/bin/env python3
"""Reads the positions `feelfish humanlike --samples FILE` wrote (FEN;emotion;goal;human's move;each mode's
move) and prints, for docs/affective.md:
  - each later mode's paired matching difference from the first mode (points, 95 % McNemar half-width) by
    emotion and by the goal the neutral appraisal picks, over all positions and over the even and odd ones
    (a split that shows how much a cell moves by chance),
  - per emotion, how often the human's move and each mode's move is a capture, an even trade (a piece taken
    by a piece of the same value, pawns aside), a pawn move, a forward or backward move, a king move,
    castling, a queen, minor-piece or rook move.

    python3 tests/bench/humanlike_samples.py FILE MODE,MODE,...   (the names of the --modes, in order)"""
import collections
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from fen import squares  # noqa: E402

VALUE = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 0}
TRAITS = ["capture", "even trade", "pawn", "forward", "backward", "king", "castle", "queen", "minor", "rook"]
Z95 = 1.959964  # as humanlike prints them


def traits(board, side, move):
    """The kinds of a UCI move on a board of squares(); none for a move that is not there ("0000")."""
    piece = board.get(move[:2], "").lower()
    if not piece or len(move) < 4:
        return {}
    taken = board.get(move[2:4])
    if taken and taken.isupper() == board[move[:2]].isupper():
        taken = None  # castling written king-takes-rook
    files = abs(ord(move[2]) - ord(move[0]))
    ahead = (int(move[3]) - int(move[1])) * (1 if side == "w" else -1)
    return {
        "capture": bool(taken) or (piece == "p" and files > 0),
        "even trade": bool(taken) and taken.lower() != "p" and VALUE[taken.lower()] == VALUE[piece],
        "pawn": piece == "p", "forward": ahead > 0, "backward": ahead < 0, "king": piece == "k",
        "castle": piece == "k" and files >= 2, "queen": piece == "q", "minor": piece in "nb", "rook": piece == "r",
    }


def paired(rows, names, title):
    print(title)
    groups = collections.defaultdict(list)
    for r in rows:
        for key in ((r[1], r[2]), (r[1], "*"), ("*", "*")):
            groups[key].append(r)
    for key in sorted(groups):
        g = groups[key]
        n = len(g)
        line = "  %-8s %-15s n=%-6d %s %5.1f%%" % (key[0], key[1], n, names[0], 100 * sum(r[4] == r[3] for r in g) / n)
        for m in range(1, len(names)):
            gain = sum(r[4 + m] == r[3] != r[4] for r in g)
            loss = sum(r[4] == r[3] != r[4 + m] for r in g)
            line += "  %s %+5.1f +/- %.1f" % (names[m], 100 * (gain - loss) / n, 100 * Z95 * math.sqrt(gain + loss) / n)
        print(line)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    names = sys.argv[2].split(",")
    with open(sys.argv[1]) as f:
        rows = [line.rstrip("\n").split(";") for line in f if line.strip()]
    if any(len(r) != 4 + len(names) for r in rows):
        sys.exit("humanlike_samples: %d modes named, but the lines have another number of moves" % len(names))
    paired(rows, names, "matching vs %s, paired, by emotion and goal: all positions" % names[0])
    paired(rows[0::2], names, "the even positions")
    paired(rows[1::2], names, "the odd positions")
    counts = collections.defaultdict(collections.Counter)  # (emotion, column: 0 the human, m + 1 mode m)
    n = collections.Counter()
    for r in rows:
        board, side = squares(r[0]), r[0].split()[1]
        for label in (r[1], "all"):
            n[label] += 1
            for column, move in enumerate(r[3:]):
                counts[(label, column)].update(k for k, v in traits(board, side, move).items() if v)
    print("moves of each kind, per cent of the positions (a king move counts castling too)")
    for label in ["all", "fear", "neutral", "relief"]:
        if not n[label]:
            continue
        print("  %s (n=%d)\n  %-22s" % (label, n[label], "") + "".join("%11s" % t for t in TRAITS))
        for column, who in enumerate(["the human"] + names):
            print("  %-22s" % who + "".join("%10.1f%%" % (100 * counts[(label, column)][t] / n[label]) for t in TRAITS))


if __name__ == "__main__":
    main()
