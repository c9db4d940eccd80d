# Set-up and everyday commands. `make sim` and `make test` build .venv themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
STUBS  := $(VENV)/esp32-stubs
STUBS_STAMP := $(STUBS)/.installed
JOBS   ?= 2

.PHONY: all venv system-deps postgresql prometheus sim test check bench bench-link bench-host bench-heap bench-floor mutate proof proof-journal proof-link proof-floor proof-progressive deploy floor floor-shots mosquitto browser clean

all: test

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(STUBS_STAMP): requirements-stubs.txt $(STAMP)
	$(PY) -m pip install --quiet --no-deps --upgrade --target $(STUBS) -r requirements-stubs.txt micropython-stdlib-stubs==1.29.0.post2
	touch $@

venv: $(STAMP) $(STUBS_STAMP)

# Beyond the venv, `make test` needs Debian packages: Node.js (pyright runs on
# it), rsvg-convert (librsvg2-bin: tests/test_odds.py renders the odds plot),
# mosquitto (the floor's broker), chromium with its chromedriver (the pit
# page's browser tests), PostgreSQL (the floor's record on a database server;
# its initdb and pg_ctl live off PATH, in /usr/lib/postgresql/N/bin) and
# Prometheus (the floor's metrics scraped). Missing ones are installed with
# apt-get when run as root; otherwise one line says what to install, and the
# target fails. Each entry is command:package.
SYSTEM_TOOLS  := node:nodejs rsvg-convert:librsvg2-bin
BROKER_TOOLS  := mosquitto:mosquitto mosquitto_pub:mosquitto-clients
BROWSER_TOOLS := chromium:chromium chromedriver:chromium-driver
DATABASE_TOOLS := pg_ctlcluster:postgresql
METRICS_TOOLS := prometheus:prometheus
APT_GET ?= apt-get

# $(call install-missing,command:package ...)
install-missing = missing=""; \
	for pair in $(1); do command -v "$${pair%%:*}" >/dev/null || missing="$$missing $${pair\#*:}"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v "$(APT_GET)" >/dev/null; then \
			echo "make: installing$$missing with apt-get" >&2; \
			$(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq$$missing >/dev/null || exit 2; \
		else \
			echo "make: install$$missing first (as root: apt-get install$$missing)" >&2; exit 2; \
		fi; \
	fi

system-deps:
	@$(call install-missing,$(SYSTEM_TOOLS) $(BROKER_TOOLS) $(BROWSER_TOOLS) $(DATABASE_TOOLS) $(METRICS_TOOLS))

# The server's own programs are off PATH (/usr/lib/postgresql/N/bin); postgresql-common's
# pg_ctlcluster, installed with them, is on it.
postgresql:
	@$(call install-missing,$(DATABASE_TOOLS))

prometheus:
	@$(call install-missing,$(METRICS_TOOLS))

mosquitto:
	@$(call install-missing,$(BROKER_TOOLS))

browser:
	@$(call install-missing,$(BROWSER_TOOLS))

# docs/floor.md's pictures of the pit page, taken by its browser tests.
floor-shots: venv mosquitto browser
	FLOOR_SHOTS=docs/img/floor $(PY) -m pytest -q -n $(JOBS) tests/test_floor_browser.py tests/test_floor_roles_browser.py

sim: venv
	$(PY) -m sim

test: venv system-deps
	$(PY) -m pytest -n $(JOBS) -q --durations=15 tests

# Long proofs, beyond `make test`'s samples; .ci/run calls this after `make test`.
# They run long by design: a test may take up to 30 min here (120 s in make test).
proof: proof-journal proof-link proof-keys proof-floor proof-progressive

# The journal cut at every flash write of its scripted session (`make test` runs a sample).
proof-journal: venv
	JOURNAL_PROOF=all $(PY) -m pytest -q -s --timeout=1800 tests/test_journal_proof.py tests/test_board_journal.py -k "proof or cut_after"

check: venv system-deps
	$(PY) -m pytest -q tests/test_static_*.py

# Mutation testing of the firmware (tests/mutation/runner.py); not part of `make test`.
# `make mutate SAMPLE=200` tests a random sample, PER_MODULE=3 a sample from each module; MODULES=table/keypad.py,table/lamps.py narrows it.
mutate: venv
	$(PY) tests/mutation/runner.py --jobs $(JOBS) $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(PER_MODULE),--per-module $(PER_MODULE)) $(if $(SEED),--seed $(SEED)) $(if $(MODULES),--modules $(MODULES))

bench: venv
	$(PY) -m sim bench --write-doc
	$(MAKE) --no-print-directory bench-link
	$(MAKE) --no-print-directory bench-host
	$(MAKE) --no-print-directory bench-heap
	$(MAKE) --no-print-directory bench-floor

# The board's memory budget, scenario by scenario: the smallest heap each needs,
# the heaps the tests run it at and the deepest C stack; rewrites docs/board.md's table
# on the unix port, the 32-bit estimate and the margin (docs/board.md, Memory).
bench-heap: venv
	$(PY) tests/heap_budget.py --write-doc

# host_tools on the virtual board: deploy time, request round trip, journal sync rate (build/host_bench.json).
bench-host: venv
	$(PY) -m bench.host_bench --write-doc

# The serial link core's throughput and memory on both runtimes (build/link_bench.json).
bench-link: venv
	$(PY) -c "from sim.paths import bootstrap; bootstrap(); from sim.analysis import link_bench; link_bench.main(['--write-doc'])"

# The floor's figures: key press -> recorder and -> retained state, events per
# second per table, 1/10/50 tables, catch-up after a broker restart (build/floor_bench.json);
# key press -> alert visible in the pit page's browser (build/page_bench.json);
# the progressive: hit -> PENDING on the meter topic, contributions/s (build/progressive_bench.json),
# and where every contributed cent goes over 20,000 hits per game (build/progressive_money.json).
# Past one machine: the recorder on SQLite and PostgreSQL, pits bridged, two recorders, the controller's
# takeover, a bridge cut (build/scale_bench.json). Then doc_figures writes every table of them into the
# generated sections of docs/floor.md, docs/progressive.md and docs/odds.md.
bench-floor: venv mosquitto browser postgresql
	$(PY) -m bench.floor.floor_bench
	$(PY) -m bench.floor.page_bench
	$(PY) -m bench.floor.progressive_bench
	$(PY) -m bench.floor.progressive_money --paytable FUP=PT-BJS-FUP-05
	$(PY) -m bench.floor.scale_bench
	$(PY) -m bench.floor.doc_figures

# >= 10,000 events across 3 tables through broker, gateway and board faults; and >= 10,000 across
# 2 pits of 2 tables bridged to the floor, into PostgreSQL by two recorders, through pit broker,
# bridge, recorder and PostgreSQL kills (`make test` runs a sample of each).
proof-floor: venv mosquitto postgresql
	FLOOR_PROOF=all $(PY) -m pytest -q -s --timeout=3600 tests/test_floor_proof.py tests/test_floor_bridged_proof.py

# The linked progressive: >= 10,000 hands of random dice at 3 tables with forced
# near-simultaneous hits, through controller, broker and gateway faults; the
# meters equal the tables' records' replay to the cent (`make test` plays 300 hands).
proof-progressive: venv mosquitto
	HANDS=10000 $(PY) -m pytest -q -s --timeout=3600 tests/test_progressive_proof.py

# A whole floor on this machine: broker, TABLES virtual boards, a gateway each,
# the recorder (docs/floor.md). Ctrl-C stops it all. A second one says so and exits.
# PITS=2: the tables split over two pit brokers bridged to the floor's (docs/floor.md, Pits).
# DB=postgresql://…: the record there; PG=1: on a PostgreSQL started for this floor and removed after;
# STANDBY=1 (with either): two recorders and a standby progressive controller (docs/floor.md, `make floor`).
TABLES ?= 3
floor: venv mosquitto $(if $(PG),postgresql)
	@$(PY) -m $(if $(PG),bench.floor.pg_floor,host_tools floor up) --tables $(TABLES) $(if $(KEYS),--keys "$(KEYS)") $(if $(METRICS_PORT),--metrics-port $(METRICS_PORT)) $(if $(PITS),--pits $(PITS)) $(if $(DB),--db "$(DB)") $(if $(STANDBY),--standby) || { s=$$?; test $$s = 5 -o $$s = 130; }

# 10**6 random and mutated frames through the link core (`make test` runs 20,000).
proof-link: venv
	LINK_FUZZ_FRAMES=1000000 $(PY) -m pytest -n $(JOBS) -q --timeout=1800 tests/test_link_fuzz.py -k seeded_fuzz

# A 20,000-roll key script played whole on both runtimes (`make test` plays 2,000).
proof-keys: venv
	KEY_SCRIPT_ROLLS=20000 $(PY) -m pytest -n $(JOBS) -q --timeout=1800 tests/test_vm_inputs.py -k long_key_script

# Compile the firmware and put it on the board at PORT (host_tools/README.md):
# `make deploy PORT=/dev/ttyUSB0 [CONFIG=config.json] [KEY=board.key]`.
deploy: venv
	@test -n "$(PORT)" || { echo "make deploy: give the board's serial port, e.g. make deploy PORT=/dev/ttyUSB0" >&2; exit 2; }
	$(PY) -m host_tools deploy --port "$(PORT)" $(if $(CONFIG),--config "$(CONFIG)") $(if $(KEY),--key "$(KEY)")

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .ruff_cache
