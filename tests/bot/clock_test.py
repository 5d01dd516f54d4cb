#!/usr/bin/env python3
"""Does the bot lose on time? `feelfish bot` with its default time management (no feelfish:
movetime cap; move_overhead 500 ms, as on loopback) plays N games (default 20) at 1+0 against the
fake Lichess (fake_lichess.py), whose clocks run for real from the second move on, as Lichess's
do; the opponent is Stockfish playing on its own clock. Not part of `make test` (~15 min with 2
games at a time, CPU heavy).

    python3 tests/bot/clock_test.py [--games 20] [--concurrency 2] [--base 60] [--inc 0]
                                    [--overhead 500] [--skill 20]

Prints one line per game (result, plies, the bot's lowest clock when it moved, the opponent's),
then `clock: N games, N lost on time`; exits 1 if the bot lost any game on time."""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fake_lichess import FakeLichess  # noqa: E402
from botlib import Bot, config_text, new_token  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description="the bot against Stockfish at 1+0: losses on time")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--base", type=int, default=60, help="seconds on each clock")
    ap.add_argument("--inc", type=int, default=0, help="increment, seconds")
    ap.add_argument("--overhead", type=int, default=500, help="the bot's move_overhead, ms")
    ap.add_argument("--skill", type=int, default=20, help="Stockfish's Skill Level (0-20)")
    ap.add_argument("--max-plies", type=int, default=400, help="the fake server ends a game after this many plies")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()

    token = new_token()
    fake = FakeLichess(token=token, log=print if a.verbose else None,
                       opponent_engine_options={"Move Overhead": 100}).start()
    cfg = config_text(fake.url, token, [
        (r"^move_overhead: .*$", "move_overhead: %d" % a.overhead),
        (r"^  concurrency: .*$", "  concurrency: %d" % a.concurrency),
    ])
    bot = Bot(cfg, workers=a.concurrency)
    t0 = time.monotonic()
    rows, sent, retries = [], [], 0
    try:
        if not fake.wait(lambda: fake.event_streams, 30):
            print("clock: the bot never opened its event stream\n" + bot.stderr()[-2000:])
            print("clock: 0 games, 0 lost on time")
            return 1
        opponent = {"id": "stockfish", "name": "Stockfish", "title": None, "rating": 2000}
        playing = []
        while len(rows) < a.games:
            if bot.proc.poll() is not None:
                print("clock: the bot exited (%s)\n%s" % (bot.proc.returncode, bot.stderr()[-2000:]))
                break
            # keep `concurrency` games going
            while len(playing) < a.concurrency and len(sent) < a.games:
                color = "white" if len(sent) % 2 == 0 else "black"
                cid = fake.challenge(challenger=opponent, clock=(a.base, a.inc), bot_color=color,
                                     game={"skill": a.skill, "max_plies": a.max_plies})
                answered = fake.wait(lambda: cid in fake.answers, 20)
                if answered and fake.answers[cid] == ("accept",):
                    sent.append(cid)
                    playing.append(cid)
                else:  # put off (the last game's end not heard yet): again shortly
                    retries += 1
                    if retries > 20:
                        raise RuntimeError("the bot keeps declining: %r (a clock under 30 s + 0 is ultraBullet, "
                                           "which bots may not play)" % (fake.answers.get(cid),))
                    time.sleep(1)
            time.sleep(0.2)
            with fake.lock:
                done = [c for c in playing if fake.games[c].status != "started"]
                summaries = {c: fake.games[c].summary() for c in done}
            for c in done:
                playing.remove(c)
                g = summaries[c]
                opp = "black" if g["bot_color"] == "white" else "white"
                opp_left = [h["left_ms"] for h in g["history"] if h["by"] == opp and h["left_ms"] is not None]
                lost_on_time = g["status"] in ("outoftime", "timeout") and g["winner"] == opp
                result = ("bot won" if g["winner"] == g["bot_color"] else "bot lost" if g["winner"] else
                          "draw" if g["status"] != "aborted" else "aborted")
                rows.append((g, lost_on_time))
                print("game %2d %s bot %-5s %-8s %-10s %3d plies  bot's lowest clock %6s ms  opponent's %6s ms%s"
                      % (len(rows), g["id"], g["bot_color"], result, g["status"], g["plies"],
                         "-" if g["bot_min_clock_ms"] is None else int(g["bot_min_clock_ms"]),
                         int(min(opp_left)) if opp_left else "-",
                         "  LOST ON TIME" if lost_on_time else "  (%s)" % g["end_reason"]), flush=True)
                bad = [r for r in g["rejected"] if r[1] != "over"]
                if bad:
                    print("    moves refused: %s" % bad)
    finally:
        rc = bot.stop()
        fake.close()
    lost = sum(1 for _, l in rows if l)
    clocks = [g["bot_min_clock_ms"] for g, _ in rows if g["bot_min_clock_ms"] is not None]
    print("bot exit %s after SIGTERM; %.0f s; %d challenges put off and sent again" % (rc, time.monotonic() - t0, retries))
    if clocks:
        print("the bot's lowest clock over all games: %d ms" % min(clocks))
    wins = sum(1 for g, _ in rows if g["winner"] == g["bot_color"])
    losses = sum(1 for g, _ in rows if g["winner"] and g["winner"] != g["bot_color"])
    print("record: %d won, %d lost, %d drawn or aborted" % (wins, losses, len(rows) - wins - losses))
    print("clock: %d games, %d lost on time" % (len(rows), lost))
    return 1 if lost or len(rows) < a.games else 0


if __name__ == "__main__":
    sys.exit(main())
