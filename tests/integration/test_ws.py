#!/usr/bin/env python3
"""WebSocket tests of `feelfish serve`: the real binary, a real WebSocket client (standard library).
Prints 'ok NAME' / 'FAIL NAME' and 'websocket: N passed, N failed'."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, summary  # noqa: E402
from wsclient import WebSocket  # noqa: E402

FF = os.environ.get("FEELFISH", "./feelfish")
FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"



def start(*args):
    db = os.path.join(tempfile.mkdtemp(prefix="feelfish-ws-"), "t.db")
    p = subprocess.Popen([FF, "serve", "--http", "0", "--ws", "0", "--bind", "127.0.0.1", "--hash", "16", "--db", db,
                          *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    words = p.stdout.readline().split()
    return p, int(words[2]), int(words[4])


def health(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/api/health" % port, timeout=5) as r:
        return json.load(r)


def post(port, path, body):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def error_of(m):
    return m.get("error", {}).get("code") if m and m.get("type") == "error" else None


def main():
    proc, http_port, ws_port = start("--workers", "2", "--ws-searches-max", "2")
    try:
        ws = WebSocket(ws_port)
        ws.send({"op": "ping"})
        check("ping_pong", ws.recv_json() == {"type": "pong"})

        ws.send({"op": "analyse", "id": "c1", "fen": FEN, "limits": {"depth": 8}, "multiPv": 2})
        best, seen = ws.until(lambda m: m.get("type") == "bestmove")
        infos = [m for m in seen if m.get("type") == "info"]
        check("analyse_streams_info", len(infos) >= 3 and all(m["id"] == "c1" and m["pv"] and m["san"] for m in infos)
              and all(k in infos[-1] for k in ("depth", "seldepth", "multiPv", "bound", "nodes", "nps", "time", "hashfull"))
              and ("cp" in infos[-1] or "mate" in infos[-1]), infos[-1:] or seen)
        check("analyse_bestmove", best and best["id"] == "c1" and best["move"] == best["bestMove"]
              and best["san"] and len(best["pvs"]) == 2 and best["depth"] == 8, best)

        ws.send({"op": "analyse", "id": "aff", "fen": FEN, "mode": "affective", "limits": {"depth": 6}})
        best, seen = ws.until(lambda m: m.get("type") == "bestmove")
        infos = [m for m in seen if m.get("type") == "info"]
        check("affective_info_has_emotion", infos and all("label" in m.get("emotion", {}) for m in infos)
              and best.get("emotion", {}).get("goal"), seen[-1:])

        ws.send({"op": "analyse", "id": "bay", "moves": ["e2e4", "c7c5"], "mode": "bayesian",
                 "bayesian": {"target": "aggressive"}, "limits": {"depth": 6}})
        best, seen = ws.until(lambda m: m.get("type") == "bestmove")
        infos = [m for m in seen if m.get("type") == "info"]
        check("bayesian_info_has_choice", infos and all(m.get("bayesian", {}).get("target") == "aggressive"
                                                        for m in infos)
              and best.get("bayesian", {}).get("phase") == "opening"
              and best["bayesian"].get("reason") == "requested" and "gamesLearned" in best["bayesian"], seen[-1:])

        ws.send({"op": "analyse", "id": "inf", "fen": FEN, "limits": {"infinite": True}})
        time.sleep(0.5)
        t0 = time.time()
        ws.send({"op": "stop", "id": "inf"})
        best, _ = ws.until(lambda m: m.get("type") == "bestmove", timeout=5)
        check("infinite_then_stop", best and best["id"] == "inf" and best["move"] and time.time() - t0 < 1, best)

        bad = [
            ("bad_json", lambda: ws.send_frame("{nope"), "bad_json"),
            ("not_object", lambda: ws.send_frame("[1]"), "bad_json"),
            ("op_missing", lambda: ws.send({"id": "x"}), "op_missing"),
            ("unknown_op", lambda: ws.send({"op": "dance"}), "unknown_op"),
            ("id_missing", lambda: ws.send({"op": "analyse", "fen": FEN, "limits": {"depth": 3}}), "id_missing"),
            ("bad_fen", lambda: ws.send({"op": "analyse", "id": "b", "fen": "8/8/8 w - - 0 1", "limits": {"depth": 3}}),
             "fen_rank_count"),
            ("unknown_field", lambda: ws.send({"op": "analyse", "id": "b", "fen": FEN, "limitz": {"depth": 3}}),
             "unknown_field"),
            ("stop_unknown", lambda: ws.send({"op": "stop", "id": "nothing"}), "unknown_id"),
            ("subscribe_unknown", lambda: ws.send({"op": "subscribe", "job": "nope"}), "unknown_job"),
            ("binary_frame", lambda: ws.send_frame(b"\x00\x01\x02", opcode=2), "binary_not_supported"),
            ("oversized", lambda: ws.send_frame(json.dumps({"op": "ping", "pad": "x" * 70000})), "message_too_large"),
        ]
        for name, action, code in bad:
            action()
            m = ws.recv_json(5)
            check("error_" + name, error_of(m) == code and m["error"]["message"], m)
        ws.send({"op": "ping"})
        check("usable_after_errors", ws.recv_json(5) == {"type": "pong"})

        # Per-connection limit: two running analyses, the third is refused.
        ws.send({"op": "analyse", "id": "a1", "fen": FEN, "limits": {"infinite": True}})
        ws.send({"op": "analyse", "id": "a2", "fen": FEN, "limits": {"infinite": True}})
        ws.send({"op": "analyse", "id": "a3", "fen": FEN, "limits": {"infinite": True}})
        err, _ = ws.until(lambda m: m.get("type") == "error", timeout=5)
        check("too_many_searches", error_of(err) == "too_many_searches" and err.get("id") == "a3", err)
        ws.send({"op": "analyse", "id": "a1", "fen": FEN, "limits": {"depth": 2}})
        err, _ = ws.until(lambda m: m.get("type") == "error", timeout=5)
        check("id_in_use", error_of(err) in ("id_in_use", "too_many_searches") and err.get("id") == "a1", err)
        for _ in range(100):  # both analyses running (a worker may take a moment to pick its job up)
            busy = health(http_port)["workers"]["busy"]
            if busy == 2:
                break
            time.sleep(0.02)
        ws.close()  # closing the connection stops its searches
        for _ in range(60):
            time.sleep(0.05)
            if health(http_port)["workers"]["busy"] == 0:
                break
        check("close_stops_searches", busy == 2 and health(http_port)["workers"]["busy"] == 0, busy)

        # Subscribe to a job created over REST.
        job = post(http_port, "/api/jobs", {"fen": FEN, "limits": {"depth": 9}})
        ws = WebSocket(ws_port)
        ws.send({"op": "subscribe", "job": job["id"]})
        best, seen = ws.until(lambda m: m.get("type") == "bestmove")
        check("subscribe_job", best and best["job"] == job["id"] and best["move"], seen[-2:])
        ws.send({"op": "subscribe", "job": job["id"]})  # finished: the result at once
        best, _ = ws.until(lambda m: m.get("type") == "bestmove", timeout=5)
        check("subscribe_finished_job", best and best["job"] == job["id"] and best["depth"] == 9, best)
        ws.close()

        # 20 clients analysing at once all get their answers.
        results = [None] * 20

        def client(i):
            try:
                c = WebSocket(ws_port)
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
        ok20 = [r for i, r in enumerate(results) if r and r.get("type") == "bestmove" and r["id"] == "k%d" % i]
        check("twenty_clients", len(ok20) == 20, [r for r in results if not (r and r.get("type") == "bestmove")][:3])
        check("health_after_clients", health(http_port)["workers"]["busy"] == 0)
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % http_port, timeout=5) as r:
            metrics = r.read().decode()
        check("ws_metrics", "feelfish_websocket_clients" in metrics and "feelfish_websocket_frames_sent_total" in metrics,
              metrics[-400:])

        # SIGTERM with analyses running over WebSocket: they end, the process exits 0 promptly.
        ws = WebSocket(ws_port)
        ws.send({"op": "analyse", "id": "t1", "fen": FEN, "limits": {"infinite": True}})
        ws.recv_json(5)
    finally:
        t0 = time.time()
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
    check("sigterm_with_ws_searches", rc == 0 and time.time() - t0 < 2, (rc, time.time() - t0))

    # A slow reader: once its socket takes no more (a small kernel buffer here, --ws-send-buffer), frames
    # wait on the server and info frames are coalesced (latest wins); when it reads again it gets the newest
    # lines and the final bestmove, never an unbounded backlog.
    proc, http_port, ws_port = start("--workers", "1", "--ws-send-buffer", "4096")
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/api/config" % http_port, timeout=5) as r:
            check("ws_send_buffer_in_config", json.load(r).get("wsSendBufferBytes") == 4096)
        slow = WebSocket(ws_port, rcvbuf=2048)
        slow.send({"op": "analyse", "id": "slow", "fen": FEN, "limits": {"movetime": 2500}, "multiPv": 8})
        time.sleep(3.5)
        best, seen = slow.until(lambda m: m.get("type") == "bestmove", timeout=10)
        slow.close()
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % http_port, timeout=5) as r:
            coalesced = int([l for l in r.read().decode().splitlines()
                             if l.startswith("feelfish_websocket_frames_coalesced_total ")][0].split()[1])
        infos = [m for m in seen if m.get("type") == "info"]
        check("slow_reader_coalesced", best and best["id"] == "slow" and coalesced > 0 and infos
              and max(m["depth"] for m in infos) >= best["depth"] - 1, (coalesced, len(infos), best and best["depth"]))
    finally:
        proc.terminate()
        proc.wait(5)

    # A full queue answers with an error frame (the connection stays usable).
    proc, http_port, ws_port = start("--workers", "1", "--queue", "1")
    try:
        ws = WebSocket(ws_port)
        ws.send({"op": "analyse", "id": "q1", "fen": FEN, "limits": {"infinite": True}})
        for _ in range(100):
            if health(http_port)["workers"]["busy"] == 1:
                break
            time.sleep(0.02)
        ws.send({"op": "analyse", "id": "q2", "fen": FEN, "limits": {"infinite": True}})
        for _ in range(100):  # q2 is waiting in the queue: it is full now
            if health(http_port)["queue"]["depth"] == 1:
                break
            time.sleep(0.02)
        ws2 = WebSocket(ws_port)
        ws2.send({"op": "analyse", "id": "q3", "fen": FEN, "limits": {"depth": 3}})
        err, _ = ws2.until(lambda m: m.get("type") == "error", timeout=5)
        check("ws_queue_full_error_frame", error_of(err) == "queue_full" and err.get("id") == "q3", err)
        ws2.send({"op": "ping"})
        check("ws_usable_after_queue_full", ws2.recv_json(5) == {"type": "pong"})
        ws.close()
        ws2.close()
    finally:
        proc.terminate()
        proc.wait(5)

    # The job timeout stops a search nobody stops: an infinite analysis ends with its bestmove.
    proc, http_port, ws_port = start("--workers", "1", "--job-timeout", "1000")
    try:
        ws = WebSocket(ws_port)
        t0 = time.time()
        ws.send({"op": "analyse", "id": "forever", "fen": FEN, "limits": {"infinite": True}})
        best, _ = ws.until(lambda m: m.get("type") == "bestmove", timeout=10)
        check("job_timeout", best and best["id"] == "forever" and best["move"] and 0.9 < time.time() - t0 < 3,
              (best and best.get("status"), time.time() - t0))
        ws.close()
    finally:
        proc.terminate()
        proc.wait(5)
    return summary("websocket")


if __name__ == "__main__":
    sys.exit(main())
