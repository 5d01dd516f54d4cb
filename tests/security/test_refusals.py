#!/usr/bin/env python3
"""What the server refuses or keeps from a hostile client, one regression check each, through the
real server: failed tokens are rate limited (429 rate_limited with a Retry-After, at most 60 401s);
/api/config shows no paths (database, web folder, style model) to anyone but an admin; HEAD is
answered, without a body; an overlong URI, oversized headers and a huge chunked body get JSON errors
(414 uri_too_long, 431 headers_too_large, 413 body_too_large, the last without waiting for the
body); a refused WebSocket handshake (foreign origin or host, one past --connections-max, here 16:
its smallest) is an HTTP answer with a JSON body.

Clients differ by loopback source address (127.0.0.2, ...). Standard library only. No environment
variables of its own (FEELFISH names the binary, as for every harness suite). Run it all, or some
checks: test_refusals.py [--list] [CHECK_NAME...]; prints 'refusals: N passed, N failed'."""
import base64
import http.client
import json
import os
import select
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import harness  # noqa: E402
from harness import ROOT, Server, Suite, connect, raise_nofile, report, tmpdir  # noqa: E402
from hostile_common import W2, req  # noqa: E402
from rawhttp import Reader, error_of, read_answer  # noqa: E402
from wsclient import WebSocket  # noqa: E402

suite = Suite("refusals")


@suite.test()
def failed_tokens_rate_limited():
    s = Server(*W2, "--auth", "optional", "--rate", "20")
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10, source_address=("127.0.0.2", 0))
    got, retry = {}, []
    t0 = time.time()
    for _ in range(300):
        try:
            conn.request("GET", "/api/jobs/" + "0123456789abcdef",
                         headers={"Authorization": "Bearer ff_" + "0" * 48})
            resp = conn.getresponse()
            data = resp.read()
            key = "%d %s" % (resp.status, error_of(data))
            if resp.status == 429:
                retry.append(resp.getheader("Retry-After"))
        except Exception as e:  # noqa: BLE001 -- counted
            key = type(e).__name__
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10, source_address=("127.0.0.2", 0))
        got[key] = got.get(key, 0) + 1
    conn.close()
    n401 = sum(v for k, v in got.items() if k.startswith("401"))
    limited = got.get("429 rate_limited", 0)
    report("failed_tokens_rate_limited", limited > 0 and n401 <= 60 and retry and all(retry),
           {"answers": got, "seconds": round(time.time() - t0, 2), "retry_after": sorted(set(map(str, retry)))})


def web_folder():
    web = tmpdir("feelfish-hostile-web-")
    with open(os.path.join(web, "index.html"), "w") as f:
        f.write("<!doctype html><title>feelfish</title><p>hostile</p>\n")
    return web


@suite.test()
def config_hides_paths():
    d = tmpdir("feelfish-hostile-config-")
    db = os.path.join(d, "data", "secret-place.db")
    web = web_folder()
    model = os.path.join(d, "models", "style-secret.model")
    os.makedirs(os.path.dirname(model))
    shutil.copy(os.path.join(ROOT, "engine", "style.model"), model)

    def token(scopes, name):
        p = subprocess.run([harness.FF, "token", "create", "--scopes", scopes, "--name", name, "--db", db],
                           cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        return p.stdout.strip()

    admin, analyse = token("admin", "adm"), token("analyse", "ana")
    s = Server(*W2, "--auth", "required", "--web", web, "--style-model", model, db=db)
    paths = [db, web, model]
    seen = {}
    ok = True
    for who, tok in (("no_token", None), ("analyse_token", analyse)):
        res = req(s, "GET", "/api/config", token=tok)
        text = json.dumps(res[1])
        leaked = [p for p in paths if p in text or p.replace("/", "\\/") in text]
        keys = [k for k in ("db", "web", "styleModel", "redis") if isinstance(res[1], dict) and k in res[1]]
        seen[who] = {"status": res[0], "leaked": leaked, "keys": keys}
        ok = ok and not leaked and not keys
    res = req(s, "GET", "/api/config", token=admin)
    cfg = res[1] if isinstance(res[1], dict) else {}
    shown = {k: cfg.get(k) for k in ("db", "web", "styleModel")}
    seen["admin"] = {"status": res[0], "shown": shown}
    ok = ok and res[0] == 200 and os.path.abspath(str(shown["db"])) == db and shown["web"] == web \
        and shown["styleModel"] == model
    report("config_hides_paths", ok, seen)


@suite.test()
def head_answered():
    s = Server(*W2, "--web", web_folder())
    got = {}
    for path in ("/api/health", "/"):
        sock = connect(s.port)
        sock.sendall(b"HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path.encode())
        ans = read_answer(sock, 5, head_only=True)
        sock.close()
        got[path] = ({"status": ans[0], "type": ans[1].get("content-type"), "body_bytes": len(ans[2])}
                     if isinstance(ans, tuple) else ans)
    h, root = got["/api/health"], got["/"]
    report("head_answered", isinstance(h, dict) and h["status"] == 200
           and (h["type"] or "").startswith("application/json") and h["body_bytes"] == 0
           and isinstance(root, dict) and root["status"] == 200 and root["body_bytes"] == 0, got)


def raw_answer(port, data, timeout=5):
    sock = connect(port)
    t0 = time.time()
    try:
        sock.sendall(data)
    except OSError:
        pass
    ans = read_answer(sock, timeout)
    sock.close()
    return ans, time.time() - t0


def summarize(ans):
    if not isinstance(ans, tuple):
        return ans
    return {"status": ans[0], "type": ans[1].get("content-type"), "code": error_of(ans[2]), "body": ans[2][:80]}


@suite.test("uri_too_long_json", "headers_too_large_json", "huge_chunked_body_answered")
def oversized_requests():
    s = Server(*W2)
    ans, secs = raw_answer(s.port, b"GET /api/" + b"a" * 20000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    report("uri_too_long_json", isinstance(ans, tuple) and ans[0] == 414 and error_of(ans[2]) == "uri_too_long",
           dict(summarize(ans) if isinstance(ans, tuple) else {"answer": ans}, seconds=round(secs, 2)))
    # 21 KB of headers: past the server's 16 KiB, within the 32 KiB libmicrohttpd itself holds (past
    # that it answers in its own HTML, which the server cannot word).
    big = b"".join(b"X-Big-%d: %s\r\n" % (i, b"b" * 7000) for i in range(3))
    ans, secs = raw_answer(s.port, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + big + b"\r\n")
    report("headers_too_large_json", isinstance(ans, tuple) and ans[0] == 431
           and error_of(ans[2]) == "headers_too_large",
           dict(summarize(ans) if isinstance(ans, tuple) else {"answer": ans}, seconds=round(secs, 2)))
    # A chunk that announces 1 GiB, its data coming at about 6 MB/s: the answer must not wait for it.
    sock = connect(s.port)
    sock.sendall(b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n40000000\r\n")
    sock.setblocking(False)
    block = b"a" * 65536
    sent, buf, t0, how = 0, b"", time.time(), None
    while time.time() - t0 < 6 and b"\r\n\r\n" not in buf:
        r, _, _ = select.select([sock], [], [], 0.01)
        if r:
            try:
                chunk = sock.recv(65536)
            except OSError as e:
                how = "reset: %s" % e
                break
            if not chunk:
                how = "closed"
                break
            buf += chunk
            continue
        try:
            sent += sock.send(block)
        except BlockingIOError:
            pass
        except OSError as e:
            how = "send: %s" % e
            try:  # whatever answer came before the reset
                buf += sock.recv(65536)
            except OSError:
                pass
            break
    secs = time.time() - t0
    ans = None
    if b"\r\n\r\n" in buf:
        sock.setblocking(True)
        ans = read_answer(Reader(sock, buf), 2)
    sock.close()
    report("huge_chunked_body_answered", isinstance(ans, tuple) and ans[0] == 413
           and error_of(ans[2]) == "body_too_large" and secs <= 5,
           dict(summarize(ans) if isinstance(ans, tuple) else {"answer": ans, "got": buf[:120], "end": how},
                seconds=round(secs, 2), bytes_sent=sent))


def ws_handshake(port, host=None, origin=None, source=None):
    """A raw WebSocket upgrade request and what came back: (answer of read_answer, seconds)."""
    sock = connect(port, source)
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "Origin: %s\r\n" % origin if origin else ""
    sock.sendall(("GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n"
                  % (host or "127.0.0.1:%d" % port, key, extra)).encode())
    t0 = time.time()
    ans = read_answer(sock, 5)
    sock.close()
    return ans, time.time() - t0


@suite.test()
def ws_handshake_refusal_is_http():
    s = Server(*W2)
    got = {}
    ok = True
    for label, kw, status, code in (("foreign_origin", {"origin": "http://evil.example"}, 403, "origin_not_allowed"),
                                    ("foreign_host", {"host": "evil.example"}, 403, "host_not_allowed")):
        ans, secs = ws_handshake(s.ws_port, **kw)
        got[label] = summarize(ans)
        ok = ok and isinstance(ans, tuple) and ans[0] == status and error_of(ans[2]) == code
    # The server's smallest --connections-max is 16: the 17th WebSocket is one too many.
    small = Server(*W2, "--connections-max", "16")
    held = []
    try:
        for _ in range(16):
            held.append(WebSocket(small.ws_port, timeout=5))
        ans, secs = ws_handshake(small.ws_port)
        got["17th_of_16"] = summarize(ans)
        ok = ok and isinstance(ans, tuple) and ans[0] == 503 and error_of(ans[2]) == "too_many_connections"
    except (OSError, ConnectionError) as e:
        got["held"] = "%s: %s" % (type(e).__name__, e)
        ok = False
    for w in held:
        w.sock.close()
    report("ws_handshake_refusal_is_http", ok, got)


if __name__ == "__main__":
    raise_nofile()
    sys.exit(suite.main())
