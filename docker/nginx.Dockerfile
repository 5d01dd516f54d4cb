# nginx in front of feelfish (docker/compose.yaml), built on the same Debian base as feelfish's
# image (no registry needed):
#   podman build --build-arg BASE=localhost/debian:bookworm-slim -f docker/nginx.Dockerfile docker
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx \
 && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/*
COPY nginx.conf /etc/nginx/nginx.conf
COPY nginx-start.sh /usr/local/bin/nginx-start
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx-start"]
