#!/usr/bin/env python3
"""Hostile input against the real server: raw garbage on both ports, broken HTTP, and JSON requests
whose every field gets random types and values. The server must answer each well-formed request
with a JSON status (never 500), and keep serving throughout. Deterministic (seeded)."""
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, summary  # noqa: E402
from wsclient import WebSocket  # noqa: E402

FF = os.environ.get("FEELFISH", "./feelfish")
rng = random.Random(20261121)
FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def random_value(depth=0):
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, -2**63, 2**64, 7, 3])
    if kind == 3:
        return rng.choice([0.5, -1e308, 1e308, float("nan")]) if rng.random() < 0.3 else rng.random() * 100
    if kind == 4:
        return "".join(chr(rng.randrange(1, 0x2FF)) for _ in range(rng.randrange(0, 40)))
    if kind == 5:
        return rng.choice([FEN, "startpos", "8/8/8/8/8/8/8/8 w - - 0 1", "e2e4", "x" * 3000, "", "affective"])
    if kind == 6:
        return [random_value(depth + 1) for _ in range(rng.randrange(0, 5))]
    if kind == 7:
        return {k: random_value(depth + 1) for k in rng.sample(["depth", "nodes", "movetime", "infinite", "x"], 2)}
    return {"temperament": random_value(depth + 1)}


def random_body():
    keys = ["fen", "moves", "pgn", "mode", "limits", "multiPv", "compare", "affective", "bayesian", "junk"]
    body = {k: random_value() for k in rng.sample(keys, rng.randrange(1, 6))}
    if rng.random() < 0.5:
        body["limits"] = {"depth": rng.choice([1, 2, -5, "3", None, 10**12])}
    return body


def raw_send(port, data, read=True):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=3)
        s.sendall(data)
        out = b""
        if read:
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    out += chunk
            except socket.timeout:
                pass
        s.close()
        return out
    except OSError:
        return b""


def post_json(port, path, body):
    """(status, parsed JSON or None, raw text) of a POST; HTTP errors are answers too."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=json.dumps(body, allow_nan=True).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            status, text = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read()
    except OSError as e:
        status, text = 0, str(e).encode()
    try:
        return status, json.loads(text), text
    except ValueError:
        return status, None, text


def health_ok(port):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/api/health" % port, timeout=5) as r:
            return json.load(r)["status"] == "ok"
    except OSError:
        return False


def main():
    db = os.path.join(tempfile.mkdtemp(prefix="feelfish-fuzz-"), "f.db")
    p = subprocess.Popen([FF, "serve", "--http", "0", "--ws", "0", "--bind", "127.0.0.1", "--hash", "16",
                          "--workers", "2", "--db", db, "--max-movetime", "200", "--log-level", "error"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    words = p.stdout.readline().split()
    http_port, ws_port = int(words[2]), int(words[4])
    try:
        # Raw garbage and broken HTTP on the HTTP port.
        for i in range(60):
            junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
            raw_send(http_port, junk, read=False)
        for req in [b"GET / HTTP/1.1\r\n\r\n", b"GET /api/health HTTP/9.9\r\nHost: x\r\n\r\n",
                    b"POST /api/analyse HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
                    b"POST /api/analyse HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    b"Content-Type: application/json\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
                    b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
                    b"GET /api/health HTTP/1.1\r\n" + b"X-Long: " + b"b" * 100000 + b"\r\n\r\n",
                    b"\r\n\r\n\r\n", b"DELETE /api/jobs/%00%ff HTTP/1.1\r\nHost: x\r\n\r\n"]:
            raw_send(http_port, req)
        check("http_survives_garbage", health_ok(http_port))

        # Random JSON bodies: each answered with JSON and a 2xx/4xx status, never 5xx but 503.
        bad = []
        for i in range(300):
            body = random_body()
            status, parsed, text = post_json(http_port, rng.choice(["/api/analyse", "/api/jobs"]), body)
            if status not in (200, 202, 400, 413, 503) or not isinstance(parsed, dict) or \
                    (status == 400 and not parsed.get("error", {}).get("code")):
                bad.append((status, str(body)[:200], text[:200]))
        # Games: random creation bodies and random moves into a live game.
        game = post_json(http_port, "/api/games", {"level": 1})[1]["id"]
        for i in range(150):
            if rng.random() < 0.5:
                body = {k: random_value() for k in rng.sample(["mode", "color", "level", "temperament", "fen", "x"],
                                                              rng.randrange(1, 4))}
                path = "/api/games"
            else:
                body = {"move": rng.choice(["e2e4", "d2d4", "e7e5", "O-O", "Nf3", "a1a8", random_value()])}
                path = rng.choice(["/api/games/%s/moves" % game, "/api/games/%s/resign" % game,
                                   "/api/games/g%s/moves" % ("z" * rng.randrange(0, 60))])
            status, parsed, text = post_json(http_port, path, body)
            if status not in (200, 201, 400, 404, 409, 503) or not isinstance(parsed, dict):
                bad.append((status, path, body, text[:200]))
        check("random_json_bodies_answered", not bad, bad[:3])
        check("http_alive_after_bodies", health_ok(http_port))

        # Garbage on the WebSocket port, and random frames on an open connection.
        for i in range(40):
            raw_send(ws_port, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2000))), read=False)
        # Invalid UTF-8 in a text frame must fail that connection (RFC 6455), and only that one.
        ws = WebSocket(ws_port)
        ws.send_frame(b"{\"op\": \"ping\", \"x\": \"\xff\xfe\"}", opcode=1)
        check("ws_invalid_utf8_closes", ws.recv(5) is None)
        ws = WebSocket(ws_port)
        for i in range(200):
            if rng.random() < 0.3:  # random bytes as binary frames, random (valid) text as text frames
                if rng.random() < 0.5:
                    ws.send_frame(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))), opcode=2)
                else:
                    ws.send_frame("".join(chr(rng.randrange(1, 0x2FF)) for _ in range(rng.randrange(0, 300))))
            else:
                msg = random_body()
                msg["op"] = rng.choice(["analyse", "stop", "subscribe", "ping", "nope", 5, None])
                msg["id"] = random_value() if rng.random() < 0.3 else "f%d" % i
                ws.send_frame(json.dumps(msg, allow_nan=True))
        ws.send({"op": "ping"})
        pong, _ = ws.until(lambda m: m.get("type") == "pong", timeout=30)
        check("ws_usable_after_random_frames", pong == {"type": "pong"})
        ws.close()
        check("ws_alive_after_garbage", health_ok(http_port) and WebSocket(ws_port) is not None)
    finally:
        p.terminate()
        try:
            rc = p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = None
    check("clean_exit_after_fuzz", rc == 0, rc)
    return summary("fuzz")


if __name__ == "__main__":
    sys.exit(main())
