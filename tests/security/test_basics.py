#!/usr/bin/env python3
"""Security basics, as a hostile or careless client would try them on loopback: forged log lines
(a newline or terminal escape in a path), the default bind (loopback only), guessable ids."""
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import FF, check, summary  # noqa: E402

TMP = tempfile.mkdtemp(prefix="feelfish-security-")


def start(*args):
    p = subprocess.Popen([FF, "serve", "--http", "0", "--ws", "0", "--hash", "8", "--db", os.path.join(TMP, "s.db"),
                          *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    return p, int(line.split()[2]) if line.startswith("listening http ") else 0


def raw(port, data):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        s.settimeout(5)
        return s.recv(65536)


def main():
    p, port = start("--log-level", "info")
    check("server_starts", port > 0)
    if not port:
        return summary("security")
    raw(port, b"GET /api/x%0aFAKE%20LINE%1b[31m HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    raw(port, b"GET /\x1b[2Jclear HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    ids = set()
    for _ in range(200):
        body = b'{"moves": ["e2e4"], "limits": {"depth": 1}}'
        reply = raw(port, b"POST /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        text = reply.decode(errors="replace")
        if '"id":"' in text:
            ids.add(text.split('"id":"')[1].split('"')[0])
    body = b'{"level": 1}'
    reply = raw(port, b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)).decode(errors="replace")
    full = reply.split('"fullId":"')[1].split('"')[0] if '"fullId":"' in reply else ""
    move = b'{"move": "e2e4"}'
    raw(port, b"POST /api/games/%s/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (full.encode(), len(move), move))
    time.sleep(0.3)
    p.terminate()
    _, err = p.communicate(timeout=10)
    check("access_log_hides_game_secrets", len(full) == 24 and full[16:] not in err
          and ("/api/games/%s********/moves" % full[:16]) in err, [x for x in err.splitlines() if "games" in x][:3])
    lines = err.splitlines()
    check("log_newline_escaped", not any(line.startswith("FAKE") for line in lines)
          and any("\\x0aFAKE LINE\\x1b[31m" in line for line in lines), [x for x in lines if "FAKE" in x])
    check("log_has_no_control_characters", not any(c in line for line in lines for c in "\x1b\r\x7f"),
          [x for x in lines if "\x1b" in x][:3])
    check("job_ids_are_16_random_hex_digits", len(ids) == 200 and all(len(i) == 16 for i in ids)
          and len({i[:3] for i in ids}) > 100, sorted(ids)[:5])
    # The default bind is loopback: the listening socket is 127.0.0.1 in /proc/net/tcp.
    p, port = start()
    listening = []
    with open("/proc/net/tcp") as f:
        for row in f.read().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            if state == "0A" and int(local.split(":")[1], 16) == port:
                listening.append(local.split(":")[0])
    p.terminate()
    p.wait(10)
    check("default_bind_is_loopback", listening == ["0100007F"], listening)
    return summary("security")


if __name__ == "__main__":
    sys.exit(main())
