# feelfish: build on Debian, run the server. The runtime image holds the binary and its libraries.
# docker build -t feelfish . && docker run -p 8080:8080 -p 8081:8081 -v feelfish-data:/srv/data feelfish
FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc make libc6-dev pkg-config \
      libuv1-dev libmicrohttpd-dev libwebsockets-dev libjansson-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev libyaml-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile ./
COPY engine engine
COPY server server
RUN make feelfish

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libuv1 libmicrohttpd12 libwebsockets17 libwebsockets-evlib-uv \
      libjansson4 libsqlite3-0 libssl3 libcurl4 libyaml-0-2 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/feelfish /usr/local/bin/feelfish
WORKDIR /srv
EXPOSE 8080 8081
VOLUME /srv/data
# Reachable from outside: --auth is "optional" off loopback (tokens: docker exec ... feelfish token
# create --db /srv/data/feelfish.db --scopes ...), and per-client quotas are on.
ENV FEELFISH_RATE=20 FEELFISH_RATE_BURST=40 FEELFISH_CLIENT_JOBS_MAX=4 FEELFISH_CLIENT_INFINITE_MAX=1
ENTRYPOINT ["feelfish"]
CMD ["serve", "--bind", "0.0.0.0", "--db", "/srv/data/feelfish.db"]
