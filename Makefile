# SPDX-License-Identifier: Apache-2.0
# boxcert: the commands a person types. The build itself is CMake (build/).
SHELL := /bin/bash
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
CMAKE_FLAGS ?=
ifeq ($(CI),true)
CMAKE_FLAGS += -DBOXCERT_WERROR=ON
endif

.PHONY: all deps build engine test unit asan tsan fuzz demo bench memcheck clean install schemas man packages test-hosts mutate

all: build

deps:
	@bash scripts/deps.sh

build:
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) -- -s --no-print-directory

engine: deps
	@bash scripts/engine.sh start >/dev/null

# The whole suite: unit, fixture, CLI and real-engine tests.
test: deps build engine
	@cd $(BUILD) && ctest -j $(JOBS) --output-on-failure --timeout 600

# Without an engine (engine tests skip unless BOXCERT_REQUIRE_ENGINE=1).
unit: build
	@cd $(BUILD) && ctest -j $(JOBS) --output-on-failure -L 'unit|fixture|cli'

# ASan + UBSan: unit and fixture tests plus one real-engine smoke test.
asan: deps engine
	@cmake -S . -B $(ASAN_BUILD) -DBOXCERT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) -- -s --no-print-directory
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  ctest -j $(JOBS) --output-on-failure --timeout 600 -L 'unit|fixture|cli|smoke'

# ThreadSanitizer: the tests of what runs on several threads (audit --jobs, verify --jobs)
# against the real engine; any report fails them (TSan's exit code 66).
tsan: deps engine
	@cmake -S . -B $(TSAN_BUILD) -DBOXCERT_TSAN=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS) -- -s --no-print-directory
	@cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
	  ctest -j $(JOBS) --output-on-failure --timeout 600 -L threads

# libFuzzer targets (clang); FUZZ_SECONDS=N runs each for N seconds.
fuzz: deps
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DBOXCERT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) -- -s --no-print-directory
	@bash scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_JOBS)

# valgrind memcheck: one run of each subcommand, no errors, no definite leaks.
memcheck: deps build engine
	@bash scripts/memcheck.sh

# Mutations of the verdict code (tests/mutations/*.txt): each must be killed by the
# engine-free tests it names; fails if one survives (scripts/mutate.py, docs/ci.md).
mutate: deps
	@python3 scripts/mutate.py --jobs $(JOBS)

# Benchmarks: figures and ratios measured in one run, written to docs/benchmarks.md.
bench: deps build engine
	@bash bench/run.sh

# Refresh the JSON Schemas made from the containment table (schema/schemas/, checked by
# tests/cli/schemas.sh) after a change to the table.
schemas: build
	@cp $(BUILD)/generated/schemas/*.schema.json schema/schemas/

# Refresh the manual pages (man/) from the commands' --help and docs/policy.md and
# docs/certificate.md (scripts/man.py; checked by tests/cli/man.sh) after a change to either.
man: build
	@python3 scripts/man.py $(BUILD)/bin man

# The Debian packages boxcert-verify and boxcert (cpack, into $(BUILD)/packages), checked
# with lintian, installed in a clean mmdebstrap root that runs the README's tutorial
# verbatim (tests/packages/debs.sh), and the verifier's container image built on an
# imported mmdebstrap base and run read-only (tests/packages/image.sh), and the GitHub Action
# and GitLab template installing that .deb (tests/packages/ci_recipes.sh). Downloads are
# cached in /var/tmp/boxcert-debcache.
packages: deps build engine
	@rm -rf $(BUILD)/packages
	@cd $(BUILD) && cpack -G DEB -B $(CURDIR)/$(BUILD)/packages >/dev/null
	@rc=0; for t in debs image ci_recipes; do \
	  BOXCERT_BUILD_DIR=$(CURDIR)/$(BUILD) BOXCERT_DEBS_DIR=$(CURDIR)/$(BUILD)/packages \
	    bash tests/packages/$$t.sh || rc=1; done; exit $$rc

# The hosts users run (scripts/testhost.sh, docs/testhost.md): a Debian 13 guest under qemu
# with cgroup v2 + systemd, AppArmor, runc/crun/runsc and mutual TLS; boxcert built for it.
# The guest is cached in /var/tmp/boxcert-testhost; the tests run from this machine over
# ssh and TLS (smoke.sh, zoo_tls.sh) and as root in it (seccomp.sh; guest_engine.sh: the zoos
# and the seccomp test of tests/engine/ against the guest's engine); the guest is stopped
# whatever they say.
test-hosts: deps build engine
	@bash scripts/testhost.sh build
	@trap 'bash scripts/testhost.sh stop' EXIT; trap 'exit 130' INT TERM; bash scripts/testhost.sh start || exit 1; \
	  bash tests/hosts/all.sh

demo: deps build engine
	@bash scripts/demo.sh

install: build
	@cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD) .demo
