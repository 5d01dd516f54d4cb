#!/usr/bin/env python3
"""The Lichess bot bridge (`feelfish bot`) end to end, against a fake Lichess (fake_lichess.py:
the Bot API with real rules and clocks, Stockfish as the opponent).

The main run (one bot, one fake, ~1.5 min) goes through, in order: a game in progress before the
bot starts (followed from /api/account/playing); a batch of challenges the config must decline,
each with lichess-bot's reason, and one it accepts (whose first accept gets a 429); that game, with
a 429 on the first chat, a draw offer from the opponent and a chat command; a challenge while it is
on (concurrency 1: later); a game whose stream is reset mid-game and whose 5th move gets a 429;
the event stream reset; two games whose opponent never moves (the bot must abort after
abort_time); 30 s with nothing but keep-alive lines. Then SIGTERM. Its checks read what the fake
recorded, the bot's output, its PGN files and its database. Other checks start their own bot:
--print-config on lichess-bot's config.yml.default, bad values, an unknown token, an account that
is not a BOT, and (when `serve --bot` exists) GET /api/bot.

    python3 tests/bot/test_bot.py [--list] [CHECK...]      # last line: bot: N passed, N failed
    FEELFISH_BOT_VERBOSE=1 ...                               # the fake's log and the bot's stderr"""
import glob
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from botlib import DEFAULT, Bot, config_text, new_token, run  # noqa: E402
from fake_lichess import FakeLichess  # noqa: E402
from fake_lichess_chess import TERMINAL  # noqa: E402
from harness import FF, SANITIZER_MARKS, Server, Suite, check, tmpdir  # noqa: E402

VERBOSE = bool(os.environ.get("FEELFISH_BOT_VERBOSE"))
ABORT_TIME = 3


def log(text):
    if VERBOSE:
        print(text, flush=True)


def settings(text):
    """--print-config's "key: value" lines as a dict of strings."""
    out = {}
    for line in text.splitlines():
        if ": " in line:
            k, v = line.split(": ", 1)
            out[k.strip()] = v.strip()
    return out


suite = Suite("bot")


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


# ---- the main run ----

HUMAN = {"title": None, "rating": 1500}


def human(i):
    return dict(HUMAN, id="human%s" % i, name="Human%s" % i)


def wait_over(fake, gid, timeout, start_timeout=15):
    """Waits for the game to start (the challenge accepted), then for its end; False if either
    does not come."""
    if not fake.wait(lambda: gid in fake.games, start_timeout):
        return False
    return fake.wait(lambda: fake.games[gid].status != "started", timeout)


def san_tokens(pgn):
    body = "\n".join(line for line in pgn.splitlines() if not line.startswith("["))
    body = re.sub(r"\{[^}]*\}", " ", body)
    while re.search(r"\([^()]*\)", body):
        body = re.sub(r"\([^()]*\)", " ", body)
    toks = re.sub(r"\d+\.(\.\.)?", " ", body).split()
    return [t for t in toks if t not in ("1-0", "0-1", "1/2-1/2", "*") and not t.startswith("$")]


def san_fits(san, uci):
    s = san.rstrip("+#!?")
    if s.startswith("O-O"):
        return uci in ("e1g1", "e1c1", "e8g8", "e8c8") and (s == "O-O") == (uci[2] == "g")
    return s.split("=")[0][-2:] == uci[2:4]


def pgn_tag(pgn, name):
    m = re.search(r'^\[%s "([^"]*)"\]' % name, pgn, re.M)
    return m.group(1) if m else None


MAIN_CHECKS = ["token_checked_first", "auth_on_every_call", "token_sent_only_in_auth", "resumes_game_in_progress",
               "challenges_answered_with_reasons", "challenge_queued_until_room", "games_finished_legal", "survives_429", "survives_stream_drop",
               "draw_offer_answered", "chat_greeting_and_commands", "abort_when_opponent_never_moves",
               "survives_event_stream_drop", "event_stream_kept_alive", "one_call_at_a_time", "pgn_saved",
               "pgn_headers_filled",
               "token_absent_from_output", "bot_exits_clean"]


@suite.test(*MAIN_CHECKS)
def main_run():
    token = new_token()
    fake = FakeLichess(token=token, log=log).start()
    bot = None
    ids = {}
    expected = {}
    notes = []
    t_run = time.monotonic()
    queued = (None, None)
    try:
        # A game in progress before the bot starts: the bot (black) is to move, clocks running.
        g0 = fake.new_game({"bot_color": "black", "opponent": human(0), "clock": (60, 0), "movetime": 30,
                            "max_plies": 30, "moves": ["e2e4", "c7c5", "g1f3"]}, announce=False)
        ids["G0"] = g0.id
        pgn_dir = os.path.join(tmpdir("feelfish-bot-pgn-"), "games")
        cfg = config_text(fake.url, token, [
            (r"^abort_time: .*$", "abort_time: %d" % ABORT_TIME),
            (r"^# pgn_directory: .*$", 'pgn_directory: "%s"' % pgn_dir),
            (r"^  accept_bot: .*$", "  accept_bot: false"),
            (r"^    - rated  .*$", "#   - rated"),  # modes: casual only
        ], extra="\nfeelfish:\n  movetime: 100\n  hash: 16\n")
        bot = Bot(cfg, args=("--log-level", "debug"))
        connected = fake.wait(lambda: fake.event_streams, 30)
        notes.append("event stream %s after %.1f s" % ("open" if connected else "NOT open", time.monotonic() - t_run))
        wait_over(fake, g0.id, 60)
        time.sleep(1.0)  # the bot hears the end (and says goodbye) before the challenges come

        # Challenges: the declined ones first, then the one it plays (its first accept gets a 429).
        fake.limit("accept", 1)
        fake.limit("chat", 1)
        bot_user = {"id": "somebot", "name": "SomeBot", "title": "BOT", "rating": 1500}
        cases = [
            ("noBot", dict(challenger=bot_user)),
            ("noBot", dict(challenger=dict(bot_user, id="otherbot", name="OtherBot"), variant="chess960", rated=True)),
            ("variant", dict(challenger=human(1), variant="chess960")),
            ("variant", dict(challenger=human(2), variant="fromPosition",
                             fen="rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")),
            ("variant", dict(challenger=human(3), variant="chess960", rated=True)),
            ("timeControl", dict(challenger=human(4), days=30)),
            ("timeControl", dict(challenger=human(5), clock=(5400, 0))),
            ("timeControl", dict(challenger=human(6), clock=(60, 30))),
            ("timeControl", dict(challenger=human(7), clock=(15, 0))),  # ultraBullet
            ("timeControl", dict(challenger=human(8), clock=(15, 0), variant="chess960")),
            ("timeControl", dict(challenger=human(9), clock=None)),  # unlimited
            ("casual", dict(challenger=human(10), rated=True)),
        ]
        for reason, kw in cases:
            cid = fake.challenge(**kw)
            expected[cid] = (reason, kw)
        g1_opts = {"movetime": 30, "max_plies": 120, "draw_offer_at": 8}
        c1 = fake.challenge(challenger=human(11), clock=(60, 0), bot_color="white", game=g1_opts)
        expected[c1] = ("accept", {"challenger": human(11), "note": "first accept answered 429"})
        ids["G1"] = c1
        fake.wait(lambda: all(c in fake.answers for c in expected), 20)

        # G1: while it is on, a challenge that must wait in the queue (concurrency 1) and be accepted
        # when G1 ends (its opponent then never moves: aborted), and a chat command.
        c_later = None
        if fake.wait(lambda: c1 in fake.games and len(fake.games[c1].moves) >= 2, 20):
            c_later = fake.challenge(challenger=human(12), clock=(180, 2), game={"never_moves": True})
            expected[c_later] = ("accept", {"challenger": human(12), "note": "sent while G1 was on: queued"})
            fake.say(c1, "!name")
        wait_over(fake, c1, 90)
        with fake.lock:
            g1_ended = fake.now() if fake.games[c1].ended_at is None else fake.games[c1].ended_at - fake.t0
        if c_later:
            fake.wait(lambda: c_later in fake.answers, 10)
            wait_over(fake, c_later, ABORT_TIME + 15)
            queued = (g1_ended, fake.answer_times.get(c_later))
        time.sleep(1.0)

        # G2: the bot is black; its stream is reset at ply 6 and its 6th move gets a 429.
        g2_opts = {"movetime": 30, "max_plies": 60, "drop_stream_at": 6, "move_429_at": 5}
        c2 = fake.challenge(challenger=human(13), clock=(60, 0), bot_color="black", game=g2_opts)
        expected[c2] = ("accept", {"challenger": human(13)})
        ids["G2"] = c2
        wait_over(fake, c2, 90)
        time.sleep(1.0)

        # The event stream is reset: the bot must come back.
        opens = len(fake.event_opens)
        t_drop = fake.now()
        fake.drop_event_stream()
        reopened = fake.wait(lambda: len(fake.event_opens) > opens, 15)
        t_reopen = fake.event_opens[-1] if reopened else None

        # G3, G4: the opponent never moves (the bot white, then black): abort after abort_time.
        for name, color in (("G3", "white"), ("G4", "black")):
            cid = fake.challenge(challenger=human(14 if color == "white" else 15), clock=(60, 0), bot_color=color,
                                 game={"never_moves": True})
            expected[cid] = ("accept", {"note": "opponent never moves"})
            ids[name] = cid
            wait_over(fake, cid, ABORT_TIME + 15)
            time.sleep(0.5)

        # Nothing but keep-alive lines for 30 s (Lichess: an empty line every 6-7 s): the event
        # stream must stay open.
        t_idle = fake.now()
        time.sleep(30)
        idle_reopens = [t for t in fake.event_opens if t > t_idle]
    finally:
        rc = bot.stop() if bot else None
        st = fake.state()
        calls = fake.calls()
        event_opens = list(fake.event_opens)
        fake.close()

    err, out = (bot.stderr(), bot.stdout()) if bot else ("", "")
    games = st["games"]
    for name in ("G0", "G1", "G2", "G3", "G4"):
        g = games.get(ids.get(name))
        if g:
            print("    %s %s: bot %s, %s %s after %d plies (%s); stream opened %d times; bot's lowest clock %s ms"
                  % (name, g["id"], g["bot_color"], g["status"], g["winner"] or "", g["plies"], g["end_reason"],
                     g["stream_opens"], None if g["bot_min_clock_ms"] is None else int(g["bot_min_clock_ms"])))
        else:
            print("    %s: never started" % name)
    print("    calls: %s; %s" % (st["calls"], "; ".join(notes)))

    # token_checked_first
    # (the stream of a game in progress may open before the event stream: it comes from playing)
    start = [r for r in calls if r["kind"] != "game_stream"][:4]
    first = [r["kind"] for r in start]
    tt = calls[0] if calls else None
    tt_type = dict(tt["headers"]).get("Content-Type", "") if tt else ""
    check("token_checked_first",
          first == ["token_test", "account", "playing", "stream_event"] and tt["body"].decode() == token
          and tt_type.startswith("text/plain") and "/api/account/playing?nb=50" == start[2]["path"],
          "first calls %s (want token_test, account, playing?nb=50, stream_event); token/test Content-Type %r, "
          "body is the token: %s" % ([(r["method"], r["path"]) for r in start], tt_type,
                                     tt and tt["body"].decode() == token))

    # auth_on_every_call
    no_auth = [(r["method"], r["path"]) for r in calls
               if r["kind"] != "token_test" and dict(r["headers"]).get("Authorization") != "Bearer " + token]
    refused = [(r["method"], r["path"]) for r in calls if r["status"] == 401]
    check("auth_on_every_call", not no_auth and not refused, "without the bearer: %s; 401s: %s" % (no_auth[:5], refused[:5]))

    # token_sent_only_in_auth
    leaks = []
    for r in calls:
        if token in r["path"]:
            leaks.append(("path", r["path"]))
        for k, v in r["headers"]:
            if token in v and k.lower() != "authorization":
                leaks.append(("header " + k, r["path"]))
        if r["kind"] != "token_test" and token.encode() in r["body"]:
            leaks.append(("body", r["path"]))
    check("token_sent_only_in_auth", not leaks, leaks[:5])

    # resumes_game_in_progress
    g0s = games.get(ids["G0"], {})
    bot0 = [h for h in g0s.get("history", []) if h["by"] == "black" and h["t"] > 0]
    check("resumes_game_in_progress",
          g0s.get("status") in TERMINAL and bot0 and g0s.get("stream_opens") >= 1 and not g0s.get("dup_streams"),
          "G0 (in progress at start, bot black to move after e2e4 c7c5 g1f3): status %s, bot moves %d, "
          "stream opened %s times (%s replaced while open)" % (g0s.get("status"), len(bot0), g0s.get("stream_opens"),
                                                               g0s.get("dup_streams")))

    # challenges_answered_with_reasons
    answers = st["answers"]
    wrong = []
    for cid, (want, kw) in expected.items():
        got = answers.get(cid)
        got_s = None if not got else got[0] if got[0] == "accept" else got[1]
        if got_s != want:
            desc = {k: v for k, v in kw.items() if k != "challenger"}
            desc["from"] = kw.get("challenger", {}).get("id")
            wrong.append("%s %s: got %s, want %s" % (cid, desc, got_s, want))
    print("    challenges: %d sent, %d answered as expected" % (len(expected), len(expected) - len(wrong)))
    check("challenges_answered_with_reasons", not wrong and len(expected) >= 17, wrong)

    # challenge_queued_until_room: made while G1 was on, accepted only once G1 was over
    g1_end, answered_at = queued
    check("challenge_queued_until_room",
          g1_end is not None and answered_at is not None and g1_end <= answered_at <= g1_end + 3,
          "G1 ended at %s; the challenge made during G1 was answered at %s (want within 3 s after the end)"
          % (g1_end, answered_at))

    # games_finished_legal
    problems = []
    for name in ("G0", "G1", "G2", "G3", "G4"):
        g = games.get(ids.get(name))
        if not g:
            problems.append("%s never started" % name)
            continue
        if g["status"] not in TERMINAL:
            problems.append("%s %s still %s after %d plies" % (name, g["id"], g["status"], g["plies"]))
        if name in ("G0", "G1", "G2") and g["status"] in ("aborted", "noStart", "outoftime"):
            problems.append("%s ended %s (%s)" % (name, g["status"], g["end_reason"]))
        for uci, why, plies, t in g["rejected"]:
            if why != "over":
                problems.append("%s: the bot posted %s at ply %d: %s" % (name, uci, plies,
                                                                           {"illegal": "illegal move",
                                                                            "turn": "not its turn"}[why]))
    check("games_finished_legal", not problems, problems)

    # survives_429
    limited = [r for r in calls if r["status"] == 429]
    unanswered = []
    for r in limited:
        later = [x for x in calls if x["t"] > r["t"] and x["path"] == r["path"] and x["body"] == r["body"]
                 and x["status"] != 429]
        if not later:
            unanswered.append("%s %s: never sent again" % (r["method"], r["path"]))
        elif not 0.9 <= later[0]["t"] - r["t"] <= 10:
            unanswered.append("%s %s: sent again %.2f s after the 429 (Retry-After: 1)"
                              % (r["method"], r["path"], later[0]["t"] - r["t"]))
    g2 = games.get(ids["G2"], {})
    g2_bot = [h for h in g2.get("history", []) if h["by"] == g2.get("bot_color")]
    kinds429 = sorted({r["kind"] for r in limited})
    check("survives_429",
          kinds429 == ["accept", "chat", "move"] and not unanswered and ids["G1"] in games and len(g2_bot) > 6
          and g2.get("status") in TERMINAL and g2.get("status") != "outoftime",
          "429s on %s (want accept, chat, move); %s; G1 started: %s; G2 bot moves %d, status %s"
          % (kinds429, unanswered, ids["G1"] in games, len(g2_bot), g2.get("status")))

    # survives_stream_drop
    reopen_after = [t for t in g2.get("stream_open_times", []) if g2.get("dropped_t") and t > g2["dropped_t"]]
    moved_after = [h for h in g2_bot if g2.get("dropped_t") and h["t"] > g2["dropped_t"]]
    check("survives_stream_drop",
          g2.get("dropped_at") is not None and reopen_after and moved_after and g2.get("status") in TERMINAL
          and g2.get("status") not in ("aborted", "outoftime") and not g2.get("dup_streams"),
          "G2 dropped at ply %s (t %s); reopened at %s; bot moves after: %d; status %s; streams replaced while open %s"
          % (g2.get("dropped_at"), g2.get("dropped_t"), reopen_after, len(moved_after), g2.get("status"),
             g2.get("dup_streams")))

    # draw_offer_answered (ply 8, 32 pieces: the draw rule cannot hold, so the answer is no)
    g1 = games.get(ids["G1"], {})
    ans = [a for a in g1.get("draw_answers", []) if g1.get("draw_offer_ply") is not None and a[1] >= g1["draw_offer_ply"]]
    check("draw_offer_answered", g1.get("draw_offer_ply") is not None and ans and ans[0][0] == "no",
          "G1: the opponent offered at ply %s; the bot's answers (answer, ply, t): %s (want draw/no)"
          % (g1.get("draw_offer_ply"), g1.get("draw_answers")))

    # chat_greeting_and_commands
    bot_lines = [(room, text) for room, who, text, t in g1.get("chat", []) if who == "FeelBot"]
    hello = any(room == "player" and text.startswith("Hi! I'm FeelBot.") for room, text in bot_lines)
    hello_spec = any(room == "spectator" and text.startswith("Hi! I'm FeelBot.") for room, text in bot_lines)
    bye = any(room == "player" and text == "Good game!" for room, text in bot_lines)
    name_reply = any("feelfish" in text.lower() for room, text in bot_lines)
    check("chat_greeting_and_commands", hello and hello_spec and bye and name_reply,
          "G1 chat by the bot: %s (want the hello in both rooms, 'Good game!', and an answer to !name)" % bot_lines)

    # abort_when_opponent_never_moves
    ab = []
    for name in ("G3", "G4"):
        g = games.get(ids.get(name))
        if not g:
            ab.append("%s never started" % name)
            continue
        since = g["history"][-1]["t"] if g["history"] else g["started_t"]
        at = g["aborted_by_bot_at"]
        if g["status"] != "aborted" or at is None:
            ab.append("%s: %s (%s), not aborted by the bot" % (name, g["status"], g["end_reason"]))
        elif not ABORT_TIME - 0.3 <= at - since <= ABORT_TIME + 4:
            ab.append("%s: aborted %.1f s after the last move or start (abort_time %d)" % (name, at - since, ABORT_TIME))
    check("abort_when_opponent_never_moves", not ab, ab)

    # survives_event_stream_drop
    g3 = games.get(ids.get("G3"))
    check("survives_event_stream_drop",
          t_reopen is not None and t_reopen - t_drop <= 10 and g3 is not None,
          "event stream reset at %.1f; reopened at %s; the next challenge became a game: %s"
          % (t_drop, t_reopen, g3 is not None))

    # event_stream_kept_alive: besides the deliberate reset, the bot kept its event stream
    unexpected = [round(t, 1) for t in event_opens[1:] if not (t_reopen is not None and abs(t - t_reopen) < 0.01)]
    reconnect_lines = [line for line in err.splitlines() if "event stream ended" in line]
    check("event_stream_kept_alive", not unexpected and not idle_reopens,
          "event stream reopened at %s besides the deliberate reset (keep-alive every %g s); %d during 30 s of "
          "keep-alives only; the bot said: %s" % (unexpected, fake.keepalive, len(idle_reopens), reconnect_lines[:3]))

    # one_call_at_a_time
    check("one_call_at_a_time", st["max_in_flight"] == 1,
          "at most %d calls (streams aside) were in flight at once" % st["max_in_flight"])

    # pgn_saved
    files = sorted(glob.glob(os.path.join(pgn_dir, "*.pgn"))) if os.path.isdir(pgn_dir) else []
    pgn_problems = []
    for name in ("G0", "G1", "G2"):
        g = games.get(ids.get(name))
        if not g:
            pgn_problems.append("%s was never played" % name)
            continue
        mine = [f for f in files if g["id"] in os.path.basename(f)]
        if len(mine) != 1:
            pgn_problems.append("%s %s: %d files with its id among %s" % (name, g["id"], len(mine),
                                                                         [os.path.basename(f) for f in files]))
            continue
        with open(mine[0], errors="replace") as f:
            pgn = f.read()
        log("%s PGN:\n%s" % (name, pgn))
        bot_name, opp = "FeelBot", fake.games[g["id"]].opponent["name"]
        white, black = (bot_name, opp) if g["bot_color"] == "white" else (opp, bot_name)
        if pgn_tag(pgn, "White") != white or pgn_tag(pgn, "Black") != black:
            pgn_problems.append("%s: White %r Black %r (want %r %r)" % (name, pgn_tag(pgn, "White"),
                                                                       pgn_tag(pgn, "Black"), white, black))
        sans = san_tokens(pgn)
        if len(sans) != len(g["moves"]) or not all(san_fits(s, u) for s, u in zip(sans, g["moves"])):
            pgn_problems.append("%s: movetext %s does not match the moves %s" % (name, sans[:12], g["moves"][:12]))
        want_result = {"white": "1-0", "black": "0-1"}.get(g["winner"], "1/2-1/2")
        if pgn_tag(pgn, "Result") != want_result:
            pgn_problems.append("%s: Result %r (want %r for %s)" % (name, pgn_tag(pgn, "Result"), want_result,
                                                                  g["status"]))
    print("    PGN files: %s" % [os.path.basename(f) for f in files])
    check("pgn_saved", files and not pgn_problems, pgn_problems)

    # pgn_headers_filled: lichess-bot fills in what Lichess's export has (spec 5.7)
    header_problems = []
    for name in ("G1", "G2"):
        g = games.get(ids.get(name))
        mine = [f for f in files if g and g["id"] in os.path.basename(f)]
        if not mine:
            header_problems.append("%s: no PGN file" % name)
            continue
        with open(mine[0], errors="replace") as f:
            pgn = f.read()
        bot_side = "White" if g["bot_color"] == "white" else "Black"
        want = {"Site": fake.url + g["id"], "TimeControl": "60+0", bot_side + "Title": "BOT"}
        got = {k: pgn_tag(pgn, k) for k in list(want) + ["Date", "UTCDate"]}
        bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
        if not re.match(r"\d{4}\.\d\d\.\d\d$", got["Date"] or ""):
            bad["Date"] = (got["Date"], "today's date")
        if bad:
            header_problems.append("%s: (got, want) %s" % (name, bad))
    check("pgn_headers_filled", files and not header_problems, header_problems)

    # token_absent_from_output
    where = []
    if token in out or token in err:
        where.append("stdout/stderr")
    places = files + [p for p in (bot.db, bot.db + "-wal", bot.db + "-shm", bot.db + "-journal") if os.path.exists(p)]
    for p in places:
        with open(p, "rb") as f:
            if token.encode() in f.read():
                where.append(os.path.basename(p))
    check("token_absent_from_output", not where and os.path.exists(bot.db),
          "the token is in %s (db exists: %s)" % (where, os.path.exists(bot.db)))

    # bot_exits_clean
    marks = [line for line in err.splitlines() if any(m in line for m in SANITIZER_MARKS)]
    check("bot_exits_clean", rc == 0 and not marks, "exit %s after SIGTERM; %s; stderr tail: %s"
          % (rc, marks[:3], err[-300:]))
    if VERBOSE:
        print(err[-6000:])


# ---- a second bot: matchmaking, takebacks, the challenge queue ----

EXTRA_CHECKS = ["matchmaking_challenges_suitable_bot", "takebacks_answered_by_limit", "queue_in_best_order",
                "withdrawn_challenge_dropped", "recent_bot_challenges_later", "rate_limiting_delay_kept",
                "queue_told_in_chat"]


@suite.test(*EXTRA_CHECKS)
def extras_run():
    """Matchmaking, takebacks, the challenge queue's order, a withdrawn challenge, the recent-bot
    limit and rate_limiting_delay, with a second bot (about 40 s)."""
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



# ---- `feelfish serve --bot FILE` and GET /api/bot ----

def serve_has_bot():
    try:
        rc, out, err = run([FF, "serve", "--help"], timeout=20)
    except Exception:  # noqa: BLE001
        return False
    return "--bot" in out + err


if serve_has_bot():
    @suite.test()
    def serve_bot_status():
        token = new_token()
        fake = FakeLichess(token=token, log=log).start()
        server = None
        try:
            d = tmpdir("feelfish-bot-")
            cfg = os.path.join(d, "config.yml")
            with open(cfg, "w") as f:
                f.write(config_text(fake.url, token, [(r"^abort_time: .*$", "abort_time: 3")],
                                    extra="\nfeelfish:\n  movetime: 100\n"))
            server = Server("--bot", cfg)
            st = None
            for _ in range(100):
                st = server.request("GET", "/api/bot")[1]
                if isinstance(st, dict) and st.get("connected"):
                    break
                time.sleep(0.2)
            cid = fake.challenge(challenger=human(20), clock=(60, 0), bot_color="white",
                                 game={"movetime": 30, "max_plies": 16})
            during = None
            for _ in range(100):
                during = server.request("GET", "/api/bot")[1]
                gs = during.get("games") if isinstance(during, dict) else None
                if gs and any(g.get("id") == cid and g.get("plies", 0) >= 2 for g in gs):
                    break
                time.sleep(0.2)
            wait_over(fake, cid, 60)
            time.sleep(1.5)
            after = server.request("GET", "/api/bot")[1]
            gview = next((g for g in (during or {}).get("games", []) if g.get("id") == cid), {})
            fields = ("id", "game", "opponent", "color", "plies", "fen", "status")  # and job while it thinks
            rec = (after or {}).get("record", {}) if isinstance(after, dict) else {}
            stored = server.request("GET", "/api/games/%s" % gview.get("game")) if gview.get("game") else (None,)
            plain = Server()
            off = plain.request("GET", "/api/bot")
            plain.stop()
            print("    GET /api/bot during the game: %s" % gview)
            print("    after it: record %s, counts %s, errors %s" % (rec, (after or {}).get("counts"),
                                                                  (after or {}).get("errors")))
            ok = (isinstance(st, dict) and st.get("connected") is True and st.get("account") == "FeelBot"
                  and all(k in gview for k in fields) and gview.get("color") == "white"
                  and isinstance(gview.get("job", ""), str)
                  and isinstance(rec, dict) and sum(rec.get(k, 0) for k in ("wins", "losses", "draws")) == 1
                  and isinstance(after, dict) and "errors" in after and stored[0] == 200
                  and token not in str(after) + str(during) and off[0] == 404)
            check("serve_bot_status", ok, "first %s; during the game %s; after %s; GET /api/games/{game} %s; "
                  "GET /api/bot without --bot: %s" % (st, gview, after, stored[0], off[0]))
        finally:
            if server:
                server.stop()
            fake.close()

    def bot_game_in_mode(mode, plies):
        """A game of `plies` plies (adjudicated a draw there) played by `serve --bot` in `mode`: (the
        server, GET /api/bot after it, this server's game id), the server still running."""
        token = new_token()
        fake = FakeLichess(token=token, log=log).start()
        d = tmpdir("feelfish-bot-")
        cfg = os.path.join(d, "config.yml")
        with open(cfg, "w") as f:
            f.write(config_text(fake.url, token, extra="\nfeelfish:\n  mode: %s\n  movetime: 60\n" % mode))
        server = Server("--bot", cfg)
        try:
            for _ in range(100):
                st = server.request("GET", "/api/bot")[1]
                if isinstance(st, dict) and st.get("connected"):
                    break
                time.sleep(0.2)
            cid = fake.challenge(challenger=human(30), clock=(120, 0), bot_color="white",
                                 game={"movetime": 20, "max_plies": plies})
            game_id = None
            for _ in range(150):
                st = server.request("GET", "/api/bot")[1]
                game_id = next((g["game"] for g in (st or {}).get("games", []) if g.get("id") == cid and g["game"]),
                               game_id)
                if game_id:
                    break
                time.sleep(0.2)
            wait_over(fake, cid, 120)
            time.sleep(1.5)
            return server, server.request("GET", "/api/bot")[1], game_id
        finally:
            fake.close()

    @suite.test()
    def affective_pgn_has_emotions():
        server, st, game_id = bot_game_in_mode("affective", 16)
        try:
            status, pgn, _ = server.request("GET", "/api/games/%s/pgn" % game_id)
            comments = re.findall(r"\{([^}]*)\}", pgn if isinstance(pgn, str) else "")
            felt = [c for c in comments if "goal" in c and "intensity" in c]
            print("    affective bot game %s: %d comments with the engine's emotion, e.g. %r" % (
                game_id, len(felt), felt[:1]))
            check("affective_pgn_has_emotions", status == 200 and len(felt) >= 7, (status, comments[:4]))
        finally:
            server.stop()

    @suite.test()
    def bayesian_game_learned_and_style_shown():
        server, st, game_id = bot_game_in_mode("bayesian", 30)
        try:
            model = server.request("GET", "/api/bayes/model")[1]
            game = server.request("GET", "/api/games/%s" % game_id)[1]
            style = (st or {}).get("opponentStyle")
            print("    bayesian bot game %s: learned %s, model games %s, opponentStyle %s" % (
                game_id, (game or {}).get("learned"), (model or {}).get("games"), style))
            check("bayesian_game_learned_and_style_shown", isinstance(game, dict) and game.get("learned") is True
                  and (model or {}).get("games") == 1 and isinstance(style, dict) and style.get("opponent") == "Human30"
                  and style.get("style") in ("attacking", "positional", "mixed"),
                  {"learned": (game or {}).get("learned"), "notLearned": (game or {}).get("notLearned"),
                   "model": (model or {}).get("games"), "style": style})
        finally:
            server.stop()
else:
    print("(serve_bot_status not run: `feelfish serve --help` has no --bot yet)")


if __name__ == "__main__":
    sys.exit(suite.main())
