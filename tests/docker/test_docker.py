#!/usr/bin/env python3
"""make test-docker: the Dockerfile, docker/nginx.Dockerfile, docker/redis.Dockerfile and
docker/compose.yaml (the cluster: Redis, two fronts, two search workers, nginx), for real, with podman
(rootful; as root on a Debian machine).

1. Installs what is missing (podman, buildah, runc, podman-compose, debootstrap, ...).
2. Points podman at a containers.conf of its own (CONTAINERS_CONF, in a temporary folder): the runc
   runtime, and default ulimits no higher than this process's hard limits (podman would otherwise
   ask for more than root may have here, and the container would not start).
3. Makes the Debian base image localhost/debian:bookworm-slim if it is not there (no registry is
   needed): debootstrap --variant=minbase from the Debian mirror apt is configured with, then
   `podman import`.
4. Builds the three images with podman-compose (BASE from the compose file; docker format, so the
   HEALTHCHECKs are kept; no layer cache, so nothing is left behind), brings the stack up under a
   project name of its own, on a free local port, and checks it through nginx: health, the page,
   /api/config's wsUrl, an analysis, the Origin check, a WebSocket stream on /ws, requests reaching
   both fronts (nginx's log: the upstream address), Redis's AOF settings, the non-root users, the
   data volumes, the HEALTHCHECKs, a search worker killed (SIGKILL) mid-search and the analysis
   finished by the other worker, and a finished job kept across a restart of the fronts (the data
   volumes; nginx follows the fronts' new addresses); a game played through nginx, its moves reaching
   both fronts.
5. Tears everything down: containers (with their anonymous volumes), the project's volumes and
   network, the images it built, and the base image if it made it (unless --keep-base, or
   FEELFISH_DOCKER_KEEP_BASE=1: then the next run starts from it).

One line per check ('ok   name' or 'FAIL name' and why), the timings, then
'docker: N passed, N failed'; exit 1 if anything failed. Logs: build/test-docker/.

    python3 tests/docker/test_docker.py [--keep-base] [--up-after FILE] [--install-only]

--up-after FILE: installs, makes the base and builds the images at once (at whatever priority it was
started with), then waits for FILE to exist before it starts the stack and checks it at normal
priority (.ci/run: the build runs beside `make test`, the checks after it). --install-only: installs
what is missing and ends (.ci/run: one apt at a time).

Environment: FEELFISH_BUILD_CA, a CA bundle for npm inside the build (default: this machine's,
/etc/ssl/certs/ca-certificates.crt; passed as a build secret, not kept in the image)."""
import glob
import http.client
import json
import re
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from wsclient import WebSocket, free_port  # noqa: E402  (the tests' one WebSocket client)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPOSE = os.path.join(ROOT, "docker", "compose.yaml")
LOGS = os.path.join(ROOT, "build", "test-docker")
BASE = "localhost/debian:bookworm-slim"
SUITE = "bookworm"
FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
FRONTS = ("front-1", "front-2")
WORKERS = ("worker-1", "worker-2")
SERVICES = ("redis",) + FRONTS + WORKERS + ("nginx",)
PACKAGES = ["podman", "buildah", "runc", "podman-compose", "debootstrap", "fuse-overlayfs", "slirp4netns",
            "uidmap", "containernetworking-plugins", "netavark", "aardvark-dns", "iptables"]

counts = {"passed": 0, "failed": 0}
T0 = time.monotonic()


def analysis_ended(m):
    """What ends a WebSocket analysis: its bestmove, or an error frame."""
    return m.get("type") in ("bestmove", "error")


def check(name, cond, detail=""):
    if cond:
        counts["passed"] += 1
        print("ok   " + name, flush=True)
    else:
        counts["failed"] += 1
        print("FAIL " + name + ("\n    " + str(detail).strip().replace("\n", "\n    ")[-1500:] if detail else ""),
              flush=True)
    return bool(cond)


def note(text):
    print("     " + text, flush=True)


def log_path(name):
    return os.path.join(LOGS, name)


def run(cmd, log=None, timeout=600, env=None):
    """Runs cmd (a list) in a process group of its own; returns (exit code, output). With log, the
    output goes to that file too. Interrupted (a signal, the timeout), the whole group is stopped:
    podman-compose's podman build with it."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                             start_new_session=True)
    except OSError as e:
        return 127, str(e)
    try:
        out, rc = p.communicate(timeout=timeout)[0].decode(errors="replace"), p.returncode
    except BaseException as e:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
                p.wait(timeout=15)
                break
            except (OSError, subprocess.TimeoutExpired):
                continue
        if not isinstance(e, subprocess.TimeoutExpired):
            raise
        out, rc = "(timed out after %d s)" % timeout, 124
    if log:
        with open(log_path(log), "a") as f:
            f.write("$ %s\n%s\n(exit %d)\n" % (" ".join(shlex.quote(c) for c in cmd), out, rc))
    return rc, out


def tail(text, lines=25):
    return "\n".join(text.strip().splitlines()[-lines:])


# ---------------------------------------------------------------------------------------------
# Setting up: packages, podman's configuration, the base image.

def install_missing():
    missing = [p for p in PACKAGES if run(["dpkg", "-s", p], timeout=30)[0]]
    if not missing:
        return True, ""
    if os.geteuid():
        return False, "missing Debian packages: %s (run as root, or install them)" % " ".join(missing)
    note("installing: " + " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends"] + missing
    rc, out = run(cmd, log="apt.log", env=env)
    if rc:  # stale package lists: update once, then again
        run(["apt-get", "update", "-q"], log="apt.log", env=env)
        rc, out = run(cmd, log="apt.log", env=env)
    return rc == 0, tail(out)


def podman_conf(tmp):
    """A containers.conf for this run: runc (crun fails on this host's hybrid cgroups) and ulimits
    within this process's hard limits (root may not raise them here)."""
    def cap(kind, want):
        hard = resource.getrlimit(kind)[1]
        return want if hard == resource.RLIM_INFINITY else min(want, hard)
    nofile, nproc = cap(resource.RLIMIT_NOFILE, 20000), cap(resource.RLIMIT_NPROC, 32768)
    path = os.path.join(tmp, "containers.conf")
    with open(path, "w") as f:
        f.write('[containers]\ndefault_ulimits = ["nofile=%d:%d", "nproc=%d:%d"]\n\n[engine]\nruntime = "runc"\n'
                % (nofile, nofile, nproc, nproc))
    return path


def apt_sources():
    """(URI, suites, components) of every enabled `deb` source of apt's configuration."""
    found = []
    files = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
    for path in files:
        try:
            lines = open(path).read().splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.split("#", 1)[0].split()
            if len(words) >= 3 and words[0] == "deb":
                words = [w for w in words[1:] if not w.startswith("[")]  # options: [signed-by=...]
                if len(words) >= 2:
                    found.append((words[0], [words[1]], words[2:]))
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        try:
            text = open(path).read()
        except OSError:
            continue
        for stanza in text.split("\n\n"):
            fields = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line or line[:1].isspace():
                    continue
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.strip()
            if "deb" in fields.get("types", "").split() and fields.get("enabled", "yes").lower() != "no":
                for uri in fields.get("uris", "").split():
                    found.append((uri, fields.get("suites", "").split(), fields.get("components", "main").split()))
    return found


def debian_mirrors():
    """The Debian mirror for SUITE and its security archive, as apt is configured here."""
    sources = apt_sources()
    mirror = next((u for u, suites, _ in sources if SUITE in suites), None)
    security = next((u for u, suites, _ in sources if SUITE + "-security" in suites), None)
    return mirror or "http://deb.debian.org/debian", security


def make_base(tmp):
    mirror, security = debian_mirrors()
    note("making %s: debootstrap --variant=minbase %s from %s" % (BASE, SUITE, mirror))
    rootfs = os.path.join(tmp, "rootfs")
    rc, out = run(["debootstrap", "--variant=minbase", SUITE, rootfs, mirror], log="base.log", timeout=900)
    if rc:
        return False, tail(out)
    # apt inside: the suite, its updates and its security archive; no package cache nor lists.
    with open(os.path.join(rootfs, "etc/apt/sources.list"), "w") as f:
        f.write("deb %s %s main\ndeb %s %s-updates main\n" % (mirror, SUITE, mirror, SUITE))
        if security:
            f.write("deb %s %s-security main\n" % (security, SUITE))
    for pattern in ("var/cache/apt/archives/*.deb", "var/cache/apt/*.bin", "var/lib/apt/lists/*"):
        for path in glob.glob(os.path.join(rootfs, pattern)):
            if os.path.isfile(path):
                os.unlink(path)
    tar = subprocess.Popen(["tar", "-C", rootfs, "-c", "."], stdout=subprocess.PIPE)
    imp = subprocess.run(["podman", "import", "--change", 'CMD ["/bin/bash"]', "-", BASE], stdin=tar.stdout,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    tar.stdout.close()
    tar.wait()
    shutil.rmtree(rootfs, ignore_errors=True)
    return imp.returncode == 0 and tar.returncode == 0, imp.stdout.decode(errors="replace")


# ---------------------------------------------------------------------------------------------
# Talking to the stack through nginx.

def request(port, method, path, body=None, headers=None, timeout=60):
    """(status, parsed JSON or text, response headers); status 0 when the connection failed."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        h = {"Host": "127.0.0.1:%d" % port}
        if body is not None:
            body = json.dumps(body)
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read().decode(errors="replace")
        c.close()
        try:
            return r.status, json.loads(data), dict(r.getheaders())
        except ValueError:
            return r.status, data, dict(r.getheaders())
    except (OSError, http.client.HTTPException) as e:
        return 0, str(e), {}


def wait_health(port, seconds):
    deadline = time.monotonic() + seconds
    status, body = 0, None
    while time.monotonic() < deadline:
        status, body, _ = request(port, "GET", "/api/health", timeout=10)
        if status == 200:
            break
        time.sleep(0.5)
    return status, body


# ---------------------------------------------------------------------------------------------

class Stack:
    """The compose project of this run: its commands, containers, and teardown."""

    def __init__(self, port):
        run_id = "%d%04d" % (os.getpid(), int(time.time()) % 10000)
        self.project = "feelfishtest%s" % run_id
        self.images = ["localhost/feelfish-test%s:latest" % run_id, "localhost/feelfish-nginx-test%s:latest" % run_id,
                       "localhost/feelfish-redis-test%s:latest" % run_id]
        self.port = port
        self.env = dict(os.environ, BASE=BASE, FEELFISH_IMAGE=self.images[0], NGINX_IMAGE=self.images[1],
                        REDIS_IMAGE=self.images[2], FEELFISH_PORT="127.0.0.1:%d" % port, BUILDAH_FORMAT="docker")

    def compose(self, *args, log="compose.log", timeout=600, global_args=()):
        cmd = ["podman-compose", "-p", self.project, "-f", COMPOSE, *global_args, *args]
        return run(cmd, log=log, timeout=timeout, env=self.env)

    def container(self, service):
        rc, out = run(["podman", "ps", "-a", "--format", "{{.Names}}",
                       "--filter", "label=io.podman.compose.project=" + self.project,
                       "--filter", "label=com.docker.compose.service=" + service])
        names = out.split()
        return names[0] if rc == 0 and names else None

    def labelled(self, kind):
        """The project's containers, volumes or networks (podman-compose labels them)."""
        label = "label=io.podman.compose.project=" + self.project
        if kind == "container":
            cmd = ["podman", "ps", "-a", "--filter", label, "--format", "{{.Names}}"]
        elif kind == "volume":
            cmd = ["podman", "volume", "ls", "--filter", label, "--format", "{{.Name}}"]
        else:
            cmd = ["podman", "network", "ls", "--filter", label, "--format", "{{.Name}}"]
        rc, out = run(cmd)
        return out.split() if rc == 0 else []

    def logs(self, service):
        name = self.container(service)
        return run(["podman", "logs", name])[1] if name else ""

    def down(self):
        # The containers first, with their anonymous volumes (podman-compose's down removes neither
        # an image's VOLUME it did not mount nor anything of a container it did not create), then
        # the project's named volumes and network.
        names = self.labelled("container")
        if names:
            run(["podman", "rm", "-f", "-v", "-t", "3"] + names, log="teardown.log", timeout=120)
        self.compose("down", "-v", "-t", "3", log="teardown.log", timeout=180)
        for name in self.labelled("container"):
            run(["podman", "rm", "-f", "-v", "-t", "2", name], log="teardown.log")
        run(["podman", "pod", "rm", "-f", "pod_" + self.project], log="teardown.log")
        for name in self.labelled("volume"):
            run(["podman", "volume", "rm", "-f", name], log="teardown.log")
        for name in self.labelled("network"):
            run(["podman", "network", "rm", "-f", name], log="teardown.log")
        for image in self.images:
            if run(["podman", "image", "exists", image])[0] == 0:
                run(["podman", "rmi", "-f", image], log="teardown.log")


def buildah_containers():
    rc, out = run(["buildah", "containers", "-q", "--notruncate"])
    return set(out.split()) if rc == 0 else set()


def volume_names():
    """Every volume, anonymous ones (an image's VOLUME) included: those carry no project label."""
    rc, out = run(["podman", "volume", "ls", "-q"])
    return set(out.split()) if rc == 0 else set()


def image_ids():
    rc, out = run(["podman", "images", "-a", "-q", "--no-trunc"])
    return {i.split(":")[-1] for i in out.split()} if rc == 0 else set()


def address(container):
    """The container's address on the project's network."""
    rc, out = run(["podman", "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}",
                   container]) if container else (1, "")
    return out.split()[0] if rc == 0 and out.split() else None


def upstreams_seen(stack, agent):
    """The upstream addresses nginx's access log shows for the requests sent with this User-Agent."""
    seen = set()
    for line in stack.logs("nginx").splitlines():
        if '"%s"' % agent in line:
            seen.update(re.findall(r"(\d+\.\d+\.\d+\.\d+):8080", line))
    return seen


def reaches_both_fronts(stack, agent, count=8):
    """count GET /api/health through nginx (User-Agent agent); (ok, detail): every front's address is
    among the upstreams nginx used."""
    statuses = [request(stack.port, "GET", "/api/health", headers={"User-Agent": agent})[0] for _ in range(count)]
    time.sleep(0.5)  # nginx writes its access log line after the answer
    fronts = {f: address(stack.container(f)) for f in FRONTS}
    seen = upstreams_seen(stack, agent)
    return (all(s == 200 for s in statuses) and all(fronts.values()) and set(fronts.values()) <= seen,
            "answers %s; fronts %s; upstreams nginx used %s" % (statuses, fronts, sorted(seen)))


def check_client_address(stack):
    """The fronts trust nginx (compose.yaml's --trusted-proxies): the client a front logs is the address
    nginx saw, not nginx's own, and an X-Forwarded-For the client forges changes nothing."""
    agent = "feelfish-test-address-%d" % int(time.monotonic() * 1000)
    statuses = [request(stack.port, "GET", "/api/jobs/0123456789abcdef",
                        headers={"User-Agent": agent, "X-Forwarded-For": "6.6.6.6"})[0] for _ in range(4)]
    time.sleep(0.5)
    seen = {}  # nginx's request id -> the client address nginx saw
    for line in stack.logs("nginx").splitlines():
        m = re.match(r"(\S+) .*\"%s\" id=(\w+)" % re.escape(agent), line)
        if m:
            seen[m.group(2)] = m.group(1)
    logged = {}  # the same ids -> the client the fronts logged
    for front in FRONTS:
        for line in stack.logs(front).splitlines():
            words = line.split()
            if " access " in line and len(words) >= 2 and words[-2] in seen:
                logged[words[-2]] = words[-1]
    nginx_address = address(stack.container("nginx"))
    check("client_address_through_nginx",
          all(s == 404 for s in statuses) and len(seen) == 4 and logged == seen
          and nginx_address not in logged.values() and "6.6.6.6" not in logged.values(),
          "answers %s; nginx saw %s; the fronts logged %s; nginx is %s"
          % (statuses, sorted(set(seen.values())), sorted(set(logged.values())), nginx_address))


def started_lines(text):
    return len(re.findall(r"worker: job \S+ started", text))


def check_worker_killed(stack):
    """A search on one worker, that worker killed (SIGKILL) mid-search: the other takes the job over
    after --reclaim-ms (3 s in compose.yaml) and the client's WebSocket still gets its bestmove."""
    port, own = stack.port, "http://127.0.0.1:%d" % stack.port
    before = {w: started_lines(stack.logs(w)) for w in WORKERS}
    detail, best, killed, other, t_kill, t_best, t_taken = "", None, None, None, None, None, None
    try:
        ws = WebSocket(port, path="/ws", headers={"Origin": own}, timeout=20)
        ws.send({"op": "analyse", "id": "long", "fen": FEN, "limits": {"movetime": 5000}})
        first, _ = ws.until(lambda m: m.get("type") in ("info", "bestmove", "error"), timeout=30)
        if not first or first.get("type") != "info":
            detail = "no info frame before the kill: %s" % str(first)[:200]
        else:
            deadline = time.monotonic() + 10  # the worker's log line may come a moment after its first info
            while time.monotonic() < deadline and not killed:
                runs = [w for w in WORKERS if started_lines(stack.logs(w)) > before[w]]
                if len(runs) == 1:
                    killed = runs[0]
                elif runs:
                    detail = "both workers started a job: %s" % runs
                    break
                else:
                    time.sleep(0.2)
        if killed:
            other = next(w for w in WORKERS if w != killed)
            name = stack.container(killed)
            t_kill = time.monotonic()
            rc, out = run(["podman", "kill", "-s", "KILL", name], log="kill.log")
            # Kept down (its restart policy would bring it back, a new process that could race the
            # other worker for the entry): the job must be finished by the other worker.
            run(["podman", "stop", "-t", "0", name], log="kill.log")
            if rc:
                detail = "podman kill %s: exit %d %s" % (name, rc, out.strip())
            else:
                end, _ = ws.until(analysis_ended, timeout=t_kill + 45 - time.monotonic())
                if not end:
                    detail = "the WebSocket closed, or nothing for %.0f s" % (time.monotonic() - t_kill)
                elif end["type"] == "error":
                    detail = "error frame: %s" % end
                else:
                    best, t_best = end, time.monotonic()
        ws.close()
    except (OSError, ValueError) as e:
        detail = "%s: %s" % (type(e).__name__, e)
    taken_over = None
    if other:
        log = stack.logs(other)
        taken_over = "taking over entry" in log and started_lines(log) > before[other]
    ok = bool(killed and best and best.get("status") == "done" and best.get("bestMove") and taken_over)
    if t_best:
        note("recovery: %s killed (SIGKILL) mid-search, %s took the job over and its bestmove came %.1f s after "
             "the kill (--reclaim-ms 3000, then the 5 s search run again)" % (killed, other, t_best - t_kill))
    check("worker_killed_job_finished_by_other", ok,
          "%s; killed %s; the other's log shows the takeover: %s; bestmove %s" %
          (detail, killed, taken_over, str(best)[:200]))


def game_through_nginx(stack):
    """A game begun through nginx, then moves through nginx. nginx sends each request to the next
    front, so the moves reach both fronts: the game plays on because the fronts share games (in
    Redis)."""
    port = stack.port
    fronts = {address(stack.container(f)): f for f in FRONTS}
    status, game, _ = request(port, "POST", "/api/games", {"mode": "classical", "color": "white", "level": 1},
                              headers={"User-Agent": "feelfish-test-game-0"})
    if status not in (200, 201) or not isinstance(game, dict) or "fullId" not in game:
        check("game_through_nginx_across_fronts", False, "not created: %s %s" % (status, str(game)[:200]))
        return
    answers, plies = [], 0
    for i, mv in enumerate(("a2a3", "h2h3", "b2b3", "g2g3"), 1):
        s, b, _ = request(port, "POST", "/api/games/%s/moves" % game["fullId"], {"move": mv},
                          headers={"User-Agent": "feelfish-test-game-%d" % i})
        answers.append((mv, s, b.get("code") if isinstance(b, dict) else None))
        plies = len(b.get("moves", [])) if isinstance(b, dict) else plies
    time.sleep(0.5)
    where = [",".join(fronts.get(a, a) for a in upstreams_seen(stack, "feelfish-test-game-%d" % i)) or "?"
             for i in range(5)]
    detail = "created on %s; moves: %s; %d plies after the last" % (
        where[0], ", ".join("%s on %s: %s" % (mv, where[i], "ok" if s == 200 else "%s %s" % (s, code))
                            for i, (mv, s, code) in enumerate(answers, 1)), plies)
    note("game through nginx: " + detail)
    check("game_through_nginx_across_fronts", all(s == 200 for _, s, _ in answers) and plies == 8
          and len(set(where)) >= 2, detail)


def checks(stack):
    port = stack.port
    status, body = wait_health(port, 90)
    check("health_via_nginx", status == 200 and isinstance(body, dict) and body.get("status") == "ok",
          "GET /api/health through nginx: %s %s" % (status, body))

    # Both fronts answer through nginx (nginx may take a moment to see a front that came up later).
    deadline, ok = time.monotonic() + 20, False
    while not ok and time.monotonic() < deadline:
        ok, detail = reaches_both_fronts(stack, "feelfish-test-spread-%d" % int(time.monotonic() * 1000))
        if not ok:
            time.sleep(1)
    check("requests_reach_both_fronts", ok, detail)

    status, body, headers = request(port, "GET", "/")
    check("page_via_nginx", status == 200 and headers.get("Content-Type", "").startswith("text/html")
          and "app.js" in str(body), "GET / through nginx: %s %s" % (status, str(body)[:200]))

    status, body, _ = request(port, "GET", "/api/config")
    want = "ws://127.0.0.1:%d/ws" % port  # from the Host and X-Forwarded-Proto nginx passes on
    check("config_ws_url_is_ws_path", status == 200 and isinstance(body, dict) and body.get("wsUrl") == want,
          "GET /api/config through nginx: %s wsUrl=%r, want %r"
          % (status, body.get("wsUrl") if isinstance(body, dict) else body, want))
    check_client_address(stack)

    # Analyses: searched by a worker, answered by the front that took the request (twice: both fronts).
    results = [request(port, "POST", "/api/analyse", {"fen": FEN, "limits": {"depth": 8}}, timeout=120)
               for _ in range(2)]
    check("analyse_via_nginx", all(s == 200 and isinstance(b, dict) and b.get("bestMove") for s, b, _ in results),
          "POST /api/analyse through nginx: %s" % "; ".join("%s %s" % (s, str(b)[:200]) for s, b, _ in results))

    # The page's own origin (as a browser on nginx's address sends it) is accepted; another site's is not.
    own = "http://127.0.0.1:%d" % port
    s1, b1, _ = request(port, "POST", "/api/analyse", {"fen": FEN, "limits": {"depth": 2}}, {"Origin": own})
    s2, b2, _ = request(port, "POST", "/api/analyse", {"fen": FEN, "limits": {"depth": 2}},
                        {"Origin": "http://evil.example"})
    check("origin_check_through_nginx", s1 == 200 and s2 == 403,
          "own origin: %s %s; foreign origin: %s %s" % (s1, str(b1)[:150], s2, str(b2)[:150]))

    ws_detail, infos, best = "", [], None
    try:
        ws = WebSocket(port, path="/ws", headers={"Origin": own})
        ws.send({"op": "analyse", "id": "c1", "fen": FEN, "limits": {"depth": 10}})
        end, seen = ws.until(analysis_ended, timeout=60)
        infos = [m for m in seen if m.get("type") == "info"]
        if not end:
            ws_detail = "closed by the server, or nothing for 60 s"
        elif end["type"] == "error":
            ws_detail = "error frame: %s" % end
        else:
            best = end
        ws.close()
    except (OSError, ValueError) as e:
        ws_detail = "%s: %s" % (type(e).__name__, e)
    check("ws_via_nginx", infos and best and best.get("bestMove") and best.get("id") == "c1",
          "%d info frames, bestmove %s %s" % (len(infos), str(best)[:200], ws_detail))

    # Redis: the AOF on, fsynced on every write, in its own volume, as the redis user.
    redis = stack.container("redis")
    settings = {}
    for key in ("appendonly", "appendfsync", "dir"):
        rc, out = run(["podman", "exec", redis, "redis-cli", "config", "get", key]) if redis else (1, "")
        words = out.split()
        settings[key] = words[1] if rc == 0 and len(words) >= 2 else out.strip()
    rc, uid = run(["podman", "exec", redis, "id", "-un"]) if redis else (1, "")
    rc2, mounts = run(["podman", "inspect", "--format", "{{range .Mounts}}{{.Type}} {{.Name}} {{.Destination}};{{end}}",
                       redis]) if redis else (1, "")
    rc3, aof = run(["podman", "exec", redis, "sh", "-c", "ls /data/appendonlydir"]) if redis else (1, "")
    check("redis_aof_on_its_volume", settings == {"appendonly": "yes", "appendfsync": "always", "dir": "/data"}
          and uid.strip() == "redis" and "volume %s_redis-data /data" % stack.project in mounts and ".aof" in aof,
          "settings %s; user %s; mounts %s; /data/appendonlydir: %s" % (settings, uid.strip(), mounts.strip(),
                                                                       aof.strip()))

    for service in FRONTS + WORKERS[:1]:
        name = stack.container(service)
        rc, uid = run(["podman", "exec", name, "id", "-u"]) if name else (1, "no container")
        rc1, status_text = run(["podman", "exec", name, "cat", "/proc/1/status"]) if name else (1, "")
        pid1_uid = next((line.split()[1] for line in status_text.splitlines() if line.startswith("Uid:")), None)
        check("runs_as_non_root_" + service, rc == 0 and uid.strip() not in ("", "0") and pid1_uid not in (None, "0"),
              "id -u: %s; the process's uid: %s" % (uid.strip(), pid1_uid))

    for service in FRONTS:
        name = stack.container(service)
        rc, owner = run(["podman", "exec", name, "stat", "-c", "%U", "/srv/data", "/srv/data/feelfish.db"]) if name \
            else (1, "")
        rc2, mounts = run(["podman", "inspect", "--format",
                           "{{range .Mounts}}{{.Type}} {{.Name}} {{.Destination}};{{end}}", name]) if name else (1, "")
        check("data_volume_" + service, rc == 0 and owner.split() == ["feelfish", "feelfish"]
              and "volume %s_%s-data /srv/data" % (stack.project, service) in mounts,
              "owners of /srv/data and the db: %s; mounts: %s" % (owner.strip(), mounts.strip()))

    for service in FRONTS + ("redis",):
        name = stack.container(service)
        rc, out = run(["podman", "healthcheck", "run", name]) if name else (1, "no container")
        rc2, health = run(["podman", "inspect", "--format", "{{.State.Health.Status}}", name]) if name else (1, "")
        check("healthcheck_healthy_" + service, rc == 0 and health.strip() == "healthy",
              "podman healthcheck run: exit %d %s; status: %s" % (rc, out.strip(), health.strip()))

    game_through_nginx(stack)
    check_worker_killed(stack)

    # A finished job is in its front's database (the volume): still there after the fronts restart.
    # Polled through nginx, so a poll may reach the front that does not hold the job (404): stored
    # jobs are each front's own until they are shared in Redis.
    status, body, _ = request(port, "POST", "/api/jobs", {"fen": FEN, "limits": {"depth": 8}})
    job_id = body.get("id") if isinstance(body, dict) else None
    done, polls = None, []
    deadline = time.monotonic() + 60
    while job_id and time.monotonic() < deadline:
        s, b, _ = request(port, "GET", "/api/jobs/" + job_id)
        polls.append(s)
        if s == 200 and isinstance(b, dict) and b.get("status") == "done":
            done = b
            break
        time.sleep(0.3)
    detail = "job %s: %s; polls %s" % (job_id, str(done or body)[:200], polls[-10:])
    kept = False
    if done:
        before = {f: address(stack.container(f)) for f in FRONTS}
        rc, out = stack.compose("restart", "-t", "10", *FRONTS, timeout=120)
        s, b = wait_health(port, 60)
        after_polls, b2 = [], None
        for _ in range(12):  # round robin: the front that holds it answers every other request at least
            s2, b2, _ = request(port, "GET", "/api/jobs/" + job_id)
            after_polls.append(s2)
            if s2 == 200:
                break
        kept = (rc == 0 and s == 200 and after_polls[-1] == 200 and isinstance(b2, dict)
                and b2.get("status") == "done" and b2.get("bestMove") == done.get("bestMove"))
        detail += "; restart: exit %d; health after: %s; the job after: %s %s" % (rc, s, after_polls, str(b2)[:200])
        check("job_survives_front_restart", kept, detail)
        # The restarted fronts came back with other addresses: nginx follows them.
        deadline, ok = time.monotonic() + 20, False
        while not ok and time.monotonic() < deadline:
            ok, spread = reaches_both_fronts(stack, "feelfish-test-after-restart-%d" % int(time.monotonic() * 1000))
            if not ok:
                time.sleep(1)
        after = {f: address(stack.container(f)) for f in FRONTS}
        check("nginx_follows_restarted_fronts", ok, "addresses before %s, after %s; %s" % (before, after, spread))
    else:
        check("job_survives_front_restart", False, detail)


def wait_for_turn(flag):
    """--up-after: waits for `flag` to exist (at most 2 hours), then runs at normal priority (as root)."""
    t = time.monotonic()
    while not os.path.exists(flag) and time.monotonic() - t < 7200:
        time.sleep(1)
    try:
        os.setpriority(os.PRIO_PROCESS, 0, 0)
    except OSError:
        pass
    note("waited %.0f s for %s, then priority %d" % (time.monotonic() - t, flag, os.getpriority(os.PRIO_PROCESS, 0)))
    return os.path.exists(flag)


def main():
    args = sys.argv[1:]
    keep_base = "--keep-base" in args or os.environ.get("FEELFISH_DOCKER_KEEP_BASE") == "1"
    up_after = args[args.index("--up-after") + 1] if "--up-after" in args[:-1] else None
    if "--install-only" in args:
        ok, detail = install_missing()
        print("docker tools %s%s" % ("installed" if ok else "NOT installed: ", detail if not ok else ""), flush=True)
        sys.exit(0 if ok else 1)
    os.makedirs(LOGS, exist_ok=True)
    for old in glob.glob(os.path.join(LOGS, "*.log")):
        os.unlink(old)
    tmp = tempfile.mkdtemp(prefix="feelfish-docker-")
    stack, made_base, timings = None, False, []

    def on_signal(signum, frame):
        raise SystemExit("stopped by signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)

    try:
        ok, detail = install_missing()
        if not check("tools_installed", ok, detail):
            return
        os.environ["CONTAINERS_CONF"] = podman_conf(tmp)
        os.environ["BUILDAH_FORMAT"] = "docker"
        before, before_builders, before_volumes = image_ids(), buildah_containers(), volume_names()

        if run(["podman", "image", "exists", BASE])[0] == 0:
            check("base_image", True)
            note("base image %s: already there" % BASE)
        else:
            t = time.monotonic()
            ok, detail = make_base(tmp)
            made_base = ok
            timings.append(("base image (debootstrap + import)", time.monotonic() - t))
            if not check("base_image", ok, detail):
                return

        stack = Stack(free_port())
        ca = os.environ.get("FEELFISH_BUILD_CA") or "/etc/ssl/certs/ca-certificates.crt"
        build_args = "--layers=false --force-rm"
        if os.path.isfile(ca):
            build_args += " --secret id=cacert,src=" + ca
        t = time.monotonic()
        rc, out = stack.compose("build", log="build.log", timeout=1200, global_args=("--podman-build-args", build_args))
        timings.append(("build (three images)", time.monotonic() - t))
        built = [img for img in stack.images if run(["podman", "image", "exists", img])[0] == 0]
        errors = [line for line in out.splitlines() if "error" in line.lower() or "ERR!" in line]
        if not check("images_built", rc == 0 and len(built) == len(stack.images),
                     "built: %s (log: %s)\n%s" % (built, log_path("build.log"), "\n".join(errors[-12:]) or tail(out))):
            return
        sizes = [run(["podman", "image", "inspect", "--format", "{{.Size}}", img])[1].strip() for img in stack.images]
        note("images: " + ", ".join("%s %.0f MB" % (img, int(size) / 1e6 if size.isdigit() else 0)
                                     for img, size in zip(stack.images, sizes)))

        if up_after and not check("waited_for_turn", wait_for_turn(up_after), "%s never appeared" % up_after):
            return
        t = time.monotonic()
        rc, out = stack.compose("up", "-d", "--no-build")
        running = [stack.container(s) for s in SERVICES]
        if not check("compose_up", rc == 0 and all(running),
                     "containers: %s (log: %s)\n%s" % (running, log_path("compose.log"), tail(out))):
            return
        checks(stack)
        timings.append(("up and checks", time.monotonic() - t))
    except (subprocess.SubprocessError, OSError) as e:
        check("no_unexpected_error", False, "%s: %s" % (type(e).__name__, e))
    except (KeyboardInterrupt, SystemExit) as e:
        check("not_interrupted", False, "interrupted (%s): tearing down" % (e or "Ctrl-C"))
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the teardown runs to its end
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if stack:
            for service in SERVICES:
                name = stack.container(service)
                if name:
                    run(["podman", "logs", name], log="%s.log" % service)
            t = time.monotonic()
            stack.down()
            # With --layers=false nothing else should be left, but an interrupted build may leave
            # its working containers and untagged images: remove those this run made.
            for builder in buildah_containers() - before_builders:
                run(["buildah", "rm", builder], log="teardown.log")
            after = image_ids() - before
            for image_id in after:
                rc, tags = run(["podman", "image", "inspect", "--format", "{{.RepoTags}}", image_id])
                if rc == 0 and tags.strip() in ("[]", "map[]", ""):
                    run(["podman", "rmi", "-f", image_id], log="teardown.log")
            if made_base and not keep_base:
                run(["podman", "rmi", "-f", BASE], log="teardown.log")
            kept = run(["podman", "image", "inspect", "--format", "{{.Id}}", BASE])[1].strip().split(":")[-1] \
                if made_base else ""
            left = stack.labelled("container") + stack.labelled("volume") + stack.labelled("network") + \
                sorted(buildah_containers() - before_builders) + sorted(volume_names() - before_volumes)
            left_images = sorted(image_ids() - before - {kept})
            check("teardown_clean", not left and not left_images,
                  "left: %s %s (log: %s)" % (left, left_images, log_path("teardown.log")))
            timings.append(("teardown", time.monotonic() - t))
            if made_base:
                note("base image %s: %s" % (BASE, "kept (--keep-base)" if keep_base else "removed (made by this run)"))
        shutil.rmtree(tmp, ignore_errors=True)
        for name, seconds in timings:
            note("time %-36s %6.1f s" % (name, seconds))
        note("time %-36s %6.1f s" % ("whole run", time.monotonic() - T0))
        print("docker: %d passed, %d failed" % (counts["passed"], counts["failed"]), flush=True)


if __name__ == "__main__":
    main()
    sys.exit(1 if counts["failed"] else 0)
