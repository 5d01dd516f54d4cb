#!/usr/bin/env python3
"""POST /api/analyse through the real server: positions from FEN, moves and PGN, scores from White's
view, mates; the validation matrix (each bad request answered with its status and error code);
limits capped; a client that disconnects stops its search; Lichess's cloud-eval shape. Standard
library only. Run it all, or some checks: test_analyse.py [--list] [CHECK_NAME...]; prints
'analyse: N passed, N failed'."""
import os
import sys
import time
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import FEN, Server, Suite, check, error_code, raw_post  # noqa: E402

fen = FEN
suite = Suite("analyse", lambda: Server("--workers", "2", "--queue", "8"))


def analyse(body):
    return suite.server().request("POST", "/api/analyse", body)


@suite.test()
def analyse_fen():
    st, r, _ = analyse({"fen": fen, "limits": {"depth": 8}, "multiPv": 3})
    check("analyse_fen", st == 200 and r["status"] == "done" and r["depth"] == 8 and len(r["pvs"]) == 3
          and r["bestMove"] == r["pvs"][0]["moves"][0] and r["bestMoveSan"] == r["pvs"][0]["san"][0]
          and all("cp" in p or "mate" in p for p in r["pvs"]), r)


@suite.test()
def scores_from_white():
    # Black to move, a rook down: White's view is positive.
    st, r, _ = analyse({"fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", "limits": {"depth": 6}})
    check("scores_from_white", st == 200 and r["pvs"][0].get("cp", 0) > 300, r)


@suite.test()
def mate_score():
    st, r, _ = analyse({"fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "limits": {"depth": 4}})
    check("mate_score", st == 200 and r["pvs"][0].get("mate") == 1 and r["bestMove"] == "d1d8", r)


@suite.test()
def mate_score_black():
    # Black mates: in one (Ra1#) and in two (Rb2, then Ra1#), White's view negative, counted in moves as
    # for White (once, Black's mate in one came back as centipawns and its mate in two as -1).
    st1, r1, _ = analyse({"fen": "6k1/8/8/8/8/8/r4PPP/6K1 b - - 0 1", "limits": {"depth": 4}})
    st2, r2, _ = analyse({"fen": "7k/8/8/8/1r6/r7/8/6K1 b - - 0 1", "limits": {"depth": 6}})
    check("mate_score_black", st1 == 200 and r1["pvs"][0].get("mate") == -1 and r1["bestMove"] == "a2a1"
          and st2 == 200 and r2["pvs"][0].get("mate") == -2, (r1, r2))


@suite.test()
def analyse_moves():
    st, r, _ = analyse({"moves": ["e2e4", "e7e5", "g1f3"], "limits": {"nodes": 20000}})
    check("analyse_moves", st == 200 and r["fen"].startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b"), r)


@suite.test()
def analyse_pgn():
    st, r, _ = analyse({"pgn": "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 *", "limits": {"depth": 5}})
    check("analyse_pgn", st == 200 and r["fen"].startswith("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2"), r)


@suite.test()
def analyse_mated():
    st, r, _ = analyse({"fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "limits": {"depth": 5}})
    check("analyse_mated", st == 200 and r["bestMove"] is None and r["gameStatus"] == "mate", r)


# ---- the validation matrix ----

JSON = {"Content-Type": "application/json"}
BAD = [
    ("bad_json", {"body": b"{not json", "headers": JSON}, 400, "bad_json"),
    ("empty_body", {"body": b"", "headers": JSON}, 400, "bad_json"),
    ("json_array", {"body": b"[1,2]", "headers": JSON}, 400, "bad_json"),
    ("duplicate_keys", {"body": b'{"fen":"a","fen":"b"}', "headers": JSON}, 400, "bad_json"),
    ("not_json_type", {"body": b"fen=x", "headers": {"Content-Type": "application/x-www-form-urlencoded"}}, 415,
     "unsupported_media_type"),
    ("no_position", {"body": {"limits": {"depth": 3}}}, 400, "position_missing"),
    ("no_limits", {"body": {"fen": fen}}, 400, "limits_missing"),
    ("empty_limits", {"body": {"fen": fen, "limits": {}}}, 400, "limits_missing"),
    ("limits_wrong_type", {"body": {"fen": fen, "limits": [3]}}, 400, "bad_type"),
    ("negative_depth", {"body": {"fen": fen, "limits": {"depth": -3}}}, 400, "bad_limit"),
    ("string_depth", {"body": {"fen": fen, "limits": {"depth": "10"}}}, 400, "bad_limit"),
    ("float_nodes", {"body": {"fen": fen, "limits": {"nodes": 1.5}}}, 400, "bad_limit"),
    ("infinite_over_rest", {"body": {"fen": fen, "limits": {"infinite": True}}}, 400, "bad_limit"),
    ("fen_type", {"body": {"fen": 42, "limits": {"depth": 3}}}, 400, "bad_type"),
    ("fen_two_kings", {"body": {"fen": "4k3/8/8/8/8/8/8/K3k3 w - - 0 1", "limits": {"depth": 3}}}, 400,
     "fen_too_many_kings"),
    ("fen_check", {"body": {"fen": "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "limits": {"depth": 3}}}, 400,
     "fen_opponent_in_check"),
    ("fen_garbage", {"body": {"fen": "x" * 5000, "limits": {"depth": 3}}}, 400, "fen_too_long"),
    ("illegal_move", {"body": {"moves": ["e2e4", "e2e4"], "limits": {"depth": 3}}}, 400, "bad_move"),
    ("moves_type", {"body": {"moves": "e2e4", "limits": {"depth": 3}}}, 400, "bad_type"),
    ("bad_pgn", {"body": {"pgn": "1. e4 e5 2. Ke3 *", "limits": {"depth": 3}}}, 400, "bad_pgn"),
    ("fen_and_pgn", {"body": {"fen": fen, "pgn": "1. e4 *", "limits": {"depth": 3}}}, 400, "position_ambiguous"),
    ("unknown_field", {"body": {"fen": fen, "limits": {"depth": 3}, "multipv": 2}}, 400, "unknown_field"),
    ("bad_mode", {"body": {"fen": fen, "limits": {"depth": 3}, "mode": "telepathic"}}, 400, "bad_mode"),
    ("multipv_zero", {"body": {"fen": fen, "limits": {"depth": 3}, "multiPv": 0}}, 400, "bad_type"),
]
BIG = {"fen": fen, "limits": {"depth": 3}, "pad": "x" * (2 * 1024 * 1024)}


def bad_request(name, req, want_status, want_code):
    res = suite.server().request("POST", "/api/analyse", req["body"], req.get("headers"))
    check("error_" + name, res[0] == want_status and error_code(res) == want_code and res[1]["error"]["message"],
          res[1])


for _case in BAD:
    suite.add("error_" + _case[0], bad_request, *_case)


@suite.test()
def did_you_mean():
    res = analyse({"fen": fen, "limits": {"depth": 3}, "multipv": 2})
    check("did_you_mean", "did you mean 'multiPv'" in res[1]["error"]["message"], res[1])


@suite.test()
def body_too_large():
    res = analyse(BIG)
    check("body_too_large", res[0] == 413 and error_code(res) == "body_too_large", res[1])


@suite.test()
def limits_capped():
    res = analyse({"fen": fen, "limits": {"depth": 99, "movetime": 50}, "multiPv": 99})
    check("limits_capped", res[0] == 200 and len(res[1]["pvs"]) <= 10, res[1])


@suite.test()
def still_serving_after_bad_input():
    s = suite.server()
    for _, req, _, _ in BAD:
        s.request("POST", "/api/analyse", req["body"], req.get("headers"))
    s.request("POST", "/api/analyse", BIG)
    s.request("GET", "/api/cloud-eval?fen=" + quote("8/8/8 w - -"))
    st, body, _ = s.request("GET", "/api/health")
    check("still_serving_after_bad_input", st == 200 and body["status"] == "ok", body)


@suite.test()
def disconnect_stops_search():
    """A client that closes mid-search stops that search: the worker is free again. (Its own server:
    it counts busy workers.)"""
    with Server("--workers", "2", "--queue", "8") as s:
        sock = raw_post(s.port, "/api/analyse", {"fen": fen, "limits": {"movetime": 20000}})
        time.sleep(0.5)
        busy_before = s.health()["workers"]["busy"]
        sock.close()
        busy_after = None
        for _ in range(40):
            time.sleep(0.05)
            busy_after = s.health()["workers"]["busy"]
            if busy_after == 0:
                break
    check("disconnect_stops_search", busy_before == 1 and busy_after == 0, (busy_before, busy_after))


# ---- Lichess cloud-eval shape ----

@suite.test()
def cloud_eval_shape():
    st, ce, _ = suite.server().request("GET", "/api/cloud-eval?fen=" + quote(fen) + "&multiPv=2")
    check("cloud_eval_shape", st == 200 and ce["fen"] == fen and ce["depth"] >= 1 and isinstance(ce["knodes"], int)
          and len(ce["pvs"]) == 2 and isinstance(ce["pvs"][0]["moves"], str) and " " in ce["pvs"][0]["moves"]
          and ("cp" in ce["pvs"][0] or "mate" in ce["pvs"][0]), ce)


@suite.test()
def cloud_eval_needs_fen():
    res = suite.server().request("GET", "/api/cloud-eval")
    check("cloud_eval_needs_fen", res[0] == 400 and error_code(res) == "position_missing", res[1])


@suite.test()
def cloud_eval_bad_fen():
    res = suite.server().request("GET", "/api/cloud-eval?fen=" + quote("8/8/8 w - -"))
    check("cloud_eval_bad_fen", res[0] == 400 and error_code(res) == "fen_rank_count", res[1])


if __name__ == "__main__":
    sys.exit(suite.main())
