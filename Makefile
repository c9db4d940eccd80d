# Set-up and everyday commands. `make sim` and `make test` build .venv themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
STUBS  := $(VENV)/esp32-stubs
STUBS_STAMP := $(STUBS)/.installed
JOBS   ?= 2

.PHONY: all venv system-deps sim test check bench bench-link bench-host bench-heap mutate proof proof-journal proof-link deploy clean

all: test

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(STUBS_STAMP): requirements-stubs.txt $(STAMP)
	$(PY) -m pip install --quiet --no-deps --upgrade --target $(STUBS) -r requirements-stubs.txt micropython-stdlib-stubs==1.29.0.post2
	touch $@

venv: $(STAMP) $(STUBS_STAMP)

# Beyond the venv, `make test` needs Node.js (pyright runs on it) and
# rsvg-convert (Debian's librsvg2-bin: tests/test_odds.py renders the odds
# plot). Missing ones are installed with apt-get when run as root; otherwise
# one line says what to install, and the target fails.
SYSTEM_TOOLS := node:nodejs rsvg-convert:librsvg2-bin
APT_GET ?= apt-get

system-deps:
	@missing=""; \
	for pair in $(SYSTEM_TOOLS); do command -v "$${pair%%:*}" >/dev/null || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v "$(APT_GET)" >/dev/null; then \
			echo "make: installing$$missing with apt-get" >&2; \
			$(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq$$missing >/dev/null || exit 2; \
		else \
			echo "make: install$$missing first (as root: apt-get install$$missing)" >&2; exit 2; \
		fi; \
	fi

sim: venv
	$(PY) -m sim

test: venv system-deps
	$(PY) -m pytest -n $(JOBS) -q tests

# Long proofs, beyond `make test`'s samples; .ci/run calls this after `make test`.
# They run long by design: a test may take up to 30 min here (120 s in make test).
proof: proof-journal proof-link

# The journal cut at every flash write of its scripted session (`make test` runs a sample).
proof-journal: venv
	JOURNAL_PROOF=all $(PY) -m pytest -q -s --timeout=1800 tests/test_journal_proof.py tests/test_board_journal.py -k "proof or cut_after"

check: venv system-deps
	$(PY) -m pytest -q tests/test_static_*.py

# Mutation testing of the firmware (tests/mutation/runner.py); not part of `make test`.
# `make mutate SAMPLE=200` tests a random sample; MODULES=table/keypad.py,table/lamps.py narrows it.
mutate: venv
	$(PY) tests/mutation/runner.py --jobs $(JOBS) $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(SEED),--seed $(SEED)) $(if $(MODULES),--modules $(MODULES))

bench: venv
	$(PY) -m sim bench
	$(MAKE) --no-print-directory bench-link
	$(MAKE) --no-print-directory bench-host
	$(MAKE) --no-print-directory bench-heap

# The board's memory budget, scenario by scenario: the smallest heap each needs
# on the unix port, the 32-bit estimate and the margin (docs/board.md, Memory).
bench-heap: venv
	$(PY) tests/heap_budget.py

# host_tools on the virtual board: deploy time, request round trip, journal sync rate (build/host_bench.json).
bench-host: venv
	$(PY) -m host_tools.bench

# The serial link core's throughput and memory on both runtimes (build/link_bench.json).
bench-link: venv
	$(PY) -c "from sim.paths import bootstrap; bootstrap(); from sim.analysis import link_bench; link_bench.main([])"

# 10**6 random and mutated frames through the link core (`make test` runs 20,000).
proof-link: venv
	LINK_FUZZ_FRAMES=1000000 $(PY) -m pytest -n $(JOBS) -q --timeout=1800 tests/test_link_fuzz.py -k seeded_fuzz

# Compile the firmware and put it on the board at PORT (host_tools/README.md):
# `make deploy PORT=/dev/ttyUSB0 [CONFIG=config.json] [KEY=board.key]`.
deploy: venv
	@test -n "$(PORT)" || { echo "make deploy: give the board's serial port, e.g. make deploy PORT=/dev/ttyUSB0" >&2; exit 2; }
	$(PY) -m host_tools deploy --port "$(PORT)" $(if $(CONFIG),--config "$(CONFIG)") $(if $(KEY),--key "$(KEY)")

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .ruff_cache
