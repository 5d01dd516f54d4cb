#!/usr/bin/env python3
"""The Lichess bot bridge (`feelfish bot`) with matchmaking on, against a fake Lichess
(fake_lichess.py: the Bot API with real rules and clocks, Stockfish as the opponent): one bot, about
40 s. It challenges one suitable online bot (not itself, not one on its block_list, none outside its
rating range); in that game it answers the opponent's takebacks as max_takebacks_accepted says;
challenges that come meanwhile wait in its queue, best first, and it says the queue in chat (!queue);
a withdrawn challenge is dropped; a bot's second challenge within recent_bot_challenge_age is
declined "later"; its move calls keep rate_limiting_delay apart. With a bot of its own: a correspondence game
waiting on the opponent leaves room for a blitz challenge.

    python3 tests/bot/test_bot_matchmaking.py [--list] [CHECK...]   # ends: bot-matchmaking: N passed, N failed
    FEELFISH_BOT_VERBOSE=1 ...                                       # the fake's log"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from botlib import ABORT_TIME, HUMAN, Bot, config_text, log, new_token, wait_over  # noqa: E402
from fake_lichess import FakeLichess  # noqa: E402
from fake_lichess_chess import TERMINAL  # noqa: E402
from harness import Suite, check  # noqa: E402

suite = Suite("bot-matchmaking")


# ---- matchmaking, takebacks, the challenge queue ----

EXTRA_CHECKS = ["matchmaking_challenges_suitable_bot", "takebacks_answered_by_limit", "queue_in_best_order",
                "withdrawn_challenge_dropped", "recent_bot_challenges_later", "rate_limiting_delay_kept",
                "queue_told_in_chat"]


@suite.test(*EXTRA_CHECKS)
def extras_run():
    """Matchmaking, takebacks, the challenge queue's order, a withdrawn challenge, the recent-bot
    limit and rate_limiting_delay, with a bot of its own (about 40 s)."""
    token = new_token()
    fake = FakeLichess(token=token, log=log).start()
    # Online bots: the bot itself, one blocked, one out of its rating range (1500 ± 300), one that
    # accepts (its game: the opponent asks to take back its move at plies 6 and 10).
    fake.online_bots = [
        {"id": "feelbot", "username": "FeelBot", "title": "BOT", "perfs": {"bullet": {"rating": 1500}}},
        {"id": "blockedbot", "username": "BlockedBot", "title": "BOT", "perfs": {"bullet": {"rating": 1550}}},
        {"id": "strongbot", "username": "StrongBot", "title": "BOT", "perfs": {"bullet": {"rating": 2400}}},
        {"id": "goodbot", "username": "GoodBot", "title": "BOT", "perfs": {"bullet": {"rating": 1650}},
         "answer": "accept", "game": {"movetime": 30, "max_plies": 40, "takeback_at": [6, 10]}},
    ]
    cfg = config_text(fake.url, token, [
        (r"^abort_time: .*$", "abort_time: %d" % ABORT_TIME),
        (r"^rate_limiting_delay: .*$", "rate_limiting_delay: 400"),
        (r"^max_takebacks_accepted: .*$", "max_takebacks_accepted: 1"),
        (r"^# recent_bot_challenge_age: .*$", "  recent_bot_challenge_age: 60"),
        (r"^# max_recent_bot_challenges: .*$", "  max_recent_bot_challenges: 1"),
        (r"^  allow_matchmaking: .*$", "  allow_matchmaking: true"),
        (r"^  challenge_timeout: .*$", "  challenge_timeout: 0.05"),
        (r"^# block_list:                      # The list of bots that will not be challenged$",
         "  block_list:\n    - blockedbot"),
    ], extra="\nfeelfish:\n  movetime: 50\n  hash: 16\n")
    bot = None
    t0 = fake.now()
    try:
        bot = Bot(cfg)
        out = fake.wait(lambda: fake.outgoing, 30)
        gm = fake.outgoing[0]["id"] if out else None
        started = gm and fake.wait(lambda: gm in fake.games and len(fake.games[gm].moves) >= 2, 15)
        queue_ids, answered_during = {}, {}
        if started:
            # While that game is on: three humans (rated 1400, 2000, 1700) and a bot twice.
            for name, rating in (("low", 1400), ("high", 2000), ("mid", 1700)):
                queue_ids[name] = fake.challenge(challenger=dict(HUMAN, id="h" + name, name="H" + name, rating=rating),
                                                 clock=(60, 0), game={"never_moves": True})
            queue_ids["bot1"] = fake.challenge(challenger={"id": "chatty", "name": "Chatty", "title": "BOT",
                                                           "rating": 1500}, clock=(60, 1), game={"never_moves": True})
            queue_ids["bot2"] = fake.challenge(challenger={"id": "chatty", "name": "Chatty", "title": "BOT",
                                                           "rating": 1500}, clock=(60, 1), game={"never_moves": True})
            fake.wait(lambda: queue_ids["bot2"] in fake.answers, 10)
            time.sleep(1.0)
            fake.cancel(queue_ids["bot1"])
            fake.cancel(queue_ids["mid"])
            time.sleep(0.5)
            fake.say(gm, "!queue")
            time.sleep(1.0)
            with fake.lock:
                answered_during = {k: fake.answers.get(v) for k, v in queue_ids.items()}
            wait_over(fake, gm, 120)
            with fake.lock:
                gm_end = fake.games[gm].ended_at - fake.t0 if fake.games[gm].ended_at else None
            # then the queue: "high" first (its game aborted after abort_time), then "low"
            for name in ("high", "low"):
                wait_over(fake, queue_ids[name], ABORT_TIME + 15)
        elapsed = fake.now() - t0
    finally:
        rc = bot.stop() if bot else None
        st = fake.state()
        calls = fake.calls()
        answer_times = dict(fake.answer_times)
        outgoing = list(fake.outgoing)
        fake.close()
    print("    second bot: %.0f s; its challenges: %s; exit %s" % (elapsed if bot else 0, [(o["to"], o["form"], o["status"]) for o in outgoing], rc))

    # matchmaking_challenges_suitable_bot
    o = outgoing[0] if outgoing else {}
    f = o.get("form", {})
    check("matchmaking_challenges_suitable_bot",
          len(outgoing) == 1 and o["to"] == "goodbot" and f.get("clock.limit") in ("60", "180")
          and f.get("clock.increment") in ("1", "2") and f.get("rated") in ("true", "false")
          and f.get("variant") == "standard" and o["t"] - t0 < 25,
          "challenges sent: %s (want one, to goodbot: not itself, not blockedbot (block_list), not strongbot "
          "(2400, outside 1500 ± 300); clock 60|180 + 1|2, within 25 s of start)"
          % [(x["to"], x["form"], round(x["t"] - t0, 1)) for x in outgoing])

    # takebacks_answered_by_limit
    g = st["games"].get(gm, {}) if gm else {}
    tb = g.get("takeback_answers", [])
    check("takebacks_answered_by_limit",
          [a[0] for a in tb] == ["yes", "no"] and tb[0][2] == tb[0][1] - 1 and tb[1][2] == tb[1][1]
          and g.get("status") in TERMINAL and not [r for r in g.get("rejected", []) if r[1] != "over"],
          "the bot's answers (answer, plies before, after): %s (want yes (one ply back), then no: "
          "max_takebacks_accepted 1); game %s after %s plies; refused moves %s"
          % (tb, g.get("status"), g.get("plies"), g.get("rejected")))

    # queue_in_best_order
    t_high, t_low = answer_times.get(queue_ids.get("high")), answer_times.get(queue_ids.get("low"))
    order_ok = (started and not any(answered_during.get(k) for k in ("low", "high", "mid", "bot1"))
                and st["answers"].get(queue_ids["high"]) == ["accept"] and st["answers"].get(queue_ids["low"]) == ["accept"]
                and gm_end is not None and t_high is not None and t_low is not None and gm_end <= t_high < t_low)
    check("queue_in_best_order", order_ok,
          "answered while the game was on: %s; game over at %s; high (2000) accepted at %s, low (1400) at %s "
          "(want none during; high right after the end, then low)" % (answered_during, gm_end if started else None,
                                                                   t_high, t_low))

    # withdrawn_challenge_dropped
    check("withdrawn_challenge_dropped",
          started and queue_ids["mid"] not in st["answers"] and queue_ids["bot1"] not in st["answers"],
          "answers to the withdrawn challenges: mid %s, bot1 %s (want none)"
          % (st["answers"].get(queue_ids.get("mid")), st["answers"].get(queue_ids.get("bot1"))))

    # recent_bot_challenges_later
    check("recent_bot_challenges_later", started and st["answers"].get(queue_ids["bot2"]) == ["decline", "later"],
          "Chatty's second challenge within 60 s: %s (want decline later: max_recent_bot_challenges 1)"
          % (st["answers"].get(queue_ids.get("bot2")),))

    # rate_limiting_delay_kept
    moves = [r["t"] for r in calls if r["kind"] == "move" and r["status"] == 200]
    gaps = [b - a for a, b in zip(moves, moves[1:])]
    check("rate_limiting_delay_kept", len(gaps) >= 10 and min(gaps) >= 0.38,
          "%d moves; smallest gap between two move calls %.3f s (want >= 0.4 s less scheduling: rate_limiting_delay 400)"
          % (len(moves), min(gaps) if gaps else -1))

    # queue_told_in_chat: !queue while "high" and "low" wait (best first)
    said = [text for room, who, text, t in g.get("chat", []) if who == "FeelBot" and "queue" in text.lower()]
    check("queue_told_in_chat", any(t.startswith("Challenge queue: Hhigh, Hlow") for t in said),
          "the bot's answers to !queue: %s (want 'Challenge queue: Hhigh, Hlow')" % said)


@suite.test()
def correspondence_leaves_room():
    """A correspondence game waiting on the opponent takes no place of challenge.concurrency (lichess-bot
    leaves it until its next check-in): with concurrency 1, a blitz challenge is accepted at once. The game
    still counts as one with its opponent: with max_simultaneous_games_per_user 1, their challenge is
    declined 'later'."""
    token = new_token()
    fake = FakeLichess(token=token, log=log).start()
    bot = None
    try:
        corr = fake.new_game({"bot_color": "white", "opponent": dict(HUMAN, id="pen", name="Pen"), "clock": None,
                              "never_moves": True, "moves": ["e2e4", "e7e5", "g1f3"]}, announce=False)
        bot = Bot(config_text(fake.url, token, [(r"^abort_time: .*$", "abort_time: %d" % ABORT_TIME),
                                                (r"^  max_simultaneous_games_per_user: .*$",
                                                 "  max_simultaneous_games_per_user: 1")]))
        followed = fake.wait(lambda: fake.calls("game_stream"), 30)
        time.sleep(1.5)  # its gameFull read: the opponent's move
        cid = fake.challenge(challenger=dict(HUMAN, id="quick", name="Quick"), clock=(180, 2),
                             game={"never_moves": True})
        answered = fake.wait(lambda: cid in fake.answers, 10)
        again = fake.challenge(challenger=dict(HUMAN, id="pen", name="Pen"), clock=(180, 2), game={"never_moves": True})
        fake.wait(lambda: again in fake.answers, 10)
        still = fake.games[corr.id].status
        check("correspondence_leaves_room", followed and answered and fake.answers.get(cid) == ("accept",)
              and still == "started" and fake.answers.get(again) == ("decline", "later"),
              "correspondence game followed: %s, its status %s; blitz challenge answer: %s (want accept within 10 s); "
              "its opponent's challenge: %s (want declined 'later')"
              % (bool(followed), still, fake.answers.get(cid), fake.answers.get(again)))
    finally:
        if bot:
            bot.stop()
        fake.close()


if __name__ == "__main__":
    sys.exit(suite.main())
