# `make run` and `make test` work on a fresh machine: they create .venv and install what they need.
# `make run` installs only what serving needs; the other targets add the test, lint and bench tools.
# `make bench` prints the performance figures (about 5 minutes; `make bench BENCH_ARGS=--quick` for a
# short run); `make soak` holds a server under mixed load beside idle connections, long-polls and
# webhook receivers that never answer (about 5 minutes; `make soak SOAK_ARGS='--seconds 10'`).
# Both drive load with wrk, installed from Debian (apt-get) when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip -qq --disable-pip-version-check
SERVE_STAMP := $(VENV)/.installed-serve
DEV_STAMP := $(VENV)/.installed-dev
EXAMPLE := examples/checkout
EXAMPLE_PACKAGES := $(EXAMPLE)/node_modules/.package-lock.json

.PHONY: run test lint format bench soak wrk chromium example e2e fuzz clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(SERVE_STAMP): setup.cfg setup.py pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $(SERVE_STAMP)

$(DEV_STAMP): setup.cfg setup.py pyproject.toml | $(BIN)/python
	$(PIP) install --upgrade pip
	$(PIP) install -e '.[test,lint,bench]'
	touch $(SERVE_STAMP) $(DEV_STAMP)

run: $(SERVE_STAMP)
	$(BIN)/mocksrv serve

test: $(DEV_STAMP) chromium $(EXAMPLE_PACKAGES)
	$(BIN)/python -m pytest

e2e: $(DEV_STAMP) chromium $(EXAMPLE_PACKAGES)
	$(BIN)/python -m pytest tests/e2e

# The example shop of examples/checkout, next to `make run`: http://127.0.0.1:4242 (/react: React).
example: $(SERVE_STAMP) $(EXAMPLE_PACKAGES)
	$(BIN)/python $(EXAMPLE)/app.py

# The React page's packages (React, ReactDOM, the real SDK's React wrapper), from the npm registry.
$(EXAMPLE_PACKAGES): $(EXAMPLE)/package.json $(EXAMPLE)/package-lock.json
	cd $(EXAMPLE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Chromium for the browser tests (Playwright drives Debian's build; it cannot download its own here).
chromium:
	$(call apt_install,chromium)

# Install the Debian package $(1) when the command of that name is missing: as root, or with sudo.
define apt_install
	@command -v $(1) >/dev/null || { \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
		$$SUDO apt-get install -y $(1) || { $$SUDO apt-get update && $$SUDO apt-get install -y $(1); } \
		|| { echo "this target needs Debian's $(1) package: run 'apt-get install $(1)' as root" >&2; exit 1; }; }
endef

# The contract fuzz of `make test` with far more generated requests per route (FUZZ_EXAMPLES each).
FUZZ_EXAMPLES ?= 2000
fuzz: $(DEV_STAMP)
	MOCKSRV_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -n 2 tests/api/test_contract_fuzz.py

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(DEV_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

BENCH_ARGS ?=
SOAK_ARGS ?=

# wrk, the load generator of `make bench` and `make soak`: the Debian package, installed when missing.
wrk:
	$(call apt_install,wrk)

bench: $(DEV_STAMP) wrk
	$(BIN)/python bench/bench.py $(BENCH_ARGS)

soak: $(DEV_STAMP) wrk
	$(BIN)/python bench/soak.py $(SOAK_ARGS)

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .pytest_cache .ruff_cache
