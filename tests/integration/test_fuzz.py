#!/usr/bin/env python3
"""Hostile input against the real server: raw garbage on both ports, broken HTTP, and JSON requests
whose every field gets random types and values. The server must answer each well-formed request
with a JSON status (never 500), and keep serving throughout. Deterministic: each check draws from
its own generator, seeded with the file's seed and the check's name. Run it all, or some checks:
test_fuzz.py [--list] [CHECK_NAME...]; prints 'fuzz: N passed, N failed'."""
import json
import os
import random
import socket
import sys
import threading
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import FEN, Server, Suite, check  # noqa: E402
from wsclient import WebSocket  # noqa: E402

SEED = 20261121


def fuzz_server():
    return Server("--workers", "2", "--max-movetime", "200", "--log-level", "error")


suite = Suite("fuzz", fuzz_server)


def rng_for(name):
    return random.Random("%d %s" % (SEED, name))


def random_value(rng, depth=0):
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
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    if kind == 7:
        return {k: random_value(rng, depth + 1) for k in rng.sample(["depth", "nodes", "movetime", "infinite", "x"], 2)}
    return {"temperament": random_value(rng, depth + 1)}


def random_body(rng):
    keys = ["fen", "moves", "pgn", "mode", "limits", "multiPv", "compare", "affective", "bayesian", "junk"]
    body = {k: random_value(rng) for k in rng.sample(keys, rng.randrange(1, 6))}
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


# ---- the kinds of hostile input, each from the generator it is given ----

BROKEN_HTTP = [b"GET / HTTP/1.1\r\n\r\n", b"GET /api/health HTTP/9.9\r\nHost: x\r\n\r\n",
               b"POST /api/analyse HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
               b"POST /api/analyse HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
               b"Content-Type: application/json\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
               b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
               b"GET /api/health HTTP/1.1\r\n" + b"X-Long: " + b"b" * 100000 + b"\r\n\r\n",
               b"\r\n\r\n\r\n", b"DELETE /api/jobs/%00%ff HTTP/1.1\r\nHost: x\r\n\r\n"]


def http_garbage(port, rng, at_once=False):
    """Raw garbage and broken HTTP on the HTTP port (at_once: the broken requests all together; each
    may wait up to 3 s for the server to close the connection)."""
    for _ in range(60):
        raw_send(port, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))), read=False)
    if at_once:
        threads = [threading.Thread(target=raw_send, args=(port, req)) for req in BROKEN_HTTP]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        for req in BROKEN_HTTP:
            raw_send(port, req)


def random_requests(port, rng):
    """Random JSON bodies to the analysis and job routes, random game creations and random moves into
    a live game: the answers that are not a JSON 2xx/4xx (or 503)."""
    bad = []
    for _ in range(300):
        body = random_body(rng)
        status, parsed, text = post_json(port, rng.choice(["/api/analyse", "/api/jobs"]), body)
        if status not in (200, 202, 400, 413, 503) or not isinstance(parsed, dict) or \
                (status == 400 and not parsed.get("error", {}).get("code")):
            bad.append((status, str(body)[:200], text[:200]))
    game = post_json(port, "/api/games", {"level": 1})[1]["fullId"]
    for _ in range(150):
        if rng.random() < 0.5:
            body = {k: random_value(rng) for k in rng.sample(["mode", "color", "level", "temperament", "fen", "x"],
                                                             rng.randrange(1, 4))}
            path = "/api/games"
        else:
            body = {"move": rng.choice(["e2e4", "d2d4", "e7e5", "O-O", "Nf3", "a1a8", random_value(rng)])}
            path = rng.choice(["/api/games/%s/moves" % game, "/api/games/%s/resign" % game,
                               "/api/games/g%s/moves" % ("z" * rng.randrange(0, 60))])
        status, parsed, text = post_json(port, path, body)
        if status not in (200, 201, 400, 403, 404, 409, 503) or not isinstance(parsed, dict):
            bad.append((status, path, body, text[:200]))
    return bad


def ws_garbage(port, rng):
    for _ in range(40):
        raw_send(port, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2000))), read=False)


def random_frames(ws, rng):
    """Random bytes as binary frames, random (valid) text as text frames, random JSON messages."""
    for i in range(200):
        if rng.random() < 0.3:
            if rng.random() < 0.5:
                ws.send_frame(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))), opcode=2)
            else:
                ws.send_frame("".join(chr(rng.randrange(1, 0x2FF)) for _ in range(rng.randrange(0, 300))))
        else:
            msg = random_body(rng)
            msg["op"] = rng.choice(["analyse", "stop", "subscribe", "ping", "nope", 5, None])
            msg["id"] = random_value(rng) if rng.random() < 0.3 else "f%d" % i
            ws.send_frame(json.dumps(msg, allow_nan=True))


def invalid_utf8(port):
    """Invalid UTF-8 in a text frame must fail that connection (RFC 6455): what the server sends next."""
    ws = WebSocket(port)
    ws.send_frame(b"{\"op\": \"ping\", \"x\": \"\xff\xfe\"}", opcode=1)
    return ws.recv(5)


def pong_after_random_frames(port, rng):
    ws = WebSocket(port)
    random_frames(ws, rng)
    ws.send({"op": "ping"})
    pong, _ = ws.until(lambda m: m.get("type") == "pong", timeout=30)
    ws.close()
    return pong


# ---- the checks ----

@suite.test()
def http_survives_garbage():
    s = suite.server()
    http_garbage(s.port, rng_for("http_survives_garbage"))
    check("http_survives_garbage", health_ok(s.port))


@suite.test()
def random_json_bodies_answered():
    bad = random_requests(suite.server().port, rng_for("random_json_bodies_answered"))
    check("random_json_bodies_answered", not bad, bad[:3])


@suite.test()
def http_alive_after_bodies():
    s = suite.server()
    random_requests(s.port, rng_for("http_alive_after_bodies"))
    check("http_alive_after_bodies", health_ok(s.port))


@suite.test()
def ws_invalid_utf8_closes():
    check("ws_invalid_utf8_closes", invalid_utf8(suite.server().ws_port) is None)


@suite.test()
def ws_usable_after_random_frames():
    pong = pong_after_random_frames(suite.server().ws_port, rng_for("ws_usable_after_random_frames"))
    check("ws_usable_after_random_frames", pong == {"type": "pong"})


@suite.test()
def ws_alive_after_garbage():
    s = suite.server()
    ws_garbage(s.ws_port, rng_for("ws_alive_after_garbage"))
    check("ws_alive_after_garbage", health_ok(s.port) and WebSocket(s.ws_port) is not None)


@suite.test()
def clean_exit_after_fuzz():
    """A server that went through every kind of hostile input above exits 0 on SIGTERM (under the
    ASan build: with no leak). Its own server; the broken HTTP requests go all at once."""
    rng = rng_for("clean_exit_after_fuzz")
    s = fuzz_server()
    try:
        http_garbage(s.port, rng, at_once=True)
        random_requests(s.port, rng)
        ws_garbage(s.ws_port, rng)
        invalid_utf8(s.ws_port)
        pong_after_random_frames(s.ws_port, rng)
    finally:
        rc, _ = s.stop()
    check("clean_exit_after_fuzz", rc == 0, rc)


if __name__ == "__main__":
    sys.exit(suite.main())
