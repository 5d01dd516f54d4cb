# feelfish - build, test, run, bench. `make help` lists the targets.
# On a fresh Debian machine as root, `make run` and `make test` install what is missing first.

CC       ?= cc
ARCH     ?= -march=x86-64-v2
CSTD     := -std=c11 -D_GNU_SOURCE
WARN     := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes
OPT      ?= -O3 -flto=auto -fno-plt
CFLAGS   += $(CSTD) $(WARN)
LDLIBS   += -lm -lpthread
SERVER_PKGS := libuv libmicrohttpd libwebsockets jansson sqlite3 libcrypto libcurl yaml-0.1 hiredis
SERVER_CFLAGS = $(shell pkg-config --cflags $(SERVER_PKGS) 2>/dev/null)
SERVER_LIBS = $(shell pkg-config --libs $(SERVER_PKGS) 2>/dev/null)

ENGINE_SRC := $(sort $(shell find engine -name '*.c'))
SERVER_SRC := $(sort $(shell find server -name '*.c'))
# build/unit: the engine's suites (tests/unit minus server/); build/unit-server: the server's
# (tests/unit/server, with the shared harness tests/unit/test.c), linked with every server object
# but main.c.
UNIT_SRC   := $(sort $(shell find tests/unit -path tests/unit/server -prune -o -name '*.c' -print))
SERVER_UNIT_SRC := tests/unit/test.c $(sort $(shell find tests/unit/server -name '*.c' 2>/dev/null))
SERVER_LIB_SRC  := $(filter-out server/main.c,$(SERVER_SRC))
ALL_H      := $(shell find engine server tests/unit -name '*.h')

REL_OBJ  := $(patsubst %.c,build/release/%.o,$(ENGINE_SRC) $(SERVER_SRC))
ASAN_ENGINE_OBJ := $(patsubst %.c,build/asan/%.o,$(ENGINE_SRC))
ASAN_UNIT_OBJ   := $(patsubst %.c,build/asan/%.o,$(UNIT_SRC))
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TSAN_FLAGS := -O1 -g -fsanitize=thread
TSAN_OBJ   := $(patsubst %.c,build/tsan/%.o,$(ENGINE_SRC) $(UNIT_SRC))
SERVER_CODE := server/% tests/unit/server/%
# The learned evaluation's default network, built into every binary when it is there (docs/nnue.md);
# without it the classical evaluation is the hand-written one.
NET_FILE := $(wildcard engine/eval/default.nnue)
NET_FLAGS = $(if $(and $(NET_FILE),$(filter engine/eval/nnue.c,$<)),-DFEELFISH_NET_FILE='"$(NET_FILE)"')

# Debian packages each step needs; `deps-*` installs the missing ones (as root, with apt-get).
DEB_BUILD := gcc make libc6-dev pkg-config libuv1-dev libmicrohttpd-dev libwebsockets-dev libjansson-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev libyaml-dev libhiredis-dev \
	nodejs $(if $(shell command -v npm 2>/dev/null),,npm)
# (npm only when missing: NodeSource's nodejs brings its own npm and conflicts with Debian's)
DEB_TEST  := $(DEB_BUILD) valgrind python3 stockfish chromium clang libclang-rt-14-dev redis-server nginx-light openssl wrk python3-jsonschema curl gnuplot-nox
DEB_BENCH := $(DEB_BUILD) stockfish ethereal-chess python3 wrk nginx-light chromium gnuplot-nox redis-server redis-tools

.PHONY: data net all help deps-build deps-test deps-bench web run test test-unit test-docker bench soak bench-strength bench-levels bench-affective bench-bayesian format clean fuzz

all: feelfish

help:
	@echo "make           build ./feelfish"
	@echo "make run       install what is missing, build, start the server (REST :8080, WebSocket :8081)"
	@echo "make test      install what is missing, build, run every test (last line: N passed, N failed)"
	@echo "make test-docker  the Docker side with podman: base image, three images, the compose cluster behind nginx,"
	@echo "                checks, then everything removed (KEEP_BASE=1 keeps the Debian base; ~2 min)"
	@echo "make bench     benchmarks on this machine (perft, search, WAC vs Stockfish; cluster scaling; ~12 min), then make soak"
	@echo "                and the flood benchmark (25 addresses flood every kind of work; a depth-8 analysis's p50/p99)"
	@echo "make soak      the server for SOAK_SECONDS (600) beside hostile clients: RSS, fds, db size, p99, 5xx"
	@echo "                (make bench ends with both, and the bot's clock test: 20 games at 1+0 vs Stockfish, ~17 min)"
	@echo "make bench-strength  matches against Stockfish at UCI_Elo 2600/2850 and Ethereal 12 (hours)"
	@echo "make bench-levels    each game level's rating against Stockfish's UCI_Elo ladder (~1 h 45 min)"
	@echo "make bench-affective speed, choices and a 200-game match of affective vs classical (hours)"
	@echo "make bench-bayesian  the BayesChess experiments: self-play learning, learning curve, chart (~1 hour)"
	@echo "make data      self-play positions for the learned evaluation into data/nnue (DATA_GEN G: played by net G, 0 the hand-written; DATA_CHUNKS x 11-22 min, DATA_GAMES a chunk; resumable)"
	@echo "make net       train the learned evaluation on data/nnue (after make data; ~NET_EPOCHS x 1 min)"
	@echo "make web       build the browser page into web/dist (npm ci when needed, then esbuild)"
	@echo "make fuzz      the libFuzzer harnesses, FUZZ_SECONDS (600) each"
	@echo "make format    clang-format every C file"

define install_missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "missing Debian packages:$$missing (run as root, or install them)"; exit 1; fi; \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

deps-build:
	$(call install_missing,$(DEB_BUILD))
deps-test:
	$(call install_missing,$(DEB_TEST))
deps-bench:
	$(call install_missing,$(DEB_BENCH))

feelfish: $(REL_OBJ)
	$(CC) $(CFLAGS) $(OPT) $(ARCH) -o $@ $^ $(LDLIBS) $(SERVER_LIBS)

build/release/%.o: %.c $(ALL_H)
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(CFLAGS) $(if $(filter $(SERVER_CODE),$<),$(SERVER_CFLAGS)) $(NET_FLAGS) $(OPT) $(ARCH) -c -o $@ $<

build/asan/%.o: %.c $(ALL_H)
	@mkdir -p $(dir $@)
	@echo "CC (asan) $<"
	@$(CC) $(CFLAGS) $(if $(filter $(SERVER_CODE),$<),$(SERVER_CFLAGS)) $(NET_FLAGS) $(ASAN_FLAGS) -c -o $@ $<

# nnue.o is rebuilt when the network file changes, appears or goes (build/net-choice names it).
build/release/engine/eval/nnue.o build/asan/engine/eval/nnue.o build/tsan/engine/eval/nnue.o build/fuzz/obj/engine/eval/nnue.o: build/net-choice $(NET_FILE)
# routes.o builds in the API contract (server/api/openapi.json and asyncapi.json, with .incbin): rebuilt
# when either changes.
build/release/server/api/routes.o build/asan/server/api/routes.o build/tsan/server/api/routes.o build/fuzz/obj/server/api/routes.o: server/api/openapi.json server/api/asyncapi.json
build/net-choice: FORCE
	@mkdir -p build; echo '$(NET_FILE)' | cmp -s - $@ || echo '$(NET_FILE)' >$@
.PHONY: FORCE
FORCE:

# The whole binary with AddressSanitizer + UBSan: the server's integration tests run against it.
build/feelfish-asan: $(ASAN_ENGINE_OBJ) $(patsubst %.c,build/asan/%.o,$(SERVER_SRC))
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $^ $(LDLIBS) $(SERVER_LIBS)

build/tsan/%.o: %.c $(ALL_H)
	@mkdir -p $(dir $@)
	@echo "CC (tsan) $<"
	@$(CC) $(CFLAGS) $(if $(filter $(SERVER_CODE),$<),$(SERVER_CFLAGS)) $(NET_FLAGS) $(TSAN_FLAGS) -c -o $@ $<

# The whole binary with ThreadSanitizer: the jobs and WebSocket integration tests run against it too
# (the loop, the workers, the storage writer and libuv's pool share state).
build/feelfish-tsan: $(patsubst %.c,build/tsan/%.o,$(ENGINE_SRC) $(SERVER_SRC))
	$(CC) $(CFLAGS) $(TSAN_FLAGS) -o $@ $^ $(LDLIBS) $(SERVER_LIBS)

build/unit-tsan: $(TSAN_OBJ)
	$(CC) $(CFLAGS) $(TSAN_FLAGS) -o $@ $^ $(LDLIBS)

build/unit-asan: $(ASAN_ENGINE_OBJ) $(ASAN_UNIT_OBJ)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $^ $(LDLIBS)

build/unit: $(patsubst %.c,build/release/%.o,$(ENGINE_SRC) $(UNIT_SRC))
	$(CC) $(CFLAGS) $(OPT) $(ARCH) -o $@ $^ $(LDLIBS)

build/unit-server: $(patsubst %.c,build/release/%.o,$(ENGINE_SRC) $(SERVER_LIB_SRC) $(SERVER_UNIT_SRC))
	$(CC) $(CFLAGS) $(OPT) $(ARCH) -o $@ $^ $(LDLIBS) $(SERVER_LIBS)

build/unit-server-asan: $(ASAN_ENGINE_OBJ) $(patsubst %.c,build/asan/%.o,$(SERVER_LIB_SRC) $(SERVER_UNIT_SRC))
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $^ $(LDLIBS) $(SERVER_LIBS)

# The browser page: npm ci when web/node_modules is missing or older than the lock, then esbuild.
# --ignore-scripts: no package here needs its install script (esbuild finds its binary in its platform
# package; of RapiDoc only the prebuilt bundle is used, not its dependencies' native add-ons, which
# would reach for the network to build).
WEB_SRC := $(wildcard web/src/*.js web/public/*) web/index.html web/bot.html web/review.html web/docs.html web/style.css web/build.mjs

web: web/dist/index.html

web/node_modules/.package-lock.json: web/package-lock.json
	npm ci --prefix web --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

web/dist/index.html: web/node_modules/.package-lock.json $(WEB_SRC)
	node web/build.mjs

# libFuzzer harnesses (tests/fuzz/fuzz_*.c): the engine and server built by clang with the fuzzer,
# ASan and UBSan; `make fuzz` runs each for FUZZ_SECONDS (make test: 10 s each, a smoke run of the corpus).
FUZZ_CC    := clang
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_NAMES := fen move pgn uci request http ws
FUZZ_SECONDS ?= 600
FUZZ_ENGINE_OBJ := $(patsubst %.c,build/fuzz/obj/%.o,$(ENGINE_SRC))
FUZZ_SERVER_OBJ := $(patsubst %.c,build/fuzz/obj/%.o,$(filter-out server/main.c,$(SERVER_SRC)))

build/fuzz/obj/%.o: %.c $(ALL_H)
	@mkdir -p $(dir $@)
	@echo "CC (fuzz) $<"
	@$(FUZZ_CC) $(CSTD) -Wall -Wextra -Werror $(if $(filter server/%,$<),$(SERVER_CFLAGS)) $(NET_FLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_request build/fuzz/fuzz_http build/fuzz/fuzz_ws: build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h tests/fuzz/fuzz_server.h $(FUZZ_ENGINE_OBJ) $(FUZZ_SERVER_OBJ)
	@echo "LD (fuzz) $@"
	@$(FUZZ_CC) $(CSTD) -Wall -Wextra -Werror $(SERVER_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_ENGINE_OBJ) $(FUZZ_SERVER_OBJ) $(LDLIBS) $(SERVER_LIBS)

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_ENGINE_OBJ)
	@echo "LD (fuzz) $@"
	@$(FUZZ_CC) $(CSTD) -Wall -Wextra -Werror $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_ENGINE_OBJ) $(LDLIBS)

fuzz: deps-test
	@$(MAKE) --no-print-directory $(addprefix build/fuzz/fuzz_,$(FUZZ_NAMES))
	@tests/fuzz/run.sh $(FUZZ_SECONDS)

run: deps-build feelfish web
	./feelfish serve

test: deps-test
	@$(MAKE) --no-print-directory feelfish web build/unit build/unit-asan build/unit-tsan build/unit-server \
		build/unit-server-asan build/feelfish-asan build/feelfish-tsan $(addprefix build/fuzz/fuzz_,$(FUZZ_NAMES))
	@tests/run.sh

# The Dockerfile, docker/nginx.Dockerfile and docker/compose.yaml for real, with podman (as root):
# installs podman & co, makes the Debian base with debootstrap if missing, builds, checks, tears down.
test-docker:
	@python3 tests/docker/test_docker.py $(if $(KEEP_BASE),--keep-base) $(DOCKER_ARGS)

# The learned evaluation's data (issue #26): self-play at DATA_NODES (6,000) nodes a move, DATA_CHUNKS
# chunks of 5,000 games (~390,000 positions, 11-22 min on two cores each at 6,000 nodes), one seed a
# chunk, into data/nnue/genG-SEED.bin (G = DATA_GEN; genG-nNODES-SEED.bin at another DATA_NODES, its
# seeds 500 further on so that its openings are not the 6,000-node chunks'). Generation 0 is played
# by the hand-written evaluation (--net none), generation G by the network data/nnue/genG.nnue, seeds
# from 1001 + 1000 G. A chunk is written to .part and renamed when whole, so `make data` resumes
# where it stopped. DATA_GAMES sets a chunk's games (default 5,000; chunks of another size start
# their seeds 100 further on, clear of the first 100 5,000-game chunks, and share the file names, so
# keep one other size): 1,000 (2-4 min a chunk) loses little when a machine is taken away mid-chunk.
DATA_GEN ?= 0
DATA_CHUNKS ?= 60
DATA_NODES ?= 6000
DATA_GAMES ?= 5000
DATA_NET = $(if $(filter 0,$(DATA_GEN)),none,data/nnue/gen$(DATA_GEN).nnue)
DATA_DEEP = $(filter-out 6000,$(DATA_NODES))
DATA_PREFIX = data/nnue/gen$(DATA_GEN)-$(if $(DATA_DEEP),n$(DATA_DEEP)-)
data: feelfish
	@mkdir -p data/nnue
	@[ "$(DATA_NET)" = none ] || [ -f "$(DATA_NET)" ] || \
	  { echo "make data DATA_GEN=$(DATA_GEN): $(DATA_NET) is missing (docs/nnue-history.md says where each generation comes from)"; exit 1; }
	@first=$$((1001 + 1000 * $(DATA_GEN) + $(if $(DATA_DEEP),500,0) + $(if $(filter-out 5000,$(DATA_GAMES)),100,0))); \
	for seed in $$(seq $$first $$((first + $(DATA_CHUNKS) - 1))); do f=$(DATA_PREFIX)$$seed.bin; \
	  [ -f $$f ] && continue; echo "$$f, played by $(DATA_NET) at $(DATA_NODES) nodes a move ($$(date +%H:%M:%S))"; \
	  nice -n 19 ./feelfish --net $(DATA_NET) datagen --games $(DATA_GAMES) --nodes $(DATA_NODES) --threads $$(nproc) \
	    --seed $$seed --format bin --out $$f.part && mv $$f.part $$f || exit 1; done

# The learned evaluation's network from the data (docs/nnue.md): `make data` first when there is none,
# then `feelfish train` on every chunk of every generation (resumable: data/nnue/NET_NAME.nnue.ckpt),
# the loss per epoch in data/nnue/NET_NAME.csv. Install it with
# `cp data/nnue/NET_NAME.nnue engine/eval/default.nnue`. A later generation is fine-tuned from the
# last (NET_INIT=data/nnue/genG.nnue, a smaller NET_LR, its own games in NET_DATA); a NET_HIDDEN wider
# than NET_INIT's widens it; NET_KINGS=4 gives it king buckets (NET_INIT's feature weights the factor they share).
NET_NAME ?= gen9
NET_HIDDEN ?= 128
NET_BUCKETS ?= 8
NET_KINGS ?= 1
NET_EPOCHS ?= 40
NET_LAMBDA ?= 1.0
NET_DATA ?= data/nnue/gen*-*.bin
NET_LR ?= 0.001
NET_INIT ?=
net: deps-build feelfish
	$(call install_missing,gnuplot-nox)
	@ls $(NET_DATA) >/dev/null 2>&1 || $(MAKE) --no-print-directory data
	nice -n 19 ./feelfish train --out data/nnue/$(NET_NAME).nnue --hidden $(NET_HIDDEN) --buckets $(NET_BUCKETS) --king-buckets $(NET_KINGS) \
	  --epochs $(NET_EPOCHS) \
	  --lambda $(NET_LAMBDA) --lr $(NET_LR) $(if $(NET_INIT),--init $(NET_INIT)) --threads $$(nproc) \
	  --log data/nnue/$(NET_NAME).csv $(NET_DATA)
	@sha256sum data/nnue/$(NET_NAME).nnue
	@tests/bench/plot_loss.sh data/nnue/$(NET_NAME).csv docs/nnue-loss.png "$(NET_NAME): 768->$(NET_HIDDEN)x2->1" || true

bench: deps-bench feelfish web
	@tests/bench/perft.sh
	@tests/bench/search.sh
	@tests/bench/wac.sh
	@python3 tests/bench/lab.py
	@python3 tests/bench/server.py
	@python3 tests/bench/scaling.py
	@node tests/bench/web.mjs
	@python3 tests/bench/soak.py
	@python3 tests/bench/flood.py
	@python3 tests/bot/clock_test.py
	@python3 tests/bench/calibrate.py
	@python3 tests/bench/review_quality.py

soak: deps-bench feelfish
	@python3 tests/bench/soak.py

bench-strength: deps-bench feelfish
	@tests/bench/strength.sh

bench-levels: deps-bench feelfish
	@tests/bench/levels.sh

bench-affective: deps-bench feelfish
	@tests/bench/affective.sh

bench-bayesian: deps-bench feelfish
	@tests/bench/bayesian.sh

format:
	clang-format -i $$(find engine server tests/unit -name '*.[ch]')

clean:
	rm -rf build feelfish web/dist
