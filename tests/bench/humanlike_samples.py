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
import sys

VALUE = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 0}
TRAITS = ["capture", "even trade", "pawn", "forward", "backward", "king", "castle", "queen", "minor", "rook"]


def board(fen):
    squares = {}
    for r, row in enumerate(fen.split()[0].split("/")):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                squares[(7 - r, f)] = ch
                f += 1
    return squares, fen.split()[1]


def square(s):
    return int(s[1]) - 1, ord(s[0]) - ord("a")


def traits(squares, side, move):
    frm, to = square(move[:2]), square(move[2:4])
    piece = squares[frm].lower()
    taken = squares.get(to)
    if taken and taken.isupper() == squares[frm].isupper():
        taken = None  # castling written king-takes-rook
    ahead = (to[0] - frm[0]) * (1 if side == "w" else -1)
    return {
        "capture": bool(taken) or (piece == "p" and frm[1] != to[1]),
        "even trade": bool(taken) and taken.lower() != "p" and VALUE[taken.lower()] == VALUE[piece],
        "pawn": piece == "p", "forward": ahead > 0, "backward": ahead < 0, "king": piece == "k",
        "castle": piece == "k" and abs(frm[1] - to[1]) >= 2, "queen": piece == "q",
        "minor": piece in "nb", "rook": piece == "r",
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
            line += "  %s %+5.1f +/- %.1f" % (names[m], 100 * (gain - loss) / n, 196 * math.sqrt(gain + loss) / n)
        print(line)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    names = sys.argv[2].split(",")
    rows = [line.rstrip("\n").split(";") for line in open(sys.argv[1]) if line.strip()]
    if any(len(r) != 4 + len(names) for r in rows):
        sys.exit("humanlike_samples: %d modes named, but the lines have another number of moves" % len(names))
    paired(rows, names, "matching vs %s, paired, by emotion and goal: all positions" % names[0])
    paired(rows[0::2], names, "the even positions")
    paired(rows[1::2], names, "the odd positions")
    counts = collections.defaultdict(collections.Counter)
    n = collections.Counter()
    for r in rows:
        squares, side = board(r[0])
        for label in (r[1], "all"):
            n[label] += 1
            for who, move in [("human", r[3])] + list(zip(names, r[4:])):
                counts[(label, who)].update(k for k, v in traits(squares, side, move).items() if v)
    print("moves of each kind, per cent of the positions")
    for label in ["all", "fear", "neutral", "relief"]:
        if not n[label]:
            continue
        print("  %s (n=%d)\n  %-22s" % (label, n[label], "") + "".join("%11s" % t for t in TRAITS))
        for who in ["human"] + names:
            print("  %-22s" % who + "".join("%10.1f%%" % (100 * counts[(label, who)][t] / n[label]) for t in TRAITS))


if __name__ == "__main__":
    main()
