import collections
import os
from pathlib import Path

import httpx._transports.default as httpx_transports
import pytest
from hypothesis import HealthCheck, settings

from tests import kinds
from tests.clock import FakeClock

# Solver calls vary in time with the machine's load; correctness, not speed, is
# what these tests check. make test and CI run the same examples every time ("ci");
# make check runs a quarter of them, also fixed ("check": the edit loop's, which must stay quick);
# "stress" is for a long bug hunt by hand: make explore.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=400)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.register_profile("check", parent=settings.get_profile("ci"), max_examples=100)
settings.register_profile("stress", parent=settings.get_profile("default"), max_examples=5000)
settings.load_profile(os.environ.get("KABOOM_HYPOTHESIS") or ("ci" if os.environ.get("CI") else "default"))


# One TLS context for every httpx client of the run: httpx makes one per client, loading the CA bundle (25 ms of
# processor time), and the tests make thousands of clients, each to a plain-http test server (a server's start is
# polled every 0.1 s with one client a poll). Measured with py-spy over the suite: a tenth of its Python time.
_make_ssl_context = httpx_transports.create_ssl_context
_SHARED_SSL_CONTEXT = _make_ssl_context()


def _shared_ssl_context(verify=True, cert=None, trust_env=True):
    if verify is True and cert is None and trust_env:
        return _SHARED_SSL_CONTEXT
    return _make_ssl_context(verify=verify, cert=cert, trust_env=trust_env)


httpx_transports.create_ssl_context = _shared_ssl_context


# No test writes into the working tree (a server's key, a database): what a run may leave there is caches alone.
ROOT = Path(__file__).resolve().parent.parent
LEFT_BY_RUNS = {".git", ".venv", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache", "__pycache__", "build"}
TREE = pytest.StashKey[set[str]]()


def files_in_the_tree() -> set[str]:
    found = set()
    for folder, folders, names in os.walk(ROOT):
        folders[:] = [name for name in folders if name not in LEFT_BY_RUNS and not name.endswith(".egg-info")]
        found.update(os.path.relpath(os.path.join(folder, name), ROOT) for name in names)
    return found


def pytest_sessionstart(session):
    kinds.watch_processes()
    if not hasattr(session.config, "workerinput"):  # the run as a whole: its workers share the tree
        session.config.stash[TREE] = files_in_the_tree()


def pytest_sessionfinish(session, exitstatus):
    before = session.config.stash.get(TREE, None)
    if before is None:
        return
    written = sorted(files_in_the_tree() - before)
    if written:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(f"the tests wrote into the working tree: {', '.join(written[:10])}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# ----- what a test starts: a marker per kind (tests/kinds.py), and make check runs the tests with none -----------
# The fixtures that start one mark every test that uses them, through other fixtures too (page, open_page).
KIND_OF_FIXTURE = {"server": "server", "browser": "browser", "redis_url": "redis"}


# make test's workers take a file at a time (--dist loadfile), in the order of the items: the longest files
# first, so that no worker is left with one at the end while the others wait (measured with --durations,
# each 10-80 s of one worker; the rest take seconds each and fill in).
LONGEST_FILES = [
    "test_browser_axe.py",
    "test_browser_flags.py",
    "test_hosting.py",
    "test_browser_rooms.py",
    "test_first_minutes.py",
    "test_docker.py",
    "test_limits.py",
    "test_layout.py",
    "test_solver_properties.py",
    "test_browser.py",
    "test_flags_adviser.py",
    "test_browser_classic.py",
    "test_fuzz.py",
    "test_live_updates.py",
    "test_lookahead.py",
    "test_tournament.py",
    "test_review_bot.py",
    "test_rooms.py",
    "test_faults.py",
]


def pytest_configure(config):
    # xdist would otherwise put the files with the most tests first (many quick tests: test_store.py).
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    for kind in kinds.KINDS:
        config.addinivalue_line("markers", f"{kind}: the test starts a {kind} (tests/kinds.py); make check skips it")


def pytest_collection_modifyitems(config, items):
    tests_in = collections.Counter(item.path.name for item in items)
    rank = {name: place for place, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: (rank.get(item.path.name, len(rank)), -tests_in[item.path.name], item.path.name))
    for item in items:
        for fixture, kind in KIND_OF_FIXTURE.items():
            if fixture in item.fixturenames:
                item.add_marker(kind)


def marks_hold(item, phase: str):
    kinds.started.clear()
    result = yield
    if unmarked := sorted(kind for kind in kinds.started if item.get_closest_marker(kind) is None):
        raise AssertionError(
            f"{phase} started a {', '.join(unmarked)}, and the test is not marked so: mark it (pytest.mark.KIND, or"
            " its module's pytestmark), so that make check leaves it out (tests/kinds.py)"
        )
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    # A module's fixtures start with its first test: that test carries their markers, as every test using them does.
    return (yield from marks_hold(item, "its setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from marks_hold(item, "the test"))


def pytest_addoption(parser):
    parser.addoption(
        "--deal-seeds",
        type=int,
        default=1,
        help="run every test that deals boards (it takes the deal_seed fixture) once per seed, over this many seeds",
    )
    parser.addoption("--first-deal-seed", type=int, default=0, help="the first of those seeds")


def pytest_generate_tests(metafunc):
    # A test that deals takes `deal_seed`: one seed by default, so a run is
    # repeatable; --deal-seeds 200 proves it holds for every deal, not one.
    if "deal_seed" in metafunc.fixturenames:
        first = metafunc.config.getoption("first_deal_seed")
        count = metafunc.config.getoption("deal_seeds")
        metafunc.parametrize("deal_seed", range(first, first + count), ids=lambda seed: f"deal{seed}")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


# ----- a live server per test module, dealing from a seeded source ----------------------
# A module that plays on it marks its tests with `pytestmark = pytest.mark.usefixtures("seeded")`
# and may set SERVER_SETTINGS (Settings fields) for its server.


@pytest.fixture(scope="module")
def deals():
    from app.service import Deals

    return Deals(seed=0)


@pytest.fixture(scope="module")
def database(tmp_path_factory, request):
    return tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]) / "games.sqlite3"


@pytest.fixture(scope="module")
def server(database, deals, request):
    from tests.live import live_server

    with live_server(database, deals=deals, **getattr(request.module, "SERVER_SETTINGS", {})) as url:
        yield url


@pytest.fixture
def small_dailies(monkeypatch):
    """Boards of the day on Beginner boards (app.results.daily.DailyBoard.size): a ladder's rules are the same on any
    size, and an Expert board played to its end move by move costs seconds a game."""
    monkeypatch.setattr("app.results.daily.DAILY_SIZE", (9, 9, 10))


@pytest.fixture
def seeded(deals, deal_seed):
    """Every deal of the test comes from its seed, so a run can be repeated and any seed tried."""
    deals.reseed(deal_seed)


# ----- the store contract's backends (tests/test_store.py), for every test of a store ----------


@pytest.fixture(scope="module")
def redis_url():
    from tests.redis_server import redis_server

    with redis_server() as url:
        yield url


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request, tmp_path, clock):
    """Each store in turn, with what its tests need to know of how it keeps games (tests.test_store.Backend)."""
    from tests.test_store import MemoryBackend, RedisBackend, SQLiteBackend

    if request.param == "memory":
        backend = MemoryBackend(clock)
    elif request.param == "sqlite":
        backend = SQLiteBackend(clock, tmp_path / "games.sqlite3")
    else:
        backend = RedisBackend(clock, request.getfixturevalue("redis_url"))
    yield backend
    backend.close()


@pytest.fixture
def store(backend):
    return backend.store


# ----- a real Chromium (Debian's, driven by Playwright) for the browser tests -----------


@pytest.fixture(scope="module")
def browser():
    # Imported only here, once a test asks for a browser: without Chromium (or Playwright) that test skips,
    # or fails under make test, and the other tests of its module still run.
    from tests.browser_pool import ContextPool
    from tests.live import seconds
    from tests.test_browser import launch_chromium, playwright_api

    with kinds.starting("browser"):
        playwright = playwright_api.sync_playwright().start()
    try:
        with kinds.starting("browser"):
            browser = launch_chromium(playwright)
        # Playwright's own default wait (30 s), scaled as every limit here is, for every context a test opens; a
        # context a test closes is wiped and opened again for the next (tests/browser_pool.py).
        browser.new_context = ContextPool(browser.new_context, seconds(30) * 1000).open
        yield browser
        browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def page(browser, server):
    """A page of the module's server in a fresh 1200x900 browser context; its script must raise nothing."""
    # Playwright's waiting helpers evaluate strings in the page, which the
    # CSP forbids; test_the_page_runs_under_its_content_security_policy plays
    # with the policy in force.
    context = browser.new_context(base_url=server, viewport={"width": 1200, "height": 900}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture
def open_page(browser, server):
    """Opens pages, each in a fresh browser context of the given size (and other context options: a
    colour scheme, a time zone); the page's script must raise nothing."""
    contexts, errors = [], []

    def open_(size: dict, scheme: str = "light", **options):
        # bypass_csp: Playwright's waiting helpers evaluate strings, which the page's policy forbids. Among the
        # options, init_script: a script's path, run in every document of the context (tests/browser_pool.py).
        context = browser.new_context(base_url=server, color_scheme=scheme, bypass_csp=True, **size, **options)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield open_
    for context in contexts:
        context.close()
    assert not errors, errors
