"""A finished game's replay in Chromium (issue 25): stepping with the keyboard at a laptop's size and by
touch at a phone's, taken-back steps skipped or shown, the slider, the moments' links, the overlay of what
could be known, under the page's content security policy."""

from __future__ import annotations

import pytest

from tests.live import put_layout
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS  # noqa: F401  (skips the module without Chromium)
from tests.test_replay import open_all_but

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000}
LAPTOP = {"viewport": {"width": 1366, "height": 650}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def api(page, method: str, path: str, body: dict | None = None) -> dict:
    """A request with the page's own cookie: the game is the page's player's."""
    answer = page.request.fetch(path, method=method, data=body)
    assert answer.ok, answer.text()
    return answer.json() if answer.status != 204 else {}


def finished_game(page, database) -> tuple[str, int]:
    """One mine beside the corner's 1: a needless risk that survives, a death taken back, then the safe cells
    to a win. Its id, and how many steps its story has."""
    page.goto("/")
    game_id = api(page, "POST", "/api/games", {"mode": "classic", "width": 9, "height": 9, "mines": 10, "undo": True})[
        "id"
    ]
    put_layout(database, game_id, ["o*.", "...", "..."])
    moves = [{"action": "reveal", "x": 1, "y": 1}, {"action": "reveal", "x": 1, "y": 0}, {"action": "undo"}]
    answer = {}
    for body in moves:
        answer = api(page, "POST", f"/api/games/{game_id}/moves", body)
    path = f"/api/games/{game_id}/moves"
    answer = open_all_but(answer, (1, 0), lambda x, y: api(page, "POST", path, {"action": "reveal", "x": x, "y": y}))
    assert answer["status"] == "won"
    return game_id, len(api(page, "GET", f"/api/games/{game_id}/review")["steps"])


def looks(page) -> dict[str, str]:
    return page.eval_on_selector_all("#grid .c", "cells => Object.fromEntries(cells.map(c => [c.id, c.className]))")


def caption(page) -> str:
    return page.inner_text("#replay-caption")


def at_step(page, number: int) -> None:
    page.wait_for_function(f"document.getElementById('replay-slider').value === '{number}'")


def test_a_replay_steps_by_keyboard_at_a_laptops_size_and_ends_on_the_games_own_board(open_page, database):
    page = open_page(LAPTOP)
    game_id, steps = finished_game(page, database)
    page.goto(f"/games/{game_id}")
    final = {cell: " ".join(c for c in classes.split() if c != "cur") for cell, classes in looks(page).items()}
    page.click("#replay-link a")
    page.wait_for_selector("#replay")
    start = looks(page)
    assert caption(page).startswith("Before the first move")
    page.keyboard.press("ArrowRight")
    at_step(page, 1)
    assert caption(page).startswith(f"Step 1 of {steps} · Reveal column 2, row 2. Mistake")
    assert "mv" in page.get_attribute("#c-1-1", "class").split()
    assert "proof" in page.get_attribute("#c-0-0", "class").split()
    assert "hl" in page.get_attribute("#c-2-0", "class").split()
    # Skipping what was taken back, the next step is the first after the undo.
    page.keyboard.press("ArrowRight")
    at_step(page, 4)
    assert "mv" not in page.get_attribute("#c-1-1", "class").split()
    # Shown, the death and the undo are steps of their own.
    page.click("#replay-skip")
    page.keyboard.press("Home")
    at_step(page, 0)
    assert looks(page) == start
    for _ in range(2):
        page.keyboard.press("ArrowRight")
    at_step(page, 2)
    assert "x" in page.get_attribute("#c-1-0", "class").split() and "It was a mine." in caption(page)
    page.keyboard.press("ArrowRight")
    at_step(page, 3)
    assert page.get_attribute("#c-1-0", "class").split()[:2] == ["c", "u"]
    assert caption(page) == f"Step 3 of {steps} · Undo. The action before it is taken back."
    page.keyboard.press("End")
    at_step(page, steps)
    marked = {cell: " ".join(c for c in classes.split() if c != "mv") for cell, classes in looks(page).items()}
    assert marked == final, "the last step shows the board the game ended on"
    page.keyboard.press("ArrowLeft")
    at_step(page, steps - 1)
    page.keyboard.press("Home")
    assert looks(page) == start, "stepping back restores every cell"


def test_a_replay_steps_by_touch_at_a_phones_size_with_the_overlay(open_page, database):
    page = open_page(PHONE)
    game_id, steps = finished_game(page, database)
    page.goto(f"/games/{game_id}/replay")
    page.tap("#replay-forward")
    at_step(page, 1)
    # The steps' buttons stay on the screen under the board, with the board.
    box = page.locator("#replay-forward").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844 and box["height"] >= 40
    assert page.is_hidden("#replay-legend")
    page.tap("#replay-overlay")
    page.wait_for_selector("#grid .c.os")
    # After the risk, every far cell is proven safe and the mine is one of two cells.
    assert "os" in page.get_attribute("#c-2-2", "class").split()
    # The legend says what the marks and colours mean, on the screen with the board's steps.
    legend = page.locator("#replay-legend")
    assert legend.is_visible() and legend.get_attribute("aria-label") == "What could be known, by mark and colour"
    words = legend.inner_text()
    assert all(part in words for part in ("proven safe", "proven mine", "0 %", "100 %", "safest"))
    box = legend.bounding_box()
    assert box is not None and box["width"] <= 390
    page.tap("#replay-forward")
    at_step(page, 4)
    page.wait_for_selector("#grid .c.os")
    page.tap("#replay-overlay")
    page.wait_for_function("!document.querySelector('#grid .c.os')")
    assert page.is_hidden("#replay-legend")
    page.tap("#replay-end")
    at_step(page, steps)
    page.tap("#replay-start")
    at_step(page, 0)
    # A moment's link goes to its step.
    page.tap(".moment a")
    at_step(page, 1)
    assert "Mistake" in caption(page)


def test_the_replay_runs_under_the_pages_content_security_policy(browser, server, database):
    context = browser.new_context(base_url=server, viewport={"width": 1366, "height": 650})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        game_id, _ = finished_game(page, database)
        page.goto(f"/games/{game_id}/replay#step-1")
        assert page.locator("#c-1-1.mv").count() == 1  # the link's step, shown at load
        page.click("#replay-overlay")
        page.locator("#grid .c.os").first.wait_for()
        assert not errors, errors
    finally:
        context.close()
