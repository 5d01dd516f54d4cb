#!/bin/sh
# Starts nginx in front of the feelfish fronts named in FEELFISH_FRONTS (their compose service names,
# separated by spaces or commas; default "feelfish") and keeps nginx's upstreams (docker/nginx.conf:
# feelfish_http on port 8080, feelfish_ws on 8081) equal to the fronts' addresses: every
# FEELFISH_RESOLVE_S seconds (1) a watcher looks the names up again through the container network's
# DNS (getent), and when the set of addresses changed (a front started, stopped or restarted: a
# restarted container comes back with another address) it rewrites /etc/nginx/fronts.conf and
# reloads nginx. A reload leaves open WebSockets worker_shutdown_timeout (5 s), then closes them; the
# page reconnects by itself.
# Why not nginx's own resolver: it re-resolves only a proxy_pass with a variable, which names one host,
# and podman-compose 1.0.3 (Debian 12) gives a container no network alias but its service name, so no
# one name has every front's address; and nginx 1.22 never re-resolves an upstream block's servers
# (`server ... resolve` is 1.27.3+).
set -u
fronts=$(echo "${FEELFISH_FRONTS:-feelfish}" | tr ',' ' ')
every=${FEELFISH_RESOLVE_S:-1}
conf=/etc/nginx/fronts.conf

# Every address of every front, one per line, sorted (an IPv6 one in brackets).
addresses() {
    for name in $fronts; do
        getent ahosts "$name" 2>/dev/null | awk '$2 == "STREAM" { a = $1; if (a ~ /:/) a = "[" a "]"; print a }'
    done | sort -u
}

# $1: the addresses. None (no front is up): one server marked down, so requests get 502 at once.
write_conf() {
    for kind in http:8080 ws:8081; do
        name=${kind%%:*}
        port=${kind#*:}
        echo "upstream feelfish_$name {"
        # Shared by nginx's worker processes: one round robin, one view of failed fronts.
        echo "    zone feelfish_$name 64k;"
        if [ -n "$1" ]; then
            for a in $1; do
                # A front that refuses a connection is left out for 5 s (the request goes to another).
                echo "    server $a:$port max_fails=1 fail_timeout=5s;"
            done
        else
            echo "    server 127.0.0.1:$port down;"
        fi
        echo "}"
    done > "$conf.new"
    mv "$conf.new" "$conf"
}

current=$(addresses)
write_conf "$current"
echo "nginx-start: fronts ($fronts):" $current >&2

# The watcher runs beside nginx; nginx itself is PID 1 (it gets the container's stop signal, and the
# watcher goes with the container).
(
    while :; do
        sleep "$every"
        next=$(addresses)
        [ "$next" = "$current" ] && continue
        write_conf "$next"
        if nginx -s reload 2>/dev/null; then
            current=$next
            echo "nginx-start: fronts now:" $current >&2
        fi
    done
) &

exec nginx -g 'daemon off;' "$@"
