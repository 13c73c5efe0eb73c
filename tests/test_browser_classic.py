"""End to end, classic and its kin: a real Chromium against a real server, each game on a seeded deal
or on a hand-made position with its layout, so that no test depends on luck."""

from __future__ import annotations

import pytest

from tests.live import put_layout
from tests.test_browser import act, analysis, classes, settled, version

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000}


def start_mode(page, mode: str, preset: str = "beginner") -> str:
    page.goto("/")
    page.click(f'button[value="{mode} {preset}"]')
    page.wait_for_selector("#grid")
    return page.get_attribute("#board", "data-game")


def on_layout(page, database, mode: str, layout: list[str], **settings: bool) -> str:
    """A game of `mode` on a hand-made board: '*' a covered mine, '.' a covered safe cell, 'o' a revealed
    safe cell (the page shows its number). Settings are ticked on the page first."""
    game_id = start_mode(page, mode)
    for name in settings:
        act(page, lambda name=name: page.check(f"input[name={name}]"))
    put_layout(database, game_id, layout)
    page.reload()
    page.wait_for_selector("#grid")
    return game_id


def click(page, x: int, y: int) -> None:
    act(page, lambda: page.click(f"#c-{x}-{y}"))


def test_classic_played_to_a_win(page, database):
    on_layout(page, database, "classic", ["oo..", "o*..", "...."])
    rows = analysis(page)
    safe = [(x, y) for y, row in enumerate(rows) for x, s in enumerate(row) if s == "s"]
    assert safe, rows
    for _ in range(20):
        if page.inner_text("#state") == "Won":
            break
        rows = analysis(page)
        x, y = next((x, y) for y, row in enumerate(rows) for x, s in enumerate(row) if s == "s")
        click(page, x, y)
    assert page.inner_text("#state") == "Won" and page.inner_text("#result").startswith("You won in")
    # The records page has the win, with the board's 3BV.
    page.click("a[href='/records']")
    page.wait_for_selector(".record")
    section = page.inner_text(".record")
    assert "Classic · 4×3, 1 mine" in section and "Best times" in section
    assert page.locator(".best-times tbody tr").count() == 1


def test_classic_lost_shows_every_mine_and_crosses_out_a_wrong_flag(page, database):
    on_layout(page, database, "classic", ["oo..", "o*..", "...*"])
    act(page, lambda: page.click("#c-3-0", button="right"))  # a flag on a safe cell: wrong
    click(page, 1, 1)
    assert page.inner_text("#state") == "Lost" and "was a mine" in page.inner_text("#result")
    assert "x" in classes(page, 1, 1).split() and "m" in classes(page, 3, 2).split()
    assert "w" in classes(page, 3, 0).split()


def test_a_no_guess_board_is_won_using_only_show_me(page):
    start_mode(page, "classic")
    act(page, lambda: page.check("input[name=no_guess]"))
    click(page, 4, 4)
    for _ in range(81):
        if page.inner_text("#state") == "Won":
            break
        act(page, lambda: page.keyboard.press("s"))
        cell = page.get_attribute("#hint", "data-cell")
        assert cell, page.inner_text("#hint")  # a no-guess board always has a proven-safe cell
        act(page, lambda cell=cell: page.click(f"#{cell}"))
    assert page.inner_text("#state") == "Won"


def test_f3_marks_a_proven_safe_cell_or_says_i_do_not_know(page, database):
    on_layout(page, database, "classic", ["oo", "*."])
    act(page, lambda: page.keyboard.press("F3"))
    assert "I don't know" in page.inner_text("#hint")
    on_layout(page, database, "classic", ["ooo", "*..", "..."])
    act(page, lambda: page.keyboard.press("F3"))
    cell = page.get_attribute("#hint", "data-cell")
    assert cell and "hl" in page.get_attribute(f"#{cell}", "class").split()


def test_help_granted_then_the_mine_opened_is_flagged(page, database):
    on_layout(page, database, "help", ["oo", "*."])
    act(page, lambda: page.click("#help-button"))
    assert "Help granted" in page.inner_text("#message") and page.inner_text("#state") == "Playing"
    click(page, 0, 1)
    assert page.inner_text("#state") == "Playing" and "h" in classes(page, 0, 1).split()
    assert page.inner_text("#help") == "1" and page.inner_text("#mines-left") == "0"
    click(page, 1, 1)
    assert page.inner_text("#state") == "Won" and "with help 1 time" in page.inner_text("#result")


def test_help_denied_loses_and_outlines_the_missed_safe_cells(page, database):
    on_layout(page, database, "help", ["ooo", "*..", "..."])
    act(page, lambda: page.keyboard.press("a"))
    assert page.inner_text("#state") == "Lost" and "You asked for help while" in page.inner_text("#result")
    settled(page, "document.querySelectorAll('#grid .missed').length > 0")
    assert "missed" in classes(page, 1, 1).split() and "missed" in classes(page, 2, 2).split()


def test_the_local_assist_resolves_a_chain_as_a_ripple(page, database):
    on_layout(page, database, "classic", ["oooo.", "*.*.."], assist_local=True)
    click(page, 4, 0)
    assert page.inner_text("#state") == "Won"
    assert "n2" in classes(page, 1, 1).split()  # opened by the assist, never clicked


def test_the_local_assist_ripples_and_stops_where_local_rules_stop(page, database):
    # Everything the local rules prove around the click, but the rest needs the mine count.
    on_layout(page, database, "classic", ["oooo.", "*.*..", "....."], assist_local=True)
    click(page, 4, 0)
    assert page.locator("#grid .c.rip").count() > 0
    assert "f" in classes(page, 2, 1).split()  # a mine the rules proved, flagged


def test_the_everything_assist_clears_what_the_count_proves(page, database):
    on_layout(page, database, "classic", [".o..", ".*oo", "*o.*"], assist_all=True)
    click(page, 0, 0)
    assert page.inner_text("#state") == "Won"


def test_the_probability_overlay_colours_covered_cells_and_shows_the_chance_on_hover(page, database):
    game_id = on_layout(page, database, "classic", ["oo..", "o*..", "....", "...*"], probabilities=True)
    chances = page.evaluate(f"fetch('/api/games/{game_id}/probabilities').then(r => r.json())")["probability"]
    covered = page.locator("#grid .c.u")
    assert covered.count() == 13 and page.locator("#grid .c.u[data-p]").count() == covered.count()
    x, y = next((x, y) for y, row in enumerate(chances) for x, p in enumerate(row) if p is not None and 0 < p < 1)
    tip = page.get_attribute(f"#c-{x}-{y}", "data-p")
    assert tip == f"{round(chances[y][x] * 100)} % mine"
    page.hover(f"#c-{x}-{y}")
    assert page.is_visible("#tip") and page.inner_text("#tip") == tip
    safest = min(p for row in chances for p in row if p is not None)
    ringed = {(x, y) for y, row in enumerate(chances) for x, p in enumerate(row) if p == safest}
    assert {(x, y) for x, y in ringed if "best" in classes(page, x, y).split()} == ringed


def test_a_board_id_opened_in_a_second_browser_plays_the_same_board(page, browser, server):
    start_mode(page, "classic", "intermediate")
    click(page, 2, 3)
    # The first click's answer names the board and offers it again, without a reload.
    assert page.locator("#restart button").is_visible()
    link = page.get_attribute(".board-id a", "href")
    assert link.startswith("/play/16x16-40-o-3.4-")
    first_board = [page.get_attribute(f"#c-{x}-{y}", "class") for y in range(16) for x in range(16)]
    other = browser.new_context(base_url=server, viewport={"width": 1200, "height": 900}, bypass_csp=True)
    try:
        second = other.new_page()
        second.goto(link)
        second.wait_for_selector("#grid")
        assert "start" in second.get_attribute("#c-2-3", "class").split()
        act(second, lambda: second.click("#c-2-3"))
        assert [second.get_attribute(f"#c-{x}-{y}", "class") for y in range(16) for x in range(16)] == first_board
        # Restart this board: the same board again, in a new game.
        second.click("#restart button")
        second.wait_for_selector("#c-2-3.start")
        assert second.url != link
    finally:
        other.close()


def test_the_bot_rings_its_cell_plays_on_stops_when_told_and_wins(page, database):
    # The count proves the two lower rows safe: the bot opens the third row's numbers one by one, then a zero.
    on_layout(page, database, "classic", ["ooooo", "*****", ".....", "....."])
    page.click("#bot-button")
    settled(page, "document.querySelector('#grid .c.hl')")
    assert page.inner_text("#hint") == "The bot would open column 1, row 3: proven safe."
    assert "hl" in classes(page, 0, 2).split()
    # Play for me at the slowest pace, stopped after its first move: nothing moves after the stop's answer.
    page.select_option("#bot-pace", "2000")
    act(page, lambda: page.click("#play-button"))
    assert page.inner_text("#play-button") == "Stop"
    page.click("#play-button")
    settled(page, "document.getElementById('play-button').getAttribute('aria-pressed') === 'false'")
    stopped = version(page)
    page.click("#bot-button")  # a round trip to the server and back
    settled(page, "document.getElementById('hint').textContent.includes('would open')")
    assert version(page) == stopped and page.inner_text("#state") == "Playing"
    assert page.inner_text("#play-button") == "Play for me"
    # Played on at the fastest pace, the bot wins, and the game says it was played with it.
    page.select_option("#bot-pace", "100")
    page.click("#play-button")
    settled(page, "document.getElementById('state').textContent === 'Won'")
    settled(page, "document.getElementById('play-button').getAttribute('aria-pressed') === 'false'")
    assert "bot moves" in page.inner_text("#result") and int(page.inner_text("#bot-moves")) >= 2
    assert page.locator("#message.refused").count() == 0  # it stopped at the win: no step past it to refuse
