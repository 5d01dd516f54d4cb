#!/usr/bin/env python3
"""The public deployment in miniature: a real nginx (a plain process on loopback, Debian's nginx-light)
in front of two fronts (`feelfish serve --redis --trusted-proxies 127.0.0.1`) sharing a real Redis.
Three tokenless clients on 127.0.0.2, .3 and .4 reach the fronts only through nginx: each sees only
its own jobs (403 on the others'), each has its own rate (the flooder gets 429, the others not), the
fronts' access log and /metrics name them; a forged X-Forwarded-For sent to nginx changes nothing,
and one sent straight to a front from a peer it does not trust is ignored. nginx also serves TLS
(a self-signed certificate made here by openssl): the page, the API and the WebSocket (/ws) on one
https origin, /api/config's wsUrl wss://that-origin/ws from X-Forwarded-Proto, which a front ignores
from a peer it does not trust."""
import os
import shutil
import ssl
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Server, check, poll, report, summary, tmpdir, wait_port  # noqa: E402
from redisserver import Redis, Worker  # noqa: E402
from wsclient import WebSocket, free_port  # noqa: E402

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


class Nginx:
    """nginx on 127.0.0.1:port, spreading /api/ over the fronts' HTTP ports as docker/nginx.conf does."""

    def __init__(self, fronts):
        self.dir = tmpdir("feelfish-nginx-")
        self.port, self.tls_port = free_port(), free_port()
        upstream = "".join("        server 127.0.0.1:%d;\n" % f.port for f in fronts)
        ws_upstream = "".join("        server 127.0.0.1:%d;\n" % f.ws_port for f in fronts)
        self.cert, key = os.path.join(self.dir, "cert.pem"), os.path.join(self.dir, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", self.cert,
                        "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        # What docker/nginx.conf does for a site: the API and the page on /, the WebSocket on /ws.
        site = """        proxy_http_version 1.1;
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        location / {{ proxy_pass http://feelfish_http; }}
        location = /ws {{
            proxy_pass http://feelfish_ws/;
            # A location's own proxy_set_header replaces every inherited one.
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
        }}"""
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
    upstream feelfish_ws {{
{ws}    }}
    server {{
        listen 127.0.0.1:{port};
{site}
    }}
    server {{
        listen 127.0.0.1:{tls_port} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};
{site}
    }}
}}
""".format(d=self.dir, up=upstream, ws=ws_upstream, port=self.port, tls_port=self.tls_port, cert=self.cert, key=key,
           site=site.format())
        self.conf = os.path.join(self.dir, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = subprocess.Popen([NGINX, "-p", self.dir, "-c", self.conf, "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_port(self.port, "nginx")

    def tls_context(self):
        return ssl.create_default_context(cafile=self.cert)

    def request(self, method, path, body=None, source=None, headers=None, tls=False):
        """Through nginx (its https port if tls), from the loopback address `source`: (status, parsed body)."""
        import http.client
        import json
        if tls:
            conn = http.client.HTTPSConnection("127.0.0.1", self.tls_port, timeout=30, source_address=(source, 0),
                                               context=self.tls_context())
        else:
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


def tls_and_plain(nginx, fronts, redis_url):
    """One https origin through nginx: the page, the API, wsUrl and the WebSocket on /ws."""
    origin = "127.0.0.1:%d" % nginx.tls_port
    st, cfg = nginx.request("GET", "/api/config", tls=True, source="127.0.0.6")
    report("tls_config_ws_url_is_wss_on_the_origin", st == 200 and cfg.get("wsUrl") == "wss://%s/ws" % origin,
           (st, cfg.get("wsUrl") if isinstance(cfg, dict) else cfg))
    st, plain = nginx.request("GET", "/api/config", source="127.0.0.6")
    report("plain_config_ws_url_is_ws_on_the_origin",
           st == 200 and plain.get("wsUrl") == "ws://127.0.0.1:%d/ws" % nginx.port, (st, plain.get("wsUrl")))
    st, direct, _ = fronts[0].request("GET", "/api/config", source="127.0.0.5",
                                   headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"})
    report("forwarded_proto_from_untrusted_peer_ignored",
           st == 200 and direct.get("wsUrl") == "ws://127.0.0.1:%d/" % fronts[0].ws_port, (st, direct.get("wsUrl")))
    st, page = nginx.request("GET", "/", tls=True, source="127.0.0.6")
    report("tls_page_served", st == 200 and isinstance(page, str) and "<html" in page.lower(), (st, str(page)[:80]))
    got, why = None, None
    worker = Worker(redis_url, "w-tls")  # the fronts' searches run on cluster workers
    try:
        ws = WebSocket(nginx.tls_port, path="/ws", tls=nginx.tls_context(), source="127.0.0.6",
                       headers={"Origin": "https://" + origin, "Host": origin})
        ws.send({"op": "analyse", "id": "t", "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                 "limits": {"depth": 6}})
        got, seen = ws.until(lambda m: m.get("type") in ("bestmove", "error"), timeout=60)  # a new worker, under load
        why = {"seen": seen[-3:], "close": ws.close_code}
        ws.close()
    except (OSError, ConnectionError) as e:
        why = repr(e)
    finally:
        worker.stop()
    report("tls_websocket_through_nginx_same_origin", got is not None and got.get("type") == "bestmove", got or why)


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
        tls_and_plain(nginx, fronts, redis.url)
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
