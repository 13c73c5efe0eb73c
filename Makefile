# Two commands set everything up on a fresh Debian machine with Python 3.11:
#   make run    creates .venv, installs Kaboom, serves http://127.0.0.1:8000 (games in data/)
#   make test   also installs the test tools, Debian's Chromium and redis-server, then runs the whole suite
# .venv is reinstalled when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CHROMIUM := /usr/bin/chromium
REDIS_SERVER := /usr/bin/redis-server
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HTMX_VERSION ?= 2.0.11

.PHONY: run test bench vendor-htmx clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@ $(VENV)/.installed

# Playwright cannot download browsers here: the end-to-end tests drive Debian's Chromium.
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium

# The Redis store tests start their own redis-server on a free loopback port.
$(REDIS_SERVER):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server

run: $(VENV)/.installed
	$(BIN)/kaboom serve

test: $(VENV)/.installed-test $(CHROMIUM) $(REDIS_SERVER)
	KABOOM_REQUIRE_BROWSER=1 KABOOM_REQUIRE_REDIS=1 KABOOM_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest

bench: $(VENV)/.installed-test
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/web.py
	$(BIN)/python bench/load.py

# htmx stays on 2.0.x: the newest htmx is a rewrite with different defaults.
vendor-htmx:
	cd $$(mktemp -d) && npm pack --silent htmx.org@$(HTMX_VERSION) && tar xzf htmx.org-$(HTMX_VERSION).tgz \
		&& cp package/dist/htmx.min.js $(CURDIR)/static/htmx.min.js
	sha256sum static/htmx.min.js

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
