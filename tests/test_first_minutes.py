"""A newcomer's first minutes, round two (issue 22), in a real Chromium at a laptop's size (1366x650) and on a
390x844 touch phone: the New game menu mid-game, fixed cell sizes, Back and Forward, the probability tip and
legend, refused settings, double clicks and gaps, a game deleted elsewhere, the layout of small boards, the
rules page, scrolling past a big board, the home page, a win's statistics, touch comfort, Flags and the
accessibility leftovers."""

from __future__ import annotations

import datetime
import json
import random
import sqlite3
from pathlib import Path

import pytest

from app.core.game import Move
from app.modes.flags import Flags
from app.service.kept import KEPT
from app.store.sqlite import SQLiteStore
from solver.generate import bbbv
from tests.live import put_layout, put_position
from tests.test_browser import act, analysis, classes, settled, start_custom
from tests.test_layout import LAPTOP, PHONE, rect

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000}
SIZES = pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])


def new_game(page, mode: str = "cruel", preset: str = "beginner") -> str:
    page.goto("/")
    page.click(f'button[value="{mode} {preset}"]')
    page.wait_for_selector("#grid")
    return page.get_attribute("#board", "data-game")


def on_layout(page, database: Path, mode: str, layout: list[str]) -> str:
    """A game of `mode` on a hand-made fixed layout ('*' a covered mine, '.' covered and safe, 'o' open)."""
    game_id = new_game(page, mode)
    put_layout(database, game_id, layout)
    page.reload()
    page.wait_for_selector("#grid")
    return game_id


def win(page) -> None:
    """Open proven-safe cells (the solver reads what the page shows) until the game is won."""
    for _ in range(20):
        if page.inner_text("#state") == "Won":
            return
        x, y = next((x, y) for y, row in enumerate(analysis(page)) for x, status in enumerate(row) if status == "s")
        act(page, lambda x=x, y=y: page.click(f"#c-{x}-{y}"))
    assert page.inner_text("#state") == "Won"


def pause(page) -> None:
    """Stop the page's clock (installed by the test) a second ahead of where it is (it runs on meanwhile,
    and cannot be stopped in its past): its timers then run only when the test says."""
    ahead = page.evaluate("Date.now()") / 1000 + 1
    page.clock.pause_at(datetime.datetime.fromtimestamp(ahead, datetime.UTC))


def tap(page, selector: str, touch: bool) -> None:
    page.tap(selector) if touch else page.click(selector)


def api(page, game_id: str) -> dict:
    answer = page.request.get(f"/api/games/{game_id}")
    assert answer.ok, answer.text()
    return answer.json()


def shown(page) -> tuple[str, int, int, int]:
    """The mode and size of the game the page shows, as the server has it."""
    game = api(page, page.get_attribute("#board", "data-game"))
    return game["mode"], game["width"], game["height"], game["mines"]


def inside(box: dict, frame: dict, slack: float = 0.5) -> bool:
    return (
        frame["left"] - slack <= box["left"]
        and box["right"] <= frame["right"] + slack
        and frame["top"] - slack <= box["top"]
        and box["bottom"] <= frame["bottom"] + slack
    )


def in_view(page, selector: str) -> bool:
    size = page.viewport_size
    return inside(rect(page, selector), {"left": 0, "top": 0, "right": size["width"], "bottom": size["height"]})


# ----- 1. the New game menu mid-game --------------------------------------------------------------


@SIZES
def test_the_new_game_menu_changes_mode_and_size_mid_game_in_two_clicks_or_taps(open_page, size):
    page = open_page(size)
    touch = size is PHONE
    new_game(page, "cruel", "beginner")
    assert not page.is_visible('button[value="classic expert"]')
    tap(page, ".new-game summary", touch)
    target = 'button[value="classic expert"]'
    # Nothing lies over the button: the point at its centre is the button itself.
    box = rect(page, target)
    middle = ((box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2)
    assert (
        page.evaluate(f"document.elementFromPoint({middle[0]}, {middle[1]}).closest('button').value")
        == "classic expert"
    )
    assert in_view(page, target)
    tap(page, target, touch)
    page.wait_for_selector("#grid")
    assert shown(page) == ("classic", 30, 16, 99)


def test_the_new_game_menu_by_keyboard_passes_no_hidden_control_and_escape_folds_it(open_page):
    page = open_page(LAPTOP)
    new_game(page, "cruel", "beginner")
    page.focus(".new-game summary")
    page.keyboard.press("Escape")  # nothing to fold yet
    page.keyboard.press("Enter")
    assert page.is_visible('button[value="help intermediate"]')
    stops = []
    for _ in range(20):
        page.keyboard.press("Tab")
        stops.append(
            page.evaluate(
                "document.activeElement.value || document.activeElement.name || document.activeElement.tagName"
            )
        )
        # Every stop is a control the player can see, inside the menu.
        assert page.evaluate(
            "document.activeElement.closest('.new-game') !== null && document.activeElement.checkVisibility()"
        ), stops
        if stops[-1] == "help intermediate":
            break
    # Who plays first (issue 41 #18), then each mode's sizes.
    assert stops[:5] == ["room", "name", "cruel small", "cruel beginner", "cruel intermediate"], stops
    page.keyboard.press("Escape")
    assert not page.is_visible('button[value="help intermediate"]')
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.keyboard.press("Enter")
    for _ in range(len(stops)):
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/games/*")
    page.wait_for_selector("#grid")
    assert shown(page) == ("help", 16, 16, 40)


# ----- 2. cells of a fixed size --------------------------------------------------------------------


def test_cells_take_a_fixed_size_from_the_board_not_container_units(open_page):
    """The style sheet has no container-query unit (on 10,000 cells, every change to the page sized them all
    again); the board carries the cell size as a length, which a move does not change."""
    page = open_page(LAPTOP)
    sheet = page.request.get("/static/kaboom.css").text()
    assert not any(unit in sheet for unit in ("cqw", "cqh", "cqi", "cqb", "cqmin", "cqmax", "container-type"))
    new_game(page, "cruel", "expert")
    cell = page.evaluate("getComputedStyle(document.getElementById('board')).getPropertyValue('--cell')")
    assert cell.endswith("px") and float(cell[:-2]).is_integer()
    assert rect(page, "#c-0-0")["width"] == float(cell[:-2])
    act(page, lambda: page.click("#c-15-8"))
    assert page.evaluate("getComputedStyle(document.getElementById('board')).getPropertyValue('--cell')") == cell


# ----- 3. Back and Forward -------------------------------------------------------------------------


def test_back_and_forward_show_the_game_as_it_is_now(open_page):
    page = open_page(LAPTOP)
    game_id = new_game(page, "cruel", "intermediate")
    assert page.request.get(f"/games/{game_id}").headers["cache-control"] == "no-store"
    act(page, lambda: page.click("#c-8-8"))
    shown = page.evaluate("[...document.querySelectorAll('#grid .c')].map(c => c.className.replace(' cur', ''))")
    page.click("a[href='/records']")
    page.wait_for_selector(".records")
    page.go_back()
    page.wait_for_selector("#grid")
    assert page.input_value("#version") == str(api(page, game_id)["version"]) == "1"
    assert (
        page.evaluate("[...document.querySelectorAll('#grid .c')].map(c => c.className.replace(' cur', ''))") == shown
    )
    page.go_forward()
    page.wait_for_selector(".records")
    page.go_back()
    page.wait_for_selector("#grid")
    assert "u" not in classes(page, 8, 8).split()


# ----- 4. the probability tip and legend -----------------------------------------------------------


def test_the_chance_under_the_pointer_stays_inside_the_board_at_its_edges_with_a_legend(open_page, database):
    page = open_page(LAPTOP)
    on_layout(page, database, "classic", ["....", ".ooo", ".o*.", ".o.."])
    act(page, lambda: page.check("input[name=probabilities]"))
    frame = rect(page, "#board")
    for x, y in [(0, 0), (3, 0), (0, 3)]:
        page.hover(f"#c-{x}-{y}")
        assert page.is_visible("#tip") and page.inner_text("#tip") == page.get_attribute(f"#c-{x}-{y}", "data-p")
        assert inside(rect(page, "#tip"), frame), (x, y, rect(page, "#tip"), frame)
    legend = page.inner_text("#legend")
    assert all(words in legend for words in ("0 %", "≤ 15 %", "≤ 30 %", "≤ 50 %", "> 50 %", "100 %", "safest"))


# ----- 5. refused settings -------------------------------------------------------------------------


def test_a_refused_setting_unticks_its_box_and_keeps_the_loss_review(open_page, database):
    page = open_page(LAPTOP)
    # Both mines next to the 2, the right column proven safe: a click beside the 2 loses.
    new_game(page, "cruel", "beginner")
    act(page, lambda: page.uncheck("input[name=undo]"))
    put_position(database, page.get_attribute("#board", "data-game"), ["2..", "..."], mines=2)
    page.reload()
    page.wait_for_selector("#grid")
    act(page, lambda: page.click("#c-1-0"))
    review = page.inner_text("#hint.review")
    assert "could be proven safe" in review
    page.check("input[name=undo]")
    settled(page, "document.querySelector('#message.refused') !== null")
    assert "cannot be turned on after the end" in page.inner_text("#message")
    assert not page.is_checked("input[name=undo]")
    assert page.inner_text("#hint.review") == review


def test_no_guessing_ticked_after_the_deal_says_it_waits_for_the_next_board(open_page):
    page = open_page(LAPTOP)
    new_game(page, "classic", "beginner")
    act(page, lambda: page.click("#c-4-4"))
    assert "from the next board" in page.inner_text("label:has(input[name=no_guess])")
    act(page, lambda: page.check("input[name=no_guess]"))
    assert "No guessing" in page.inner_text("#message") and "from the next board" in page.inner_text("#message")
    assert page.locator("#message.refused").count() == 0 and page.is_checked("input[name=no_guess]")
    before = page.url
    page.keyboard.press("F2")
    page.wait_for_url(lambda url: url != before)
    page.wait_for_selector("#grid")
    assert api(page, page.get_attribute("#board", "data-game"))["options"]["no_guess"] is True


# ----- 6. double clicks and the gaps between cells ------------------------------------------------


def test_a_double_click_reveals_once_without_an_error_and_a_click_in_a_gap_reveals(open_page):
    page = open_page(LAPTOP)
    game_id = new_game(page, "cruel", "intermediate")
    page.evaluate(
        "() => { window.moves = 0; "
        "document.getElementById('board').addEventListener('htmx:beforeRequest', () => window.moves++); }"
    )
    act(page, lambda: page.dblclick("#c-8-8"))
    settled(page, "window.moves >= 1")
    assert page.evaluate("window.moves") == 1 and page.locator("#message.refused").count() == 0
    # A gap between two covered cells: the press lands on neither cell, yet the nearer one is revealed.
    covered = next(
        (x, y)
        for y, row in enumerate(api(page, game_id)["board"])
        for x in range(len(row) - 1)
        if row[x] == row[x + 1] == "."
    )
    # The gap's points are those the browser's hit test gives to the row, not to a cell: found by looking.
    left, right = rect(page, f"#c-{covered[0]}-{covered[1]}"), rect(page, f"#c-{covered[0] + 1}-{covered[1]}")
    y = (left["top"] + left["bottom"]) / 2
    gap = page.evaluate(
        f"(() => {{ for (let x = {left['right'] - 1}; x <= {right['left'] + 1}; x += 0.125)"
        f" if (document.elementFromPoint(x, {y}).id === 'r-{covered[1]}') return x; return null; }})()"
    )
    assert gap is not None, (left, right)
    point = (gap, y)
    page.evaluate(
        "() => document.getElementById('board')"
        ".addEventListener('click', e => { window.clicked = e.target.id; }, {once: true})"
    )
    version = int(page.input_value("#version"))
    act(page, lambda: page.mouse.click(*point))
    assert page.evaluate("window.clicked") == f"r-{covered[1]}" and int(page.input_value("#version")) == version + 1


# ----- 7. a game deleted elsewhere -----------------------------------------------------------------


def test_a_game_deleted_in_another_tab_stops_its_clock_and_says_so(open_page):
    page = open_page(LAPTOP)
    page.clock.install()
    game_id = new_game(page, "cruel", "intermediate")
    act(page, lambda: page.click("#c-8-8"))
    pause(page)
    shown = page.inner_text("#timer")
    page.clock.fast_forward(3000)
    assert page.inner_text("#timer") != shown  # the clock runs while the game does
    assert page.request.delete(f"/api/games/{game_id}").status == 204
    page.clock.resume()
    covered = page.evaluate("document.querySelector('#grid .c.u').id")
    page.click(f"#{covered}")
    page.wait_for_selector("#board.gone")
    message = page.inner_text("#message")
    assert "This game is gone" in message and "(404)" not in message
    pause(page)
    stopped = page.inner_text("#timer")
    page.clock.fast_forward(5000)
    assert page.inner_text("#timer") == stopped
    page.clock.resume()


# ----- 8. a small board on a laptop ----------------------------------------------------------------


def test_a_small_board_and_the_side_column_are_centred_together_on_a_laptop(open_page):
    page = open_page(LAPTOP)
    new_game(page, "cruel", "beginner")
    board, side = rect(page, "#board"), rect(page, ".side")
    assert side["left"] - board["right"] <= 32, (board, side)
    width = page.viewport_size["width"]
    assert abs(board["left"] - (width - side["right"])) <= 8, (board, side)


# ----- 9. the rules page ---------------------------------------------------------------------------


@SIZES
def test_the_rules_open_in_view_at_the_games_mode_with_a_picture_of_each_mode(open_page, size):
    page = open_page(size)
    new_game(page, "help", "beginner")
    tap(page, "header a:text-is('Rules')", size is PHONE)
    page.wait_for_url("**/rules#help")
    heading = rect(page, "#rules-help")
    assert 0 <= heading["top"] < page.viewport_size["height"] / 2
    for mode in ("cruel", "classic", "help", "flags"):
        assert page.locator(f"#{mode} .mini-board").count() == 1 and page.locator(f"#{mode} li").count() >= 3
    assert page.locator("#controls li").count() >= 3


# ----- 10. scrolling past a big board --------------------------------------------------------------


def test_a_wheel_past_a_big_boards_edge_keeps_the_counters_in_view(open_page):
    page = open_page(LAPTOP)
    start_custom(page, 100, 100, 2000)
    # The board at its bottom edge, halfway across: a wheel down has nowhere to go on the board.
    page.eval_on_selector("#board", "b => { b.scrollTop = b.scrollHeight; b.scrollLeft = b.scrollWidth / 3; }")
    left = page.eval_on_selector("#board", "b => b.scrollLeft")
    page.mouse.move(
        *(lambda box: ((box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2))(rect(page, "#board"))
    )
    page.mouse.wheel(0, 600)
    # Wheels are taken in turn: once a sideways one has moved the board, the one before it is done.
    page.mouse.wheel(-200, 0)
    page.wait_for_function(f"document.getElementById('board').scrollLeft < {left}")
    assert page.evaluate("window.scrollY") == 0 and in_view(page, "#mines-left")


def swipe(page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A finger drawn from `start` to `end` through Chromium's input pipeline, held still at the end so that
    the board does not fling on after it."""
    session = page.context.new_cdp_session(page)
    session.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
    for step in [*range(1, 31), *[30] * 5]:
        x, y = (start[i] + (end[i] - start[i]) * step / 30 for i in (0, 1))
        session.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    session.detach()


def test_a_swipe_past_a_boards_edge_on_a_phone_leaves_the_page_where_it_was(open_page):
    page = open_page(PHONE)
    start_custom(page, 100, 100, 2000)
    # The board at its bottom edge, a third of the way across; the page below it has the buttons to scroll to.
    page.eval_on_selector("#board", "b => { b.scrollTop = b.scrollHeight; b.scrollLeft = b.scrollWidth / 3; }")
    left = page.eval_on_selector("#board", "b => b.scrollLeft")
    frame = rect(page, "#board")
    middle = ((frame["left"] + frame["right"]) / 2, (frame["top"] + frame["bottom"]) / 2)
    swipe(page, (middle[0], middle[1] + 150), (middle[0], middle[1] - 150))  # up: the board has no more below
    # Gestures are taken in turn: once a sideways one has moved the board, the one before it is done.
    swipe(page, (middle[0] + 60, middle[1]), (middle[0] - 60, middle[1]))
    page.wait_for_function(f"document.getElementById('board').scrollLeft > {left}")
    assert page.evaluate("[window.scrollY, window.visualViewport.scale]") == [0, 1]
    assert in_view(page, "#mines-left")


# ----- 11. the home page ---------------------------------------------------------------------------


def test_the_home_page_shows_sizes_asks_the_level_only_of_the_computer_and_local_times(open_page):
    page = open_page(PHONE, timezone_id="Asia/Tokyo")
    new_game(page, "classic", "beginner")
    page.goto("/")
    assert "9×9 · 10" in page.inner_text('button[value="classic beginner"]')
    assert not page.is_visible("select[name=level]")
    page.select_option("select[name=opponent]", "computer")
    assert page.is_visible("select[name=level]")
    row = page.locator(".game-list li").first
    assert "playing" in row.get_attribute("class").split() and row.locator(".game-mode").inner_text() == "Classic"
    utc = row.locator("time").get_attribute("datetime")
    local = page.evaluate(f"new Date('{utc}').toLocaleString(undefined, {{dateStyle: 'medium', timeStyle: 'short'}})")
    assert row.locator("time").inner_text() == local and "UTC" not in local
    assert page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone") == "Asia/Tokyo"


# ----- 13. a win's statistics ----------------------------------------------------------------------


def test_a_win_shows_its_time_3bv_3bv_per_second_clicks_and_efficiency(open_page, database):
    page = open_page(LAPTOP)
    game_id = on_layout(page, database, "classic", ["oo..", "o*..", "...."])
    win(page)
    game = api(page, game_id)
    figures = dict(
        zip(
            page.locator("#win-figures dt").all_inner_texts(),
            page.locator("#win-figures dd").all_inner_texts(),
            strict=True,
        )
    )
    assert figures["3BV"] == str(game["bbbv"]) == str(bbbv(4, 3, frozenset({5})))
    assert figures["3BV/s"] == f"{game['bbbv_per_second']:.2f}" and figures["Clicks"] == str(game["clicks"])
    assert figures["Efficiency"] == f"{round(100 * game['bbbv'] / game['clicks'])} %"
    assert figures["Time"] == page.inner_text("#timer")


# ----- 14. touch comfort ---------------------------------------------------------------------------


def test_zoom_buttons_and_a_pinch_grow_the_cells_crisply_and_the_counters_stay(open_page):
    page = open_page(PHONE)
    new_game(page, "cruel", "expert")
    before = rect(page, "#c-0-0")["width"]
    page.tap("#zoom-in")
    zoomed = rect(page, "#c-0-0")["width"]
    assert zoomed > before and float(zoomed).is_integer() and in_view(page, "#mines-left")
    page.tap("#zoom-out")
    assert rect(page, "#c-0-0")["width"] == before
    # Two fingers spread apart on the board: the board zooms, the page keeps its scale.
    frame = rect(page, "#board")
    cx, cy = (frame["left"] + frame["right"]) / 2, frame["top"] + 120
    session = page.context.new_cdp_session(page)
    session.send(
        "Input.dispatchTouchEvent",
        {"type": "touchStart", "touchPoints": [{"x": cx - 30, "y": cy, "id": 1}, {"x": cx + 30, "y": cy, "id": 2}]},
    )
    for step in range(1, 11):
        session.send(
            "Input.dispatchTouchEvent",
            {
                "type": "touchMove",
                "touchPoints": [
                    {"x": cx - 30 - 8 * step, "y": cy, "id": 1},
                    {"x": cx + 30 + 8 * step, "y": cy, "id": 2},
                ],
            },
        )
    session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    session.detach()
    page.wait_for_function(f"document.getElementById('c-0-0').getBoundingClientRect().width > {before}")
    assert page.evaluate("window.visualViewport.scale") == 1 and in_view(page, "#mines-left")
    assert page.get_attribute("#version", "value") == "0"  # the fingers were not a tap


def test_a_held_finger_shows_the_flag_coming_and_a_safe_mode_tap_says_why_nothing_happened(open_page):
    page = open_page(PHONE)
    page.clock.install()
    new_game(page, "cruel", "intermediate")
    act(page, lambda: page.tap("#c-8-8"))
    covered = page.evaluate("document.querySelector('#grid .c.u').id")
    box = rect(page, f"#{covered}")
    x, y = (box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2
    pause(page)
    session = page.context.new_cdp_session(page)
    session.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    assert "pressing" in page.get_attribute(f"#{covered}", "class").split()
    page.clock.run_for(500)
    session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    session.detach()
    page.clock.resume()
    settled(page, f"document.getElementById('{covered}').classList.contains('f')")
    assert "pressing" not in page.get_attribute(f"#{covered}", "class").split()
    # The flag-mode switch sits at the board, beside the counters.
    assert in_view(page, "#flag-mode") and rect(page, "#flag-mode")["bottom"] <= rect(page, "#board")["top"]
    act(page, lambda: page.check("input[name=safe_mode]"))
    other = page.evaluate("[...document.querySelectorAll('#grid .c.u')].find(c => !c.classList.contains('f')).id")
    page.tap(f"#{other}")
    page.wait_for_function("document.getElementById('board-note').textContent.includes('double-tap')")
    assert "u" in classes(page, *map(int, other.split("-")[1:])).split()


# ----- 15. Flags --------------------------------------------------------------------------------------

BOMB_BOARD = ["*.......", "........", "..*.....", "........", "....*...", "...*...*", "........", "**...***"]


def blue_behind(page, database: Path) -> str:
    """A Flags game on one screen in which Red leads 1-0 and Blue is to move: Blue may drop the bomb."""
    page.goto("/")
    page.select_option("select[name=opponent]", "screen")
    page.click('button[value="flags msn"]')
    page.wait_for_selector("#grid")
    game_id = page.get_attribute("#board", "data-game")
    with sqlite3.connect(database) as connection:
        seats = [player for (player,) in connection.execute("SELECT player FROM seats WHERE game_id = ?", (game_id,))]
    store = SQLiteStore(database, kept=KEPT)
    stored = store.load(game_id, seats[0])
    flags = Flags()
    width = len(BOMB_BOARD[0])
    game = flags.from_layout(
        width,
        len(BOMB_BOARD),
        {y * width + x for y, row in enumerate(BOMB_BOARD) for x, s in enumerate(row) if s == "*"},
    )
    game.seats, game.version = stored.seats, stored.version + 1
    for x, y in [(1, 1), (7, 5), (5, 0)]:  # a 2 (Red's turn), a mine for Red, a zero's flood (Blue's turn)
        game, _ = flags.apply(game, Move("reveal", x, y), rng=random.Random(0), now=0.0)
    assert game.state["scores"] == [0, 1] and game.state["turn"] == 0
    game.version = stored.version + 1
    store.save(game_id, seats[0], game, stored.version)
    page.reload()
    page.wait_for_selector("#bomb-mode")
    return game_id


@SIZES
def test_aiming_the_bomb_outlines_its_square_moved_inside_the_board(open_page, database, size):
    page = open_page(size)
    game_id = blue_behind(page, database)
    tap(page, "#bomb-mode", size is PHONE)
    aimed = lambda: sorted(page.evaluate("[...document.querySelectorAll('#grid .c.aim')].map(c => c.id)"))  # noqa: E731
    corner = sorted(f"c-{x}-{y}" for x in range(3, 8) for y in range(3, 8))
    version = int(page.input_value("#version"))
    if size is PHONE:
        page.evaluate(
            "() => { window.sent = 0; "
            "document.getElementById('board').addEventListener('htmx:beforeRequest', () => window.sent++); }"
        )
        page.tap("#c-7-7")  # the first tap aims, and sends nothing; the square is moved inside the board
        assert aimed() == corner and page.evaluate("window.sent") == 0
        assert "Tap the same cell again" in page.inner_text("#board-note")
        page.tap("#c-7-7")
    else:
        page.hover("#c-7-7")
        assert aimed() == corner
        page.keyboard.press("ArrowRight")  # the keyboard's cursor aims too
        assert aimed() == sorted(f"c-{x}-{y}" for x in range(0, 5) for y in range(0, 5))
        page.click("#c-7-7")
    settled(page, f"Number(document.getElementById('version').value) > {version}")
    bombed = api(page, game_id)
    assert bombed["two_players"]["bombs_used"] == [True, False] and aimed() == []
    # The square the page outlined is the one uncovered.
    assert all(bombed["board"][y][x] not in ".F" for x in range(3, 8) for y in range(3, 8))
    assert "dropped the bomb" in page.inner_text("#panel")


def ask_live(page, mark: str) -> int:
    """What the stream's event makes the page ask for, asked now: the status of that answer, once swapped (the
    stream's own events may ask too; the answer waited for is the one marked)."""
    return page.evaluate(
        """(mark) => new Promise((done) => {
        const asker = document.querySelector('#live [hx-get]');
        asker.addEventListener('htmx:afterRequest', (event) => {
            const told = event.detail.requestConfig.triggeringEvent;
            if (told && told.detail && told.detail[mark]) done(event.detail.xhr.status);
        });
        htmx.trigger(asker, 'sse:changed', { [mark]: true });
    })""",
        mark,
    )


def test_a_live_answer_that_crossed_a_move_does_not_wipe_what_the_move_said(open_page, database):
    """The stream's event of a player's own move asks for the fragment with the version the page showed
    before the move's answer arrived; the fragment that comes back holds no news, and is not swapped in
    over the move's (CI saw the news vanish one run in a few dozen, whenever the event won the race)."""
    page = open_page(LAPTOP)
    game_id = blue_behind(page, database)
    before = int(page.input_value("#version"))
    tap(page, "#bomb-mode", False)
    page.click("#c-7-7")
    settled(page, f"Number(document.getElementById('version').value) > {before}")
    assert "dropped the bomb" in page.inner_text("#panel")
    # The live fragment asked for as if the move's answer were still on its way: the whole panel, as of
    # the version the page shows now.
    asked = []

    def crossed(route):
        url = route.request.url.replace(f"version={before + 1}", f"version={before}")
        asked.append(url)
        route.continue_(url=url)

    page.route(f"**/games/{game_id}/live?*", crossed)
    answered = ask_live(page, "crossed")
    assert answered == 200 and asked
    assert "dropped the bomb" in page.inner_text("#panel")
    # The same version, but who is connected changed meanwhile: that is shown, and the move's words stay.
    page.unroute(f"**/games/{game_id}/live?*")
    shown_presence = page.input_value("#presence")

    def someone_came(route):
        url = route.request.url.replace(f"version={before + 1}", f"version={before}")
        fetched = route.fetch(url=url)
        route.fulfill(
            response=fetched,
            body=fetched.text().replace(
                f'id="presence" name="presence" value="{shown_presence}"',
                'id="presence" name="presence" value="01-came"',
            ),
        )

    page.route(f"**/games/{game_id}/live?*", someone_came)
    answered = ask_live(page, "came")
    assert answered == 200 and page.input_value("#presence") == "01-came"
    assert "dropped the bomb" in page.inner_text("#panel")
    assert page.evaluate("document.querySelectorAll('#message').length") == 1


def test_flags_news_is_in_the_text_colour_and_a_spectator_has_no_cursor(open_page, database):
    page = open_page(LAPTOP)
    made = page.request.post(
        "/api/games",
        data=json.dumps({"mode": "flags", "width": 8, "height": 8, "mines": 12, "opponent": "invite"}),
        headers={"content-type": "application/json"},
    )
    game_id = made.json()["id"]
    page.goto(f"/games/{game_id}")
    link = page.input_value("#invite-link")
    text = page.evaluate("getComputedStyle(document.body).color")
    for line in page.locator(".seat-line").all():
        assert line.evaluate("e => getComputedStyle(e).color") == text
    red = open_page(LAPTOP)
    red.goto(link)
    red.wait_for_selector("#grid")
    spectator = open_page(LAPTOP)
    spectator.goto(link)
    spectator.wait_for_selector("#grid")
    assert "/watch/" in spectator.url
    assert (
        spectator.get_attribute("#grid", "tabindex") is None and spectator.get_attribute("#board", "data-actions") == ""
    )
    spectator.click("#c-3-3")
    spectator.keyboard.press("ArrowRight")
    assert spectator.locator("#grid .c.cur").count() == 0


# ----- 16. accessibility leftovers ------------------------------------------------------------------


def test_one_control_is_named_undo_and_it_is_offered_only_when_there_is_something_to_undo(open_page, database):
    page = open_page(LAPTOP)
    on_layout(page, database, "classic", ["oo..", "o*..", "...."])
    assert page.get_by_role("button", name="Undo", exact=True).count() == 1
    assert page.get_by_role("checkbox", name="Undo", exact=True).count() == 0
    assert page.is_disabled("#undo")
    act(page, lambda: page.click("#c-0-2"))  # a 1 beside the mine: the board is not cleared yet
    assert page.inner_text("#state") == "Playing" and page.is_enabled("#undo")
    win(page)
    assert page.is_disabled("#undo")


def test_f2_on_the_home_page_starts_a_game_like_the_latest(open_page):
    page = open_page(LAPTOP)
    new_game(page, "classic", "intermediate")
    page.goto("/")
    page.keyboard.press("F2")
    page.wait_for_selector("#grid")
    assert shown(page) == ("classic", 16, 16, 40)


def test_the_keyboard_cursor_shows_only_once_a_key_is_pressed(open_page):
    page = open_page(LAPTOP)
    new_game(page, "cruel", "beginner")
    assert page.evaluate("document.activeElement.id") == "grid"
    outline = "getComputedStyle(document.querySelector('#grid .c.cur')).outlineStyle"
    assert page.evaluate(outline) == "none"
    page.keyboard.press("ArrowRight")
    assert page.evaluate(outline) == "dashed"
    page.mouse.click(*(lambda box: (box["left"] + 5, box["top"] + 5))(rect(page, "#c-4-4")))
    assert page.evaluate(outline) == "none"
