# make serve - set up .venv with what serving needs, then run the game server on SQLite for
#              this computer only (http://localhost:8000/)
# make party - the same, for friends on your Wi-Fi: listens on all interfaces and prints the
#              addresses to share, with a QR code for phones (dudo serve --lan)
# make test  - add the test tools to .venv, then lint and check the format (ruff), lint the
#              browser client (Biome, from npm), type-check (mypy, strict) and test (pytest)
# make bench - the engine benchmark against OpenSpiel: prints the figures (docs/benchmarks.md
#              records them, with the command)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

HOST ?= 127.0.0.1
PORT ?= 8000
# pytest-xdist processes for `make unit` (auto: one per core; WORKERS=0 runs in one process);
# a process that runs out of tests takes some from the other (--dist worksteal); the slowest
# 25 tests are listed at the end, to see where a run's time went
WORKERS ?= auto

.PHONY: serve party test lint types unit bench clean

# Two stamps: serving needs only the package (pip shows its progress); `make test` after
# `make serve` adds only the extras (dev tools, OpenSpiel, the PostgreSQL driver).
$(BIN)/.serve-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -e .
	touch $@

$(BIN)/.test-installed: $(BIN)/.serve-installed
	$(BIN)/python -m pip install -e '.[dev,openspiel,postgres]'
	touch $@

serve: $(BIN)/.serve-installed
	$(BIN)/dudo serve --host $(HOST) --port $(PORT)

party: $(BIN)/.serve-installed
	$(BIN)/dudo serve --lan --port $(PORT)

test: lint types unit

# Biome (the browser client's linter) from npm, pinned by package-lock.json; installed again
# only when the lock file changes.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

lint: $(BIN)/.test-installed node_modules/.installed
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	npx --no-install biome ci src/dudo/web/js

types: $(BIN)/.test-installed
	$(BIN)/mypy

unit: $(BIN)/.test-installed
	$(BIN)/pytest -n $(WORKERS) --dist worksteal --durations=25

bench: $(BIN)/.test-installed
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) node_modules .pytest_cache .mypy_cache .ruff_cache
