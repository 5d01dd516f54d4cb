#!/usr/bin/env python3
"""The public deployment in miniature: a real nginx (a plain process on loopback, Debian's nginx-light)
in front of two fronts (`feelfish serve --redis --trusted-proxies 127.0.0.1`) sharing a real Redis.
Three tokenless clients on 127.0.0.2, .3 and .4 reach the fronts only through nginx: each sees only
its own jobs (403 on the others'), each has its own rate (the flooder gets 429, the others not), the
fronts' access log and /metrics name them; a forged X-Forwarded-For sent to nginx changes nothing,
and one sent straight to a front from a peer it does not trust is ignored."""
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Server, check, poll, report, summary, tmpdir, wait_port  # noqa: E402
from redisserver import Redis  # noqa: E402
from wsclient import free_port  # noqa: E402

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


class Nginx:
    """nginx on 127.0.0.1:port, spreading /api/ over the fronts' HTTP ports as docker/nginx.conf does."""

    def __init__(self, fronts):
        self.dir = tmpdir("feelfish-nginx-")
        self.port = free_port()
        upstream = "".join("        server 127.0.0.1:%d;\n" % f.port for f in fronts)
        conf = """worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
    upstream feelfish_http {{
{up}    }}
    server {{
        listen 127.0.0.1:{port};
        proxy_http_version 1.1;
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        location / {{ proxy_pass http://feelfish_http; }}
    }}
}}
""".format(d=self.dir, up=upstream, port=self.port)
        self.conf = os.path.join(self.dir, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = subprocess.Popen([NGINX, "-p", self.dir, "-c", self.conf, "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_port(self.port, "nginx")

    def request(self, method, path, body=None, source=None, headers=None):
        """Through nginx, from the loopback address `source`: (status, parsed body)."""
        import http.client
        import json
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=(source, 0))
        hdrs = dict(headers or {})
        if body is not None:
            body = json.dumps(body)
            hdrs["Content-Type"] = "application/json"
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read().decode(errors="replace")
        conn.close()
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, raw

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


LONG = {"moves": ["e2e4"], "limits": {"depth": 60, "movetime": 20000}}


def main():
    if not os.path.exists(NGINX):
        check("nginx_installed", False, "nginx is missing (make deps-test installs nginx-light)")
        return summary("nginx")
    redis = Redis()
    fronts = [Server("--redis", redis.url, "--trusted-proxies", "127.0.0.1", "--rate", "5", "--rate-burst", "10")
              for _ in range(2)]
    poll(lambda: [f.health() for f in fronts], lambda h: all(x.get("cluster", {}).get("redisConnected") for x in h),
         tries=100, delay=0.1)
    nginx = Nginx(fronts)
    try:
        a, b, c = "127.0.0.2", "127.0.0.3", "127.0.0.4"
        job = nginx.request("POST", "/api/jobs", LONG, source=a)
        jid = job[1].get("id") if isinstance(job[1], dict) else None
        seen = {who: nginx.request("GET", "/api/jobs/%s" % jid, source=who)[0] for who in (a, b, c)}
        cancel_b = nginx.request("DELETE", "/api/jobs/%s" % jid, source=b)
        forged = nginx.request("DELETE", "/api/jobs/%s" % jid, source=c, headers={"X-Forwarded-For": a})
        direct = fronts[0].request("DELETE", "/api/jobs/%s" % jid, headers={"X-Forwarded-For": a},
                                   source="127.0.0.5")[0]
        own = nginx.request("DELETE", "/api/jobs/%s" % jid, source=a)[0]
        report("clients_behind_nginx_see_only_their_jobs",
               job[0] == 202 and seen[a] == 200 and seen[b] == 403 and seen[c] == 403 and cancel_b[0] == 403
               and forged[0] == 403 and direct == 403 and own in (200, 204),
               {"create": job[0], "GET by": seen, "DELETE by B": cancel_b[0], "forged XFF to nginx": forged[0],
                "forged XFF straight to a front": direct, "DELETE by owner": own})
        time.sleep(2.5)  # the three buckets full again
        flood = [nginx.request("GET", "/api/jobs/0123456789abcdef", source=b)[0] for _ in range(40)]
        others = [nginx.request("GET", "/api/jobs/0123456789abcdef", source=who)[0] for who in (a, c)]
        report("each_client_behind_nginx_has_its_own_rate",
               flood.count(429) >= 20 and flood.count(404) >= 10 and others == [404, 404],
               {"flooder": {"404": flood.count(404), "429": flood.count(429)}, "the two others": others})
        metrics = fronts[0].request("GET", "/metrics")[1] + fronts[1].request("GET", "/metrics")[1]
        logs = fronts[0].stderr() + fronts[1].stderr()
        clients = {line.rsplit(" ", 1)[-1] for line in logs.splitlines() if " access " in line and "/api/jobs" in line}
        named = all('client="%s"' % who in metrics for who in (a, b, c))
        report("fronts_log_and_count_the_real_clients",
               clients == {a, b, c, "127.0.0.5"} and named
               and 'client="%s",outcome="limited"' % b in metrics,
               {"access log clients (jobs)": sorted(clients), "metrics name all three": named})
    finally:
        nginx.stop()
        for f in fronts:
            f.stop()
        redis.stop()
    return summary("nginx")


if __name__ == "__main__":
    sys.exit(main())
