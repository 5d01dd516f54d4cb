#!/usr/bin/env python3
"""Every shell transcript shown in README.md and docs/*.md, run, and its output compared with the one
the doc shows. A transcript is a line starting with `$ ` inside a fenced block (the command; it goes
on over lines ending in `\\` or while a quote is open), followed by the lines the command printed, up
to the next `$ ` line or the end of the block. The commands of one block run in order in one sandbox
(below); a command ending in `&` is started in the background, stays running until the block's last
command has been compared, and is then stopped; its output is not compared (the docs show none).

What a command meets (the sandbox, a temporary folder laid out like a checkout beside shared/):
- its working folder holds `./feelfish` (a link to the binary under test, $FEELFISH or ./feelfish),
  `tests/` (a link to the repository's), `engine/style.model` (a copy: `style-train` writes it) and
  the files of FIXTURES; commands that write (data/feelfish.db, k.ndjson, ...) write there;
- `../shared/data/...` is a copy of $FEELFISH_DATA (../shared/data from the repository root) made
  of links to its files, so what a command writes beside them (annotate's IN.annotated.pgn) stays in
  the sandbox; every `../shared/data/` path a command names must exist there;
- `localhost:8080` and `8081` are the ports of a real `feelfish serve` started by the harness (one,
  shared by the blocks that talk to a server); a block that starts its own servers (the cluster's
  `redis-server`, `feelfish worker` and `feelfish serve`) gets a free port for each port it names;
- REWRITES, one table, lists the commands that run with a smaller budget than shown, and why.
A command must exit 0 within COMMAND_TIMEOUT seconds.

The comparison, by shape, the same rules for every example, of the output a terminal shows (standard
output and error, in the order they came), or else of standard output alone (a doc may show only it):
- the doc's output is JSON when it starts with `{` or `[` and reads as one or more JSON values, with
  `...` allowed as an object member (other keys may be there), an array element (more elements may
  follow, each shaped like the last one shown), a value (anything) and inside a string (any string).
  The command's output must then be as many JSON values (one a line or pretty-printed), each with the
  same keys recursively (no key missing; no key more unless `...` says so) and the same types
  (number, string, boolean, null, object, array); a `...` between values stands for any values;
- otherwise it is text, compared line by line, each line matched whole: a line `...` stands for any
  number of lines (none included), `...` within a line for any text; numbers (signed, decimal) may
  differ, as may chess moves (UCI or SAN: engines change), hexadecimal ids and progress bars
  `[###...]`; runs of spaces match any run of spaces (columns move with the numbers). A worker's id is
  HOST-PID: this machine's host name in it reads as DOC_HOST's. A doc showing no output means the
  command prints nothing.
- a command after one in the background is retried (up to BACKGROUND_WAIT seconds) until its output
  matches: what it asks about is still starting.
A planted example with a wrong key, a wrong type and a wrong line must fail (comparison_can_fail).

Run it all, or some examples: test_doc_examples.py [--list] [NAME_OR_GLOB...] (a name is
FILE:LINE and the command, e.g. 'engine.md:*'); prints 'doc-examples: N passed, N failed'."""
import glob
import json
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import DATA, FF, ROOT, Suite, check, tmpdir  # noqa: E402
from wsclient import free_port  # noqa: E402

COMMAND_TIMEOUT = 60     # seconds a command may take (they take under 5 s here)
BACKGROUND_WAIT = 60     # seconds a command after background ones is retried until its output matches
DOC_HOST = "vm"          # the host name of the machine the transcripts were made on

# Commands run with a smaller budget than the doc shows: (doc file, a piece of the command that names
# it, [(text, replacement), ...], why). Only the command changes; its output is compared as shown.
REWRITES = [
    ("docs/bayesian.md", "./feelfish learn --games 400",
     [("--games 400", "--games 2")], "400 self-play games take about 8 minutes; 2 take 3 s"),
    ("docs/engine.md", "./feelfish annotate ../shared/data/pgn/Kasparov.pgn --games 24",
     [("--games 24", "--games 2")], "24 games, 1709 positions, take 5-6 s; 2 games, 159 positions, under a second"),
    ("docs/engine.md", "./feelfish epd ../shared/data/epd/wac.epd --movetime 1000",
     [("../shared/data/epd/wac.epd", "wac3.epd"), ("--movetime 1000", "--movetime 50")],
     "299 positions at a second each take 5 minutes; the first 3 (fixture wac3.epd) at 50 ms"),
    ("docs/engine.md", "./feelfish perft --suite ../shared/data/perft/random.epd",
     [("random.epd", "random.epd --max-nodes 1000000")],
     "3.5 billion nodes take 6-8 s; counts up to a million nodes, every position still checked, 0.1 s"),
]

# Examples a test cannot run: (doc file, a piece of the command, why). None today; one listed here is
# reported as skipped (and counted), not run.
SKIPS = []


def _first_lines(path, n):
    with open(path) as f:
        return "".join([line for line in f if line.strip()][:n])


# Files an example expects in its working folder that a checkout does not have: name -> maker.
FIXTURES = {
    # docs/bayesian.md: `feelfish style game.pgn --player kasparov` (tests/cli/engine.sh's game)
    "game.pgn": lambda: """[White "Kasparov, Gary"]
[Black "Someone, S"]

1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3 Be7 9. Qd2 O-O
10. O-O-O Nbd7 11. g4 b5 12. g5 b4 13. Ne2 Ne8 14. h4 Qa5 15. h5 Nc7 16. Kb1 *
""",
    "wac3.epd": lambda: _first_lines(os.path.join(DATA, "epd", "wac.epd"), 3),  # REWRITES: epd
}

DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
FENCE = re.compile(r"^(\s*)(```|~~~)")
PROMPT = re.compile(r"^\s*\$ ")


# ---- Extraction.

def _open_quote(text):
    """Whether a shell command's text leaves a quote open (so it goes on on the next line)."""
    quote, i = None, 0
    while i < len(text):
        c = text[i]
        if quote is None:
            if c == "\\":
                i += 1
            elif c in "'\"":
                quote = c
            elif c == "#" and (i == 0 or text[i - 1] in " \t\n"):
                while i < len(text) and text[i] != "\n":
                    i += 1
        elif c == quote:
            quote = None
        elif quote == '"' and c == "\\":
            i += 1
        i += 1
    return quote is not None


class Command:
    def __init__(self, doc, line, text, output):
        self.doc, self.line, self.text, self.output = doc, line, text, output
        self.background = bool(re.search(r"&\s*(#.*)?$", text)) and not text.rstrip().endswith("&&")
        first = text.split("\n")[0]
        self.name = "%s:%d %s" % (os.path.basename(doc), line, first if len(first) <= 64 else first[:61] + "...")

    def matches(self, doc, piece):
        return self.doc == doc and piece in self.text


def transcripts(doc, text):
    """The blocks of a markdown text that hold transcripts: [[Command, ...], ...]."""
    blocks, block, indent = [], None, ""
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if block is None and m:
            block, indent = [], m.group(1)
        elif block is not None and m:
            blocks.append(block)
            block = None
        elif block is not None:
            block.append((n, line[len(indent):] if line.startswith(indent) else line.lstrip()))
    if block is not None:
        blocks.append(block)
    out = []
    for lines in blocks:
        cmds, i = [], 0
        while i < len(lines):
            n, line = lines[i]
            if not line.startswith("$ "):
                i += 1
                continue
            text = line[2:]
            i += 1
            while (text.endswith("\\") or _open_quote(text)) and i < len(lines):
                text += "\n" + lines[i][1]
                i += 1
            output = []
            while i < len(lines) and not lines[i][1].startswith("$ "):
                output.append(lines[i][1].rstrip())
                i += 1
            while output and not output[-1]:
                output.pop()
            cmds.append(Command(doc, n, text, output))
        if cmds:
            out.append(cmds)
    return out


def all_transcripts():
    blocks = []
    for doc in DOCS:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            blocks += transcripts(doc, f.read())
    return blocks


# ---- The comparison: JSON by shape.

class Any:
    """`...` as a JSON value: anything."""


class AnyString(str):
    """A string with `...` in it: any string."""


class OpenDict(dict):
    """An object with `...` among its members: other keys may be there."""


class OpenList(list):
    """An array with `...` among its elements: more may follow, each shaped like the last one shown."""


class Lenient:
    """JSON with `...` (see the module's docstring); parse() -> a list of values, or ValueError."""

    def __init__(self, text):
        self.s, self.i = text, 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def at(self, lit):
        self.ws()
        return self.s.startswith(lit, self.i)

    def eat(self, lit):
        if not self.at(lit):
            raise ValueError("expected %r at %d: %r" % (lit, self.i, self.s[self.i:self.i + 20]))
        self.i += len(lit)

    def parse(self):
        values = []
        while True:
            self.ws()
            if self.i >= len(self.s):
                return values
            values.append(self.value())

    def value(self):
        self.ws()
        if self.at("..."):
            self.i += 3
            return Any()
        if self.at("{"):
            self.i += 1
            obj, is_open = {}, False
            if self.at("}"):
                self.i += 1
                return obj
            while True:
                if self.at("..."):
                    self.i += 3
                    is_open = True
                else:
                    key = self.string()
                    self.eat(":")
                    obj[key] = self.value()
                if self.at("}"):
                    self.i += 1
                    return OpenDict(obj) if is_open else obj
                self.eat(",")
        if self.at("["):
            self.i += 1
            arr, is_open = [], False
            if self.at("]"):
                self.i += 1
                return arr
            while True:
                if self.at("..."):
                    self.i += 3
                    is_open = True
                else:
                    arr.append(self.value())
                if self.at("]"):
                    self.i += 1
                    return OpenList(arr) if is_open else arr
                self.eat(",")
        if self.at('"'):
            s = self.string()
            return AnyString(s) if "..." in s else s
        value, end = json.JSONDecoder().raw_decode(self.s, self.i)  # numbers, true, false, null
        self.i = end
        return value

    def string(self):
        self.ws()
        value, end = json.decoder.scanstring(self.s, self.i + 1) if self.s[self.i:self.i + 1] == '"' else (None, 0)
        if value is None:
            raise ValueError("expected a string at %d" % self.i)
        self.i = end
        return value


def json_values(text):
    """The JSON values of a command's output, one after another (one a line, or pretty-printed)."""
    dec, values, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i >= len(text):
            return values
        value, i = dec.raw_decode(text, i)
        values.append(value)


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def shape_problems(shown, got, path="$"):
    """How `got` differs in shape from the doc's `shown` (a Lenient value): a list of strings."""
    if isinstance(shown, Any):
        return []
    if kind(shown) != kind(got):
        shown_text = json.dumps(shown, default=lambda _: "...")[:40]
        return ["%s: the doc shows %s %s, the output has %s %s" % (path, kind(shown), shown_text, kind(got),
                                                                  json.dumps(got)[:40])]
    problems = []
    if isinstance(shown, dict):
        for k in shown:
            if k not in got:
                problems.append("%s: key %r shown, not in the output" % (path, k))
            else:
                problems += shape_problems(shown[k], got[k], "%s.%s" % (path, k))
        if not isinstance(shown, OpenDict):
            problems += ["%s: key %r in the output, not shown (and no ...)" % (path, k) for k in got if k not in shown]
    elif isinstance(shown, list):
        if len(got) < len(shown) or (len(got) > len(shown) and not isinstance(shown, OpenList)):
            problems.append("%s: %d elements shown%s, the output has %d" % (
                path, len(shown), " and more" if isinstance(shown, OpenList) else "", len(got)))
        for j, g in enumerate(got):
            if j < len(shown):
                problems += shape_problems(shown[j], g, "%s[%d]" % (path, j))
            elif shown and isinstance(shown, OpenList):
                problems += shape_problems(shown[-1], g, "%s[%d]" % (path, j))
    return problems


def compare_json(shown_values, text):
    try:
        got = json_values(text)
    except ValueError as e:
        return ["the doc shows JSON, the output is not JSON (%s): %r" % (e, text[:200])]
    more = any(isinstance(v, Any) for v in shown_values)  # a `...` between values: any values after it
    if more:
        shown_values = shown_values[:[isinstance(v, Any) for v in shown_values].index(True)]
    if len(got) < len(shown_values) or (len(got) > len(shown_values) and not more):
        return ["the doc shows %d JSON values%s, the output has %d"
                % (len(shown_values), " and more" if more else "", len(got))]
    problems = []
    for j, (s, g) in enumerate(zip(shown_values, got)):
        problems += shape_problems(s, g, "$" if len(got) == 1 else "$%d" % (j + 1))
    return problems


# ---- The comparison: text, line by line.

UCI_MOVE = r"[a-h][1-8][a-h][1-8][qrbn]?"
SAN_MOVE = r"(?:[KQRBN][a-h]?[1-8]?x?[a-h][1-8]|[a-h](?:x[a-h])?[1-8](?:=[QRBN])?|O-O(?:-O)?)[+#]?"
MOVE = "(?:%s|%s)" % (UCI_MOVE, SAN_MOVE)
TOKENS = re.compile("|".join([
    r"(?P<bar>\[[#.]{5,}\])",                                               # a progress bar
    r"(?P<gap>\.\.\.|…)",                                                   # elided text
    r"(?P<move>(?<![\w-])%s(?![\w-]))" % MOVE,                              # a chess move
    r"(?P<hex>(?<![\w-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}(?![\w-]))",  # an id
    r"(?P<num>[-+]?\d+(?:\.\d+)?)",                                         # a number
    r"(?P<space>\s+)",
]))
PATTERN_FOR = {"bar": r"\[[#.]*\]", "gap": ".*", "move": MOVE, "hex": "[0-9a-f]+",
               "num": r"[-+]?\d+(?:\.\d+)?", "space": r"\s+"}


def line_pattern(line):
    """A doc's output line as a regular expression (None: the line is `...`, any number of lines)."""
    if line.strip() in ("...", "…"):
        return None
    out, i = [], 0
    for m in TOKENS.finditer(line):
        out.append(re.escape(line[i:m.start()]))
        out.append(PATTERN_FOR[m.lastgroup])
        i = m.end()
    out.append(re.escape(line[i:]))
    return re.compile("".join(out))


def terminal_lines(text):
    """A command's output as a terminal shows it: each line's text after its last carriage return,
    trailing spaces and blank lines at the end dropped; a worker's HOST-PID id with DOC_HOST as HOST."""
    host = socket.gethostname()
    lines = [line.split("\r")[-1].rstrip() for line in text.split("\n")]
    if host and host != DOC_HOST:
        lines = [re.sub(r"(?<![\w.-])%s-(\d+)\b" % re.escape(host), DOC_HOST + r"-\1", line) for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def compare_text(shown, text):
    """Problems (a list) of the output `text` against the doc's lines `shown`."""
    got = terminal_lines(text)
    pats = [line_pattern(line) for line in shown]
    # reach[i]: the output positions at which the doc's first i lines can end.
    reach = [{0}]
    for pat in pats:
        prev, nxt = reach[-1], set()
        for j in prev:
            if pat is None:
                nxt.update(range(j, len(got) + 1))
            elif j < len(got) and pat.fullmatch(got[j]):
                nxt.add(j + 1)
        reach.append(nxt)
        if not nxt:
            break
    if reach[-1] and len(reach) == len(pats) + 1:
        if len(got) in reach[-1]:
            return []
        # every doc line met, output left over
        j = max(reach[-1]) if reach[-1] else 0
        return ["the output goes on after the doc's last line: %r (%d lines shown, %d printed)"
                % (got[j] if j < len(got) else "", len(shown), len(got))]
    i = len(reach) - 2
    at = sorted(reach[i])[:3]
    return ["the doc's line %d %r does not match the output's line %s: %s"
            % (i + 1, shown[i], "/".join(str(j + 1) for j in at), [got[j] if j < len(got) else "(end)" for j in at])]


def compare(shown, text):
    """Problems of a command's output against the lines the doc shows: [] when it matches."""
    joined = "\n".join(shown).strip()
    if not joined:
        return [] if not text.strip() else ["the doc shows no output, the command printed %r" % text[:200]]
    if joined[0] in "{[":
        try:
            values = Lenient(joined).parse()
        except ValueError:
            values = None
        if values:
            return compare_json(values, text)
    return compare_text(shown, text)


# ---- Running a block.

PORT_FLAGS = re.compile(r"(?:(?:--port|--http|--ws)[ =]|localhost:|127\.0\.0\.1:|WebSocket\()(\d{2,5})\b")
SERVER_PORTS = {"8080": "http", "8081": "ws"}  # the defaults of `feelfish serve`


def disposition(cmd):
    """('skipped', why) | ('rewritten', rewrites, why) | ('as shown',)."""
    for doc, piece, why in SKIPS:
        if cmd.matches(doc, piece):
            return ("skipped", why)
    for doc, piece, subs, why in REWRITES:
        if cmd.matches(doc, piece):
            return ("rewritten", subs, why)
    return ("as shown",)


def sandbox():
    """A working folder laid out like a checkout beside shared/data (see the module's docstring)."""
    top = tmpdir("feelfish-doc-")
    work = os.path.join(top, "work")
    os.makedirs(os.path.join(work, "engine"))
    os.symlink(FF, os.path.join(work, "feelfish"))
    os.symlink(os.path.join(ROOT, "tests"), os.path.join(work, "tests"))
    shutil.copy(os.path.join(ROOT, "engine", "style.model"), os.path.join(work, "engine", "style.model"))
    data = os.path.join(top, "shared", "data")
    for folder, _, files in os.walk(os.path.realpath(DATA)):
        rel = os.path.relpath(folder, os.path.realpath(DATA))
        os.makedirs(os.path.join(data, rel), exist_ok=True)
        for f in files:
            os.symlink(os.path.join(folder, f), os.path.join(data, rel, f))
    for name, make in FIXTURES.items():
        with open(os.path.join(work, name), "w") as f:
            f.write(make())
    env = dict(os.environ, FEELFISH_DATA=data)
    return work, env


def port_map(block, server):
    """Doc port -> port here: the shared server's for 8080/8081, or free ones for a block that starts
    its own servers."""
    ports = sorted({p for c in block for p in PORT_FLAGS.findall(c.text)})
    own = any(re.search(r"(^|\s)(\./)?feelfish serve\b", c.text) for c in block)
    if own:
        mapped = {}
        for p in ports:
            while p not in mapped or list(mapped.values()).count(mapped[p]) > 1:
                mapped[p] = str(free_port())
        return mapped
    unknown = [p for p in ports if p not in SERVER_PORTS]
    if unknown:
        raise RuntimeError("ports %s: not the server's 8080 (HTTP) or 8081 (WebSocket)" % unknown)
    if not ports:
        return {}
    s = server()
    return {p: str(s.port if SERVER_PORTS[p] == "http" else s.ws_port) for p in ports}


def command_here(cmd, ports):
    """The command as it runs here: REWRITES applied, ports mapped; and whether it was rewritten."""
    text = cmd.text
    d = disposition(cmd)
    if d[0] == "rewritten":
        for old, new in d[1]:
            assert old in text, "REWRITES: %r not in %r" % (old, cmd.text)
            text = text.replace(old, new)
    for old, new in ports.items():
        text = re.sub(r"(?<!\d)%s(?!\d)" % old, new, text)
    if cmd.background:
        text = re.sub(r"&\s*(#.*)?$", "", text.rstrip())
    return text


def missing_data(cmd):
    """The `../shared/data/` paths a command names that $FEELFISH_DATA does not have."""
    return [p for p in re.findall(r"\.\./shared/data/([^\s'\"|;&)]+)", cmd.text)
            if not os.path.exists(os.path.join(DATA, p))]


def run_foreground(text, work, env, timeout):
    """(exit status or None on a timeout, what the terminal shows: standard output and error in the
    order they came, standard output alone)."""
    proc = subprocess.Popen(["bash", "-c", text], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    both, alone = [], []
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, alone)
    sel.register(proc.stderr, selectors.EVENT_READ, None)
    deadline, rc = time.time() + timeout, None
    while sel.get_map():
        left = deadline - time.time()
        if left <= 0:
            os.killpg(proc.pid, signal.SIGKILL)
            break
        for key, _ in sel.select(min(left, 1)):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            both.append(chunk)
            if key.data is not None:
                key.data.append(chunk)
    try:
        rc = proc.wait(max(0.1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    if time.time() >= deadline:
        rc = None
    proc.stdout.close()
    proc.stderr.close()
    return rc, b"".join(both).decode(errors="replace"), b"".join(alone).decode(errors="replace")


def stop_group(proc):
    """SIGTERM to a background command's process group, then SIGKILL after 10 s; its exit status."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # whatever it left behind
    except ProcessLookupError:
        pass
    return proc.returncode


def run_block(block, server):
    """Runs one block's commands in a sandbox: {command name: (passed, detail)}."""
    results = {}
    work, env = sandbox()
    ports = port_map(block, server)
    background, early = [], {}  # (Command, Popen, log path); exit status of those that ended too soon
    try:
        for cmd in block:
            d = disposition(cmd)
            if d[0] == "skipped":  # no check: counted and printed by examples_counted
                print("    skipped %s: %s" % (cmd.name, d[1]), flush=True)
                continue
            text = command_here(cmd, ports)
            problems = ["../shared/data/%s: not in %s" % (p, DATA) for p in missing_data(cmd)]
            if text != cmd.text:
                print("    %s runs as: %s" % (cmd.name, text.replace("\n", "\n        ")), flush=True)
            if cmd.background:
                log = os.path.join(work, "..", "background-%d.log" % cmd.line)
                with open(log, "w") as f:
                    proc = subprocess.Popen(["bash", "-c", text], cwd=work, env=env, stdout=f,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)
                background.append((cmd, proc, log))
                results[cmd.name] = (not problems, problems)
                continue
            t0 = time.time()
            deadline = t0 + BACKGROUND_WAIT
            while True:
                rc, out, stdout = run_foreground(text, work, env, COMMAND_TIMEOUT)
                cmp = compare(cmd.output, out)
                if cmp:  # the doc may show standard output alone
                    alone = compare(cmd.output, stdout)
                    cmp = [] if not alone else cmp + ["standard output alone: " + p for p in alone]
                if not background or (rc == 0 and not cmp) or time.time() > deadline:
                    break
                time.sleep(0.5)
            secs = time.time() - t0
            if rc != 0:
                problems.append("exit status %s%s; output %r" % (
                    rc, " (timed out after %d s)" % COMMAND_TIMEOUT if rc is None else "", out[-400:]))
            problems += cmp
            print("    %s: %.1f s, %d lines of output" % (cmd.name, secs, len(out.splitlines())), flush=True)
            results[cmd.name] = (not problems, problems or "")
        early = {cmd.name: proc.poll() for cmd, proc, _ in background}  # each still running at the end
    finally:
        stopped = [(cmd, stop_group(proc), log) for cmd, proc, log in reversed(background)]
    for cmd, rc, log in stopped:  # then stopped by SIGTERM, and exited 0
        if early.get(cmd.name) is not None:
            problem = "exited %s before the block's end" % early[cmd.name]
        elif rc != 0:
            problem = "exit status %s after SIGTERM" % rc
        else:
            continue
        with open(log, errors="replace") as f:
            problem += ": %r" % f.read()[-400:]
        results[cmd.name] = (False, (results[cmd.name][1] or []) + [problem])
    return results


# ---- The checks.

BLOCKS = all_transcripts()
suite = Suite("doc-examples")


def block_check(block):
    results = run_block(block, suite.server)
    for cmd in block:
        if disposition(cmd)[0] != "skipped":
            passed, detail = results.get(cmd.name, (False, "not run"))
            check(cmd.name, passed, detail)


for _block in BLOCKS:
    _names = [c.name for c in _block if disposition(c)[0] != "skipped"]
    if _names:
        suite.add(_names, block_check, _block)


@suite.test()
def every_transcript_found():
    """Every `$ ` line of README.md and docs/*.md is a command found here (none outside a fenced block,
    none lost), and every REWRITES, SKIPS and FIXTURES entry names an example that is there."""
    prompts = []
    for doc in DOCS:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            prompts += [(doc, n) for n, line in enumerate(f.read().split("\n"), 1) if PROMPT.match(line)]
    found = [(c.doc, c.line) for b in BLOCKS for c in b]
    cmds = [c for b in BLOCKS for c in b]
    stale = [e[:2] for e in REWRITES + SKIPS if sum(c.matches(e[0], e[1]) for c in cmds) != 1]
    unused = [n for n in FIXTURES if not any(n in command_here(c, {}) for c in cmds)]
    print("    %d commands in %d blocks, %d `$ ` lines in %d files"
          % (len(found), len(BLOCKS), len(prompts), len(DOCS)))
    check("every_transcript_found", sorted(prompts) == sorted(found) and not stale and not unused,
          {"not found": sorted(set(prompts) - set(found)), "tables' entries matching no or several commands": stale,
           "fixtures no command uses": unused})


@suite.test()
def examples_counted():
    """How each example runs: as shown, rewritten (REWRITES), skipped (SKIPS); printed."""
    tally = {"as shown": [], "rewritten": [], "skipped": []}
    for b in BLOCKS:
        for c in b:
            tally[disposition(c)[0]].append(c.name)
    for how, names in tally.items():
        for n in names:
            print("    %-9s %s" % (how, n))
    for doc, piece, subs, why in REWRITES:
        print("    rewritten: %s %r: %s (%s)" % (doc, piece, why, "; ".join("%r -> %r" % s for s in subs)))
    for doc, piece, why in SKIPS:
        print("    skipped: %s %r: %s" % (doc, piece, why))
    print("    %d examples: %d run as shown, %d rewritten, %d skipped"
          % (sum(map(len, tally.values())), len(tally["as shown"]), len(tally["rewritten"]), len(tally["skipped"])))
    check("examples_counted", sum(map(len, tally.values())) > 0, tally)


# Planted transcripts, run and compared as the docs' are: (must it pass?, what it plants, transcript).
PLANTED = [
    (True, "control: as printed, another number", "$ ./feelfish perft startpos 2\nNodes searched: 1234"),
    (False, "a wrong line", "$ ./feelfish perft startpos 2\nNodes counted: 400"),
    (True, "control: lines elided with ...", "$ ./feelfish perft startpos 2 --divide\na2a3: 20\n...\nNodes searched: 400"),
    (False, "a line too many", "$ ./feelfish perft startpos 2 --divide\n...\nNodes searched: 400\nthat is all"),
    (False, "a line missing", "$ ./feelfish perft startpos 2 --divide\na2a3: 20\nNodes searched: 400"),
    (False, "output where the doc shows none", "$ ./feelfish perft startpos 1"),
    (True, "control: JSON with ...", '$ curl -s localhost:8080/api/health\n'
                                     '{"status":"ok","workers":{"busy":0,...},...,\n "storage":{...}}'),
    (False, "a wrong key", '$ curl -s localhost:8080/api/health\n{"statuz":"ok",...}'),
    (False, "a wrong type", '$ curl -s localhost:8080/api/health\n{"status":1,...}'),
    (False, "a nested wrong type", '$ curl -s localhost:8080/api/health\n{"workers":{"busy":"0",...},...}'),
    (False, "keys not shown, no ...", '$ curl -s localhost:8080/api/health\n{"status":"ok","version":"0.1.0"}'),
    (True, "control: an array shown open", '$ ./feelfish analyse --moves e2e4 --depth 3 --multipv 2\n'
                                           '{"pvs": [{"moves": [...], "san": [...], "cp": 0}, ...], ...}'),
    (False, "an array longer than shown", '$ ./feelfish analyse --moves e2e4 --depth 3 --multipv 2\n'
                                          '{"pvs": [{"moves": [...], "san": [...], "cp": 0}], ...}'),
    (False, "two JSON values shown, one printed", '$ ./feelfish analyse --moves e2e4 --depth 3\n{...}\n{...}'),
    (False, "a command that fails", "$ ./feelfish perft nonsense 2\n..."),
]


@suite.test()
def comparison_can_fail():
    """The planted transcripts, extracted, run and compared as the docs' are: each control passes, and
    each planted error (a wrong line, a wrong key, a wrong type, keys or lines more or fewer than shown,
    output where none is shown, a failing command) is reported."""
    text = "\n".join("```sh\n%s\n```" % t for _, _, t in PLANTED)
    blocks = transcripts("planted.md", text)
    assert len(blocks) == len(PLANTED)
    wrong = []
    for (should_pass, what, _), block in zip(PLANTED, blocks):
        block[0].name = "planted: " + what
        passed, detail = run_block(block, suite.server)[block[0].name]
        print("    %-40s %s%s" % (block[0].name, "passes" if passed else "fails: ", "" if passed else detail[-1][:160]),
              flush=True)
        if passed != should_pass:
            wrong.append((what, "passed" if passed else "failed", detail))
    check("comparison_can_fail", not wrong, wrong)


if __name__ == "__main__":
    sys.exit(suite.main())
