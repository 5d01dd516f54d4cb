#!/usr/bin/env python3
"""How much of its clock an engine used, from a `feelfish match` PGN: clock_use.py PGN ENGINE prints
'N% (PLIES plies)', the largest share over the PGN's games of what ENGINE was given (base + increment
a move, from its WhiteTimeControl / BlackTimeControl tag, or TimeControl when both had one clock)
that its moves' times (in each move's comment, '<seconds>s') add up to, with that game's length (a
game it lost on time counts 100 %); '-' where it had no clock (movetime). A node budget is only what
a rating plays if the clock never cut it: levels.sh prints this beside each rating, and a share near
100 % says the clock, not the budget, set the moves' length in that game."""
import re
import sys


def clock_use(pgn_text, engine):
    worst = None  # (share, plies)
    for game in pgn_text.split("[Event ")[1:]:
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', game, re.M))
        if engine not in (tags.get("White"), tags.get("Black")):
            continue
        colour = "White" if tags.get("White") == engine else "Black"
        given_tc = tags.get(colour + "TimeControl", tags.get("TimeControl", "-"))
        clock = re.fullmatch(r"([0-9.]+)(?:\+([0-9.]+))?", given_tc)  # "120+1.2", or "120" with no increment
        if not clock:
            return None
        white_first = " b " not in tags.get("FEN", " w ")
        body = game[game.find("\n\n"):]
        times = []  # a move's comment: "{+0.23/15 1.887s}", the last one's with how the game ended after it
        for comment in re.findall(r"\{([^}]*)\}", body):
            m = re.search(r"\b([0-9.]+)s\b", comment)
            times.append(float(m.group(1)) if m else 0.0)
        own = times[0 if white_first == (colour == "White") else 1::2]
        given = float(clock.group(1)) + float(clock.group(2) or 0) * len(own)
        share = sum(own) / given if given > 0 else 0.0
        lost = {"White": "0-1", "Black": "1-0"}[colour] == tags.get("Result")
        if lost and tags.get("Termination") == "time forfeit":
            share = 1.0  # the move that ran out is not in the PGN
        if worst is None or share > worst[0]:
            worst = (share, len(times))
    return worst


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: clock_use.py PGN ENGINE")
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            worst = clock_use(f.read(), sys.argv[2])
    except OSError as e:
        sys.exit(f"clock_use: {e}")
    print("-" if worst is None else f"{100 * worst[0]:.0f}% ({worst[1]} plies)")


if __name__ == "__main__":
    main()
