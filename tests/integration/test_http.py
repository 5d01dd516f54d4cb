#!/usr/bin/env python3
"""Integration tests of `feelfish serve`: the real binary on a free port, spoken to over HTTP.
Standard library only. Prints 'ok NAME' / 'FAIL NAME' and 'integration: N passed, N failed'."""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, summary  # noqa: E402

FF = os.environ.get("FEELFISH", "./feelfish")



import tempfile
TMPDIR = tempfile.mkdtemp(prefix="feelfish-test-")
DB = os.path.join(TMPDIR, "data", "test.db")


class Server:
    def __init__(self, *args):
        self.proc = subprocess.Popen([FF, "serve", "--http", "0", "--ws", "0", "--bind", "127.0.0.1", "--hash", "16",
                                      "--db", DB, *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("listening http "):
            raise RuntimeError("server did not start: " + line + self.proc.stderr.read())
        self.port = int(line.split()[2])  # "listening http PORT ws PORT"

    def request(self, method, path, body=None, headers=None, timeout=30):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        hdrs = dict(headers or {})
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            hdrs.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode(errors="replace")
        return resp.status, parsed, resp

    def stop(self, sig=signal.SIGTERM, timeout=5):
        t0 = time.time()
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = None
        return rc, time.time() - t0


def error_code(result):
    return result[1]["error"]["code"] if isinstance(result[1], dict) and "error" in result[1] else None


def make_web_root():
    root = os.path.join(TMPDIR, "web")
    os.makedirs(os.path.join(root, "sub"), exist_ok=True)
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write("<!doctype html><title>feelfish</title>")
    with open(os.path.join(root, "app.js"), "w") as f:
        f.write("console.log('hi');")
    with open(os.path.join(root, "sub", "style.css"), "w") as f:
        f.write("body{}")
    with open(os.path.join(TMPDIR, "secret.txt"), "w") as f:
        f.write("outside the root")
    os.symlink(os.path.join(TMPDIR, "secret.txt"), os.path.join(root, "leak.txt"))
    os.symlink(os.path.join(root, "app.js"), os.path.join(root, "alias.js"))
    return root


def test_settings():
    out = subprocess.run([FF, "serve", "--help"], capture_output=True, text=True)
    flags = ["--http", "--ws", "--workers", "--hash", "--queue", "--db", "--web", "--bind", "--log-level",
             "--body-max", "--ws-message-max", "--ws-searches-max", "--max-depth", "--max-nodes", "--max-movetime",
             "--max-multipv", "--job-timeout"]
    check("serve_help_lists_flags", out.returncode == 0 and all(f in out.stdout for f in flags)
          and "FEELFISH_HTTP_PORT" in out.stdout and "(default 8080)" in out.stdout, out.stdout[-300:])
    for args, msg in [(["--bogus"], "unknown option '--bogus'"), (["--http", "99999"], "--http: '99999' is not a whole"),
                      (["--workers"], "--workers needs a value"), (["--log-level", "loud"], "--log-level: 'loud'")]:
        res = subprocess.run([FF, "serve", *args], capture_output=True, text=True, timeout=10)
        check("serve_rejects " + " ".join(args), res.returncode == 2 and msg in res.stderr, res.stderr)
    env = dict(os.environ, FEELFISH_QUEUE="7", FEELFISH_MAX_MULTIPV="3")
    p = subprocess.Popen([FF, "serve", "--http", "0", "--ws", "0", "--bind", "127.0.0.1", "--hash", "16", "--db", DB,
                          "--max-multipv", "4"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    port = int(p.stdout.readline().split()[2])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/api/config")
    cfg = json.loads(conn.getresponse().read())
    p.terminate()
    p.wait(5)
    check("settings_env_then_flags", cfg["queueCapacity"] == 7 and cfg["maxMultiPv"] == 4, cfg)


GAME_ID = None


def main():
    global GAME_ID
    test_settings()
    s = Server("--workers", "2", "--queue", "8", "--web", make_web_root())
    try:
        st, body, _ = s.request("GET", "/api/health")
        check("health", st == 200 and body["status"] == "ok" and body["workers"]["total"] == 2
              and body["queue"]["capacity"] == 8 and "uptimeMs" in body, body)
        st, cfg, _ = s.request("GET", "/api/config")
        check("config_lists_limits", st == 200 and cfg["bodyMaxBytes"] == 1048576 and cfg["maxMultiPv"] == 10
              and cfg["queueCapacity"] == 8 and cfg["httpPort"] == s.port and "maxDepth" in cfg
              and cfg["wsUrl"] == "ws://127.0.0.1:%d/" % cfg["wsPort"]
              and cfg["modes"] == ["classical", "affective", "bayesian"], cfg)

        fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
        st, r, _ = s.request("POST", "/api/analyse", {"fen": fen, "limits": {"depth": 8}, "multiPv": 3})
        check("analyse_fen", st == 200 and r["status"] == "done" and r["depth"] == 8 and len(r["pvs"]) == 3
              and r["bestMove"] == r["pvs"][0]["moves"][0] and r["bestMoveSan"] == r["pvs"][0]["san"][0]
              and all("cp" in p or "mate" in p for p in r["pvs"]), r)
        # Black to move, a rook down: White's view is positive.
        st, r, _ = s.request("POST", "/api/analyse", {"fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1",
                                                      "limits": {"depth": 6}})
        check("scores_from_white", st == 200 and r["pvs"][0].get("cp", 0) > 300, r)
        st, r, _ = s.request("POST", "/api/analyse", {"fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
                                                      "limits": {"depth": 4}})
        check("mate_score", st == 200 and r["pvs"][0].get("mate") == 1 and r["bestMove"] == "d1d8", r)
        st, r, _ = s.request("POST", "/api/analyse", {"moves": ["e2e4", "e7e5", "g1f3"], "limits": {"nodes": 20000}})
        check("analyse_moves", st == 200 and r["fen"].startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b"), r)
        st, r, _ = s.request("POST", "/api/analyse", {"pgn": "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 *", "limits": {"depth": 5}})
        check("analyse_pgn", st == 200 and r["fen"].startswith("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2"), r)
        st, r, _ = s.request("POST", "/api/analyse", {"fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
                                                      "limits": {"depth": 5}})
        check("analyse_mated", st == 200 and r["bestMove"] is None and r["gameStatus"] == "mate", r)

        bad = [
            ("bad_json", {"body": b"{not json", "headers": {"Content-Type": "application/json"}}, 400, "bad_json"),
            ("empty_body", {"body": b"", "headers": {"Content-Type": "application/json"}}, 400, "bad_json"),
            ("json_array", {"body": b"[1,2]", "headers": {"Content-Type": "application/json"}}, 400, "bad_json"),
            ("duplicate_keys", {"body": b'{"fen":"a","fen":"b"}', "headers": {"Content-Type": "application/json"}}, 400, "bad_json"),
            ("not_json_type", {"body": b"fen=x", "headers": {"Content-Type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"),
            ("no_position", {"body": {"limits": {"depth": 3}}}, 400, "position_missing"),
            ("no_limits", {"body": {"fen": fen}}, 400, "limits_missing"),
            ("empty_limits", {"body": {"fen": fen, "limits": {}}}, 400, "limits_missing"),
            ("limits_wrong_type", {"body": {"fen": fen, "limits": [3]}}, 400, "bad_type"),
            ("negative_depth", {"body": {"fen": fen, "limits": {"depth": -3}}}, 400, "bad_limit"),
            ("string_depth", {"body": {"fen": fen, "limits": {"depth": "10"}}}, 400, "bad_limit"),
            ("float_nodes", {"body": {"fen": fen, "limits": {"nodes": 1.5}}}, 400, "bad_limit"),
            ("infinite_over_rest", {"body": {"fen": fen, "limits": {"infinite": True}}}, 400, "bad_limit"),
            ("fen_type", {"body": {"fen": 42, "limits": {"depth": 3}}}, 400, "bad_type"),
            ("fen_two_kings", {"body": {"fen": "4k3/8/8/8/8/8/8/K3k3 w - - 0 1", "limits": {"depth": 3}}}, 400, "fen_too_many_kings"),
            ("fen_check", {"body": {"fen": "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "limits": {"depth": 3}}}, 400, "fen_opponent_in_check"),
            ("fen_garbage", {"body": {"fen": "x" * 5000, "limits": {"depth": 3}}}, 400, "fen_too_long"),
            ("illegal_move", {"body": {"moves": ["e2e4", "e2e4"], "limits": {"depth": 3}}}, 400, "bad_move"),
            ("moves_type", {"body": {"moves": "e2e4", "limits": {"depth": 3}}}, 400, "bad_type"),
            ("bad_pgn", {"body": {"pgn": "1. e4 e5 2. Ke3 *", "limits": {"depth": 3}}}, 400, "bad_pgn"),
            ("fen_and_pgn", {"body": {"fen": fen, "pgn": "1. e4 *", "limits": {"depth": 3}}}, 400, "position_ambiguous"),
            ("unknown_field", {"body": {"fen": fen, "limits": {"depth": 3}, "multipv": 2}}, 400, "unknown_field"),
            ("bad_mode", {"body": {"fen": fen, "limits": {"depth": 3}, "mode": "telepathic"}}, 400, "bad_mode"),
            ("multipv_zero", {"body": {"fen": fen, "limits": {"depth": 3}, "multiPv": 0}}, 400, "bad_type"),
        ]
        for name, req, want_status, want_code in bad:
            res = s.request("POST", "/api/analyse", req["body"], req.get("headers"))
            check("error_" + name, res[0] == want_status and error_code(res) == want_code
                  and res[1]["error"]["message"], res[1])
        res = s.request("POST", "/api/analyse", {"fen": fen, "limits": {"depth": 3}, "multipv": 2})
        check("did_you_mean", "did you mean 'multiPv'" in res[1]["error"]["message"], res[1])
        big = {"fen": fen, "limits": {"depth": 3}, "pad": "x" * (2 * 1024 * 1024)}
        res = s.request("POST", "/api/analyse", big)
        check("body_too_large", res[0] == 413 and error_code(res) == "body_too_large", res[1])
        res = s.request("GET", "/api/nope")
        check("unknown_route", res[0] == 404 and error_code(res) == "not_found", res[1])
        res = s.request("DELETE", "/api/health")
        check("wrong_method", res[0] == 405 and res[2].getheader("Allow") == "GET", res[1])
        res = s.request("POST", "/api/analyse", {"fen": fen, "limits": {"depth": 99, "movetime": 50}, "multiPv": 99})
        check("limits_capped", res[0] == 200 and len(res[1]["pvs"]) <= 10, res[1])

        # Affective mode: the emotion appraised at the root comes with the result.
        cases = [("6k1/5ppp/8/8/8/3q4/8/4K3 w - - 0 1", "fear", "reach_safety"),
                 ("6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1", "relief", "enclose_king"),
                 ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", None, "gain_advantage")]
        for cfen, label, goal in cases:
            st, r, _ = s.request("POST", "/api/analyse", {"fen": cfen, "mode": "affective", "limits": {"depth": 5}})
            e = r.get("emotion", {}) if isinstance(r, dict) else {}
            check("affective_" + goal, st == 200 and r["mode"] == "affective" and e.get("goal") == goal
                  and (label is None or e.get("label") == label)
                  and set(e.get("factors", {})) == {"material", "mobility", "kingSafety", "oppKingExposure"}
                  and set(e.get("inputs", {})) == {"material", "mobility", "kingSafety", "oppKingExposure"}, r)
        res = s.request("POST", "/api/analyse", {"fen": fen, "mode": "affective", "affective": {"temperament": "zen"},
                                                 "limits": {"depth": 3}})
        check("affective_bad_temperament", res[0] == 400 and error_code(res) == "bad_temperament", res[1])
        res = s.request("POST", "/api/analyse", {"fen": fen, "mode": "affective", "affective": {"temper": "calm"},
                                                 "limits": {"depth": 3}})
        check("affective_unknown_field", res[0] == 400 and error_code(res) == "unknown_field"
              and "temperament" in res[1]["error"]["message"], res[1])
        st, r, _ = s.request("POST", "/api/analyse", {"fen": "6k1/5ppp/8/8/8/3q4/8/4K3 w - - 0 1", "mode": "affective",
                                                      "compare": True, "limits": {"depth": 6}})
        c = r.get("compare", {}) if isinstance(r, dict) else {}
        groups = {"material", "mobility", "king_safety", "opp_king_exposure", "pawn_structure", "other", "total"}
        check("compare_mode", st == 200 and set(c) == {"classical", "affective"}
              and all(c[k]["bestMove"] and c[k]["pvs"] and set(c[k]["terms"]) == groups for k in c)
              and c["affective"]["bestMove"] == r["bestMove"]
              and sum(v for k, v in c["classical"]["terms"].items() if k != "total") == c["classical"]["terms"]["total"], r)
        res = s.request("POST", "/api/analyse", {"fen": fen, "compare": True, "limits": {"depth": 3}})
        check("compare_needs_affective", res[0] == 400 and error_code(res) == "bad_compare", res[1])
        res = s.request("POST", "/api/analyse", {"fen": fen, "mode": "telepathic", "limits": {"depth": 3}})
        check("unknown_mode_400", res[0] == 400 and error_code(res) == "bad_mode", res[1])
        st, r, _ = s.request("POST", "/api/analyse", {"fen": fen, "limits": {"depth": 3}})
        check("classical_has_no_emotion", st == 200 and "emotion" not in r, r)

        # Games against the engine.
        st, g0, _ = s.request("POST", "/api/games", {"mode": "classical", "color": "white", "level": 1})
        check("game_created", st == 201 and g0["status"] == "started" and g0["moves"] == [] and g0["turn"] == "white", g0)
        st, g1, _ = s.request("POST", "/api/games/%s/moves" % g0["id"], {"move": "e2e4"})
        check("game_engine_replies", st == 200 and len(g1["moves"]) == 2 and g1["moves"][0] == "e2e4"
              and g1["san"][0] == "e4" and g1["turn"] == "white" and g1["status"] == "started", g1)
        st, g2, _ = s.request("POST", "/api/games/%s/moves" % g0["id"], {"move": "Nf3"})
        check("game_reads_san", st == 200 and g2["san"][2] == "Nf3" and len(g2["moves"]) == 4, g2)
        res = s.request("POST", "/api/games/%s/moves" % g0["id"], {"move": "e2e5"})
        check("game_illegal_move", res[0] == 400 and error_code(res) == "illegal_move", res[1])
        res = s.request("POST", "/api/games/%s/moves" % g0["id"], {"mov": "e2e4"})
        check("game_bad_body", res[0] == 400 and error_code(res) == "bad_move", res[1])
        st, pgn, resp = s.request("GET", "/api/games/%s/pgn" % g0["id"])
        check("game_pgn", st == 200 and resp.getheader("Content-Type") == "application/x-chess-pgn"
              and "1. e4" in pgn and "2. Nf3" in pgn and '[Result "*"]' in pgn, pgn)
        st, gm, _ = s.request("POST", "/api/games", {"color": "white", "level": 2, "fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"})
        st, mated, _ = s.request("POST", "/api/games/%s/moves" % gm["id"], {"move": "d1d8"})
        check("game_mate", mated["status"] == "mate" and mated["result"] == "1-0" and len(mated["moves"]) == 1, mated)
        res = s.request("POST", "/api/games/%s/moves" % gm["id"], {"move": "g8h8"})
        check("game_over_409", res[0] == 409 and error_code(res) == "game_over", res[1])
        st, gb, _ = s.request("POST", "/api/games", {"color": "black", "level": 4})
        check("game_engine_moves_first", st == 200 and len(gb["moves"]) == 1 and gb["turn"] == "black", gb)
        st, rs, _ = s.request("POST", "/api/games/%s/resign" % gb["id"])
        check("game_resign", rs["status"] == "resign" and rs["result"] == "1-0", rs)
        st, ga, _ = s.request("POST", "/api/games", {"mode": "affective", "color": "white", "level": 3,
                                                     "temperament": "anxious"})
        for mv in ["d2d4", "c2c4"]:
            st, ga, _ = s.request("POST", "/api/games/%s/moves" % ga["id"], {"move": mv})
        em = ga.get("emotions", [])
        check("game_emotion_history", len(em) == 2 and [e["ply"] for e in em] == [1, 3]
              and all(e["label"] and e["goal"] for e in em), em)
        for body, code in [({"level": 9}, "bad_level"), ({"color": "purple"}, "bad_color"), ({"mode": "x"}, "bad_mode"),
                           ({"fen": "8/8/8 w - -"}, "fen_rank_count"), ({"foo": 1}, "unknown_field"),
                           ({"fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"}, "game_over")]:
            res = s.request("POST", "/api/games", body)
            check("game_create_" + code, res[0] == 400 and error_code(res) == code, res[1])
        res = s.request("GET", "/api/games/gdoesnotexist")
        check("game_unknown", res[0] == 404 and error_code(res) == "unknown_game", res[1])
        GAME_ID = g0["id"]

        # Jobs: created at once, polled to the end, cancelled, unknown ids.
        st, j, _ = s.request("POST", "/api/jobs", {"fen": fen, "limits": {"depth": 9}})
        check("job_created", st == 202 and j["status"] == "queued" and len(j["id"]) >= 8, j)
        for _ in range(100):
            st, g, _ = s.request("GET", "/api/jobs/" + j["id"])
            if g["status"] == "done":
                break
            time.sleep(0.05)
        check("job_done", g["status"] == "done" and g["depth"] == 9 and g["bestMove"], g)
        st, j2, _ = s.request("POST", "/api/jobs", {"fen": fen, "limits": {"movetime": 20000}})
        time.sleep(0.3)
        st, d, _ = s.request("DELETE", "/api/jobs/" + j2["id"])
        time.sleep(0.3)
        st, g, _ = s.request("GET", "/api/jobs/" + j2["id"])
        check("job_cancelled", g["status"] == "cancelled", g)
        res = s.request("GET", "/api/jobs/doesnotexist")
        check("job_unknown", res[0] == 404 and error_code(res) == "unknown_job", res[1])
        res = s.request("DELETE", "/api/jobs/doesnotexist")
        check("job_delete_unknown", res[0] == 404, res[1])

        # A client that closes mid-search stops that search: the worker is free again.
        sock = socket.create_connection(("127.0.0.1", s.port))
        payload = json.dumps({"fen": fen, "limits": {"movetime": 20000}}).encode()
        sock.sendall(b"POST /api/analyse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(payload)).encode() + b"\r\n\r\n" + payload)
        time.sleep(0.5)
        busy_before = s.request("GET", "/api/health")[1]["workers"]["busy"]
        sock.close()
        busy_after = None
        for _ in range(40):
            time.sleep(0.05)
            busy_after = s.request("GET", "/api/health")[1]["workers"]["busy"]
            if busy_after == 0:
                break
        check("disconnect_stops_search", busy_before == 1 and busy_after == 0, (busy_before, busy_after))

        st, spec, _ = s.request("GET", "/api/openapi.json")
        paths = spec.get("paths", {}) if isinstance(spec, dict) else {}
        want = [("get", "/api/health"), ("get", "/api/config"), ("post", "/api/analyse"), ("post", "/api/jobs"),
                ("get", "/api/cloud-eval"), ("post", "/api/games"), ("get", "/api/games/{id}"),
                ("post", "/api/games/{id}/moves"), ("get", "/api/games/{id}/pgn"), ("post", "/api/games/{id}/resign"),
                ("get", "/api/jobs/{id}"), ("delete", "/api/jobs/{id}"), ("get", "/api/openapi.json"),
                ("get", "/metrics"), ("post", "/api/games/{id}/takeback"), ("get", "/api/bayes/model"),
                ("post", "/api/style")]
        check("openapi_has_every_route", st == 200 and spec["openapi"].startswith("3.")
              and all(m in paths.get(p, {}) for m, p in want), list(paths))
        st, metrics, _ = s.request("GET", "/metrics")
        check("metrics", st == 200 and 'feelfish_http_requests_total{route="POST /api/analyse",status="400"}' in metrics
              and "feelfish_nodes_searched_total" in metrics and "feelfish_jobs_finished_total" in metrics, metrics[:300])
        # Static files from memory, with types, ETags, and nothing outside the root.
        st, page, resp = s.request("GET", "/")
        etag = resp.getheader("ETag")
        check("static_index", st == 200 and "<title>feelfish</title>" in page
              and resp.getheader("Content-Type").startswith("text/html") and etag, (st, page))
        st, js, resp = s.request("GET", "/app.js")
        check("static_mime_js", st == 200 and resp.getheader("Content-Type").startswith("text/javascript"), resp.getheaders())
        st, css, resp = s.request("GET", "/sub/style.css")
        check("static_subdir_css", st == 200 and resp.getheader("Content-Type").startswith("text/css"), st)
        st, _, resp = s.request("GET", "/", headers={"If-None-Match": etag})
        check("static_etag_304", st == 304 and resp.getheader("ETag") == etag, st)
        st, _, _ = s.request("GET", "/alias.js")
        check("static_symlink_inside_ok", st == 200, st)
        for attack in ["/../secret.txt", "/%2e%2e/secret.txt", "/sub/../app.js", "/sub/%2e%2e/%2e%2e/secret.txt",
                       "//etc/passwd", "/%2fetc%2fpasswd", "/leak.txt", "/etc/passwd", "/./app.js", "/app.js%00.html",
                       "/..%2fsecret.txt", "/sub%2f..%2f..%2fsecret.txt"]:
            st, body, _ = s.request("GET", attack)
            check("static_refuses " + attack, st == 404 and "outside" not in str(body), (st, body))
        st, body, _ = s.request("POST", "/app.js", {"x": 1})
        check("static_post_404", st == 404, st)

        # Lichess cloud-eval shape.
        from urllib.parse import quote
        st, ce, _ = s.request("GET", "/api/cloud-eval?fen=" + quote(fen) + "&multiPv=2")
        check("cloud_eval_shape", st == 200 and ce["fen"] == fen and ce["depth"] >= 1 and isinstance(ce["knodes"], int)
              and len(ce["pvs"]) == 2 and isinstance(ce["pvs"][0]["moves"], str) and " " in ce["pvs"][0]["moves"]
              and ("cp" in ce["pvs"][0] or "mate" in ce["pvs"][0]), ce)
        res = s.request("GET", "/api/cloud-eval")
        check("cloud_eval_needs_fen", res[0] == 400 and error_code(res) == "position_missing", res[1])
        res = s.request("GET", "/api/cloud-eval?fen=" + quote("8/8/8 w - -"))
        check("cloud_eval_bad_fen", res[0] == 400 and error_code(res) == "fen_rank_count", res[1])

        st, body, _ = s.request("GET", "/api/health")
        check("still_serving_after_bad_input", st == 200 and body["status"] == "ok", body)
    finally:
        rc, secs = s.stop()
    check("sigterm_idle_exit_0", rc == 0 and secs < 2, (rc, secs))

    # Finished jobs stay answerable after a restart (SQLite, schema versioned).
    s = Server("--workers", "1")
    try:
        st, g2, _ = s.request("GET", "/api/jobs/" + j["id"])
        check("job_survives_restart", st == 200 and g2.get("id") == j["id"] and g2.get("status") == "done"
              and g2.get("depth") == 9 and g2.get("bestMove"), g2)
        res = s.request("GET", "/api/jobs/0123456789abcdef")
        check("stored_unknown_job", res[0] == 404 and error_code(res) == "unknown_job", res[1])
        st, gr, _ = s.request("GET", "/api/games/" + GAME_ID)
        check("game_survives_restart", st == 200 and len(gr["moves"]) == 4, gr)
        st, gr, _ = s.request("POST", "/api/games/%s/moves" % GAME_ID, {"move": "d2d3"})
        check("game_continues_after_restart", st == 200 and len(gr["moves"]) == 6, gr)
    finally:
        s.stop()
    import sqlite3
    con = sqlite3.connect(DB)
    version = con.execute("PRAGMA user_version").fetchone()[0]
    mode = con.execute("PRAGMA journal_mode").fetchone()[0]
    rows = con.execute("SELECT COUNT(*) FROM jobs WHERE status = 'done'").fetchone()[0]
    con.close()
    check("db_schema_wal", version == 3 and mode == "wal" and rows >= 5, (version, mode, rows))

    # A full queue answers 503 with Retry-After; SIGTERM during searches answers the waiting requests
    # and exits 0 promptly.
    s = Server("--workers", "1", "--queue", "1")
    try:
        long_job = {"fen": fen, "limits": {"movetime": 20000}}
        a = s.request("POST", "/api/jobs", long_job)
        for _ in range(100):  # until the worker has taken it: then the queue is empty again
            if s.request("GET", "/api/health")[1]["workers"]["busy"] == 1:
                break
            time.sleep(0.02)
        b = s.request("POST", "/api/jobs", long_job)
        c = s.request("POST", "/api/jobs", long_job)
        check("queue_full_503", a[0] == 202 and b[0] == 202 and c[0] == 503 and error_code(c) == "queue_full"
              and c[2].getheader("Retry-After") == "1", (a[0], b[0], c[0], c[1]))
        sock = socket.create_connection(("127.0.0.1", s.port))
        payload = json.dumps({"fen": fen, "limits": {"movetime": 20000}}).encode()
        sock.sendall(b"POST /api/analyse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(payload)).encode() + b"\r\n\r\n" + payload)
        time.sleep(0.2)
    finally:
        rc, secs = s.stop()
    sock.settimeout(2)
    try:
        answer = sock.recv(4096).decode(errors="replace")
    except OSError:
        answer = ""
    check("sigterm_busy_exit_0_fast", rc == 0 and secs < 2, (rc, secs))
    check("sigterm_answers_waiting", answer.startswith("HTTP/1.1 503") or answer.startswith("HTTP/1.1 200"), answer[:200])

    return summary("integration")


if __name__ == "__main__":
    sys.exit(main())
