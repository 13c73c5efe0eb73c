"""End to end: a real Chromium (Debian's, driven by Playwright) against a real server."""

from __future__ import annotations

import os
import shutil

import pytest

from app.core.board import Board
from solver import Analyzer, Position
from solver.strategy import progress_cell
from tests.live import put_position, wait_until
from tests.test_api import covered

# The browser fixture (conftest.py) takes Playwright and Chromium from here, and with them the skip below.
playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = os.environ.get("KABOOM_CHROMIUM", "/usr/bin/chromium")
# Without the networking flags Chromium keeps trying to reach Google on a machine with no network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Chromium 15x gives every browser context a renderer of its own for the popup of its address bar (a WebUI page
# loaded ahead: 0.4 s of processor time a context, two thirds of what a fresh context costs); a headless page has
# no address bar.
UNUSED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
# The browser tells its command line (CDP's Browser.getBrowserCommandLine) only under automation; nothing of
# Kaboom's reads navigator.webdriver, which it sets.
TELLS_ITS_COMMAND_LINE = "--enable-automation"
_disabled_by_playwright: list[str] = []


def features_disabled(arguments: list[str]) -> list[str]:
    """The features a Chromium command line disables: Chromium reads its last --disable-features alone."""
    lists = [argument.split("=", 1)[1] for argument in arguments if argument.startswith("--disable-features=")]
    return lists[-1].split(",") if lists else []


def disabled_by_playwright(chromium) -> list[str]:
    """The features Playwright disables, read back once a process from a Chromium it launched (`chromium`: its
    BrowserType): a --disable-features of ours replaces Playwright's, so it must carry them."""
    if not _disabled_by_playwright:
        browser = chromium.launch(executable_path=CHROMIUM, headless=True, args=[TELLS_ITS_COMMAND_LINE])
        try:
            arguments = browser.new_browser_cdp_session().send("Browser.getBrowserCommandLine")["arguments"]
        finally:
            browser.close()
        _disabled_by_playwright.extend(features_disabled(arguments))
    return _disabled_by_playwright


def launch_chromium(playwright):
    """Debian's Chromium, headless, as every browser test, benchmark and screenshot drives it."""
    features = ",".join(dict.fromkeys([*disabled_by_playwright(playwright.chromium), *UNUSED_FEATURES]))
    arguments = [*CHROMIUM_ARGS, TELLS_ITS_COMMAND_LINE, f"--disable-features={features}"]
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=arguments)


def _polling_every(milliseconds: int):
    """Playwright's `wait_for_function` with a test's condition looked at every `milliseconds`, unless it says."""
    wait_for_function = playwright_api.Page.wait_for_function

    def waiting(self, expression, *, arg=None, timeout=None, polling=None):
        polling = milliseconds if polling is None else polling
        return wait_for_function(self, expression, arg=arg, timeout=timeout, polling=polling)

    return waiting


# By default `wait_for_function` looks at its condition at every frame the page draws, which makes Chromium draw
# 60 frames a second while a test waits (a tenth of a core, measured), and the browser tests wait minutes in all.
playwright_api.Page.wait_for_function = _polling_every(20)


if not (shutil.which(CHROMIUM) or os.path.exists(CHROMIUM)):
    # `make test` installs Chromium and sets KABOOM_REQUIRE_BROWSER: there a missing browser is a failure.
    if os.environ.get("KABOOM_REQUIRE_BROWSER"):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: install Debian's chromium package")
    pytest.skip(f"no Chromium at {CHROMIUM} (make test installs it)", allow_module_level=True)


pytestmark = pytest.mark.usefixtures("seeded")
# Run over many seeds (--deal-seeds) the tests create many games from one address.
SERVER_SETTINGS = {"create_limit": 100_000}


def start(page, preset="beginner"):
    page.goto("/")
    page.click(f'button[value="cruel {preset}"]')
    page.wait_for_selector("#grid")


def start_custom(page, width: int, height: int, mines: int) -> None:
    page.goto("/")
    page.select_option("select[name=mode]", "cruel")
    page.fill("input[name=width]", str(width))
    page.fill("input[name=height]", str(height))
    page.fill("input[name=mines]", str(mines))
    page.click("button[value=custom]")
    page.wait_for_selector("#grid")


def version(page) -> int:
    return int(page.get_attribute("#version", "value"))


def act(page, do) -> None:
    """Do something that sends one move, and wait until its answer is on the page."""
    before = version(page)
    do()
    settled(page, f"Number(document.getElementById('version').value) > {before}")


def settled(page, condition: str) -> None:
    # htmx shows swapped cells with their old attributes until it settles them.
    page.wait_for_function(f"({condition}) && !document.querySelector('.htmx-settling, .htmx-request')")


def analysis(page) -> list[str]:
    game_id = page.get_attribute("#board", "data-game")
    return page.evaluate(f"fetch('/api/games/{game_id}/analysis').then(r => r.json()).then(j => j.status)")


def classes(page, x, y) -> str:
    return page.get_attribute(f"#c-{x}-{y}", "class")


def reveal(page, game_id: str, x: int, y: int) -> dict:
    """A reveal through the JSON API with the page's cookie: the game as the answer shows it."""
    answer = page.request.post(f"/api/games/{game_id}/moves", data={"action": "reveal", "x": x, "y": y})
    assert answer.ok, answer.text()
    return answer.json()


def play_out(page, answer: dict) -> dict:
    """From a game's answer, the first covered cell each time until the game ends (lost, mostly): its answer."""
    while answer["status"] == "playing":
        answer = reveal(page, answer["id"], *covered(answer["board"]))
    return answer


def next_cell(page) -> tuple[int, int]:
    """The cell a cruel-but-fair player opens next (solver.strategy): the rules make it safe."""
    game_id = page.get_attribute("#board", "data-game")
    game = page.evaluate(f"fetch('/api/games/{game_id}').then(r => r.json())")
    cell = progress_cell(Analyzer(Position(game["width"], game["height"], game["mines"], tuple(game["board"]))))
    assert cell is not None, game["board"]
    return cell


def test_preset_reveal_and_right_click_flag_without_a_context_menu(page):
    start(page)
    assert page.locator("#grid [role=gridcell]").count() == 81
    act(page, lambda: page.click("#c-4-4"))
    assert "u" not in classes(page, 4, 4).split()
    assert page.inner_text("#state") == "Playing"
    covered = next((x, y) for y, row in enumerate(analysis(page)) for x, s in enumerate(row) if s in "sm?")
    page.evaluate(
        "() => { window.menuPrevented = null; window.addEventListener('contextmenu', "
        "e => { window.menuPrevented = e.defaultPrevented; }, {once: true}); }"
    )
    act(page, lambda: page.click(f"#c-{covered[0]}-{covered[1]}", button="right"))
    assert page.evaluate("window.menuPrevented") is True
    assert "f" in classes(page, *covered).split()
    assert page.inner_text("#mines-left") == "9"


def on_position(page, database, rows: list[str], mines: int) -> None:
    """Play on from a hand-made position (put in the store), so the test needs no lucky deal."""
    start(page)
    put_position(database, page.get_attribute("#board", "data-game"), rows, mines)
    page.reload()
    page.wait_for_selector("#grid")


def test_chord_on_a_satisfied_number(page, database):
    # The lower 1s put the mine at (1, 1): flagged, it satisfies the 1 at (1, 2), whose other neighbours are safe.
    on_position(page, database, ["1....", "1....", "11..."], mines=3)
    rows = analysis(page)
    board = Board(len(rows[0]), len(rows))
    x, y = 1, 2
    around = [board.cell(n) for n in board.neighbours(board.index(x, y))]
    mines = [c for c in around if rows[c[1]][c[0]] == "m"]
    safe = [c for c in around if rows[c[1]][c[0]] == "s"]
    assert mines == [(1, 1)] and safe == [(2, 1), (2, 2)]
    for mx, my in mines:
        act(page, lambda mx=mx, my=my: page.click(f"#c-{mx}-{my}", button="right"))
    act(page, lambda: page.click(f"#c-{x}-{y}"))
    for sx, sy in safe:
        assert "u" not in classes(page, sx, sy).split()


def test_keyboard_only(page):
    start(page)
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "grid":
            break
    assert page.evaluate("document.activeElement.id") == "grid"
    for _ in range(4):
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowDown")
    assert "cur" in classes(page, 4, 4).split()
    act(page, lambda: page.keyboard.press("Enter"))
    assert "u" not in classes(page, 4, 4).split()
    target = next((x, y) for y, row in enumerate(analysis(page)) for x, s in enumerate(row) if s in "sm?")
    for axis, (less, more) in enumerate((("ArrowLeft", "ArrowRight"), ("ArrowUp", "ArrowDown"))):
        for _ in range(abs(target[axis] - 4)):
            page.keyboard.press(less if target[axis] < 4 else more)
    assert "cur" in classes(page, *target).split()
    act(page, lambda: page.keyboard.press(" "))
    assert "f" in classes(page, *target).split()
    act(page, lambda: page.keyboard.press("u"))
    assert "f" not in classes(page, *target).split()
    page.keyboard.press("h")
    settled(page, "document.getElementById('hints').textContent === '1'")
    assert page.get_attribute("#hint", "data-cell") == ""
    page.keyboard.press("s")
    settled(page, "document.getElementById('hints').textContent === '2'")
    highlighted = page.locator("#grid .c.hl")
    # Whatever the deal: a proven-safe cell, when there is one, is shown; none is shown otherwise.
    if any("s" in row for row in analysis(page)):
        assert "safe" in page.get_attribute("#hint", "class").split()
        assert highlighted.count() == 1 and "u" in highlighted.get_attribute("class").split()
        hx, hy = (int(part) for part in highlighted.get_attribute("id").split("-")[1:])
        assert analysis(page)[hy][hx] == "s"
    else:
        assert highlighted.count() == 0
    assert page.evaluate("document.activeElement.id") == "grid"


def test_a_click_after_scrolling_a_big_board_reveals_the_cell_pressed(browser, server):
    """Issue 9 #1: the press focused the board, the board scrolled its cursor into view, and the
    release fell on another cell: nothing was revealed and the board jumped to the top-left."""
    context = browser.new_context(base_url=server, viewport={"width": 1366, "height": 650}, bypass_csp=True)
    page = context.new_page()
    try:
        start_custom(page, 100, 100, 2000)
        # As in the report: the board without focus, its cursor (top-left) scrolled out of view.
        page.evaluate("document.activeElement.blur()")
        point = (400, 400)
        page.mouse.move(*point)
        page.mouse.wheel(0, 800)
        scrolls = (
            "[window.scrollX, window.scrollY, "
            "document.getElementById('board').scrollLeft, document.getElementById('board').scrollTop]"
        )
        wait_until(lambda: sum(page.evaluate(scrolls)) >= 700, 10, "the board did not scroll")
        scrolled = page.evaluate(scrolls)
        # The cell nearest the middle of the window, read from the page, not assumed; pressed at its centre.
        pressed, *centre = page.evaluate(
            f"""(() => {{
                const cell = [...document.querySelectorAll('#grid .c')].find(c => {{
                    const r = c.getBoundingClientRect();
                    return r.left <= {point[0]} && {point[0]} < r.right + 1
                        && r.top <= {point[1]} && {point[1]} < r.bottom + 1;
                }});
                const r = cell.getBoundingClientRect();
                return [cell.id, r.left + r.width / 2, r.top + r.height / 2];
            }})()"""
        )
        assert "u" in page.get_attribute(f"#{pressed}", "class").split()
        act(page, lambda: page.mouse.click(*centre))
        assert "u" not in page.get_attribute(f"#{pressed}", "class").split()
        assert page.evaluate(scrolls) == scrolled
    finally:
        context.close()


def test_keys_go_to_the_board_after_a_setting_or_a_button_is_clicked(page):
    """Issue 9 #6: H, S, U and Space did nothing, or the wrong thing, once a setting or a button had been clicked."""
    start(page)
    act(page, lambda: page.click("#c-4-4"))
    act(page, lambda: page.click("#options input[name=countdown]"))
    page.keyboard.press("h")
    settled(page, "document.getElementById('hints').textContent === '1'")
    act(page, lambda: page.click("#hint-button"))
    assert page.inner_text("#hints") == "2"
    # Space now flags at the board's cursor; it does not press Hint again.
    assert page.evaluate("document.activeElement.id") == "grid"
    covered = next((x, y) for y, row in enumerate(analysis(page)) for x, s in enumerate(row) if s in "sm?")
    cursor = [int(part) for part in page.get_attribute("#grid .c.cur", "id").split("-")[1:]]
    for axis, (less, more) in enumerate((("ArrowLeft", "ArrowRight"), ("ArrowUp", "ArrowDown"))):
        for _ in range(abs(covered[axis] - cursor[axis])):
            page.keyboard.press(less if covered[axis] < cursor[axis] else more)
    assert "cur" in classes(page, *covered).split()
    act(page, lambda: page.keyboard.press(" "))
    assert "f" in classes(page, *covered).split() and page.inner_text("#hints") == "2"
    act(page, lambda: page.keyboard.press("u"))
    assert "f" not in classes(page, *covered).split()


def test_debug_overlay_colours_every_covered_cell(page):
    start(page)
    act(page, lambda: page.click("#c-4-4"))
    act(page, lambda: page.check("input[name=debug_overlay]"))
    covered = page.locator("#grid .c.u")
    shown = page.locator("#grid .c.u.os, #grid .c.u.om, #grid .c.u.ou")
    assert covered.count() > 0 and shown.count() == covered.count()
    rows = analysis(page)
    for y, row in enumerate(rows):
        for x, status in enumerate(row):
            if status in "sm?":
                assert {"s": "os", "m": "om", "?": "ou"}[status] in classes(page, x, y).split()


def test_lose_then_undo(page, database):
    # Both mines next to the 2: the count proves the right column safe, so a guess beside the 2 is a mine.
    on_position(page, database, ["2..", "..."], mines=2)
    rows = analysis(page)
    assert rows == ["2?s", "??s"]
    x, y = 1, 0
    act(page, lambda: page.click(f"#c-{x}-{y}"))
    assert page.inner_text("#state") == "Lost"
    assert "x" in classes(page, x, y).split()
    assert "was a mine" in page.inner_text("#result")
    act(page, lambda: page.keyboard.press("u"))
    assert page.inner_text("#state") == "Playing"
    assert "u" in classes(page, x, y).split()
    assert page.locator("#grid .c.m").count() == 0


def test_win_a_small_custom_game(page):
    start_custom(page, 6, 5, 4)
    for _ in range(40):
        if page.inner_text("#state") == "Won":
            break
        cell = next_cell(page)
        act(page, lambda cell=cell: page.click(f"#c-{cell[0]}-{cell[1]}"))
    assert page.inner_text("#state") == "Won"
    assert page.inner_text("#result").startswith("You won in")
    assert page.locator("#grid .c.m, #grid .c.f").count() == 4


def test_reload_mid_game_and_rapid_clicks(page):
    start(page, "intermediate")
    act(page, lambda: page.click("#c-8-8"))
    rows = analysis(page)
    safe = [(x, y) for y, row in enumerate(rows) for x, s in enumerate(row) if s == "s"][:6]
    # Proven mines only: a click on a number that an earlier flood opened chords when its flags
    # match it, and over a flag that could be wrong a chord could lose the game.
    covered = [(x, y) for y, row in enumerate(rows) for x, s in enumerate(row) if s == "m"][:3]
    # Count the moves the page sends, not the clicks: a click on a cell an earlier flood opened
    # sends nothing (a zero, an unsatisfied number) or a chord.
    page.evaluate(
        "() => { window.sent = 0; window.answers = 0;"
        " document.getElementById('board').addEventListener('kaboom:move', () => window.sent++);"
        " document.body.addEventListener('htmx:afterRequest', () => window.answers++); }"
    )
    # Clicks faster than answers: queued, applied in order, none lost.
    for x, y in covered:
        page.click(f"#c-{x}-{y}", button="right")
    for x, y in safe:
        page.click(f"#c-{x}-{y}")
    settled(page, "window.answers === window.sent")
    # Every flag went out, and the first reveal at least (its cell was still covered).
    assert page.evaluate("window.sent") >= len(covered) + min(1, len(safe))
    looks = "[...document.querySelectorAll('#grid .c')].map(c => c.className.replace(' cur', '') + c.textContent)"
    board = page.evaluate(looks)
    for x, y in covered:
        assert "f" in classes(page, x, y).split()
    for x, y in safe:
        assert "u" not in classes(page, x, y).split()
    page.reload()
    page.wait_for_selector("#grid")
    again = page.evaluate(looks)
    assert again == board


def test_the_page_runs_under_its_content_security_policy(browser, server):
    context = browser.new_context(base_url=server)
    page = context.new_page()
    complaints: list[str] = []
    page.on(
        "console",
        lambda message: complaints.append(message.text) if "Content Security Policy" in message.text else None,
    )
    page.on("pageerror", lambda error: complaints.append(str(error)))
    page.goto("/")
    page.click('button[value="cruel beginner"]')
    page.wait_for_selector("#grid")

    def wait_for_version(expected: str) -> None:
        # Also until htmx has settled: swapped cells keep their old class for a moment.
        state = "[document.getElementById('version').value, !!document.querySelector('.htmx-settling')]"
        wait_until(
            lambda: page.evaluate(state) == [expected, False],
            20,
            lambda: f"[version, settling] is {page.evaluate(state)}, not [{expected!r}, False], after 20 s",
            every=0.05,
        )

    page.click("#c-4-4")
    wait_for_version("1")
    # A cell the first reveal left covered (a flood may have opened any other).
    covered = page.evaluate("document.querySelector('#grid .c.u').id")
    page.click(f"#{covered}", button="right")
    wait_for_version("2")
    headers = page.request.get("/").headers
    assert (
        "'unsafe-eval'" not in headers["content-security-policy"]
        and "frame-ancestors 'none'" in headers["content-security-policy"]
    )
    context.close()
    assert not complaints, complaints


def test_a_network_failure_and_a_server_error_say_so_on_one_line(page):
    """Issue 24 #8: every failure the page hears of is told on the panel's one message line, which the next
    failure replaces (network failures used to add a line each)."""
    start(page)
    game_id = page.get_attribute("#board", "data-game")
    page.route(f"**/games/{game_id}/moves", lambda route: route.abort("connectionrefused"))
    for _ in range(3):
        page.click("#c-4-4")
        page.wait_for_function("document.querySelector('#message')?.textContent.includes('cannot be reached')")
    assert page.locator("#panel #message").count() == 1 and page.locator("#panel .message").count() == 1
    page.unroute(f"**/games/{game_id}/moves")
    page.route(f"**/games/{game_id}/moves", lambda route: route.fulfill(status=500, body="<p>no</p>"))
    page.click("#c-4-4")
    page.wait_for_function("document.querySelector('#message')?.textContent.includes('could not apply that (500)')")
    assert page.locator("#panel .message").count() == 1 and page.get_attribute("#message", "role") == "alert"
