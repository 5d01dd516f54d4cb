#!/usr/bin/env python3
"""Soak test (make soak, also run by make bench): the release server with the protective settings a
real deployment would use, for SOAK_SECONDS (600), under well-behaved clients beside hostile ones.

Well-behaved clients, each from a loopback address of its own (127.0.0.10...): health polls, REST
analyses, jobs created and polled (some cancelled), games (created, one to three moves, most
resigned, some left idle), WebSocket streams (analyses read to their bestmove; now and then an
infinite one stopped). Each request's latency is kept by kind.

Hostile clients, in a process of their own (127.0.0.100...): a connection flood (idle TCP on both
ports and idle WebSockets, reopened as the server closes them), slowloris headers and trickled bodies,
a WebSocket client with an infinite analysis that never reads (a tiny receive buffer) while it sends
pings, garbage (random bytes, broken framing, invalid JSON, oversized bodies and messages, bad
WebSocket frames), a client past its rate, one past its analyses cap, and invalid tokens.

Every ~10 s: the server's RSS, open descriptors, database size (file + WAL) and games in memory
(/metrics, read with an admin token: the server runs with --auth optional). The "start" figures are
taken after a warm-up (SOAK_WARMUP_SECONDS, 20 % of the run: what the server keeps by design fills
first, such as the last 2,000 finished jobs it holds in memory), "end" at the end. Every answer's
status is counted per client class; a 5xx is unintended unless it is 503 queue_full (or
shutting_down or cancelled once the server is told to stop). The server is stopped with SIGTERM at
the end, clients still running: it must exit 0 with no sanitizer report.

Last line: 'soak: flat (RSS x.., fds x.., db x..), p99 health .. ms, N unintended 5xx'; exit status 1
if anything unintended happened (5xx, errors seen by the well-behaved clients, the server died or
exited badly) or growth looks unbounded (RSS or descriptors more than doubled with a sizeable
absolute increase; the database beyond max(2 x start, 50 MB)). Standard library only.
SOAK_HOSTILE=0 leaves the hostile clients out (a baseline). `soak.py --hostile HTTP_PORT WS_PORT` is
the hostile helper process (it reports as JSON on stdin's 'report')."""
import base64
import collections
import http.client
import json
import math
import os
import random
import re
import resource
import selectors
import socket
import struct
import subprocess
import sys
import textwrap
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc import open_fds, rss_mb  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
from harness import SANITIZER_MARKS, Server  # noqa: E402
from wsclient import WebSocket  # noqa: E402

harness.judge_frames(False)  # the client's time would be counted in the latencies measured

SECONDS = float(os.environ.get("SOAK_SECONDS", "600"))
SAMPLE_EVERY = float(os.environ.get("SOAK_SAMPLE_SECONDS", "10"))
HOSTILE = os.environ.get("SOAK_HOSTILE", "1") != "0"  # 0: the well-behaved clients alone (a baseline)
SERVER_ARGS = ["--workers", "2", "--queue", "64", "--rate", "50", "--rate-burst", "100", "--client-jobs-max", "4",
               "--client-infinite-max", "1", "--connections-per-ip", "64", "--header-timeout", "5",
               "--body-timeout", "10", "--keepalive-timeout", "15", "--ws-idle-timeout", "60",
               "--ws-queue-max", "262144", "--max-movetime", "5000", "--retention-jobs", "2000",
               "--retention-games", "500", "--game-memory-idle", "30", "--auth", "optional", "--log-level", "warn"]
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
try:
    with open(os.path.join(harness.DATA, "openings.epd")) as f:
        FENS = [" ".join(line.split()[:4]) + " 0 1" for line in f if line.strip()]
except OSError:
    FENS = [harness.FEN, START_FEN]
# Plausible moves for white in the first plies; the server says which are illegal (400).
WHITE_MOVES = ["e2e4", "d2d4", "g1f3", "c2c4", "b1c3", "e2e3", "d2d3", "g2g3", "b2b3", "c2c3", "a2a3", "h2h3",
               "f1e2", "f1d3", "b1d2", "g1e2", "a2a4", "h2h4"]


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass


def error_code(body):
    return body["error"].get("code") if isinstance(body, dict) and isinstance(body.get("error"), dict) else None


def parse(data):
    try:
        return json.loads(data) if data else None
    except ValueError:
        return data.decode(errors="replace")


class Tally:
    """Answers by client class and label ('200', '429 rate_limited', 'closed'...), latencies by kind,
    unintended 5xx and client-side errors."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.defaultdict(collections.Counter)
        self.lat = collections.defaultdict(list)
        self.unintended = []
        self.unintended_count = 0
        self.errors = collections.Counter()
        self.error_examples = []
        self.stopping = threading.Event()  # the server has been (or is about to be) told to stop

    def intended(self, status, code):
        return status < 500 or status == 503 and (code == "queue_full" or
                                                  code in ("shutting_down", "cancelled") and self.stopping.is_set())

    def answer(self, cls, kind, status, code=None, ms=None, prefix=""):
        label = "%s %s" % (status, code) if code and (not isinstance(status, int) or status >= 400) else str(status)
        label = ("after SIGTERM: " if self.stopping.is_set() else "") + prefix + label
        with self.lock:
            self.counts[cls][label] += 1
            if ms is not None and not self.stopping.is_set():
                self.lat[kind].append(ms)
            if isinstance(status, int) and not self.intended(status, code):
                self.unintended_count += 1
                if len(self.unintended) < 20:
                    self.unintended.append("%s %s: %s %s" % (cls, kind, status, code))

    def count(self, cls, label, n=1):
        label = ("after SIGTERM: " if self.stopping.is_set() else "") + label
        with self.lock:
            self.counts[cls][label] += n

    def error(self, cls, kind, exc):
        if self.stopping.is_set():
            return  # the server is going away: connections may fail
        with self.lock:
            self.errors["%s %s: %s" % (cls, kind, type(exc).__name__)] += 1
            if len(self.error_examples) < 10:
                self.error_examples.append("%s %s: %r" % (cls, kind, exc))


STOP = threading.Event()


def sleep(seconds):
    STOP.wait(seconds)


# ---- raw sockets and WebSockets from a chosen address ----

def ws_error_status(code):
    """The HTTP status a WebSocket error frame's code stands for (the frames carry only the code)."""
    return 503 if code in ("queue_full", "shutting_down", "storage_unavailable", "overloaded", "cancelled") else "error"


def connect(port, source, timeout=10, rcvbuf=None):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.settimeout(timeout)
    try:
        sock.connect(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return sock


def ws_handshake(port, key=None, headers=""):
    key = key or base64.b64encode(os.urandom(16)).decode()
    return ("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n" % (port, key, headers)).encode()


def ws_open(port, source, timeout=10, rcvbuf=None, headers=""):
    """A wsclient.WebSocket from `source`; ConnectionError(status line) when the handshake is refused."""
    sock = connect(port, source, timeout, rcvbuf)
    try:
        sock.sendall(ws_handshake(port, headers=headers))
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionError("handshake: closed after %r" % head[:60])
            head += chunk
    except (OSError, ConnectionError):
        sock.close()
        raise
    status, _, rest = head.partition(b"\r\n\r\n")
    if b" 101 " not in status.split(b"\r\n")[0]:
        sock.close()
        raise ConnectionError("handshake refused: " + status.split(b"\r\n")[0].decode(errors="replace"))
    ws = WebSocket.__new__(WebSocket)
    ws.sock, ws.buf, ws.close_code = sock, rest, None
    return ws


def ws_frame(payload, opcode=1, fin=True, mask=True):
    if isinstance(payload, str):
        payload = payload.encode()
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    bit = 0x80 if mask else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + struct.pack(">H", n)
    else:
        head += bytes([bit | 127]) + struct.pack(">Q", n)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


# ---- well-behaved clients ----

class Http:
    """A keep-alive connection from one address; a request on a connection the server has closed
    meanwhile (keep-alive timeout or request cap) is sent again on a new one, as browsers do."""

    def __init__(self, port, source, tally, cls, headers=None):
        self.port, self.source, self.tally, self.cls = port, source, tally, cls
        self.headers = dict(headers or {})
        self.conn = None

    def request(self, method, path, body=None, timeout=60):
        hdrs = dict(self.headers)
        if body is not None:
            body = json.dumps(body)
            hdrs["Content-Type"] = "application/json"
        for _ in range(2):
            fresh = self.conn is None
            if fresh:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                                       source_address=(self.source, 0))
            try:
                self.conn.request(method, path, body=body, headers=hdrs)
                resp = self.conn.getresponse()
                data = resp.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if fresh:
                    raise
                self.tally.count(self.cls, "(keep-alive reconnects)")
                continue
            except Exception:
                self.close()
                raise
            if resp.getheader("Connection", "").lower() == "close":
                self.close()
            return resp.status, parse(data)
        raise ConnectionError("unreachable")

    def timed(self, kind, method, path, body=None, record=lambda st: st < 300):
        """(status, body); counted, and its latency kept when record(status)."""
        t0 = time.perf_counter()
        st, b = self.request(method, path, body)
        ms = (time.perf_counter() - t0) * 1000
        self.tally.answer(self.cls, kind, st, error_code(b), ms if record(st) else None)
        return st, b

    def close(self):
        if self.conn:
            self.conn.close()
        self.conn = None


def good_health(c):
    c.timed("health", "GET", "/api/health")
    sleep(0.5)


def good_analyse(c):
    body = {"fen": random.choice(FENS), "limits": {"depth": random.randint(4, 8)}}
    c.timed("REST analyse", "POST", "/api/analyse", body)
    sleep(random.uniform(0.1, 0.5))


def good_jobs(c, state):
    state["n"] = state.get("n", 0) + 1
    cancel = state["n"] % 5 == 0
    body = {"fen": random.choice(FENS), "limits": {"depth": 30 if cancel else random.randint(5, 8)}}
    t0 = time.perf_counter()
    st, j = c.timed("job create", "POST", "/api/jobs", body)
    if st != 202:
        sleep(1)
        return
    path = "/api/jobs/" + j["id"]
    if cancel:
        sleep(0.05)
        c.timed("job cancel", "DELETE", path)
    deadline = time.time() + 60
    while not STOP.is_set() and time.time() < deadline:
        st, j = c.timed("job poll", "GET", path)
        if st != 200 or j.get("status") in ("done", "cancelled", "failed"):
            break
        sleep(0.1)
    else:
        if not STOP.is_set():
            c.tally.count(c.cls, "(job not finished in 60 s)")
    if st == 200 and j.get("status") == "done" and not c.tally.stopping.is_set():
        with c.tally.lock:
            c.tally.lat["job done"].append((time.perf_counter() - t0) * 1000)
    sleep(random.uniform(0.1, 0.5))


def good_games(c):
    st, g = c.timed("game create", "POST", "/api/games", {"level": random.randint(1, 3), "color": "white"})
    if st != 201:
        sleep(1)
        return
    full = g["fullId"]
    for _ in range(random.randint(1, 3)):
        if STOP.is_set() or g.get("status") != "started":
            break
        # The engine replies within the answer; should it not have yet, wait for it.
        deadline = time.time() + 30
        while (g.get("turn") != "white" or g.get("thinking")) and time.time() < deadline and not STOP.is_set():
            sleep(0.2)
            st, g = c.timed("game get", "GET", "/api/games/" + full)
        played = False
        for mv in random.sample(WHITE_MOVES, len(WHITE_MOVES)):
            st, g2 = c.timed("game move", "POST", "/api/games/%s/moves" % full, {"move": mv})
            if st == 200:
                g, played = g2, True
                break
            if not (st == 400 and error_code(g2) == "illegal_move"):
                break
        if not played:
            break
        sleep(random.uniform(0.1, 0.4))
    if random.random() < 0.3:
        c.timed("game get", "GET", "/api/games/" + g["id"])
        c.timed("game pgn", "GET", "/api/games/%s/pgn" % g["id"])
    if random.random() < 0.8 and g.get("status") == "started":  # the rest are left idle
        c.timed("game resign", "POST", "/api/games/%s/resign" % full)
    sleep(random.uniform(0.1, 0.5))


def good_ws(port, source, tally, cls, state):
    """One analysis on this thread's WebSocket (reopened every 25 analyses); every 10th is infinite,
    stopped at its first info."""
    n = state["n"] = state.get("n", 0) + 1
    if state.get("ws") is None or n % 25 == 0:
        if state.get("ws"):
            state["ws"].close()
            state["ws"] = None
        t0 = time.perf_counter()
        state["ws"] = ws_open(port, source, timeout=60)
        tally.answer(cls, "ws connect", 101, None, (time.perf_counter() - t0) * 1000)
    ws = state["ws"]
    aid = "a%d" % n
    infinite = n % 10 == 0
    limits = {"infinite": True} if infinite else {"depth": random.randint(6, 8)}
    t0 = time.perf_counter()
    ws.send({"op": "analyse", "id": aid, "fen": random.choice(FENS), "limits": limits})
    first = stop_sent = None
    deadline = time.time() + 60
    while True:
        m = ws.recv_json(max(0.1, deadline - time.time()))
        now = time.perf_counter()
        if m is None:
            state["ws"] = None
            ws.sock.close()
            if STOP.is_set():
                return
            raise ConnectionError("WebSocket closed (code %s) or silent for 60 s" % ws.close_code)
        if m.get("id") != aid:
            continue
        if m.get("type") == "info" and first is None:
            first = now
            tally.answer(cls, "ws first info, infinite" if infinite else "ws first info", "info", None,
                         (now - t0) * 1000)
            if infinite:
                ws.send({"op": "stop", "id": aid})
                stop_sent = now
        elif m.get("type") == "bestmove":
            if stop_sent:
                tally.answer(cls, "ws stop to bestmove", "bestmove", None, (now - stop_sent) * 1000)
            else:
                tally.answer(cls, "ws bestmove", "bestmove", None, (now - t0) * 1000)
            break
        elif m.get("type") == "error":
            e = m.get("error") or {}
            tally.answer(cls, "ws analyse", ws_error_status(e.get("code")), e.get("code"))
            break
    sleep(random.uniform(0.1, 0.5))


def run_loop(tally, cls, kind, step):
    while not STOP.is_set():
        try:
            step()
        except Exception as e:  # noqa: BLE001 - counted, and the client goes on
            tally.error(cls, kind, e)
            sleep(0.5)


def start_good_clients(s, tally):
    threads = []
    addr = iter("127.0.0.%d" % i for i in range(10, 100))

    def spawn(kind, make):
        t = threading.Thread(target=make, name=kind, daemon=True)
        t.start()
        threads.append(t)

    def http_client(kind, fn, with_state=False):
        c = Http(s.port, next(addr), tally, "good")
        state = {}
        spawn(kind, lambda: run_loop(tally, "good", kind, (lambda: fn(c, state)) if with_state else (lambda: fn(c))))

    http_client("health", good_health)
    for _ in range(3):
        http_client("analyse", good_analyse)
    for _ in range(2):
        http_client("jobs", good_jobs, True)
    for _ in range(3):
        http_client("games", good_games)
    for _ in range(3):
        source, state = next(addr), {}
        spawn("ws", lambda source=source, state=state: run_loop(
            tally, "good", "ws", lambda: good_ws(s.ws_port, source, tally, "good", state)))
    return threads


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


# ---- measuring the server ----


def metrics(port, token):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/metrics", headers={"Authorization": "Bearer " + token})
    r = c.getresponse()
    text = r.read().decode(errors="replace")
    c.close()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                out[name] = float(value)
            except ValueError:
                pass
    return out


def sample(s, token, t):
    pid = s.proc.pid
    m = metrics(s.port, token)
    db = os.path.getsize(s.db) if os.path.exists(s.db) else 0
    wal = os.path.getsize(s.db + "-wal") if os.path.exists(s.db + "-wal") else 0
    return {"t": t, "rss": rss_mb(pid), "fds": open_fds(pid), "db": db / 1e6, "wal": wal / 1e6,
            "games": int(m.get("feelfish_games_in_memory", -1)), "ws": int(m.get("feelfish_websocket_clients", -1)),
            "queued": int(m.get('feelfish_jobs{state="queued"}', -1)),
            "done": int(m.get('feelfish_jobs_finished_total{status="done"}', 0)),
            "timeouts": int(m.get("feelfish_http_timeouts_total", 0)),
            "overflows": int(m.get("feelfish_websocket_overflows_total", 0))}


def pct(values, q):
    v = sorted(values)
    return v[max(0, math.ceil(q * len(v)) - 1)] if v else float("nan")


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--hostile":
        hostile_main(int(sys.argv[2]), int(sys.argv[3]))
        return 0
    raise_nofile()
    warmup = float(os.environ.get("SOAK_WARMUP_SECONDS", SECONDS * 0.2))
    print("== soak: %d s (start figures after %d s of warm-up)%s, feelfish serve %s" % (
        SECONDS, warmup, "" if HOSTILE else " WITHOUT the hostile clients", " ".join(SERVER_ARGS)))
    d = harness.tmpdir("feelfish-soak-")
    db = os.path.join(d, "soak.db")
    out = subprocess.run([harness.FF, "token", "create", "--scopes", "admin", "--name", "soak", "--db", db],
                         capture_output=True, text=True, timeout=60)
    if out.returncode:
        print("soak: FAILED (feelfish token create: %s)" % out.stderr.strip()[:300])
        return 1
    token = out.stdout.split()[0]
    s = Server(*SERVER_ARGS, db=db)
    tally = Tally()
    hostile = None
    if HOSTILE:
        hostile = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--hostile", str(s.port),
                                    str(s.ws_port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    threads = start_good_clients(s, tally)
    samples, failures = [], []
    t_start = time.time()
    start_sample = None
    next_at = 0.0
    died = False
    while True:
        t = time.time() - t_start
        if t >= SECONDS:
            break
        if not s.running():
            died = True
            break
        if start_sample is None and t >= warmup:
            start_sample = sample(s, token, t)
            samples.append(start_sample)
            next_at = t + SAMPLE_EVERY
        elif t >= next_at:
            samples.append(sample(s, token, t))
            next_at = t + SAMPLE_EVERY
        time.sleep(0.25)
    end_sample = None
    if not died and s.running():
        end_sample = sample(s, token, time.time() - t_start)
        samples.append(end_sample)
        st = Http(s.port, "127.0.0.1", tally, "final").timed("health", "GET", "/api/health")[0]
        if st != 200:
            failures.append("health %s at the end" % st)
    else:
        died = True
    # Stop: the server is told to stop while the clients still run (503 shutting_down is intended now).
    tally.stopping.set()
    try:
        if hostile:
            hostile.stdin.write("stopping\n")
            hostile.stdin.flush()
    except OSError:
        pass
    rc, secs = s.stop(timeout=30)
    STOP.set()
    hostile_out = {}
    if hostile:
        try:
            hostile.stdin.write("report\n")
            hostile.stdin.flush()
            hostile_out = json.loads(hostile.stdout.readline() or "{}")
        except (OSError, ValueError):
            pass
        try:
            hostile.wait(15)
        except subprocess.TimeoutExpired:
            hostile.kill()
    for t in threads:
        t.join(5)

    # ---- report ----
    print("\n-- server figures (every %d s; start after warm-up, end at the end)" % SAMPLE_EVERY)
    print("%7s %9s %6s %9s %8s %7s %6s %7s %9s %9s %9s" % ("t (s)", "RSS MB", "fds", "db MB", "wal MB", "games",
                                                           "ws", "queued", "jobs done", "timeouts", "overflows"))
    step = max(1, len(samples) // 20)
    for i, x in enumerate(samples):
        if i % step == 0 or x is start_sample or x is end_sample:
            print("%7.0f %9.1f %6d %9.2f %8.2f %7d %6d %7d %9d %9d %9d%s" % (
                x["t"], x["rss"], x["fds"], x["db"], x["wal"], x["games"], x["ws"], x["queued"], x["done"],
                x["timeouts"], x["overflows"],
                "  <- start" if x is start_sample else "  <- end" if x is end_sample else ""))
    ratios = {}
    if start_sample and end_sample:
        a, b = start_sample, end_sample
        dba, dbb = a["db"] + a["wal"], b["db"] + b["wal"]
        ratios = {"RSS": b["rss"] / a["rss"], "fds": b["fds"] / max(1, a["fds"]), "db": dbb / max(dba, 1e-6)}
        after = [x for x in samples if x["t"] >= a["t"]]
        slope = 0.0
        if len(after) >= 3:
            mt = sum(x["t"] for x in after) / len(after)
            mr = sum(x["rss"] for x in after) / len(after)
            den = sum((x["t"] - mt) ** 2 for x in after)
            slope = sum((x["t"] - mt) * (x["rss"] - mr) for x in after) / den * 60 if den else 0.0
        print("start -> end: RSS %.1f -> %.1f MB (x%.2f; %+.1f MB/min fitted), fds %d -> %d (x%.2f), "
              "db+wal %.2f -> %.2f MB (x%.2f), games in memory %d -> %d" % (
                  a["rss"], b["rss"], ratios["RSS"], slope, a["fds"], b["fds"], ratios["fds"], dba, dbb,
                  ratios["db"], a["games"], b["games"]))
        if b["rss"] > 2 * a["rss"] and b["rss"] - a["rss"] > 50:
            failures.append("RSS more than doubled (%.0f -> %.0f MB)" % (a["rss"], b["rss"]))
        if b["fds"] > 2 * a["fds"] and b["fds"] - a["fds"] > 200:
            failures.append("descriptors more than doubled (%d -> %d)" % (a["fds"], b["fds"]))
        if dbb > max(2 * dba, 50):
            failures.append("database grew from %.1f to %.1f MB" % (dba, dbb))
    elif not died:
        failures.append("no start/end figures (run too short?)")

    print("\n-- well-behaved clients: latency by kind (ms, while the server ran)")
    print("%-22s %8s %9s %9s %9s" % ("kind", "count", "p50", "p99", "max"))
    for kind in ["health", "REST analyse", "job create", "job poll", "job done", "job cancel", "game create",
                 "game move", "game get", "game pgn", "game resign", "ws connect", "ws first info", "ws bestmove",
                 "ws first info, infinite", "ws stop to bestmove"]:
        v = tally.lat.get(kind)
        if v:
            print("%-22s %8d %9.1f %9.1f %9.1f" % (kind, len(v), pct(v, 0.5), pct(v, 0.99), max(v)))
    # Fair latency (issue #27): a well-behaved client's bounded analysis (REST, a job polled every
    # 100 ms, a WebSocket analysis to its bestmove) and its game's engine move, beside hostile searches.
    bounded = [x for k in ("REST analyse", "job done", "ws bestmove") for x in tally.lat.get(k, [])]
    moves = tally.lat.get("game move", [])
    if bounded and moves:
        print("fair latency: bounded analyses p99 %.1f ms (goal < 250), game moves p99 %.1f ms (goal < 500)"
              % (pct(bounded, 0.99), pct(moves, 0.99)))

    print("\n-- answers by client class")
    classes = dict(tally.counts)
    for k, v in (hostile_out.get("counts") or {}).items():
        classes[k] = collections.Counter(v)
    for cls, counter in classes.items():
        print(textwrap.fill(", ".join("%s x%d" % kv for kv in sorted(counter.items(), key=lambda kv: str(kv[0]))),
                            110, initial_indent="%s: " % cls, subsequent_indent="    "))
    for name, fig in (hostile_out.get("pools") or {}).items():
        print("%-28s connections closed by the server: %d, kept median %s s, max %s s" % (
            name, fig["closed"], fig["median_s"], fig["max_s"]))
    if hostile_out.get("never_reader_s"):
        v = sorted(hostile_out["never_reader_s"])
        print("never-reading WebSocket: %d sessions, lasted median %.1f s (max %.1f s)" % (
            len(v), v[len(v) // 2], v[-1]))

    unintended = tally.unintended_count + hostile_out.get("unintended_count", 0)
    for u in tally.unintended + hostile_out.get("unintended", []):
        print("unintended: " + u)
    good_errors = sum(tally.errors.values())
    for k, n in list(tally.errors.items()) + list((hostile_out.get("errors") or {}).items()):
        print("client error: %s x%d" % (k, n))
    for e in tally.error_examples:
        print("  e.g. " + e)
    if HOSTILE and not hostile_out:
        failures.append("the hostile clients' process did not report")
    refused = sum(n for label, n in tally.counts["good"].items() if label.startswith("429") or label.startswith("503"))

    # ---- the server's exit and stderr ----
    err = s.stderr()
    marks = [m for m in SANITIZER_MARKS if m in err]
    lines = collections.Counter(re.sub(r"\d+", "N", line.split(" ", 1)[-1])[:140] for line in err.splitlines()
                                if line.strip())
    print("\n-- server: exit %s after SIGTERM in %.1f s; stderr %d lines%s" % (rc, secs, len(err.splitlines()),
                                                                         ", by kind:" if lines else ""))
    for text, n in lines.most_common(12):
        print("  %5d  %s" % (n, text))
    if died or rc != 0 or marks:
        print("-- the end of the server's stderr:\n" + "\n".join(err.splitlines()[-60:]))
    if died:
        failures.append("the server died (exit %s)" % (s.proc.returncode,))
    elif rc != 0:
        failures.append("exit %s on SIGTERM" % rc)
    if marks:
        failures.append("sanitizer report on stderr: " + ", ".join(marks))
    if unintended:
        failures.append("%d unintended 5xx" % unintended)
    if good_errors:
        failures.append("%d errors seen by well-behaved clients" % good_errors)

    h = tally.lat.get("health") or []
    figures = "(%s)" % ", ".join("%s x%.2f" % kv for kv in ratios.items()) if ratios else "(no figures)"
    p99h = "p99 health %.1f ms" % pct(h, 0.99) if h else "no health answers"
    extra = ", %d well-behaved requests refused (429/503)" % refused if refused else ""
    if failures:
        print("soak: FAILED: %s %s, %s, %d unintended 5xx%s" % ("; ".join(failures), figures, p99h, unintended, extra))
        return 1
    print("soak: flat %s, %s, %d unintended 5xx%s" % (figures, p99h, unintended, extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
