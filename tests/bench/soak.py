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
SOAK_HOSTILE=0 leaves the hostile clients out (a baseline). The hostile clients are soak_hostile.py;
what both processes use is soak_common.py."""
import collections
import http.client
import json
import math
import os
import random
import re
import subprocess
import sys
import textwrap
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc import open_fds, rss_mb  # noqa: E402
from soak_common import (FENS, STOP, Http, Tally, error_code, harness, raise_nofile, run_loop,  # noqa: E402
                         sleep, ws_error_status, ws_open)
from harness import SANITIZER_MARKS, Server  # noqa: E402

SECONDS = float(os.environ.get("SOAK_SECONDS", "600"))
SAMPLE_EVERY = float(os.environ.get("SOAK_SAMPLE_SECONDS", "10"))
HOSTILE = os.environ.get("SOAK_HOSTILE", "1") != "0"  # 0: the well-behaved clients alone (a baseline)
SERVER_ARGS = ["--workers", "2", "--queue", "64", "--rate", "50", "--rate-burst", "100", "--client-jobs-max", "4",
               "--client-infinite-max", "1", "--connections-per-ip", "64", "--header-timeout", "5",
               "--body-timeout", "10", "--keepalive-timeout", "15", "--ws-idle-timeout", "60",
               "--ws-queue-max", "262144", "--max-movetime", "5000", "--retention-jobs", "2000",
               "--retention-games", "500", "--game-memory-idle", "30", "--auth", "optional", "--log-level", "warn"]
# Plausible moves for white in the first plies; the server says which are illegal (400).
WHITE_MOVES = ["e2e4", "d2d4", "g1f3", "c2c4", "b1c3", "e2e3", "d2d3", "g2g3", "b2b3", "c2c3", "a2a3", "h2h3",
               "f1e2", "f1d3", "b1d2", "g1e2", "a2a4", "h2h4"]


# ---- well-behaved clients ----



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
        hostile = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "soak_hostile.py"), str(s.port),
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
