# Set-up and everyday commands. `make sim` and `make test` build .venv themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
STUBS  := $(VENV)/esp32-stubs
STUBS_STAMP := $(STUBS)/.installed
JOBS   ?= 2

.PHONY: all venv sim test proof check bench clean

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

# Every power-cut point of the journal proof (a sample runs in `make test`).
proof: venv
	JOURNAL_PROOF=all $(PY) -m pytest -q -s tests/test_journal_proof.py

check: venv
	@command -v node >/dev/null || { echo "make check: pyright needs Node.js on PATH (apt-get install nodejs)" >&2; exit 2; }
	$(PY) -m pytest -q tests/test_static_*.py

bench: venv
	$(PY) -m sim bench

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .ruff_cache
