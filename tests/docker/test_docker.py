#!/usr/bin/env python3
"""make test-docker: the Dockerfile, docker/nginx.Dockerfile and docker/compose.yaml, for real, with
podman (rootful; as root on a Debian machine).

1. Installs what is missing (podman, buildah, runc, podman-compose, debootstrap, ...).
2. Points podman at a containers.conf of its own (CONTAINERS_CONF, in a temporary folder): the runc
   runtime, and default ulimits no higher than this process's hard limits (podman would otherwise
   ask for more than root may have here, and the container would not start).
3. Makes the Debian base image localhost/debian:bookworm-slim if it is not there (no registry is
   needed): debootstrap --variant=minbase from the Debian mirror apt is configured with, then
   `podman import`.
4. Builds both images with podman-compose (BASE from the compose file; docker format, so the
   HEALTHCHECK is kept; no layer cache, so nothing is left behind), brings the stack up under a
   project name of its own, on a free local port, and checks it through nginx: health, the page,
   /api/config's wsUrl, an analysis, the Origin check, a WebSocket stream on /ws, a finished job kept
   across a restart of the front (the data volume), the non-root user, the HEALTHCHECK.
5. Tears everything down: containers, the project's volumes and network, the images it built, and
   the base image if it made it (unless --keep-base, or FEELFISH_DOCKER_KEEP_BASE=1: then the next
   run starts from it).

One line per check ('ok   name' or 'FAIL name' and why), the timings, then
'docker: N passed, N failed'; exit 1 if anything failed. Logs: build/test-docker/.

    python3 tests/docker/test_docker.py [--keep-base]

Environment: FEELFISH_BUILD_CA, a CA bundle for npm inside the build (default: this machine's,
/etc/ssl/certs/ca-certificates.crt; passed as a build secret, not kept in the image)."""
import glob
import http.client
import json
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
PACKAGES = ["podman", "buildah", "runc", "podman-compose", "debootstrap", "fuse-overlayfs", "slirp4netns",
            "uidmap", "containernetworking-plugins", "netavark", "aardvark-dns", "iptables"]

counts = {"passed": 0, "failed": 0}
T0 = time.monotonic()


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
        self.images = ["localhost/feelfish-test%s:latest" % run_id, "localhost/feelfish-nginx-test%s:latest" % run_id]
        self.port = port
        self.env = dict(os.environ, BASE=BASE, FEELFISH_IMAGE=self.images[0], NGINX_IMAGE=self.images[1],
                        FEELFISH_PORT="127.0.0.1:%d" % port, BUILDAH_FORMAT="docker")

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

    def down(self):
        self.compose("down", "-v", "-t", "10", log="teardown.log", timeout=180)
        for name in self.labelled("container"):
            run(["podman", "rm", "-f", "-t", "2", name], log="teardown.log")
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


def image_ids():
    rc, out = run(["podman", "images", "-a", "-q", "--no-trunc"])
    return {i.split(":")[-1] for i in out.split()} if rc == 0 else set()


def checks(stack):
    port = stack.port
    status, body = wait_health(port, 90)
    check("health_via_nginx", status == 200 and isinstance(body, dict) and body.get("status") == "ok",
          "GET /api/health through nginx: %s %s" % (status, body))

    status, body, headers = request(port, "GET", "/")
    check("page_via_nginx", status == 200 and headers.get("Content-Type", "").startswith("text/html")
          and "app.js" in str(body), "GET / through nginx: %s %s" % (status, str(body)[:200]))

    status, body, _ = request(port, "GET", "/api/config")
    check("config_ws_url_is_ws_path", status == 200 and isinstance(body, dict) and body.get("wsUrl") == "/ws",
          "GET /api/config through nginx: %s wsUrl=%r" % (status, body.get("wsUrl") if isinstance(body, dict) else body))

    status, body, _ = request(port, "POST", "/api/analyse", {"fen": FEN, "limits": {"depth": 8}}, timeout=120)
    check("analyse_via_nginx", status == 200 and isinstance(body, dict) and body.get("bestMove"),
          "POST /api/analyse through nginx: %s %s" % (status, str(body)[:300]))

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
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            m = ws.recv_json(max(0.1, deadline - time.monotonic()))
            if m is None:
                ws_detail = "closed by the server"
                break
            if m.get("type") == "info":
                infos.append(m)
            elif m.get("type") == "bestmove":
                best = m
                break
            elif m.get("type") == "error":
                ws_detail = "error frame: %s" % m
                break
        ws.close()
    except (OSError, ValueError) as e:
        ws_detail = "%s: %s" % (type(e).__name__, e)
    check("ws_via_nginx", infos and best and best.get("bestMove") and best.get("id") == "c1",
          "%d info frames, bestmove %s %s" % (len(infos), str(best)[:200], ws_detail))

    front = stack.container("feelfish")
    rc, uid = run(["podman", "exec", front, "id", "-u"]) if front else (1, "no front container")
    rc1, status_text = run(["podman", "exec", front, "cat", "/proc/1/status"]) if front else (1, "")
    pid1_uid = next((line.split()[1] for line in status_text.splitlines() if line.startswith("Uid:")), None)
    check("runs_as_non_root", rc == 0 and uid.strip() not in ("", "0") and pid1_uid not in (None, "0"),
          "id -u: %s; the server's uid: %s" % (uid.strip(), pid1_uid))

    rc, owner = run(["podman", "exec", front, "stat", "-c", "%U", "/srv/data", "/srv/data/feelfish.db"]) if front \
        else (1, "")
    rc2, mounts = run(["podman", "inspect", "--format", "{{range .Mounts}}{{.Type}} {{.Name}} {{.Destination}};{{end}}",
                       front]) if front else (1, "")
    check("data_volume", rc == 0 and owner.split() == ["feelfish", "feelfish"]
          and "volume %s_feelfish-data /srv/data" % stack.project in mounts,
          "owners of /srv/data and the db: %s; mounts: %s" % (owner.strip(), mounts.strip()))

    rc, out = run(["podman", "healthcheck", "run", front]) if front else (1, "no front container")
    rc2, health = run(["podman", "inspect", "--format", "{{.State.Health.Status}}", front]) if front else (1, "")
    check("healthcheck_healthy", rc == 0 and health.strip() == "healthy",
          "podman healthcheck run: exit %d %s; status: %s" % (rc, out.strip(), health.strip()))

    # A finished job is in the front's database (the volume): still there after a restart.
    status, body, _ = request(port, "POST", "/api/jobs", {"fen": FEN, "limits": {"depth": 8}})
    job_id = body.get("id") if isinstance(body, dict) else None
    done = None
    deadline = time.monotonic() + 60
    while job_id and time.monotonic() < deadline:
        s, b, _ = request(port, "GET", "/api/jobs/" + job_id)
        if s == 200 and isinstance(b, dict) and b.get("status") == "done":
            done = b
            break
        time.sleep(0.3)
    detail = "job %s: %s" % (job_id, str(done or body)[:200])
    kept = False
    if done:
        rc, out = stack.compose("restart", "-t", "10", "feelfish", timeout=120)
        s, b = wait_health(port, 60)
        s2, b2, _ = request(port, "GET", "/api/jobs/" + job_id)
        kept = (rc == 0 and s == 200 and s2 == 200 and isinstance(b2, dict) and b2.get("status") == "done"
                and b2.get("bestMove") == done.get("bestMove"))
        detail += "; restart: exit %d; health after: %s; the job after: %s %s" % (rc, s, s2, str(b2)[:200])
    check("job_survives_front_restart", kept, detail)


def main():
    keep_base = "--keep-base" in sys.argv[1:] or os.environ.get("FEELFISH_DOCKER_KEEP_BASE") == "1"
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
        before, before_builders = image_ids(), buildah_containers()

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
        timings.append(("build (both images)", time.monotonic() - t))
        built = [img for img in stack.images if run(["podman", "image", "exists", img])[0] == 0]
        errors = [line for line in out.splitlines() if "error" in line.lower() or "ERR!" in line]
        if not check("images_built", rc == 0 and len(built) == 2,
                     "built: %s (log: %s)\n%s" % (built, log_path("build.log"), "\n".join(errors[-12:]) or tail(out))):
            return
        sizes = [run(["podman", "image", "inspect", "--format", "{{.Size}}", img])[1].strip() for img in stack.images]
        note("images: " + ", ".join("%s %.0f MB" % (img, int(size) / 1e6 if size.isdigit() else 0)
                                     for img, size in zip(stack.images, sizes)))

        t = time.monotonic()
        rc, out = stack.compose("up", "-d", "--no-build")
        running = [stack.container(s) for s in ("nginx", "feelfish")]
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
            for service in ("feelfish", "nginx"):
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
                sorted(buildah_containers() - before_builders)
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
