#!/usr/bin/env python3
"""A fake Lichess for feelfish's bot bridge (`feelfish bot`): the Bot API of
shared/spec/lichess-bot.md on a free loopback port, with real chess rules and real clocks.

What it serves (every call but POST /api/token/test needs `Authorization: Bearer <token>`, else 401):

    POST /api/token/test                     {"<token>": {userId, scopes, expires} | null}
    GET  /api/account                        the account of the token ({id, username, title})
    GET  /api/account/playing?nb=            {"nowPlaying": [...]}: the games in progress
    GET  /api/stream/event                   NDJSON: gameStart for games in progress and challenge for
                                             open challenges on connect, then challenge/gameStart/gameFinish;
                                             an empty line every `keepalive` s; a new stream closes the old
    GET  /api/bot/game/stream/{id}           NDJSON: gameFull, then gameState on every change, chatLine,
                                             keep-alive lines; closed after the terminal state
    POST /api/bot/game/{id}/move/{uci}?offeringDraw=
    POST /api/bot/game/{id}/abort|resign|draw/{yes,no}|chat|claim-victory|claim-draw|takeback/{yes,no}
    GET  /api/bot/online                     (NDJSON of the bots in fake.online_bots)
    POST /api/challenge/{username}           (the bot's own challenge: the bot named answers by its
                                              "answer": accept, decline:<reason>, or ignore)
    POST /api/challenge/{id}/cancel
    POST /api/challenge/{id}/accept|decline  (decline: form reason=<key>)
    GET  /fake/state, POST /fake/challenge   (no auth: for trying the bot by hand)

Legal moves, check and the position come from Stockfish (fake_lichess_chess.py); a game ends by mate,
stalemate, the 50-move rule, threefold repetition, bare kings (or one minor piece), a ply cap
(adjudicated a draw), a flag (status outoftime: the clocks run for real from the second move on,
as on Lichess), resign, abort or an accepted draw. The opponent plays from its own thread with its
own Stockfish (fixed movetime, or on its clock), or never moves, as the game's options say.

Everything is recorded: every request (method, path, headers, body, answer), calls per kind,
each challenge's answer (accept, or the decline reason), each game's moves with the mover's clock,
rejected moves, draw offers and answers, chat. Misbehaviours are scripted: 429 (HTML body,
Retry-After) or 503 on the next calls of a kind, the next calls of a kind stalled, a game stream dropped (TCP reset) once at a ply, an
event stream dropped on demand, a draw offer from the opponent, an opponent that never moves.

Run alone: `python3 tests/bot/fake_lichess.py --port 9000 --token lip_test` then point a bot
config's url at http://127.0.0.1:9000/ and POST /fake/challenge {"bot_color": "white", "clock": [60, 0]}."""
import json
import queue
import random
import socket
import string
import struct
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fake_lichess_chess import Engine, Game, insufficient, other, speed_of

CLOSE, DROP = object(), object()  # stream queue items: end cleanly / reset the connection
BOT = {"id": "feelbot", "username": "FeelBot", "title": "BOT"}
HTML_429 = (b"<!DOCTYPE html><html><head><title>429 Too Many Requests</title></head><body><h1>Too Many Requests"
            b"</h1><p>Please wait a minute before trying again.</p></body></html>")


class FakeLichess:
    """The fake server: FakeLichess(token=...).start(); .url; .close()."""

    def __init__(self, token="lip_fakeToken", account=None, scopes="bot:play,challenge:read,challenge:write",
                 keepalive=4.0, seed=1, opponent_engine_options=None, log=None):
        self.token = token
        self.account = dict(BOT if account is None else account)
        self.scopes = scopes
        self.keepalive = keepalive
        self.rng = random.Random(seed)
        self.lock = threading.RLock()
        self.games, self.challenges = {}, {}
        self.answers = {}  # challenge id -> ("accept",) or ("decline", reason)
        self.answer_times = {}  # challenge id -> when it was answered (fake.now())
        self.online_bots = []  # User JSON of the bots GET /api/bot/online lists (+ "answer", "game")
        self.outgoing = []  # the bot's own challenges: {id, to, form, t, status}
        self.requests = []  # {t, method, path, headers, body, status, kind}
        self.rate_limit = {}  # kind -> how many of the next calls get 429
        self.failing = {}  # kind -> how many of the next calls get 503 (a deploy, an overloaded server)
        self.stalling = {}  # kind -> [how many of the next calls, seconds each waits before its answer]
        self.event_streams = []
        self.event_opens = []
        self.in_flight, self.max_in_flight = 0, 0
        self.opponent_engine_options = opponent_engine_options or {}
        self.log = log
        self.rules = Engine()
        self.t0 = time.monotonic()
        self.stopping = False
        fake = self

        class Handler(_Handler):
            pass
        Handler.fake = fake
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = "http://127.0.0.1:%d/" % self.port

    def start(self):
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        threading.Thread(target=self._watch_clocks, daemon=True).start()
        return self

    def close(self):
        self.stopping = True
        with self.lock:
            for g in self.games.values():
                for q in g.streams:
                    q.put(CLOSE)
                g.cond.notify_all()
            for q in self.event_streams:
                q.put(CLOSE)
        self.httpd.shutdown()
        self.httpd.server_close()
        for g in list(self.games.values()):
            if g.thread:
                g.thread.join(3)
        self.rules.close()

    def now(self):
        return time.monotonic() - self.t0

    def _log(self, text):
        if self.log:
            self.log("%7.2f fake: %s" % (self.now(), text))

    def _id(self):
        while True:
            i = "".join(self.rng.choice(string.ascii_letters + string.digits) for _ in range(8))
            if i not in self.games and i not in self.challenges:
                return i

    # ---- what tests do ----
    def calls(self, kind=None):
        with self.lock:
            return [r for r in self.requests if kind is None or r["kind"] == kind]

    def fail(self, kind, count=1):
        """The next `count` calls of this kind (token_test too) get 503 with an HTML body."""
        with self.lock:
            self.failing[kind] = self.failing.get(kind, 0) + count

    def stall(self, kind, seconds, count=1):
        """The next `count` calls of this kind are answered only after `seconds` (a stalled server)."""
        with self.lock:
            self.stalling[kind] = [count, seconds]

    def limit(self, kind, count=1):
        """The next `count` calls of this kind (accept, decline, chat, move, abort, ...) get 429."""
        with self.lock:
            self.rate_limit[kind] = self.rate_limit.get(kind, 0) + count

    def challenge(self, challenger=None, variant="standard", clock=(60, 0), days=None, rated=False,
                  speed=None, bot_color="white", fen=None, game=None, cid=None):
        """Sends a challenge on the event stream (and keeps it open until answered); `game`: the
        options of the game it becomes if accepted (Game's opts). Returns its id."""
        challenger = challenger or {"id": "opp", "name": "Opp", "title": None, "rating": 1500}
        cid = cid or self._id()
        if days is not None:
            tc, spd = {"type": "correspondence", "daysPerTurn": days}, "correspondence"
        elif clock is None:
            tc, spd = {"type": "unlimited"}, "correspondence"
        else:
            tc = {"type": "clock", "limit": clock[0], "increment": clock[1], "show": "%g+%g" % (clock[0] / 60, clock[1])}
            spd = speed_of(clock)
        spd = speed or spd
        ch = {"id": cid, "url": self.url + cid, "status": "created",
              "challenger": dict({"online": True, "provisional": False, "lag": 4}, **challenger),
              "destUser": {"id": self.account["id"], "name": self.account["username"],
                           "title": self.account.get("title"), "rating": 1500, "online": True},
              "variant": {"key": variant, "name": variant, "short": variant[:3]}, "rated": rated,
              "speed": spd, "timeControl": tc, "color": other(bot_color), "finalColor": other(bot_color),
              "perf": {"icon": "", "name": spd}, "direction": "in"}
        if fen:
            ch["initialFen"] = fen
        opts = dict(game or {})
        opts.setdefault("bot_color", bot_color)
        opts.setdefault("opponent", challenger)
        opts.setdefault("clock", clock if days is None else None)
        opts.setdefault("rated", rated)
        with self.lock:
            self.challenges[cid] = {"json": ch, "opts": opts, "open": True}
            self._event({"type": "challenge", "challenge": ch, "compat": {"bot": True, "board": True}})
        self._log("challenge %s %s %s %s" % (cid, variant, tc, "rated" if rated else "casual"))
        return cid

    def new_game(self, opts, gid=None, announce=True):
        """Starts a game now (as if a challenge was accepted); opts as Game's. Returns the Game."""
        with self.lock:
            gid = gid or self._id()
            g = Game(self, gid, opts)
            for m in opts.get("moves", []):
                g.moves.append(m)
                g.history.append({"uci": m, "by": "white" if len(g.moves) % 2 else "black", "t": 0, "left_ms": None})
            g.legal, g.in_check, g.fen = self.rules.analyse(g.initial_fen, g.moves)
            g.keys[" ".join(g.fen.split()[:4])] = 1
            self.games[gid] = g
            g.thread = threading.Thread(target=self._opponent, args=(g,), daemon=True)
            g.thread.start()
            if announce:
                self._event({"type": "gameStart", "game": g.event_info()})
        self._log("game %s starts, bot %s" % (gid, g.bot_color))
        return g

    def drop_event_stream(self):
        with self.lock:
            for q in self.event_streams:
                q.put(DROP)

    def wait(self, cond, timeout, step=0.05):
        """Waits until cond() (called under the lock) is true; returns its last value."""
        end = time.monotonic() + timeout
        while True:
            with self.lock:
                v = cond()
            if v or time.monotonic() > end:
                return v
            time.sleep(step)

    def state(self):
        with self.lock:
            return {"games": {i: g.summary() for i, g in self.games.items()},
                    "answers": {i: list(a) for i, a in self.answers.items()},
                    "calls": {k: len([r for r in self.requests if r["kind"] == k])
                              for k in sorted({r["kind"] for r in self.requests})},
                    "event_streams": len(self.event_streams), "max_in_flight": self.max_in_flight}

    # ---- the games ----
    def _event(self, e):
        for q in self.event_streams:
            q.put(e)

    def _push(self, g, item):
        for q in g.streams:
            q.put(item)

    def _push_state(self, g):
        s = g.state()
        drop = g.opts.get("drop_stream_at")
        if (drop is not None and g.dropped_at is None and g.status == "started" and len(g.moves) >= drop
                and g.to_move() == g.bot_color and g.streams):
            g.dropped_at, g.dropped_t = len(g.moves), self.now()
            self._log("game %s: dropping its stream at ply %d" % (g.id, len(g.moves)))
            self._push(g, DROP)
            return
        self._push(g, s)

    def _finish(self, g, status, winner=None, why=""):
        if g.status != "started":
            return
        g.status, g.winner, g.end_reason = status, winner, why or status
        g.ended_at = time.monotonic()
        g.draw_offer = {"white": False, "black": False}
        self._push_state(g)
        self._push(g, CLOSE)
        self._event({"type": "gameFinish", "game": g.event_info()})
        g.cond.notify_all()
        self._log("game %s over: %s %s (%s) after %d plies" % (g.id, status, winner or "", why, len(g.moves)))

    def _move(self, g, uci, color, expect_plies=None, offering_draw=False):
        """Plays uci for color: None, or (why: over|turn|illegal, error text). Under the lock."""
        now = time.monotonic()
        if g.status != "started":
            return "over", "Not your turn, or game already over"
        if g.to_move() != color or (expect_plies is not None and expect_plies != len(g.moves)):
            return "turn", "Not your turn, or game already over"
        if uci not in g.legal:
            return "illegal", "Illegal move %s" % uci
        left = None
        if g.clock_running():
            left = g.time[color] - (now - g.turn_start) * 1000
            if left <= 0:
                self._finish(g, "outoftime", other(color), "%s flagged (%d ms) when its move came" % (color, left))
                return "over", "Not your turn, or game already over"
            g.time[color] = left + g.inc
        g.moves.append(uci)
        g.history.append({"uci": uci, "by": color, "t": self.now(), "left_ms": left})
        g.legal, g.in_check, g.fen = self.rules.analyse(g.initial_fen, g.moves)
        g.turn_start = now
        key = " ".join(g.fen.split()[:4])
        g.keys[key] = g.keys.get(key, 0) + 1
        g.draw_offer[other(color)] = False  # a move declines the other side's offer
        g.takeback_offer = {"white": False, "black": False}  # and withdraws any takeback proposal
        if offering_draw:
            g.draw_offer[color] = True
        if not g.legal:
            if g.in_check:
                self._finish(g, "mate", color)
            else:
                self._finish(g, "stalemate", None)
        elif insufficient(g.fen):
            self._finish(g, "draw", None, "insufficient material")
        elif int(g.fen.split()[4]) >= 100:
            self._finish(g, "draw", None, "50-move rule")
        elif g.keys[key] >= 3:
            self._finish(g, "draw", None, "threefold repetition")
        elif len(g.moves) >= g.max_plies:
            self._finish(g, "draw", None, "adjudicated at %d plies" % g.max_plies)
        else:
            self._push_state(g)
        g.cond.notify_all()
        return None

    def _opponent(self, g):
        """The opponent's side of one game, on its own thread."""
        try:
            self._play_opponent(g)
        except Exception as e:  # noqa: BLE001
            self._log("game %s: opponent failed: %r" % (g.id, e))
        finally:
            if g.engine:
                g.engine.close()

    def _play_opponent(self, g):
        o = g.opts
        while True:
            with self.lock:
                while not self.stopping and g.status == "started" and (g.to_move() != g.opp_color or o.get("never_moves")):
                    g.cond.wait(0.5)
                if self.stopping or g.status != "started":
                    return
                plies, moves = len(g.moves), list(g.moves)
                wt, bt = int(g.remaining("white")), int(g.remaining("black"))
                clock_on = g.clock_running()
            if g.engine is None:
                opts = dict(self.opponent_engine_options)
                if o.get("skill") is not None:
                    opts["Skill Level"] = o["skill"]
                g.engine = Engine(opts)
                g.engine._send("ucinewgame")
            if o.get("movetime") or not clock_on or g.clock is None:
                go = "movetime %d" % (o.get("movetime") or 100)
            else:
                go = "wtime %d btime %d winc %d binc %d" % (max(wt, 1), max(bt, 1), g.inc, g.inc)
            uci = g.engine.best(g.initial_fen, moves, go)
            with self.lock:
                offer = o.get("draw_offer_at") is not None and not g.opp_offered and plies + 1 >= o["draw_offer_at"]
                err = self._move(g, uci, g.opp_color, expect_plies=plies, offering_draw=offer)
                tb = [p for p in o.get("takeback_at", []) if p not in g.takebacks_done and len(g.moves) >= p]
                if err is None and tb and g.status == "started":
                    g.takebacks_done.add(tb[0])
                    g.takeback_offer[g.opp_color] = True
                    self._log("game %s: the opponent asks to take back its move at ply %d" % (g.id, len(g.moves)))
                    self._push_state(g)
                if err is None and offer and g.status == "started":
                    g.opp_offered = True
                    g.draw_offer_ply = len(g.moves)
                    self._log("game %s: the opponent offers a draw at ply %d" % (g.id, len(g.moves)))

    def _watch_clocks(self):
        while not self.stopping:
            time.sleep(0.02)
            with self.lock:
                now = time.monotonic()
                for g in self.games.values():
                    if g.clock_running():
                        side = g.to_move()
                        if g.remaining(side, now) <= 0:
                            self._finish(g, "outoftime", other(side), "%s's flag fell" % side)

    # ---- the API: each returns (status, JSON-able or bytes, extra headers) ----
    def api(self, method, path, query, body, headers, handler):
        parts = [p for p in path.split("/") if p]
        if method == "POST" and path == "/api/token/test":
            toks = [t.strip() for t in body.decode(errors="replace").split(",") if t.strip()]
            return 200, {t: ({"userId": self.account["id"], "scopes": self.scopes, "expires": None}
                             if t == self.token else None) for t in toks}
        if path.startswith("/fake/"):
            return self.control(method, path, body)
        if headers.get("Authorization") != "Bearer " + self.token:
            return 401, {"error": "No such token"}
        if method == "GET" and path == "/api/account":
            return 200, dict(self.account, perfs={}, createdAt=0, seenAt=0, playTime={"total": 0, "tv": 0})
        if method == "GET" and path == "/api/account/playing":
            nb = int(query.get("nb", ["9"])[0])
            with self.lock:
                now = [dict(g.event_info(), gameId=g.id) for g in self.games.values() if g.status == "started"]
            return 200, {"nowPlaying": now[:nb], "nbMyTurn": sum(1 for n in now if n["isMyTurn"])}
        if method == "GET" and path == "/api/stream/event":
            return self.event_stream(handler)
        if method == "GET" and parts[:4] == ["api", "bot", "game", "stream"] and len(parts) == 5:
            return self.game_stream(handler, parts[4])
        if method == "POST" and parts[:2] == ["api", "challenge"] and len(parts) == 4:
            return self.answer_challenge(parts[2], parts[3], body)
        if method == "POST" and parts[:2] == ["api", "challenge"] and len(parts) == 3:
            return self.create_challenge(parts[2], body)
        if method == "GET" and path == "/api/bot/online":
            nb = int(query.get("nb", ["100"])[0])
            with self.lock:
                users = [{k: v for k, v in u.items() if k not in ("answer", "game")} for u in self.online_bots[:nb]]
            return 200, b"".join(json.dumps(u).encode() + b"\n" for u in users), {"Content-Type": "application/x-ndjson"}
        if method == "POST" and parts[:3] == ["api", "bot", "game"] and len(parts) >= 5:
            return self.game_action(parts[3], parts[4:], query, body)
        return 404, {"error": "Not found"}

    def answer_challenge(self, cid, action, body):
        time.sleep(0.03)  # a little server time, so overlapping calls would show (max_in_flight)
        with self.lock:
            ch = self.challenges.get(cid)
            out = [o for o in self.outgoing if o["id"] == cid]
            if action == "cancel" and out:
                out[0]["status"] = "canceled"
                out[0]["canceled_t"] = self.now()
                self._log("the bot cancels its challenge %s" % cid)
                return 200, {"ok": True}
            if not ch or not ch["open"] or action not in ("accept", "decline"):
                return 404, {"error": "Not found"}
            if action == "cancel":
                return 404, {"error": "Not found"}  # only the challenger cancels, and that is the bot's own
            ch["open"] = False
            self.answer_times[cid] = self.now()
            if action == "decline":
                form = urllib.parse.parse_qs(body.decode(errors="replace"))
                reason = form.get("reason", ["generic"])[0]
                self.answers[cid] = ("decline", reason)
                ch["json"]["status"] = "declined"
                self._log("challenge %s declined: %s" % (cid, reason))
                return 200, {"ok": True}
            self.answers[cid] = ("accept",)
            ch["json"]["status"] = "accepted"
            self._log("challenge %s accepted" % cid)
            self.new_game(ch["opts"], gid=cid)
            return 200, {"ok": True}

    def game_action(self, gid, action, query, body):
        with self.lock:
            g = self.games.get(gid)
            if not g:
                return 404, {"error": "Not found"}
            t = self.now()
            if action[0] == "move" and len(action) == 2:
                uci = action[1]
                if (g.opts.get("move_429_at") is not None and not g.move_429_done
                        and len(g.bot_moves()) == g.opts["move_429_at"] and g.status == "started"):
                    g.move_429_done = True
                    g.rate_limited.append(("move", t))
                    return 429, HTML_429, {"Retry-After": "1", "Content-Type": "text/html; charset=utf-8"}
                offering = query.get("offeringDraw", ["false"])[0] == "true"
                if offering and g.draw_offer[g.opp_color] and g.status == "started":
                    g.draw_answers.append(("move-offeringDraw", len(g.moves), t))
                if offering:
                    g.bot_offers += 1
                accept_pending = offering and g.draw_offer[g.opp_color]
                err = self._move(g, uci, g.bot_color, offering_draw=offering)
                if err:
                    g.rejected.append((uci, err[0], len(g.moves), t))
                    self._log("game %s: bot move %s refused: %s" % (gid, uci, err[1]))
                    return 400, {"error": err[1]}
                if accept_pending and g.status == "started":
                    self._finish(g, "draw", None, "draw offer accepted with a move")
                elif offering and g.opts.get("accept_draw") and g.status == "started":
                    self._finish(g, "draw", None, "the opponent accepted the bot's offer")
                return 200, {"ok": True}
            what = "/".join(action)
            if what == "abort":
                if g.status != "started" or len(g.moves) >= 2:
                    return 400, {"error": "This game can no longer be aborted"}
                g.aborted_by_bot_at = t
                self._finish(g, "aborted", None, "the bot aborted")
                return 200, {"ok": True}
            if what == "resign":
                if g.status != "started":
                    return 400, {"error": "This game cannot be resigned"}
                if len(g.moves) < 2:
                    self._finish(g, "aborted", None, "the bot resigned an abortable game")
                else:
                    self._finish(g, "resign", g.opp_color, "the bot resigned")
                return 200, {"ok": True}
            if what in ("draw/yes", "draw/true", "draw/no", "draw/false"):
                yes = what in ("draw/yes", "draw/true")
                g.draw_answers.append(("yes" if yes else "no", len(g.moves), t))
                if g.status != "started":
                    return 400, {"error": "The game is over"}
                if yes and g.draw_offer[g.opp_color]:
                    self._finish(g, "draw", None, "the bot accepted the opponent's draw offer")
                elif yes:
                    g.bot_offers += 1
                    g.draw_offer[g.bot_color] = True
                    self._push_state(g)
                elif g.draw_offer[g.opp_color]:
                    g.draw_offer[g.opp_color] = False
                    self._push_state(g)
                return 200, {"ok": True}
            if what == "chat":
                form = urllib.parse.parse_qs(body.decode(errors="replace"))
                room, text = form.get("room", [""])[0], form.get("text", [""])[0]
                if room not in ("player", "spectator") or not text:
                    return 400, {"error": "room and text, please"}
                g.chat.append((room, self.account["username"], text, t))
                self._push(g, {"type": "chatLine", "room": room, "username": self.account["username"], "text": text})
                return 200, {"ok": True}
            if what in ("claim-victory", "claim-draw"):
                return 400, {"error": "The opponent has not left the game"}
            if action[0] == "takeback" and len(action) == 2:
                yes = action[1] in ("yes", "true")
                before = len(g.moves)
                if g.status != "started":
                    return 400, {"error": "The game is over"}
                if yes and g.takeback_offer[g.opp_color]:
                    # the proposer just moved (the bot is to move): its move is taken back
                    self._undo(g, 1)
                g.takeback_offer[g.opp_color] = False
                g.takeback_answers.append(("yes" if yes else "no", before, len(g.moves), t))
                self._push_state(g)
                g.cond.notify_all()
                return 200, {"ok": True}
            return 404, {"error": "Not found"}

    def _undo(self, g, plies):
        """Takes back the last plies (under the lock): the position is replayed, the clocks kept."""
        for _ in range(plies):
            g.moves.pop()
            g.history.pop()
        g.legal, g.in_check, g.fen = self.rules.analyse(g.initial_fen, g.moves)
        g.keys = {}
        g.turn_start = time.monotonic()

    def create_challenge(self, username, body):
        """The bot challenges a bot of online_bots; that bot answers after 0.3 s as its "answer" says."""
        form = urllib.parse.parse_qs(body.decode(errors="replace"))
        with self.lock:
            target = [u for u in self.online_bots if u["username"].lower() == username.lower()]
            if not target:
                return 404, {"error": "No such user"}
            u = target[0]
            cid = self._id()
            rec = {"id": cid, "to": u["id"], "form": {k: v[0] for k, v in form.items()}, "t": self.now(),
                   "status": "created"}
            self.outgoing.append(rec)
            self.challenges[cid] = {"json": {"id": cid}, "opts": {}, "open": False}
        self._log("the bot challenges %s: %s" % (username, rec["form"]))
        threading.Timer(0.3, self._outgoing_answer, args=(rec, u)).start()
        ch = {"id": cid, "url": self.url + cid, "status": "created", "challenger": {"id": self.account["id"]},
              "destUser": {"id": u["id"], "name": u["username"], "title": "BOT"}, "direction": "out",
              "rated": rec["form"].get("rated") == "true"}
        return 200, ch

    def _outgoing_answer(self, rec, u):
        answer = u.get("answer", "accept")
        with self.lock:
            if self.stopping or rec["status"] != "created":
                return
            if answer == "accept":
                rec["status"] = "accepted"
                f = rec["form"]
                clock = (int(f.get("clock.limit", 60)), int(f.get("clock.increment", 0))) if "clock.limit" in f else None
                opts = dict(u.get("game") or {})
                opts.setdefault("bot_color", self.rng.choice(["white", "black"]))
                opts.setdefault("opponent", {"id": u["id"], "name": u["username"], "title": "BOT",
                                             "rating": u.get("perfs", {}).get(speed_of(clock), {}).get("rating", 1500)})
                opts.setdefault("clock", clock)
                opts.setdefault("rated", f.get("rated") == "true")
                self.new_game(opts, gid=rec["id"])
            elif answer.startswith("decline"):
                rec["status"] = "declined"
                reason = answer.split(":", 1)[1] if ":" in answer else "generic"
                self._event({"type": "challengeDeclined",
                             "challenge": {"id": rec["id"], "status": "declined", "declineReason": reason,
                                           "declineReasonKey": reason.lower(), "direction": "out",
                                           "destUser": {"id": u["id"], "name": u["username"]}}})

    def cancel(self, cid):
        """The challenger withdraws its challenge (challengeCanceled on the event stream)."""
        with self.lock:
            ch = self.challenges[cid]
            ch["open"] = False
            ch["json"]["status"] = "canceled"
            self._event({"type": "challengeCanceled", "challenge": ch["json"]})
        self._log("challenge %s canceled by its challenger" % cid)

    def say(self, gid, text, room="player", username=None):
        """The opponent (or a spectator) writes in a game's chat."""
        with self.lock:
            g = self.games[gid]
            name = username or g.opponent["name"]
            g.chat.append((room, name, text, self.now()))
            self._push(g, {"type": "chatLine", "room": room, "username": name, "text": text})

    def opponent_gone(self, gid, gone=True, seconds=5):
        with self.lock:
            e = {"type": "opponentGone", "gone": gone}
            if gone:
                e["claimWinInSeconds"] = seconds
            self._push(self.games[gid], e)

    # ---- streams ----
    def event_stream(self, handler):
        q = queue.Queue()
        with self.lock:
            for old in self.event_streams:
                old.put(CLOSE)  # one event stream per token: a new one ends the old (lila)
            self.event_streams = [q]
            self.event_opens.append(self.now())
            first = [{"type": "gameStart", "game": g.event_info()} for g in self.games.values() if g.status == "started"]
            first += [{"type": "challenge", "challenge": c["json"], "compat": {"bot": True, "board": True}}
                      for c in self.challenges.values() if c["open"]]
        self._log("event stream opened")
        try:
            handler.stream(q, first, self.keepalive)
        finally:
            with self.lock:
                if q in self.event_streams:
                    self.event_streams.remove(q)
        return None

    def game_stream(self, handler, gid):
        q = queue.Queue()
        with self.lock:
            g = self.games.get(gid)
            if not g:
                return 404, {"error": "Not found"}
            if g.streams:
                g.dup_streams += 1
                for old in g.streams:
                    old.put(CLOSE)  # lila ends the previous stream of the same game
            g.streams = [q]
            g.stream_opens.append(self.now())
            first = [g.full()]
            if g.status != "started":
                q.put(CLOSE)
        self._log("game %s: stream opened (%d plies)" % (gid, len(first[0]["state"]["moves"].split())))
        try:
            handler.stream(q, first, self.keepalive)
        finally:
            with self.lock:
                if q in g.streams:
                    g.streams.remove(q)
        return None

    def control(self, method, path, body):
        if path == "/fake/state":
            return 200, self.state()
        if method == "POST" and path == "/fake/challenge":
            o = json.loads(body or b"{}")
            clock = tuple(o["clock"]) if o.get("clock") else None
            cid = self.challenge(challenger=o.get("challenger"), variant=o.get("variant", "standard"),
                                 clock=clock if "clock" in o else (60, 0), days=o.get("days"),
                                 rated=o.get("rated", False), bot_color=o.get("bot_color", "white"),
                                 game=o.get("game"))
            return 200, {"id": cid}
        return 404, {"error": "Not found"}


def kind_of(method, path):
    p = [x for x in path.split("/") if x]
    if path == "/api/token/test":
        return "token_test"
    if path == "/api/account":
        return "account"
    if path == "/api/account/playing":
        return "playing"
    if path == "/api/stream/event":
        return "stream_event"
    if p[:4] == ["api", "bot", "game", "stream"]:
        return "game_stream"
    if p[:2] == ["api", "challenge"] and len(p) == 4:
        return p[3]  # accept, decline, cancel
    if p[:2] == ["api", "challenge"] and len(p) == 3:
        return "challenge_create"
    if path == "/api/bot/online":
        return "online"
    if p[:3] == ["api", "bot", "game"] and len(p) >= 5:
        return {"claim-victory": "claim", "claim-draw": "claim"}.get(p[4], p[4])  # move, abort, draw, chat...
    if p[:1] == ["fake"]:
        return "control"
    return "other"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake = None  # set per server

    def log_message(self, *args):
        pass

    def _serve(self, method):
        fake = self.fake
        url = urllib.parse.urlsplit(self.path)
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        kind = kind_of(method, url.path)
        rec = {"t": fake.now(), "method": method, "path": self.path, "kind": kind,
               "headers": list(self.headers.items()), "body": body, "status": None}
        streaming = kind in ("stream_event", "game_stream")
        with fake.lock:
            fake.requests.append(rec)
            limited = fake.rate_limit.get(kind, 0) > 0 and kind != "token_test"
            if limited:
                fake.rate_limit[kind] -= 1
            failing = not limited and fake.failing.get(kind, 0) > 0
            if failing:
                fake.failing[kind] -= 1
            stall = fake.stalling.get(kind)
            stall_s = stall[1] if stall and stall[0] > 0 else 0
            if stall_s:
                stall[0] -= 1
            if not streaming and kind != "control":
                fake.in_flight += 1
                fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
        if stall_s:
            fake._log("stalling %s %s for %s s" % (method, self.path, stall_s))
            time.sleep(stall_s)
        try:
            if limited:
                out = (429, HTML_429, {"Retry-After": "1", "Content-Type": "text/html; charset=utf-8"})
                fake._log("429 on %s %s" % (method, self.path))
            elif failing:
                out = (503, b"<html><body>503 Service Temporarily Unavailable</body></html>",
                       {"Content-Type": "text/html"})
                fake._log("503 on %s %s" % (method, self.path))
            else:
                out = fake.api(method, url.path, urllib.parse.parse_qs(url.query), body, self.headers, self)
        finally:
            if not streaming and kind != "control":
                with fake.lock:
                    fake.in_flight -= 1
        if out is None:  # a stream, answered and over
            rec["status"] = 200
            return
        status, payload = out[0], out[1]
        extra = out[2] if len(out) > 2 else {}
        rec["status"] = status
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", extra.pop("Content-Type", "application/json") if extra else "application/json")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._serve("GET")

    def do_POST(self):
        self._serve("POST")

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def stream(self, q, first, keepalive):
        """An NDJSON stream: `first` lines, then what comes on q (CLOSE ends it, DROP resets the
        connection), with an empty line after `keepalive` s of silence."""
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for e in first:
                self._chunk(json.dumps(e).encode() + b"\n")
            while True:
                try:
                    item = q.get(timeout=keepalive)
                except queue.Empty:
                    self._chunk(b"\n")
                    continue
                if item is CLOSE:
                    self.wfile.write(b"0\r\n\r\n")
                    return
                if item is DROP:
                    self._reset()
                    return
                self._chunk(json.dumps(item).encode() + b"\n")
        except OSError:
            return  # the client went away

    def _reset(self):
        """Closes the connection with a TCP reset, mid-stream (no last chunk)."""
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()
            self.connection.close()
        except OSError:
            pass


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=9000)
    ap.add_argument("--token", default="lip_fakeToken")
    a = ap.parse_args()
    fake = FakeLichess(token=a.token, log=print)
    fake.httpd.server_close()
    fake.httpd = ThreadingHTTPServer(("127.0.0.1", a.port), fake.httpd.RequestHandlerClass)
    fake.httpd.daemon_threads = True
    fake.port = fake.httpd.server_address[1]  # --port 0: a free one
    fake.url = "http://127.0.0.1:%d/" % fake.port
    fake.start()
    print("fake lichess on %s (token %s); POST /fake/challenge to challenge the bot" % (fake.url, a.token))
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.close()


if __name__ == "__main__":
    main()
