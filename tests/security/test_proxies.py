#!/usr/bin/env python3
"""Trusted proxies (--trusted-proxies): behind a proxy the server listens on, every client is its own
client. Requests come from 127.0.0.1 (the "proxy", trusted) with X-Forwarded-For / Forwarded naming
clients in 198.51.100.0/24, and from 127.0.0.2 (any other peer, whose forwarding headers must be
ignored): jobs belong to the real client, each has its own quota, the access log names it, the
per-address connection cap counts real clients (never the proxy), WebSocket handshakes too."""
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Server, check, connect, report, summary  # noqa: E402
from wsclient import WebSocket  # noqa: E402

LONG = {"moves": ["e2e4"], "limits": {"depth": 60, "movetime": 20000}}
PROXIES = ("--trusted-proxies", "127.0.0.1, 10.0.0.0/8")


def via(s, client, method, path, body=None, source=None, forwarded=False):
    """(status, body) for a request a proxy on 127.0.0.1 forwards for `client` (or from `source`)."""
    header = {"Forwarded": "for=" + client} if forwarded else {"X-Forwarded-For": "6.6.6.6, " + client}
    status, parsed, _ = s.request(method, path, body, headers=header, source=source)
    return status, parsed


def code(answer):
    return answer[1].get("error", {}).get("code") if isinstance(answer[1], dict) else None


def main():
    s = Server(*PROXIES, "--rate", "5", "--rate-burst", "10", "--workers", "1", "--queue", "16")
    # Jobs belong to the client the proxy names, not to the proxy.
    mine = via(s, "198.51.100.1", "POST", "/api/jobs", LONG)
    theirs = via(s, "198.51.100.2", "DELETE", "/api/jobs/" + mine[1]["id"])
    forged = via(s, "198.51.100.1", "DELETE", "/api/jobs/" + mine[1]["id"], source="127.0.0.2")
    own = via(s, "198.51.100.1", "DELETE", "/api/jobs/" + mine[1]["id"], forwarded=True)
    report("proxied_clients_own_their_jobs",
           mine[0] == 202 and theirs[0] == 403 and code(theirs) == "not_your_job" and forged[0] == 403
           and own[0] in (200, 204), {"create": mine[0], "other_client": [theirs[0], code(theirs)],
                                      "forged_from_untrusted_peer": forged[0], "owner_via_forwarded": own[0]})
    # Each client its own rate: one floods, the next is served; the proxy itself is never limited for it.
    flood = [via(s, "198.51.100.3", "GET", "/api/jobs/0123456789abcdef")[0] for _ in range(30)]
    other = via(s, "198.51.100.4", "GET", "/api/jobs/0123456789abcdef")[0]
    forged = via(s, "198.51.100.5", "GET", "/api/jobs/0123456789abcdef", source="127.0.0.2")[0]
    report("proxied_clients_have_their_own_rate",
           flood.count(429) >= 15 and flood.count(404) >= 10 and other == 404 and forged == 404,
           {"flooder": {"404": flood.count(404), "429": flood.count(429)}, "another_client": other,
            "untrusted_peer_naming_another": forged})
    # From an untrusted peer a forged header names nobody: 127.0.0.2 naming the flooder is not limited.
    time.sleep(0.1)
    spoof = [via(s, "198.51.100.3", "GET", "/api/jobs/0123456789abcdef", source="127.0.0.2")[0] for _ in range(5)]
    check("forged_header_from_untrusted_peer_ignored", spoof.count(404) == 5, spoof)
    s.stop()
    clients = [line.rsplit(" ", 1)[-1] for line in s.stderr().splitlines() if " access " in line]
    check("access_log_names_the_client", "198.51.100.3" in clients and "198.51.100.4" in clients and
          "127.0.0.2" in clients and "6.6.6.6" not in clients and "127.0.0.1" not in clients,
          sorted(set(clients)))

    # Connection caps count clients, not the proxy: 6 idle connections from the proxy at a cap of 3, a
    # 7th request still answered; from another peer the 4th connection is refused.
    s = Server(*PROXIES, "--connections-per-ip", "3")
    held = [connect(s.port) for _ in range(6)]
    proxied = s.request("GET", "/api/health")[0]
    others = [connect(s.port, source="127.0.0.2") for _ in range(3)]
    refused = False
    try:
        extra = connect(s.port, source="127.0.0.2")
        extra.settimeout(3)
        extra.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        refused = extra.recv(100) == b""
    except (ConnectionError, socket.timeout, OSError):
        refused = True
    report("connection_cap_counts_clients_not_the_proxy", proxied == 200 and refused,
           {"proxy_connections_held": len(held), "proxied_request": proxied, "fourth_from_other_peer_refused": refused})
    for c in held + others:
        c.close()
    # WebSocket handshakes: the cap counts the client the proxy names.
    sockets, statuses = [], []
    for client in ("198.51.100.7", "198.51.100.7", "198.51.100.7", "198.51.100.7", "198.51.100.8"):
        try:
            sockets.append(WebSocket(s.ws_port, headers={"X-Forwarded-For": client}))
            statuses.append(101)
        except Exception as e:  # noqa: BLE001 - the refusal's status is in the message
            statuses.append(str(e)[:60])
    check("websocket_cap_counts_proxied_clients", statuses[:3] == [101, 101, 101] and statuses[3] != 101 and
          statuses[4] == 101, statuses)
    for w in sockets:
        w.close()
    s.stop()
    try:
        Server("--trusted-proxies", "10.0.0.0/33")
        started = True
    except RuntimeError as e:
        started = "is not an address or a CIDR" not in str(e)
    check("bad_trusted_proxies_refused_at_start", not started)
    return summary("proxies")


if __name__ == "__main__":
    sys.exit(main())
