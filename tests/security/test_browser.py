#!/usr/bin/env python3
"""What another site's page, a DNS-rebinding name or a client that never reads can do, tried on
loopback: foreign Origin and Host refused (HTTP and WebSocket), a cross-site <img>-style GET
refused, listed origins get CORS, the page's security headers, and a WebSocket client that does not
read its frames closed with 1008 while the server's memory stays bounded."""
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Server, check, error_code, summary  # noqa: E402
from wsclient import WebSocket  # noqa: E402


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    s = Server("--workers", "1", "--allowed-origins", "https://friend.example", "--ws-queue-max", "65536")
    page = "http://127.0.0.1:%d" % s.port
    res = s.request("GET", "/api/health", headers={"Host": "evil.example:%d" % s.port})
    check("foreign_host_refused", res[0] == 403 and error_code(res) == "host_not_allowed", res[1])
    res = s.request("POST", "/api/analyse", {"moves": ["e2e4"], "limits": {"depth": 2}},
                    headers={"Origin": "https://evil.example"})
    check("foreign_origin_refused", res[0] == 403 and error_code(res) == "origin_not_allowed", res[1])
    res = s.request("GET", "/api/cloud-eval?fen=8/8/8/4k3/8/8/4P3/4K3%20w%20-%20-%200%201",
                    headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "image", "Sec-Fetch-Mode": "no-cors"})
    check("cross_site_image_get_refused", res[0] == 403 and error_code(res) == "origin_not_allowed", res[1])
    res = s.request("GET", "/", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "document"})
    check("link_from_another_site_opens_the_page", res[0] in (200, 404), res[0])
    res = s.request("POST", "/api/analyse", {"moves": ["e2e4"], "limits": {"depth": 2}}, headers={"Origin": page})
    check("own_page_origin_allowed", res[0] == 200, res[1])
    res = s.request("OPTIONS", "/api/analyse", headers={"Origin": "https://friend.example",
                                                         "Access-Control-Request-Method": "POST"})
    check("listed_origin_preflight", res[0] == 204
          and res[2].getheader("Access-Control-Allow-Origin") == "https://friend.example"
          and "POST" in (res[2].getheader("Access-Control-Allow-Methods") or "")
          and "x-request-id" in (res[2].getheader("Access-Control-Allow-Headers") or "").lower(), res[2].getheaders())
    res = s.request("GET", "/api/health", headers={"Origin": "https://friend.example"})
    check("listed_origin_gets_cors", res[0] == 200
          and res[2].getheader("Access-Control-Allow-Origin") == "https://friend.example", res[2].getheaders())
    exposed = [h.strip().lower() for h in (res[2].getheader("Access-Control-Expose-Headers") or "").split(",")]
    check("listed_origin_may_read_retry_after_and_request_id",
          "retry-after" in exposed and "x-request-id" in exposed, res[2].getheaders())
    hdr = res[2]
    check("security_headers", hdr.getheader("X-Content-Type-Options") == "nosniff"
          and "frame-ancestors 'none'" in (hdr.getheader("Content-Security-Policy") or "")
          and hdr.getheader("Referrer-Policy") == "no-referrer", hdr.getheaders())
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as c:
        c.sendall(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n")
        head = c.recv(4096).decode(errors="replace")
    check("http11_without_host_400", head.startswith("HTTP/1.1 400") and "host_missing" in head, head[:200])
    # WebSocket handshakes: a foreign page or name is refused; the server's own page is not.
    refused = []
    for headers in ({"Origin": "https://evil.example"}, {"Host": "evil.example:%d" % s.ws_port}):
        try:
            WebSocket(s.ws_port, headers=headers).close()
            refused.append(False)
        except (ConnectionError, OSError):
            refused.append(True)
    check("websocket_foreign_origin_and_host_refused", refused == [True, True], refused)
    ws = WebSocket(s.ws_port, headers={"Origin": page})
    ws.send({"op": "ping"})
    check("websocket_own_page_accepted", ws.recv_json().get("type") == "pong")
    ws.close()
    # A client that sends and never reads: its answers pile up until the cap, then it is closed.
    before = rss_kb(s.proc.pid)
    ws = WebSocket(s.ws_port, rcvbuf=4096)
    try:
        for _ in range(30000):
            ws.send_frame(b'{"op": "ping"}')
    except OSError:
        pass
    after = rss_kb(s.proc.pid)
    pongs, reset = 0, False
    try:
        while ws.recv(timeout=3) is not None:  # now it reads: what was sent, then the end
            pongs += 1
    except ConnectionResetError:
        reset = True  # closed with the client's unread pings still in the server's socket
    # The close frame says 1008 when it gets through; with data the server never read in flight,
    # the kernel may turn the close into a reset, and with the close frame stuck behind unread pongs
    # the socket just ends (recv returns None for all three: the socket says which it was).
    ended = False
    if ws.close_code is None and not reset:
        try:
            ws.sock.settimeout(3)
            ended = ws.sock.recv(1) == b""
        except ConnectionError:
            ended = True
        except OSError:
            ended = False  # still open after 3 s: not disconnected
    check("websocket_never_reading_disconnected", (ws.close_code == 1008 or reset or ended) and pongs < 30000,
          (ws.close_code, reset, ended, pongs))
    st, m, _ = s.request("GET", "/metrics")
    check("websocket_never_reading_closed_1008", "feelfish_websocket_overflows_total 1" in m
          and "feelfish_websocket_refused_total 2" in m and "feelfish_websocket_clients 0" in m,
          [x for x in m.splitlines() if x.startswith("feelfish_websocket")])
    check("websocket_never_reading_memory_bounded", after - before < 64 * 1024, (before, after))
    print("RSS before the non-reading client: %d KB, after %d KB" % (before, after))
    s.stop()
    return summary("browser")


if __name__ == "__main__":
    sys.exit(main())
