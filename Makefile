# Set-up and everyday commands. `make sim` and `make test` build .venv themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
STUBS  := $(VENV)/esp32-stubs
STUBS_STAMP := $(STUBS)/.installed
JOBS   ?= 2

.PHONY: all venv sim test check bench mutate clean

all: test

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(STUBS_STAMP): requirements-stubs.txt $(STAMP)
	$(PY) -m pip install --quiet --no-deps --upgrade --target $(STUBS) -r requirements-stubs.txt micropython-stdlib-stubs==1.29.0.post2
	touch $@

venv: $(STAMP) $(STUBS_STAMP)

sim: venv
	$(PY) -m sim

test: venv
	$(PY) -m pytest -n $(JOBS) -q tests

check: venv
	$(PY) -m pytest -q tests/test_static_*.py

# Mutation testing of the firmware (tests/mutation/runner.py); not part of `make test`.
# `make mutate SAMPLE=200` tests a random sample; MODULES=keypad.py,lamps.py narrows it.
mutate: venv
	$(PY) tests/mutation/runner.py --jobs $(JOBS) $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(SEED),--seed $(SEED)) $(if $(MODULES),--modules $(MODULES))

bench: venv
	$(PY) -m sim bench

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .ruff_cache
