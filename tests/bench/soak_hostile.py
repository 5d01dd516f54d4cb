"""The soak test's hostile clients (soak.py starts this as a process of its own: `soak_hostile.py
HTTP_PORT WS_PORT`, from 127.0.0.100...): a connection flood, slowloris, a WebSocket that never reads,
garbage, a client past its rate, one past its analyses cap, invalid tokens. It reports its tally
as JSON when stdin says 'report'."""
import json
import os
import random
import re
import selectors
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soak_common import (FENS, STOP, Http, Tally, connect, error_code, harness, parse, raise_nofile,  # noqa: E402
                         run_loop, sleep, ws_error_status, ws_frame, ws_handshake, ws_open)


# ---- hostile clients (a process of their own) ----

class Pool(threading.Thread):
    """Keeps n connections of one kind from `source` to `port` open, reopening (at most `rate` a second)
    what the server closes. Kinds: idle (sends nothing), partial (a request's first headers, then one
    more header line every 2 s), slowbody (headers, then one body byte every 2 s), wsidle (a WebSocket
    handshake, then silence: the server's pings go unanswered). Counts the status lines received and
    how long the server kept each connection."""

    def __init__(self, tally, cls, port, source, n, kind, rate=40):
        super().__init__(daemon=True, name=cls)
        self.tally, self.cls, self.port, self.source = tally, cls, port, source
        self.n, self.kind, self.rate = n, kind, rate
        self.sel = selectors.DefaultSelector()
        self.lifetimes = []

    def first_bytes(self):
        if self.kind == "partial":
            return b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if self.kind == "slowbody":
            return (b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 200\r\n\r\n{")
        if self.kind == "wsidle":
            return ws_handshake(self.port)
        return b""

    def open(self):
        try:
            sock = connect(self.port, self.source, timeout=2)
            first = self.first_bytes()
            if first:
                sock.sendall(first)
        except OSError as e:
            self.tally.count(self.cls, "connect failed: " + type(e).__name__)
            return
        sock.setblocking(False)
        self.sel.register(sock, selectors.EVENT_READ, {"t0": time.time(), "next": time.time() + 2, "status": None})

    def closed(self, key):
        d = key.data
        self.sel.unregister(key.fileobj)
        key.fileobj.close()
        self.lifetimes.append(time.time() - d["t0"])
        self.tally.count(self.cls, "closed by the server after %s" % (d["status"] or "no answer"))

    def run(self):
        budget, last = 0.0, time.time()
        while not STOP.is_set():
            now = time.time()
            budget = min(self.rate, budget + (now - last) * self.rate)
            last = now
            while len(self.sel.get_map()) < self.n and budget >= 1:
                budget -= 1
                self.open()
            for key, _ in self.sel.select(0.2):
                try:
                    data = key.fileobj.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self.closed(key)
                elif key.data["status"] is None and data.startswith(b"HTTP/1.1 "):
                    key.data["status"] = data.split(b" ", 2)[1].decode(errors="replace")
                    self.tally.count(self.cls, "answered " + key.data["status"])
            if self.kind in ("partial", "slowbody"):
                now = time.time()
                for key in list(self.sel.get_map().values()):
                    if key.data["next"] <= now and key.data["status"] is None:
                        key.data["next"] = now + 2
                        try:
                            key.fileobj.send(b"X-Slow: %d\r\n" % random.randint(0, 9) if self.kind == "partial"
                                             else b"1")
                        except OSError:
                            pass
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()

    def figures(self):
        life = sorted(self.lifetimes)
        return {"closed": len(life), "median_s": round(life[len(life) // 2], 2) if life else None,
                "max_s": round(life[-1], 2) if life else None}


def read_answer(sock, timeout=12):
    """(status or 'closed'/'timeout'/..., parsed body, bytes after the answer) of one HTTP answer."""
    buf = b""
    deadline = time.time() + timeout
    try:
        while b"\r\n\r\n" not in buf:
            sock.settimeout(max(0.05, deadline - time.time()))
            chunk = sock.recv(65536)
            if not chunk:
                return ("closed" if not buf else "closed mid-answer"), None, b""
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        m = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
        n = int(m.group(1)) if m else 0
        while len(rest) < n:
            sock.settimeout(max(0.05, deadline - time.time()))
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        return status, parse(rest[:n]), rest[n:]
    except socket.timeout:
        return "timeout", None, b""
    except (ConnectionResetError, BrokenPipeError):
        return "reset", None, b""
    except (ValueError, IndexError):
        return "unparsable", None, b""


def ws_outcome(sock, buf=b"", timeout=2, texts=2):
    """What the server does after a frame: the first text frames' types or error codes, then
    'close CODE' (its close frame), 'EOF' (closed without one), 'reset' or 'open' (still, after timeout)."""
    seen = []
    deadline = time.time() + timeout
    try:
        while True:
            while len(buf) >= 2:
                n, off = buf[1] & 0x7F, 2
                if n == 126:
                    if len(buf) < 4:
                        break
                    n, off = struct.unpack(">H", buf[2:4])[0], 4
                elif n == 127:
                    if len(buf) < 10:
                        break
                    n, off = struct.unpack(">Q", buf[2:10])[0], 10
                if len(buf) < off + n:
                    break
                payload, opcode, buf = buf[off:off + n], buf[0] & 0x0F, buf[off + n:]
                if opcode == 8:
                    return " ".join(seen + ["close %s" % (struct.unpack(">H", payload[:2])[0] if n >= 2 else "-")])
                if opcode == 1 and len(seen) < texts:
                    m = parse(payload)
                    seen.append(error_code(m) or m.get("type", "?") if isinstance(m, dict) else "text")
            if time.time() >= deadline:
                return " ".join(seen + ["open"])
            sock.settimeout(max(0.05, deadline - time.time()))
            chunk = sock.recv(65536)
            if not chunk:
                return " ".join(seen + ["EOF"])
            buf += chunk
    except socket.timeout:
        return " ".join(seen + ["open"])
    except OSError:
        return " ".join(seen + ["reset"])


def garbage_items(http_port, ws_port):
    """(name, port, bytes to send) of the malformed things the garbage client sends."""
    host = b"Host: 127.0.0.1\r\n"
    fen = random.choice(FENS)

    def post(path, body, ctype=b"application/json"):
        return (b"POST " + path + b" HTTP/1.1\r\n" + host + b"Content-Type: " + ctype + b"\r\nContent-Length: " +
                str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)

    return [
        ("random bytes", http_port, os.urandom(random.randint(1, 400))),
        ("random bytes + CRLFCRLF", http_port, os.urandom(200) + b"\r\n\r\n"),
        ("no Host", http_port, b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n"),
        ("HTTP/0.9", http_port, b"GET /api/health\r\n\r\n"),
        ("bad method", http_port, b"BREW /api/health HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n"),
        ("PATCH health", http_port, b"PATCH /api/health HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n"),
        ("unknown path", http_port, b"GET /api/%s HTTP/1.1\r\n" % os.urandom(8).hex().encode() + host +
         b"Connection: close\r\n\r\n"),
        ("not UTF-8 path", http_port, b"GET /api/%ff%fe HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n"),
        ("NUL in path", http_port, b"GET /api/he%00alth HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n"),
        ("traversal", http_port, b"GET /../../../etc/passwd HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n"),
        ("huge header", http_port, b"GET /api/health HTTP/1.1\r\n" + host + b"X-Big: " + b"a" * 70000 +
         b"\r\nConnection: close\r\n\r\n"),
        ("many headers", http_port, b"GET /api/health HTTP/1.1\r\n" + host +
         b"".join(b"X-H%d: v\r\n" % i for i in range(2000)) + b"Connection: close\r\n\r\n"),
        ("two Content-Lengths", http_port, b"POST /api/analyse HTTP/1.1\r\n" + host +
         b"Content-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}"),
        ("bad Content-Length", http_port, b"POST /api/analyse HTTP/1.1\r\n" + host +
         b"Content-Length: -5\r\nConnection: close\r\n\r\n{}"),
        ("bad chunk", http_port, b"POST /api/analyse HTTP/1.1\r\n" + host +
         b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
        ("TE gzip", http_port, b"POST /api/analyse HTTP/1.1\r\n" + host +
         b"Transfer-Encoding: gzip\r\nConnection: close\r\n\r\n{}"),
        ("declared 5 MB body", http_port, b"POST /api/analyse HTTP/1.1\r\n" + host +
         b"Content-Type: application/json\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n"),
        ("2 MB body", http_port, post(b"/api/analyse", b'{"fen":"' + b"x" * 2000000 + b'"}')),
        ("invalid JSON", http_port, post(b"/api/analyse", b'{"fen": "' + fen.encode() + b'", limits: }')),
        ("JSON not an object", http_port, post(b"/api/analyse", b"[1,2,3]")),
        ("deep JSON", http_port, post(b"/api/analyse", b"[" * 100000 + b"]" * 100000)),
        ("bad FEN", http_port, post(b"/api/analyse", json.dumps({"fen": "8/8/8/8 w - - 0 1",
                                                                  "limits": {"depth": 3}}).encode())),
        ("illegal moves", http_port, post(b"/api/analyse", json.dumps({"moves": ["e2e5", "zz"],
                                                                        "limits": {"depth": 3}}).encode())),
        # Limits past --max-depth are clamped, and the search stops at --max-movetime: a job, not an answer.
        ("huge depth job", http_port, post(b"/api/jobs", json.dumps({"fen": fen,
                                                                      "limits": {"depth": 10 ** 12}}).encode())),
        ("negative movetime", http_port, post(b"/api/jobs", json.dumps({"fen": fen,
                                                                         "limits": {"movetime": -1}}).encode())),
        ("wrong types", http_port, post(b"/api/analyse", json.dumps({"fen": 5, "limits": "deep",
                                                                     "multiPv": "x"}).encode())),
        ("form body", http_port, post(b"/api/analyse", b"fen=x", b"application/x-www-form-urlencoded")),
        ("bad game", http_port, post(b"/api/games", json.dumps({"level": 99, "color": "purple"}).encode())),
        ("unknown game move", http_port, post(b"/api/games/%s/moves" % os.urandom(12).hex().encode(),
                                              json.dumps({"move": "e2e4"}).encode())),
        ("bad job id", http_port, b"GET /api/jobs/%s HTTP/1.1\r\n" % (b"z" * 300) + host +
         b"Connection: close\r\n\r\n"),
        ("style garbage", http_port, post(b"/api/style", json.dumps({"pgn": os.urandom(3000).hex(),
                                                                       "player": "white"}).encode())),
        ("foreign Host", http_port, b"GET /api/health HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"),
        ("foreign Origin", http_port, post(b"/api/analyse", json.dumps({"fen": fen}).encode())
         .replace(b"Connection: close", b"Origin: http://evil.example\r\nConnection: close")),
        # WebSockets: refused handshakes; a frame on the handshake's heels; then frames after a real one
        # (port None: sent once the handshake is answered).
        ("ws bad version", ws_port, ws_handshake(ws_port).replace(b"Version: 13", b"Version: 7")),
        ("ws no key", ws_port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                               b"Sec-WebSocket-Version: 13\r\n\r\n"),
        ("ws 70 KB message with the handshake", ws_port, ws_handshake(ws_port) + ws_frame("[" + "1," * 35000 + "1]")),
        ("ws ping with the handshake", ws_port, ws_handshake(ws_port) + ws_frame('{"op":"ping"}')),
        ("ws random bytes", None, os.urandom(300)),
        ("ws unmasked frame", None, ws_frame('{"op":"ping"}', mask=False)),
        ("ws invalid JSON", None, ws_frame("{op: ping")),
        ("ws unknown op", None, ws_frame('{"op":"rm -rf","id":"x"}')),
        ("ws bad analyse", None, ws_frame(json.dumps({"op": "analyse", "id": "x" * 100, "fen": "nope",
                                                      "limits": {"depth": -3}}))),
        ("ws binary frame", None, ws_frame(os.urandom(50), opcode=2)),
        ("ws 100 KB message", None, ws_frame("[" + "1," * 50000 + "1]")),
        ("ws 2^63 length", None, b"\x81\xff" + b"\x7f" + b"\xff" * 7 + os.urandom(4)),
        ("ws bad opcode", None, ws_frame(b"x", opcode=5)),
        ("ws fragments never ended", None, ws_frame('{"op":', fin=False)),
        ("ws bad UTF-8", None, ws_frame(b'{"op":"\xff\xfe"}')),
        ("ws bad token op", None, ws_frame(json.dumps({"op": "auth", "token": "ff_" + "1" * 48}))),
    ]


def hostile_garbage(tally, http_port, ws_port, source):
    """Every malformed thing in turn (shuffled), each on a fresh connection; the answer's status (or
    what became of the connection) is counted per item."""
    items, rounds = [], 0
    while not STOP.is_set():
        if not items:
            if rounds % 10 == 0:  # made afresh now and then only: masking 100 KB in Python is slow
                made = garbage_items(http_port, ws_port)
            rounds += 1
            items = made[:]
            random.shuffle(items)
        name, port, data = items.pop()
        try:
            if port is None:
                ws = ws_open(ws_port, source, timeout=5)
                sock = ws.sock
            else:
                sock = connect(port, source, timeout=5)
        except (OSError, ConnectionError) as e:
            tally.count("garbage", "%s: connect failed: %s" % (name, type(e).__name__))
            sleep(0.5)
            continue
        try:
            try:
                sock.sendall(data)
            except OSError:
                pass  # the server may close early (a body too large): read what it said
            if port is None:
                tally.count("garbage", "%s: %s" % (name, ws_outcome(sock, ws.buf)))
            elif port == ws_port:
                st, body, rest = read_answer(sock, 6)
                if st == 101:
                    tally.count("garbage", "%s: 101 then %s" % (name, ws_outcome(sock, rest)))
                else:
                    tally.answer("garbage", name, st, error_code(body), prefix=name + ": ")
            else:
                st, body, _ = read_answer(sock, 12)
                tally.answer("garbage", name, st, error_code(body), prefix=name + ": ")
        finally:
            sock.close()
        sleep(0.1)


def hostile_hammer(tally, http_port, source):
    """One keep-alive client far past its rate (up to ~400 requests a second): 429s expected."""
    c = Http(http_port, source, tally, "rate hammer")
    while not STOP.is_set():
        t0 = time.time()
        for _ in range(40):
            try:
                c.timed("hammer", "GET", "/api/jobs/0123456789abcdef")
            except Exception as e:  # noqa: BLE001
                tally.count("rate hammer", "error " + type(e).__name__)
                c.close()
                sleep(0.5)
        sleep(max(0.0, 0.1 - (time.time() - t0)))


def hostile_jobs(tally, http_port, source):
    """A client that wants more analyses than its cap (ten jobs a second, never read)."""
    c = Http(http_port, source, tally, "jobs past cap")
    while not STOP.is_set():
        try:
            c.timed("jobs", "POST", "/api/jobs", {"fen": random.choice(FENS), "limits": {"depth": 11}})
        except Exception as e:  # noqa: BLE001
            tally.count("jobs past cap", "error " + type(e).__name__)
            c.close()
        sleep(0.1)


def hostile_ws_flood(tally, ws_port, source):
    """A WebSocket client past its rate: bursts of 200 pings, reading what comes back."""
    while not STOP.is_set():
        try:
            ws = ws_open(ws_port, source)
        except (OSError, ConnectionError) as e:
            tally.count("ws ping flood", "handshake failed: %s" % str(e)[:60])
            sleep(1)
            continue
        try:
            for _ in range(10):
                if STOP.is_set():
                    break
                ws.sock.sendall(b"".join(ws_frame('{"op":"ping"}') for _ in range(200)))
                for _ in range(200):
                    m = ws.recv_json(2)
                    if m is None:
                        break
                    code = (m.get("error") or {}).get("code")
                    tally.answer("ws ping flood", "ws", ws_error_status(code) if m.get("type") == "error"
                                 else m.get("type"), code)
                sleep(1)
        except OSError as e:
            tally.count("ws ping flood", "error " + type(e).__name__)
        finally:
            ws.close()


def hostile_never_reader(tally, ws_port, source):
    """A WebSocket client with a tiny receive buffer that starts an infinite analysis (and a second,
    past --client-infinite-max), then sends pings it never reads the answers to (past its rate: the
    error frames pile up) until the server closes it (or 90 s have passed)."""
    while not STOP.is_set():
        try:
            ws = ws_open(ws_port, source, rcvbuf=2048)
        except (OSError, ConnectionError) as e:
            tally.count("never reads", "handshake failed: %s" % str(e)[:60])
            sleep(2)
            continue
        sock = ws.sock
        t0 = time.time()
        outcome = "held 90 s"
        try:
            sock.settimeout(5)
            for aid in ("inf1", "inf2"):
                sock.sendall(ws_frame(json.dumps({"op": "analyse", "id": aid, "fen": random.choice(FENS),
                                                  "limits": {"infinite": True}})))
            while time.time() - t0 < 90 and not STOP.is_set():
                sock.sendall(b"".join(ws_frame('{"op":"ping"}') for _ in range(40)))
                time.sleep(0.1)
        except OSError as e:
            outcome = "send failed (%s)" % type(e).__name__
        end = ws_outcome(sock, b"", 5, texts=0)
        life = time.time() - t0
        tally.count("never reads", "%s, then %s" % (outcome, end))
        with tally.lock:
            tally.lat["never-reader lifetime"].append(life * 1000)
        sock.close()
        sleep(2)


def hostile_tokens(tally, http_port, ws_port, source):
    """Invalid tokens, about ten a second: 401 expected (and a refused WebSocket handshake)."""
    bad = ["Bearer ff_" + "0" * 48, "Bearer " + os.urandom(24).hex(), "Basic dXNlcjpwYXNz", "Bearer",
           "Bearer ff_" + "a" * 5000, "bearer  ff_%s" % os.urandom(24).hex()]
    paths = [("GET", "/api/health", None), ("POST", "/api/analyse", {"fen": harness.FEN, "limits": {"depth": 3}}),
             ("GET", "/metrics", None), ("POST", "/api/games", {"level": 1}),
             ("GET", "/api/jobs/0123456789abcdef", None)]
    n = 0
    while not STOP.is_set():
        n += 1
        if n % 10 == 0:
            try:
                ws = ws_open(ws_port, source, headers="Authorization: %s\r\n" % random.choice(bad[:3]))
                tally.count("bad tokens", "ws handshake accepted")
                ws.close()
            except ConnectionError as e:
                tally.count("bad tokens", "ws " + str(e)[:50])
            except OSError as e:
                tally.count("bad tokens", "ws error " + type(e).__name__)
        else:
            method, path, body = random.choice(paths)
            c = Http(http_port, source, tally, "bad tokens", {"Authorization": random.choice(bad)})
            try:
                c.timed("bad token", method, path, body)
            except Exception as e:  # noqa: BLE001
                tally.count("bad tokens", "error " + type(e).__name__)
            c.close()
        sleep(0.1)


def hostile_main(http_port, ws_port):
    raise_nofile()
    tally = Tally()
    pools = [Pool(tally, "flood http", http_port, "127.0.0.100", 200, "idle"),
             Pool(tally, "flood http", http_port, "127.0.0.101", 100, "idle"),
             Pool(tally, "flood ws tcp", ws_port, "127.0.0.102", 100, "idle"),
             Pool(tally, "flood ws idle", ws_port, "127.0.0.103", 80, "wsidle"),
             Pool(tally, "slowloris", http_port, "127.0.0.110", 40, "partial"),
             Pool(tally, "slow body", http_port, "127.0.0.111", 10, "slowbody")]
    for p in pools:
        p.start()
    workers = [(hostile_garbage, (tally, http_port, ws_port, "127.0.0.120")),
               (hostile_garbage, (tally, http_port, ws_port, "127.0.0.121")),
               (hostile_garbage, (tally, http_port, ws_port, "127.0.0.122")),
               (hostile_hammer, (tally, http_port, "127.0.0.130")),
               (hostile_jobs, (tally, http_port, "127.0.0.131")),
               (hostile_ws_flood, (tally, ws_port, "127.0.0.132")),
               (hostile_never_reader, (tally, ws_port, "127.0.0.140")),
               (hostile_tokens, (tally, http_port, ws_port, "127.0.0.150"))]
    for fn, args in workers:
        threading.Thread(target=run_loop, args=(tally, fn.__name__, "loop", lambda fn=fn, args=args: fn(*args)),
                         daemon=True).start()
    for line in sys.stdin:
        if line.strip() == "stopping":
            tally.stopping.set()
        elif line.strip() == "report":
            break
    STOP.set()
    time.sleep(0.5)
    with tally.lock:
        out = {"counts": {k: dict(v) for k, v in tally.counts.items()}, "unintended": tally.unintended,
               "unintended_count": tally.unintended_count, "errors": dict(tally.errors),
               "pools": {"%s %s" % (p.cls, p.source): p.figures() for p in pools},
               "never_reader_s": [round(x / 1000, 1) for x in tally.lat["never-reader lifetime"]]}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    hostile_main(int(sys.argv[1]), int(sys.argv[2]))
