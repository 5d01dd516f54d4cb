#!/usr/bin/env python3
"""Crash test: rounds of mixed load (games and their moves, queued jobs, analyses) on the real
server, each ended by SIGKILL at a random moment, then a restart: every write the server had
acknowledged (a 2xx answer that arrived whole) must be there. Prints the counts."""
import http.client
import os
import random
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import Server, check, summary  # noqa: E402

ROUNDS = int(os.environ.get("CRASH_ROUNDS", "20"))
rng = random.Random(int(os.environ.get("CRASH_SEED", "1")))
DB = os.path.join(tempfile.mkdtemp(prefix="feelfish-crash-"), "crash.db")

def req(s, method, path, body=None):
    """(status, body); status 0 when the server went away mid-request (the kill)."""
    try:
        st, parsed, _ = s.request(method, path, body)
        return st, parsed
    except (OSError, http.client.HTTPException):
        return 0, None


lock = threading.Lock()
lost = []
acked = {"games": {}, "jobs": set(), "analyses": set()}  # game id -> moves acknowledged


def ack(kind, key, value=None):
    with lock:
        if kind == "games":
            acked["games"][key] = max(value, acked["games"].get(key, []), key=len)
        else:
            acked[kind].add(key)


def player(s, stop, seed):
    r = random.Random(seed)
    while not stop.is_set():
        what = r.random()
        if what < 0.45:  # a game against the weakest level, a few moves
            st, g = req(s, "POST", "/api/games", {"level": 1, "color": r.choice(["white", "black"])})
            if st not in (200, 201):
                continue
            ack("games", g["id"], g["moves"])
            for _ in range(r.randint(1, 6)):
                if stop.is_set() or g["status"] != "started":
                    break
                st, a = req(s, "POST", "/api/analyse", {"fen": g["fen"], "limits": {"depth": 1}})
                if st != 200 or not a.get("bestMove"):
                    break
                ack("analyses", a["id"])
                st, g2 = req(s, "POST", "/api/games/%s/moves" % g["fullId"], {"move": a["bestMove"]})
                if st != 200:
                    break
                g = g2
                ack("games", g["id"], g["moves"])
        elif what < 0.8:
            st, j = req(s, "POST", "/api/jobs", {"moves": ["e2e4"], "limits": {"depth": r.randint(2, 9)}})
            if st == 202:
                ack("jobs", j["id"])
        else:
            st, a = req(s, "POST", "/api/analyse", {"limits": {"depth": r.randint(1, 5)}, "moves": ["d2d4"]})
            if st == 200:
                ack("analyses", a["id"])


def verify(s, round_no):
    missing = []
    with lock:
        games = dict(acked["games"])
        jobs, analyses = set(acked["jobs"]), set(acked["analyses"])
    for gid, moves in games.items():
        st, g = req(s, "GET", "/api/games/" + gid)
        if st != 200 or g["moves"][:len(moves)] != moves:
            missing.append(("game", gid, st, len(moves), len(g["moves"]) if st == 200 else None))
    for jid in jobs:
        st, j = req(s, "GET", "/api/jobs/" + jid)
        if st != 200 or j.get("status") not in ("queued", "running", "done"):
            missing.append(("job", jid, st))
    for aid in analyses:
        st, a = req(s, "GET", "/api/jobs/" + aid)
        if st != 200 or a.get("status") != "done" or not a.get("bestMove"):
            missing.append(("analysis", aid, st))
    check("round_%02d_every_acknowledged_write_survives_kill_9" % round_no, not missing, missing[:5])
    lost.extend(missing)
    return len(games), sum(len(m) for m in games.values()), len(jobs), len(analyses)


def main():
    counts = (0, 0, 0, 0)
    for round_no in range(1, ROUNDS + 1):
        s = Server("--workers", "2", "--queue", "64", db=DB)
        if round_no > 1:  # what earlier rounds acknowledged, after a kill -9 and this restart
            counts = verify(s, round_no - 1)
        stop = threading.Event()
        threads = [threading.Thread(target=player, args=(s, stop, rng.random())) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.3, 1.5))
        s.stop(signal.SIGKILL)  # at a random moment, with requests in flight
        stop.set()
        for t in threads:
            t.join()
    s = Server("--workers", "2", db=DB)
    counts = verify(s, ROUNDS)
    # Jobs acknowledged as queued run again after the restart and finish.
    with lock:
        jobs = set(acked["jobs"])
    done = 0
    end = time.time() + 60
    for jid in jobs:
        while time.time() < end:
            st, j = req(s, "GET", "/api/jobs/" + jid)
            if st == 200 and j.get("status") == "done":
                done += 1
                break
            time.sleep(0.1)
    check("queued_jobs_run_again_after_restart", done == len(jobs), "%d of %d done" % (done, len(jobs)))
    s.stop()
    print("acknowledged over %d kill -9 rounds: %d games (%d moves), %d queued jobs, %d analyses; missing after"
          " the restarts: %d" % (ROUNDS, counts[0], counts[1], counts[2], counts[3], len(lost)))
    check("load_was_acknowledged", counts[0] > 20 and counts[2] > 20 and counts[3] > 20, counts)
    return summary("crash")


if __name__ == "__main__":
    sys.exit(main())
