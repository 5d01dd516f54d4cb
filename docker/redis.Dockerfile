# Redis for a feelfish cluster (docker/compose.yaml), built on the same Debian base as feelfish's
# image (no registry needed): Debian's redis-server, run as its `redis` user, data in /data.
#   podman build --format docker --build-arg BASE=localhost/debian:bookworm-slim -f docker/redis.Dockerfile docker
# The persistence settings are compose.yaml's command (AOF, fsync on every write); this CMD is a
# plain default.
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data \
 && chown redis:redis /data
USER redis
WORKDIR /data
VOLUME /data
EXPOSE 6379
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD redis-cli -p 6379 ping | grep -qx PONG || exit 1
# No password: Redis is reached only on the compose project's network (never published), and
# feelfish's redis:// URLs carry none. --protected-mode no: without it Redis refuses every client
# that is not on loopback when no password is set.
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data", "--appendonly", "yes"]
