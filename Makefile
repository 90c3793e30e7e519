# The two set-up commands of the README: `make demo` (the main job) and `make test` (the tests).
PYTHON ?= python3
PIP = $(PYTHON) -m pip

.PHONY: install install-dev demo test lint bench

install:
	$(PIP) install -q -e .

install-dev:
	$(PIP) install -q -e ".[dev]"

demo: install
	minesweeper games --agent solver --games 3 --seed 0

lint:
	$(PYTHON) -m ruff check .

test: install-dev lint
	$(PYTHON) -m pytest

bench: install
	$(PYTHON) benchmarks/bench_env.py
