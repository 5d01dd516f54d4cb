#!/usr/bin/env python3
"""Connections as a hostile client holds them, through the real server: a flood of connections from
one address (past --connections-per-ip they are closed at once, and the health check of another
client stays fast) and that cap for plain HTTP connections; slowloris headers and trickled bodies
(408 after --header-timeout and --body-timeout), idle kept-alive connections (closed after
--keepalive-timeout) and the cap on requests per connection (--keepalive-requests); WebSockets that
idle (--ws-idle-timeout) or come once too often from one address; and a SIGTERM under load with the
ASan build (every waiting request answered, exit 0, no sanitizer report): sigterm_drain_clean_asan
runs build/feelfish-asan (ASAN_OPTIONS=detect_leaks=1:abort_on_error=1) whatever FEELFISH names,
unless that is an ASan build itself. Strict framing, request ids and the log's lines are
test_framing_and_ids.py's. Clients differ by loopback source address (127.0.0.2, ...). Standard
library only. Run it all, or some checks: test_connections.py [--list] [CHECK_NAME...]; prints
'connections: N passed, N failed'."""
import base64
import json
import math
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
from harness import ROOT, SANITIZER_MARKS, Server, Suite, connect, raise_nofile, report  # noqa: E402
from rawhttp import POST, Reader, error_of, health_once, raw_exchange  # noqa: E402
from wsclient import WebSocket  # noqa: E402

suite = Suite("connections")
ASAN = os.path.join(ROOT, "build", "feelfish-asan")
FLOOD_HTTP, FLOOD_WS, FLOOD_CAP = 1500, 300, 100
OPENINGS = ["d2d4", "c2c4", "g1f3", "b2b3"]


# ---- raw HTTP ----

def p99(values):
    s = sorted(values)
    return s[max(0, math.ceil(0.99 * len(s)) - 1)] if s else None


def metric(s, name):
    st, text, _ = s.request("GET", "/metrics")
    for line in (text if isinstance(text, str) else "").splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.split()[-1])
    return None


# ---- WebSockets from a chosen address ----

def ws_open(port, source=None, timeout=5):
    """A WebSocket (wsclient's) from `source`; raises ConnectionError when the handshake is refused or
    does not come."""
    try:
        return WebSocket(port, source=source, timeout=timeout)
    except (socket.timeout, ConnectionResetError) as e:
        raise ConnectionError("handshake: %s" % type(e).__name__) from e


def ws_closed(ws, wait=0.3):
    """Whether the server has closed this WebSocket (close frame, EOF or reset) within wait seconds;
    text messages meanwhile are dropped."""
    if ws.close_code is not None:
        return True
    deadline = time.time() + wait
    while True:
        if ws.buf:
            ws.recv(0.01)
            if ws.close_code is not None:
                return True
        ws.sock.settimeout(max(0.01, deadline - time.time()))
        try:
            chunk = ws.sock.recv(65536)
        except socket.timeout:
            return False
        except OSError:
            return True
        if not chunk:
            return True
        ws.buf += chunk
        ws.recv(0.01)  # parses it: a close frame sets close_code
        if ws.close_code is not None:
            return True
        if time.time() >= deadline:
            return False


# ---- the flood (a helper process, so that the measuring client has a core to itself) ----

def flooder(argv):
    """`test_connections.py --flooder HTTP_PORT WS_PORT N_HTTP N_WS SOURCE`: opens N_HTTP connections to
    HTTP_PORT that send a partial header, and N_WS WebSocket handshakes to WS_PORT, all from SOURCE;
    prints a line, then keeps opening new HTTP connections from SOURCE (about 700/s); 2 s after the
    burst, prints what became of the burst's connections as one JSON line; goes on with new connections
    until a line comes on stdin, and prints the churn's figures."""
    http_port, ws_port, n_http, n_ws = map(int, argv[:4])
    source = argv[4]
    raise_nofile()
    partial = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"

    def handshake():
        key = base64.b64encode(os.urandom(16)).decode()
        return ("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (ws_port, key)).encode()

    conns = []  # [kind, socket, state, data]
    errors = []
    t0 = time.time()
    for kind, port, n in (("http", http_port, n_http), ("ws", ws_port, n_ws)):
        for _ in range(n):
            try:
                sock = connect(port, source, 5)
            except OSError as e:
                errors.append(str(e))
                continue
            entry = [kind, sock, "open", b""]
            try:
                sock.sendall(partial if kind == "http" else handshake())
            except OSError:
                entry[2] = "closed"
            conns.append(entry)
    opened = time.time() - t0
    print(json.dumps({"burst_s": round(opened, 3)}), flush=True)
    churn = {"churn": 0, "churn_closed": 0, "churn_errors": 0, "live": []}
    churn_until(churn, http_port, source, partial, lambda: time.time() - t0 >= opened + 2)
    poller = select.poll()
    by_fd = {}
    for e in conns:
        if e[2] == "open":
            poller.register(e[1].fileno(), select.POLLIN)
            by_fd[e[1].fileno()] = e
    for _ in range(3):  # whatever is there to read now
        for fd, _ev in poller.poll(50):
            e = by_fd[fd]
            try:
                e[1].setblocking(False)
                chunk = e[1].recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                e[3] += chunk
            else:
                e[2] = "closed"
                poller.unregister(fd)
    report = {"opened_s": round(opened, 2), "connect_errors": len(errors), "errors": errors[:3]}
    for kind in ("http", "ws"):
        mine = [e for e in conns if e[0] == kind]
        report[kind] = {
            "attempted": n_http if kind == "http" else n_ws,
            "connected": len(mine),
            "closed_no_answer": sum(1 for e in mine if e[2] == "closed" and not e[3]),
            "answered": sum(1 for e in mine if e[3]),
            "upgraded": sum(1 for e in mine if e[3].startswith(b"HTTP/1.1 101") and e[2] == "open"),
            "held_silent": sum(1 for e in mine if e[2] == "open" and not e[3]),
            "answers": sorted({e[3].split(b"\r\n")[0].decode(errors="replace") for e in mine if e[3]})[:5],
        }
    report["churn_so_far"] = churn["churn"]
    print(json.dumps(report), flush=True)
    churn_until(churn, http_port, source, partial, lambda: select.select([sys.stdin], [], [], 0)[0])
    live = churn.pop("live")
    churn["churn_still_open"] = len(live)
    print(json.dumps(churn), flush=True)
    return 0


def churn_until(churn, http_port, source, partial, done):
    """New connections from source that send a partial header, about 700/s, each dropped once the
    server has closed it (at most 200 kept), until done()."""
    while not done():
        for _ in range(10):
            try:
                sock = connect(http_port, source, 2)
                sock.sendall(partial)
                churn["churn"] += 1
                churn["live"].append(sock)
            except OSError:
                churn["churn_errors"] += 1
        keep = []
        for sock in churn["live"]:
            sock.setblocking(False)
            try:
                gone = sock.recv(4096) == b""
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                churn["churn_closed"] += 1
                sock.close()
            else:
                keep.append(sock)
        churn["live"] = keep[-200:]
        for sock in keep[:-200]:
            sock.close()
        time.sleep(0.01)


@suite.test()
def connection_flood_refused_health_fast():
    raise_nofile()
    s = Server("--connections-per-ip", str(FLOOD_CAP), "--header-timeout", "60")
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--flooder", str(s.port), str(s.ws_port),
                             str(FLOOD_HTTP), str(FLOOD_WS), "127.0.0.2"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    result, churn, full, times, statuses = {}, {}, None, [], []
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        burst = json.loads(proc.stdout.readline()) if ready else {}
        # While the flood's connections are held and new ones keep coming: the health check of another
        # client, 200 times over about 2 s.
        t0 = time.time()
        for k in range(200):
            st, secs = health_once(s.port)
            statuses.append(st)
            times.append(secs)
            time.sleep(max(0, t0 + 0.01 * (k + 1) - time.time()))
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        result = json.loads(proc.stdout.readline()) if ready else {}
        result.update(burst)
        proc.stdin.write("stop\n")
        proc.stdin.flush()
        churn = json.loads(proc.stdout.readline() or "{}")
        full = metric(s, "feelfish_websocket_full_total")
    finally:
        if proc.poll() is None:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    http, ws = result.get("http", {}), result.get("ws", {})
    lat = p99(times) * 1000 if times else float("inf")
    figures = {"p99_ms": round(lat, 1), "max_ms": round(max(times or [0]) * 1000, 1),
               "median_ms": round(sorted(times or [0])[len(times) // 2] * 1000, 2), "ok": statuses.count(200),
               "http_refused": http.get("closed_no_answer"), "http_held": http.get("held_silent"),
               "ws_refused": ws.get("answered", 0) - ws.get("upgraded", 0), "ws_upgraded": ws.get("upgraded"),
               "ws_full_metric": full, "flooder": result, "churn": churn}
    past = FLOOD_HTTP - FLOOD_CAP
    report("connection_flood_refused_health_fast",
           statuses.count(200) == 200 and lat < 50
           and http.get("connected") == FLOOD_HTTP and http.get("held_silent", 0) <= FLOOD_CAP
           and http.get("closed_no_answer", 0) >= 0.95 * past and http.get("answered") == 0
           # a refused handshake is an HTTP answer: 503 too_many_connections
           and ws.get("upgraded") == FLOOD_CAP and figures["ws_refused"] >= 0.95 * (FLOOD_WS - FLOOD_CAP)
           and any(" 503 " in a for a in ws.get("answers", []))
           and full is not None and full >= figures["ws_refused"]
           and churn.get("churn", 0) > 0 and churn.get("churn_closed", 0) >= 0.8 * churn.get("churn", 0),
           figures)


@suite.test()
def http_per_ip_cap():
    s = Server("--connections-per-ip", "5")
    held = [connect(s.port, "127.0.0.2") for _ in range(5)]
    time.sleep(0.3)
    sixth = Reader(connect(s.port, "127.0.0.2"))
    gone = sixth.eof(2)
    other = raw_exchange(s.port, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", source="127.0.0.3")[0]
    # The five held ones are still served.
    first = Reader(held[0])
    held[0].sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    served = first.response(5)
    for h in held[1:]:
        h.close()
    time.sleep(0.5)
    again = raw_exchange(s.port, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", source="127.0.0.2")[0]
    report("http_per_ip_cap", isinstance(gone, float) and other and other[0] == 200 and served and served[0] == 200
           and again and again[0] == 200,
           {"sixth": gone, "other": other and other[0], "held": served and served[0], "after_close": again and again[0]})
    held[0].close()


# ---- slow clients ----

@suite.test()
def slowloris_408():
    s = Server("--header-timeout", "2")
    n = 50
    socks = [connect(s.port) for _ in range(n)]
    t0 = time.time()
    for sock in socks:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sock.setblocking(False)
    data = [b""] * n
    ended = [None] * n
    health = []
    next_line = t0 + 0.5
    i = 0
    while time.time() - t0 < 6 and None in ended:
        ready, _, _ = select.select([sock for k, sock in enumerate(socks) if ended[k] is None], [], [],
                                    max(0, next_line - time.time()))
        for sock in ready:
            k = socks.index(sock)
            try:
                chunk = sock.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                data[k] += chunk
            else:
                ended[k] = time.time() - t0
        if time.time() >= next_line:
            i += 1
            for k, sock in enumerate(socks):
                if ended[k] is None and not data[k]:
                    try:
                        sock.send(b"X-Slow-%d: %d\r\n" % (i, i))
                    except OSError:
                        pass
            health.append(health_once(s.port))
            next_line += 0.5
    got408 = sum(1 for d in data if d.startswith(b"HTTP/1.1 408 ") and b'"request_timeout"' in d)
    closed = [e for e in ended if e is not None]
    figures = {"408": got408, "closed": len(closed), "first_s": round(min(closed), 2) if closed else None,
               "last_s": round(max(closed), 2) if closed else None,
               "health_ok": sum(1 for h in health if h[0] == 200), "health_n": len(health),
               "health_max_ms": round(max(h[1] for h in health) * 1000, 1) if health else None,
               "other": [d[:60] for d in data if not d.startswith(b"HTTP/1.1 408 ")][:3]}
    report("slowloris_408", got408 == n and len(closed) == n and min(closed) >= 1.9 and max(closed) <= 4.0
           and health and all(h[0] == 200 and h[1] < 0.1 for h in health), figures)
    for sock in socks:
        sock.close()


@suite.test()
def slow_body_408():
    s = Server("--body-timeout", "2")
    sock = connect(s.port)
    sock.sendall(b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 100\r\n\r\n")
    t0 = time.time()
    r = Reader(sock)
    ans, sent = None, 0
    while time.time() - t0 < 6:
        try:
            ans = r.response(0.5)
            break
        except socket.timeout:
            pass
        except ConnectionError as e:
            ans = str(e)
            break
        try:
            sock.send(b" ")
            sent += 1
        except OSError:
            pass
    took = time.time() - t0
    after = r.eof(2) if isinstance(ans, tuple) else None
    report("slow_body_408", isinstance(ans, tuple) and ans[0] == 408 and error_of(ans[2]) == "request_timeout"
           and ans[1].get("x-content-type-options") == "nosniff" and 1.9 <= took <= 4.0 and isinstance(after, float),
           {"answer": ans if not isinstance(ans, tuple) else (ans[0], ans[2][:100]), "seconds": round(took, 2),
           "bytes_sent": sent, "then": after})
    sock.close()


@suite.test()
def keepalive_idle_closed():
    s = Server("--keepalive-timeout", "2")
    sock = connect(s.port)
    r = Reader(sock)
    sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    ans = r.response(5)
    t0 = time.time()
    gone = r.eof(8)
    secs = time.time() - t0
    report("keepalive_idle_closed", ans and ans[0] == 200 and ans[1].get("connection", "").lower() != "close"
           and isinstance(gone, float) and 1.9 <= secs <= 4.0,
           {"answer": ans and ans[0], "connection": ans and ans[1].get("connection"), "eof": gone,
           "seconds": round(secs, 2)})
    sock.close()


@suite.test()
def keepalive_request_cap():
    s = Server("--keepalive-requests", "3")
    sock = connect(s.port)
    r = Reader(sock)
    answers = []
    for _ in range(3):
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        a = r.response(5)
        answers.append((a[0], a[1].get("connection", "")) if a else None)
        if not a:
            break
    gone = r.eof(3)
    report("keepalive_request_cap", len(answers) == 3 and all(a and a[0] == 200 for a in answers)
           and [a[1].lower() == "close" for a in answers] == [False, False, True] and isinstance(gone, float),
           {"answers": answers, "then": gone})
    sock.close()


# ---- WebSockets ----

@suite.test()
def websocket_idle_closed():
    s = Server("--ws-idle-timeout", "5")
    silent = ws_open(s.ws_port)
    talker = ws_open(s.ws_port)
    t0 = time.time()
    silent_closed, pongs, talker_lost = None, [], None
    next_ping = t0
    while time.time() - t0 < 12.5:
        if time.time() >= next_ping:
            try:
                talker.send({"op": "ping"})
                m = talker.recv_json(2)
                if m and m.get("type") == "pong":
                    pongs.append(round(time.time() - t0, 1))
                elif talker_lost is None:
                    talker_lost = (round(time.time() - t0, 1), m)
            except OSError as e:
                talker_lost = talker_lost or (round(time.time() - t0, 1), str(e))
            next_ping += 2
        if silent_closed is None and ws_closed(silent, 0.2):
            silent_closed = round(time.time() - t0, 2)
        time.sleep(0.05)
    talker_open = not ws_closed(talker, 0.3)
    report("websocket_idle_closed", silent_closed is not None and 4.9 <= silent_closed <= 11
           and talker_lost is None and talker_open and pongs and pongs[-1] >= 11,
           {"silent_closed_s": silent_closed, "close_code": silent.close_code, "talker_lost": talker_lost,
           "pongs": pongs, "talker_open_at_end": talker_open})
    talker.close()
    silent.sock.close()


@suite.test()
def websocket_per_ip_cap():
    s = Server("--connections-per-ip", "5")
    five = [ws_open(s.ws_port, "127.0.0.2") for _ in range(5)]
    try:
        ws_open(s.ws_port, "127.0.0.2")
        sixth = "upgraded"
    except ConnectionError as e:
        sixth = str(e)
    other = ws_open(s.ws_port, "127.0.0.3")
    other.send({"op": "ping"})
    pong = other.recv_json(5)
    five[0].send({"op": "ping"})
    held = five[0].recv_json(5)
    full = metric(s, "feelfish_websocket_full_total")
    # One leaves: the address has room again.
    five[-1].close()
    again = None
    for _ in range(20):
        time.sleep(0.1)
        try:
            again = ws_open(s.ws_port, "127.0.0.2")
            break
        except ConnectionError as e:
            again = str(e)
    report("websocket_per_ip_cap", sixth != "upgraded" and "101" not in sixth and pong == {"type": "pong"}
           and held == {"type": "pong"} and full is not None and full >= 1 and isinstance(again, WebSocket),
           {"sixth": sixth, "other": pong, "held": held, "full_metric": full, "after_one_left": again})
    for w in five[:-1] + [other] + ([again] if isinstance(again, WebSocket) else []):
        w.close()


# ---- SIGTERM under load, ASan build ----

@suite.test()
def sigterm_drain_clean_asan():
    # Two workers: one taken by an infinite WebSocket analysis, the other by one of four REST analyses
    # (different positions) whose requests wait, suspended; three of them still queued at the signal.
    binary = harness.FF if "asan" in os.path.basename(harness.FF) else ASAN
    assert os.path.exists(binary), "no ASan build at %s (make build/feelfish-asan)" % binary
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1", UBSAN_OPTIONS="halt_on_error=1")
    saved = harness.FF
    harness.FF = binary
    try:
        s = Server("--workers", "2", "--header-timeout", "30", env=env)
    finally:
        harness.FF = saved
    assert "asan" in os.path.basename(s.proc.args[0]), s.proc.args[0]
    ws = ws_open(s.ws_port)
    ws.send({"op": "analyse", "id": "x", "moves": ["e2e4"], "limits": {"infinite": True}})
    first = ws.recv_json(10)
    answers, arrived = {}, {}

    def analyse(k):
        try:
            st, body, _ = s.request("POST", "/api/analyse", {"moves": [OPENINGS[k]], "limits": {"movetime": 2000}},
                                    timeout=15)
            if st == 200 and isinstance(body, dict):  # a result: the search's, stopped or not
                answers[k] = (st, None, {f: body.get(f) for f in ("status", "depth", "bestMove")})
            else:
                answers[k] = (st, body.get("error", {}).get("code") if isinstance(body, dict) else body)
        except Exception as e:  # noqa: BLE001 -- recorded: no answer
            answers[k] = ("no answer", "%s: %s" % (type(e).__name__, e))
        arrived[k] = time.time()

    threads = [threading.Thread(target=analyse, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    # A slowloris and a half-sent body, held across the signal.
    slow = connect(s.port)
    slow.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    half = connect(s.port)
    half.sendall(POST + b"Content-Length: 50\r\n\r\n{\"moves\":")
    time.sleep(0.8)
    waiting = 4 - len(answers)
    t0 = time.time()
    s.proc.send_signal(signal.SIGTERM)
    try:
        s.proc.wait(10)
    except subprocess.TimeoutExpired:
        pass
    secs = time.time() - t0
    for t in threads:
        t.join(10)
    rc, _ = s.stop()  # records the result (kills it if it is still there)
    ws_gone = ws_closed(ws, 2)
    slow_end = Reader(slow).eof(2)
    half_end = Reader(half).eof(2)
    sanitizer = [line for line in s.stderr().splitlines() if any(m in line for m in SANITIZER_MARKS)
                 or "LeakSanitizer" in line]
    good = {(200, None), (503, "shutting_down"), (503, "cancelled")}
    results = [a[2] for a in answers.values() if len(a) == 3]
    report("sigterm_drain_clean_asan", rc == 0 and secs <= 5 and waiting == 4 and len(answers) == 4
           and all(a[:2] in good for a in answers.values())
           and all(r["status"] == "done" and r["bestMove"] for r in results) and first is not None and ws_gone
           and slow_end is not None and half_end is not None and not sanitizer,
           {"exit": rc, "seconds": round(secs, 2), "waiting_at_signal": waiting, "answers": answers,
            "answered_after_signal_s": sorted(round(t - t0, 2) for t in arrived.values()),
            "ws_first": first and first.get("type"), "ws_closed": ws_gone, "ws_close_code": ws.close_code,
            "slowloris_end": slow_end, "half_body_end": half_end, "sanitizer": sanitizer[:3],
            "stderr": s.stderr()[-400:] if rc != 0 or sanitizer else ""})
    for sock in (slow, half, ws.sock):
        sock.close()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--flooder":
        sys.exit(flooder(sys.argv[2:]))
    raise_nofile()
    sys.exit(suite.main())
