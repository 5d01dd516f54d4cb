"""A real redis-server for the cluster's tests and benchmarks: Debian's, on a free loopback port, AOF
on (appendfsync always, as feelfish's compose file runs it), in a temporary folder of its own; it
can be stopped and started again on the same port and folder (a Redis restart). `command` speaks
RESP on a connection of its own (no client library needed). And `feelfish worker` as a process
(Worker), with its log and its /metrics."""
import http.client
import os
import shutil
import signal
import socket
import subprocess

import harness
from harness import ROOT, tmpdir, wait_port
from wsclient import free_port

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"


class Redis:
    def __init__(self):
        self.dir = tmpdir("feelfish-redis-")
        self.port = free_port()
        self.proc = None
        self.start()

    def start(self, *extra):
        """extra: more redis-server flags (e.g. a slow load: --key-load-delay)."""
        self.proc = subprocess.Popen([REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                                      "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                                      "--protected-mode", "yes", *extra],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port, "redis-server")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @property
    def url(self):
        return "redis://127.0.0.1:%d/0" % self.port

    def command(self, *args):
        """One command on a connection of its own; the reply (bulk strings decoded)."""
        with socket.create_connection(("127.0.0.1", self.port), 5) as s:
            s.sendall(("*%d\r\n" % len(args)).encode()
                      + b"".join(b"$%d\r\n%s\r\n" % (len(a.encode()), a.encode()) for a in args))
            return _reply(s.makefile("rb"))

    def info(self, section):
        """INFO SECTION as a dict of its 'name:value' lines."""
        return dict(line.split(":", 1) for line in self.command("INFO", section).splitlines() if ":" in line)


class Worker:
    """`feelfish worker --redis url --threads 1 --hash 16 --metrics 0 [extra...]` (harness.FF as it is
    when started); its stderr in a file."""

    def __init__(self, url, name="", *extra):
        self.dir = tmpdir("feelfish-worker-")
        self.log = os.path.join(self.dir, "stderr.log")
        self.name = name
        with open(self.log, "w") as err:
            self.proc = subprocess.Popen([harness.FF, "worker", "--redis", url, "--threads", "1", "--hash", "16",
                                          "--metrics", "0", *extra], cwd=ROOT, stdout=subprocess.PIPE, stderr=err,
                                         text=True)
        line = self.proc.stdout.readline()  # "metrics http PORT"
        self.metrics_port = int(line.split()[2]) if line.startswith("metrics http ") else None

    def metrics(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.metrics_port, timeout=10)
        conn.request("GET", "/metrics")
        resp = conn.getresponse()
        return resp.status, resp.read().decode()

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


def _reply(f):
    head = f.readline().decode().rstrip("\r\n")
    kind, rest = head[:1], head[1:]
    if kind in "+-":
        return rest
    if kind == ":":
        return int(rest)
    if kind == "$":
        n = int(rest)
        return None if n < 0 else f.read(n + 2)[:n].decode("latin-1")  # one char per byte
    if kind == "*":
        n = int(rest)
        return None if n < 0 else [_reply(f) for _ in range(n)]
    raise RuntimeError("Redis said " + head)
