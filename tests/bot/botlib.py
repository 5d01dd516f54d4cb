"""What the bot's tests share (test_bot.py, test_bot_config.py, test_bot_matchmaking.py,
test_bot_serve.py, clock_test.py): `feelfish bot` as a process with its own database and output
files, lichess-bot's config.yml.default with edits, fresh tokens; for the test files, the fake
Lichess's log (shown with FEELFISH_BOT_VERBOSE=1), human challengers, waiting out a game, and the
abort_time their bots run with."""
import errno
import os
import random
import re
import signal
import string
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import FF, ROOT, tmpdir  # noqa: E402

DEFAULT = os.path.join(HERE, "lichess-bot.config.yml.default")
VERBOSE = bool(os.environ.get("FEELFISH_BOT_VERBOSE"))
ABORT_TIME = 3
HUMAN = {"title": None, "rating": 1500}


def log(text):
    if VERBOSE:
        print(text, flush=True)


def human(i):
    return dict(HUMAN, id="human%s" % i, name="Human%s" % i)


def wait_over(fake, gid, timeout, start_timeout=15):
    """Waits for the game to start (the challenge accepted), then for its end; False if either
    does not come."""
    if not fake.wait(lambda: gid in fake.games, start_timeout):
        return False
    return fake.wait(lambda: fake.games[gid].status != "started", timeout)


def new_token():
    return "lip_" + "".join(random.choice(string.ascii_letters + string.digits) for _ in range(24))


def config_text(url, token, edits=(), extra=""):
    """lichess-bot's config.yml.default with token and url set, each (regex, replacement) applied
    once (it must match once), and `extra` appended."""
    with open(DEFAULT) as f:
        text = f.read()
    for pattern, repl in [(r"^token: .*$", 'token: "%s"' % token), (r"^url: .*$", 'url: "%s"' % url)] + list(edits):
        text, n = re.subn(pattern, repl, text, count=1, flags=re.M)
        assert n == 1, "config edit matched %d times: %s" % (n, pattern)
    return text + extra


def popen(argv, **kw):
    """Popen, waiting out a rebuild of ./feelfish (briefly missing, or busy being written)."""
    for attempt in range(40):
        try:
            return subprocess.Popen(argv, **kw)
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.EACCES, errno.ETXTBSY) or attempt == 39:
                raise
            time.sleep(3)


def run(argv, timeout=30, env=None):
    p = popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


class Bot:
    """`feelfish bot --config FILE` with a database of its own; stdout and stderr to files."""

    def __init__(self, config, env=None, workers=1, args=()):
        self.dir = tmpdir("feelfish-bot-")
        self.config = os.path.join(self.dir, "config.yml")
        with open(self.config, "w") as f:
            f.write(config)
        self.db = os.path.join(self.dir, "bot.db")
        self.out_path, self.err_path = os.path.join(self.dir, "stdout"), os.path.join(self.dir, "stderr")
        full_env = {k: v for k, v in os.environ.items() if k != "LICHESS_BOT_TOKEN"}
        full_env.update(env or {})
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = popen([FF, "bot", "--config", self.config, "--db", self.db, "--workers", str(workers),
                               "--hash", "16", *args], cwd=ROOT, stdout=out, stderr=err, env=full_env)
        self.rc = None

    def wait(self, timeout):
        try:
            self.rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.rc

    def stop(self, timeout=15):
        """SIGTERM, then the exit code (None if it had to be killed)."""
        if self.proc.poll() is not None:
            self.rc = self.proc.returncode
            return self.rc
        self.proc.send_signal(signal.SIGTERM)
        if self.wait(timeout) is None:
            self.proc.kill()
            self.proc.wait()
            self.rc = None
        return self.rc

    def stderr(self):
        with open(self.err_path, errors="replace") as f:
            return f.read()

    def stdout(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()
