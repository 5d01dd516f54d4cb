"""A real redis-server for the cluster's tests and benchmarks: Debian's, on a free loopback port, AOF
on (appendfsync always, as feelfish's compose file runs it), in a temporary folder of its own; it
can be stopped and started again on the same port and folder (a Redis restart). `command` speaks
RESP on a connection of its own (no client library needed)."""
import shutil
import socket
import subprocess
import time

from harness import tmpdir
from wsclient import free_port

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"


class Redis:
    def __init__(self):
        self.dir = tmpdir("feelfish-redis-")
        self.port = free_port()
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen([REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                                      "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                                      "--protected-mode", "yes"],
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
