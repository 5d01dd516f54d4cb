#!/usr/bin/env python3
"""The Bayesian-adaptive mode through the real server (issue 6): results carry phase, target, reason
and games learned; the model route; the style route; a stateful game against an attacking opening
sequence switches the target as shared/spec/bayesian.md section 6 says; finished games are learned
and survive a restart; takeback. Standard library only; prints 'bayesian: N passed, N failed'."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, summary  # noqa: E402
from test_http import Server, error_code  # noqa: E402

DATA = os.environ.get("FEELFISH_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))


def squares(fen):
    """The pieces of a FEN's board by square name ("e1": "K")."""
    board = {}
    for i, row in enumerate(fen.split()[0].split("/")):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board["%s%d" % (chr(97 + f), 8 - i)] = ch
                f += 1
    return board


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


def main():
    s = Server("--workers", "1")
    try:
        st, model, _ = s.request("GET", "/api/bayes/model")
        check("model_empty_at_start", st == 200 and model["games"] == 0 and model["format"] == "feelfish-bayes"
              and model["parameters"] > 400 and model["styleModel"] is True, model if st != 200 else
              {k: model[k] for k in ("games", "parameters", "styleModel")})
        st, counts, _ = s.request("GET", "/api/bayes/model?detail=counts")
        first = next(iter(counts["params"].values())) if st == 200 else {}
        check("model_export_has_counts", st == 200 and counts["detail"] == "counts"
              and first["opening"]["win"] == [0, 0, 0, 0, 0], first)
        res = s.request("GET", "/api/bayes/model?detail=everything")
        check("model_bad_detail_400", res[0] == 400 and error_code(res) == "bad_detail", res[1])

        body = {"moves": ["e2e4", "e7e5"], "mode": "bayesian", "limits": {"depth": 6}}
        st, r, _ = s.request("POST", "/api/analyse", body)
        b = r.get("bayesian", {}) if st == 200 else {}
        check("analyse_reports_choice", st == 200 and r["mode"] == "bayesian" and b.get("phase") == "opening"
              and b.get("target") == "conservative" and "before the opponent's move 10" in b.get("reason", "")
              and b.get("gamesLearned") == 0 and b.get("changedParams") == 0 and b.get("style") is None, r)
        st, r, _ = s.request("POST", "/api/analyse", {"fen": "r1bqkbnr/2pppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 20",
                                                      "mode": "bayesian", "bayesian": {"target": "aggressive"},
                                                      "limits": {"depth": 4}})
        check("analyse_requested_target_middlegame", st == 200 and r["bayesian"]["target"] == "aggressive"
              and r["bayesian"]["reason"] == "requested" and r["bayesian"]["phase"] == "middlegame", r)
        st, r, _ = s.request("POST", "/api/analyse", {"fen": "8/8/4k3/8/8/3K4/4P3/8 w - - 0 40", "mode": "bayesian",
                                                      "bayesian": {"target": "auto", "default": "aggressive"},
                                                      "limits": {"depth": 4}})
        check("analyse_auto_bare_position_default", st == 200 and r["bayesian"]["phase"] == "endgame"
              and r["bayesian"]["target"] == "aggressive" and "bare position" in r["bayesian"]["reason"], r)
        for name, bad, code in [("target", {"target": "reckless"}, "bad_target"),
                                ("default_auto", {"default": "auto"}, "bad_target"),
                                ("unknown_key", {"aim": "win"}, "unknown_field"),
                                ("not_object", "aggressive", "bad_type")]:
            res = s.request("POST", "/api/analyse", {"fen": "8/8/4k3/8/8/3K4/4P3/8 w - - 0 40", "mode": "bayesian",
                                                     "bayesian": bad, "limits": {"depth": 2}})
            check("analyse_bad_bayesian_" + name, res[0] == 400 and error_code(res) == code, res[1])

        # POST /api/style on real games of the training players
        with open(os.path.join(DATA, "pgn", "Kasparov.pgn"), encoding="latin-1") as f:
            text = f.read(60000)
        pgn = text[:text.rfind("[Event ")]
        st, r, _ = s.request("POST", "/api/style", {"pgn": pgn, "player": "Kasparov"})
        post = r.get("posterior", {}) if st == 200 else {}
        check("style_of_games", st == 200 and r["games"] >= 5 and r["style"] in post
              and abs(sum(post.values()) - 1) < 1e-6 and set(r["features"]) == {"firstMove", "castling", "pieces",
                                                                                 "pawns"}, r)
        for name, body, code in [("player_missing", {"pgn": pgn}, "bad_player"),
                                 ("player_not_found", {"pgn": pgn, "player": "Capablanca"}, "player_not_found"),
                                 ("pgn_missing", {"player": "white"}, "bad_pgn"),
                                 ("unknown_field", {"pgn": pgn, "player": "white", "x": 1}, "unknown_field"),
                                 ("pgn_garbage", {"pgn": "1. e4 e5 2. Qxf7?? Kxf7 *", "player": "white"}, "bad_pgn")]:
            res = s.request("POST", "/api/style", body)
            check("style_" + name, res[0] == 400 and error_code(res) == code, res[1])

        # A stateful game: the human is Black and plays an attacking sequence (1...c5, pieces forward,
        # pawns storming the white king). Before its 10th move the engine uses the requested default
        # (aggressive here); from then on the recognised style decides: attacking -> conservative.
        st, g, _ = s.request("POST", "/api/games", {"mode": "bayesian", "color": "black", "level": 1,
                                                    "target": "auto", "defaultTarget": "aggressive"})
        check("game_created_bayesian", st in (200, 201) and g["bayesian"]["target"] == "aggressive"
              and g["target"] == "auto", g)
        seen, human_moves = [], 0
        while g["status"] == "started" and human_moves < 16:
            mv = "c7c5" if human_moves == 0 else attacking_black_move(s, g["fen"])
            st, g, _ = s.request("POST", "/api/games/%s/moves" % g["id"], {"move": mv})
            if st != 200:
                break
            human_moves += 1
            if g["status"] == "started":
                seen.append((human_moves, g["bayesian"]))
        early = [b for n, b in seen if n < 10]
        late = [b for n, b in seen if n >= 10]
        check("game_before_move_10_requested_default", early and all(
            b["target"] == "aggressive" and "before the opponent's move 10" in b["reason"] for b in early), early)
        mapping = {"attacking": "conservative", "positional": "aggressive"}
        check("game_from_move_10_style_decides", late and all(
            b["style"] and b["reason"].startswith("opponent style " + b["style"]["style"])
            and (b["style"]["style"] == "mixed" or b["target"] == mapping[b["style"]["style"]]) for b in late), late)
        check("game_attacking_sequence_recognised_switches_target",
              late and late[-1]["style"]["style"] == "attacking" and late[-1]["target"] == "conservative",
              late[-1] if late else seen)
        check("game_history_per_engine_move", len(g.get("bayesianHistory", [])) >= len(seen)
              and "opening" in g.get("levelsUsed", {}), {k: g.get(k) for k in ("levelsUsed",)})
        game_id = g["id"]
        st, g, _ = s.request("POST", "/api/games/%s/resign" % game_id)
        check("finished_game_learned", st == 200 and g["learned"] is True, g.get("learned"))
        st, model, _ = s.request("GET", "/api/bayes/model")
        check("model_counts_the_game", model["games"] == 1 and sum(model["records"]["opening"].values()) == 1,
              {k: model[k] for k in ("games", "records")})
        st, r, _ = s.request("POST", "/api/analyse", {"fen": "8/8/4k3/8/8/3K4/4P3/8 w - - 0 40", "mode": "bayesian",
                                                      "limits": {"depth": 2}})
        check("results_report_games_learned", r["bayesian"]["gamesLearned"] == 1, r.get("bayesian"))

        # takeback
        st, t, _ = s.request("POST", "/api/games", {"mode": "classical", "color": "white", "level": 1})
        st, t, _ = s.request("POST", "/api/games/%s/moves" % t["id"], {"move": "e2e4"})
        st, t, _ = s.request("POST", "/api/games/%s/moves" % t["id"], {"move": "d2d4"})
        n = len(t["moves"])
        st, tb, _ = s.request("POST", "/api/games/%s/takeback" % t["id"])
        check("takeback_removes_pair", st == 200 and len(tb["moves"]) == n - 2 and tb["turn"] == "white", tb)
        st, tb, _ = s.request("POST", "/api/games/%s/takeback" % t["id"])
        res = s.request("POST", "/api/games/%s/takeback" % t["id"])
        check("takeback_nothing_left_409", st == 200 and tb["moves"] == [] and res[0] == 409
              and error_code(res) == "nothing_to_take_back", res[1])
        s.request("POST", "/api/games/%s/resign" % t["id"])
        res = s.request("POST", "/api/games/%s/takeback" % t["id"])
        check("takeback_after_end_409", res[0] == 409 and error_code(res) == "game_over", res[1])
        # a game can start from moves (UCI or SAN): they are the game's own, in its PGN
        st, gm, _ = s.request("POST", "/api/games", {"moves": ["e2e4", "e5", "g1f3"], "color": "black", "level": 1})
        st2, pgn, _ = s.request("GET", "/api/games/%s/pgn" % gm.get("id", "x"))
        check("game_from_moves", st == 201 and gm["moves"] == ["e2e4", "e7e5", "g1f3"] and gm["turn"] == "black"
              and isinstance(pgn, str) and "1. e4 e5 2. Nf3" in pgn, (st, gm, pgn))
        res = s.request("POST", "/api/games", {"moves": ["e2e4", "e2e4"], "level": 1})
        check("game_from_bad_moves_400", res[0] == 400 and error_code(res) == "bad_move"
              and res[1]["error"]["field"] == "moves", res[1])
        res = s.request("POST", "/api/games", {"moves": ["f2f3", "e7e5", "g2g4", "d8h4"], "level": 1})
        check("game_from_finished_moves_400", res[0] == 400 and error_code(res) == "game_over", res[1])
        res = s.request("POST", "/api/games", {"mode": "bayesian", "target": "aggressive",
                                               "defaultTarget": "conservative"})
        check("game_default_target_needs_auto", res[0] == 400 and error_code(res) == "bad_target", res[1])
    finally:
        s.stop()
    # Learned games are in the database: a restarted server starts from them (classical games count
    # too; the resigned classical game above adds a second).
    s = Server("--workers", "1")
    try:
        st, model, _ = s.request("GET", "/api/bayes/model")
        check("model_survives_restart", st == 200 and model["games"] == 2, model.get("games"))
        st, g, _ = s.request("GET", "/api/games/" + game_id)
        check("game_reloaded_keeps_bayesian", st == 200 and g["learned"] is True and g["target"] == "auto"
              and g["bayesian"]["target"] == "conservative", {k: g.get(k) for k in ("learned", "target", "bayesian")})
    finally:
        s.stop()
    return summary("bayesian")


if __name__ == "__main__":
    sys.exit(main())
