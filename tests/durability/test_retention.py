#!/usr/bin/env python3
"""Retention: the database keeps the newest finished jobs and games up to --retention-jobs and
--retention-games and lets go of what is older than --retention-days (queued jobs are kept: a restart
runs them); games untouched for --game-memory-idle leave memory and are read back when asked for;
`feelfish db prune` applies the same rules by hand and `feelfish db stats` counts what is there."""
import os
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import FF, Server, check, poll, summary  # noqa: E402

FEELFISH = FF
QUICK = {"moves": ["e2e4"], "limits": {"depth": 1}}
DAY_MS = 86400000


def counts(db):
    con = sqlite3.connect(db)
    try:
        return (con.execute("SELECT COUNT(*) FROM jobs WHERE status = 'done'").fetchone()[0],
                con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        con.close()


def metric(s, name):
    st, text, _ = s.request("GET", "/metrics")
    for line in (text or "").splitlines() if isinstance(text, str) else []:
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def age_everything(db, days):
    """Makes every stored job and game look `days` old (as if the server had been off that long)."""
    con = sqlite3.connect(db)
    past = int(time.time() * 1000) - days * DAY_MS
    con.execute("UPDATE jobs SET finished_ms = ?, created_ms = ? WHERE status = 'done'", (past, past))
    con.execute("UPDATE games SET updated_ms = ?", (past,))
    con.commit()
    con.close()


def main():
    # Caps by count: the newest 3 jobs and 2 games stay (pruned a second after the start).
    s = Server("--workers", "1")
    # Games first: their engine moves are stored jobs too, and the analyses must be the newest.
    games = []
    for _ in range(4):
        st, g, _ = s.request("POST", "/api/games", {"level": 1, "color": "white"})
        s.request("POST", "/api/games/%s/moves" % g["fullId"], {"move": "e2e4"})
        games.append(g)
        time.sleep(0.01)
    jobs = []
    for _ in range(6):
        st, r, _ = s.request("POST", "/api/analyse", QUICK)
        jobs.append(r.get("id"))
        time.sleep(0.01)
    s.stop()
    s = Server("--workers", "1", "--retention-jobs", "3", "--retention-games", "2", "--game-memory-idle", "2",
               db=s.db)
    kept = poll(lambda: counts(s.db), lambda c: c == (3, 2), tries=60, delay=0.2)
    check("retention_caps_by_count", kept == (3, 2), kept)
    loaded = s.request("GET", "/api/games/" + games[-1]["id"])[0]
    held = metric(s, "feelfish_games_in_memory")
    in_memory = poll(lambda: metric(s, "feelfish_games_in_memory"), lambda n: n == 0, tries=40, delay=0.2)
    check("idle_games_leave_memory", loaded == 200 and held == 1 and in_memory == 0, (loaded, held, in_memory))
    newest, oldest = s.request("GET", "/api/games/" + games[-1]["id"]), s.request("GET", "/api/games/" + games[0]["id"])
    check("newest_game_read_back_oldest_gone", newest[0] == 200 and newest[1]["moves"][:1] == ["e2e4"]
          and oldest[0] == 404, (newest[0], oldest[0]))
    moved = s.request("POST", "/api/games/%s/moves" % games[-1]["fullId"],
                      {"move": "d2d4" if newest[1]["moves"][1:2] != ["d7d5"] else "g1f3"})
    check("evicted_game_still_playable", moved[0] == 200 and len(moved[1]["moves"]) >= 3, moved[:2])
    last, first = s.request("GET", "/api/jobs/" + jobs[-1]), s.request("GET", "/api/jobs/" + jobs[0])
    check("newest_job_kept", last[0] == 200 and last[1].get("status") == "done", last[:2])
    s.stop()

    # By age: what is older than --retention-days goes at the next start; a queued job stays.
    s = Server("--workers", "1", "--retention-days", "30")
    for _ in range(3):
        s.request("POST", "/api/analyse", QUICK)
    st, g, _ = s.request("POST", "/api/games", {"level": 1, "color": "white"})
    s.stop()
    age_everything(s.db, 31)
    con = sqlite3.connect(s.db)
    con.execute("INSERT INTO jobs(id, status, created_ms, finished_ms, result, request, owner) VALUES "
                "('00000000000000aa', 'queued', 1, 0, '', ?, '127.0.0.1')", ('{"moves": ["e2e4"], "limits": '
                                                                          '{"depth": 1}}',))
    con.commit()
    con.close()
    s = Server("--workers", "1", "--retention-days", "30", db=s.db)
    gone = poll(lambda: counts(s.db), lambda c: c == (1, 0), tries=60, delay=0.2)  # the old queued job ran
    check("retention_by_age_keeps_queued", gone == (1, 0), gone)
    st, j, _ = s.request("GET", "/api/jobs/00000000000000aa")
    check("queued_job_ran_not_pruned", st == 200 and j.get("status") == "done", j)
    s.stop()

    # By hand: db stats and db prune on a stopped server's file.
    s = Server("--workers", "1", "--retention-days", "0", "--retention-jobs", "0", "--retention-games", "0")
    for _ in range(4):
        s.request("POST", "/api/analyse", QUICK)
    s.request("POST", "/api/games", {"level": 1, "color": "white"})
    s.stop()
    stats = subprocess.run([FEELFISH, "db", "stats", "--db", s.db], capture_output=True, text=True)
    check("db_stats_counts", stats.returncode == 0 and "jobs: 4" in stats.stdout and "games: 1" in stats.stdout,
          stats.stdout + stats.stderr)
    pruned = subprocess.run([FEELFISH, "db", "prune", "--retention-jobs", "1", "--retention-games", "0",
                             "--retention-days", "0", "--vacuum", "--db", s.db], capture_output=True, text=True)
    check("db_prune_by_hand", pruned.returncode == 0 and "deleted 3 finished jobs, 0 games and 0 cached evaluations" in pruned.stdout
          and counts(s.db) == (1, 1), (pruned.stdout, pruned.stderr, counts(s.db)))
    bad = subprocess.run([FEELFISH, "db", "prune", "--retention-days", "-3", "--db", s.db], capture_output=True,
                         text=True)
    check("db_prune_refuses_bad_numbers", bad.returncode == 2 and "usage" in bad.stderr, bad.stderr)
    sys.exit(summary("retention"))


if __name__ == "__main__":
    main()
