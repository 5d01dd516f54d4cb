#!/usr/bin/env python3
"""What hostile or merely heavy clients did to the server, one regression check each, through the real
server: idle connections past --connections-max (and a flood of them from 25 addresses) must not
leave the listener dead once they are gone; a game analysis counts against --client-jobs-max, searches
one position at a time and leaves room in the queue for others; SIGTERM under mixed load exits 0 with
every acknowledged game readable after a restart; the search lab is cut at --max-movetime, counts
against --client-jobs-max and waits its turn instead of refusing another client; retention keeps the
games, jobs and evaluation cache tables near their caps under a flood; failed tokens are rate limited; /api/config
shows no paths to anyone but an admin; HEAD is answered; an overlong URI, oversized headers and a
huge chunked body get JSON errors; a refused WebSocket handshake (foreign origin or host, one past
--connections-max, here 16: its smallest) is an HTTP answer with a JSON body; reads still answer on a
full disk, also after a restart.

Clients differ by loopback source address (127.0.0.2, ...). Standard library only. Environment:
HOSTILE_FULL=1 floods with 5,000 connections (200 from each of 25 addresses) at the default
--connections-max; HOSTILE_SIGTERM_RUNS (default 12) and HOSTILE_SIGTERM_ASAN_RUNS (default 3, with
build/feelfish-asan when it exists) set the SIGTERM runs; HOSTILE_RETENTION_SECONDS (20) and
HOSTILE_RETENTION_DEFAULTS=1 (the default caps: 100,000 jobs and games, 500,000 cached evaluations)
set the retention floods. reads_survive_full_disk mounts a tmpfs
(root). Run it all, or some checks: test_hostile.py [--list] [CHECK_NAME...]; prints
'hostile: N passed, N failed'."""
import base64
import http.client
import json
import os
import random
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
from harness import ROOT, Server, Suite, check, connect, raise_nofile, report, tmpdir  # noqa: E402
from wsclient import WebSocket  # noqa: E402

suite = Suite("hostile")
ASAN = os.path.join(ROOT, "build", "feelfish-asan")
W2 = ("--workers", "2")
MIDGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
GAME30 = ("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6a5 "
          "b3c2 c7c5 d2d4 d8c7 b1d2 c5d4 c3d4 a5c6 d2b3 a6a5 c1e3 a5a4")
OPENINGS = ["e2e4", "d2d4", "c2c4", "g1f3", "b2b3", "g2g3"]
STOP_MARKS = ("MHD_stop_daemon", "suspended connections", "Aborted")


def req(s, method, path, body=None, source=None, timeout=30, token=None, headers=None):
    """s.request() that never raises: (status, parsed body, response); status is a string naming the
    error when there was no answer."""
    try:
        return s.request(method, path, body, source=source, timeout=timeout, token=token, headers=headers)
    except Exception as e:  # noqa: BLE001 -- no answer is a figure too
        return "%s: %s" % (type(e).__name__, e), None, None


def code_of(res):
    body = res[1]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"].get("code")
    return None


def brief(res):
    """(status, error code or None)."""
    return res[0], code_of(res)


# ---- raw sockets ----

def read_answer(sock, timeout=5, head_only=False):
    """One HTTP answer off a socket: (status, lower-cased headers, body bytes, rest read after it), or a
    string saying what came instead ('closed' with nothing, 'timeout', 'reset'). With head_only (the
    answer to a HEAD), the body is what came until the peer closed (it must be nothing)."""
    deadline = time.time() + timeout
    buf = b""

    def more():
        sock.settimeout(max(0.01, deadline - time.time()))
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError
        return chunk

    try:
        while b"\r\n\r\n" not in buf:
            buf += more()
    except EOFError:
        return "closed" if not buf else "closed inside the head: %r" % buf[:120]
    except socket.timeout:
        return "timeout" if not buf else "timeout inside the head: %r" % buf[:120]
    except OSError as e:
        return ("reset (%s)" % e) if not buf else "reset inside the head: %r" % buf[:120]
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return "not HTTP: %r" % buf[:120]
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    if head_only:
        try:
            while True:
                rest += more()
        except (EOFError, OSError):
            pass
        return status, headers, rest, b""
    n = int(headers.get("content-length", "0") or 0) if "content-length" in headers else None
    try:
        while n is None or len(rest) < n:
            rest += more()
    except (EOFError, OSError):
        pass
    if n is None:
        return status, headers, rest, b""
    return status, headers, rest[:n], rest[n:]


def json_code(body):
    try:
        return json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def health_once(port, source=None, timeout=3):
    """(status or what came instead, seconds) of one GET /api/health on a fresh connection."""
    t0 = time.time()
    try:
        sock = connect(port, source, timeout)
    except OSError as e:
        return "connect: %s" % e, time.time() - t0
    try:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        ans = read_answer(sock, max(0.05, timeout - (time.time() - t0)))
    except OSError as e:
        ans = "send: %s" % e
    finally:
        sock.close()
    return (ans[0] if isinstance(ans, tuple) else ans), time.time() - t0


def idle_connections(port, sources, per_source):
    """per_source connections from each address that send nothing (connects not waited for: past the
    listen backlog they complete later)."""
    socks, errors = [], 0
    for src in sources:
        for _ in range(per_source):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                sock.bind((src, 0))
                sock.setblocking(False)
                sock.connect_ex(("127.0.0.1", port))
                socks.append(sock)
            except OSError:
                errors += 1
                sock.close()
    return socks, errors


def wait_server_closed(socks, secs):
    """Waits until the server has ended each connection (EOF or reset after whatever answer), secs
    pass, or none more has ended for 4 s: (how many it ended, how many got an answer first, seconds waited)."""
    poller = select.poll()
    by_fd = {}
    for sock in socks:
        poller.register(sock.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        by_fd[sock.fileno()] = sock
    ended, answered = set(), set()
    t0 = last = time.time()
    while len(ended) < len(socks) and time.time() - t0 < secs and not (ended and time.time() - last > 4):
        for fd, _ev in poller.poll(100):
            try:
                chunk = by_fd[fd].recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                answered.add(fd)
            else:
                ended.add(fd)
                poller.unregister(fd)
                last = time.time()
    return len(ended), len(answered), time.time() - t0


# ---- 1. the listener after connections past --connections-max ----

def listener_case(name, args, sources, per_source, wait):
    raise_nofile()
    s = Server(*W2, *args)
    t0 = time.time()
    socks, errors = idle_connections(s.port, sources, per_source)
    opened = time.time() - t0
    ended, answered, waited = wait_server_closed(socks, wait)
    time.sleep(0.5)  # the server is past its timeouts for whatever it had not ended
    for sock in socks:
        sock.close()
    time.sleep(0.3)
    status, secs = health_once(s.port, "127.0.0.5", timeout=3)
    again = health_once(s.port, "127.0.0.6", timeout=3) if status != 200 else None
    report(name, status == 200 and secs <= 1.0,
           {"connections": len(socks), "connect_errors": errors, "open_s": round(opened, 2),
            "ended_by_server": ended, "answered_408": answered, "waited_s": round(waited, 1),
            "health": status, "health_s": round(secs, 3), "health_again": again})


@suite.test()
def listener_survives_connections_max():
    listener_case("listener_survives_connections_max", ("--connections-max", "50", "--header-timeout", "2"),
                  ["127.0.0.2", "127.0.0.3", "127.0.0.4"], 20, 8)


@suite.test()
def listener_survives_flood_from_25_addresses():
    sources = ["127.0.1.%d" % k for k in range(1, 26)]
    if os.environ.get("HOSTILE_FULL") == "1":
        listener_case("listener_survives_flood_from_25_addresses", ("--header-timeout", "2"), sources, 200, 25)
    else:
        listener_case("listener_survives_flood_from_25_addresses", ("--header-timeout", "2", "--connections-max",
                                                                    "500"), sources, 40, 12)


# ---- 2. game analyses and the job quotas ----

def game_analysis_body(nodes):
    return {"moves": GAME30, "limits": {"nodes": nodes}}


@suite.test()
def game_analysis_counts_against_client_jobs_max():
    s = Server(*W2, "--client-jobs-max", "1")
    a, b = "127.0.0.2", "127.0.0.3"
    ga = req(s, "POST", "/api/game-analysis", game_analysis_body(300000), source=a)
    gid = ga[1].get("id") if ga[0] == 202 and isinstance(ga[1], dict) else None
    # While it is unfinished, A may start nothing else.
    job = req(s, "POST", "/api/jobs", {"moves": [], "limits": {"depth": 20}}, source=a)
    second = req(s, "POST", "/api/game-analysis", game_analysis_body(300000), source=a)
    state = req(s, "GET", "/api/game-analysis/%s" % gid, source=a) if gid else (None, None, None)
    unfinished = isinstance(state[1], dict) and state[1].get("status") in ("queued", "running")
    if job[0] == 202:  # whatever was taken is cancelled: only A's analysis has work below
        req(s, "DELETE", "/api/jobs/" + job[1]["id"], source=a)
    if second[0] == 202:
        req(s, "DELETE", "/api/game-analysis/" + second[1]["id"], source=a)
    # Only A has work: its analysis searches one position at a time.
    busy, depth = [], []
    t0 = time.time()
    for k in range(40):
        h = req(s, "GET", "/api/health", source="127.0.0.9", timeout=5)
        if h[0] == 200:
            busy.append(h[1]["workers"]["busy"])
            depth.append(h[1]["queue"]["depth"])
        time.sleep(max(0, t0 + 0.05 * (k + 1) - time.time()))
    after = req(s, "GET", "/api/game-analysis/%s" % gid, source=a) if gid else (None, None, None)
    other = req(s, "POST", "/api/analyse", {"moves": ["e2e4"], "limits": {"depth": 6}}, source=b, timeout=60)
    if gid:
        req(s, "DELETE", "/api/game-analysis/" + gid, source=a)
    report("game_analysis_counts_against_client_jobs_max",
           ga[0] == 202 and unfinished and brief(job) == (429, "too_many_jobs")
           and brief(second) == (429, "too_many_jobs") and busy and max(busy) <= 1 and other[0] == 200,
           {"analysis": brief(ga), "job_of_A": brief(job), "second_analysis_of_A": brief(second),
            "analysis_unfinished_then": unfinished,
            "progress_after_sampling": isinstance(after[1], dict) and after[1].get("progress"),
            "busy_max": max(busy) if busy else None, "busy_samples": len(busy),
            "busy_at_2": sum(1 for x in busy if x >= 2), "queue_depth_max": max(depth) if depth else None,
            "analyse_of_B": brief(other)})


@suite.test()
def game_analyses_leave_queue_room():
    s = Server(*W2, "--queue", "16")
    owners = ["127.0.0.%d" % k for k in range(10, 18)]
    made, statuses = [], []
    for src in owners:
        for _ in range(4):
            res = req(s, "POST", "/api/game-analysis", game_analysis_body(1000000), source=src)
            statuses.append(res[0] if res[0] == 202 else brief(res))
            if res[0] == 202:
                made.append((src, res[1]["id"]))
    depths, capacity = [], None
    for _ in range(10):  # the queue as the analyses alone fill it
        h = req(s, "GET", "/api/health", timeout=5)
        if h[0] == 200:
            depths.append(h[1]["queue"]["depth"])
            capacity = h[1]["queue"]["capacity"]
        time.sleep(0.1)
    victim, lat = [], []
    t_all = time.time()
    for k in range(10):
        t0 = time.time()
        res = req(s, "POST", "/api/analyse", {"moves": [OPENINGS[k % len(OPENINGS)]], "limits": {"depth": 8}},
                  source="127.0.0.30", timeout=60)
        victim.append(brief(res))
        lat.append(round(time.time() - t0, 2))
        if time.time() - t_all > 90:
            break
    for src, gid in made:
        req(s, "DELETE", "/api/game-analysis/" + gid, source=src, timeout=10)
    refused = [v for v in victim if v[0] == 503]
    report("game_analyses_leave_queue_room",
           len(made) >= 8 and depths and capacity and max(depths) <= capacity // 2 and len(victim) == 10
           and not refused and all(v[0] == 200 for v in victim),
           {"created": len(made), "create_statuses": sorted(set(map(str, statuses))), "queue_depths": depths,
            "capacity": capacity, "victim": victim, "victim_s": lat, "queue_full": len(refused)})


# ---- 3. SIGTERM under mixed load ----

def load_worker(s, k, stop, acked, errors, rng):
    """One client thread of mixed load until stop: analyses, jobs, games (level 8, the engine moves
    first; level 1, the client does) and a move in them, WebSocket analyses, game analyses.
    Acknowledged games go to acked as (id, time)."""
    src = "127.0.0.%d" % (40 + k)
    while not stop.is_set():
        what = rng.choice(["analyse", "job", "game", "game", "quick_game", "ws", "game_analysis"])
        opening = rng.choice(OPENINGS)
        try:
            if what == "analyse":
                s.request("POST", "/api/analyse", {"moves": [opening], "limits": {"depth": 10}}, timeout=15,
                          source=src)
            elif what == "job":
                s.request("POST", "/api/jobs", {"moves": [opening], "limits": {"movetime": 2000}}, timeout=15,
                          source=src)
            elif what in ("game", "quick_game"):
                black = what == "game"  # the engine (level 8) moves first; else level 1 and the client does
                st, g, _ = s.request("POST", "/api/games", {"level": 8 if black else 1,
                                                            "color": "black" if black else "white"},
                                     timeout=15, source=src)
                if st in (200, 201) and isinstance(g, dict) and g.get("id"):
                    acked.append((g["id"], time.time()))
                    if not stop.is_set() and g.get("fullId"):
                        s.request("POST", "/api/games/%s/moves" % g["fullId"], {"move": "g8f6" if black else "e2e4"},
                                  timeout=15, source=src)
            elif what == "ws":
                ws = WebSocket(s.ws_port, timeout=5)
                try:
                    ws.send({"op": "analyse", "id": "w%d" % k, "moves": [opening], "limits": {"depth": 12}})
                    ws.recv(2)
                finally:
                    ws.sock.close()
            else:
                s.request("POST", "/api/game-analysis", {"moves": "e2e4 e7e5 " + "g1f3 b8c6",
                                                         "limits": {"nodes": 200000}}, timeout=15, source=src)
        except Exception as e:  # noqa: BLE001 -- expected once the signal is sent
            errors.append("%s: %s" % (type(e).__name__, str(e)[:60]))
            if stop.is_set():
                return
            time.sleep(0.02)


def sigterm_run(binary, env, rng):
    saved = harness.FF
    harness.FF = binary
    try:
        s = Server(*W2, env=env)
    finally:
        harness.FF = saved
    stop = threading.Event()
    acked, errors = [], []
    threads = [threading.Thread(target=load_worker, args=(s, k, stop, acked, errors, random.Random(rng.random())))
               for k in range(4)]
    for t in threads:
        t.start()
    load_s = rng.uniform(0.3, 1.5)
    time.sleep(load_s)
    t_sig = time.time()
    s.proc.send_signal(signal.SIGTERM)
    try:
        rc = s.proc.wait(10)
    except subprocess.TimeoutExpired:
        rc = "still running after 10 s"
    secs = time.time() - t_sig
    stop.set()
    for t in threads:
        t.join(20)
    s.stop()  # records the result (kills it if it is still there)
    err = s.stderr()
    marks = [line for line in err.splitlines() if any(m in line for m in STOP_MARKS)]
    before = [g for g, t in acked if t < t_sig]
    after = [g for g, t in acked if t >= t_sig]
    saved = harness.FF
    harness.FF = binary
    try:
        again = Server(*W2, db=s.db, env=env)
    finally:
        harness.FF = saved
    unread = [(g, st) for g in before for st in [req(again, "GET", "/api/games/" + g, timeout=10)[0]] if st != 200]
    unread_after = [g for g in after if req(again, "GET", "/api/games/" + g, timeout=10)[0] != 200]
    again.stop()
    ok = rc == 0 and not marks and not unread
    return ok, {"exit": rc, "exit_s": round(secs, 2), "load_s": round(load_s, 2), "games_acked": len(before),
                "unreadable": unread[:3], "acked_after_signal": len(after),
                "unreadable_after_signal": len(unread_after),
                "stderr_marks": marks[:2], "stderr_tail": err[-300:] if not ok else ""}


@suite.test()
def sigterm_under_load_exits_0():
    rng = random.Random(os.environ.get("HOSTILE_SEED", time.time()))
    runs = []
    for _ in range(int(os.environ.get("HOSTILE_SIGTERM_RUNS", "12"))):
        runs.append(("release",) + sigterm_run(harness.FF, None, rng))
    asan_runs = int(os.environ.get("HOSTILE_SIGTERM_ASAN_RUNS", "3"))
    if os.path.exists(ASAN) and asan_runs:
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1", UBSAN_OPTIONS="halt_on_error=1")
        for _ in range(asan_runs):
            runs.append(("asan",) + sigterm_run(ASAN, env, rng))
    else:
        print("    sigterm_under_load_exits_0: no ASan build at %s, its runs skipped" % ASAN, flush=True)
    bad = [r for r in runs if not r[1]]
    for kind, ok, fig in runs:
        if not ok:
            print("    failed run (%s): %s" % (kind, json.dumps(fig, default=repr)[:700]), flush=True)
    report("sigterm_under_load_exits_0", runs and not bad,
           {"runs": len(runs), "failed": len(bad), "exits": [r[2]["exit"] for r in runs],
            "exit_s_max": max(r[2]["exit_s"] for r in runs) if runs else None,
            "games_acked": sum(r[2]["games_acked"] for r in runs),
            "unreadable": sum(len(r[2]["unreadable"]) for r in runs)})


# ---- 4. the search lab ----

def lab_body(depth, algorithms=None, fen=MIDGAME):
    body = {"fen": fen, "depth": depth}
    if algorithms:
        body["algorithms"] = algorithms
    return body


@suite.test()
def lab_bounded_by_max_movetime():
    s = Server(*W2, "--max-movetime", "1000")
    got = {}
    ok = True
    for label, body in (("alphabeta_negascout_mtdf_depth7", lab_body(7, ["alphabeta", "negascout", "mtdf"])),
                        ("minimax_depth5", lab_body(5, ["minimax"]))):
        t0 = time.time()
        res = req(s, "POST", "/api/lab", body, timeout=8)
        secs = time.time() - t0
        algos = res[1].get("algorithms") if res[0] == 200 and isinstance(res[1], dict) else None
        flags = [(a.get("algorithm"), a.get("complete"), a.get("timeMs")) for a in algos or []]
        got[label] = {"answer": brief(res) if res[0] != 200 else 200, "seconds": round(secs, 2), "algorithms": flags}
        ok = ok and res[0] == 200 and secs <= 2.5 and bool(flags) and all(isinstance(f[1], bool) for f in flags)
    report("lab_bounded_by_max_movetime", ok, got)


@suite.test()
def lab_counts_against_client_jobs_max():
    s = Server(*W2, "--client-jobs-max", "1", "--max-movetime", "3000")
    a = "127.0.0.2"
    lab = {}

    def long_lab():
        t0 = time.time()
        lab["res"] = brief(req(s, "POST", "/api/lab", lab_body(5, ["minimax"]), source=a, timeout=8))
        lab["s"] = round(time.time() - t0, 2)

    t = threading.Thread(target=long_lab, daemon=True)
    t.start()
    time.sleep(0.5)
    running = t.is_alive()
    job = req(s, "POST", "/api/jobs", {"moves": [], "limits": {"depth": 20}}, source=a)
    if job[0] == 202:
        req(s, "DELETE", "/api/jobs/" + job[1]["id"], source=a)
    t.join(10)
    report("lab_counts_against_client_jobs_max", running and brief(job) == (429, "too_many_jobs"),
           {"lab_running_then": running, "job_of_A": brief(job), "lab": lab})


@suite.test()
def lab_not_held_by_one_client():
    s = Server(*W2, "--max-movetime", "1500")
    a, b = "127.0.0.2", "127.0.0.3"
    stop = threading.Event()
    a_answers = []

    def hog():
        while not stop.is_set():
            res = req(s, "POST", "/api/lab", lab_body(5, ["minimax"]), source=a, timeout=8)
            a_answers.append(brief(res))
            if res[0] != 200:
                time.sleep(0.05)

    threads = [threading.Thread(target=hog, daemon=True) for _ in range(3)]
    t_start = time.time()
    for t in threads:
        t.start()
    time.sleep(0.5)
    mine, lat = [], []
    for _ in range(5):
        t0 = time.time()
        res = req(s, "POST", "/api/lab", lab_body(3, fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
                  source=b, timeout=10)
        mine.append(brief(res) if res[0] != 200 else 200)
        lat.append(round(time.time() - t0, 2))
    time.sleep(max(0, t_start + 8 - time.time()))
    stop.set()
    for t in threads:
        t.join(10)
    counts = {}
    for x in a_answers:
        counts[str(x)] = counts.get(str(x), 0) + 1
    report("lab_not_held_by_one_client", mine == [200] * 5,
           {"B": mine, "B_s": lat, "A": counts})


# ---- 5. retention under a flood ----

def flood_case(name, table, path, body, cap, secs):
    # HOSTILE_RETENTION_DEFAULTS=1: the server's own caps (100,000), HOSTILE_RETENTION_SECONDS long
    # (the 5 minutes: 300).
    secs = float(os.environ.get("HOSTILE_RETENTION_SECONDS", secs))
    if os.environ.get("HOSTILE_RETENTION_DEFAULTS") == "1":
        cap, flags = (500000 if table == "evals" else 100000), ()
    else:
        flags = ("--retention-games", str(cap), "--retention-jobs", str(cap), "--retention-evals", str(cap))
    s = Server(*W2, *flags)
    stop = threading.Event()
    made, other = [0], {}
    lock = threading.Lock()

    def flooder():
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
        while not stop.is_set():
            try:
                payload = json.dumps(body() if callable(body) else body)
                conn.request("POST", path, body=payload, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                st = resp.status
            except Exception as e:  # noqa: BLE001 -- counted, a new connection follows
                st = type(e).__name__
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
            with lock:
                if st in (200, 201):
                    made[0] += 1
                else:
                    other[str(st)] = other.get(str(st), 0) + 1
        conn.close()

    threads = [threading.Thread(target=flooder) for _ in range(4)]
    t0 = time.time()
    for t in threads:
        t.start()
    samples = []  # (seconds, rows)
    db = None
    while time.time() - t0 < secs:
        time.sleep(max(0, t0 + 0.5 * (len(samples) + 1) - time.time()))
        try:
            if db is None:
                db = sqlite3.connect("file:%s?mode=ro" % s.db, uri=True, timeout=5)
            n = db.execute("SELECT COUNT(*) FROM %s" % table).fetchone()[0]
        except sqlite3.Error as e:
            n = "sqlite: %s" % e
        samples.append((round(time.time() - t0, 1), n))
    stop.set()
    for t in threads:
        t.join(35)
    time.sleep(0.5)
    try:
        end = db.execute("SELECT COUNT(*) FROM %s" % table).fetchone()[0] if db else None
    except sqlite3.Error as e:
        end = "sqlite: %s" % e
    if db:
        db.close()
    limit = cap * 1.05
    late = [n for t, n in samples if t > 3]
    counted = [n for _, n in samples if isinstance(n, int)]
    over = [(t, n) for t, n in samples if t > 3 and (not isinstance(n, int) or n > limit)]
    report(name, made[0] > cap and late and not over,
           {"created": made[0], "other_answers": other, "max_rows": max(counted) if counted else None,
            "rows_at_end": end, "cap": cap, "samples_over": len(over), "first_over": over[:3],
            "samples": samples[::4]})


@suite.test()
def retention_keeps_up_with_game_flood():
    flood_case("retention_keeps_up_with_game_flood", "games", "/api/games", {"level": 1, "color": "white"}, 3000, 20)


@suite.test()
def retention_keeps_up_with_job_flood():
    flood_case("retention_keeps_up_with_job_flood", "jobs", "/api/analyse", {"moves": [], "limits": {"depth": 1}},
               3000, 20)


def pack(row):
    """A FEN rank from 8 characters with "1" for each empty square: the runs of empties counted."""
    out, run = "", 0
    for c in row:
        if c == "1":
            run += 1
            continue
        out += (str(run) if run else "") + c
        run = 0
    return out + (str(run) if run else "")


@suite.test()
def retention_caps_the_evaluation_cache():
    """The evaluation cache is a table clients grow too (a cloud-eval of a position not seen before adds
    an entry): --retention-evals holds it, a pass coming once 16 writes (the smallest trigger) have
    been made since the last."""
    cap = 20
    s = Server(*W2, "--retention-evals", str(cap))
    fens = []
    for king in range(4):  # a white king on a1..d1, a white pawn on b3..g6, the black king on h8
        for rank in range(3, 7):
            for file in range(1, 7):
                board = [["1"] * 8 for _ in range(8)]  # rows from rank 8 down, "1" an empty square
                board[0][7] = "k"
                board[8 - rank][file] = "P"
                board[7][king] = "K"
                fens.append("/".join(pack("".join(r)) for r in board) + " w - - 0 1")
    answered, lock = [0], threading.Lock()

    def client(part):
        for fen in part:
            st = req(s, "GET", "/api/cloud-eval?fen=" + fen.replace(" ", "%20"), timeout=30)[0]
            with lock:
                answered[0] += st == 200

    threads = [threading.Thread(target=client, args=(fens[k::4],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    time.sleep(0.5)
    db = sqlite3.connect("file:%s?mode=ro" % s.db, uri=True, timeout=5)
    rows = db.execute("SELECT COUNT(*) FROM evals").fetchone()[0]
    db.close()
    report("retention_caps_the_evaluation_cache", answered[0] > 3 * cap and rows <= cap + 16 + 4,
           {"positions": len(fens), "answered": answered[0], "rows": rows, "cap": cap})


# ---- 6. smaller ones ----

@suite.test()
def failed_tokens_rate_limited():
    s = Server(*W2, "--auth", "optional", "--rate", "20")
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10, source_address=("127.0.0.2", 0))
    got, retry = {}, []
    t0 = time.time()
    for _ in range(300):
        try:
            conn.request("GET", "/api/jobs/" + "0123456789abcdef",
                         headers={"Authorization": "Bearer ff_" + "0" * 48})
            resp = conn.getresponse()
            data = resp.read()
            key = "%d %s" % (resp.status, json_code(data))
            if resp.status == 429:
                retry.append(resp.getheader("Retry-After"))
        except Exception as e:  # noqa: BLE001 -- counted
            key = type(e).__name__
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10, source_address=("127.0.0.2", 0))
        got[key] = got.get(key, 0) + 1
    conn.close()
    n401 = sum(v for k, v in got.items() if k.startswith("401"))
    limited = got.get("429 rate_limited", 0)
    report("failed_tokens_rate_limited", limited > 0 and n401 <= 60 and retry and all(retry),
           {"answers": got, "seconds": round(time.time() - t0, 2), "retry_after": sorted(set(map(str, retry)))})


def web_folder():
    web = tmpdir("feelfish-hostile-web-")
    with open(os.path.join(web, "index.html"), "w") as f:
        f.write("<!doctype html><title>feelfish</title><p>hostile</p>\n")
    return web


@suite.test()
def config_hides_paths():
    d = tmpdir("feelfish-hostile-config-")
    db = os.path.join(d, "data", "secret-place.db")
    web = web_folder()
    model = os.path.join(d, "models", "style-secret.model")
    os.makedirs(os.path.dirname(model))
    shutil.copy(os.path.join(ROOT, "engine", "style.model"), model)

    def token(scopes, name):
        p = subprocess.run([harness.FF, "token", "create", "--scopes", scopes, "--name", name, "--db", db],
                           cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        return p.stdout.strip()

    admin, analyse = token("admin", "adm"), token("analyse", "ana")
    s = Server(*W2, "--auth", "required", "--web", web, "--style-model", model, db=db)
    paths = [db, web, model]
    seen = {}
    ok = True
    for who, tok in (("no_token", None), ("analyse_token", analyse)):
        res = req(s, "GET", "/api/config", token=tok)
        text = json.dumps(res[1])
        leaked = [p for p in paths if p in text or p.replace("/", "\\/") in text]
        keys = [k for k in ("db", "web", "styleModel", "redis") if isinstance(res[1], dict) and k in res[1]]
        seen[who] = {"status": res[0], "leaked": leaked, "keys": keys}
        ok = ok and not leaked and not keys
    res = req(s, "GET", "/api/config", token=admin)
    cfg = res[1] if isinstance(res[1], dict) else {}
    shown = {k: cfg.get(k) for k in ("db", "web", "styleModel")}
    seen["admin"] = {"status": res[0], "shown": shown}
    ok = ok and res[0] == 200 and os.path.abspath(str(shown["db"])) == db and shown["web"] == web \
        and shown["styleModel"] == model
    report("config_hides_paths", ok, seen)


@suite.test()
def head_answered():
    s = Server(*W2, "--web", web_folder())
    got = {}
    for path in ("/api/health", "/"):
        sock = connect(s.port)
        sock.sendall(b"HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path.encode())
        ans = read_answer(sock, 5, head_only=True)
        sock.close()
        got[path] = ({"status": ans[0], "type": ans[1].get("content-type"), "body_bytes": len(ans[2])}
                     if isinstance(ans, tuple) else ans)
    h, root = got["/api/health"], got["/"]
    report("head_answered", isinstance(h, dict) and h["status"] == 200
           and (h["type"] or "").startswith("application/json") and h["body_bytes"] == 0
           and isinstance(root, dict) and root["status"] == 200 and root["body_bytes"] == 0, got)


def raw_answer(port, data, timeout=5):
    sock = connect(port)
    t0 = time.time()
    try:
        sock.sendall(data)
    except OSError:
        pass
    ans = read_answer(sock, timeout)
    sock.close()
    return ans, time.time() - t0


def summarize(ans):
    if not isinstance(ans, tuple):
        return ans
    return {"status": ans[0], "type": ans[1].get("content-type"), "code": json_code(ans[2]), "body": ans[2][:80]}


@suite.test("uri_too_long_json", "headers_too_large_json", "huge_chunked_body_answered")
def oversized_requests():
    s = Server(*W2)
    ans, secs = raw_answer(s.port, b"GET /api/" + b"a" * 20000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    report("uri_too_long_json", isinstance(ans, tuple) and ans[0] == 414 and json_code(ans[2]) == "uri_too_long",
           dict(summarize(ans) if isinstance(ans, tuple) else {"answer": ans}, seconds=round(secs, 2)))
    # 21 KB of headers: past the server's 16 KiB, within the 32 KiB libmicrohttpd itself holds (past
    # that it answers in its own HTML, which the server cannot word).
    big = b"".join(b"X-Big-%d: %s\r\n" % (i, b"b" * 7000) for i in range(3))
    ans, secs = raw_answer(s.port, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + big + b"\r\n")
    report("headers_too_large_json", isinstance(ans, tuple) and ans[0] == 431
           and json_code(ans[2]) == "headers_too_large",
           dict(summarize(ans) if isinstance(ans, tuple) else {"answer": ans}, seconds=round(secs, 2)))
    # A chunk that announces 1 GiB, its data coming at about 6 MB/s: the answer must not wait for it.
    sock = connect(s.port)
    sock.sendall(b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n40000000\r\n")
    sock.setblocking(False)
    block = b"a" * 65536
    sent, buf, t0, how = 0, b"", time.time(), None
    while time.time() - t0 < 6 and b"\r\n\r\n" not in buf:
        r, _, _ = select.select([sock], [], [], 0.01)
        if r:
            try:
                chunk = sock.recv(65536)
            except OSError as e:
                how = "reset: %s" % e
                break
            if not chunk:
                how = "closed"
                break
            buf += chunk
            continue
        try:
            sent += sock.send(block)
        except BlockingIOError:
            pass
        except OSError as e:
            how = "send: %s" % e
            try:  # whatever answer came before the reset
                buf += sock.recv(65536)
            except OSError:
                pass
            break
    secs = time.time() - t0
    ans = None
    if b"\r\n\r\n" in buf:
        sock.setblocking(True)
        ans = read_answer(_Replay(buf, sock), 2)
    sock.close()
    report("huge_chunked_body_answered", isinstance(ans, tuple) and ans[0] == 413
           and json_code(ans[2]) == "body_too_large" and secs <= 5,
           dict(summarize(ans) if isinstance(ans, tuple) else {"answer": ans, "got": buf[:120], "end": how},
                seconds=round(secs, 2), bytes_sent=sent))


class _Replay:
    """A socket whose first recv() gives back what was already read."""

    def __init__(self, first, sock):
        self.first, self.sock = first, sock

    def settimeout(self, t):
        self.sock.settimeout(t)

    def recv(self, n):
        if self.first:
            data, self.first = self.first, b""
            return data
        return self.sock.recv(n)


def ws_handshake(port, host=None, origin=None, source=None):
    """A raw WebSocket upgrade request and what came back: (answer of read_answer, seconds)."""
    sock = connect(port, source)
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "Origin: %s\r\n" % origin if origin else ""
    sock.sendall(("GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n"
                  % (host or "127.0.0.1:%d" % port, key, extra)).encode())
    t0 = time.time()
    ans = read_answer(sock, 5)
    sock.close()
    return ans, time.time() - t0


@suite.test()
def ws_handshake_refusal_is_http():
    s = Server(*W2)
    got = {}
    ok = True
    for label, kw, status, code in (("foreign_origin", {"origin": "http://evil.example"}, 403, "origin_not_allowed"),
                                    ("foreign_host", {"host": "evil.example"}, 403, "host_not_allowed")):
        ans, secs = ws_handshake(s.ws_port, **kw)
        got[label] = summarize(ans)
        ok = ok and isinstance(ans, tuple) and ans[0] == status and json_code(ans[2]) == code
    # The server's smallest --connections-max is 16: the 17th WebSocket is one too many.
    small = Server(*W2, "--connections-max", "16")
    held = []
    try:
        for _ in range(16):
            held.append(WebSocket(small.ws_port, timeout=5))
        ans, secs = ws_handshake(small.ws_port)
        got["17th_of_16"] = summarize(ans)
        ok = ok and isinstance(ans, tuple) and ans[0] == 503 and json_code(ans[2]) == "too_many_connections"
    except (OSError, ConnectionError) as e:
        got["held"] = "%s: %s" % (type(e).__name__, e)
        ok = False
    for w in held:
        w.sock.close()
    report("ws_handshake_refusal_is_http", ok, got)


def fill(path, leave_kb):
    st = os.statvfs(path)
    free = st.f_bavail * st.f_frsize
    with open(os.path.join(path, "filler"), "ab") as f:
        f.write(b"\0" * max(0, free - leave_kb * 1024))


@suite.test()
def reads_survive_full_disk():
    mnt = tempfile.mkdtemp(prefix="feelfish-hostile-full-")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4096k", "tmpfs", mnt], capture_output=True, text=True)
    if mounted.returncode:
        os.rmdir(mnt)
        report("reads_survive_full_disk", False, "mount -t tmpfs needs root: " + mounted.stderr.strip())
        return
    try:
        full_disk(mnt)
    finally:
        subprocess.run(["umount", "-l", mnt])
        shutil.rmtree(mnt, ignore_errors=True)


def full_disk(mnt):
    db = os.path.join(mnt, "full.db")
    wal = db + "-wal"

    def wal_size():
        return os.path.getsize(wal) if os.path.exists(wal) else 0

    s = Server(*W2, db=db)
    acked = {}  # id: fullId
    for _ in range(5):
        st, g, _ = req(s, "POST", "/api/games", {"level": 1, "color": "white"})
        if st == 201:
            acked[g["id"]] = g["fullId"]
    wal_sizes = [wal_size()]
    fill(mnt, 8)
    # Writes until the disk refuses one: a move in each stored game, then new games.
    statuses = []
    for gid, full in acked.items():
        res = req(s, "POST", "/api/games/%s/moves" % full, {"move": "e2e4"})
        statuses.append(brief(res))
    for k in range(80):
        if (503, "storage_unavailable") in statuses:
            break
        res = req(s, "POST", "/api/games", {"level": 1, "fen": "8/8/8/4k3/8/8/4PP2/4K3 w - - 0 1"})
        statuses.append(brief(res))
        if res[0] == 201:
            acked[res[1]["id"]] = res[1]["fullId"]
        if k % 10 == 9:
            fill(mnt, 0)  # whatever the writes freed (a checkpoint) is taken again
    wal_sizes.append(wal_size())
    refused = (503, "storage_unavailable") in statuses
    reads = {g: req(s, "GET", "/api/games/" + g)[0] for g in acked}
    jobs = req(s, "POST", "/api/jobs", {"moves": ["e2e4"], "limits": {"depth": 2}})
    s.stop()
    wal_sizes.append(wal_size())
    try:
        again = Server(*W2, db=db)
        # A write refused again (the disk is still full), then the reads.
        statuses_after = [brief(req(again, "POST", "/api/games/%s/moves" % full, {"move": "d2d4"}))
                          for full in list(acked.values())[:2]]
        reads_after = {g: req(again, "GET", "/api/games/" + g)[0] for g in acked}
        health = req(again, "GET", "/api/health")[1]
        wal_sizes.append(wal_size())
        again.stop()
    except RuntimeError as e:
        reads_after, health, statuses_after = {"start": str(e)[:200]}, None, None
    st = os.statvfs(mnt)
    ok_reads = [g for g, r in reads.items() if r == 200]
    ok_after = [g for g, r in reads_after.items() if r == 200]
    report("reads_survive_full_disk", len(acked) >= 5 and refused and len(ok_reads) == len(acked)
           and len(ok_after) == len(acked) and max(wal_sizes) <= 4 * 1024 * 1024,
           {"acked": len(acked), "writes": statuses[:12],
            "reads_while_full": sorted(set(map(str, reads.values()))), "writes_after_restart": statuses_after,
            "reads_after_restart":
            sorted(set(map(str, reads_after.values()))), "job_while_full": brief(jobs),
            "health_after_restart": health and {"status": health.get("status"), "storage": health.get("storage")},
            "wal_bytes": wal_sizes, "free_kb": st.f_bavail * st.f_frsize // 1024})


if __name__ == "__main__":
    raise_nofile()
    sys.exit(suite.main())
