#!/usr/bin/env python3
"""WebSocket tests of `feelfish serve`: the real binary, a real WebSocket client (standard library).
Each check opens its own connection (and its own server when it counts busy workers, fills the
queue, or needs other settings). Every frame received and op sent is validated against the contract,
server/api/asyncapi.json (the harness hands contract.check_frame and check_op to the client).
Run it all, or some checks: test_ws.py [--list] [CHECK_NAME...]; prints 'websocket: N passed, N failed'."""
import copy
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contract  # noqa: E402
from harness import FEN, Server, Suite, check, poll  # noqa: E402
from wsclient import WebSocket  # noqa: E402


def main_server():
    return Server("--workers", "2", "--ws-searches-max", "2")


suite = Suite("websocket", main_server)


def error_of(m):
    return m.get("error", {}).get("code") if m and m.get("type") == "error" else None


def connect(s=None):
    return WebSocket((s or suite.server()).ws_port)


def stop_all(ws, ids):
    """Stops these running analyses and reads until each has its bestmove (the workers are free again)."""
    for i in ids:
        ws.send({"op": "stop", "id": i})
    left = set(ids)
    while left:
        m, _ = ws.until(lambda x: x.get("type") == "bestmove", timeout=10)
        if m is None:
            break
        left.discard(m.get("id"))


@suite.test()
def ping_pong():
    ws = connect()
    ws.send({"op": "ping"})
    check("ping_pong", ws.recv_json() == {"type": "pong"})
    ws.close()


def analyse_c1():
    ws = connect()
    ws.send({"op": "analyse", "id": "c1", "fen": FEN, "limits": {"depth": 8}, "multiPv": 2})
    best, seen = ws.until(lambda m: m.get("type") == "bestmove")
    ws.close()
    return best, seen


@suite.test()
def analyse_streams_info():
    # Deep enough to last a while: frames waiting to be written coalesce per line (the latest wins),
    # so a search over in a few milliseconds (depth 8 is, with the learned evaluation) may show one
    # info per line whatever the server streams.
    ws = connect()
    ws.send({"op": "analyse", "id": "c1", "fen": FEN, "limits": {"depth": 16}, "multiPv": 2})
    best, seen = ws.until(lambda m: m.get("type") == "bestmove")
    ws.close()
    infos = [m for m in seen if m.get("type") == "info"]
    check("analyse_streams_info", len(infos) >= 3 and len({m["depth"] for m in infos}) >= 3 and all(m["id"] == "c1" and m["pv"] and m["san"] for m in infos)
          and all(k in infos[-1] for k in ("depth", "seldepth", "multiPv", "bound", "nodes", "nps", "time", "hashfull"))
          and ("cp" in infos[-1] or "mate" in infos[-1]), infos[-1:] or seen)


@suite.test()
def analyse_bestmove():
    best, seen = analyse_c1()
    check("analyse_bestmove", best and best["id"] == "c1" and best["move"] == best["bestMove"]
          and best["san"] and len(best["pvs"]) == 2 and best["depth"] == 8, best)


@suite.test()
def long_message_in_pieces():
    # libwebsockets hands a message to the server in pieces of its receive buffer (512 bytes, kept
    # small for idle connections): a 2.5 KB op is joined up and answered as one.
    cycle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 80
    msg = {"op": "analyse", "id": "long", "moves": cycle + ["e2e4"], "limits": {"depth": 4}}
    ws = connect()
    ws.send(msg)
    best, seen = ws.until(lambda m: m.get("type") in ("bestmove", "error"))
    ws.close()
    check("long_message_in_pieces", len(json.dumps(msg)) > 2000 and best and best.get("type") == "bestmove"
          and best["id"] == "long", best or seen)


@suite.test()
def affective_info_has_emotion():
    ws = connect()
    ws.send({"op": "analyse", "id": "aff", "fen": FEN, "mode": "affective", "limits": {"depth": 6}})
    best, seen = ws.until(lambda m: m.get("type") == "bestmove")
    ws.close()
    infos = [m for m in seen if m.get("type") == "info"]
    check("affective_info_has_emotion", infos and all("label" in m.get("emotion", {}) for m in infos)
          and best.get("emotion", {}).get("goal"), seen[-1:])


@suite.test()
def bayesian_info_has_choice():
    ws = connect()
    ws.send({"op": "analyse", "id": "bay", "moves": ["e2e4", "c7c5"], "mode": "bayesian",
             "bayesian": {"target": "aggressive"}, "limits": {"depth": 6}})
    best, seen = ws.until(lambda m: m.get("type") == "bestmove")
    ws.close()
    infos = [m for m in seen if m.get("type") == "info"]
    check("bayesian_info_has_choice", infos and all(m.get("bayesian", {}).get("target") == "aggressive"
                                                    for m in infos)
          and best.get("bayesian", {}).get("phase") == "opening"
          and best["bayesian"].get("reason") == "requested" and "gamesLearned" in best["bayesian"], seen[-1:])


@suite.test()
def infinite_then_stop():
    ws = connect()
    ws.send({"op": "analyse", "id": "inf", "fen": FEN, "limits": {"infinite": True}})
    time.sleep(0.5)
    t0 = time.time()
    ws.send({"op": "stop", "id": "inf"})
    best, _ = ws.until(lambda m: m.get("type") == "bestmove", timeout=5)
    check("infinite_then_stop", best and best["id"] == "inf" and best["move"] and time.time() - t0 < 1, best)
    ws.close()


# ---- bad messages: each answered with its error frame ----

BAD = [
    ("bad_json", lambda ws: ws.send_frame("{nope"), "bad_json"),
    ("not_object", lambda ws: ws.send_frame("[1]"), "bad_json"),
    ("op_missing", lambda ws: ws.send({"id": "x"}, described=False), "op_missing"),
    ("unknown_op", lambda ws: ws.send({"op": "dance"}, described=False), "unknown_op"),
    ("id_missing", lambda ws: ws.send({"op": "analyse", "fen": FEN, "limits": {"depth": 3}}, described=False),
     "id_missing"),
    ("bad_fen", lambda ws: ws.send({"op": "analyse", "id": "b", "fen": "8/8/8 w - - 0 1", "limits": {"depth": 3}}),
     "fen_rank_count"),
    ("unknown_field", lambda ws: ws.send({"op": "analyse", "id": "b", "fen": FEN, "limitz": {"depth": 3}},
                                         described=False), "unknown_field"),
    ("stop_unknown", lambda ws: ws.send({"op": "stop", "id": "nothing"}), "unknown_id"),
    ("stop_id_missing", lambda ws: ws.send({"op": "stop"}, described=False), "id_missing"),
    ("subscribe_unknown", lambda ws: ws.send({"op": "subscribe", "job": "nope"}), "unknown_job"),
    ("binary_frame", lambda ws: ws.send_frame(b"\x00\x01\x02", opcode=2), "binary_not_supported"),
    ("oversized", lambda ws: ws.send_frame(json.dumps({"op": "ping", "pad": "x" * 70000})), "message_too_large"),
]


def bad_message(name, action, code):
    ws = connect()
    action(ws)
    m = ws.recv_json(5)
    check("error_" + name, error_of(m) == code and m["error"]["message"], m)
    ws.close()


for _case in BAD:
    suite.add("error_" + _case[0], bad_message, *_case)


@suite.test()
def usable_after_errors():
    ws = connect()
    for _, action, _ in BAD:
        action(ws)
        ws.recv_json(5)
    ws.send({"op": "ping"})
    check("usable_after_errors", ws.recv_json(5) == {"type": "pong"})
    ws.close()


# ---- the contract: server/api/asyncapi.json ----

@suite.test()
def contract_rejects_a_wrong_frame():
    """The validator the client runs on every frame catches real frames with a required field renamed
    (at the top, and nested in a referenced REST shape), an error code the contract does not list and
    a type it does not know."""
    ws = connect()
    ws.send({"op": "analyse", "id": "w", "fen": FEN, "limits": {"depth": 4}})
    best, seen = ws.until(lambda m: m.get("type") == "bestmove")  # each passed the contract, or raised
    ws.send({"op": "dance"}, described=False)
    err = ws.recv_json(5)
    ws.close()
    info = [m for m in seen if m.get("type") == "info"][-1]
    wrong_info = copy.deepcopy(info)
    wrong_info["deep"] = wrong_info.pop("depth")
    wrong_best = copy.deepcopy(best)
    wrong_best["pvs"][0]["movez"] = wrong_best["pvs"][0].pop("moves")
    wrong_err = copy.deepcopy(err)
    wrong_err["error"]["code"] = "not_a_code"
    caught = []
    for frame in (wrong_info, wrong_best, wrong_err, dict(info, type="infos")):
        try:
            contract.check_frame(json.dumps(frame))
            caught.append(None)
        except AssertionError as e:
            caught.append(str(e))
    check("contract_rejects_a_wrong_frame", all(caught) and "'depth' is a required property" in caught[0]
          and "pvs/0" in caught[1] and "'moves' is a required property" in caught[1] and "error/code" in caught[2]
          and "'infos' is not in asyncapi.json" in caught[3], caught)


@suite.test()
def asyncapi_examples_match():
    """Every example in the WebSocket's contract (each a real frame or op) passes its own payload, and
    every message has one."""
    examples = contract.stream_examples()
    bad = [(name, contract.stream_errors(pointer, example)) for name, example, pointer in examples
           if contract.stream_errors(pointer, example)]
    unexampled = set(contract.STREAM["components"]["messages"]) - {name for name, _, _ in examples}
    check("asyncapi_examples_match", examples and not bad and not unexampled, (bad, sorted(unexampled)))


# ---- the per-connection limit: two running analyses, a third is refused ----

@suite.test()
def too_many_searches():
    ws = connect()
    for i in ("a1", "a2", "a3"):
        ws.send({"op": "analyse", "id": i, "fen": FEN, "limits": {"infinite": True}})
    err, _ = ws.until(lambda m: m.get("type") == "error", timeout=5)
    check("too_many_searches", error_of(err) == "too_many_searches" and err.get("id") == "a3", err)
    stop_all(ws, ["a1", "a2"])
    ws.close()


@suite.test()
def id_in_use():
    ws = connect()
    ws.send({"op": "analyse", "id": "a1", "fen": FEN, "limits": {"infinite": True}})
    ws.send({"op": "analyse", "id": "a1", "fen": FEN, "limits": {"depth": 2}})
    err, _ = ws.until(lambda m: m.get("type") == "error", timeout=5)
    check("id_in_use", error_of(err) in ("id_in_use", "too_many_searches") and err.get("id") == "a1", err)
    stop_all(ws, ["a1"])
    ws.close()


@suite.test()
def close_stops_searches():
    """Closing the connection stops its searches. (Its own server: it counts busy workers.)"""
    with main_server() as s:
        ws = connect(s)
        ws.send({"op": "analyse", "id": "a1", "fen": FEN, "limits": {"infinite": True}})
        ws.send({"op": "analyse", "id": "a2", "fen": FEN, "limits": {"infinite": True}})
        # both analyses running (a worker may take a moment to pick its job up)
        busy = poll(lambda: s.health()["workers"]["busy"], lambda b: b == 2, tries=100, delay=0.02)
        ws.close()
        poll(lambda: s.health()["workers"]["busy"], lambda b: b == 0, tries=60, delay=0.05)
        check("close_stops_searches", busy == 2 and s.health()["workers"]["busy"] == 0, busy)


# ---- subscribing to a job created over REST ----

def new_job(s):
    return s.request("POST", "/api/jobs", {"fen": FEN, "limits": {"depth": 9}})[1]


@suite.test()
def subscribe_job():
    s = suite.server()
    job = new_job(s)
    ws = connect(s)
    ws.send({"op": "subscribe", "job": job["id"]})
    best, seen = ws.until(lambda m: m.get("type") == "bestmove")
    check("subscribe_job", best and best["job"] == job["id"] and best["move"], seen[-2:])
    ws.close()


@suite.test()
def subscribe_finished_job():
    s = suite.server()
    job = new_job(s)
    poll(lambda: s.request("GET", "/api/jobs/" + job["id"])[1], lambda j: j["status"] == "done")
    ws = connect(s)
    ws.send({"op": "subscribe", "job": job["id"]})  # finished: the result at once
    best, _ = ws.until(lambda m: m.get("type") == "bestmove", timeout=5)
    check("subscribe_finished_job", best and best["job"] == job["id"] and best["depth"] == 9, best)
    ws.close()


@suite.test()
def subscribe_counts_against_search_cap():
    """Subscriptions are the connection's searches too: past --ws-searches-max, 429."""
    with Server("--workers", "1", "--ws-searches-max", "2") as s:
        jobs = [s.request("POST", "/api/jobs", {"moves": ["e2e4"], "limits": {"depth": 60, "movetime": 20000}})[1]
                for _ in range(3)]
        ws = WebSocket(s.ws_port)
        for j in jobs:
            ws.send({"op": "subscribe", "job": j["id"]})
        err, _ = ws.until(lambda m: m.get("type") == "error", timeout=5)
        check("subscribe_counts_against_search_cap", err and err["error"]["code"] == "too_many_searches", err)
        ws.close()
        for j in jobs:
            s.request("DELETE", "/api/jobs/" + j["id"])


# ---- 20 clients analysing at once all get their answers ----

def twenty_clients(s):
    results = [None] * 20

    def client(i):
        try:
            c = WebSocket(s.ws_port)
            c.send({"op": "analyse", "id": "k%d" % i, "fen": FEN, "limits": {"depth": 6}})
            m, _ = c.until(lambda x: x.get("type") in ("bestmove", "error"), timeout=60)
            results[i] = m
            c.close()
        except Exception as e:  # noqa: BLE001
            results[i] = {"exception": str(e)}

    threads = [threading.Thread(target=client, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@suite.test("twenty_clients")
def twenty_clients_answered():
    results = twenty_clients(suite.server())
    ok20 = [r for i, r in enumerate(results) if r and r.get("type") == "bestmove" and r["id"] == "k%d" % i]
    check("twenty_clients", len(ok20) == 20, [r for r in results if not (r and r.get("type") == "bestmove")][:3])


@suite.test()
def health_after_clients():
    """After 20 clients got their answers no worker is busy. (Its own server: it counts busy workers.)"""
    with main_server() as s:
        twenty_clients(s)
        check("health_after_clients", s.health()["workers"]["busy"] == 0)


@suite.test()
def ws_metrics():
    s = suite.server()
    ws = connect(s)
    ws.send({"op": "ping"})
    ws.recv_json(5)
    metrics = s.request("GET", "/metrics")[1]
    ws.close()
    check("ws_metrics", "feelfish_websocket_clients" in metrics and "feelfish_websocket_frames_sent_total" in metrics,
          metrics[-400:])


@suite.test()
def sigterm_with_ws_searches():
    """SIGTERM with analyses running over WebSocket: they end, the process exits 0 promptly."""
    s = main_server()
    try:
        ws = connect(s)
        ws.send({"op": "analyse", "id": "t1", "fen": FEN, "limits": {"infinite": True}})
        ws.recv_json(5)
    finally:
        rc, secs = s.stop()
    check("sigterm_with_ws_searches", rc == 0 and secs < 2, (rc, secs))


# ---- a slow reader ----
# Once its socket takes no more (a small kernel buffer here, --ws-send-buffer), frames wait on the
# server and info frames are coalesced (latest wins); when it reads again it gets the newest lines and
# the final bestmove, never an unbounded backlog.

def slow_reader_server():
    return Server("--workers", "1", "--ws-send-buffer", "4096")


@suite.test()
def ws_send_buffer_in_config():
    with slow_reader_server() as s:
        check("ws_send_buffer_in_config", s.request("GET", "/api/config")[1].get("wsSendBufferBytes") == 4096)


@suite.test()
def slow_reader_coalesced():
    with slow_reader_server() as s:
        slow = WebSocket(s.ws_port, rcvbuf=2048)
        slow.send({"op": "analyse", "id": "slow", "fen": FEN, "limits": {"movetime": 2500}, "multiPv": 8})
        time.sleep(3.5)
        best, seen = slow.until(lambda m: m.get("type") == "bestmove", timeout=10)
        slow.close()
        coalesced = int([line for line in s.request("GET", "/metrics")[1].splitlines()
                         if line.startswith("feelfish_websocket_frames_coalesced_total ")][0].split()[1])
    infos = [m for m in seen if m.get("type") == "info"]
    check("slow_reader_coalesced", best and best["id"] == "slow" and coalesced > 0 and infos
          and max(m["depth"] for m in infos) >= best["depth"] - 1, (coalesced, len(infos), best and best["depth"]))


# ---- a full queue answers with an error frame (the connection stays usable) ----

def queue_full_error(then_ping):
    """On a one-worker server with a queue of one: an infinite analysis running, a second one waiting,
    and a third from another connection: its error frame, and (then_ping) that connection's answer
    to a ping."""
    with Server("--workers", "1", "--queue", "1") as s:
        ws = connect(s)
        ws.send({"op": "analyse", "id": "q1", "fen": FEN, "limits": {"infinite": True}})
        poll(lambda: s.health()["workers"]["busy"], lambda b: b == 1, tries=100, delay=0.02)
        ws.send({"op": "analyse", "id": "q2", "fen": FEN, "limits": {"infinite": True}})
        # q2 is waiting in the queue: it is full now
        poll(lambda: s.health()["queue"]["depth"], lambda d: d == 1, tries=100, delay=0.02)
        ws2 = connect(s)
        ws2.send({"op": "analyse", "id": "q3", "fen": FEN, "limits": {"depth": 3}})
        err, _ = ws2.until(lambda m: m.get("type") == "error", timeout=5)
        pong = None
        if then_ping:
            ws2.send({"op": "ping"})
            pong = ws2.recv_json(5)
        ws.close()
        ws2.close()
    return err, pong


@suite.test()
def ws_queue_full_error_frame():
    err, _ = queue_full_error(False)
    check("ws_queue_full_error_frame", error_of(err) == "queue_full" and err.get("id") == "q3", err)


@suite.test()
def ws_usable_after_queue_full():
    _, pong = queue_full_error(True)
    check("ws_usable_after_queue_full", pong == {"type": "pong"})


@suite.test()
def job_timeout():
    """The job timeout stops a search nobody stops: an infinite analysis ends with its bestmove."""
    with Server("--workers", "1", "--job-timeout", "1000") as s:
        ws = connect(s)
        t0 = time.time()
        ws.send({"op": "analyse", "id": "forever", "fen": FEN, "limits": {"infinite": True}})
        best, _ = ws.until(lambda m: m.get("type") == "bestmove", timeout=10)
        check("job_timeout", best and best["id"] == "forever" and best["move"] and 0.9 < time.time() - t0 < 3,
              (best and best.get("status"), time.time() - t0))
        ws.close()


if __name__ == "__main__":
    sys.exit(suite.main())
