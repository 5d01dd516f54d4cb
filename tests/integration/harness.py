"""What every integration test script shares: the server under test on free ports with its own
temporary database, a request helper, error_code, the check counter, and the runner that lets each
check run alone.

A test file builds a Suite and registers its checks; each registered function sets up what it
needs itself (its own game, job, connection, or server), so it can run alone or in any order:

    python3 tests/integration/test_games.py                  # every check of the file
    python3 tests/integration/test_games.py game_pgn 'takeback_*'   # only these (names or globs)
    python3 tests/integration/test_games.py --list           # the check names

A file may share one server among its checks (suite.server(), started on first use) as long as no
check depends on what another did to it; checks that need a fresh model, idle workers or a restart
start their own (Server(...), restart()). After the checks, every server the file started has been
stopped with SIGTERM, and one more check, servers_exit_clean, says whether each exited 0 with no
sanitizer report on its stderr (under the ASan build that is where leaks show). The file ends with
'AREA: N passed, N failed' and exits 1 if anything failed."""
import atexit
import fnmatch
import http.client
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

import contract
import wsclient


def judge_frames(on):
    """Every WebSocket frame a test receives, and every op it sends, is judged by the contract too;
    judge_frames(False) for a benchmark, whose latencies would count the 0.3-0.5 ms it takes a frame."""
    wsclient.check_frame, wsclient.check_op = (contract.check_frame, contract.check_op) if on else (None, None)


judge_frames(True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FF = os.path.abspath(os.environ.get("FEELFISH", os.path.join(ROOT, "feelfish")))
DATA = os.environ.get("FEELFISH_DATA", os.path.join(ROOT, "..", "shared", "data"))
FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"

counts = {"passed": 0, "failed": 0}
emitted = []  # every check name reported, in order


def check(name, cond, detail=""):
    emitted.append(name)
    if cond:
        counts["passed"] += 1
        print("ok   " + name, flush=True)
    else:
        counts["failed"] += 1
        print("FAIL " + name + ("\n    " + str(detail)[:600] if detail else ""), flush=True)


def report(name, cond, figures, width=900):
    """check(), with the figures printed whatever the outcome."""
    print("    %s: %s" % (name, json.dumps(figures, default=repr)[:width]), flush=True)
    check(name, cond, figures)


def raise_nofile():
    """The soft descriptor limit raised to the hard one (floods of connections); the limit now."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def connect(port, source=None, timeout=5):
    """A raw TCP connection to the server's port, from the loopback address `source` if given."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if source:
        sock.bind((source, 0))
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    return sock


def wait_port(port, what, tries=100):
    """Until something accepts connections on 127.0.0.1:port (5 s); RuntimeError naming `what` if not."""
    for _ in range(tries):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(what + " did not start")


def summary(runner):
    """Prints 'RUNNER: N passed, N failed' and returns the exit code."""
    print("%s: %d passed, %d failed" % (runner, counts["passed"], counts["failed"]), flush=True)
    return 1 if counts["failed"] else 0


_tmpdirs = []


def tmpdir(prefix="feelfish-test-"):
    """A temporary folder, removed when the script ends."""
    d = tempfile.mkdtemp(prefix=prefix)
    _tmpdirs.append(d)
    return d


SERVERS = []  # every Server started by this script, for servers_exit_clean
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "WARNING: ThreadSanitizer")


class Server:
    """`feelfish serve` on free ports (HTTP and WebSocket) with a database of its own, unless db names
    one (a restart: restart() starts a new server on this one's database)."""

    def __init__(self, *args, db=None, env=None):
        self.dir = tmpdir("feelfish-server-")
        self.db = db or os.path.join(self.dir, "data", "test.db")
        self.args = args
        self.stderr_path = os.path.join(self.dir, "stderr.log")
        self.result = None  # (exit code, seconds) once stopped
        with open(self.stderr_path, "w") as err:
            self.proc = subprocess.Popen([FF, "serve", "--http", "0", "--ws", "0", "--bind", "127.0.0.1",
                                          "--hash", "16", "--db", self.db, *args], cwd=ROOT, env=env,
                                         stdout=subprocess.PIPE, stderr=err, text=True)
        SERVERS.append(self)
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        line = self.proc.stdout.readline() if ready else ""
        if not line.startswith("listening http "):
            self.proc.kill()
            self.proc.wait()
            self.result = (None, 0)
            raise RuntimeError("server did not start: " + line + self.stderr()[-2000:])
        words = line.split()  # "listening http PORT ws PORT"
        self.port, self.ws_port = int(words[2]), int(words[4])

    def stderr(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read()

    def request(self, method, path, body=None, headers=None, timeout=30, source=None, token=None):
        """(status, parsed JSON body or text, response); a dict or list body goes as JSON; from the
        loopback address `source` (127.0.0.2, ...) and with `Authorization: Bearer token` if given.
        Every answer under /api/ is checked against the contract, server/api/openapi.json
        (contract.check_answer): one it does not describe raises AssertionError; so does a body the
        server took (2xx) that the contract's request schema refuses (contract.check_request)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(source, 0) if source else None)
        hdrs = dict(headers or {})
        if token:
            hdrs["Authorization"] = "Bearer " + token
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            hdrs.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode(errors="replace")
        contract.check_answer(method, path, resp.status, parsed, resp.getheader("Content-Type"))
        contract.check_request(method, path, resp.status, body)
        return resp.status, parsed, resp

    def health(self):
        return self.request("GET", "/api/health")[1]

    def running(self):
        return self.result is None and self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=5):
        """Signals the server and waits for it: (exit code or None if it had to be killed, seconds)."""
        if self.result is not None:
            return self.result
        t0 = time.time()
        try:
            self.proc.send_signal(sig)
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = None
        self.result = (rc, time.time() - t0)
        self.proc.stdout.close()
        return self.result

    def restart(self, *args):
        """Stops this server (if running) and starts a new one on the same database."""
        self.stop()
        return Server(*args, db=self.db)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def error_code(result):
    """The error code of a (status, body, response) answer, or None (no JSON error object)."""
    err = result[1].get("error") if isinstance(result[1], dict) else None
    return err.get("code") if isinstance(err, dict) else None


def poll(fetch, done, tries=100, delay=0.05):
    """Calls fetch() until done(value) or tries run out; returns the last value."""
    value = None
    for _ in range(tries):
        value = fetch()
        if done(value):
            break
        time.sleep(delay)
    return value


def raw_post(port, path, body):
    """Sends a JSON POST on a plain socket without reading the answer; returns the socket."""
    sock = socket.create_connection(("127.0.0.1", port))
    payload = json.dumps(body).encode()
    sock.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    return sock


def _cleanup():
    for s in SERVERS:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
    for d in _tmpdirs:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)


class Suite:
    """The checks of one test file. Register a function with @suite.test() (its check name is the
    function's name), @suite.test("name", ...) when it reports other or several names, or
    suite.add(names, function, *args) for one function over many cases. A function reports each of
    its names with check(); one that raises reports its names not reached as failed, and the next
    check runs."""

    def __init__(self, area, server=None):
        self.area = area
        self.make_server = server or (lambda: Server())
        self.tests = []  # (function, [check names], args)
        self._shared = None

    def test(self, *names):
        def register(fn):
            self.add(list(names) or [fn.__name__], fn)
            return fn
        return register

    def add(self, names, fn, *args):
        if isinstance(names, str):
            names = [names]
        known = {n for _, ns, _ in self.tests for n in ns}
        assert not known & set(names), "check names must be unique: %s" % (known & set(names))
        self.tests.append((fn, list(names), args))

    def server(self):
        """The server this file's checks share, started on first use."""
        if self._shared is None:
            self._shared = self.make_server()
        return self._shared

    def names(self):
        return [n for _, ns, _ in self.tests for n in ns]

    def _select(self, patterns):
        chosen, unknown = [], []
        for p in patterns:
            if not any(n == p or fnmatch.fnmatchcase(n, p) for n in self.names()):
                unknown.append(p)
        for t in self.tests:
            if not patterns or any(n == p or fnmatch.fnmatchcase(n, p) for n in t[1] for p in patterns):
                chosen.append(t)
        return chosen, unknown

    def main(self, argv=None):
        argv = sys.argv[1:] if argv is None else argv
        if argv and argv[0] in ("-h", "--help"):
            print("usage: %s [--list] [CHECK_NAME_OR_GLOB...]" % os.path.basename(sys.argv[0]))
            return 0
        if argv and argv[0] == "--list":
            print("\n".join(self.names()))
            return 0
        chosen, unknown = self._select(argv)
        if unknown:
            print("%s: no check named %s (see --list)" % (self.area, ", ".join(repr(u) for u in unknown)),
                  file=sys.stderr)
            return 2
        try:
            for fn, names, args in chosen:
                start = len(emitted)
                try:
                    fn(*args)
                except Exception as e:  # noqa: BLE001 -- the check fails, the file goes on
                    traceback.print_exc(file=sys.stdout)
                    problem = "raised %s: %s" % (type(e).__name__, e)
                else:
                    problem = "not reported"
                done = emitted[start:]
                for n in done:
                    if n not in names:
                        check(n + " (not a registered name)", False, "register it with the suite")
                for n in names:
                    if n not in done:
                        check(n, False, problem)
        finally:
            if self._shared is not None:
                self._shared.stop()
            for s in SERVERS:
                s.stop()
        bad = []
        for s in SERVERS:
            rc, secs = s.result
            report = [line for line in s.stderr().splitlines() if any(m in line for m in SANITIZER_MARKS)]
            if rc != 0 or report:
                bad.append({"args": " ".join(s.args), "exit": rc, "seconds": round(secs, 2),
                            "sanitizer": report[:3], "stderr": s.stderr()[-300:]})
        check("servers_exit_clean", not bad, bad)
        return summary(self.area)
