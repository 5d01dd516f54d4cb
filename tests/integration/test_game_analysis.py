#!/usr/bin/env python3
"""Whole-game analysis through the real server (POST /api/game-analysis ...): a master game of
../shared/data/pgn at fixed nodes; the result in Lichess's export shape (spec §8); progress frames over
WebSocket; the annotated PGN read back by feelfish's PGN reader and by chessops (web/node_modules)
with the same evaluations; a restart keeps the result, and one during the analysis runs it again;
DELETE cancels; bad input gets its code. Prints 'game-analysis: N passed, N failed'."""
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import FF, ROOT, SERVERS, Server, Suite, check, poll  # noqa: E402
from wsclient import WebSocket  # noqa: E402

DATA = os.environ.get("FEELFISH_DATA", os.path.join(ROOT, "..", "shared", "data"))
with open(os.path.join(DATA, "pgn", "Kasparov.pgn"), errors="replace") as f:
    GAMES = re.split(r"\n(?=\[Event )", f.read())
MASTER = GAMES[0]  # Chandler - Kasparov, 82 plies
NODES = 20000
suite = Suite("game-analysis", lambda: Server("--workers", "2"))
state = {}


def analysed(s, body, timeout=120):
    st, j, _ = s.request("POST", "/api/game-analysis", body)
    if st != 202:
        return st, j, None
    g = poll(lambda: s.request("GET", "/api/game-analysis/" + j["id"])[1],
             lambda g: g.get("status") not in ("queued", "running"), tries=int(timeout / 0.1), delay=0.1)
    return st, j, g


@suite.test("created_202", "progress_over_websocket", "result_lichess_shape", "judgements_with_lines")
def master_game():
    s = suite.server()
    st, j, _ = s.request("POST", "/api/game-analysis", {"pgn": MASTER, "limits": {"nodes": NODES}})
    check("created_202", st == 202 and j.get("status") == "queued" and j.get("progress", {}).get("total") == 83
          and j["progress"].get("secondLook") == {"done": 0, "total": 0}, (st, j))
    ws = WebSocket(s.ws_port)
    ws.send({"op": "subscribe", "gameAnalysis": j["id"]})
    t0 = time.monotonic()
    final, seen = ws.until(lambda m: m.get("type") == "gameAnalysis", timeout=120)
    ws.close()
    progress = [m for m in seen if m.get("type") == "progress"]
    looks = [m for m in progress if m.get("secondLook")]  # the second look's positions, after all the others
    look = (final or {}).get("progress", {}).get("secondLook", {})
    dones = [m["done"] for m in progress]
    print("    %d positions at %d nodes in %.1f s; %d progress frames" % (83, NODES, time.monotonic() - t0, len(progress)))
    check("progress_over_websocket", final and final["status"] == "done" and len(progress) >= 10
          and dones == sorted(dones) and progress[-1]["done"] <= 83 and all(m["total"] == 83 for m in progress)
          and all("eval" in m or "mate" in m for m in progress)
          and len(looks) <= look.get("done") == look.get("total") and all(m["done"] == 83 for m in looks)
          and all(m["secondLook"]["done"] <= look["total"] for m in looks),
          (len(progress), progress[:2], final and final["status"], len(looks), look))
    st, g, _ = s.request("GET", "/api/game-analysis/" + j["id"])
    state["master"] = g
    a = g.get("analysis", [])
    bad = []
    if len(a) != 82:
        bad.append("%d plies, want 82" % len(a))
    for p in a:
        if not ("eval" in p or "mate" in p) or not isinstance(p.get("winPercent"), (int, float)):
            bad.append(("no eval", p))
        if "judgment" in p and not ("best" in p and "variation" in p):
            bad.append(("judgment without line", p))
    for side in ("white", "black"):
        pl = g.get("players", {}).get(side, {})
        if sorted(pl) != ["accuracy", "acpl", "blunder", "inaccuracy", "mistake"]:
            bad.append((side, pl))
    check("result_lichess_shape", st == 200 and g.get("status") == "done" and not bad, bad[:4])
    judged = [p for p in a if "judgment" in p]
    wrong = [p for p in judged if p["judgment"]["name"] not in ("Inaccuracy", "Mistake", "Blunder")
             or not re.fullmatch(r"(Inaccuracy|Mistake|Blunder|Checkmate is now unavoidable|Lost forced checkmate "
                                 r"sequence)\. \S+ was best\.", p["judgment"]["comment"])]
    print("    players: %s" % g.get("players"))
    check("judgements_with_lines", judged and not wrong, wrong[:3])


@suite.test("pgn_read_back_by_feelfish", "pgn_read_back_by_chessops")
def pgn_read_back():
    s = suite.server()
    g = state.get("master") or {}
    st, text, _ = s.request("GET", "/api/game-analysis/%s/pgn" % g.get("id"))
    text = text if isinstance(text, str) else ""
    path = os.path.join(s.dir, "annotated.pgn")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([FF, "pgn", path, "--check"], cwd=ROOT, capture_output=True, text=True)
    ours = []
    for p in g.get("analysis", []):
        if "mate" in p:
            ours.append("#%d" % p["mate"])
        elif "eval" in p:
            ours.append(p["eval"])
    evals = re.findall(r"\[%eval (#?-?[\d.]+)\]", text)
    as_cp = [e if e.startswith("#") else round(float(e) * 100) for e in evals]
    check("pgn_read_back_by_feelfish", st == 200 and "games: 1 read, 0 skipped" in r.stdout and as_cp == ours
          and '[Annotator "feelfish"]' in text, (st, r.stdout[-200:], as_cp[:5], ours[:5]))
    script = r"""
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const { parsePgn } = await import(pathToFileURL(join(process.cwd(), 'node_modules/chessops/dist/esm/pgn.js')).href);
const games = parsePgn(readFileSync(process.argv[2], 'utf8'));
const out = [];
for (const node of games[0].moves.mainline()) {
  const m = (node.comments || []).join(' ').match(/\[%eval (#?-?[\d.]+)\]/);
  out.push([node.san, m ? m[1] : null, node.nags || []]);
}
console.log(JSON.stringify({ n: games.length, moves: out }));
"""
    js = os.path.join(s.dir, "read.mjs")
    with open(js, "w") as f:
        f.write(script)
    r = subprocess.run(["node", js, path], cwd=os.path.join(ROOT, "web"), capture_output=True, text=True)
    try:
        got = json.loads(r.stdout)
    except ValueError:
        got = {"n": 0, "moves": []}
    theirs = [m[1] for m in got["moves"] if m[1] is not None]
    theirs = [e if e.startswith("#") else round(float(e) * 100) for e in theirs]
    check("pgn_read_back_by_chessops", got["n"] == 1 and len(got["moves"]) == 82 and theirs == ours,
          (got["n"], len(got["moves"]), theirs[:5], ours[:5], r.stderr[-300:]))


@suite.test("second_analysis_from_cache", "cache_keyed_by_limits", "cached_emotions_as_searched")
def cache():
    s = suite.server()
    game = GAMES[3]
    t0 = time.monotonic()
    st, j, first = analysed(s, {"pgn": game, "limits": {"nodes": 60000}})
    t1 = time.monotonic()
    st2, j2, second = analysed(s, {"pgn": game, "limits": {"nodes": 60000}})
    t2 = time.monotonic()
    print("    the same game twice at 60k nodes: %.2f s, then %.2f s (%s of %s positions from the cache)"
          % (t1 - t0, t2 - t1, (second or {}).get("progress", {}).get("cached"), (second or {}).get("progress", {}).get("total")))
    same = first and second and [(p.get("eval"), p.get("mate"), p.get("best")) for p in first["analysis"]] == \
        [(p.get("eval"), p.get("mate"), p.get("best")) for p in second["analysis"]]
    check("second_analysis_from_cache", second and second["status"] == "done" and same
          and second["progress"]["cached"] >= second["progress"]["total"] - 1 and t2 - t1 < 1.0
          and second["players"] == first["players"], ((second or {}).get("progress"), t2 - t1, same))
    st3, j3, third = analysed(s, {"pgn": game, "limits": {"nodes": 3000}})
    check("cache_keyed_by_limits", third and third["status"] == "done" and third["progress"]["cached"] == 0,
          (third or {}).get("progress"))
    # affective mode: a position read from the cache has the emotion a search of it would have had
    body = {"moves": "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5", "mode": "affective", "limits": {"nodes": 4000}}
    st4, j4, a = analysed(s, body)
    st5, j5, b = analysed(s, body)
    feel = lambda g: [p.get("emotion") for p in (g or {}).get("analysis", [])]  # noqa: E731
    check("cached_emotions_as_searched", b and b["progress"]["cached"] == b["progress"]["total"] and feel(a) == feel(b)
          and all(e and "label" in e for e in feel(b)), ((b or {}).get("progress"), feel(a)[:2], feel(b)[:2]))


@suite.test("cloud_eval_from_game_analysis", "cloud_eval_small_search_not_served", "cloud_eval_caches_its_own")
def cloud_eval_cache():
    from urllib.parse import quote
    s = suite.server()
    cloud = lambda fen: s.request("GET", "/api/cloud-eval?fen=" + quote(fen), timeout=60)  # noqa: E731
    # a game analysis at 1M nodes fills the cache; cloud-eval answers its positions from it, White's view
    st, j, g = analysed(s, {"fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "moves": "d1d7 g8f8",
                            "limits": {"nodes": 1000000}})
    after = "6k1/3R1ppp/8/8/8/8/5PPP/6K1 b - - 1 1"  # Black to move: cp stays White's view
    t0 = time.monotonic()
    st2, c, resp = cloud(after)
    took = time.monotonic() - t0
    ply = (g or {}).get("analysis", [{}])[0]
    print("    cloud-eval of a position the game analysis searched: %.3f s, %s" % (took, c))
    check("cloud_eval_from_game_analysis", st2 == 200 and resp.getheader("X-Feelfish-Cache") == "hit"
          and c["knodes"] >= 1000 and c["fen"] == after and c["pvs"][0]["moves"]
          and (c["pvs"][0].get("cp"), c["pvs"][0].get("mate")) == (ply.get("eval"), ply.get("mate")), (st2, c, ply))
    # a small search (20k nodes, the master game's) is not what cloud-eval serves: it searches
    analysed(s, {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "moves": "g1f3 g8f6",
                 "limits": {"nodes": 20000}})
    st3, c3, resp3 = cloud("rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2")
    check("cloud_eval_small_search_not_served", st3 == 200 and resp3.getheader("X-Feelfish-Cache") is None
          and c3["depth"] >= 8 and c3["pvs"], (st3, c3))
    t0 = time.monotonic()
    st4, c4, resp4 = cloud("rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2")
    took4 = time.monotonic() - t0
    print("    cloud-eval asked twice: the second answer from the cache in %.3f s" % took4)
    check("cloud_eval_caches_its_own", st4 == 200 and resp4.getheader("X-Feelfish-Cache") == "hit" and took4 < 0.5
          and c4["pvs"][0].get("cp") == c3["pvs"][0].get("cp") and c4["depth"] == c3["depth"]
          and c4["knodes"] == c3["knodes"], (c3, c4))


@suite.test()
def bayesian_player_styles():
    # Bayesian mode: each player's style posterior, the reading `feelfish style` gives of that game
    # (the samples after full moves 15 and 20, shared/spec/bayesian.md §5)
    s = suite.server()
    st, j, g = analysed(s, {"pgn": MASTER, "mode": "bayesian", "limits": {"nodes": 2000}})
    players = (g or {}).get("players", {})
    got = {c: players.get(c, {}).get("style") for c in ("white", "black")}
    path = os.path.join(s.dir, "master.pgn")
    with open(path, "w") as f:
        f.write(MASTER)
    want = {}
    for c, name in (("white", "Chandler"), ("black", "Kasparov")):
        out = subprocess.run([FF, "style", path, "--player", name], capture_output=True, text=True).stdout
        m = re.search(r"\n  posterior: attacking ([\d.]+) positional ([\d.]+) mixed ([\d.]+) -> (\w+)", out)
        want[c] = m and (m.group(4), [float(m.group(k)) for k in (1, 2, 3)])
    print("    styles: " + ", ".join("%s %s %s" % (c, (got[c] or {}).get("style"), (got[c] or {}).get("posterior"))
                                     for c in got))
    check("bayesian_player_styles", g and g["status"] == "done" and all(
        got[c] and want[c] and got[c]["style"] == want[c][0]
        and all(abs(got[c]["posterior"][k] - v) < 0.0006 for k, v in zip(("attacking", "positional", "mixed"), want[c][1]))
        and abs(sum(got[c]["posterior"].values()) - 1) < 1e-6 and "accuracy" in players[c] for c in got)
        and "style" not in state.get("master", {}).get("players", {}).get("white", {}), (got, want))


@suite.test()
def mate_judgement_and_mating_move():
    # a miniature: 4. Qxf7# is the mating move (no eval, as Lichess), 3... Nf6?? lets it happen
    st, j, g = analysed(suite.server(), {"moves": "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7", "limits": {"nodes": NODES}})
    a = (g or {}).get("analysis", [])
    nf6 = a[5] if len(a) == 7 else {}
    check("mate_judgement_and_mating_move",
          g and g["status"] == "done" and len(a) == 7 and "eval" not in a[6] and "mate" not in a[6]
          and nf6.get("mate") == 1 and nf6.get("judgment", {}).get("comment", "").startswith(
              "Checkmate is now unavoidable.") and g["players"]["black"]["blunder"] >= 1, a[4:])


@suite.test("second_look_deeper", "second_look_off")
def second_look():
    # 3... Nf6?? (mate in one) is judged a blunder: its two positions are searched again at four times the
    # nodes, and the cache then holds them under those limits (an analysis at 4 x 3,000 nodes reads them).
    s = suite.server()
    moves = "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7"
    st, j, g = analysed(s, {"moves": moves, "limits": {"nodes": 3000}})
    look = (g or {}).get("progress", {}).get("secondLook", {})
    st2, j2, g2 = analysed(s, {"moves": moves, "limits": {"nodes": 12000}, "secondLook": False})
    p2 = (g2 or {}).get("progress", {})
    blunders = [p["ply"] for p in (g or {}).get("analysis", []) if p.get("judgment", {}).get("name") == "Blunder"]
    print("    second look at %s positions (blunders at plies %s); at 12,000 nodes %s from the cache"
          % (look.get("total"), blunders, p2.get("cached")))
    check("second_look_deeper", g and g["status"] == "done" and 6 in blunders and look.get("total", 0) >= 2
          and look.get("done") == look.get("total") and p2.get("cached") == look.get("total"), (look, blunders, p2))
    # off: one search a position (no secondLook in the progress), the same judgement of Nf6
    st3, j3, g3 = analysed(s, {"moves": moves, "limits": {"nodes": 3000}, "secondLook": False})
    a3 = (g3 or {}).get("analysis", [])
    check("second_look_off", g3 and g3["status"] == "done" and "secondLook" not in g3["progress"] and len(a3) == 7
          and a3[5].get("judgment", {}).get("name") == "Blunder", (g3 or {}).get("progress"))


@suite.test("restart_keeps_result", "restart_mid_analysis_runs_again")
def restarts():
    s = Server("--workers", "2")
    g = None
    try:
        st, j, g = analysed(s, {"moves": "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6", "limits": {"nodes": 5000}})
        st2, slow, _ = s.request("POST", "/api/game-analysis", {"pgn": GAMES[1], "limits": {"nodes": 150000}})
        time.sleep(1.0)
        s.stop(signal.SIGKILL)
        SERVERS.remove(s)  # killed on purpose: not a clean exit to check
        s2 = Server("--workers", "2", db=s.db)
        st3, again, _ = s2.request("GET", "/api/game-analysis/" + j["id"])
        st4, pgn, _ = s2.request("GET", "/api/game-analysis/%s/pgn" % j["id"])
        check("restart_keeps_result", st3 == 200 and again == g and st4 == 200 and "[%eval" in str(pgn),
              (st3, again == g, st4))
        t0 = time.monotonic()
        first = s2.request("GET", "/api/game-analysis/" + slow["id"])[1]  # not done: killed mid-analysis
        later = poll(lambda: s2.request("GET", "/api/game-analysis/" + slow["id"])[1],
                     lambda x: x.get("status") == "done", tries=1800, delay=0.1)
        print("    killed mid-analysis (%s %s after the restart); it ran again: %s in %.1f s"
              % (first.get("status"), first.get("progress"), later.get("status"), time.monotonic() - t0))
        check("restart_mid_analysis_runs_again", st2 == 202 and first.get("status") != "done"
              and later.get("status") == "done" and len(later.get("analysis", [])) > 20,
              (st2, first.get("status"), later.get("status"), later.get("progress")))
        s2.stop()
    finally:
        if s.running():
            s.stop(signal.SIGKILL)


@suite.test()
def delete_cancels():
    s = suite.server()
    st, j, _ = s.request("POST", "/api/game-analysis", {"pgn": GAMES[2], "limits": {"nodes": 2000000}})
    time.sleep(0.5)
    std, d, _ = s.request("DELETE", "/api/game-analysis/" + j["id"])
    time.sleep(0.3)
    st2, g, _ = s.request("GET", "/api/game-analysis/" + j["id"])
    st3, _, _ = s.request("GET", "/api/game-analysis/%s/pgn" % j["id"])
    health = s.request("GET", "/api/health")[1]
    check("delete_cancels", std == 200 and d["status"] == "cancelled" and g["status"] == "cancelled" and st3 == 409
          and g["progress"]["done"] < g["progress"]["total"], (std, d, g.get("status"), st3, health.get("queue")))


@suite.test()
def bad_input_codes():
    s = suite.server()
    cases = [
        ({}, "game_missing"),
        ({"pgn": "1. e4 Kxe8 *"}, "bad_pgn"),
        ({"pgn": 3}, "bad_type"),
        ({"moves": ["e2e4", "e2e4"]}, "bad_move"),
        ({"moves": "e2e4", "fen": "8/8/8 w - - 0 1"}, None),
        ({"moves": "e2e4", "mode": "psychic"}, "bad_mode"),
        ({"moves": "e2e4", "limits": {"nodes": "many"}}, None),
        ({"moves": "e2e4", "pgn": MASTER}, "position_ambiguous"),
        ({"moves": "e2e4", "colour": "white"}, "unknown_field"),
        ({"moves": "e2e4", "secondLook": "yes"}, "bad_type"),
        ({"moves": []}, "game_missing"),  # a game without a move: nothing to analyse
        ({"pgn": '[Event "x"]\n[Result "1-0"]\n\n1-0'}, "game_missing"),
        ({"pgn": '[Variant "Three-check"]\n\n1. e4 e5 2. Bc4 Nc6 3. Bxf7+ 1-0'}, "bad_pgn"),  # standard only
    ]
    wrong = []
    for body, code in cases:
        st, j, _ = s.request("POST", "/api/game-analysis", body)
        got = (j or {}).get("error", {}).get("code") if isinstance(j, dict) else None
        if st != 400 or (code and got != code) or not (j or {}).get("error", {}).get("message"):
            wrong.append((body, st, got, code))
    # A PGN as exported by programs that start it with a byte order mark is read.
    st0, j0, _ = s.request("POST", "/api/game-analysis", {"pgn": "\ufeff[Event \"x\"]\n\n1. e4 e5 *", "limits": {"depth": 1}})
    if st0 != 202:
        wrong.append(("BOM", st0, j0))
    st, j, _ = s.request("GET", "/api/game-analysis/0123456789abcdef")
    st2, j2, _ = s.request("GET", "/api/game-analysis/../../etc")
    check("bad_input_codes", not wrong and st == 404 and st2 == 404 and s.request("GET", "/api/health")[0] == 200,
          (wrong, st, st2))


if __name__ == "__main__":
    sys.exit(suite.main())
