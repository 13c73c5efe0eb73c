"""A board of the day in Chromium (issue 28): named and played from the day's page to a win, then the player's
own line found on its ladder, at a laptop's size by mouse and at a phone's by touch. The server's clock is a
FakeClock, so the day cannot turn during the test."""

from __future__ import annotations

import pytest

from tests.clock import FakeClock
from tests.live import live_server
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS, act, next_cell  # noqa: F401  (skips without Chromium)
from tests.test_daily import KEY, MIDNIGHT

LAPTOP = {"viewport": {"width": 1366, "height": 650}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def day_clock() -> FakeClock:
    return FakeClock(MIDNIGHT + 9 * 3600)


@pytest.fixture(scope="module")
def server(database, deals, day_clock):
    # Beginner boards of the day (as conftest.py's small_dailies, for the module's server): the test is of the
    # pages, and an Expert board played to its end costs seconds.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("app.results.daily.DAILY_SIZE", (9, 9, 10))
        with live_server(database, deals=deals, clock=day_clock, secret_key=KEY, create_limit=1000) as url:
            yield url


def press(page, selector: str) -> None:
    """A tap on a touch screen, a click elsewhere."""
    if page.viewport_size["width"] < 600:
        page.tap(selector)
    else:
        page.click(selector)


def play_to_a_win(page, day_clock: FakeClock) -> None:
    """From the marked start, the cells a cruel-but-fair player opens (safe by the rules) until the board is
    cleared: most through the API with the page's cookie (the page's moves are tested elsewhere), the last ten
    on the page; each cell read from the game, each answer checked or waited for."""
    start = page.get_attribute("#grid .c.start", "id")
    assert start is not None, "the first click is marked"
    act(page, lambda: press(page, f"#{start}"))
    game_id = page.get_attribute("#board", "data-game")
    for _ in range(30 * 16):
        game = page.request.get(f"/api/games/{game_id}").json()
        assert game["status"] == "playing", game["status"]
        if game["board"].count(".") - game["mines"] <= 10:
            break
        day_clock.advance(1.0)
        x, y = next_cell(page)
        answer = page.request.post(f"/api/games/{game_id}/moves", data={"action": "reveal", "x": x, "y": y})
        assert answer.ok, answer.text()
    page.reload()
    for _ in range(30 * 16):
        if page.get_attribute("#result", "data-status") != "playing":
            break
        day_clock.advance(1.0)
        x, y = next_cell(page)
        # Clicked by the page's own handler wherever the board has scrolled it: the move is what is tested.
        act(page, lambda x=x, y=y: page.eval_on_selector(f"#c-{x}-{y}", "cell => cell.click()"))
    assert page.get_attribute("#result", "data-status") == "won"


def own_line_on_screen(page, name: str, size: dict) -> int:
    """The viewer's line on the cruel board's ladder, checked on screen without sideways scrolling: its place."""
    page.wait_for_selector("#cruel tr.own")
    own = page.locator("#cruel tr.own")
    assert own.count() == 1 and own.get_attribute("aria-current") == "true"
    text = own.inner_text()
    assert name in text and "(you)" in text and "with" not in text  # a clean win: no mark of help
    own.scroll_into_view_if_needed()
    box = own.locator("td.who").bounding_box()
    assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= size["viewport"]["width"]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # The link is to the day's page, which is today's: the board says the player's entry.
    assert "Your entry: won in" in page.inner_text("#cruel .daily-play")
    return int(own.locator("td").first.inner_text())


def test_a_board_of_the_day_is_played_to_a_win_and_the_players_line_found_on_its_ladder(open_page, day_clock):
    """Named and played on a laptop; the ladder looked up on the same player's phone (their cookie), by touch."""
    name = "Zoë Lovelace_7"
    page = open_page(LAPTOP)
    page.goto("/")
    press(page, ".top-links a[href='/daily']")
    page.wait_for_selector(".daily-board")
    page.fill("#name", name)
    press(page, ".name-form button")
    page.wait_for_url("**/daily#you")
    assert page.input_value("#name") == name
    press(page, "#cruel .daily-play button")
    page.wait_for_selector("#grid")
    assert "the board of" in page.inner_text("#daily-line")
    play_to_a_win(page, day_clock)
    press(page, "#daily-line a")
    place = own_line_on_screen(page, name, LAPTOP)
    phone = open_page(PHONE, storage_state=page.context.storage_state())
    phone.goto("/")
    press(phone, ".top-links a[href='/daily']")
    assert own_line_on_screen(phone, name, PHONE) == place
