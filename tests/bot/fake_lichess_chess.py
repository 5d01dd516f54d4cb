"""The chess inside the fake Lichess (fake_lichess.py): legal moves, check and positions from a
Stockfish process (`go perft 1`, `d`), the end-of-game rules it does not judge (bare kings), and a game's
record with its clocks running for real from the second move on, as on Lichess."""
import os
import subprocess
import threading
import time

STOCKFISH = os.environ.get("STOCKFISH", "/usr/games/stockfish")
STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
TERMINAL = ("aborted", "mate", "resign", "stalemate", "timeout", "draw", "outoftime", "cheat", "noStart",
            "unknownFinish", "insufficientMaterialClaim", "variantEnd")
STATUS_IDS = {"created": 10, "started": 20, "aborted": 25, "mate": 30, "resign": 31, "stalemate": 32,
              "timeout": 33, "draw": 34, "outoftime": 35, "cheat": 36, "noStart": 37}


def other(color):
    return "black" if color == "white" else "white"


def speed_of(clock):
    """Lichess's speed for a clock (limit s, increment s): by limit + 40 * increment."""
    if clock is None:
        return "correspondence"
    est = clock[0] + 40 * clock[1]
    return ("ultraBullet" if est < 30 else "bullet" if est < 180 else "blitz" if est < 480
            else "rapid" if est < 1500 else "classical")


class Engine:
    """One Stockfish process; one caller at a time."""

    def __init__(self, options=None):
        self.p = subprocess.Popen([STOCKFISH], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lock = threading.Lock()
        self._send("uci")
        self._until("uciok")
        for name, value in {"Threads": 1, "Hash": 16, **(options or {})}.items():
            self._send("setoption name %s value %s" % (name, value))
        self._send("isready")
        self._until("readyok")

    def _send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def _until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("stockfish ended")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def _position(self, fen, moves):
        base = "position startpos" if fen in (None, "", "startpos", STARTPOS) else "position fen " + fen
        self._send(base + (" moves " + " ".join(moves) if moves else ""))

    def analyse(self, fen, moves):
        """(legal moves in UCI, side to move in check, FEN) after `moves` from `fen`."""
        with self.lock:
            self._position(fen, moves)
            self._send("d")
            self._send("isready")
            board = self._until("readyok")
            self._send("go perft 1")
            perft = self._until("Nodes searched")
        after = next(l[5:] for l in board if l.startswith("Fen: "))
        checkers = next((l[9:].strip() for l in board if l.startswith("Checkers:")), "")
        legal = [l.split(":")[0] for l in perft if ": " in l and not l.startswith("Nodes")]
        return legal, bool(checkers), after

    def best(self, fen, moves, go):
        with self.lock:
            self._position(fen, moves)
            self._send("go " + go)
            line = self._until("bestmove")[-1]
        return line.split()[1]

    def close(self):
        try:
            self._send("quit")
            self.p.wait(2)
        except Exception:  # noqa: BLE001
            self.p.kill()


def insufficient(fen):
    """Bare kings, or a king and one minor piece against a bare king."""
    pieces = [c for c in fen.split()[0] if c.isalpha() and c not in "kK"]
    return not pieces or (len(pieces) == 1 and pieces[0] in "nNbB")


class Game:
    def __init__(self, fake, gid, opts):
        self.fake, self.id = fake, gid
        self.opts = opts
        self.bot_color = opts.get("bot_color", "white")
        self.opp_color = other(self.bot_color)
        self.opponent = opts["opponent"]
        self.clock = opts.get("clock", (60, 0))  # (limit s, increment s), or None: unlimited
        self.inc = self.clock[1] * 1000 if self.clock else 0
        self.time = {c: (self.clock[0] * 1000 if self.clock else 2147483647) for c in ("white", "black")}
        self.initial_fen = opts.get("fen") or "startpos"
        self.max_plies = opts.get("max_plies", 400)
        self.rated = bool(opts.get("rated", False))
        self.created = int(time.time() * 1000)
        self.started_at = time.monotonic()
        self.started_t = fake.now()
        self.dropped_t = None
        self.moves, self.history = [], []  # UCI; per ply: {uci, by, t, left_ms}
        self.status, self.winner, self.end_reason = "started", None, ""
        self.ended_at = None
        self.legal, self.in_check, self.fen = [], False, STARTPOS
        self.keys = {}  # position key -> times seen, for threefold repetition
        self.turn_start = time.monotonic()
        self.draw_offer = {"white": False, "black": False}
        self.takeback_offer = {"white": False, "black": False}
        self.takeback_answers = []  # (answer, plies before, plies after, t)
        self.takebacks_done = set()  # the plies at which the scripted proposals were made
        self.opp_offered = False  # the scripted offer was made
        self.draw_offer_ply = None
        self.draw_answers = []  # (answer, plies, t): the bot's draw/yes, draw/no, offeringDraw=true
        self.bot_offers = 0
        self.rejected = []  # (uci, why, plies, t): moves refused with 400
        self.move_429_done = False
        self.rate_limited = []  # (kind, t)
        self.dropped_at = None  # plies when the stream was dropped
        self.streams, self.stream_opens, self.dup_streams = [], [], 0
        self.chat = []  # (room, username, text, t)
        self.aborted_by_bot_at = None
        self.cond = threading.Condition(fake.lock)
        self.engine = None
        self.thread = None

    # ---- the position ----
    def to_move(self):
        white = (self.fen.split()[1] == "w")
        return "white" if white else "black"

    def clock_running(self):
        return self.clock is not None and len(self.moves) >= 2 and self.status == "started"

    def remaining(self, color, now=None):
        t = self.time[color]
        if self.clock_running() and color == self.to_move():
            t -= ((now or time.monotonic()) - self.turn_start) * 1000
        return t

    def player(self, color):
        if color == self.bot_color:
            return {"id": self.fake.account["id"], "name": self.fake.account["username"],
                    "title": self.fake.account.get("title"), "rating": 1500}
        o = self.opponent
        return {"id": o["id"], "name": o["name"], "title": o.get("title"), "rating": o.get("rating", 1500)}

    def state(self):
        s = {"type": "gameState", "moves": " ".join(self.moves),
             "wtime": max(0, int(self.remaining("white"))), "btime": max(0, int(self.remaining("black"))),
             "winc": self.inc, "binc": self.inc, "status": self.status}
        if self.winner:
            s["winner"] = self.winner
        if self.status == "started":
            if self.draw_offer["white"]:
                s["wdraw"] = True
            if self.draw_offer["black"]:
                s["bdraw"] = True
            if self.takeback_offer["white"]:
                s["wtakeback"] = True
            if self.takeback_offer["black"]:
                s["btakeback"] = True
        return s

    def full(self):
        f = {"type": "gameFull", "id": self.id,
             "variant": {"key": self.opts.get("variant", "standard"), "name": self.opts.get("variant", "Standard"),
                         "short": self.opts.get("variant", "Std")[:3]},
             "speed": speed_of(self.clock), "perf": {"name": speed_of(self.clock).capitalize()},
             "rated": self.rated, "createdAt": self.created,
             "white": self.player("white"), "black": self.player("black"),
             "initialFen": self.initial_fen, "state": self.state()}
        if self.clock:
            f["clock"] = {"initial": self.clock[0] * 1000, "increment": self.inc}
        return f

    def event_info(self):
        opp = self.opponent
        info = {"fullId": self.id + "wxyz", "gameId": self.id, "id": self.id, "fen": self.fen,
                "color": self.bot_color, "lastMove": self.moves[-1] if self.moves else "", "source": "friend",
                "status": {"id": STATUS_IDS.get(self.status, 38), "name": self.status},
                "variant": {"key": self.opts.get("variant", "standard"), "name": self.opts.get("variant", "Standard")},
                "speed": speed_of(self.clock),
                "perf": speed_of(self.clock), "rated": self.rated, "hasMoved": len(self.moves) > 0,
                "opponent": {"id": opp["id"], "username": opp["name"], "rating": opp.get("rating", 1500)},
                "isMyTurn": self.status == "started" and self.to_move() == self.bot_color,
                "secondsLeft": int(self.remaining(self.bot_color) / 1000), "compat": {"bot": True, "board": False}}
        if self.winner:
            info["winner"] = self.winner
        return info

    def bot_moves(self):
        return [h for h in self.history if h["by"] == self.bot_color]

    def summary(self):
        """What a test reads after the game."""
        clocked = [h["left_ms"] for h in self.bot_moves() if h["left_ms"] is not None]
        return {"id": self.id, "status": self.status, "winner": self.winner, "plies": len(self.moves),
                "bot_color": self.bot_color, "moves": list(self.moves), "rejected": list(self.rejected),
                "bot_min_clock_ms": min(clocked) if clocked else None, "end_reason": self.end_reason,
                "stream_opens": len(self.stream_opens), "dup_streams": self.dup_streams,
                "dropped_at": self.dropped_at, "dropped_t": self.dropped_t, "started_t": self.started_t,
                "aborted_by_bot_at": self.aborted_by_bot_at, "history": [dict(h) for h in self.history],
                "stream_open_times": list(self.stream_opens), "draw_offer_ply": self.draw_offer_ply,
                "draw_answers": list(self.draw_answers), "chat": list(self.chat),
                "takeback_answers": list(self.takeback_answers)}
