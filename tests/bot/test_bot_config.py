#!/usr/bin/env python3
"""The Lichess bot bridge's (`feelfish bot`) config and its refusals at start, each check with a bot
of its own: --print-config on lichess-bot's config.yml.default (every setting read as lichess-bot
reads it, the token masked), a bad value refused with its key named, feelfish.gain and feelfish.elo
read and their bad values refused by name; a token the fake Lichess (fake_lichess.py) does not know
and an account that is not a BOT end the bot before it opens the event stream; LICHESS_BOT_TOKEN
wins over the file's token; 503s at the start are waited out, and the User-Agent then names the account; a
variant game found in progress is aborted or resigned, not played. The games are test_bot.py's, test_bot_matchmaking.py's and
test_bot_serve.py's.

    python3 tests/bot/test_bot_config.py [--list] [CHECK...]   # last line: bot-config: N passed, N failed
    FEELFISH_BOT_VERBOSE=1 ...                                  # the fake's log"""
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from botlib import DEFAULT, Bot, config_text, human, log, new_token, run  # noqa: E402
from fake_lichess import FakeLichess  # noqa: E402
from harness import FF, Suite, check, tmpdir  # noqa: E402


def settings(text):
    """--print-config's "key: value" lines as a dict of strings."""
    out = {}
    for line in text.splitlines():
        if ": " in line:
            k, v = line.split(": ", 1)
            out[k.strip()] = v.strip()
    return out


suite = Suite("bot-config")


# ---- the config ----

@suite.test()
def config_default_accepted():
    token = new_token()
    bot_dir = tmpdir("feelfish-bot-")
    path = os.path.join(bot_dir, "config.yml")
    with open(path, "w") as f:
        f.write(config_text("http://127.0.0.1:9/", token))
    rc, out, err = run([FF, "bot", "--config", path, "--print-config"])
    print("    --print-config on lichess-bot's config.yml.default (token and url replaced):")
    for line in out.splitlines():
        print("      " + line)
    s = settings(out)
    want = {
        "challenge.concurrency": "1", "challenge.accept_bot": "true", "challenge.only_bot": "false",
        "challenge.max_base": "1800", "challenge.min_base": "0", "challenge.max_increment": "20",
        "challenge.min_increment": "0", "challenge.max_days": "14", "challenge.min_days": "1",
        "challenge.variants": "[standard]", "challenge.time_controls": "[bullet, blitz, rapid, classical]",
        "challenge.modes": "[casual, rated]", "challenge.max_simultaneous_games_per_user": "5",
        "challenge.sort_by": '"best"', "challenge.bullet_requires_increment": "false",
        "engine.draw_or_resign.offer_draw_enabled": "true", "engine.draw_or_resign.offer_draw_moves": "10",
        "engine.draw_or_resign.offer_draw_score": "0", "engine.draw_or_resign.offer_draw_pieces": "10",
        "engine.draw_or_resign.resign_enabled": "false", "engine.draw_or_resign.resign_score": "-1000",
        "engine.draw_or_resign.resign_moves": "3",
        "move_overhead": "2000", "abort_time": "30", "rate_limiting_delay": "0", "pgn_file_grouping": '"game"',
        "greeting.goodbye": '"Good game!"', "url": '"http://127.0.0.1:9/"',
    }
    wrong = {k: (s.get(k), v) for k, v in want.items() if s.get(k) != v}
    check("config_default_accepted", rc == 0 and not wrong and token not in out + err and s.get("token") == "********",
          "exit %s; (printed, expected): %s; token printed: %s; stderr: %s"
          % (rc, wrong, token in out + err, err[-300:]))


@suite.test()
def config_bad_value_names_key():
    cases = [
        (r"^  concurrency: .*$", '  concurrency: "lots"', "challenge.concurrency"),
        (r"^    offer_draw_moves: .*$", "    offer_draw_moves: -3", "engine.draw_or_resign.offer_draw_moves"),
        (r"^    - blitz$", "    - hyperBullet", "challenge.time_controls"),
        (r"^abort_time: .*$", 'abort_time: "soon"', "abort_time"),
        (r"^  max_base: .*$", "  max_base: [1, 2]", "challenge.max_base"),
    ]
    bad = []
    for pattern, repl, key in cases:
        d = tmpdir("feelfish-bot-")
        path = os.path.join(d, "config.yml")
        with open(path, "w") as f:
            f.write(config_text("http://127.0.0.1:9/", new_token(), [(pattern, repl)]))
        rc, out, err = run([FF, "bot", "--config", path, "--print-config"])
        said = [line for line in err.splitlines() if "feelfish bot:" in line]
        print("    %-40s -> exit %s: %s" % (repl.strip(), rc, said[-1] if said else err.strip()[-200:]))
        if rc != 2 or key not in err:
            bad.append((repl.strip(), rc, err[-200:]))
    check("config_bad_value_names_key", not bad, bad)


@suite.test()
def config_variant_challenged_is_standard():
    """matchmaking.challenge_variant other than random or standard: a warning, and standard is offered."""
    path = os.path.join(tmpdir("feelfish-bot-"), "config.yml")
    with open(path, "w") as f:
        f.write(config_text("http://127.0.0.1:9/", new_token(),
                            [(r'^  challenge_variant: .*$', '  challenge_variant: "crazyhouse"')]))
    rc, out, err = run([FF, "bot", "--config", path, "--print-config"])
    got = settings(out).get("matchmaking.challenge_variant")
    check("config_variant_challenged_is_standard",
          rc == 0 and got == '"standard"' and "crazyhouse" in err and "standard chess only" in err,
          "exit %s, challenge_variant %s, stderr %s" % (rc, got, err[-300:]))


@suite.test()
def config_feelfish_gain():
    """feelfish.gain (affective: the emotion's hold, 0..1) is read; outside 0..1 it is refused by name;
    not given it is -1 (the temperament's)."""
    seen = {}
    for extra in ("", "feelfish: {mode: affective, temperament: thesis, gain: 0.05}\n", "feelfish: {gain: 2}\n"):
        path = os.path.join(tmpdir("feelfish-bot-"), "config.yml")
        with open(path, "w") as f:
            f.write(config_text("http://127.0.0.1:9/", new_token()) + extra)
        rc, out, err = run([FF, "bot", "--config", path, "--print-config"])
        seen[extra.strip() or "none"] = (rc, settings(out).get("feelfish.gain"), settings(out).get("feelfish.temperament"),
                                         err.strip()[-160:])
    none, asked, bad = seen.values()
    check("config_feelfish_gain", none[:2] == (0, "-1") and asked[:3] == (0, "0.05", '"thesis"')
          and bad[0] == 2 and "feelfish.gain" in bad[3], seen)


@suite.test()
def config_feelfish_elo():
    """feelfish.elo (play at that rating, strength.h) is read; 0 or absent is full strength; below the
    lowest rating, above the highest or a fraction is refused by name."""
    seen = {}
    for extra in ("", "feelfish: {elo: 1600}\n", "feelfish: {elo: 300}\n", "feelfish: {elo: 9000}\n",
                  "feelfish: {elo: 1600.5}\n"):
        path = os.path.join(tmpdir("feelfish-bot-"), "config.yml")
        with open(path, "w") as f:
            f.write(config_text("http://127.0.0.1:9/", new_token()) + extra)
        rc, out, err = run([FF, "bot", "--config", path, "--print-config"])
        seen[extra.strip() or "none"] = (rc, settings(out).get("feelfish.elo"), err.strip()[-160:])
    none, asked, *bad = seen.values()
    check("config_feelfish_elo", none[:2] == (0, "0") and asked[:2] == (0, "1600")
          and all(b[0] == 2 and "feelfish.elo" in b[2] for b in bad), seen)


# ---- refusals ----

@suite.test()
def bad_token_refused():
    fake = FakeLichess(token=new_token(), log=log).start()
    wrong = new_token()
    try:
        bot = Bot(config_text(fake.url, wrong))
        rc = bot.wait(30)
        if rc is None:
            bot.stop()
        err = bot.stderr()
        kinds = [r["kind"] for r in fake.calls()]
        check("bad_token_refused",
              rc == 1 and "token" in err.lower() and "stream_event" not in kinds and "account" not in kinds
              and wrong not in err + bot.stdout(),
              "exit %s (want 1); calls %s; stderr: %s" % (rc, kinds, err[-400:]))
    finally:
        fake.close()


@suite.test("not_a_bot_refused", "token_from_env")
def not_a_bot_refused():
    token = new_token()
    fake = FakeLichess(token=token, account={"id": "feelhuman", "username": "FeelHuman"}, log=log).start()
    try:
        # the file keeps lichess-bot's placeholder token: LICHESS_BOT_TOKEN wins
        with open(DEFAULT) as f:
            text = re.sub(r"^url: .*$", 'url: "%s"' % fake.url, f.read(), count=1, flags=re.M)
        bot = Bot(text, env={"LICHESS_BOT_TOKEN": token})
        rc = bot.wait(30)
        if rc is None:
            bot.stop()
        err = bot.stderr()
        calls = fake.calls()
        kinds = [r["kind"] for r in calls]
        check("not_a_bot_refused", rc == 1 and "BOT" in err and "stream_event" not in kinds,
              "exit %s (want 1); calls %s; stderr: %s" % (rc, kinds, err[-400:]))
        tested = [r["body"].decode() for r in calls if r["kind"] == "token_test"]
        check("token_from_env", tested == [token] and "account" in kinds,
              "token/test bodies %s (want the LICHESS_BOT_TOKEN one); calls %s" % (tested, kinds))
    finally:
        fake.close()


@suite.test("start_survives_server_errors", "user_agent_names_account")
def start_survives_server_errors():
    """A server that answers 503 at the start (a deploy; no answer at all goes the same way) is tried
    again with growing delays, as lichess-bot restarts after a network error, instead of ending the bot."""
    token = new_token()
    fake = FakeLichess(token=token, log=log).start()
    try:
        fake.fail("token_test", 6)  # more than one try's own retries (three): the start itself must come again
        fake.fail("account", 5)
        bot = Bot(config_text(fake.url, token))
        opened = fake.wait(lambda: fake.event_streams, 60)
        rc = bot.wait(0.5)
        err = bot.stderr()
        if rc is None:
            bot.stop()
        kinds = [r["kind"] for r in fake.calls()]
        check("start_survives_server_errors",
              opened and rc is None and "trying again" in err and kinds.count("token_test") >= 7
              and kinds.count("account") >= 6,
              "event stream %s, exit %s; calls %s; stderr: %s"
              % ("opened" if opened else "NOT opened", rc, kinds, err[-600:]))
        agents = [dict(r["headers"]).get("User-Agent", "") for r in fake.calls("stream_event")]
        check("user_agent_names_account", agents and all(a.startswith("feelfish/") and
                                                         a.endswith(" user:" + fake.account["username"])
                                                         for a in agents), "User-Agent: %s" % agents)
    finally:
        fake.close()


@suite.test()
def stalled_chat_delays_a_move_once():
    """A chat call that gets no answer (the call times out after 15 s and is tried again) delays the
    bot's first move once, not once per try: the move goes before the chat's second try."""
    token = new_token()
    fake = FakeLichess(token=token, log=log).start()
    try:
        fake.stall("chat", 40, count=3)
        g = fake.new_game({"bot_color": "white", "opponent": human(0), "clock": (300, 0), "never_moves": True})
        bot = Bot(config_text(fake.url, token))
        moved = fake.wait(lambda: g.bot_moves(), 60)
        # the chat's second try comes after the move: wait for it before stopping the bot (stopping at
        # once could end the bot before that try, and the order would be unproven)
        fake.wait(lambda: sum(r["method"] == "POST" for r in fake.calls("chat")) >= 2, 30)
        bot.stop()
        posts = [r["kind"] for r in fake.calls() if r["method"] == "POST" and r["kind"] in ("chat", "move")]
        check("stalled_chat_delays_a_move_once", moved and posts[:3] == ["chat", "move", "chat"],
              "bot moves %s; chat and move calls in order %s" % (g.bot_moves(), posts))
    finally:
        fake.close()


@suite.test()
def waiting_challenges_count_per_user():
    """As lichess-bot does, a challenger's challenges waiting for room count toward
    max_simultaneous_games_per_user: with 1, a second challenge from the same person while the first
    waits is declined 'later', while another person's waits."""
    token = new_token()
    fake = FakeLichess(token=token, log=log).start()
    try:
        fake.new_game({"bot_color": "white", "opponent": human(0), "clock": (600, 0), "movetime": 0.05})
        bot = Bot(config_text(fake.url, token, [(r"^  max_simultaneous_games_per_user: .*$",
                                                 "  max_simultaneous_games_per_user: 1")]))
        fake.wait(lambda: fake.event_streams, 30)
        first = fake.challenge(challenger=human(1), clock=(60, 0))
        second = fake.challenge(challenger=human(1), clock=(120, 0))
        other = fake.challenge(challenger=human(2), clock=(60, 0))
        answered = fake.wait(lambda: second in fake.answers, 15)
        time.sleep(1)
        with fake.lock:
            got = {k: fake.answers.get(v) for k, v in (("first", first), ("second", second), ("other", other))}
        bot.stop()
        check("waiting_challenges_count_per_user",
              answered and got["second"] == ("decline", "later") and got["first"] is None and got["other"] is None,
              "answers while the bot's one place is taken: %s (want the second from the same person declined "
              "'later', the others waiting)" % got)
    finally:
        fake.close()


@suite.test()
def accepted_challenge_counts_per_user():
    """A challenge accepted whose game has not started yet counts toward max_simultaneous_games_per_user:
    two challenges from one person at once, with room for both (concurrency 2) and the limit 1, get
    one game, the other declined 'later'."""
    token = new_token()
    fake = FakeLichess(token=token, log=log).start()
    try:
        bot = Bot(config_text(fake.url, token, [(r"^  concurrency: .*$", "  concurrency: 2"),
                                                (r"^  max_simultaneous_games_per_user: .*$",
                                                 "  max_simultaneous_games_per_user: 1")]))
        fake.wait(lambda: fake.event_streams, 30)
        ids = [fake.challenge(challenger=human(1), clock=(60, 0), game={"never_moves": True}) for _ in range(2)]
        answered = fake.wait(lambda: all(i in fake.answers for i in ids), 15)
        with fake.lock:
            got = sorted(str(fake.answers.get(i)) for i in ids)
        bot.stop()
        check("accepted_challenge_counts_per_user",
              answered and got == [str(("accept",)), str(("decline", "later"))],
              "answers to two challenges from one person at once: %s (want one accepted, one declined 'later')" % got)
    finally:
        fake.close()


@suite.test()
def variant_game_not_played():
    """Games of a variant this engine does not play, found in progress at the start (the challenges it
    accepts are standard): one still abortable is aborted, one that is not is resigned; neither gets a
    move, and the bot goes on."""
    token = new_token()
    fake = FakeLichess(token=token, log=log).start()
    try:
        zh = fake.new_game({"bot_color": "black", "opponent": human(0), "clock": (60, 0), "variant": "crazyhouse",
                            "never_moves": True, "moves": ["e2e4", "e7e5", "g1f3"]}, announce=False)
        c960 = fake.new_game({"bot_color": "white", "opponent": human(1), "clock": (60, 0), "variant": "chess960",
                              "never_moves": True}, announce=False)
        bot = Bot(config_text(fake.url, token))
        ended = fake.wait(lambda: fake.games[zh.id].status != "started" and fake.games[c960.id].status != "started",
                          30)
        alive = bot.wait(1) is None
        bot.stop()
        s1, s2 = fake.games[zh.id].summary(), fake.games[c960.id].summary()
        check("variant_game_not_played",
              ended and alive and s1["status"] == "resign" and s2["status"] == "aborted" and s1["plies"] == 3
              and s2["plies"] == 0 and not s1["rejected"] and not s2["rejected"] and "standard chess only" in bot.stderr(),
              "crazyhouse %s after %d plies, chess960 %s after %d; bot %s; stderr: %s"
              % (s1["status"], s1["plies"], s2["status"], s2["plies"], "running" if alive else "exited",
                 bot.stderr()[-500:]))
    finally:
        fake.close()


if __name__ == "__main__":
    sys.exit(suite.main())
