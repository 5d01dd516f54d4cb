#!/usr/bin/env python3
"""Disk-full test: the database on a small tmpfs (mounted by this test, as root) that a filler file
fills. Every write acknowledged before the disk filled survives; while it is full new writes get
503 storage_unavailable, /api/health says degraded and /metrics shows it, reads still answer; when
the filler goes, writes are accepted again and health is ok; after a restart everything
acknowledged is there."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import Server, check, summary  # noqa: E402

SIZE_KB = 4096


def fill(path, leave_kb):
    """Fills the file system of path up to `leave_kb` free KiB with a filler file."""
    st = os.statvfs(path)
    free = st.f_bavail * st.f_frsize
    with open(os.path.join(path, "filler"), "wb") as f:
        f.write(b"\0" * max(0, free - leave_kb * 1024))


def main():
    mnt = tempfile.mkdtemp(prefix="feelfish-full-")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk" % SIZE_KB, "tmpfs", mnt],
                             capture_output=True, text=True)
    check("tmpfs_mounted", mounted.returncode == 0, "mount -t tmpfs needs root: " + mounted.stderr.strip())
    if mounted.returncode:
        return summary("disk-full")
    try:
        return run(mnt)
    finally:
        subprocess.run(["umount", "-l", mnt])


def run(mnt):
    db = os.path.join(mnt, "full.db")
    s = Server("--workers", "1", db=db)
    acked = {}
    for _ in range(5):  # writes on a disk with room
        st, g, _ = s.request("POST", "/api/games", {"level": 1})
        if st == 201:
            acked[g["id"]] = g["moves"]
    check("writes_accepted_with_room", len(acked) == 5, acked)
    fill(mnt, 8)
    statuses, codes, wait = [], set(), None
    for _ in range(60):  # until the disk refuses
        st, g, resp = s.request("POST", "/api/games", {"level": 1, "fen": "8/8/8/4k3/8/8/4PP2/4K3 w - - 0 1"})
        statuses.append(st)
        wait = resp.getheader("Retry-After")
        if st == 201:
            acked[g["id"]] = g["moves"]
        else:
            codes.add((g or {}).get("error", {}).get("code"))
        if st == 503:
            break
    check("full_disk_answers_503_storage_unavailable", statuses[-1] == 503 and codes == {"storage_unavailable"}
          and wait == "5", (statuses[-5:], codes, "Retry-After", wait))
    st, h, _ = s.request("GET", "/api/health")
    check("health_degraded_when_full", st == 200 and h.get("status") == "degraded" and not h.get("storage", {}).get("writing", True)
          and "full" in h.get("storage", {}).get("lastError", ""), h)
    st, m, _ = s.request("GET", "/metrics")
    check("metrics_show_storage_down", st == 200 and "feelfish_storage_writing 0" in m
          and "feelfish_storage_failed_batches_total 0" not in m, m if st == 200 else st)
    gid = next(iter(acked))
    st, g, _ = s.request("GET", "/api/games/" + gid)
    check("reads_still_answer_when_full", st == 200 and g["moves"] == acked[gid], (st, g))
    st, j, _ = s.request("POST", "/api/jobs", {"moves": ["e2e4"], "limits": {"depth": 2}})
    check("queued_job_refused_when_full", st == 503 and j["error"]["code"] == "storage_unavailable", (st, j))
    os.remove(os.path.join(mnt, "filler"))  # space returns
    st, g, _ = s.request("POST", "/api/games", {"level": 1})
    if st == 201:
        acked[g["id"]] = g["moves"]
    st2, h, _ = s.request("GET", "/api/health")
    check("writes_resume_when_space_returns", st == 201 and h.get("status") == "ok" and h.get("storage", {}).get("writing"),
          (st, h))
    s.stop()
    s = Server("--workers", "1", db=db)
    lost = [gid for gid, moves in acked.items() if s.request("GET", "/api/games/" + gid)[1].get("moves") != moves]
    print("acknowledged games: %d, lost after the restart: %d" % (len(acked), len(lost)))
    check("acknowledged_writes_survive_disk_full_and_restart", not lost, lost)
    s.stop()
    return summary("disk-full")


if __name__ == "__main__":
    sys.exit(main())
