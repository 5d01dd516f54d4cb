#!/usr/bin/env python3
"""Flood benchmark (make bench; issue #25): 25 client addresses (127.0.1.1 .. 127.0.1.25) flood every
kind of work a client can start -- REST analyses and jobs at the longest movetime, depth-8 analyses
like the victim's, whole-game
analyses, labs, stateless plays, games whose engine moves first, and infinite WebSocket analyses --
while a well-behaved client (127.0.2.1) asks for a depth-8 analysis every half second or so. Prints the
victim's latency (p50, p99, max), how many of its requests were refused (and with which codes), and
what the flooders got back. The server runs with the settings docs/operations.md recommends for hostile
clients (FLOOD_FLAGS overrides them) and the binary FEELFISH names (default ./feelfish), so the same
run can be made against an older build. FLOOD_SECONDS (60) is the length of the victim's run.

Last line: 'flood: victim depth-8 p50 X s, p99 Y s, max Z s, N refused'. Exit status 1 if the
victim got any 503 queue_full or its p99 is 1 s or more (the target), 0 otherwise; FLOOD_SMOKE=1
runs a few seconds and asserts nothing (a smoke test in make test). Standard library only."""
import json
import multiprocessing
import os
import random
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
from harness import Server  # noqa: E402
from wsclient import WebSocket  # noqa: E402

harness.judge_frames(False)  # the client's time would be counted in the latencies measured

# docs/operations.md's settings for a server that hostile clients reach (its Security section).
HOSTILE_FLAGS = ["--rate", "20", "--rate-burst", "40", "--client-jobs-max", "1", "--client-infinite-max", "1",
                 "--max-movetime", "5000", "--job-timeout", "60000"]
SMOKE = os.environ.get("FLOOD_SMOKE") == "1"
SECONDS = 4 if SMOKE else float(os.environ.get("FLOOD_SECONDS", "60"))
FLOODERS = 6 if SMOKE else 25
GAME = ("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6a5 b3c2 c7c5 "
        "d2d4 d8c7 b1d2 c5d4 c3d4 a5c6 d2b3 a6a5 c1e3 a5a4")
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
DATA = os.environ.get("FEELFISH_DATA", os.path.join(HERE, "..", "..", "..", "shared", "data"))


def openings():
    """The shared openings (300 positions, none seen twice by the victim: the evaluation cache would
    answer a repeat at once), the start position when the data is not there."""
    try:
        with open(os.path.join(DATA, "openings.epd")) as f:
            fens = [" ".join(line.split()[:6]) for line in f if line.strip()]
    except OSError:
        fens = []
    return fens or ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]


VICTIM_FENS = openings()


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


class Flooder(threading.Thread):
    """One address, every kind of work in turn, as fast as the server answers."""

    def __init__(self, server, address, stop, tally):
        super().__init__(daemon=True)
        self.s, self.addr, self.stop, self.tally = server, address, stop, tally
        self.ws = None

    def note(self, kind, status):
        with self.tally["lock"]:
            key = "%s %s" % (kind, status)
            self.tally[key] = self.tally.get(key, 0) + 1

    def post(self, kind, path, body):
        try:
            st, b, _ = self.s.request("POST", path, body, source=self.addr, timeout=30)
        except OSError as e:
            st, b = type(e).__name__, None
        self.note(kind, st)
        if st in (429, 503):
            time.sleep(0.05)  # a refused client comes straight back, but not in a busy loop of ours
        return st, b

    def websocket_infinite(self):
        try:
            if self.ws is None:
                self.ws = WebSocket(self.s.ws_port, timeout=5, source=self.addr)
            self.ws.send({"op": "analyse", "id": "f%d" % random.randrange(1 << 30), "fen": MIDDLEGAME,
                          "limits": {"infinite": True}})
            self.note("ws-infinite", "sent")
        except OSError as e:
            self.note("ws-infinite", type(e).__name__)
            self.ws = None

    def run(self):
        kinds = ["analyse", "quick", "job", "game-analysis", "lab", "play", "game", "ws"]
        i = random.randrange(len(kinds))
        while not self.stop.is_set():
            k = kinds[i % len(kinds)]
            i += 1
            if k == "analyse":
                self.post(k, "/api/analyse", {"fen": MIDDLEGAME, "limits": {"movetime": 60000}})
            elif k == "quick":  # what the victim asks for too: it shares the quick worker with these
                self.post(k, "/api/analyse", {"fen": MIDDLEGAME, "limits": {"depth": 8, "nodes": 1 + random.randrange(10 ** 6)}})
            elif k == "job":
                self.post(k, "/api/jobs", {"fen": MIDDLEGAME, "limits": {"depth": 40}})
            elif k == "game-analysis":
                self.post(k, "/api/game-analysis", {"moves": GAME})
            elif k == "lab":
                self.post(k, "/api/lab", {"fen": MIDDLEGAME, "depth": 5, "algorithms": ["minimax"]})
            elif k == "play":
                self.post(k, "/api/play", {"fen": MIDDLEGAME, "level": 8})
            elif k == "game":
                self.post(k, "/api/games", {"level": 8, "color": "black"})
            else:
                self.websocket_infinite()
        if self.ws:
            try:
                self.ws.close()
            except OSError:
                pass


def flood(port, ws_port, stop, out):
    """The flooders, in a process of their own at a low priority: on this 2-core machine they stand
    for clients elsewhere, so they must not take the server's CPU (nor the victim's GIL)."""
    os.nice(15)

    class Remote:  # the parts of harness.Server a flooder uses
        def __init__(self):
            self.port, self.ws_port = port, ws_port
        request = Server.request

    stop_thread = threading.Event()
    tally = {"lock": threading.Lock()}
    flooders = [Flooder(Remote(), "127.0.1.%d" % (i + 1), stop_thread, tally) for i in range(FLOODERS)]
    for f in flooders:
        f.start()
    stop.wait()
    stop_thread.set()
    for f in flooders:
        f.join(timeout=40)
    del tally["lock"]
    out.put(tally)


def main():
    flags = os.environ.get("FLOOD_FLAGS")
    flags = flags.split() if flags is not None else HOSTILE_FLAGS
    s = Server("--workers", "2", *flags)
    print("flood: %s, server flags: %s" % (os.environ.get("FEELFISH", "./feelfish"), " ".join(flags)), flush=True)
    stop = multiprocessing.Event()
    out = multiprocessing.Queue()
    flooders = multiprocessing.Process(target=flood, args=(s.port, s.ws_port, stop, out), daemon=True)
    flooders.start()
    time.sleep(2 if SMOKE else 5)  # the flood settles: workers busy, queue filling
    latencies, refused = [], {}
    t_end = time.time() + SECONDS
    n = 0
    while time.time() < t_end:
        fen = VICTIM_FENS[n % len(VICTIM_FENS)]
        n += 1
        t0 = time.time()
        try:
            st, b, _ = s.request("POST", "/api/analyse", {"fen": fen, "limits": {"depth": 8}}, source="127.0.2.1",
                                 timeout=120)
        except OSError as e:
            st, b = type(e).__name__, None
        dt = time.time() - t0
        if st == 200:
            latencies.append(dt)
        else:
            code = b["error"]["code"] if isinstance(b, dict) and "error" in b else str(st)
            refused[code] = refused.get(code, 0) + 1
        time.sleep(0.5)  # a person stepping through positions, not a loop
    health = s.health()
    stop.set()
    tally = out.get(timeout=60)
    flooders.join(timeout=10)
    rc, secs = s.stop(timeout=20)
    print("flooders got: " + json.dumps(dict(sorted(tally.items()))), flush=True)
    print("health at the end of the run: " + json.dumps(health))
    print("server exit %s in %.1f s" % (rc, secs))
    if rc != 0:
        print("server stderr (end): " + s.stderr()[-3000:])
    p50, p99, mx = pct(latencies, 50), pct(latencies, 99), max(latencies) if latencies else float("nan")
    print("flood: victim depth-8 p50 %.3f s, p99 %.3f s, max %.3f s, %d answered, %d refused %s"
          % (p50, p99, mx, len(latencies), sum(refused.values()), json.dumps(refused)))
    if SMOKE:
        return 0 if latencies and rc == 0 else 1
    return 0 if not refused.get("queue_full") and p99 < 1.0 and rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
