#!/usr/bin/env python3
"""Request heads as a hostile client breaks them, through the real server: strict framing (two
Content-Lengths, one that is not a number or overflows, Transfer-Encoding other than chunked, both
Content-Length and Transfer-Encoding, a Content-Length past --body-max answered before the body,
whitespace before a header's colon, no Host), each answered at once with nothing sent after it read
as a next request; paths that are not UTF-8 (400 bad_path); request ids (echoed or made, also on a
framing error answered before routing, named in the access log) and JSON log lines that stay valid
whatever the path or request id. The checks share one server with the default settings, except
json_log_lines_valid (--log-format json). No environment variables of its own (FEELFISH names the
binary, as for every harness suite). Standard library only. Run it all, or some checks:
test_framing_and_ids.py [--list] [CHECK_NAME...]; prints 'framing-and-ids: N passed, N failed'."""
import json
import os
import re
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Server, Suite, raise_nofile, report  # noqa: E402
from rawhttp import POST, error_of, raw_exchange  # noqa: E402

suite = Suite("framing-and-ids")
ID_RE = re.compile(r"[0-9a-f]{8}-[0-9]+")


# ---- framing ----

def framing_case(name, head, status, code, within=2.0, extra=b""):
    """Sends only the request head (plus `extra`): the answer must come within `within` seconds, before
    any body, with this status and error code; the connection must not go on to another request."""
    s = suite.server()
    ans, secs, r = raw_exchange(s.port, head + extra, timeout=within + 1)
    ok = isinstance(ans, tuple) and ans[0] == status and error_of(ans[2]) == code and secs <= within
    detail = {"answer": (ans[0], ans[2][:160]) if isinstance(ans, tuple) else ans, "seconds": round(secs, 2)}
    if isinstance(ans, tuple) and code != "host_missing":
        # What follows a broken framing must not be read as a next request (request smuggling).
        try:
            r.sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        except OSError:
            pass
        then = r.eof(2)
        detail["then"] = ("data", then[1][:120]) if isinstance(then, tuple) else then
        ok = ok and not isinstance(then, tuple) and (ans[1].get("connection", "").lower() == "close"
                                                     or isinstance(then, float))
    report(name, ok, detail)
    r.sock.close()


suite.add("framing_two_content_lengths", framing_case, "framing_two_content_lengths",
          POST + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n", 400, "bad_framing")
# A Content-Length that is not a number (or overflows) is refused by libmicrohttpd 0.9.75 itself,
# before the server sees the request: its own HTML 400 or 413 (with its head sent twice, a library
# bug), then the connection closes. What matters here: refused at once, nothing else read from it.


def framing_refused_by_library(name, head, status):
    s = suite.server()
    ans, secs, r = raw_exchange(s.port, head, timeout=3)
    try:
        r.sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    except OSError:
        pass
    rest, closed, deadline = r.buf, None, time.time() + 3
    while closed is None and time.time() < deadline:  # everything until the server closes
        r.sock.settimeout(max(0.01, deadline - time.time()))
        try:
            chunk = r.sock.recv(65536)
        except socket.timeout:
            break
        except OSError:
            chunk = b""
        if chunk:
            rest += chunk
        else:
            closed = True
    report(name, isinstance(ans, tuple) and ans[0] == status and secs <= 2.0 and closed
           and b'"status":"ok"' not in rest,
           {"answer": (ans[0], ans[2][:80]) if isinstance(ans, tuple) else ans, "seconds": round(secs, 2),
            "closed": closed, "after": rest[:120]})
    r.sock.close()


suite.add("framing_content_length_not_a_number", framing_refused_by_library, "framing_content_length_not_a_number",
          POST + b"Content-Length: 12abc\r\n\r\n", 400)
suite.add("framing_transfer_encoding_gzip", framing_case, "framing_transfer_encoding_gzip",
          POST + b"Transfer-Encoding: gzip\r\n\r\n", 400, "bad_framing")
suite.add("framing_content_length_and_transfer_encoding", framing_case,
          "framing_content_length_and_transfer_encoding",
          POST + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "bad_framing",
          2.0, b"0\r\n\r\n")
suite.add("framing_body_too_large_before_body", framing_case, "framing_body_too_large_before_body",
          POST + b"Content-Length: 100000000\r\n\r\n", 413, "body_too_large")
suite.add("framing_content_length_overflow_413", framing_refused_by_library, "framing_content_length_overflow_413",
          POST + b"Content-Length: 99999999999999999999999\r\n\r\n", 413)
# RFC 9112 5.1: whitespace between a field name and its colon must get a 400. Taken as some other
# header, the body that a proxy would count as this request's is read as a request of its own.
suite.add("framing_space_before_colon", framing_case, "framing_space_before_colon",
          POST + b"Content-Length : 44\r\n\r\n", 400, "bad_framing", 2.0,
          b"GET /api/nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
suite.add("framing_host_missing", framing_case, "framing_host_missing",
          b"GET /api/health HTTP/1.1\r\n\r\n", 400, "host_missing")


@suite.test()
def framing_bad_utf8_path():
    s = suite.server()
    bad = ["/%c0%af", "/api/%ed%a0%80", "/%f8%88%80%80%80", "/api/%ff", "/api/jobs/%c3", "/%e0%80%af",
           "/api/%f4%90%80%80"]
    got = {}
    for path in bad:
        ans = raw_exchange(s.port, b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                           % path.encode())[0]
        got[path] = (ans[0], error_of(ans[2])) if isinstance(ans, tuple) else ans
    good = raw_exchange(s.port, b"GET /api/%c3%a9 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")[0]
    got["/api/%c3%a9 (valid)"] = (good[0], error_of(good[2])) if isinstance(good, tuple) else good
    report("framing_bad_utf8_path", all(got[p] == (400, "bad_path") for p in bad)
           and isinstance(good, tuple) and good[0] == 404, got)


# ---- request ids and the log ----

def get_id(s, path, rid=None):
    hdrs = {"X-Request-Id": rid} if rid is not None else {}
    st, _, resp = s.request("GET", path, headers=hdrs)
    return st, resp.getheader("X-Request-Id")


@suite.test()
def request_id_echoed_and_generated():
    s = suite.server()
    mine = "abc-123_x.y:Z"
    cases = {
        "echoed": get_id(s, "/api/health", mine),
        "echoed_on_404": get_id(s, "/api/nope", "req.404"),
        "longest": get_id(s, "/api/health", "a" * 64),
        "none": get_id(s, "/api/health"),
        "none2": get_id(s, "/api/health"),
        "bad_chars": get_id(s, "/api/health", "bad id!"),
        "too_long": get_id(s, "/api/health", "a" * 65),
        "empty": get_id(s, "/api/health", ""),
        "injection": get_id(s, "/api/health", 'x"},{"level":"error'),
    }
    made = [cases[k][1] for k in ("none", "none2", "bad_chars", "too_long", "empty", "injection")]
    # Framing errors answered before routing carry one too.
    framing = raw_exchange(s.port, b"GET /api/health HTTP/1.1\r\nX-Request-Id: early-1\r\n\r\n")[0]
    cases["host_missing"] = (framing[0], framing[1].get("x-request-id")) if isinstance(framing, tuple) else framing
    # The text access log names the id.
    log_has = poll_log(s, [mine, "req.404"])
    report("request_id_echoed_and_generated",
           cases["echoed"] == (200, mine) and cases["echoed_on_404"] == (404, "req.404")
           and cases["longest"] == (200, "a" * 64)
           and all(m and ID_RE.fullmatch(m) for m in made) and len(set(made)) == len(made)
           and isinstance(framing, tuple) and cases["host_missing"][1] == "early-1" and log_has,
           {"cases": cases, "in_log": log_has})


def poll_log(s, needles, secs=2):
    deadline = time.time() + secs
    while time.time() < deadline:
        text = s.stderr()
        if all(n in text for n in needles):
            return True
        time.sleep(0.1)
    return False


@suite.test()
def json_log_lines_valid():
    s = Server("--log-format", "json", "--log-level", "info")
    made = []  # (request id answered, status)
    for path, rid in (("/api/health", "json-1"), ("/api/x%0a%22%1b%ff", "nasty-1"), ("/api/x%0a%22%1b", None),
                      ("/api/y%00z%5c%7f", "nul-1"), ("/api/jobs/" + "%e2%80%ae" * 3, None), ("/api/health", None)):
        st, _, resp = s.request("GET", path, headers={"X-Request-Id": rid} if rid else {})
        made.append((resp.getheader("X-Request-Id"), st))
    raw_exchange(s.port, b"GET /api/health\x1b[2J HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    raw_exchange(s.port, b"GET /api/z\xff\xfe\"\\ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    time.sleep(0.3)
    rc, _ = s.stop()
    with open(s.stderr_path, "rb") as f:
        raw_lines = f.read().split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    bad, parsed = [], []
    for line in raw_lines:
        try:
            text = line.decode("utf-8")
            obj = json.loads(text)
            if not isinstance(obj, dict) or any(ord(c) < 0x20 or ord(c) == 0x7f for c in text):
                raise ValueError("not an object or raw control characters")
            parsed.append(obj)
        except ValueError as e:
            bad.append((str(e)[:60], line[:200]))
    access = [o for o in parsed if o.get("level") == "access"]
    by_id = {o.get("requestId"): o for o in access}
    keys = {"time", "level", "requestId", "client", "method", "path", "status", "ms"}
    missing = [(rid, st) for rid, st in made if not (rid in by_id and by_id[rid].get("status") == st)]
    report("json_log_lines_valid", rc == 0 and raw_lines and not bad and len(access) >= len(made)
           and all(keys <= set(o) and isinstance(o["requestId"], str) and o["requestId"] for o in access)
           and not missing and by_id.get("nasty-1", {}).get("status") == 400,
           {"bad": bad[:3], "missing": missing, "access": access[:2], "nasty": by_id.get("nasty-1"),
           "lines": len(raw_lines)})


if __name__ == "__main__":
    raise_nofile()
    sys.exit(suite.main())
