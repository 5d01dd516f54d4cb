"""What the benchmarks read of a running process from /proc (server.py, soak.py)."""
import os


def rss_mb(pid):
    """The process's resident memory, MB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def open_fds(pid):
    """How many descriptors the process has open."""
    return len(os.listdir("/proc/%d/fd" % pid))
