# Two commands set everything up on a fresh machine: `make test` (and, with the
# server, `make run`). Each creates .venv on first use and reinstalls when
# pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-test
	$(BIN)/python bench/solver.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
