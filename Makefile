# Two commands set everything up on a fresh Debian machine with Python 3.11:
#   make run    creates .venv, installs Kaboom, serves http://127.0.0.1:8000 (games in data/)
#   make test   also installs the test tools, Debian's Chromium and redis-server, then lints (ruff),
#               type-checks (mypy) and runs the whole suite, hypothesis drawing the same examples every time
#   make check  the edit loop's tier, under a minute: the lint, the type check, and the tests that start no
#               server, browser, Redis or other process (their markers: tests/kinds.py), on a quarter of
#               hypothesis's examples; make test and CI (.ci/run) run everything
# Both install the exact versions (and hashes) in the lock files, make run from requirements.lock,
# make test from requirements-dev.lock; .venv is brought up to date when either lock or pyproject.toml changes.
#   make explore  runs the property tests on many new random examples (a bug hunt by hand)
#   make lock   regenerates both lock files from pyproject.toml, after an edit to its dependencies
#               (see the lock target below for moving to newer releases)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CHROMIUM := /usr/bin/chromium
REDIS_SERVER := /usr/bin/redis-server
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HTMX_VERSION ?= 2.0.11
SWAGGER_UI_VERSION ?= 5.35.0
HTMX_SSE_VERSION ?= 2.2.4
AXE_VERSION ?= 4.14.1
LOCK_TOOL := $(VENV)/lock-tool
LOCK_FLAGS ?=

.PHONY: run test check explore bench lock messages vendor-htmx vendor-htmx-sse vendor-swagger vendor-axe clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The lock files hold every dependency, so Kaboom itself goes in without any (--no-deps);
# pip check then catches a lock that misses what pyproject.toml asks for (run make lock).
$(VENV)/.installed: requirements.lock pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip check
	touch $@

# requirements-dev.lock pins the runtime dependencies at requirements.lock's versions, so it
# installs everything make run needs too.
$(VENV)/.installed-test: requirements-dev.lock requirements.lock pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip check
	touch $@ $(VENV)/.installed

# Playwright cannot download browsers here: the end-to-end tests drive Debian's Chromium.
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium

# The Redis store tests start their own redis-server on a free loopback port.
$(REDIS_SERVER):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server

# The catalogs (app/web/locales/): every marked message of the Python (gettext, ngettext, pgettext, N_) and of
# the templates (_() and {% trans %}) extracted into messages.pot, then merged into each language's
# messages.po: a new message arrives untranslated, a changed one fuzzy (shown in English until a translator
# confirms it), a removed one goes. tests/test_languages.py fails on either until the catalog is whole again.
# A new language: `$(BIN)/pybabel init -D messages -i $(LOCALES)/messages.pot -d $(LOCALES) -l CODE` (docs/development.md).
LOCALES := app/web/locales
messages: $(VENV)/.installed
	$(BIN)/pybabel --quiet extract --mapping-file babel.cfg --keywords N_ --keywords lazy_gettext --keywords lazy_ngettext:1,2 --keywords setting --add-location file --sort-by-file \
		--project Kaboom --version 1 --copyright-holder "Kaboom's authors" --width 120 --output-file $(LOCALES)/messages.pot .
	$(BIN)/pybabel --quiet update --domain messages --input-file $(LOCALES)/messages.pot --output-dir $(LOCALES) \
		--ignore-obsolete --width 120

run: $(VENV)/.installed
	$(BIN)/kaboom serve

# Three workers, a test file each at a time (pytest-xdist): a file's servers and browsers stay in one
# process. Many tests wait (for a page to hear of a move, a lease to run out, a server to stop), so a third
# worker keeps two cores busy: measured, the suite took 224-235 s on three or four workers against 251-256 s
# on two. TEST_JOBS=0 runs it in one process. make check and make explore wait for nothing: a worker a core.
TEST_JOBS ?= 3
CPU_JOBS ?= 2
# A machine may ask Python to write no bytecode (PYTHONDONTWRITEBYTECODE, as this project's build machines
# do): then every process of a run (each worker, server and command) compiles the project again, and pytest
# rewrites every test module's asserts again: 7.6 s of each worker's collection, 3.1 s with the caches.
# The caches go to __pycache__ (ignored by git; tests/conftest.py allows them in the working tree).
WRITE_BYTECODE := PYTHONDONTWRITEBYTECODE=

# First the lint and the type check (their settings are in pyproject.toml: plain `ruff check .` and
# `mypy` check the same), then the suite. Hypothesis runs tests/conftest.py's "ci" profile: examples
# derived from each test, not drawn at random, so a run that passes passes again.
test: $(VENV)/.installed-test $(CHROMIUM) $(REDIS_SERVER)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(WRITE_BYTECODE) KABOOM_HYPOTHESIS=ci KABOOM_REQUIRE_BROWSER=1 KABOOM_REQUIRE_REDIS=1 KABOOM_CHROMIUM=$(CHROMIUM) \
		$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile

# Tests spread one at a time over the workers (-n, the default distribution): none starts a server to share.
check: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(WRITE_BYTECODE) KABOOM_HYPOTHESIS=check $(BIN)/python -m pytest -n $(CPU_JOBS) -m "not (server or browser or redis or subprocess)"

# The property tests alone (hypothesis marks them) under the "stress" profile: 5,000 random examples
# a property, new ones each run. A bug hunt by hand, not part of make test; a failure prints the
# example and how to reproduce it.
explore: $(VENV)/.installed-test
	KABOOM_HYPOTHESIS=stress $(BIN)/python -m pytest -n $(CPU_JOBS) --dist loadfile -m hypothesis

bench: $(VENV)/.installed-test
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/web.py
	$(BIN)/python bench/load.py

# uv writes the lock files for every platform and every Python from 3.11 on (--universal), with
# the hash of every file, from the package index alone: it does not read pip's configuration.
# It keeps what is already locked wherever pyproject.toml still admits it, so after an edit only
# what the edit needs moves; `make lock LOCK_FLAGS=--upgrade` moves everything to the newest
# releases, `make lock LOCK_FLAGS='--upgrade-package NAME'` one package.
# Pre-releases only where pyproject.toml names one (python-sat), never for what they depend on.
# The dev lock is constrained by the runtime one, so the tests run the versions the image installs.
# uv has a venv of its own so that .venv holds exactly what the locks say.
$(LOCK_TOOL)/bin/uv:
	$(PYTHON) -m venv $(LOCK_TOOL)
	$(LOCK_TOOL)/bin/python -m pip install --quiet 'uv>=0.13,<0.14'

LOCK_COMPILE = UV_CUSTOM_COMPILE_COMMAND='make lock' $(LOCK_TOOL)/bin/uv pip compile --quiet pyproject.toml \
    --universal --python-version 3.11 --prerelease if-necessary-or-explicit --generate-hashes $(LOCK_FLAGS)

lock: $(LOCK_TOOL)/bin/uv
	$(LOCK_COMPILE) --output-file requirements.lock
	$(LOCK_COMPILE) --extra test --extra bench --extra plot --constraint requirements.lock --output-file requirements-dev.lock

# htmx stays on 2.0.x: the newest htmx is a rewrite with different defaults.
vendor-htmx:
	cd $$(mktemp -d) && npm pack --silent htmx.org@$(HTMX_VERSION) && tar xzf htmx.org-$(HTMX_VERSION).tgz \
		&& cp package/dist/htmx.min.js $(CURDIR)/static/htmx.min.js
	sha256sum static/htmx.min.js

# htmx's server-sent events extension (live Flags games), with its licence: the 2.x line made for htmx 2.
vendor-htmx-sse:
	cd $$(mktemp -d) && npm pack --silent htmx-ext-sse@$(HTMX_SSE_VERSION) && tar xzf htmx-ext-sse-$(HTMX_SSE_VERSION).tgz \
		&& cp package/dist/sse.min.js $(CURDIR)/static/htmx-ext-sse.min.js && cp package/LICENSE $(CURDIR)/static/htmx-ext-sse.LICENSE
	sha256sum static/htmx-ext-sse.min.js

# Swagger UI for /docs, served from static/ rather than a CDN: the bundle and its stylesheet,
# with the licence and notices that Apache-2.0 asks to keep beside them; static/docs.js starts it.
SWAGGER_UI_FILES := swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css LICENSE NOTICE
vendor-swagger:
	mkdir -p static/swagger-ui
	cd $$(mktemp -d) && npm pack --silent swagger-ui-dist@$(SWAGGER_UI_VERSION) \
		&& tar xzf swagger-ui-dist-$(SWAGGER_UI_VERSION).tgz \
		&& cd package && cp $(SWAGGER_UI_FILES) $(CURDIR)/static/swagger-ui/
	sha256sum static/swagger-ui/swagger-ui-bundle.js static/swagger-ui/swagger-ui.css

# axe-core, which the browser tests run on every kind of page (tests/test_axe.py); never served. The
# minified file with its licence (MPL-2.0) and its third-party notices.
AXE_FILES := axe.min.js LICENSE LICENSE-3RD-PARTY.txt
vendor-axe:
	mkdir -p tests/vendor/axe-core
	cd $$(mktemp -d) && npm pack --silent axe-core@$(AXE_VERSION) && tar xzf axe-core-$(AXE_VERSION).tgz \
		&& cd package && cp $(AXE_FILES) $(CURDIR)/tests/vendor/axe-core/
	sha256sum tests/vendor/axe-core/axe.min.js

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache build *.egg-info
