#!/usr/bin/env python3
"""Per-client quotas, as clients from different loopback addresses (127.0.0.2, .3, ...) see them: a
client past its rate gets 429 with Retry-After while others and the health check are served; a
client at its cap of analyses gets 429 too_many_jobs while another still gets the queue; only a
job's creator may cancel it; WebSocket messages count against the rate too."""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Server, check, summary  # noqa: E402
from wsclient import WebSocket  # noqa: E402

LONG = {"moves": ["e2e4"], "limits": {"depth": 60, "movetime": 20000}}


def request(s, source, method, path, body=None):
    """(status, parsed body, Retry-After) from the loopback address `source`."""
    status, parsed, resp = s.request(method, path, body, source=source)
    return status, parsed, resp.getheader("Retry-After")


def main():
    s = Server("--rate", "5", "--rate-burst", "10", "--client-jobs-max", "2", "--workers", "1", "--queue", "16")
    answers = [request(s, "127.0.0.2", "GET", "/api/jobs/0123456789abcdef") for _ in range(30)]
    limited = [a for a in answers if a[0] == 429]
    check("rate_limited_429_with_retry_after", 10 <= len(answers) - len(limited) <= 12 and limited
          and all(a[1]["error"]["code"] == "rate_limited" and a[2] and int(a[2]) >= 1 for a in limited),
          [(a[0], a[2]) for a in answers])
    check("health_not_rate_limited", request(s, "127.0.0.2", "GET", "/api/health")[0] == 200)
    check("other_client_not_limited", request(s, "127.0.0.5", "GET", "/api/jobs/0123456789abcdef")[0] == 404)
    time.sleep(1.2)
    check("rate_refills", request(s, "127.0.0.2", "GET", "/api/jobs/0123456789abcdef")[0] == 404)
    # One client may hold two analyses; a third is refused, another client still gets the queue.
    mine = [request(s, "127.0.0.3", "POST", "/api/jobs", LONG) for _ in range(3)]
    theirs = request(s, "127.0.0.4", "POST", "/api/jobs", LONG)
    check("client_jobs_cap_429", [m[0] for m in mine] == [202, 202, 429]
          and mine[2][1]["error"]["code"] == "too_many_jobs", [(m[0], m[1]) for m in mine])
    check("other_client_still_queues", theirs[0] == 202, theirs)
    # A job is its creator's: another client may not cancel it; its owner may.
    foreign = request(s, "127.0.0.6", "DELETE", "/api/jobs/" + theirs[1]["id"])
    check("other_client_cannot_delete_403", foreign[0] == 403 and foreign[1]["error"]["code"] == "not_your_job",
          foreign[:2])
    owned = [request(s, "127.0.0.3", "DELETE", "/api/jobs/" + m[1]["id"]) for m in mine[:2]]
    owned.append(request(s, "127.0.0.4", "DELETE", "/api/jobs/" + theirs[1]["id"]))
    check("owners_delete_their_jobs", [o[0] for o in owned] == [200, 200, 200], [o[:2] for o in owned])
    time.sleep(0.3)
    check("cap_frees_when_jobs_end", request(s, "127.0.0.3", "POST", "/api/jobs", LONG)[0] == 202)
    # WebSocket messages take from the same rate (this client's address is 127.0.0.1).
    ws = WebSocket(s.ws_port)
    for _ in range(20):
        ws.send({"op": "ping"})
    got = [ws.recv_json(timeout=5) for _ in range(20)]
    codes = [g.get("type") if g.get("type") == "pong" else g.get("error", {}).get("code") for g in got if g]
    check("websocket_messages_rate_limited", codes.count("pong") <= 11 and "rate_limited" in codes, codes)
    ws.close()
    config = s.request("GET", "/api/config")[1]
    check("loopback_server_has_no_exposed_defaults", config["exposedDefaults"] == [] and config["ratePerSecond"] == 5,
          config["exposedDefaults"])
    s.stop()

    # Bound beyond loopback with no quota flag, the server limits every client by itself: a flood from
    # one address gets 429 while another address is served; /api/config says which quotas are defaults.
    s = Server("--bind", "0.0.0.0", "--workers", "2")
    flood = [request(s, "127.0.0.2", "GET", "/api/jobs/0123456789abcdef")[0] for _ in range(80)]
    other = request(s, "127.0.0.3", "GET", "/api/jobs/0123456789abcdef")[0]
    config = s.request("GET", "/api/config", source="127.0.0.4")[1]
    check("exposed_server_limits_a_flood_by_default",
          flood.count(429) >= 20 and flood.count(404) >= 40 and other == 404 and
          config["exposedDefaults"] == ["--rate", "--rate-burst", "--client-jobs-max", "--client-infinite-max"] and
          config["ratePerSecond"] == 20 and config["rateBurst"] == 40 and config["clientJobsMax"] == 2 and
          config["clientInfiniteMax"] == 1, {"flood": {"404": flood.count(404), "429": flood.count(429)},
                                            "other_address": other, "exposedDefaults": config["exposedDefaults"]})
    s.stop()
    s = Server("--bind", "0.0.0.0", "--rate", "0", "--client-jobs-max", "3")
    config = s.request("GET", "/api/config")[1]
    check("explicit_quota_flags_win_over_exposed_defaults",
          config["exposedDefaults"] == ["--rate-burst", "--client-infinite-max"] and config["ratePerSecond"] == 0 and
          config["clientJobsMax"] == 3, config["exposedDefaults"])
    s.stop()
    return summary("quotas")


if __name__ == "__main__":
    sys.exit(main())
