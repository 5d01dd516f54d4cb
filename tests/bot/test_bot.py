#!/usr/bin/env python3
"""The Lichess bot bridge (`feelfish bot`) end to end, against a fake Lichess (fake_lichess.py:
the Bot API with real rules and clocks, Stockfish as the opponent): one bot, one fake, ~1.5 min.

The run goes through, in order: a game in progress before the bot starts (followed from
/api/account/playing); a batch of challenges the config must decline, each with lichess-bot's
reason, and one it accepts (whose first accept gets a 429); that game, with a 429 on the first
chat, a draw offer from the opponent and a chat command; a challenge while it is on (concurrency 1:
later); a game whose stream is reset mid-game and whose 5th move gets a 429; the event stream
reset; two games whose opponent never moves (the bot must abort after abort_time); 30 s with
nothing but keep-alive lines. Then SIGTERM. Its checks read what the fake recorded, the bot's
output, its PGN files and its database. The config and the refusals at start are
test_bot_config.py's; matchmaking, takebacks and the challenge queue test_bot_matchmaking.py's;
`serve --bot` and GET /api/bot test_bot_serve.py's.

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
from botlib import ABORT_TIME, VERBOSE, Bot, config_text, human, log, new_token, wait_over  # noqa: E402
from fake_lichess import FakeLichess  # noqa: E402
from fake_lichess_chess import TERMINAL  # noqa: E402
from harness import SANITIZER_MARKS, Suite, check, tmpdir  # noqa: E402

suite = Suite("bot")


# ---- the main run ----

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


if __name__ == "__main__":
    sys.exit(suite.main())
