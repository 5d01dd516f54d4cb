#!/usr/bin/env python3
"""Jobs through the real server: POST /api/jobs answers at once, GET polls it to the end, DELETE
cancels it, unknown ids are 404; finished jobs are stored (SQLite, schema versioned, WAL) and answered
by a restarted server; a full queue answers 503 with Retry-After; SIGTERM with searches running
answers the waiting requests and exits 0 promptly. Standard library only. Run it all, or some
checks: test_jobs.py [--list] [CHECK_NAME...]; prints 'jobs: N passed, N failed'."""
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import FEN, Server, Suite, check, error_code, poll, raw_post  # noqa: E402

fen = FEN
suite = Suite("jobs", lambda: Server("--workers", "2", "--queue", "8"))
LONG_JOB = {"fen": fen, "limits": {"movetime": 20000}}


def job_status(s, job_id):
    return s.request("GET", "/api/jobs/" + job_id)[1]


def finished_job(s):
    """A depth-9 job created and polled until it is done: (the job as created, as last polled)."""
    st, j, _ = s.request("POST", "/api/jobs", {"fen": fen, "limits": {"depth": 9}})
    return j, poll(lambda: job_status(s, j["id"]), lambda g: g["status"] == "done")


@suite.test()
def job_created():
    st, j, _ = suite.server().request("POST", "/api/jobs", {"fen": fen, "limits": {"depth": 9}})
    check("job_created", st == 202 and j["status"] == "queued" and len(j["id"]) >= 8, j)


@suite.test()
def job_done():
    j, g = finished_job(suite.server())
    check("job_done", g["status"] == "done" and g["depth"] == 9 and g["bestMove"], g)


@suite.test()
def job_cancelled():
    s = suite.server()
    st, j2, _ = s.request("POST", "/api/jobs", LONG_JOB)
    time.sleep(0.3)
    s.request("DELETE", "/api/jobs/" + j2["id"])
    time.sleep(0.3)
    g = job_status(s, j2["id"])
    check("job_cancelled", g["status"] == "cancelled", g)


@suite.test()
def job_unknown():
    res = suite.server().request("GET", "/api/jobs/doesnotexist")
    check("job_unknown", res[0] == 404 and error_code(res) == "unknown_job", res[1])


@suite.test()
def job_delete_unknown():
    res = suite.server().request("DELETE", "/api/jobs/doesnotexist")
    check("job_delete_unknown", res[0] == 404, res[1])


# ---- storage: finished jobs stay answerable after a restart (their own server and database) ----

def restarted_with_job():
    """A finished depth-9 job on a server that is then restarted on the same database:
    (the new server, the job's id)."""
    s = Server("--workers", "2", "--queue", "8")
    try:
        j, _ = finished_job(s)
    finally:
        s.stop()
    return Server("--workers", "1", db=s.db), j["id"]


@suite.test()
def job_survives_restart():
    s, job_id = restarted_with_job()
    with s:
        st, g2, _ = s.request("GET", "/api/jobs/" + job_id)
    check("job_survives_restart", st == 200 and g2.get("id") == job_id and g2.get("status") == "done"
          and g2.get("depth") == 9 and g2.get("bestMove"), g2)


@suite.test()
def stored_unknown_job():
    s, _ = restarted_with_job()
    with s:
        res = s.request("GET", "/api/jobs/0123456789abcdef")
    check("stored_unknown_job", res[0] == 404 and error_code(res) == "unknown_job", res[1])


@suite.test()
def db_schema_wal():
    """Every finished analysis is a stored job: five of them, then the database as the server left it."""
    with Server("--workers", "2", "--queue", "8") as s:
        for depth in range(1, 6):
            s.request("POST", "/api/analyse", {"fen": fen, "limits": {"depth": depth}})
    con = sqlite3.connect(s.db)
    version = con.execute("PRAGMA user_version").fetchone()[0]
    mode = con.execute("PRAGMA journal_mode").fetchone()[0]
    rows = con.execute("SELECT COUNT(*) FROM jobs WHERE status = 'done'").fetchone()[0]
    con.close()
    check("db_schema_wal", version == 10 and mode == "wal" and rows >= 5, (version, mode, rows))


# ---- a full queue; SIGTERM with searches running (their own one-worker servers) ----

def fill_queue(s):
    """One long job running, one waiting (a queue of one), a third refused: their three answers."""
    a = s.request("POST", "/api/jobs", LONG_JOB)
    poll(lambda: s.health()["workers"]["busy"], lambda busy: busy == 1, tries=100, delay=0.02)
    b = s.request("POST", "/api/jobs", LONG_JOB)
    c = s.request("POST", "/api/jobs", LONG_JOB)
    return a, b, c


@suite.test()
def queue_full_503():
    with Server("--workers", "1", "--queue", "1") as s:
        a, b, c = fill_queue(s)
    check("queue_full_503", a[0] == 202 and b[0] == 202 and c[0] == 503 and error_code(c) == "queue_full"
          and c[2].getheader("Retry-After") == "1", (a[0], b[0], c[0], c[1]))


def sigterm_while_busy():
    """SIGTERM to a server with its queue full and an analysis request waiting on a plain socket:
    (exit code, seconds to exit, what the waiting request was answered)."""
    s = Server("--workers", "1", "--queue", "1")
    try:
        fill_queue(s)
        sock = raw_post(s.port, "/api/analyse", LONG_JOB)
        time.sleep(0.2)
    finally:
        rc, secs = s.stop()
    sock.settimeout(2)
    try:
        answer = sock.recv(4096).decode(errors="replace")
    except OSError:
        answer = ""
    sock.close()
    return rc, secs, answer


@suite.test()
def sigterm_busy_exit_0_fast():
    rc, secs, _ = sigterm_while_busy()
    check("sigterm_busy_exit_0_fast", rc == 0 and secs < 2, (rc, secs))


@suite.test()
def sigterm_answers_waiting():
    _, _, answer = sigterm_while_busy()
    check("sigterm_answers_waiting", answer.startswith("HTTP/1.1 503") or answer.startswith("HTTP/1.1 200"),
          answer[:200])


if __name__ == "__main__":
    sys.exit(suite.main())
