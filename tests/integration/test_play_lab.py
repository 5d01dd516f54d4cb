#!/usr/bin/env python3
"""POST /api/play (stateless play at a level or limits) and POST /api/lab (the textbook algorithms
side by side) through the real server. Prints 'play-lab: N passed, N failed'."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, Suite, check  # noqa: E402

suite = Suite("play-lab", lambda: Server("--workers", "2"))
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@suite.test()
def play_level_move():
    st, j, _ = suite.server().request("POST", "/api/play", {"fen": START, "level": 8})
    check("play_level_move", st == 200 and len(j.get("move", "")) >= 4 and j.get("san") and j.get("status") == "started"
          and j.get("fen", "").split()[1] == "b" and j.get("level") == 8 and ("eval" in j or "mate" in j), (st, j))


@suite.test()
def play_weak_levels_vary():
    moves = set()
    for _ in range(16):  # one after another on the same workers: each rated move is searched from nothing
        st, j, _ = suite.server().request("POST", "/api/play", {"moves": ["e2e4", "e7e5"], "level": 1})
        if st == 200:
            moves.add(j["move"])
    check("play_weak_levels_vary", len(moves) >= 3, "level 1 played %s in 16 tries (it draws among its best lines)" % moves)


@suite.test("play_at_a_rating", "config_lists_level_ratings")
def play_at_a_rating():
    """An elo plays at that rating (strength.h); /api/config lists each level's rating and the range."""
    s = suite.server()
    cfg = s.request("GET", "/api/config")[1]
    levels, rng = cfg.get("levels", []), cfg.get("elo", {})
    ratings = [lv.get("elo") for lv in levels]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../server/api/openapi.json")) as f:
        schemas = json.load(f)["components"]["schemas"]
    described = {(schemas[n]["properties"]["elo"]["minimum"], schemas[n]["properties"]["elo"]["maximum"])
                 for n in ("PlayRequest", "GameRequest")}
    check("config_lists_level_ratings", [lv.get("level") for lv in levels] == list(range(1, 9))
          and all(isinstance(r, int) for r in ratings[:7]) and ratings[:7] == sorted(ratings[:7])
          and ratings[7] is None and rng.get("min", 0) <= ratings[0] and ratings[6] <= rng.get("max", 0)
          and described == {(rng.get("min"), rng.get("max"))}, (levels, rng, "the contract's range", described))
    moves, answers = set(), []
    for _ in range(10):
        st, j, _ = s.request("POST", "/api/play", {"moves": ["e2e4", "e7e5"], "elo": rng.get("min")})
        answers.append((st, j.get("elo") if isinstance(j, dict) else j))
        if st == 200:
            moves.add(j["move"])
    mate = s.request("POST", "/api/play", {"fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "elo": rng.get("min")})
    check("play_at_a_rating", all(a == (200, rng.get("min")) for a in answers) and len(moves) >= 2
          and mate[0] == 200 and mate[1].get("move") == "a1a8",
          {"answers": answers, "moves": moves, "mate in one at the lowest rating": mate[1]})


@suite.test()
def play_finds_mate_and_says_so():
    st, j, _ = suite.server().request("POST", "/api/play", {"fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
                                                            "limits": {"depth": 6}})
    check("play_finds_mate_and_says_so", st == 200 and j.get("move") == "a1a8" and j.get("san") == "Ra8#"
          and j.get("status") == "mate", (st, j))


@suite.test()
def play_black_mate_says_so():
    st, j, _ = suite.server().request("POST", "/api/play", {"fen": "6k1/8/8/8/8/8/r4PPP/6K1 b - - 0 1",
                                                            "limits": {"depth": 4}})
    check("play_black_mate_says_so", st == 200 and j.get("move") == "a2a1" and j.get("status") == "mate"
          and j.get("mate") == -1 and "eval" not in j, (st, j))


@suite.test()
def play_draw_has_reason():
    st, j, _ = suite.server().request("POST", "/api/play", {"fen": "8/8/8/8/8/8/1r6/K6k w - - 0 1", "level": 3})
    check("play_draw_has_reason", st == 200 and j.get("move") == "a1b2" and j.get("status") == "draw"
          and j.get("reason") == "insufficient material", (st, j))


@suite.test()
def play_refusals():
    s = suite.server()
    cases = [({"fen": "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", "level": 4}, 409, "game_over"),
             ({"fen": START, "level": 9}, 400, "bad_level"),
             ({"fen": START, "level": "hard"}, 400, "bad_level"),
             ({"fen": START, "level": 3, "limits": {"depth": 3}}, 400, "level_and_limits"),
             ({"fen": START, "elo": 1500, "limits": {"depth": 3}}, 400, "level_and_limits"),
             ({"fen": START, "level": 3, "elo": 1500}, 400, "level_and_elo"),
             ({"fen": START, "elo": 100}, 400, "bad_elo"),
             ({"fen": START, "elo": 99999999999}, 400, "bad_elo"),
             ({"fen": START, "elo": 1500.5}, 400, "bad_elo"),
             ({"fen": START, "elo": "1500"}, 400, "bad_elo"),
             ({"fen": "nonsense", "level": 3}, 400, None),
             ({"moves": ["e2e5"], "level": 3}, 400, "bad_move")]
    wrong = []
    for body, want_st, code in cases:
        st, j, _ = s.request("POST", "/api/play", body)
        got = (j or {}).get("error", {}).get("code") if isinstance(j, dict) else None
        if st != want_st or (code and got != code):
            wrong.append((body, st, got))
    check("play_refusals", not wrong and s.request("GET", "/api/health")[0] == 200, wrong)


@suite.test("lab_algorithms_agree", "lab_work_differs")
def lab():
    st, j, _ = suite.server().request("POST", "/api/lab", {"fen": START, "depth": 4})
    algos = {a["algorithm"]: a for a in (j or {}).get("algorithms", [])}
    values = {a["value"] for a in algos.values()}
    print("    depth 4 from the start: %s" % {k: (v["value"], v["nodes"], v["timeMs"]) for k, v in algos.items()})
    names = [a["algorithm"] for a in (j or {}).get("algorithms", [])]
    check("lab_algorithms_agree", st == 200 and names == ["minimax", "alphabeta", "scout", "negascout", "sss", "mtdf"]
          and len(values) == 1 and all(a["complete"] for a in algos.values()), (st, j))
    # SSS* (MTD from +infinity) evaluates no leaf alpha-beta does not, in more passes than MTD(f).
    check("lab_work_differs", st == 200 and len(algos) == 6
          and all(algos["minimax"]["nodes"] > 5 * algos[a]["nodes"] for a in algos if a != "minimax")
          and algos["sss"]["leaves"] <= algos["alphabeta"]["leaves"]
          and algos["sss"].get("passes", 0) > algos["mtdf"].get("passes", 0) >= 1
          and "passes" not in algos["scout"], algos)


@suite.test()
def lab_refusals():
    s = suite.server()
    cases = [({"fen": START, "depth": 6}, "bad_depth"),  # with minimax (all algorithms)
             ({"fen": START, "depth": 9, "algorithms": ["alphabeta"]}, "bad_depth"),
             ({"fen": START, "depth": 2, "algorithms": ["bogo"]}, "bad_algorithm"),
             ({"fen": START, "depth": 2, "algorithms": ["scout", "sss*"]}, "bad_algorithm"),  # "sss" only
             ({"fen": START, "depth": 8, "algorithms": ["sss"]}, "bad_depth"),
             ({"fen": START, "depth": 2, "algorithms": []}, "bad_type"),
             ({"fen": START, "depth": 2, "colour": 1}, "unknown_field")]
    wrong = []
    for body, code in cases:
        st, j, _ = s.request("POST", "/api/lab", body)
        if st != 400 or j.get("error", {}).get("code") != code:
            wrong.append((body, st, j))
    st, j, _ = s.request("POST", "/api/lab", {"fen": START, "depth": 6, "algorithms": ["mtdf", "scout", "sss"]})
    names = [a["algorithm"] for a in j.get("algorithms", [])] if st == 200 else None
    check("lab_refusals", not wrong and names == ["scout", "sss", "mtdf"]
          and len({a["value"] for a in j["algorithms"]}) == 1, (wrong, st, j))


if __name__ == "__main__":
    sys.exit(suite.main())
