#!/usr/bin/env python3
"""The cluster over a real Redis (Debian's redis-server, started here on loopback with AOF, stopped
after): two fronts (`feelfish serve --redis`) and two workers (`feelfish worker --redis`) as processes.
Analyses through either front; a WebSocket client on front A streams the info of a job a worker runs;
a cancel reaches the worker that runs the job; `kill -9` of the worker running a job -> another one
takes it over and finishes it (recovery time printed); Redis restarted -> every node reconnects and
work flows again (time printed). Prints 'cluster: N passed, N failed'."""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import FF, ROOT, SANITIZER_MARKS, Server, Suite, check, poll, tmpdir  # noqa: E402
from wsclient import WebSocket, free_port  # noqa: E402

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
RECLAIM_MS = 3000
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
MIDDLE = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9"


class Redis:
    def __init__(self):
        self.dir = tmpdir("feelfish-redis-")
        self.port = free_port()
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen([REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                                      "--appendonly", "yes", "--save", "", "--protected-mode", "yes"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    @property
    def url(self):
        return "redis://127.0.0.1:%d/0" % self.port


class Worker:
    def __init__(self, url, name):
        self.dir = tmpdir("feelfish-worker-")
        self.log = os.path.join(self.dir, "stderr.log")
        with open(self.log, "w") as err:
            self.proc = subprocess.Popen([FF, "worker", "--redis", url, "--threads", "1", "--hash", "16",
                                          "--reclaim-ms", str(RECLAIM_MS)], cwd=ROOT, stdout=subprocess.DEVNULL,
                                         stderr=err)
        self.name = name

    def text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def runs(self, job_id):
        return ("job %s started" % job_id) in self.text()

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


redis = Redis()
fronts = [Server("--redis", redis.url), Server("--redis", redis.url)]
workers = [Worker(redis.url, "w1"), Worker(redis.url, "w2")]
suite = Suite("cluster", lambda: fronts[0])


def analyse(front, fen=START, depth=10, timeout=60):
    return front.request("POST", "/api/analyse", {"fen": fen, "limits": {"depth": depth}}, timeout=timeout)


@suite.test("analyses_through_either_front")
def either_front():
    got = [analyse(f) for f in fronts]
    print("    front A: %s %s, front B: %s %s" % (got[0][0], got[0][1].get("bestMove"), got[1][0], got[1][1].get("bestMove")))
    check("analyses_through_either_front", all(st == 200 and j.get("bestMove") and j.get("depth") == 10 and j.get("pvs")
                                                for st, j, _ in got), got)


@suite.test("websocket_streams_worker_job")
def websocket():
    ws = WebSocket(fronts[0].ws_port)
    ws.send({"op": "analyse", "id": "w1", "fen": MIDDLE, "limits": {"depth": 14}})
    final, seen = ws.until(lambda m: m.get("type") == "bestmove", timeout=60)
    ws.close()
    infos = [m for m in seen if m.get("type") == "info"]
    depths = [m.get("depth") for m in infos]
    print("    %d info frames (depths %s..%s), then %s" % (len(infos), depths[:1], depths[-1:], final and final.get("bestMove")))
    check("websocket_streams_worker_job", final and final.get("bestMove") and len(infos) >= 5
          and depths == sorted(depths), (len(infos), final))


def job(front, nodes):
    st, j, _ = front.request("POST", "/api/jobs", {"fen": MIDDLE, "limits": {"nodes": nodes}})
    return j.get("id") if st == 202 else None


def status(front, job_id):
    return front.request("GET", "/api/jobs/" + job_id)[1]


@suite.test("cancel_reaches_worker")
def cancel():
    a = fronts[0]
    jid = job(a, 500000000)
    poll(lambda: status(a, jid), lambda s: s.get("status") == "running", tries=200)
    t0 = time.monotonic()
    st, d, _ = a.request("DELETE", "/api/jobs/" + jid)
    end = poll(lambda: status(a, jid), lambda s: s.get("status") not in ("queued", "running"), tries=200)
    took = time.monotonic() - t0
    # both workers free again: two quick analyses at once go through
    quick = [analyse(f, depth=6) for f in fronts]
    print("    cancelled in %.2f s; then %s" % (took, [q[0] for q in quick]))
    check("cancel_reaches_worker", st == 200 and end.get("status") == "cancelled" and took < 5
          and all(q[0] == 200 for q in quick), (st, d, end, took))


@suite.test("killed_worker_job_taken_over")
def kill_worker():
    a = fronts[0]
    jid = job(a, 6000000)
    poll(lambda: status(a, jid), lambda s: s.get("status") == "running", tries=200)
    runner = poll(lambda: next((w for w in workers if w.runs(jid)), None), lambda w: w is not None, tries=100)
    other = [w for w in workers if w is not runner]
    if not runner:
        check("killed_worker_job_taken_over", False, "no worker says it runs %s" % jid)
        return
    time.sleep(0.3)
    runner.proc.kill()  # -9
    runner.proc.wait()
    t0 = time.monotonic()
    end = poll(lambda: status(a, jid), lambda s: s.get("status") not in ("queued", "running"), tries=1200, delay=0.1)
    took = time.monotonic() - t0
    print("    worker %s killed while running %s; finished by %s %.1f s later (reclaim after %d ms idle)"
          % (runner.name, jid, other[0].name, took, RECLAIM_MS))
    check("killed_worker_job_taken_over", end.get("status") == "done" and end.get("bestMove")
          and other[0].runs(jid) and "taking over" in other[0].text(), (end.get("status"), took, other[0].text()[-600:]))
    workers.remove(runner)
    workers.append(Worker(redis.url, runner.name + "'"))


@suite.test("redis_restart_reconnects")
def redis_restart():
    redis.stop()
    time.sleep(0.5)
    down = analyse(fronts[0], depth=4, timeout=10)
    redis.start()
    t0 = time.monotonic()
    ok = poll(lambda: [analyse(f, depth=6, timeout=20)[0] for f in fronts], lambda r: r == [200, 200], tries=100,
              delay=0.2)
    took = time.monotonic() - t0
    print("    while Redis was down: %s %s; after its restart both fronts analyse again in %.1f s"
          % (down[0], (down[1] or {}).get("error", {}).get("code"), took))
    check("redis_restart_reconnects", ok == [200, 200] and down[0] == 503, (down, ok, took))


@suite.test("workers_exit_clean")
def workers_exit_clean():
    codes = {w.name: w.stop() for w in workers}
    marks = {w.name: [line for line in w.text().splitlines() if any(m in line for m in SANITIZER_MARKS)]
             for w in workers}
    check("workers_exit_clean", all(c == 0 for c in codes.values()) and not any(marks.values())
          and all("stopped (" in w.text() for w in workers), (codes, marks, [w.text()[-300:] for w in workers]))


def main():
    try:
        return suite.main()
    finally:
        for w in workers:
            w.stop()
        redis.stop()


if __name__ == "__main__":
    sys.exit(main())
