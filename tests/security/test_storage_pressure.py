#!/usr/bin/env python3
"""What hostile clients did to the server's storage, one regression check each, through the real
server: retention keeps the games, jobs and evaluation cache tables near their caps under a flood
(--retention-games, --retention-jobs, --retention-evals; the cloud-eval flood at a cap of 20, a pass
every 16 writes), and on a full disk (a 4 MiB tmpfs, filled) writes are refused with 503
storage_unavailable while every acknowledged game still reads, also after a restart, the WAL staying
within the disk.

Standard library only. Environment: HOSTILE_RETENTION_SECONDS (20) and HOSTILE_RETENTION_DEFAULTS=1
(the default caps: 100,000 jobs and games) set the game and job floods. reads_survive_full_disk
mounts a tmpfs (root). Run it all, or some checks: test_storage_pressure.py [--list] [CHECK_NAME...];
prints 'storage-pressure: N passed, N failed'."""
import http.client
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Server, Suite, raise_nofile, report  # noqa: E402
from hostile_common import W2, brief, req  # noqa: E402

suite = Suite("storage-pressure")


# ---- retention under a flood ----

def flood_case(name, table, path, body, cap, secs):
    # HOSTILE_RETENTION_DEFAULTS=1: the server's own caps (100,000), HOSTILE_RETENTION_SECONDS long
    # (the 5 minutes: 300).
    secs = float(os.environ.get("HOSTILE_RETENTION_SECONDS", secs))
    if os.environ.get("HOSTILE_RETENTION_DEFAULTS") == "1":
        cap, flags = (500000 if table == "evals" else 100000), ()
    else:
        flags = ("--retention-games", str(cap), "--retention-jobs", str(cap), "--retention-evals", str(cap))
    s = Server(*W2, *flags)
    stop = threading.Event()
    made, other = [0], {}
    lock = threading.Lock()

    def flooder():
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
        while not stop.is_set():
            try:
                payload = json.dumps(body() if callable(body) else body)
                conn.request("POST", path, body=payload, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                st = resp.status
            except Exception as e:  # noqa: BLE001 -- counted, a new connection follows
                st = type(e).__name__
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
            with lock:
                if st in (200, 201):
                    made[0] += 1
                else:
                    other[str(st)] = other.get(str(st), 0) + 1
        conn.close()

    threads = [threading.Thread(target=flooder) for _ in range(4)]
    t0 = time.time()
    for t in threads:
        t.start()
    samples = []  # (seconds, rows)
    db = None
    while time.time() - t0 < secs:
        time.sleep(max(0, t0 + 0.5 * (len(samples) + 1) - time.time()))
        try:
            if db is None:
                db = sqlite3.connect("file:%s?mode=ro" % s.db, uri=True, timeout=5)
            n = db.execute("SELECT COUNT(*) FROM %s" % table).fetchone()[0]
        except sqlite3.Error as e:
            n = "sqlite: %s" % e
        samples.append((round(time.time() - t0, 1), n))
    stop.set()
    for t in threads:
        t.join(35)
    time.sleep(0.5)
    try:
        end = db.execute("SELECT COUNT(*) FROM %s" % table).fetchone()[0] if db else None
    except sqlite3.Error as e:
        end = "sqlite: %s" % e
    if db:
        db.close()
    limit = cap * 1.05
    late = [n for t, n in samples if t > 3]
    counted = [n for _, n in samples if isinstance(n, int)]
    over = [(t, n) for t, n in samples if t > 3 and (not isinstance(n, int) or n > limit)]
    report(name, made[0] > cap and late and not over,
           {"created": made[0], "other_answers": other, "max_rows": max(counted) if counted else None,
            "rows_at_end": end, "cap": cap, "samples_over": len(over), "first_over": over[:3],
            "samples": samples[::4]})


@suite.test()
def retention_keeps_up_with_game_flood():
    flood_case("retention_keeps_up_with_game_flood", "games", "/api/games", {"level": 1, "color": "white"}, 3000, 20)


@suite.test()
def retention_keeps_up_with_job_flood():
    flood_case("retention_keeps_up_with_job_flood", "jobs", "/api/analyse", {"moves": [], "limits": {"depth": 1}},
               3000, 20)


def pack(row):
    """A FEN rank from 8 characters with "1" for each empty square: the runs of empties counted."""
    out, run = "", 0
    for c in row:
        if c == "1":
            run += 1
            continue
        out += (str(run) if run else "") + c
        run = 0
    return out + (str(run) if run else "")


@suite.test()
def retention_caps_the_evaluation_cache():
    """The evaluation cache is a table clients grow too (a cloud-eval of a position not seen before adds
    an entry): --retention-evals holds it, a pass coming once 16 writes (the smallest trigger) have
    been made since the last."""
    cap = 20
    s = Server(*W2, "--retention-evals", str(cap))
    fens = []
    for king in range(4):  # a white king on a1..d1, a white pawn on b3..g6, the black king on h8
        for rank in range(3, 7):
            for file in range(1, 7):
                board = [["1"] * 8 for _ in range(8)]  # rows from rank 8 down, "1" an empty square
                board[0][7] = "k"
                board[8 - rank][file] = "P"
                board[7][king] = "K"
                fens.append("/".join(pack("".join(r)) for r in board) + " w - - 0 1")
    answered, lock = [0], threading.Lock()

    def client(part):
        for fen in part:
            st = req(s, "GET", "/api/cloud-eval?fen=" + fen.replace(" ", "%20"), timeout=30)[0]
            with lock:
                answered[0] += st == 200

    threads = [threading.Thread(target=client, args=(fens[k::4],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    time.sleep(0.5)
    db = sqlite3.connect("file:%s?mode=ro" % s.db, uri=True, timeout=5)
    rows = db.execute("SELECT COUNT(*) FROM evals").fetchone()[0]
    db.close()
    report("retention_caps_the_evaluation_cache", answered[0] > 3 * cap and rows <= cap + 16 + 4,
           {"positions": len(fens), "answered": answered[0], "rows": rows, "cap": cap})


# ---- a full disk ----

def fill(path, leave_kb):
    st = os.statvfs(path)
    free = st.f_bavail * st.f_frsize
    with open(os.path.join(path, "filler"), "ab") as f:
        f.write(b"\0" * max(0, free - leave_kb * 1024))


@suite.test()
def reads_survive_full_disk():
    mnt = tempfile.mkdtemp(prefix="feelfish-hostile-full-")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4096k", "tmpfs", mnt], capture_output=True, text=True)
    if mounted.returncode:
        os.rmdir(mnt)
        report("reads_survive_full_disk", False, "mount -t tmpfs needs root: " + mounted.stderr.strip())
        return
    try:
        full_disk(mnt)
    finally:
        subprocess.run(["umount", "-l", mnt])
        shutil.rmtree(mnt, ignore_errors=True)


def full_disk(mnt):
    db = os.path.join(mnt, "full.db")
    wal = db + "-wal"

    def wal_size():
        return os.path.getsize(wal) if os.path.exists(wal) else 0

    s = Server(*W2, db=db)
    acked = {}  # id: fullId
    for _ in range(5):
        st, g, _ = req(s, "POST", "/api/games", {"level": 1, "color": "white"})
        if st == 201:
            acked[g["id"]] = g["fullId"]
    wal_sizes = [wal_size()]
    fill(mnt, 8)
    # Writes until the disk refuses one: a move in each stored game, then new games.
    statuses = []
    for gid, full in acked.items():
        res = req(s, "POST", "/api/games/%s/moves" % full, {"move": "e2e4"})
        statuses.append(brief(res))
    for k in range(80):
        if (503, "storage_unavailable") in statuses:
            break
        res = req(s, "POST", "/api/games", {"level": 1, "fen": "8/8/8/4k3/8/8/4PP2/4K3 w - - 0 1"})
        statuses.append(brief(res))
        if res[0] == 201:
            acked[res[1]["id"]] = res[1]["fullId"]
        if k % 10 == 9:
            fill(mnt, 0)  # whatever the writes freed (a checkpoint) is taken again
    wal_sizes.append(wal_size())
    refused = (503, "storage_unavailable") in statuses
    reads = {g: req(s, "GET", "/api/games/" + g)[0] for g in acked}
    jobs = req(s, "POST", "/api/jobs", {"moves": ["e2e4"], "limits": {"depth": 2}})
    s.stop()
    wal_sizes.append(wal_size())
    try:
        again = Server(*W2, db=db)
        # A write refused again (the disk is still full), then the reads.
        statuses_after = [brief(req(again, "POST", "/api/games/%s/moves" % full, {"move": "d2d4"}))
                          for full in list(acked.values())[:2]]
        reads_after = {g: req(again, "GET", "/api/games/" + g)[0] for g in acked}
        health = req(again, "GET", "/api/health")[1]
        wal_sizes.append(wal_size())
        again.stop()
    except RuntimeError as e:
        reads_after, health, statuses_after = {"start": str(e)[:200]}, None, None
    st = os.statvfs(mnt)
    ok_reads = [g for g, r in reads.items() if r == 200]
    ok_after = [g for g, r in reads_after.items() if r == 200]
    report("reads_survive_full_disk", len(acked) >= 5 and refused and len(ok_reads) == len(acked)
           and len(ok_after) == len(acked) and max(wal_sizes) <= 4 * 1024 * 1024,
           {"acked": len(acked), "writes": statuses[:12],
            "reads_while_full": sorted(set(map(str, reads.values()))), "writes_after_restart": statuses_after,
            "reads_after_restart":
            sorted(set(map(str, reads_after.values()))), "job_while_full": brief(jobs),
            "health_after_restart": health and {"status": health.get("status"), "storage": health.get("storage")},
            "wal_bytes": wal_sizes, "free_kb": st.f_bavail * st.f_frsize // 1024})


if __name__ == "__main__":
    raise_nofile()
    sys.exit(suite.main())
