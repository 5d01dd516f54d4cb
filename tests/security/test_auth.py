#!/usr/bin/env python3
"""API tokens, scopes, job owners, the learning policy and fairness between clients, through the real
server: `feelfish token create|list|revoke` (the database keeps only a token's hash); --auth required
(401 auth_required with WWW-Authenticate, invalid tokens, the open state pages, 403 missing_scope,
/metrics for admin), --auth optional (anonymous analyse and play, nothing more) and auto (off on
loopback); tokens created and revoked while the server runs; jobs that only their creator (or an
admin) may read or delete, also after a restart; WebSocket authentication (handshake header, auth
op) and foreign subscriptions; which finished games teach the Bayesian model (not_allowed,
too_short, client_cap); the worker pool serving clients round-robin; the cap on infinite analyses.
Clients differ by token or by loopback source address (127.0.0.2, .3, ...). Standard library only.
Run it all, or some checks: test_auth.py [--list] [CHECK_NAME...]; prints 'auth: N passed, N failed'."""
import hashlib
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import FEN, FF, ROOT, Server, Suite, check, poll, tmpdir  # noqa: E402
from wsclient import WebSocket  # noqa: E402

suite = Suite("auth")
BAD_TOKEN = "ff_" + "0" * 48
QUICK = {"fen": FEN, "limits": {"depth": 5}}
LONG = {"fen": FEN, "limits": {"movetime": 20000}}
FAIR_JOB = {"moves": ["e2e4"], "limits": {"movetime": 300}}
INFINITE = {"fen": FEN, "limits": {"infinite": True}}
# 21 plies of the closed Ruy Lopez (SAN): White (the human) has moved, the engine answers as Black.
LONG_LINE = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "c3",
             "O-O", "h3", "Nb8", "d4", "Nbd7", "Nbd2"]
RELOAD = 1.5  # the server re-reads the tokens every second


# ---- helpers ----

def token_cli(*args):
    """`feelfish token ARGS`: (exit code, stdout, stderr)."""
    p = subprocess.run([FF, "token", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def new_db():
    return os.path.join(tmpdir("feelfish-auth-"), "data", "test.db")


def make_token(db, scopes, name=None):
    """A new token's text (asserts the command worked)."""
    rc, out, err = token_cli("create", "--scopes", scopes, *(["--name", name] if name else []), "--db", db)
    assert rc == 0 and re.fullmatch(r"ff_[0-9a-f]{48}\n", out), (rc, out, err)
    return out.strip()


def req(s, method, path, body=None, token=None, source=None, headers=None):
    """(status, parsed body, response), with `Authorization: Bearer token` if given, from the loopback
    address `source` if given."""
    return s.request(method, path, body, headers=headers, source=source, token=token)


def code(res):
    return res[1]["error"]["code"] if isinstance(res[1], dict) and isinstance(res[1].get("error"), dict) else None


def brief(res):
    return (res[0], res[1] if not isinstance(res[1], str) else res[1][:200])


def closed(ws):
    """Whether the server has closed this WebSocket's connection (after a recv that returned None)."""
    if ws.close_code is not None:
        return True
    ws.sock.settimeout(0.5)
    try:
        return ws.sock.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True  # reset


def ws_code(m):
    return m.get("error", {}).get("code") if m and m.get("type") == "error" else None


def done_job(s, token=None, source=None):
    """A quick job created (and polled until done) by this client: its id."""
    st, j, _ = req(s, "POST", "/api/jobs", QUICK, token=token, source=source)
    assert st == 202, (st, j)
    last = poll(lambda: req(s, "GET", "/api/jobs/" + j["id"], token=token, source=source)[1],
                lambda g: isinstance(g, dict) and g.get("status") == "done")
    assert last.get("status") == "done", last
    return j["id"]


def finished_game(s, moves, token=None, mode="classical", color="white"):
    """A level-1 game created with these opening moves (the engine answers them), then resigned: the
    resignation's answer."""
    body = {"mode": mode, "color": color, "level": 1}
    if moves is not None:
        body["moves"] = moves
    st, g, _ = req(s, "POST", "/api/games", body, token=token)
    assert st in (200, 201) and isinstance(g, dict) and "fullId" in g, (st, g)
    st, r, _ = req(s, "POST", "/api/games/%s/resign" % g["fullId"], token=token)
    assert st == 200 and r.get("status") == "resign", (st, r)
    return r


def learned_games(s, token=None):
    return req(s, "GET", "/api/bayes/model", token=token)[1]["games"]


def learning(g):
    return {k: g.get(k) for k in ("learned", "notLearned", "status")} | {"plies": len(g.get("moves", []))}


# ---- the token command ----

@suite.test("token_create_prints_token", "token_list_shows_name_and_scopes_not_token", "token_unknown_scope_exit_2",
            "token_revoke_by_name_and_id", "token_revoke_unknown_fails", "token_stored_hashed")
def token_command():
    db = new_db()
    rc, out, err = token_cli("create", "--scopes", "analyse,play", "--name", "alice", "--db", db)
    text = out.strip()
    check("token_create_prints_token", rc == 0 and re.fullmatch(r"ff_[0-9a-f]{48}\n", out) is not None
          and text not in err, (rc, out, err))
    bob = make_token(db, "admin,learn", "bob")
    rc, listing, err = token_cli("list", "--db", db)
    rows = {line.split()[1]: line.split() for line in listing.splitlines() if len(line.split()) >= 3}
    check("token_list_shows_name_and_scopes_not_token", rc == 0 and set(rows) == {"alice", "bob"}
          and rows["alice"][2] == "analyse,play" and rows["bob"][2] == "learn,admin"
          and "ff_" not in listing and text[3:] not in listing and bob[3:] not in listing
          and hashlib.sha256(text.encode()).hexdigest() not in listing, listing)
    rc, out, err = token_cli("create", "--scopes", "analyse,superuser", "--db", db)
    rc_empty = token_cli("create", "--scopes", "", "--db", db)[0]
    after = token_cli("list", "--db", db)[1]
    check("token_unknown_scope_exit_2", rc == 2 and out == "" and "superuser" in err and rc_empty == 2
          and len(after.splitlines()) == 2, (rc, out, err, rc_empty, after))
    # The database keeps each token's SHA-256, never its text.
    con = sqlite3.connect(db)
    stored = con.execute("SELECT id, name, hash, scopes FROM tokens ORDER BY name").fetchall()
    con.close()
    raw = b""
    for suffix in ("", "-wal", "-journal"):
        if os.path.exists(db + suffix):
            with open(db + suffix, "rb") as f:
                raw += f.read()
    check("token_stored_hashed", len(stored) == 2
          and stored[0][2] == hashlib.sha256(text.encode()).hexdigest()
          and stored[1][2] == hashlib.sha256(bob.encode()).hexdigest()
          and not any(t[3:] in str(v) for row in stored for v in row for t in (text, bob))
          and text[3:].encode() not in raw and bob[3:].encode() not in raw, stored)
    rc1, out1, _ = token_cli("revoke", "alice", "--db", db)
    rc2, out2, _ = token_cli("revoke", rows["bob"][0], "--db", db)  # by id
    rc, listing, _ = token_cli("list", "--db", db)
    check("token_revoke_by_name_and_id", rc1 == 0 and rc2 == 0 and "revoked 1 token" in out1
          and "revoked 1 token" in out2 and rc == 0 and listing.strip() == "", (rc1, out1, rc2, out2, listing))
    rc, out, err = token_cli("revoke", "nobody", "--db", db)
    check("token_revoke_unknown_fails", rc == 1 and "nobody" in err, (rc, out, err))


# ---- --auth required ----

def required_server():
    """A server with --auth required and tokens of one scope each: (server, {scope: token})."""
    db = new_db()
    tokens = {sc: make_token(db, sc, sc + "-only") for sc in ("analyse", "play", "learn", "admin")}
    return Server("--auth", "required", "--workers", "2", db=db), tokens


@suite.test("required_config_says_required", "required_state_pages_open", "required_no_token_401",
            "required_invalid_token_401", "required_missing_scope_403", "required_scopes_allow",
            "required_admin_metrics", "required_access_routes_any_token")
def required_mode():
    s, t = required_server()
    cfg = req(s, "GET", "/api/config")
    check("required_config_says_required", cfg[0] == 200 and cfg[1]["auth"] == "required"
          and cfg[1]["authMode"] == "required", brief(cfg))
    opened = [req(s, "GET", p)[0] for p in ("/api/health", "/api/config", "/api/openapi.json")]
    check("required_state_pages_open", opened == [200, 200, 200], opened)
    refused = [req(s, "POST", "/api/analyse", QUICK), req(s, "POST", "/api/jobs", QUICK),
               req(s, "POST", "/api/games", {"mode": "classical", "level": 1}),
               req(s, "GET", "/api/jobs/0123456789abcdef"), req(s, "GET", "/api/games/g0123456789abcde"),
               req(s, "GET", "/api/bayes/model"), req(s, "GET", "/metrics"),
               req(s, "GET", "/api/cloud-eval?fen=" + FEN.replace(" ", "%20"))]
    check("required_no_token_401", all(r[0] == 401 and code(r) == "auth_required"
                                       and r[2].getheader("WWW-Authenticate") == 'Bearer realm="feelfish"'
                                       for r in refused),
          [(brief(r), r[2].getheader("WWW-Authenticate")) for r in refused])
    bad = [req(s, "POST", "/api/analyse", QUICK, token=BAD_TOKEN),
           req(s, "POST", "/api/analyse", QUICK, token=t["analyse"][:-1] + "x"),
           req(s, "POST", "/api/analyse", QUICK, headers={"Authorization": "Basic " + t["analyse"]}),
           req(s, "GET", "/api/bayes/model", token=BAD_TOKEN)]
    check("required_invalid_token_401", all(r[0] == 401 and code(r) == "invalid_token"
                                            and r[2].getheader("WWW-Authenticate") for r in bad),
          [brief(r) for r in bad])
    lacking = [req(s, "POST", "/api/analyse", QUICK, token=t["play"]),
               req(s, "POST", "/api/jobs", QUICK, token=t["learn"]),
               req(s, "POST", "/api/games", {"mode": "classical", "level": 1}, token=t["analyse"]),
               req(s, "GET", "/metrics", token=t["analyse"]),
               req(s, "POST", "/api/analyse", QUICK, token=t["admin"])]  # admin alone is not analyse
    check("required_missing_scope_403", all(r[0] == 403 and code(r) == "missing_scope" for r in lacking),
          [brief(r) for r in lacking])
    ana = req(s, "POST", "/api/analyse", QUICK, token=t["analyse"])
    game = req(s, "POST", "/api/games", {"mode": "classical", "color": "white", "level": 1}, token=t["play"])
    check("required_scopes_allow", ana[0] == 200 and ana[1].get("bestMove") and game[0] in (200, 201)
          and game[1].get("fullId"), (brief(ana), brief(game)))
    met = req(s, "GET", "/metrics", token=t["admin"])
    check("required_admin_metrics", met[0] == 200 and isinstance(met[1], str) and "# TYPE" in met[1], brief(met))
    gid = game[1]["id"] if game[0] in (200, 201) else "g0123456789abcde"
    reads = [req(s, "GET", "/api/bayes/model", token=t["learn"]),
             req(s, "GET", "/api/games/" + gid, token=t["analyse"]),
             req(s, "GET", "/api/games/%s/pgn" % gid, token=t["admin"])]
    check("required_access_routes_any_token", [r[0] for r in reads] == [200, 200, 200], [brief(r) for r in reads])
    s.stop()


@suite.test("token_created_while_running_accepted", "token_revoked_while_running_refused")
def tokens_while_running():
    s, _ = required_server()
    fresh = make_token(s.db, "analyse", "late")
    time.sleep(RELOAD)
    res = req(s, "POST", "/api/analyse", QUICK, token=fresh)
    check("token_created_while_running_accepted", res[0] == 200, brief(res))
    rc, out, err = token_cli("revoke", "late", "--db", s.db)
    time.sleep(RELOAD)
    res = req(s, "POST", "/api/analyse", QUICK, token=fresh)
    check("token_revoked_while_running_refused", rc == 0 and res[0] == 401 and code(res) == "invalid_token",
          (rc, err, brief(res)))
    s.stop()


# ---- --auth optional, and auto ----

@suite.test("optional_anonymous_analyse_and_play", "optional_anonymous_metrics_401", "optional_bad_token_401",
            "optional_token_scopes_not_anonymous", "optional_token_works")
def optional_mode():
    db = new_db()
    ana, adm = make_token(db, "analyse"), make_token(db, "admin")
    s = Server("--auth", "optional", "--workers", "2", db=db)
    a = req(s, "POST", "/api/analyse", QUICK)
    g = req(s, "POST", "/api/games", {"mode": "classical", "color": "white", "level": 1})
    check("optional_anonymous_analyse_and_play", a[0] == 200 and g[0] in (200, 201) and req(s, "GET", "/api/config")[1]
          ["authMode"] == "optional", (brief(a), brief(g)))
    m = req(s, "GET", "/metrics")
    check("optional_anonymous_metrics_401", m[0] == 401 and code(m) == "auth_required"
          and m[2].getheader("WWW-Authenticate") == 'Bearer realm="feelfish"', brief(m))
    bad = [req(s, "POST", "/api/analyse", QUICK, token=BAD_TOKEN),
           req(s, "POST", "/api/games", {"mode": "classical", "level": 1}, token=BAD_TOKEN)]
    check("optional_bad_token_401", all(r[0] == 401 and code(r) == "invalid_token" for r in bad),
          [brief(r) for r in bad])
    # A token has its own scopes, not the anonymous ones besides.
    r = req(s, "POST", "/api/games", {"mode": "classical", "level": 1}, token=ana)
    check("optional_token_scopes_not_anonymous", r[0] == 403 and code(r) == "missing_scope", brief(r))
    ok = [req(s, "POST", "/api/analyse", QUICK, token=ana)[0], req(s, "GET", "/metrics", token=adm)[0]]
    check("optional_token_works", ok == [200, 200], ok)
    s.stop()


@suite.test()
def auto_is_off_on_loopback():
    s = Server("--workers", "1")  # --bind 127.0.0.1, --auth auto
    cfg = req(s, "GET", "/api/config")[1]
    m = req(s, "GET", "/metrics")
    check("auto_is_off_on_loopback", cfg["auth"] == "auto" and cfg["authMode"] == "off" and m[0] == 200,
          ({k: cfg.get(k) for k in ("auth", "authMode")}, m[0]))
    s.stop()


# ---- job owners ----

@suite.test("job_owner_reads", "job_other_token_403", "job_anonymous_403", "job_admin_reads",
            "job_other_address_403", "job_delete_by_other_403", "job_admin_deletes", "job_owner_after_restart")
def job_owners():
    db = new_db()
    a, b, adm = make_token(db, "analyse", "a"), make_token(db, "analyse", "b"), make_token(db, "admin", "adm")
    args = ("--auth", "optional", "--workers", "2")
    s = Server(*args, db=db)
    jid = done_job(s, token=a)
    path = "/api/jobs/" + jid
    own = req(s, "GET", path, token=a)
    check("job_owner_reads", own[0] == 200 and own[1]["status"] == "done" and own[1].get("bestMove"), brief(own))
    other = req(s, "GET", path, token=b)
    check("job_other_token_403", other[0] == 403 and code(other) == "not_your_job", brief(other))
    anon = req(s, "GET", path)
    check("job_anonymous_403", anon[0] == 403 and code(anon) == "not_your_job", brief(anon))
    admin = req(s, "GET", path, token=adm)
    check("job_admin_reads", admin[0] == 200 and admin[1]["id"] == jid, brief(admin))
    # Anonymous jobs belong to their address.
    anon_job = done_job(s, source="127.0.0.2")
    mine, theirs = req(s, "GET", "/api/jobs/" + anon_job, source="127.0.0.2"), \
        req(s, "GET", "/api/jobs/" + anon_job, source="127.0.0.3")
    check("job_other_address_403", mine[0] == 200 and theirs[0] == 403 and code(theirs) == "not_your_job",
          (brief(mine), brief(theirs)))
    st, long_job, _ = req(s, "POST", "/api/jobs", LONG, token=a)
    deletes = [req(s, "DELETE", "/api/jobs/" + long_job["id"], token=b),
               req(s, "DELETE", "/api/jobs/" + long_job["id"], source="127.0.0.4")]
    still = req(s, "GET", "/api/jobs/" + long_job["id"], token=a)[1]
    check("job_delete_by_other_403", all(d[0] == 403 and code(d) == "not_your_job" for d in deletes)
          and still["status"] in ("queued", "running"), ([brief(d) for d in deletes], still))
    deleted = req(s, "DELETE", "/api/jobs/" + long_job["id"], token=adm)
    gone = poll(lambda: req(s, "GET", "/api/jobs/" + long_job["id"], token=a)[1],
                lambda j: j.get("status") == "cancelled", tries=40)
    check("job_admin_deletes", deleted[0] == 200 and gone.get("status") == "cancelled", (brief(deleted), gone))
    # Ownership is stored: a finished job read back after a restart is still refused to others.
    s = s.restart(*args)
    after = [req(s, "GET", path, token=b), req(s, "GET", path), req(s, "GET", path, token=a),
             req(s, "GET", "/api/jobs/" + anon_job, source="127.0.0.3"),
             req(s, "GET", "/api/jobs/" + anon_job, source="127.0.0.2")]
    check("job_owner_after_restart", [r[0] for r in after] == [403, 403, 200, 403, 200]
          and all(code(r) == "not_your_job" for r in after if r[0] == 403)
          and after[2][1]["status"] == "done", [brief(r) for r in after])
    s.stop()


# ---- WebSocket ----

@suite.test("ws_handshake_token_owns_its_job", "ws_subscribe_foreign_job_refused", "ws_handshake_bad_token_refused",
            "ws_handshake_bad_scheme_401",
            "ws_auth_op", "ws_auth_op_bad_token")
def websocket_auth():
    db = new_db()
    a, b = make_token(db, "analyse", "a"), make_token(db, "analyse,play", "b")
    s = Server("--auth", "optional", "--workers", "2", db=db)
    jid = done_job(s, token=a)
    ws = WebSocket(s.ws_port, headers={"Authorization": "Bearer " + a})
    ws.send({"op": "subscribe", "job": jid})
    m, seen = ws.until(lambda x: x.get("type") in ("bestmove", "error"), timeout=10)
    check("ws_handshake_token_owns_its_job", m and m.get("type") == "bestmove" and m.get("job") == jid, seen[-3:])
    ws.close()
    refused = []
    for headers in ({"Authorization": "Bearer " + b}, {}):  # another token; anonymous
        ws = WebSocket(s.ws_port, headers=headers)
        ws.send({"op": "subscribe", "job": jid})
        m, _ = ws.until(lambda x: x.get("type") in ("bestmove", "error"), timeout=10)
        refused.append(m)
        ws.close()
    check("ws_subscribe_foreign_job_refused", all(ws_code(m) == "not_your_job" for m in refused), refused)
    # A handshake with a token that is not valid is refused with 401 before the upgrade.
    try:
        WebSocket(s.ws_port, headers={"Authorization": "Bearer " + BAD_TOKEN})
        refusal = "upgraded"
    except ConnectionError as e:
        refusal = str(e)
    check("ws_handshake_bad_token_refused", refusal.startswith("handshake refused") and " 401 " in refusal, refusal)
    # ... and a malformed one (not Bearer) too; a good one still upgrades.
    try:
        WebSocket(s.ws_port, headers={"Authorization": "Basic dXNlcjpwYXNz"})
        refusal = "upgraded"
    except ConnectionError as e:
        refusal = str(e)
    upgraded = WebSocket(s.ws_port, headers={"Authorization": "Bearer " + a})
    upgraded.send({"op": "ping"})
    pong = upgraded.recv_json(timeout=5)
    upgraded.close()
    check("ws_handshake_bad_scheme_401", " 401 " in refusal and pong and pong.get("type") == "pong", (refusal, pong))
    ws = WebSocket(s.ws_port)
    ws.send({"op": "subscribe", "job": jid})
    before, _ = ws.until(lambda x: x.get("type") in ("bestmove", "error"), timeout=10)
    ws.send({"op": "auth", "token": a})
    auth, _ = ws.until(lambda x: x.get("type") in ("authenticated", "error"), timeout=5)
    ws.send({"op": "subscribe", "job": jid})
    then, _ = ws.until(lambda x: x.get("type") in ("bestmove", "error"), timeout=10)
    check("ws_auth_op", ws_code(before) == "not_your_job" and auth == {"type": "authenticated", "scopes": "analyse"}
          and then and then.get("type") == "bestmove" and then.get("job") == jid, (before, auth, then))
    ws.close()
    ws = WebSocket(s.ws_port)
    ws.send({"op": "auth", "token": BAD_TOKEN})
    err, _ = ws.until(lambda x: x.get("type") in ("authenticated", "error"), timeout=5)
    ws.send({"op": "ping"})
    pong = ws.recv_json(timeout=5)
    check("ws_auth_op_bad_token", ws_code(err) == "invalid_token" and pong == {"type": "pong"}, (err, pong))
    ws.close()
    s.stop()


@suite.test("ws_required_anonymous_refused", "ws_required_auth_op_then_analyse")
def websocket_required():
    s, t = required_server()
    jid = done_job(s, token=t["analyse"])
    ws = WebSocket(s.ws_port)
    ws.send({"op": "ping"})
    pong = ws.recv_json(timeout=5)
    ws.send({"op": "analyse", "id": "r1", "fen": FEN, "limits": {"depth": 5}})
    refused, _ = ws.until(lambda x: x.get("type") in ("bestmove", "error"), timeout=10)
    ws.send({"op": "subscribe", "job": jid})
    refused_sub, _ = ws.until(lambda x: x.get("type") in ("bestmove", "error"), timeout=10)
    check("ws_required_anonymous_refused", pong == {"type": "pong"} and ws_code(refused) == "auth_required"
          and refused.get("id") == "r1" and ws_code(refused_sub) == "auth_required", (pong, refused, refused_sub))
    ws.send({"op": "auth", "token": t["analyse"]})
    auth, _ = ws.until(lambda x: x.get("type") in ("authenticated", "error"), timeout=5)
    ws.send({"op": "analyse", "id": "r2", "fen": FEN, "limits": {"depth": 5}})
    best, seen = ws.until(lambda x: x.get("type") in ("bestmove", "error"), timeout=10)
    check("ws_required_auth_op_then_analyse", auth == {"type": "authenticated", "scopes": "analyse"}
          and best and best.get("type") == "bestmove" and best.get("id") == "r2", (auth, seen[-2:]))
    ws.close()
    s.stop()


# ---- which finished games teach the Bayesian model ----

@suite.test("learn_anonymous_not_allowed", "learn_token_without_learn_not_allowed", "learn_too_short",
            "learn_long_game_learned", "learn_model_counts_only_learned", "learn_engine_never_moved",
            "learn_affective_never")
def learning_policy():
    db = new_db()
    learner, player = make_token(db, "play,learn", "learner"), make_token(db, "play", "player")
    s = Server("--auth", "optional", "--workers", "2", db=db)
    start = learned_games(s)
    anon = finished_game(s, LONG_LINE)
    check("learn_anonymous_not_allowed", anon["learned"] is False and anon.get("notLearned") == "not_allowed",
          learning(anon))
    nolearn = finished_game(s, LONG_LINE, token=player)
    check("learn_token_without_learn_not_allowed", nolearn["learned"] is False
          and nolearn.get("notLearned") == "not_allowed", learning(nolearn))
    short = finished_game(s, ["e2e4"], token=learner)  # the engine answers: 2 plies
    check("learn_too_short", short["learned"] is False and short.get("notLearned") == "too_short"
          and len(short["moves"]) == 2, learning(short))
    mid = learned_games(s)
    full = finished_game(s, LONG_LINE, token=learner)
    reread = req(s, "GET", "/api/games/" + full["id"], token=learner)[1]
    check("learn_long_game_learned", full["learned"] is True and "notLearned" not in full
          and len(full["moves"]) == 22 and reread.get("learned") is True, (learning(full), learning(reread)))
    end = poll(lambda: learned_games(s), lambda n: n == start + 1, tries=40)
    check("learn_model_counts_only_learned", start == 0 and mid == 0 and end == 1, (start, mid, end))
    never = finished_game(s, None, token=player)  # the human (White) resigns before any move
    check("learn_engine_never_moved", never["learned"] is True and "notLearned" not in never
          and never["moves"] == [], learning(never))
    aff = finished_game(s, LONG_LINE, token=learner, mode="affective")
    check("learn_affective_never", aff["learned"] is False and "notLearned" not in aff
          and len(aff["moves"]) == 22, learning(aff))
    s.stop()


@suite.test("learn_client_cap", "learn_cap_is_per_client")
def learning_cap():
    db = new_db()
    one, two = make_token(db, "play,learn", "one"), make_token(db, "play,learn", "two")
    s = Server("--auth", "optional", "--workers", "2", "--learn-per-hour", "1", db=db)
    first = finished_game(s, LONG_LINE, token=one)
    second = finished_game(s, LONG_LINE, token=one)
    check("learn_client_cap", first["learned"] is True and second["learned"] is False
          and second.get("notLearned") == "client_cap", (learning(first), learning(second)))
    other = finished_game(s, LONG_LINE, token=two)
    n = poll(lambda: learned_games(s), lambda n: n == 2, tries=40)
    check("learn_cap_is_per_client", other["learned"] is True and n == 2, (learning(other), n))
    s.stop()


@suite.test()
def learn_off_mode_everyone():
    s = Server("--workers", "2")  # auto on loopback: off
    g = finished_game(s, LONG_LINE)
    short = finished_game(s, ["e2e4"])
    check("learn_off_mode_everyone", g["learned"] is True and "notLearned" not in g
          and short.get("notLearned") == "too_short", (learning(g), learning(short)))
    s.stop()


# ---- the worker pool serves clients in turn ----

def finish_order(s, jobs):
    """Polls the jobs [(id, token, source)] until all are done: their ids in the order they finished."""
    order = []
    deadline = time.time() + 20
    while len(order) < len(jobs) and time.time() < deadline:
        for jid, token, source in jobs:
            if jid in order:
                continue
            if req(s, "GET", "/api/jobs/" + jid, token=token, source=source)[1]["status"] == "done":
                order.append(jid)
        time.sleep(0.02)
    return order


def fair_queue(name, s, a, b):
    """Client a queues five ~300 ms jobs, then client b one, on one worker: b's runs second.
    a and b are (token, source)."""
    mine = [req(s, "POST", "/api/jobs", FAIR_JOB, token=a[0], source=a[1]) for _ in range(5)]
    theirs = req(s, "POST", "/api/jobs", FAIR_JOB, token=b[0], source=b[1])
    assert all(m[0] == 202 for m in mine) and theirs[0] == 202, ([brief(m) for m in mine], brief(theirs))
    jobs = [(m[1]["id"], *a) for m in mine] + [(theirs[1]["id"], *b)]
    order = finish_order(s, jobs)
    labels = {m[1]["id"]: "A%d" % (i + 1) for i, m in enumerate(mine)} | {theirs[1]["id"]: "B1"}
    check(name, [labels[j] for j in order] == ["A1", "B1", "A2", "A3", "A4", "A5"], [labels[j] for j in order])


@suite.test()
def fair_queue_by_address():
    s = Server("--workers", "1", "--quick-workers", "0")  # the regular lane's order alone
    fair_queue("fair_queue_by_address", s, (None, "127.0.0.2"), (None, "127.0.0.3"))
    s.stop()


@suite.test()
def fair_queue_by_token():
    db = new_db()
    ta, tb = make_token(db, "analyse", "ta"), make_token(db, "analyse", "tb")
    s = Server("--workers", "1", "--quick-workers", "0", "--auth", "required", db=db)
    fair_queue("fair_queue_by_token", s, (ta, None), (tb, None))  # both from 127.0.0.1
    s.stop()


# ---- the quick lane: a short analysis beside long searches ----

SHORT = {"fen": FEN, "limits": {"depth": 10}}


def job_status(s, jid, source):
    return req(s, "GET", "/api/jobs/" + jid, source=source)[1].get("status")


@suite.test("quick_lane_beside_long_search", "quick_lane_health", "quick_lane_not_for_a_running_client",
            "quick_lane_own_job_after_the_long_one", "quick_lane_off_waits")
def quick_lane():
    """One regular worker held by client A's long search: B's short analysis is answered at once by
    the quick lane (the default, two quick workers); A's own short job waits its turn behind A's long one;
    with --quick-workers 0, B's waits too."""
    s = Server("--workers", "1")
    a, b = "127.0.0.2", "127.0.0.3"
    st, long_job, _ = req(s, "POST", "/api/jobs", LONG, source=a)
    running = poll(lambda: job_status(s, long_job["id"], a), lambda v: v == "running", tries=50)
    t0 = time.time()
    st_b, got_b, _ = req(s, "POST", "/api/analyse", SHORT, source=b)
    took = time.time() - t0
    print("    B's depth-10 analysis beside A's 20 s search: %d in %.3f s" % (st_b, took))
    check("quick_lane_beside_long_search", st == 202 and running == "running" and st_b == 200
          and got_b.get("bestMove") and took < 5, (st, running, brief((st_b, got_b)), took))
    st_h, health, _ = req(s, "GET", "/api/health")
    check("quick_lane_health", st_h == 200 and health["workers"]["total"] == 1
          and health["workers"]["quick"] == {"busy": 0, "total": 2} and health["workers"]["busy"] == 1, health)
    st_q, own, _ = req(s, "POST", "/api/jobs", QUICK, source=a)
    time.sleep(1.0)
    waiting = job_status(s, own["id"], a)
    check("quick_lane_not_for_a_running_client", st_q == 202 and waiting == "queued", (st_q, waiting))
    req(s, "DELETE", "/api/jobs/" + long_job["id"], source=a)
    done = poll(lambda: job_status(s, own["id"], a), lambda v: v == "done", tries=100)
    check("quick_lane_own_job_after_the_long_one", done == "done", done)
    s.stop()

    s = Server("--workers", "1", "--quick-workers", "0")
    st, long_job, _ = req(s, "POST", "/api/jobs", LONG, source=a)
    poll(lambda: job_status(s, long_job["id"], a), lambda v: v == "running", tries=50)
    st_b, other, _ = req(s, "POST", "/api/jobs", SHORT, source=b)
    time.sleep(1.0)
    waiting = job_status(s, other["id"], b)
    check("quick_lane_off_waits", st_b == 202 and waiting == "queued", (st_b, waiting))
    req(s, "DELETE", "/api/jobs/" + long_job["id"], source=a)
    s.stop()


TIMED = {"fen": FEN, "limits": {"movetime": 1500}}  # quick, but runs its whole time (a level-8 move)


@suite.test("quick_lane_timed_job_taken", "quick_lane_last_worker_kept", "quick_lane_last_worker_analysis",
            "quick_lane_kept_job_runs_later", "quick_lane_of_one_takes_timed")
def quick_lane_last_worker():
    """The regular worker held by A: B's 1.5 s timed job takes a quick worker; C's takes none (the last
    free one is kept for bounded searches) while D's depth-5 analysis is answered at once; C's runs
    when a quick worker is free again. A lane of one quick worker takes a timed job as before."""
    s = Server("--workers", "1")
    a, b, c, d = "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"
    st, long_job, _ = req(s, "POST", "/api/jobs", LONG, source=a)
    poll(lambda: job_status(s, long_job["id"], a), lambda v: v == "running", tries=50)
    _, jb, _ = req(s, "POST", "/api/jobs", TIMED, source=b)
    running_b = poll(lambda: job_status(s, jb["id"], b), lambda v: v == "running", tries=20, delay=0.02)
    check("quick_lane_timed_job_taken", running_b == "running", running_b)
    _, jc, _ = req(s, "POST", "/api/jobs", TIMED, source=c)
    time.sleep(0.2)
    waiting_c = job_status(s, jc["id"], c)
    t0 = time.time()
    st_d, got_d, _ = req(s, "POST", "/api/analyse", QUICK, source=d)
    took = time.time() - t0
    still_b = job_status(s, jb["id"], b)
    print("    D's depth-5 analysis beside a long search and a timed one: %d in %.3f s (B %s)" % (st_d, took, still_b))
    check("quick_lane_last_worker_kept", waiting_c == "queued", waiting_c)
    check("quick_lane_last_worker_analysis", st_d == 200 and got_d.get("bestMove") and still_b == "running",
          (st_d, took, still_b))
    done_c = poll(lambda: job_status(s, jc["id"], c), lambda v: v == "done", tries=100)
    check("quick_lane_kept_job_runs_later", done_c == "done" and job_status(s, long_job["id"], a) == "running",
          done_c)
    req(s, "DELETE", "/api/jobs/" + long_job["id"], source=a)
    s.stop()

    s = Server("--workers", "1", "--quick-workers", "1")
    st, long_job, _ = req(s, "POST", "/api/jobs", LONG, source=a)
    poll(lambda: job_status(s, long_job["id"], a), lambda v: v == "running", tries=50)
    _, jb, _ = req(s, "POST", "/api/jobs", TIMED, source=b)
    running_b = poll(lambda: job_status(s, jb["id"], b), lambda v: v in ("running", "done"), tries=20, delay=0.02)
    check("quick_lane_of_one_takes_timed", running_b in ("running", "done"), running_b)
    req(s, "DELETE", "/api/jobs/" + long_job["id"], source=a)
    s.stop()


# ---- infinite analyses per client ----

@suite.test("infinite_cap_429", "infinite_cap_counts_the_client_not_the_connection", "infinite_cap_other_client",
            "infinite_cap_frees_after_stop")
def infinite_cap():
    db = new_db()
    other = make_token(db, "analyse", "other")
    s = Server("--auth", "optional", "--workers", "2", "--client-infinite-max", "1", db=db)
    ws = WebSocket(s.ws_port)
    ws.send({"op": "analyse", "id": "x", **INFINITE})
    info, _ = ws.until(lambda m: m.get("type") in ("info", "error"), timeout=5)
    ws.send({"op": "analyse", "id": "y", **INFINITE})
    err, _ = ws.until(lambda m: m.get("type") == "error", timeout=5)
    check("infinite_cap_429", info and info.get("type") == "info" and ws_code(err) == "too_many_infinite"
          and err.get("id") == "y" and err["error"].get("status", 429) == 429, (info, err))
    ws2 = WebSocket(s.ws_port)  # the same client (127.0.0.1) on another connection
    ws2.send({"op": "analyse", "id": "w", **INFINITE})
    err2, _ = ws2.until(lambda m: m.get("type") in ("error", "info"), timeout=5)
    check("infinite_cap_counts_the_client_not_the_connection", ws_code(err2) == "too_many_infinite", err2)
    ws3 = WebSocket(s.ws_port, headers={"Authorization": "Bearer " + other})
    ws3.send({"op": "analyse", "id": "o", **INFINITE})
    got3, _ = ws3.until(lambda m: m.get("type") in ("error", "info"), timeout=5)
    check("infinite_cap_other_client", got3 and got3.get("type") == "info", got3)
    ws3.send({"op": "stop", "id": "o"})
    ws3.until(lambda m: m.get("type") == "bestmove", timeout=5)
    ws.send({"op": "stop", "id": "x"})
    best, _ = ws.until(lambda m: m.get("type") == "bestmove", timeout=5)
    time.sleep(0.1)
    ws2.send({"op": "analyse", "id": "z", **INFINITE})
    got, _ = ws2.until(lambda m: m.get("type") in ("error", "info"), timeout=5)
    check("infinite_cap_frees_after_stop", best and best.get("id") == "x" and got and got.get("type") == "info",
          (best, got))
    ws2.send({"op": "stop", "id": "z"})
    ws2.until(lambda m: m.get("type") == "bestmove", timeout=5)
    for w in (ws, ws2, ws3):
        w.close()
    s.stop()


if __name__ == "__main__":
    sys.exit(suite.main())
