#!/usr/bin/env python3
"""Server benchmarks (make bench): ratios and percentiles printed, no pass/fail on timing.
 1. wrk on GET /api/health vs nginx (one worker process, like our one loop thread) serving a static
    JSON file, same machine, same run: target ratio >= 0.8.
 2. POST /api/analyse at depth 1, sequential on one keep-alive connection: p50 round trip, target < 2 ms.
 3. 1,000 WebSocket clients each running a short analysis: latency from a worker publishing an
    info event to the client receiving it, p50/p99: target p99 < 20 ms.
 4. 10,000 idle WebSocket connections (fewer where the descriptor limit allows fewer: the count is
    printed): server RSS, target < 300 MB, and the memory one more idle connection costs (the RSS
    slope between half and all of them), toward 2 KB.
Every client runs on 127.0.0.1, so parts 3 and 4 start the server with --connections-per-ip 0 and
--connections-max above their count (its defaults, 256 per address, would refuse them).
`server.py --smoke` runs every part in seconds (no timing judged) and prints 'bench-server: N passed,
N failed': a part that does not run to its end fails; make test runs it, so the benchmark cannot break
unseen. Standard library only; wrk and nginx from Debian."""
import asyncio
import base64
import http.client
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc import rss_mb  # noqa: E402

FF = os.environ.get("FEELFISH", "./feelfish")
FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
DATA = os.environ.get("FEELFISH_DATA", "../shared/data")
try:
    with open(os.path.join(DATA, "openings.epd")) as f:
        OPENINGS = [" ".join(line.split()[:4]) for line in f if line.strip()]
except OSError:
    OPENINGS = [FEN]
TMP = tempfile.mkdtemp(prefix="feelfish-bench-")
SMOKE = "--smoke" in sys.argv


def raise_fd_limit(n=65536):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))


def start_server(*args):
    p = subprocess.Popen([FF, "serve", "--http", "0", "--ws", "0", "--bind", "127.0.0.1", "--log-level", "warn",
                          "--db", os.path.join(TMP, "b.db"), *args], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, preexec_fn=raise_fd_limit)
    w = p.stdout.readline().split()
    return p, int(w[2]), int(w[4])


def stop(p):
    p.terminate()
    p.wait(10)



def wrk(url, seconds=5, conns=50):
    seconds = 1 if SMOKE else seconds
    out = subprocess.run(["wrk", "-t1", "-c%d" % conns, "-d%ds" % seconds, "--latency", url],
                         capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+\w+)", out)
    return rps, p99.group(1) if p99 else "?"


def bench_wrk():
    print("== 1. GET /api/health vs nginx static JSON (wrk, 1 thread, 50 connections, 5 s each)")
    if not shutil.which("wrk") or not shutil.which("nginx"):
        raise RuntimeError("wrk or nginx missing (apt-get install wrk nginx-light; make deps-bench installs them)")
    root = os.path.join(TMP, "nginx")
    os.makedirs(os.path.join(root, "html"), exist_ok=True)
    with open(os.path.join(root, "html", "health.json"), "w") as f:
        f.write('{"status":"ok","version":"0.1.0","workers":{"busy":0,"total":2},"queue":{"depth":0,"capacity":64}}')
    port = 18780
    conf = os.path.join(root, "nginx.conf")
    with open(conf, "w") as f:
        f.write("worker_processes 1; pid %s/nginx.pid; error_log %s/error.log;\n"
                "events { worker_connections 4096; }\n"
                "http { access_log off; default_type application/json; keepalive_requests 100000;\n"
                "  client_body_temp_path %s; proxy_temp_path %s; fastcgi_temp_path %s; uwsgi_temp_path %s;"
                " scgi_temp_path %s;\n"
                "  server { listen 127.0.0.1:%d; root %s/html; } }\n" % ((root,) * 7 + (port, root)))
    ng = subprocess.Popen(["nginx", "-c", conf, "-g", "daemon off;"], stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    p, http_port, _ = start_server("--workers", "1")
    try:
        if not SMOKE:
            wrk("http://127.0.0.1:%d/health.json" % port, 1)  # warm-up
            wrk("http://127.0.0.1:%d/api/health" % http_port, 1)
        ngx, ngx_p99 = wrk("http://127.0.0.1:%d/health.json" % port)
        ff, ff_p99 = wrk("http://127.0.0.1:%d/api/health" % http_port)
    finally:
        stop(p)
        ng.terminate()
        ng.wait(5)
    print("nginx:    %9.0f requests/s  (p99 %s)" % (ngx, ngx_p99))
    print("feelfish: %9.0f requests/s  (p99 %s)" % (ff, ff_p99))
    print("ratio feelfish/nginx: %.2f (target >= 0.8)" % (ff / ngx))


def bench_analyse_depth1():
    print("\n== 2. POST /api/analyse at depth 1 (sequential, one keep-alive connection, 500 requests)")
    p, http_port, _ = start_server("--workers", "2")
    try:
        conn = http.client.HTTPConnection("127.0.0.1", http_port)
        body = json.dumps({"fen": FEN, "limits": {"depth": 1}})
        times = []
        for i in range(70 if SMOKE else 550):
            t0 = time.perf_counter()
            conn.request("POST", "/api/analyse", body, {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            if r.status != 200:
                raise RuntimeError("POST /api/analyse answered %d" % r.status)
            if i >= 50:
                times.append((time.perf_counter() - t0) * 1000)
        conn.close()
    finally:
        stop(p)
    times.sort()
    print("p50 %.3f ms, p90 %.3f ms, p99 %.3f ms (target p50 < 2 ms)" % (
        times[len(times) // 2], times[int(len(times) * 0.9)], times[int(len(times) * 0.99)]))


async def ws_open(port):
    r, w = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    key = base64.b64encode(os.urandom(16)).decode()
    w.write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (port, key)).encode())
    await w.drain()
    head = await r.readuntil(b"\r\n\r\n")
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise ConnectionError(head[:80])
    return r, w


def ws_frame(text):
    payload = text.encode()
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def ws_recv(r):
    b0, b1 = await r.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        n = int.from_bytes(await r.readexactly(2), "big")
    elif n == 127:
        n = int.from_bytes(await r.readexactly(8), "big")
    data = await r.readexactly(n)
    return (b0 & 0x0F), data


CLIENTS = int(os.environ.get("BENCH_CLIENTS", "50" if SMOKE else "1000"))
IDLE = int(os.environ.get("BENCH_IDLE", "300" if SMOKE else "10000"))


def one_address(count):
    """Every client of parts 3 and 4 is 127.0.0.1: no per-address cap, room for all of them."""
    return ["--connections-per-ip", "0", "--connections-max", str(count + 100)]


def idle_room():
    """The most idle WebSocket connections this machine allows: the server keeps HTTP and WebSocket
    each below half the descriptor limit less a reserve of 128 (serve.c:fit_descriptors), and this
    process holds one descriptor per client as well."""
    raise_fd_limit(1 << 20)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return max(16, min((soft - 128) // 2 - 100, soft - 200))


def bench_thousand():
    """The clients are tests/bench/ws_clients.c, one epoll loop in C: an asyncio client with 1,000
    sockets on the same two cores mostly measured its own backlog (p99 5-60 ms from run to run
    against the same server). Five runs per arrival pattern against one server (the first on a cold
    hash table); each run prints its own percentiles."""
    print("\n== 3. %d WebSocket clients, each a depth-7 analysis (2 workers, queue 2000)" % CLIENTS)
    raise_fd_limit()
    client = os.path.join(TMP, "ws_clients")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ws_clients.c")
    subprocess.run(["cc", "-O2", "-o", client, src], check=True)
    fens = os.path.join(DATA, "openings.epd")  # different positions: no answer straight from a warm table
    for mode, what in [("", "all connected first, then every analysis at once"),
                       ("together", "each analysis sent as soon as its own handshake is done")]:
        print("-- %s" % what)
        p, _, ws_port = start_server("--workers", "2", "--queue", "2000", "--hash", "16", *one_address(CLIENTS))
        p99s = []
        try:
            for run in range(1 if SMOKE else 5):
                out = subprocess.run([client, str(ws_port), str(CLIENTS), "7", fens] + ([mode] if mode else []),
                                     capture_output=True, text=True, timeout=120)
                f = out.stdout.split()
                if out.returncode or len(f) != 7 or int(f[0]) != CLIENTS:
                    raise RuntimeError("run %d failed: %s %s" % (run + 1, out.stdout.strip(), out.stderr.strip()[:200]))
                done, events, p50, p90, p99, mx, secs = int(f[0]), int(f[1]), *map(float, f[2:])
                p99s.append(p99)
                print("run %d: %d of %d analyses in %.1f s, %d info events; publish-to-receive p50 %.2f ms, "
                      "p99 %.2f ms, max %.2f ms" % (run + 1, done, CLIENTS, secs, events, p50, p99, mx))
        finally:
            stop(p)
        if p99s:
            print("median p99 over %d runs: %.2f ms (target p99 < 20 ms)" % (len(p99s), statistics.median(p99s)))


async def idle_connections(port, n):
    conns = []
    for start in range(0, n, 500):
        conns += await asyncio.gather(*(ws_open(port) for _ in range(min(500, n - start))))
    return conns


def bench_idle():
    room = idle_room()
    count = min(IDLE, room)
    print("\n== 4. %d idle WebSocket connections%s" % (
        count, "" if count == IDLE else " (%d asked; the descriptor limit %d allows %d)" % (
            IDLE, resource.getrlimit(resource.RLIMIT_NOFILE)[0], room)))
    p, _, ws_port = start_server("--workers", "2", "--hash", "16", *one_address(count))
    try:
        base = rss_mb(p.pid)

        async def run():
            # In two halves: the first connections reuse what the heap freed at start-up, so the
            # cost of one more connection is the slope between the halves, not RSS over the start.
            half = await idle_connections(ws_port, count // 2)
            await asyncio.sleep(1)
            mid = rss_mb(p.pid)
            conns = half + await idle_connections(ws_port, count - len(half))
            await asyncio.sleep(1)
            rss = rss_mb(p.pid)
            for _, w in conns:
                w.close()
            return len(half), mid, len(conns), rss

        h, mid, n, rss = asyncio.run(run())
    finally:
        stop(p)
    print("%d connections open: server RSS %.1f MB (%.1f MB before, %.1f MB at %d; target < 300 MB)" % (
        n, rss, base, mid, h))
    print("idle memory per connection: %.2f KB (the RSS slope from %d to %d connections; target toward 2 KB)" % (
        (rss - mid) * 1024 / max(n - h, 1), h, n))
    if n != count:
        raise RuntimeError("%d of %d connections opened" % (n, count))


if __name__ == "__main__":
    parts = [a for a in sys.argv[1:] if a != "--smoke"] or ["wrk", "analyse", "clients", "idle"]
    passed = failed = 0
    for name, fn in [("wrk", bench_wrk), ("analyse", bench_analyse_depth1), ("clients", bench_thousand),
                     ("idle", bench_idle)]:
        if name in parts:
            try:
                fn()
                passed += 1
            except Exception as e:  # a part that breaks is reported and the others still run
                print("FAIL part %s: %s: %s" % (name, type(e).__name__, e))
                failed += 1
    print("bench-server: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
