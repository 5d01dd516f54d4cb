#!/usr/bin/env python3
"""What heavy clients did to the server, one regression check each, through the real server: idle
connections past --connections-max (and a flood of them from 25 addresses) must not leave the
listener dead once they are gone; a game analysis counts against --client-jobs-max, searches one
position at a time and leaves room in the queue for others; SIGTERM under mixed load (analyses,
jobs, games, WebSocket analyses and game analyses from four clients) exits 0 with every game
acknowledged before the signal readable after a restart; the search lab is cut at --max-movetime,
counts against --client-jobs-max and waits its turn instead of refusing another client. What floods
do to storage is test_storage_pressure.py's; the refusals of oversized or forbidden requests are
test_refusals.py's.

Clients differ by loopback source address (127.0.0.2, ...). Standard library only. Environment:
HOSTILE_FULL=1 floods with 5,000 connections (200 from each of 25 addresses) at the default
--connections-max; HOSTILE_SIGTERM_RUNS (default 12) and HOSTILE_SIGTERM_ASAN_RUNS (default 3, with
build/feelfish-asan when it exists) set the SIGTERM runs, HOSTILE_SEED the seed of their random
load. Run it all, or some checks: test_heavy_load.py [--list] [CHECK_NAME...]; prints
'heavy-load: N passed, N failed'."""
import json
import os
import random
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
from harness import ROOT, Server, Suite, raise_nofile, report  # noqa: E402
from hostile_common import W2, brief, req  # noqa: E402
from rawhttp import health_once  # noqa: E402
from wsclient import WebSocket  # noqa: E402

suite = Suite("heavy-load")
ASAN = os.path.join(ROOT, "build", "feelfish-asan")
MIDGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
GAME30 = ("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6a5 "
          "b3c2 c7c5 d2d4 d8c7 b1d2 c5d4 c3d4 a5c6 d2b3 a6a5 c1e3 a5a4")
OPENINGS = ["e2e4", "d2d4", "c2c4", "g1f3", "b2b3", "g2g3"]
STOP_MARKS = ("MHD_stop_daemon", "suspended connections", "Aborted")


# ---- raw sockets ----

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
    second = req(s, "POST", "/api/lab", lab_body(3, ["minimax"]), source=a)
    t.join(10)
    # A refusal that passes by itself says when to ask again; one that waits on the client's own lab does not.
    waits = [r[2].getheader("Retry-After") if r[2] else "no answer" for r in (job, second)]
    report("lab_counts_against_client_jobs_max",
           running and brief(job) == (429, "too_many_jobs") and brief(second) == (429, "too_many_labs")
           and waits == ["1", None],
           {"lab_running_then": running, "job_of_A": brief(job), "second_lab_of_A": brief(second),
            "retry_after": waits, "lab": lab})


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


if __name__ == "__main__":
    raise_nofile()
    sys.exit(suite.main())
