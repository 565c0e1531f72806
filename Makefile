# make serve - set up .venv and run the game server on SQLite (http://localhost:8000/)
# make test  - set up .venv, then lint (ruff), type-check (mypy) and test (pytest)
# make bench - the engine benchmark against OpenSpiel (figures go to docs/benchmarks.md)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: serve test lint types unit bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,openspiel,postgres]'
	touch $@

serve: $(BIN)/.installed
	$(BIN)/dudo serve --host $(HOST) --port $(PORT)

test: lint types unit

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests bench examples

types: $(BIN)/.installed
	$(BIN)/mypy

unit: $(BIN)/.installed
	$(BIN)/pytest

bench: $(BIN)/.installed
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
