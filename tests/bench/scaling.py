#!/usr/bin/env python3
"""The cluster's scaling benchmark (make bench; docs/scaling.md): figures printed, no pass/fail on timing.
A Redis (Debian's redis-server on a free loopback port, AOF on as in tests/cluster, its own temporary
folder, stopped after even on failure), one front (`feelfish serve --redis`), and:
 1. Redis overhead per job: the same fixed-node analyses one at a time on a plain `serve --workers 1`
    and through the front and one `feelfish worker --threads 1`, interleaved pair by pair (the same
    position on both, one right after the other, so load from elsewhere hits both alike); the
    overhead is the mean (and median) of the per-position latency differences, in ms. Redis's
    `INFO commandstats` over those jobs: commands per job and Redis's own usec per job.
 2. The curve: for k = 1, 2, 4 worker processes (each --threads 1 --hash 16), one fixed batch of
    fixed-node analyses (different positions from ../shared/data/openings.epd) with 2k+2 clients
    keeping jobs in flight: analyses per second and speed-up vs k = 1; and, from /proc, the CPU
    seconds per job (scheduler nanoseconds, each process's idle rate taken off) of the front (whole
    process and its loop thread), of the workers and of redis-server; the cores the searches got;
    the machine's busy share, what other processes took, the load average; Redis commands, usec,
    bytes and memory per job.
 3. redis-benchmark (Debian's redis-tools), if present: raw XADD and PUBLISH throughput here.
Then the estimates of docs/scaling.md: jobs/s one Redis carries, workers one front carries.
Every process runs a copy of ./feelfish taken at the start (a rebuild meanwhile changes nothing).
About 2.5 minutes. Environment: BENCH_NODES (250000 per analysis), BENCH_SECONDS (about how long the k = 1 point
lasts, 32), BENCH_PAIRS (analyses per side for the overhead, 40). Exits 1 only if something
broke (an answer that is not 200 with a best move, a job that never finishes, a process that
died). Standard library only."""
import http.client
import json
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
from harness import DATA, Server, tmpdir  # noqa: E402
from redisserver import REDIS, Redis, Worker  # noqa: E402
from wsclient import free_port  # noqa: E402

harness.judge_frames(False)  # the client's time would be counted in the latencies measured

# Every process runs one copy of the binary taken now: a `make` in the tree during the run (others
# work in it too) cannot mix two builds, whose wire layouts may differ, or change the figures midway.
SRC = harness.FF
if not os.access(SRC, os.X_OK) or os.path.getsize(SRC) == 0:
    sys.exit("scaling: %s missing or being linked right now (make feelfish)" % SRC)
BUILT = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(SRC)))
FF = harness.FF = os.path.join(tmpdir("feelfish-bin-"), "feelfish")
shutil.copy2(SRC, FF)

REDIS_BENCHMARK = shutil.which("redis-benchmark")
REDIS_CLI = shutil.which("redis-cli")
NODES = int(os.environ.get("BENCH_NODES", "250000"))
TARGET_S = float(os.environ.get("BENCH_SECONDS", "32"))
PAIRS = int(os.environ.get("BENCH_PAIRS", "40"))
KS = (1, 2, 4)
TICK = os.sysconf("SC_CLK_TCK")
MIDDLE = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9"

try:
    with open(os.path.join(DATA, "openings.epd")) as f:
        FENS = [" ".join(line.split()[:4]) + " 0 1" for line in f if line.strip()]
except OSError:
    FENS = []
if len(FENS) < 60:
    FENS = [MIDDLE] * 300  # no data folder: one position (each worker's hash then helps; said in main)

problems = []


def problem(what):
    problems.append(what)
    print("PROBLEM: " + what, flush=True)


# ---- what /proc says ----

def cpu_s(pid, tid=None):
    """CPU seconds of a process (all its threads) or of one of its threads: the scheduler's nanoseconds
    from schedstat where the kernel has them, else user + system clock ticks from stat."""
    tids = [tid] if tid else _tasks(pid)
    try:
        total = 0
        for t in tids:
            with open("/proc/%d/task/%d/schedstat" % (pid, t)) as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        pass
    path = "/proc/%d/task/%d/stat" % (pid, tid) if tid else "/proc/%d/stat" % pid
    try:
        with open(path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15)


def _tasks(pid):
    try:
        return [int(t) for t in os.listdir("/proc/%d/task" % pid)]
    except OSError:
        return []


def machine():
    """(busy, total) jiffies of all CPUs."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v[:8]) - idle, sum(v[:8])


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def commandstats(redis):
    """{command: (calls, usec)} since the last CONFIG RESETSTAT."""
    out = {}
    for name, value in redis.info("commandstats").items():
        fields = dict(kv.split("=", 1) for kv in value.split(","))
        out[name.replace("cmdstat_", "")] = (int(fields["calls"]), int(fields["usec"]))
    return out


# ---- workers, clients ----

class Client:
    """One keep-alive connection to a server; analyse() gives (round trip ms, the search's own ms)."""

    def __init__(self, server):
        self.server = server
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)

    def analyse(self, fen):
        body = json.dumps({"fen": fen, "limits": {"nodes": NODES}})
        t0 = time.perf_counter()
        try:
            self.conn.request("POST", "/api/analyse", body, {"Content-Type": "application/json"})
            r = self.conn.getresponse()
            data = r.read()
        except (OSError, http.client.HTTPException) as e:
            self.conn.close()
            problem("analysis of %s: %s" % (fen, e))
            return None
        ms = (time.perf_counter() - t0) * 1000
        try:
            j = json.loads(data)
        except ValueError:
            j = {}
        if r.status != 200 or not j.get("bestMove") or not j.get("nodes"):
            problem("analysis of %s: %d %s" % (fen, r.status, data[:200]))
            return None
        return ms, float(j.get("time", 0))

    def close(self):
        self.conn.close()


def run_batch(server, fens, clients):
    """Every position analysed by `clients` concurrent clients; (seconds, [round trip ms])."""
    todo = queue.Queue()
    for fen in fens:
        todo.put(fen)
    rtts, lock = [], threading.Lock()

    def client():
        c = Client(server)
        while True:
            try:
                fen = todo.get_nowait()
            except queue.Empty:
                break
            got = c.analyse(fen)
            if got:
                with lock:
                    rtts.append(got[0])
        c.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, rtts


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def mean(xs):
    return statistics.fmean(xs) if xs else float("nan")


# ---- 1. overhead ----

def overhead(redis, front):
    print("== 1. Redis overhead per job: %d analyses of %d nodes one at a time on each side, interleaved" % (PAIRS, NODES))
    plain = Server("--workers", "1", "--log-level", "warn")
    worker = Worker(redis.url)
    try:
        pc, cc = Client(plain), Client(front)
        warm = FENS[-6:]
        for fen in warm:  # both sides' first requests, the worker's group read and hash allocation
            pc.analyse(fen), cc.analyse(fen)
        redis.command("CONFIG", "RESETSTAT")
        fr0, fl0, pl0, pp0, rd0 = (cpu_s(front.proc.pid), cpu_s(front.proc.pid, front.proc.pid),
                                   cpu_s(plain.proc.pid, plain.proc.pid), cpu_s(plain.proc.pid),
                                   cpu_s(redis.proc.pid))
        rows = []
        for i, fen in enumerate(FENS[:PAIRS]):
            order = (pc, cc) if i % 2 == 0 else (cc, pc)  # neither side always goes first
            got = {id(c): c.analyse(fen) for c in order}
            if got[id(pc)] and got[id(cc)]:
                rows.append((got[id(pc)], got[id(cc)]))
        stats = commandstats(redis)
        front_cpu, front_loop = cpu_s(front.proc.pid) - fr0, cpu_s(front.proc.pid, front.proc.pid) - fl0
        plain_loop, plain_cpu = cpu_s(plain.proc.pid, plain.proc.pid) - pl0, cpu_s(plain.proc.pid) - pp0
        redis_cpu = cpu_s(redis.proc.pid) - rd0
        pc.close(), cc.close()
    finally:
        rc = worker.stop()
        plain.stop()
    if rc != 0:
        problem("the overhead phase's worker exited %s: %s" % (rc, worker.text()[-400:]))
    n = len(rows)
    if not n:
        problem("no analysis went through on both sides")
        return None
    plain_ms = [p[0] for p, _ in rows]
    clus_ms = [c[0] for _, c in rows]
    diff = [c[0] - p[0] for p, c in rows]
    plain_search = [p[1] for p, _ in rows]
    clus_search = [c[1] for _, c in rows]
    plain_rest = [p[0] - p[1] for p, _ in rows]
    clus_rest = [c[0] - c[1] for _, c in rows]
    print("plain serve --workers 1:  round trip mean %.1f ms, median %.1f ms (search's own time mean %.1f ms)"
          % (mean(plain_ms), median(plain_ms), mean(plain_search)))
    print("front + 1 worker:         round trip mean %.1f ms, median %.1f ms (search's own time mean %.1f ms)"
          % (mean(clus_ms), median(clus_ms), mean(clus_search)))
    print("overhead (cluster - plain, same position): mean %.2f ms, median %.2f ms, stdev %.2f ms over %d pairs"
          " = %.1f%% of the plain round trip"
          % (mean(diff), median(diff), statistics.stdev(diff) if n > 1 else 0, n, 100 * mean(diff) / mean(plain_ms)))
    print("round trip minus the search's own time: plain mean %.2f ms, cluster mean %.2f ms -> %.2f ms"
          " (search time is reported in whole ms)" % (mean(plain_rest), mean(clus_rest), mean(clus_rest) - mean(plain_rest)))
    calls = sum(c for c, _ in stats.values())
    usec = sum(u for _, u in stats.values())
    print("Redis over these %d cluster jobs: %.1f commands per job (%s), %.1f usec of commands per job,"
          " redis-server CPU %.0f usec per job"
          % (n, calls / n, ", ".join("%s %.1f" % (k, c / n) for k, (c, _) in sorted(stats.items(), key=lambda x: -x[1][0])),
             usec / n, redis_cpu * 1e6 / n))
    print("front CPU per job %.2f ms (loop thread %.2f ms); plain serve's loop thread %.2f ms per job"
          " (whole plain process %.1f ms, its search included)"
          % (front_cpu * 1000 / n, front_loop * 1000 / n, plain_loop * 1000 / n, plain_cpu * 1000 / n))
    return {"mean": mean(diff), "median": median(diff), "plain_ms": mean(plain_ms), "search_ms": mean(plain_search),
            "cmds": calls / n, "usec": usec / n}


# ---- 2. the curve ----

IDLE_S = 3.0
JOB_BYTES = []  # sizes of job messages seen in the stream


def sample_job(redis):
    try:
        entries = redis.command("XRANGE", "feelfish:jobs", "-", "+", "COUNT", "1") or []
    except (OSError, RuntimeError):
        return
    for entry in entries:
        fields = entry[1] if len(entry) > 1 else []
        values = [v for v in fields[1::2] if v]
        if values:
            JOB_BYTES.append(max(len(v) for v in values))




def snapshot(front, redis, workers):
    """CPU seconds so far: front, front's loop thread, the workers, redis-server, its main thread, this script."""
    fp, rp = front.proc.pid, redis.proc.pid
    return (cpu_s(fp), cpu_s(fp, fp), sum(cpu_s(w.proc.pid) for w in workers), cpu_s(rp), cpu_s(rp, rp),
            sum(os.times()[:2]))


def point(redis, front, k, batch):
    workers = [Worker(redis.url) for _ in range(k)]
    try:
        warm = FENS[-(2 * k + 2):]
        run_batch(front, warm, 2 * k + 2)  # every worker connected and reading, hash tables allocated
        time.sleep(0.5)
        i0 = snapshot(front, redis, workers)
        time.sleep(IDLE_S)  # what everything costs with no job: subtracted below
        idle = [(b - a) / IDLE_S for a, b in zip(i0, snapshot(front, redis, workers))]
        redis.command("CONFIG", "RESETSTAT")
        mem0 = redis.info("memory")
        net0 = redis.info("stats")
        c0, m0, load0 = snapshot(front, redis, workers), machine(), loadavg()
        sampler = threading.Timer(1.0, sample_job, (redis,))  # an entry still waiting in the stream
        sampler.start()
        secs, rtts = run_batch(front, batch, 2 * k + 2)
        sampler.join()
        c1, m1, load1 = snapshot(front, redis, workers), machine(), loadavg()
        stats = commandstats(redis)
        mem1 = redis.info("memory")
        net1 = redis.info("stats")
    finally:
        codes = [w.stop() for w in workers]
    taken = [re.findall(r"stopped \((\d+) jobs taken", w.text()) for w in workers]
    if any(c != 0 for c in codes):
        problem("k=%d: a worker exited %s" % (k, codes))
    n = len(rtts)
    if n < len(batch):
        problem("k=%d: %d of %d analyses answered" % (k, n, len(batch)))
    n = max(n, 1)
    busy = (m1[0] - m0[0]) / max(1, m1[1] - m0[1])
    gross = [b - a for a, b in zip(c0, c1)]
    net = [max(0.0, g - r * secs) / n for g, r in zip(gross, idle)]  # per job, the idle rate taken off
    front_cpu, front_loop, workers_cpu, redis_cpu, redis_main, client_cpu = net
    cpus = os.cpu_count() or 1
    return {"k": k, "jobs": n, "secs": secs, "rate": n / secs, "p50": median(rtts),
            "front": front_cpu, "loop": front_loop, "worker": workers_cpu, "redis": redis_cpu, "redis_main": redis_main,
            "client": client_cpu, "gross_redis": gross[3] / n, "idle": idle, "busy": busy,
            "others": max(0.0, busy * cpus - sum(gross) / secs),
            "load": "%s -> %s" % (load0, load1), "per_worker": [t[-1] if t else "?" for t in taken],
            "cmds": sum(c for c, _ in stats.values()) / n, "usec": sum(u for _, u in stats.values()) / n,
            "stats": stats, "in": (int(net1["total_net_input_bytes"]) - int(net0["total_net_input_bytes"])) / n,
            "out": (int(net1["total_net_output_bytes"]) - int(net0["total_net_output_bytes"])) / n,
            "mem": (int(mem1["used_memory"]) - int(mem0["used_memory"])) / n,
            "dataset": (int(mem1["used_memory_dataset"]) - int(mem0["used_memory_dataset"])) / n}


def curve(redis, front, batch):
    print("\n== 2. the curve: %d analyses of %d nodes (different positions) per point, 2k+2 clients in flight,"
          " workers --threads 1 --hash 16, %d cores" % (len(batch), NODES, os.cpu_count() or 1))
    points = []
    for k in KS:
        p = point(redis, front, k, batch)
        points.append(p)
        print("k=%d: %d jobs in %.1f s = %.2f jobs/s (p50 round trip %.0f ms); jobs taken per worker"
              " (warm-up included) %s; machine busy %.0f%%, others ~%.2f cores; load %s"
              % (k, p["jobs"], p["secs"], p["rate"], p["p50"], "/".join(p["per_worker"]), 100 * p["busy"], p["others"],
                 p["load"]), flush=True)
    base = points[0]["rate"]
    print("\n   k   jobs/s  speed-up  worker cores  others   CPU ms per job, idle rate taken off: front (loop)  workers"
          "  redis (main)  client    Redis cmds/job  usec/job")
    for p in points:
        print("  %2d  %7.2f   %5.2fx  %12.2f  %6.2f  %44.3f (%5.3f)  %7.1f  %5.3f (%5.3f)  %6.2f    %13.1f  %8.1f"
              % (p["k"], p["rate"], p["rate"] / base, p["rate"] * p["worker"], p["others"], p["front"] * 1000,
                 p["loop"] * 1000, p["worker"] * 1000, p["redis"] * 1000, p["redis_main"] * 1000, p["client"] * 1000,
                 p["cmds"], p["usec"]))
    print("  (worker cores: jobs/s x the workers' CPU per job, the cores the searches got; others: cores busy with"
          " processes not of this benchmark)")
    for p in points:
        top = sorted(p["stats"].items(), key=lambda x: -x[1][0])
        print("  k=%d Redis per job: %s; %.0f bytes in, %.0f bytes out, used_memory +%.0f bytes (dataset +%.0f)"
              % (p["k"], ", ".join("%s %.2f" % (c, v[0] / p["jobs"]) for c, v in top), p["in"], p["out"], p["mem"],
                 p["dataset"]))
        print("       idle (no job, %d workers waiting), CPU ms per s: front %.2f (loop %.2f), workers %.2f, redis %.2f"
              " (main %.2f); redis-server per job before taking idle off %.3f ms"
              % (p["k"], *(x * 1000 for x in p["idle"][:5]), p["gross_redis"] * 1000))
    return points, kept(redis)


def kept(redis):
    """What stays in Redis after the jobs, per job: [(what, bytes per job, TTL s or -1 for none)]. One
    result key per job counts the jobs (the warm-ups and part 1 included)."""
    groups = {}
    for key in redis.command("KEYS", "*") or []:  # this Redis is the benchmark's own
        groups.setdefault(key.rsplit(":", 1)[0] + ":*" if key.count(":") > 1 else key, []).append(key)
    jobs = max(1, len(groups.get("feelfish:job:*") or groups.get("feelfish:result:*", [])))  # one row per job
    out = []
    print("  Redis keeps after the points (%d jobs in all), by key:" % jobs)
    for prefix, keys in sorted(groups.items(), key=lambda g: -len(g[1])):
        if prefix == "feelfish:jobs":
            xlen = redis.command("XLEN", prefix)
            size = redis.command("MEMORY", "USAGE", prefix, "SAMPLES", "0") or 0
            print("    %-24s the stream: %d entries, %d bytes%s" % (prefix, xlen, size, (
                " (%.0f per entry: acknowledged entries stay)" % (size / xlen)) if xlen > 20 else
                " (acknowledged entries are deleted)"))
            if xlen > 20:
                out.append(("stream entries", size / jobs, -1))
            continue
        sizes = [redis.command("MEMORY", "USAGE", k) or 0 for k in keys[:20]]
        ttl = redis.command("TTL", keys[0])
        print("    %-24s %5d keys, ~%.0f bytes each, TTL %s s" % (prefix, len(keys), mean(sizes), ttl))
        if len(keys) > jobs // 2:
            out.append((prefix, len(keys) * mean(sizes) / jobs, ttl))
    return out


# ---- 3. redis-benchmark ----

def raw_redis(redis):
    print("\n== 3. raw Redis throughput here (redis-benchmark, 50 connections, no pipelining, 100000 each)")
    if not REDIS_BENCHMARK:
        print("redis-benchmark missing (apt-get install redis-tools): skipped")
        return {}
    size = max(JOB_BYTES) if JOB_BYTES else 4096  # a real job message's size, bytes
    payload = "x" * size
    sub = None
    if REDIS_CLI:  # one subscriber, as a front is for its events
        sub = subprocess.Popen([REDIS_CLI, "-p", str(redis.port), "SUBSCRIBE", "bench:events"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)
    out = {}
    try:
        for name, cmd in [("XADD", ["XADD", "bench:jobs", "MAXLEN", "~", "10000", "*", "id", "0123456789abcdef",
                                    "front", "0123456789abcdef", "job", payload]),
                          ("PUBLISH", ["PUBLISH", "bench:events", payload])]:
            r = subprocess.run([REDIS_BENCHMARK, "-p", str(redis.port), "-c", "50", "-n", "100000", "-q", "--csv", *cmd],
                               capture_output=True, text=True, timeout=120)
            m = re.findall(r'^"[^"]*","([\d.]+)"', r.stdout, re.M)
            if not m:
                print("%s: no figure (%s)" % (name, (r.stdout + r.stderr).strip()[:200]))
                continue
            out[name] = float(m[-1])
            print("%-8s %9.0f ops/s  (%d-byte value%s)" % (name, out[name], size,
                                                          ", one subscriber" if name == "PUBLISH" and sub else ""))
    finally:
        if sub:
            sub.terminate()
            sub.wait(5)
        redis.command("DEL", "bench:jobs")
    print("(redis-benchmark shares the 2 cores with redis-server: a Redis on a core of its own does more)")
    return out


def main():
    print("scaling: %s, %d cores, load average %s at start; ./feelfish built %s (run from a copy)"
          % (time.strftime("%Y-%m-%d %H:%M"), os.cpu_count() or 1, loadavg(), BUILT), flush=True)
    if len(set(FENS)) == 1:
        print("no %s/openings.epd: every analysis is of one position, and each worker's hash table helps it"
              % DATA)
    if not os.path.exists(REDIS):
        print("redis-server missing (apt-get install redis-server): skipped")
        return 0
    t_start = time.time()
    redis = Redis()
    front = None
    try:
        front = Server("--redis", redis.url, "--log-level", "warn")
        ov = overhead(redis, front)
        job_s = (ov["plain_ms"] if ov else 150) / 1000
        size = max(60, min(len(FENS) - 12, int(TARGET_S / job_s)))
        batch = FENS[:size]
        points, stays = curve(redis, front, batch)
        raw = raw_redis(redis)
        print("front: %s" % ("running" if front.running() else "DIED"))
        if not front.running():
            problem("the front died")
    finally:
        if front:
            rc, _ = front.stop()
            if rc != 0:
                problem("the front exited %s" % rc)
        redis.stop()

    # ---- the estimates ----
    print("\n== summary (load average %s at the end; %.0f s in all)" % (loadavg(), time.time() - t_start))
    base = points[0]
    top = max(points, key=lambda p: p["rate"])
    print("curve: " + ", ".join("k=%d %.2f jobs/s (x%.2f, others busy ~%.1f cores)"
                                % (p["k"], p["rate"], p["rate"] / base["rate"], p["others"]) for p in points))
    if ov:
        print("Redis overhead per job: mean %.2f ms, median %.2f ms on a %.0f ms job (%.1f%%)"
              % (ov["mean"], ov["median"], ov["plain_ms"], 100 * ov["mean"] / ov["plain_ms"]))
    busiest = top  # the most jobs per second: the idle share weighs least there

    def per_s(seconds):
        return 1 / seconds if seconds > 0 else float("inf")

    print("Redis per job (k=%d point): %.1f commands, %.1f usec in commands; redis-server CPU %.0f usec"
          " (main thread %.0f usec), idle rate taken off"
          % (busiest["k"], busiest["cmds"], busiest["usec"], busiest["redis"] * 1e6, busiest["redis_main"] * 1e6))
    est = ["one Redis (its main thread on one core; commands per job as measured here), at this job shape:",
           "  %8.0f jobs/s if only command time counted (1e6 / %.1f usec; a ceiling)"
           % (per_s(busiest["usec"] / 1e6), busiest["usec"]),
           "  %8.0f jobs/s from redis-server's main-thread CPU per job (1e6 / %.0f usec; I/O and event loop included,"
           " at this low rate: an estimate from below)" % (per_s(busiest["redis_main"]), busiest["redis_main"] * 1e6)]
    if raw:
        slow = min(raw.values())
        est.append("  %8.0f jobs/s from redis-benchmark (%.0f ops/s of the slower of XADD/PUBLISH / %.1f commands per job)"
                   % (slow / busiest["cmds"], slow, busiest["cmds"]))
    per_job = sum(b for _, b, _ in stays)
    held = sum(b * t for _, b, t in stays if t > 0)  # bytes x seconds per job: resident at 1 job/s
    est.append("  memory: %.0f bytes per job stay in Redis (%s): at 100 jobs/s %.1f GB resident once the TTLs"
               " turn over%s" % (per_job, ", ".join("%s %.0f B for %s" % (w, b, "%.0f h" % (t / 3600) if t > 0 else
                                                                          "ever") for w, b, t in stays),
                                 held * 100 / 1e9, "; plus %.1f GB per day that never expires" % (
                                     sum(b for _, b, t in stays if t <= 0) * 100 * 86400 / 1e9)
                                 if any(t <= 0 for _, _, t in stays) else ""))
    print("\n".join(est))
    worker_s = mean([p["worker"] for p in points])  # a search's CPU per job: what a worker on a core of its own takes
    print("one front: loop thread %.3f ms, whole process %.3f ms CPU per job (idle rate taken off) -> %.0f jobs/s"
          " on its loop thread; a worker's search takes %.0f ms CPU per job (k=1 wall time per job: %.0f ms)"
          % (busiest["loop"] * 1000, busiest["front"] * 1000, per_s(busiest["loop"]), worker_s * 1000,
             1000 / base["rate"]))
    print("  -> one front carries ~%.0f such workers (worker CPU per job / front loop CPU per job),"
          " ~%.0f if the whole front process must fit one core"
          % (worker_s * per_s(busiest["loop"]), worker_s * per_s(busiest["front"])))
    if problems:
        print("scaling: %d problem(s): %s" % (len(problems), "; ".join(problems)[:600]))
        return 1
    print("scaling: done, no problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
