# feelfish: built on Debian, run as a non-root user. Three stages: build (the binary), web (the
# browser page: web/dist) and the runtime image (the binary, the page, the style model and the
# runtime libraries only).
#
#   docker build -t feelfish .            (podman: add --format docker, or HEALTHCHECK is dropped)
#   docker run -p 8080:8080 -p 8081:8081 -v feelfish-data:/srv/data feelfish
#
# Every FROM uses BASE: with no registry reachable, build a Debian base locally (debootstrap, then
# `podman import`; tests/docker/test_docker.py does it) and pass
# --build-arg BASE=localhost/debian:bookworm-slim. docker/compose.yaml runs it behind nginx.
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc make libc6-dev pkg-config \
      libuv1-dev libmicrohttpd-dev libwebsockets-dev libjansson-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev libyaml-dev \
      libhiredis-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile ./
COPY engine engine
COPY server server
RUN make -j"$(nproc)" feelfish

FROM ${BASE} AS web
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src/web
# The dependencies first (a layer that changes only with the lock), then the page's sources.
# Behind a TLS-inspecting proxy, give npm the proxy's CA for this step only (not kept in the image):
# --secret id=cacert,src=/etc/ssl/certs/ca-certificates.crt (podman/buildah, docker buildx).
COPY web/package.json web/package-lock.json ./
RUN --mount=type=secret,id=cacert \
    if [ -s /run/secrets/cacert ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/cacert; fi \
 && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
COPY web ./
RUN node build.mjs

FROM ${BASE}
# The libraries of the build stage's -dev packages (Makefile: SERVER_PKGS); libcurl4 is the
# server's own, curl is the HEALTHCHECK's.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libuv1 libmicrohttpd12 libwebsockets17 libwebsockets-evlib-uv \
      libjansson4 libsqlite3-0 libssl3 libcurl4 libyaml-0-2 libhiredis0.14 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 feelfish \
 && useradd --system --uid 10001 --gid feelfish --home-dir /srv --no-create-home --shell /usr/sbin/nologin feelfish \
 && mkdir -p /srv/data \
 && chown feelfish:feelfish /srv/data
COPY --from=build /src/feelfish /usr/local/bin/feelfish
COPY --from=build /src/engine/style.model /usr/local/share/feelfish/style.model
COPY --from=web /src/web/dist /usr/local/share/feelfish/web
# A library the build linked but this stage lacks fails the build here, not the container at start.
RUN if ldd /usr/local/bin/feelfish | grep "not found"; then echo "runtime libraries missing (above)"; exit 1; fi
WORKDIR /srv
# The page and the style model are found by absolute path (their defaults are relative to the
# working directory).
ENV FEELFISH_WEB=/usr/local/share/feelfish/web FEELFISH_STYLE_MODEL=/usr/local/share/feelfish/style.model
# Reachable from outside: --auth is "optional" off loopback (tokens: docker exec ... feelfish token
# create --db /srv/data/feelfish.db --scopes ...), and per-client quotas are on.
ENV FEELFISH_RATE=20 FEELFISH_RATE_BURST=40 FEELFISH_CLIENT_JOBS_MAX=4 FEELFISH_CLIENT_INFINITE_MAX=1
USER feelfish
VOLUME /srv/data
# HTTP (REST API, page, /metrics) and WebSocket.
EXPOSE 8080 8081
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${FEELFISH_HTTP_PORT:-8080}/api/health" || exit 1
ENTRYPOINT ["feelfish"]
CMD ["serve", "--bind", "0.0.0.0", "--db", "/srv/data/feelfish.db"]
