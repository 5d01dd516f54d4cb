#!/usr/bin/env python3
"""The Bayesian-adaptive mode through the real server (issue 6): results carry phase, target, reason
and games learned; the model route; the style route; a stateful game against an attacking opening
sequence switches the target as shared/spec/bayesian.md section 6 says; finished games are learned
and survive a restart. (Takeback and games from moves are in test_games.py.)

What a check sees of the model depends on the games the server has learned, so every check that
looks at the model's counts, plays the attacking game (the engine's moves follow the model) or
finishes a game runs its own server on a fresh database; the shared server only answers the
stateless ones. Standard library only. Run it all, or some checks: test_bayesian.py [--list]
[CHECK_NAME...]; prints 'bayesian: N passed, N failed'."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fen import squares  # noqa: E402
from harness import DATA, FF, Server, Suite, check, error_code  # noqa: E402


def fresh():
    """A server with a database of its own: no game learned yet."""
    return Server("--workers", "1")


suite = Suite("bayesian", fresh)
BARE_ENDGAME = "8/8/4k3/8/8/3K4/4P3/8 w - - 0 40"


def attacking_black_move(s, fen):
    """An attacking plan for Black, from the server's own candidate moves: pawns storming the
    white king's files, pieces jumping past Black's third rank; otherwise the best move."""
    st, a, _ = s.request("POST", "/api/analyse", {"fen": fen, "multiPv": 12, "limits": {"depth": 2}})
    board = squares(fen)
    kf = next((ord(sq[0]) - 97 for sq, p in board.items() if p == "K"), 4)
    best = a["pvs"][0].get("cp", 0)
    for pv in a["pvs"]:
        m, cp = pv["moves"][0], pv.get("cp")
        if cp is None or abs(cp - best) > 150:
            continue
        piece, to_file, to_rank = board.get(m[:2]), ord(m[2]) - 97, int(m[3])
        if piece == "p" and abs(to_file - kf) <= 1 and to_rank <= 5:
            return m
        if piece in ("n", "b", "r", "q") and to_rank <= 5 and int(m[1]) > 5:
            return m
    return a["pvs"][0]["moves"][0]


def new_attacking_game(s):
    st, g, _ = s.request("POST", "/api/games", {"mode": "bayesian", "color": "black", "level": 1,
                                                "target": "auto", "defaultTarget": "aggressive"})
    return st, g


def attacking_game(s):
    """A stateful game: the human is Black and plays an attacking sequence (1...c5, pieces forward,
    pawns storming the white king). Before its 10th move the engine uses the requested default
    (aggressive here); from then on the recognised style decides: attacking -> conservative.
    Returns the game as last answered and [(human move number, the engine's bayesian choice)]."""
    st, g = new_attacking_game(s)
    assert st in (200, 201), g
    seen, human_moves = [], 0
    while g["status"] == "started" and human_moves < 16:
        mv = "c7c5" if human_moves == 0 else attacking_black_move(s, g["fen"])
        st, g, _ = s.request("POST", "/api/games/%s/moves" % g["fullId"], {"move": mv})
        if st != 200:
            break
        human_moves += 1
        if g["status"] == "started":
            seen.append((human_moves, g["bayesian"]))
    return g, seen


def long_attacking_game():
    """attacking_game on a fresh server, reaching the human's 10th move: when the engine's moves (not
    seeded) end the game before it (mate, stalemate or a draw), the game is played again on another
    fresh server, three tries at most. A refused move is not retried: its answer is returned."""
    for attempt in range(3):
        with fresh() as s:
            g, seen = attacking_game(s)
        over_early = g.get("status") not in (None, "started") and not any(n >= 10 for n, _ in seen)
        if not over_early or attempt == 2:
            return g, seen
        print("    (the attacking game ended early, %s after %d engine replies: played again)"
              % (g["status"], len(seen)), flush=True)


def late_choices(g, seen):
    """The engine's choices from the human's 10th move on; what the game came to when there are none."""
    late = [b for n, b in seen if n >= 10]
    return late, late or {"status": g.get("status"), "engineReplies": len(seen), "answer": g}


def resigned_attacking_game():
    """On a fresh server, the attacking game resigned after the human's 16th move (finished: learned):
    (the server, still running; the resignation's status and game). The engine's moves are not seeded
    (about one game in 40 ends in mate before that move, and a finished game cannot resign): then the
    setup starts again on another fresh server, three times at most."""
    for attempt in range(3):
        s = fresh()
        g, _ = attacking_game(s)
        if g["status"] == "started" or attempt == 2:
            st, g, _ = s.request("POST", "/api/games/%s/resign" % g["fullId"])
            return s, st, g
        s.stop()


# ---- the model route ----

@suite.test()
def model_empty_at_start():
    with fresh() as s:
        st, model, _ = s.request("GET", "/api/bayes/model")
    check("model_empty_at_start", st == 200 and model["games"] == 0 and model["format"] == "feelfish-bayes"
          and model["parameters"] == 15 and model["styleModel"] is True, model if st != 200 else
          {k: model[k] for k in ("games", "parameters", "styleModel")})


@suite.test()
def model_export_has_counts():
    with fresh() as s:
        st, counts, _ = s.request("GET", "/api/bayes/model?detail=counts")
    first = next(iter(counts["params"].values())) if st == 200 else {}
    check("model_export_has_counts", st == 200 and counts["detail"] == "counts"
          and first["opening"]["win"] == [0, 0, 0, 0, 0], first)


@suite.test()
def model_bad_detail_400():
    res = suite.server().request("GET", "/api/bayes/model?detail=everything")
    check("model_bad_detail_400", res[0] == 400 and error_code(res) == "bad_detail", res[1])


# ---- the learning curve ----

@suite.test()
def curve_empty_at_start():
    with fresh() as s:
        st, c, _ = s.request("GET", "/api/bayes/curve")
    check("curve_empty_at_start", st == 200 and c["games"] == 0 and c["gamesStored"] == 0 and c["changes"] == []
          and c["matches"] == [] and c["rule"] == "evidence", c)


@suite.test()
def curve_of_learned_games():
    """12 self-play games (feelfish learn) and bayes-experiment's points at 0 and 10 games: the curve has
    the checkpoint 10 and the total 12, and the two measured points as stored."""
    db = os.path.join(tempfile.mkdtemp(prefix="feelfish-curve-"), "c.db")
    for cmd in (["learn", "--games", "12", "--nodes", "300", "--concurrency", "2"],
                ["bayes-experiment", "--sizes", "0,10", "--games", "2", "--nodes", "300"]):
        subprocess.run([FF] + cmd + ["--db", db], check=True, capture_output=True, timeout=120)
    with Server("--workers", "1", db=db) as s:
        st, c, _ = s.request("GET", "/api/bayes/curve")
        again = s.request("GET", "/api/bayes/curve")[1]
    m = c.get("matches", []) if st == 200 else []
    check("curve_of_learned_games", st == 200 and c["games"] == 12 and c["gamesStored"] == 12
          and [p["games"] for p in c["changes"]] == [10, 12]
          and all(set(p["changedParams"]) == {"aggressive", "conservative"} for p in c["changes"])
          and [p["games"] for p in m] == [0, 10]
          and all(p["wins"] + p["draws"] + p["losses"] == 2 and p["control"] == "300 nodes"
                  and p["target"] == "aggressive" and p["rule"] == "evidence" and p["records"] == "all" for p in m)
          and again == c, c)


@suite.test()
def curve_grows_with_a_finished_game():
    """A finished game is learned: the curve's next answer replays it (no waiting for the cache)."""
    s, _, _ = resigned_attacking_game()
    try:
        st, c, _ = s.request("GET", "/api/bayes/curve")
    finally:
        s.stop()
    check("curve_grows_with_a_finished_game", st == 200 and c["games"] == 1 and c["gamesStored"] == 1
          and [p["games"] for p in c["changes"]] == [1], c)


# ---- analyses in bayesian mode ----

@suite.test()
def analyse_reports_choice():
    with fresh() as s:
        st, r, _ = s.request("POST", "/api/analyse", {"moves": ["e2e4", "e7e5"], "mode": "bayesian",
                                                      "limits": {"depth": 6}})
    b = r.get("bayesian", {}) if st == 200 else {}
    check("analyse_reports_choice", st == 200 and r["mode"] == "bayesian" and b.get("phase") == "opening"
          and b.get("target") == "conservative" and "before the opponent's move 10" in b.get("reason", "")
          and b.get("gamesLearned") == 0 and b.get("changedParams") == 0 and b.get("style") is None, r)


@suite.test()
def analyse_requested_target_middlegame():
    st, r, _ = suite.server().request("POST", "/api/analyse", {
        "fen": "r1bqkbnr/2pppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 20", "mode": "bayesian",
        "bayesian": {"target": "aggressive"}, "limits": {"depth": 4}})
    check("analyse_requested_target_middlegame", st == 200 and r["bayesian"]["target"] == "aggressive"
          and r["bayesian"]["reason"] == "requested" and r["bayesian"]["phase"] == "middlegame", r)


@suite.test()
def analyse_auto_bare_position_default():
    st, r, _ = suite.server().request("POST", "/api/analyse", {
        "fen": BARE_ENDGAME, "mode": "bayesian", "bayesian": {"target": "auto", "default": "aggressive"},
        "limits": {"depth": 4}})
    check("analyse_auto_bare_position_default", st == 200 and r["bayesian"]["phase"] == "endgame"
          and r["bayesian"]["target"] == "aggressive" and "bare position" in r["bayesian"]["reason"], r)


def analyse_bad_bayesian(name, bad, code):
    res = suite.server().request("POST", "/api/analyse", {"fen": BARE_ENDGAME, "mode": "bayesian", "bayesian": bad,
                                                          "limits": {"depth": 2}})
    check("analyse_bad_bayesian_" + name, res[0] == 400 and error_code(res) == code, res[1])


for _case in [("target", {"target": "reckless"}, "bad_target"),
              ("default_auto", {"default": "auto"}, "bad_target"),
              ("unknown_key", {"aim": "win"}, "unknown_field"),
              ("not_object", "aggressive", "bad_type")]:
    suite.add("analyse_bad_bayesian_" + _case[0], analyse_bad_bayesian, *_case)


# ---- POST /api/style on real games of the training players ----

def kasparov_pgn():
    with open(os.path.join(DATA, "pgn", "Kasparov.pgn"), encoding="latin-1") as f:
        text = f.read(60000)
    return text[:text.rfind("[Event ")]


@suite.test()
def style_of_games():
    st, r, _ = suite.server().request("POST", "/api/style", {"pgn": kasparov_pgn(), "player": "Kasparov"})
    post = r.get("posterior", {}) if st == 200 else {}
    check("style_of_games", st == 200 and r["games"] >= 5 and r["style"] in post
          and abs(sum(post.values()) - 1) < 1e-6 and set(r["features"]) == {"firstMove", "castling", "pieces",
                                                                             "pawns"}, r)


def style_refused(name, body_of, code):
    res = suite.server().request("POST", "/api/style", body_of(kasparov_pgn()))
    check("style_" + name, res[0] == 400 and error_code(res) == code, res[1])


for _case in [("player_missing", lambda pgn: {"pgn": pgn}, "bad_player"),
              ("player_not_found", lambda pgn: {"pgn": pgn, "player": "Capablanca"}, "player_not_found"),
              ("pgn_missing", lambda pgn: {"player": "white"}, "bad_pgn"),
              ("unknown_field", lambda pgn: {"pgn": pgn, "player": "white", "x": 1}, "unknown_field"),
              ("pgn_garbage", lambda pgn: {"pgn": "1. e4 e5 2. Qxf7?? Kxf7 *", "player": "white"}, "bad_pgn")]:
    suite.add("style_" + _case[0], style_refused, *_case)


# ---- a stateful game against an attacking sequence (each on a fresh server: see above) ----

@suite.test()
def game_created_bayesian():
    st, g = new_attacking_game(suite.server())
    check("game_created_bayesian", st in (200, 201) and g["bayesian"]["target"] == "aggressive"
          and g["target"] == "auto", g)


@suite.test()
def game_before_move_10_requested_default():
    _, seen = long_attacking_game()
    early = [b for n, b in seen if n < 10]
    check("game_before_move_10_requested_default", early and all(
        b["target"] == "aggressive" and "before the opponent's move 10" in b["reason"] for b in early), early)


MAPPING = {"attacking": "conservative", "positional": "aggressive"}


@suite.test()
def game_from_move_10_style_decides():
    late, detail = late_choices(*long_attacking_game())
    check("game_from_move_10_style_decides", late and all(
        b["style"] and b["reason"].startswith("opponent style " + b["style"]["style"])
        and (b["style"]["style"] == "mixed" or b["target"] == MAPPING[b["style"]["style"]]) for b in late), detail)


@suite.test()
def game_attacking_sequence_recognised_switches_target():
    """The human's plan depends on the engine's replies (not seeded): about one game in ten leaves it no
    attacking move within 150 cp and reads "mixed" or "positional" (4 of 40 measured on 2026-11-28).
    So: recognised in one of three games; a classifier that never reads this sequence as attacking
    still fails."""
    for attempt in range(3):
        late, detail = late_choices(*long_attacking_game())
        if late and late[-1]["style"]["style"] == "attacking" or attempt == 2:
            break
        print("    (read as %s with features %s: played again)"
              % (late[-1]["style"]["style"], late[-1]["style"]["features"]) if late else "    (no choice: played again)",
              flush=True)
    check("game_attacking_sequence_recognised_switches_target",
          late and late[-1]["style"]["style"] == "attacking" and late[-1]["target"] == "conservative",
          late[-1] if late else detail)


@suite.test()
def game_history_per_engine_move():
    g, seen = long_attacking_game()
    check("game_history_per_engine_move", len(g.get("bayesianHistory", [])) >= len(seen)
          and "opening" in g.get("levelsUsed", {}), {k: g.get(k) for k in ("levelsUsed",)})


@suite.test()
def finished_game_learned():
    s, st, g = resigned_attacking_game()
    s.stop()
    check("finished_game_learned", st == 200 and g["learned"] is True, g.get("learned"))


@suite.test()
def model_counts_the_game():
    s, _, _ = resigned_attacking_game()
    with s:
        st, model, _ = s.request("GET", "/api/bayes/model")
    check("model_counts_the_game", model["games"] == 1 and sum(model["records"]["opening"].values()) == 1,
          {k: model[k] for k in ("games", "records")})


@suite.test()
def results_report_games_learned():
    s, _, _ = resigned_attacking_game()
    with s:
        st, r, _ = s.request("POST", "/api/analyse", {"fen": BARE_ENDGAME, "mode": "bayesian", "limits": {"depth": 2}})
    check("results_report_games_learned", r["bayesian"]["gamesLearned"] == 1, r.get("bayesian"))


@suite.test()
def game_default_target_needs_auto():
    res = suite.server().request("POST", "/api/games", {"mode": "bayesian", "target": "aggressive",
                                                        "defaultTarget": "conservative"})
    check("game_default_target_needs_auto", res[0] == 400 and error_code(res) == "bad_target", res[1])


# ---- learned games are in the database: a restarted server starts from them ----

@suite.test()
def model_survives_restart():
    """Classical games count too: a resigned classical game (21 opening plies and the engine's reply:
    long enough to teach, --learn-min-plies being 20) adds a second."""
    s, _, _ = resigned_attacking_game()
    try:
        line = ("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6a5 b3c2 "
                "c7c5 d2d4").split()
        st, t, _ = s.request("POST", "/api/games", {"mode": "classical", "color": "white", "level": 1, "moves": line})
        s.request("POST", "/api/games/%s/resign" % t["fullId"])
    finally:
        s.stop()
    with Server("--workers", "1", db=s.db) as s:
        st, model, _ = s.request("GET", "/api/bayes/model")
    check("model_survives_restart", st == 200 and model["games"] == 2, model.get("games"))


@suite.test()
def game_reloaded_keeps_bayesian():
    """The restarted server answers the game with the block it had before (the engine's moves are not
    seeded, so the style read, and the target it maps to, can differ from one run to the next)."""
    s, st, before = resigned_attacking_game()
    s.stop()
    with Server("--workers", "1", db=s.db) as s:
        st, g, _ = s.request("GET", "/api/games/" + before["id"])
    b = g.get("bayesian") or {}
    style = (b.get("style") or {}).get("style")
    check("game_reloaded_keeps_bayesian", st == 200 and g["learned"] is True and g["target"] == "auto"
          and b.get("target") in ("conservative", "aggressive") and b == before.get("bayesian")
          and (style == "mixed" or b.get("target") == MAPPING.get(style)),
          {"before": before.get("bayesian"), "after": {k: g.get(k) for k in ("learned", "target", "bayesian")}})


if __name__ == "__main__":
    sys.exit(suite.main())
