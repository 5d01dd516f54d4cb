#!/usr/bin/env python3
"""Games against the engine through the real server: creating them (from the start, a FEN or moves;
bad bodies refused), moves in UCI or SAN with the engine's replies, illegal moves, mate and game over,
resigning, taking back, the PGN, an affective game's emotion history, and games that survive a
restart. Standard library only. Run it all, or some checks: test_games.py [--list] [CHECK_NAME...];
prints 'games: N passed, N failed'."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, Suite, check, error_code  # noqa: E402

suite = Suite("games", lambda: Server("--workers", "2", "--queue", "8"))
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"  # White plays d1d8 mate
FOOLS_MATE = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"


def new_game(s, body):
    st, g, _ = s.request("POST", "/api/games", body)
    assert isinstance(g, dict) and "id" in g, (st, g)
    return g


def move(s, g, mv):
    return s.request("POST", "/api/games/%s/moves" % g["fullId"], {"move": mv})


def played_game(s):
    """A classical game, White at level 1, after 1. e4 (the engine's reply) 2. Nf3 (its reply)."""
    g = new_game(s, {"mode": "classical", "color": "white", "level": 1})
    move(s, g, "e2e4")
    move(s, g, "Nf3")
    return g


# ---- create, move, finish ----

@suite.test()
def game_created():
    st, g0, _ = suite.server().request("POST", "/api/games", {"mode": "classical", "color": "white", "level": 1})
    check("game_created", st == 201 and g0["status"] == "started" and g0["moves"] == [] and g0["turn"] == "white", g0)


@suite.test()
def game_engine_replies():
    s = suite.server()
    g0 = new_game(s, {"mode": "classical", "color": "white", "level": 1})
    st, g1, _ = move(s, g0, "e2e4")
    check("game_engine_replies", st == 200 and len(g1["moves"]) == 2 and g1["moves"][0] == "e2e4"
          and g1["san"][0] == "e4" and g1["turn"] == "white" and g1["status"] == "started", g1)


@suite.test()
def game_reads_san():
    s = suite.server()
    g0 = new_game(s, {"mode": "classical", "color": "white", "level": 1})
    move(s, g0, "e2e4")
    st, g2, _ = move(s, g0, "Nf3")
    check("game_reads_san", st == 200 and g2["san"][2] == "Nf3" and len(g2["moves"]) == 4, g2)


@suite.test()
def game_illegal_move():
    s = suite.server()
    res = move(s, played_game(s), "e2e5")
    check("game_illegal_move", res[0] == 400 and error_code(res) == "illegal_move", res[1])


@suite.test()
def game_bad_body():
    s = suite.server()
    res = s.request("POST", "/api/games/%s/moves" % played_game(s)["fullId"], {"mov": "e2e4"})
    check("game_bad_body", res[0] == 400 and error_code(res) == "bad_move", res[1])


@suite.test()
def game_pgn():
    s = suite.server()
    st, pgn, resp = s.request("GET", "/api/games/%s/pgn" % played_game(s)["id"])
    check("game_pgn", st == 200 and resp.getheader("Content-Type") == "application/x-chess-pgn"
          and "1. e4" in pgn and "2. Nf3" in pgn and '[Result "*"]' in pgn, pgn)


@suite.test()
def game_mate():
    s = suite.server()
    gm = new_game(s, {"color": "white", "level": 2, "fen": MATE_IN_ONE})
    st, mated, _ = move(s, gm, "d1d8")
    check("game_mate", mated["status"] == "mate" and mated["result"] == "1-0" and len(mated["moves"]) == 1, mated)


@suite.test()
def game_over_409():
    s = suite.server()
    gm = new_game(s, {"color": "white", "level": 2, "fen": MATE_IN_ONE})
    move(s, gm, "d1d8")
    res = move(s, gm, "g8h8")
    check("game_over_409", res[0] == 409 and error_code(res) == "game_over", res[1])


@suite.test()
def game_engine_moves_first():
    st, gb, _ = suite.server().request("POST", "/api/games", {"color": "black", "level": 4})
    check("game_engine_moves_first", st == 200 and len(gb["moves"]) == 1 and gb["turn"] == "black", gb)


@suite.test()
def game_resign():
    s = suite.server()
    gb = new_game(s, {"color": "black", "level": 4})
    st, rs, _ = s.request("POST", "/api/games/%s/resign" % gb["fullId"])
    check("game_resign", rs["status"] == "resign" and rs["result"] == "1-0", rs)


@suite.test()
def game_emotion_history():
    s = suite.server()
    ga = new_game(s, {"mode": "affective", "color": "white", "level": 3, "temperament": "anxious"})
    for mv in ["d2d4", "c2c4"]:
        st, ga, _ = move(s, ga, mv)
    em = ga.get("emotions", [])
    check("game_emotion_history", len(em) == 2 and [e["ply"] for e in em] == [1, 3]
          and all(e["label"] and e["goal"] for e in em), em)


@suite.test()
def game_gain():
    """An affective game may ask for the emotion's hold ("gain"): the game shows it, every engine move's
    emotion was appraised with it, and a restarted server keeps it; without one the temperament's."""
    s = Server("--workers", "2", "--queue", "8")
    try:
        plain = new_game(s, {"mode": "affective", "color": "white", "level": 2, "temperament": "bold"})
        g = new_game(s, {"mode": "affective", "color": "white", "level": 2, "temperament": "bold", "gain": 0.3})
        for mv in ["e2e4", "d2d4"]:
            st, g, _ = move(s, g, mv)
    finally:
        s.stop()
    with Server("--workers", "1", db=s.db) as again:
        st2, back, _ = again.request("GET", "/api/games/" + g["fullId"])
    em = g.get("emotions", [])
    check("game_gain", plain.get("gain") == 0.05 and g.get("gain") == 0.3 and len(em) == 2
          and all(e.get("gain") == 0.3 for e in em) and st2 == 200 and back.get("gain") == 0.3,
          {"default": plain.get("gain"), "game": g, "after restart": back})


def game_create_refused(body, code):
    res = suite.server().request("POST", "/api/games", body)
    check("game_create_" + code, res[0] == 400 and error_code(res) == code, res[1])


for _body, _code in [({"level": 9}, "bad_level"), ({"elo": 50}, "bad_elo"), ({"level": 2, "elo": 1500}, "level_and_elo"),
                     ({"color": "purple"}, "bad_color"), ({"mode": "x"}, "bad_mode"),
                     ({"fen": "8/8/8 w - -"}, "fen_rank_count"), ({"foo": 1}, "unknown_field"),
                     ({"fen": FOOLS_MATE}, "game_over"), ({"mode": "affective", "gain": 1.01}, "bad_gain")]:
    suite.add("game_create_" + _code, game_create_refused, _body, _code)


@suite.test("game_at_a_rating", "game_pgn_has_rating")
def game_at_a_rating():
    """A game asked at a rating plays at it (its level is the nearest one); a level's game carries the
    level's rating, level 8 none (full strength)."""
    s = suite.server()
    ratings = {lv["level"]: lv["elo"] for lv in s.request("GET", "/api/config")[1].get("levels", [])}
    asked = ratings[3] + 40
    made = [s.request("POST", "/api/games", body) for body in ({"elo": asked, "color": "black"}, {"level": 5},
                                                              {"elo": None})]
    wrong = [error_code(s.request("POST", "/api/games", {"elo": e})) for e in ("1500", 1500.5, True)]
    got = [r[1] if isinstance(r[1], dict) else {} for r in made]
    # The PGN: the engine's side carries its rating (White here: the person is Black), none at full strength.
    pgns = [s.request("GET", "/api/games/%s/pgn" % g.get("id", "x"))[1] for g in (got[0], got[2])]
    pgn_ok = ('[WhiteElo "%d"]' % asked in pgns[0] and "BlackElo" not in pgns[0]
              and '[FeelfishMode "classical, level 3, rating %d"]' % asked in pgns[0]
              and "Elo " not in pgns[1] and '[FeelfishMode "classical, level 8"]' in pgns[1])
    check("game_pgn_has_rating", pgn_ok, pgns)
    check("game_at_a_rating", [r[0] for r in made] == [200, 201, 201]
          and (got[0].get("elo"), got[0].get("level"), len(got[0].get("moves", []))) == (asked, 3, 1)
          and (got[1].get("elo"), got[1].get("level")) == (ratings[5], 5)
          and (got[2].get("elo"), got[2].get("level")) == (None, 8) and wrong == ["bad_elo"] * 3,
          {"games (level, elo, moves)": [(g.get("level"), g.get("elo"), g.get("moves")) for g in got], "refusals": wrong})


@suite.test()
def game_create_gain_not_a_number():
    answers = [suite.server().request("POST", "/api/games", {"mode": "affective", "gain": g}) for g in ("0.1", None, -1)]
    check("game_create_gain_not_a_number", all(a[0] == 400 and error_code(a) == "bad_gain" for a in answers),
          [a[1] for a in answers])


@suite.test()
def game_unknown():
    res = suite.server().request("GET", "/api/games/gdoesnotexist")
    check("game_unknown", res[0] == 404 and error_code(res) == "unknown_game", res[1])


# ---- takeback ----

def game_for_takeback(s):
    """A classical game, White at level 1, after 1. e4 (reply) 2. d4 (reply); the list of its moves."""
    t = new_game(s, {"mode": "classical", "color": "white", "level": 1})
    move(s, t, "e2e4")
    st, t, _ = move(s, t, "d2d4")
    return t


@suite.test()
def takeback_removes_pair():
    s = suite.server()
    t = game_for_takeback(s)
    n = len(t["moves"])
    st, tb, _ = s.request("POST", "/api/games/%s/takeback" % t["fullId"])
    check("takeback_removes_pair", st == 200 and len(tb["moves"]) == n - 2 and tb["turn"] == "white", tb)


@suite.test()
def takeback_nothing_left_409():
    s = suite.server()
    t = game_for_takeback(s)
    s.request("POST", "/api/games/%s/takeback" % t["fullId"])
    st, tb, _ = s.request("POST", "/api/games/%s/takeback" % t["fullId"])
    res = s.request("POST", "/api/games/%s/takeback" % t["fullId"])
    check("takeback_nothing_left_409", st == 200 and tb["moves"] == [] and res[0] == 409
          and error_code(res) == "nothing_to_take_back", res[1])


@suite.test()
def takeback_after_end_409():
    s = suite.server()
    t = game_for_takeback(s)
    s.request("POST", "/api/games/%s/takeback" % t["fullId"])
    s.request("POST", "/api/games/%s/takeback" % t["fullId"])
    s.request("POST", "/api/games/%s/resign" % t["fullId"])
    res = s.request("POST", "/api/games/%s/takeback" % t["fullId"])
    check("takeback_after_end_409", res[0] == 409 and error_code(res) == "game_over", res[1])


# ---- a game can start from moves (UCI or SAN): they are the game's own, in its PGN ----

@suite.test()
def game_from_moves():
    s = suite.server()
    st, gm, _ = s.request("POST", "/api/games", {"moves": ["e2e4", "e5", "g1f3"], "color": "black", "level": 1})
    st2, pgn, _ = s.request("GET", "/api/games/%s/pgn" % gm.get("id", "x"))
    check("game_from_moves", st == 201 and gm["moves"] == ["e2e4", "e7e5", "g1f3"] and gm["turn"] == "black"
          and isinstance(pgn, str) and "1. e4 e5 2. Nf3" in pgn, (st, gm, pgn))


@suite.test()
def game_from_bad_moves_400():
    res = suite.server().request("POST", "/api/games", {"moves": ["e2e4", "e2e4"], "level": 1})
    check("game_from_bad_moves_400", res[0] == 400 and error_code(res) == "bad_move"
          and res[1]["error"]["field"] == "moves", res[1])


@suite.test()
def game_from_finished_moves_400():
    res = suite.server().request("POST", "/api/games", {"moves": ["f2f3", "e7e5", "g2g4", "d8h4"], "level": 1})
    check("game_from_finished_moves_400", res[0] == 400 and error_code(res) == "game_over", res[1])


# ---- stored games: reloaded by a restarted server (their own server and database) ----

def restarted_with_game():
    """A game after 1. e4 .. 2. Nf3 .. on a server that is then restarted on the same database:
    (the new server, the game's fullId)."""
    s = Server("--workers", "2", "--queue", "8")
    try:
        game_id = played_game(s)["fullId"]
    finally:
        s.stop()
    return Server("--workers", "1", db=s.db), game_id


@suite.test()
def game_survives_restart():
    s, game_id = restarted_with_game()
    with s:
        st, gr, _ = s.request("GET", "/api/games/" + game_id)
    check("game_survives_restart", st == 200 and len(gr["moves"]) == 4 and gr.get("level") == 1
          and isinstance(gr.get("elo"), int), gr)


@suite.test()
def game_continues_after_restart():
    s, game_id = restarted_with_game()
    with s:
        # Nc3 is legal whatever Black's two replies were (d2-d3 is not after ...Bb4 or ...Qa5, which pin the pawn)
        st, gr, _ = s.request("POST", "/api/games/%s/moves" % game_id, {"move": "b1c3"})
    check("game_continues_after_restart", st == 200 and len(gr["moves"]) == 6, gr)


@suite.test("public_id_cannot_play_403", "public_id_hides_full_id", "full_id_shows_itself",
            "wrong_secret_cannot_play_403")
def owners():
    s = suite.server()
    g = s.request("GET", "/api/games/" + played_game(s)["fullId"])[1]
    public, full = g["id"], g["fullId"]
    refused = [s.request("POST", "/api/games/%s/%s" % (public, what), body) for what, body in
               (("moves", {"move": "d2d3"}), ("takeback", {}), ("resign", {}))]
    check("public_id_cannot_play_403", all(res[0] == 403 and error_code(res) == "not_your_game" for res in refused)
          and len(full) == len(public) + 8 and full.startswith(public), [(r[0], r[1]) for r in refused])
    st, seen, _ = s.request("GET", "/api/games/" + public)
    check("public_id_hides_full_id", st == 200 and "fullId" not in seen and seen["moves"] == g["moves"], seen)
    st, mine, _ = s.request("GET", "/api/games/" + full)
    check("full_id_shows_itself", st == 200 and mine.get("fullId") == full, mine)
    wrong = public + ("0" * 8 if not full.endswith("0" * 8) else "1" * 8)
    res = s.request("POST", "/api/games/%s/moves" % wrong, {"move": "d2d3"})
    st, after, _ = s.request("GET", "/api/games/" + public)
    check("wrong_secret_cannot_play_403", res[0] == 403 and after["moves"] == g["moves"], (res[0], res[1]))


if __name__ == "__main__":
    sys.exit(suite.main())
