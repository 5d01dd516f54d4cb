"""What the soak test's two processes share (soak.py, soak_hostile.py): its settings, the tally of
answers by client class, raw sockets and WebSockets opened from a chosen loopback address, and a
keep-alive HTTP client."""
import base64
import collections
import http.client
import json
import os
import resource
import socket
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
from wsclient import WebSocket  # noqa: E402

harness.judge_frames(False)  # the client's time would be counted in the latencies measured

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
try:
    with open(os.path.join(harness.DATA, "openings.epd")) as f:
        FENS = [" ".join(line.split()[:4]) + " 0 1" for line in f if line.strip()]
except OSError:
    FENS = [harness.FEN, START_FEN]



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


def run_loop(tally, cls, kind, step):
    while not STOP.is_set():
        try:
            step()
        except Exception as e:  # noqa: BLE001 - counted, and the client goes on
            tally.error(cls, kind, e)
            sleep(0.5)
