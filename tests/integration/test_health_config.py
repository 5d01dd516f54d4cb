#!/usr/bin/env python3
"""`feelfish serve` as a process and its plain routes: command-line and environment settings,
/api/health, /api/config, the OpenAPI and AsyncAPI documents, /metrics, the static page (types, ETags, nothing
outside its folder), 404 and 405, and an idle server's exit on SIGTERM. Standard library only.
Run it all, or some checks: test_health_config.py [--list] [CHECK_NAME...]; prints
'health-config: N passed, N failed'."""
import copy
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contract  # noqa: E402
from harness import FEN, FF, Server, Suite, check, error_code, tmpdir  # noqa: E402


def make_web_root():
    """A static folder with a page, a script, a subfolder, a symlink inside and one pointing outside."""
    top = tmpdir("feelfish-web-")
    root = os.path.join(top, "web")
    os.makedirs(os.path.join(root, "sub"), exist_ok=True)
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write("<!doctype html><title>feelfish</title>")
    with open(os.path.join(root, "app.js"), "w") as f:
        f.write("console.log('hi');")
    with open(os.path.join(root, "sub", "style.css"), "w") as f:
        f.write("body{}")
    with open(os.path.join(top, "secret.txt"), "w") as f:
        f.write("outside the root")
    os.symlink(os.path.join(top, "secret.txt"), os.path.join(root, "leak.txt"))
    os.symlink(os.path.join(root, "app.js"), os.path.join(root, "alias.js"))
    return root


def web_server():
    return Server("--workers", "2", "--queue", "8", "--web", make_web_root())


suite = Suite("health-config", web_server)


# ---- settings ----

@suite.test()
def serve_help_lists_flags():
    out = subprocess.run([FF, "serve", "--help"], capture_output=True, text=True)
    flags = ["--http", "--ws", "--workers", "--hash", "--queue", "--db", "--web", "--bind", "--log-level",
             "--body-max", "--ws-message-max", "--ws-searches-max", "--max-depth", "--max-nodes", "--max-movetime",
             "--max-multipv", "--job-timeout"]
    check("serve_help_lists_flags", out.returncode == 0 and all(f in out.stdout for f in flags)
          and "FEELFISH_HTTP_PORT" in out.stdout and "(default 8080)" in out.stdout, out.stdout[-300:])


def serve_rejects(args, msg):
    res = subprocess.run([FF, "serve", *args], capture_output=True, text=True, timeout=10)
    check("serve_rejects " + " ".join(args), res.returncode == 2 and msg in res.stderr, res.stderr)


for _args, _msg in [(["--bogus"], "unknown option '--bogus'"), (["--http", "99999"], "--http: '99999' is not a whole"),
                    (["--workers"], "--workers needs a value"), (["--log-level", "loud"], "--log-level: 'loud'")]:
    suite.add("serve_rejects " + " ".join(_args), serve_rejects, _args, _msg)


@suite.test()
def settings_env_then_flags():
    env = dict(os.environ, FEELFISH_QUEUE="7", FEELFISH_MAX_MULTIPV="3")
    with Server("--max-multipv", "4", env=env) as s:
        cfg = s.request("GET", "/api/config", timeout=10)[1]
    check("settings_env_then_flags", cfg["queueCapacity"] == 7 and cfg["maxMultiPv"] == 4, cfg)


# ---- health, config, routes ----

@suite.test()
def health():
    s = suite.server()
    st, body, _ = s.request("GET", "/api/health")
    check("health", st == 200 and body["status"] == "ok" and body["workers"]["total"] == 2
          and body["queue"]["capacity"] == 8 and "uptimeMs" in body, body)


@suite.test()
def config_lists_limits():
    s = suite.server()
    st, cfg, _ = s.request("GET", "/api/config")
    check("config_lists_limits", st == 200 and cfg["bodyMaxBytes"] == 1048576 and cfg["maxMultiPv"] == 10
          and cfg["queueCapacity"] == 8 and cfg["httpPort"] == s.port and "maxDepth" in cfg
          and cfg["wsUrl"] == "ws://127.0.0.1:%d/" % cfg["wsPort"]
          and cfg["modes"] == ["classical", "affective", "bayesian"]
          and cfg["evaluation"].startswith(("none (the hand-written evaluation)", "embedded 768->")), cfg)


@suite.test()
def public_url_gives_ws_url():
    with Server("--public-url", "https://chess.example.org/feelfish/") as s:
        cfg = s.request("GET", "/api/config")[1]
    with Server("--public-url", "http://127.0.0.1:8088") as s:
        plain = s.request("GET", "/api/config")[1]
    refused = []
    for bad in ("ftp://x", "https://", "https://a b", "https://x/?q=1", "chess.example.org"):
        r = subprocess.run([FF, "serve", "--http", "0", "--ws", "0", "--public-url", bad], capture_output=True,
                           text=True, timeout=30)
        refused.append(r.returncode != 0 and "--public-url" in r.stderr)
    check("public_url_gives_ws_url", cfg["wsUrl"] == "wss://chess.example.org/feelfish/ws"
          and cfg["publicUrl"] == "https://chess.example.org/feelfish/" and plain["wsUrl"] == "ws://127.0.0.1:8088/ws"
          and all(refused), [cfg["wsUrl"], plain["wsUrl"], refused])


@suite.test()
def unknown_route():
    res = suite.server().request("GET", "/api/nope")
    check("unknown_route", res[0] == 404 and error_code(res) == "not_found", res[1])


@suite.test()
def wrong_method():
    res = suite.server().request("DELETE", "/api/health")
    check("wrong_method", res[0] == 405 and res[2].getheader("Allow") == "GET, HEAD", res[1])


@suite.test()
def openapi_has_every_route():
    """The served document is server/api/openapi.json as it is, and lists exactly Routes[]'s routes."""
    st, spec, resp = suite.server().request("GET", "/api/openapi.json")
    with open(contract.CONTRACT_PATH, encoding="utf-8") as f:
        same = spec == json.load(f)
    table, listed = contract.routes_table(), contract.operations()
    check("openapi_has_every_route", st == 200 and same and spec["openapi"].startswith("3.1") and table == listed
          and resp.getheader("Content-Type").startswith("application/json"),
          {"status": st, "served_is_the_file": same, "only_in_Routes": sorted(table - listed),
           "only_in_contract": sorted(listed - table)})


@suite.test()
def asyncapi_served():
    """The WebSocket's contract is served as server/api/asyncapi.json is, and each of its references to
    the REST one (openapi.json#/...) names a part of the served /api/openapi.json."""
    s = suite.server()
    st, doc, resp = s.request("GET", "/api/asyncapi.json")
    rest = s.request("GET", "/api/openapi.json")[1]
    with open(contract.STREAM_PATH, encoding="utf-8") as f:
        same = doc == json.load(f)
    refs = [n["$ref"] for n in contract.nodes(doc)
            if isinstance(n.get("$ref"), str) and n["$ref"].startswith("openapi.json#/")]
    dangling = [ref for ref in refs if contract.pointer(rest, ref) is None]
    check("asyncapi_served", st == 200 and same and doc["asyncapi"].startswith("3.0") and refs and not dangling
          and resp.getheader("Content-Type").startswith("application/json"),
          {"status": st, "served_is_the_file": same, "references": len(refs), "dangling": dangling})


@suite.test()
def openapi_examples_match():
    """Every example in the contract (each a real answer) passes its own schema."""
    bad = []
    for route, status, example, response in contract.examples():
        try:
            contract.validate_body(route, status, response, example)
        except AssertionError as e:
            bad.append(str(e))
    check("openapi_examples_match", len(contract.examples()) >= len(contract.operations()) and not bad, bad)


@suite.test()
def contract_rejects_a_wrong_answer():
    """The validator the harness runs on every answer catches a real answer with a required field
    renamed, in a nested object too, and a status the route does not list."""
    st, health, _ = suite.server().request("GET", "/api/health")  # passes the contract, or raises
    wrong = copy.deepcopy(health)
    wrong["state"] = wrong.pop("status")
    nested = copy.deepcopy(health)
    nested["workers"]["all"] = nested["workers"].pop("total")
    caught = []
    for body, status in ((wrong, 200), (nested, 200), (health, 201)):
        try:
            contract.check_answer("GET", "/api/health", status, body, "application/json")
            caught.append(None)
        except AssertionError as e:
            caught.append(str(e))
    check("contract_rejects_a_wrong_answer", st == 200 and all(caught) and "'status' is a required property" in caught[0]
          and "GET /api/health" in caught[0] and "200" in caught[0] and "workers" in caught[1], caught)


@suite.test()
def contract_rejects_a_taken_body_it_does_not_describe():
    """The harness's request check: a body the server took (2xx) must be one the contract's request
    schema accepts; a body it refused is not judged (the tests send wrong ones on purpose)."""
    body = {"fen": FEN, "limits": {"depth": 2}}
    taken = suite.server().request("POST", "/api/analyse", body)[0]  # passes, or raises
    caught = []
    for sent, status in ((dict(body, colour="white"), 200), (dict(body, limits={"depth": "2"}), 200),
                         (dict(body, colour="white"), 400)):
        try:
            contract.check_request("POST", "/api/analyse", status, json.dumps(sent))
            caught.append(None)
        except AssertionError as e:
            caught.append(str(e))
    check("contract_rejects_a_taken_body_it_does_not_describe", taken == 200 and caught[0] and caught[1]
          and caught[2] is None and "POST /api/analyse" in caught[0] and "limits/depth" in caught[1], caught)


@suite.test()
def metrics():
    s = suite.server()
    s.request("POST", "/api/analyse", {"limits": {"depth": 3}})  # a 400 on the analysis route, to be counted
    st, text, _ = s.request("GET", "/metrics")
    check("metrics", st == 200 and 'feelfish_http_requests_total{route="POST /api/analyse",status="400"}' in text
          and "feelfish_nodes_searched_total" in text and "feelfish_jobs_finished_total" in text, text[:300])


# ---- the static page: from memory, with types, ETags, and nothing outside the root ----

@suite.test()
def static_index():
    st, page, resp = suite.server().request("GET", "/")
    check("static_index", st == 200 and "<title>feelfish</title>" in page
          and resp.getheader("Content-Type").startswith("text/html") and resp.getheader("ETag"), (st, page))


@suite.test()
def static_mime_js():
    st, _, resp = suite.server().request("GET", "/app.js")
    check("static_mime_js", st == 200 and resp.getheader("Content-Type").startswith("text/javascript"),
          resp.getheaders())


@suite.test()
def static_subdir_css():
    st, _, resp = suite.server().request("GET", "/sub/style.css")
    check("static_subdir_css", st == 200 and resp.getheader("Content-Type").startswith("text/css"), st)


@suite.test()
def static_etag_304():
    s = suite.server()
    etag = s.request("GET", "/")[2].getheader("ETag")
    st, _, resp = s.request("GET", "/", headers={"If-None-Match": etag})
    check("static_etag_304", st == 304 and resp.getheader("ETag") == etag, st)


@suite.test()
def static_symlink_inside_ok():
    st, _, _ = suite.server().request("GET", "/alias.js")
    check("static_symlink_inside_ok", st == 200, st)


def static_refuses(attack):
    st, body, _ = suite.server().request("GET", attack)
    check("static_refuses " + attack, st == 404 and "outside" not in str(body), (st, body))


for _attack in ["/../secret.txt", "/%2e%2e/secret.txt", "/sub/../app.js", "/sub/%2e%2e/%2e%2e/secret.txt",
                "//etc/passwd", "/%2fetc%2fpasswd", "/leak.txt", "/etc/passwd", "/./app.js", "/app.js%00.html",
                "/..%2fsecret.txt", "/sub%2f..%2f..%2fsecret.txt"]:
    suite.add("static_refuses " + _attack, static_refuses, _attack)


@suite.test()
def static_post_404():
    st, _, _ = suite.server().request("POST", "/app.js", {"x": 1})
    check("static_post_404", st == 404, st)


# ---- shutdown ----

@suite.test()
def sigterm_idle_exit_0():
    """A server that has answered requests and has no search running exits 0 at once on SIGTERM."""
    s = web_server()
    try:
        s.request("GET", "/api/health")
        s.request("POST", "/api/analyse", {"fen": FEN, "limits": {"depth": 3}})
        s.request("GET", "/")
    finally:
        rc, secs = s.stop()
    check("sigterm_idle_exit_0", rc == 0 and secs < 2, (rc, secs))


if __name__ == "__main__":
    sys.exit(suite.main())
