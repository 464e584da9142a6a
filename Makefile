# Spool — the two commands a user needs:
#   make run    install missing packages, build Release, start a broker on 127.0.0.1:9092 (data in ./data)
#   make run-cluster  the same for ZooKeeper (127.0.0.1:2181) and 3 brokers (9092-9094), data in
#               ./data-cluster; Ctrl-C stops them all (scripts/run-cluster; ports overridable by env)
#   make test   install missing packages, build, run every suite (unit, unit under ASan+UBSan,
#               compatibility, system, the bad-input/crash/power-cut suites against the ASan+UBSan
#               broker, short fuzz runs)
#   make chaos  the long fault schedules (label chaos; make test runs them CI-sized): the Jepsen-style
#               run of tests/chaos (every client kind, every nemesis) for DURATION seconds (3600), then
#               the cluster fault scenarios with the issue's kill counts
#   make fuzz   build the libFuzzer targets (clang); FUZZ_SECONDS=n also runs every target for n
#               seconds (scripts/fuzz-long; FUZZ_TARGETS=regex picks some, FUZZ_JOBS=n runs n at once)
#   make deb    build Release, then build/spool_<version>_<arch>.deb (scripts/make-deb): the binary,
#               /etc/spool/server.properties, the systemd unit spool.service (README "Install as a service")
#   make bench  build Release, run `spool bench` (the standard set, ~20 min) against its own broker
#               and Apache Kafka 4.4 (scripts/kafka-peer; BENCH_ARGS=--peer mock for librdkafka's mock
#               cluster); the report goes to bench/results/ (BENCH_ARGS=... to add options). The
#               cluster benchmarks (3-node failover, RF=3, replication lag, transactions, coordinator
#               failover) are opt-in, ~17 min: make bench BENCH_ARGS=--workloads=cluster (one of them:
#               --workloads=cluster/<failover|produce|lag|txn|coordinator-failover>)
SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
CMAKE_FLAGS ?=

.PHONY: all deps build debug asan fuzz run run-cluster test chaos test-peer test-unit test-asan test-fuzz bench deb clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@ninja -C $(BUILD) -j $(JOBS)

debug: deps
	@cmake -S . -B build-debug -G Ninja -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	@ninja -C build-debug -j $(JOBS)

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSPOOL_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@ninja -C $(ASAN_BUILD) -j $(JOBS) spool_unit_tests spool refused_keys_tool

FUZZ_SECONDS ?=
FUZZ_TARGETS ?= .
FUZZ_JOBS ?= 1
fuzz: deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSPOOL_FUZZ=ON -DSPOOL_WERROR=OFF $(CMAKE_FLAGS) >/dev/null
	@ninja -C $(FUZZ_BUILD) -j $(JOBS) spool_fuzzers
	@if [ -n "$(FUZZ_SECONDS)" ]; then scripts/fuzz-long $(FUZZ_BUILD) $(FUZZ_SECONDS) '$(FUZZ_TARGETS)' -j $(FUZZ_JOBS); fi

run: build
	@mkdir -p data
	$(BUILD)/spool broker --override log.dirs=$(CURDIR)/data --override listeners=PLAINTEXT://127.0.0.1:9092

run-cluster: build
	@SPOOL_BIN=$(CURDIR)/$(BUILD)/spool scripts/run-cluster

test: build asan fuzz
	ctest --test-dir $(BUILD) -LE chaos -j $(JOBS) --output-on-failure --timeout 600
	ctest --test-dir $(ASAN_BUILD) -L unit -j $(JOBS) --output-on-failure --timeout 600
	ctest --test-dir $(ASAN_BUILD) -L asan-live -j $(JOBS) --output-on-failure --timeout 900
	ctest --test-dir $(FUZZ_BUILD) -L fuzz -j $(JOBS) --output-on-failure --timeout 600

# Long fault schedules (label chaos): tests/chaos/chaos.py for DURATION seconds
# on CHAOS_BROKERS brokers (CHAOS_SEED replays one), and the cluster fault
# scenarios with the issue's counts (10 leader kills, 5 controller kills).
DURATION ?= 3600
CHAOS_BROKERS ?= 3
CLUSTER_LEADER_KILLS ?= 10
CLUSTER_CONTROLLER_KILLS ?= 5
chaos: build
	CHAOS_DURATION=$(DURATION) CHAOS_BROKERS=$(CHAOS_BROKERS) \
	CLUSTER_LEADER_KILLS=$(CLUSTER_LEADER_KILLS) CLUSTER_CONTROLLER_KILLS=$(CLUSTER_CONTROLLER_KILLS) \
	  ctest --test-dir $(BUILD) -L chaos --output-on-failure

# The compatibility tests against Apache Kafka 4.4 (scripts/kafka-peer) instead of Spool.
test-peer: build
	@scripts/test-peer

BENCH_ARGS ?=
bench: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@ninja -C $(BUILD) -j $(JOBS) spool
	@mkdir -p bench/results
	@report=$$($(BUILD)/spool bench --output-dir bench/results $(BENCH_ARGS)) && echo "bench report: $$report"

# The Debian package of this build's binary, in $(BUILD)/ (scripts/make-deb, packaging/deb/).
deb: build
	@scripts/make-deb $(BUILD)/spool $(BUILD)

test-unit: build
	ctest --test-dir $(BUILD) -L unit -j $(JOBS) --output-on-failure

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) build-debug
