# `make run` and `make test` work on a fresh machine: they create .venv and install what they need.
# `make run` installs only what serving needs; the other targets add the test, lint and bench tools.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip -qq --disable-pip-version-check
SERVE_STAMP := $(VENV)/.installed-serve
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint format bench e2e clean

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

test: $(DEV_STAMP)
	$(BIN)/python -m pytest

e2e: $(DEV_STAMP)
	$(BIN)/python -m pytest tests/e2e

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(DEV_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(DEV_STAMP)
	$(BIN)/python bench/bench.py

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .pytest_cache .ruff_cache
