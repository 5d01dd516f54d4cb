# Builds feelfish on Debian and runs it. The runtime image holds only the binary.
FROM debian:bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends gcc make libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile ./
COPY engine engine
COPY server server
RUN make feelfish

FROM debian:bookworm-slim
COPY --from=build /src/feelfish /usr/local/bin/feelfish
ENTRYPOINT ["feelfish"]
CMD ["help"]
