#!/usr/bin/env python3
"""What a restart picks up, and what it must not: a queued job cut short by a shutdown runs again,
one the client deleted does not; a game resigned while the engine thinks stays resigned; a stored job
whose request this server no longer takes is marked failed, not left queued for ever."""
import os
import sqlite3
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import Server, check, poll, summary  # noqa: E402

LONG = {"moves": ["e2e4"], "limits": {"depth": 60, "movetime": 20000}}


def main():
    s = Server("--workers", "1")
    st, a, _ = s.request("POST", "/api/jobs", LONG)       # runs: the one worker is busy with it
    st2, b, _ = s.request("POST", "/api/jobs", LONG)      # waits in the queue
    poll(lambda: s.request("GET", "/api/jobs/" + a["id"])[1], lambda j: j.get("status") == "running")
    st3, d, _ = s.request("DELETE", "/api/jobs/" + b["id"])
    check("jobs_acknowledged", st == 202 and st2 == 202 and st3 == 200 and d["status"] == "cancelled", (st, st2, d))
    s.stop()  # SIGTERM: job a is cut short by the shutdown
    s = Server("--workers", "1", db=s.db)
    st, ja, _ = s.request("GET", "/api/jobs/" + a["id"])
    st2, jb, _ = s.request("GET", "/api/jobs/" + b["id"])
    check("job_cut_short_by_shutdown_runs_again", st == 200 and ja["status"] in ("queued", "running"), ja)
    check("deleted_job_does_not_run_again", st2 == 200 and jb["status"] == "cancelled", jb)
    s.request("DELETE", "/api/jobs/" + a["id"])
    # Resign while the engine thinks (level 8 searches 1.5 s): the game stays resigned.
    st, g, _ = s.request("POST", "/api/games", {"level": 8, "color": "white"})
    replies = {}
    mover = threading.Thread(target=lambda: replies.update(
        move=s.request("POST", "/api/games/%s/moves" % g["fullId"], {"move": "e2e4"})))
    mover.start()
    poll(lambda: s.request("GET", "/api/games/" + g["id"])[1], lambda x: x.get("thinking"))
    st, r, _ = s.request("POST", "/api/games/%s/resign" % g["fullId"])
    mover.join(30)
    time.sleep(0.2)
    st2, after, _ = s.request("GET", "/api/games/" + g["id"])
    check("resign_while_engine_thinks_stays_resigned", st == 200 and after["status"] == "resign"
          and after["moves"] == ["e2e4"] and after["result"] == "0-1", after)
    s.stop()
    # A queued job stored with a request this server refuses (an older server took a key it no longer
    # does): the restart marks it failed and says so in the log.
    db = sqlite3.connect(s.db)
    db.execute("INSERT INTO jobs (id, status, created_ms, finished_ms, result, request, owner) VALUES "
               "('00000000deadbeef', 'queued', 1, 0, '', ?, '127.0.0.1')",
               ('{"moves": ["e2e4"], "limits": {"depth": 2}, "retired": true}',))
    db.commit()
    db.close()
    s = Server("--workers", "1", db=s.db)
    # (the failed row is saved in the background: polled)
    job = poll(lambda: s.request("GET", "/api/jobs/00000000deadbeef")[1], lambda j: j.get("status") == "failed")
    check("unreadable_stored_job_marked_failed", job.get("status") == "failed"
          and "00000000deadbeef cannot be resumed (unknown_field" in s.stderr(), (job, s.stderr()[-400:]))
    s.stop()
    return summary("restart")


if __name__ == "__main__":
    sys.exit(main())
