#!/bin/sh
# Starts nginx with the container network's DNS server as its resolver (docker/nginx.conf finds the
# feelfish fronts by name at request time): podman's network DNS, Docker's 127.0.0.11. Only the
# first nameserver: nginx asks its resolvers in turn, and the host's (listed after podman's) does
# not know the containers' names.
set -eu
server=$(awk '$1 == "nameserver" { a = $2; if (a ~ /:/) a = "[" a "]"; print a; exit }' /etc/resolv.conf)
echo "resolver ${server:-127.0.0.11} valid=2s ipv6=off;" > /etc/nginx/resolver.conf
exec nginx -g 'daemon off;' "$@"
