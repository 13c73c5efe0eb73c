"""A bomb-like mode and a Help-like mode added from tests/ alone (issue 42, point 3): Blast (tests/blast_mode.py,
an action of its own on a cell's square, aimed by its face's tool) and Ask (tests/ask_mode.py, an action of its
own that names no cell, sent by its face's toolbar button, with missed cells after a loss and the bot's own
action), each registered for one test, played through the JSON API, the pages and the browser on a real
uvicorn and SQLite file.

Every deal is seeded (`deal_seed`); every move after the first acts on a cell read from the answer before it.
"""

from __future__ import annotations

import re

import httpx
import pytest

from app.service import Deals
from tests import ask_mode, blast_mode
from tests.live import live_server, put_position, seconds, wait_until
from tests.test_boundaries import KEPT_BY, SHARED_STYLES, SHARED_TEXT, alternatives, found, schema_keys
from tests.test_duel_mode import client
from tests.test_flags_web import HTMX, api, covered

# Big enough that a first click's opening leaves covered cells to act on (`opened` checks that it did).
SIZE = {"width": 16, "height": 16, "mines": 40}
CENTRE = (8, 8)


@pytest.fixture
def server(tmp_path, deal_seed, monkeypatch):
    blast_mode.registered(monkeypatch)
    ask_mode.registered(monkeypatch)
    database = tmp_path / "games.sqlite3"
    with live_server(database, deals=Deals(seed=deal_seed)) as url:
        yield url, database


def new_game(player: httpx.Client, mode: str) -> dict:
    made = player.post("/api/games", json={"mode": mode, **SIZE})
    assert made.status_code == 201, made.text
    return made.json()


def act(player: httpx.Client, game_id: str, action: str, cell: tuple[int, int] | None = None) -> httpx.Response:
    return player.post(f"/api/games/{game_id}/moves", json={"action": action, **cell_of(cell)})


def act_on_page(player: httpx.Client, game_id: str, action: str, cell: tuple[int, int] | None = None) -> str:
    """The action as the page's script sends it; the panel's message."""
    version = api(player, game_id)["version"]
    form = {"action": action, "version": str(version), **{k: str(v) for k, v in cell_of(cell).items()}}
    answer = player.post(f"/games/{game_id}/moves", data=form, headers=HTMX)
    message = re.search(r'<p id="message" class="message[^"]*"[^>]*>([^<]*)</p>', answer.text)
    return message.group(1) if message else ""


def cell_of(cell: tuple[int, int] | None) -> dict[str, int]:
    return {} if cell is None else {"x": cell[0], "y": cell[1]}


def opened(player: httpx.Client, mode: str) -> dict:
    """A new game of `mode` with its first click played, still to be won."""
    game = new_game(player, mode)
    answer = act(player, game["id"], "reveal", CENTRE)
    assert answer.status_code == 200, answer.text
    game = answer.json()
    assert game["status"] == "playing" and covered(game), "an opening cleared a 16x16 board of 40 mines"
    return game


def square(game: dict, x: int, y: int) -> set[tuple[int, int]]:
    return {
        (x + dx, y + dy)
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        if 0 <= x + dx < game["width"] and 0 <= y + dy < game["height"]
    }


def frontier(game: dict) -> tuple[int, int]:
    """A covered cell beside an open one: a blast there opens the square around it, mines or not."""
    board = game["board"]
    return next(cell for cell in covered(game) if any(board[y][x] in "012345678" for x, y in square(game, *cell)))


# ----- Blast: an action of the mode's own on a cell's square ------------------------------------------


def test_a_blast_opens_the_square_around_the_cell_it_names_or_loses_on_a_mine_in_it(server) -> None:
    url, _ = server
    with client(url) as player:
        game = new_game(player, "test-blast")
        assert game["blast"] == {"blasts": 0} and game.get("two_players") is None
        early = act(player, game["id"], "blast", CENTRE)
        assert early.status_code == 409 and "first click" in early.json()["detail"]
        game = opened(player, "test-blast")
        # The first click's cell opened an area: around it nothing is left to blast, and nothing is counted.
        empty = act(player, game["id"], "blast", CENTRE)
        assert empty.status_code == 409 and "Nothing to blast" in empty.json()["detail"]
        nameless = act(player, game["id"], "blast")
        assert nameless.status_code == 422 and "x and y" in nameless.json()["detail"], "a blast names a cell"
        # Another mode's own action is the mode's to refuse, by the actions it takes.
        foreign = act(player, game["id"], "ask")
        assert foreign.status_code == 422 and "unknown action 'ask'" in foreign.json()["detail"]
        assert api(player, game["id"])["blast"] == {"blasts": 0}
        x, y = frontier(game)
        aimed = square(game, x, y) & set(covered(game))
        blasted = act(player, game["id"], "blast", (x, y))
        assert blasted.status_code == 200, blasted.text
        after = blasted.json()
        assert after["blast"] == {"blasts": 1}
        if after["status"] == "lost":
            # The blast stops at its mine: what it had not opened yet stays covered.
            assert tuple(after["exploded"]) in aimed
        else:
            assert not aimed & set(covered(after)), "every covered cell of the square is open"


def test_a_blast_from_the_page_answers_with_the_square_opened(server) -> None:
    url, _ = server
    with client(url) as player:
        game = opened(player, "test-blast")
        x, y = frontier(game)
        message = act_on_page(player, game["id"], "blast", (x, y))
        after = api(player, game["id"])
        assert after["blast"] == {"blasts": 1}
        assert message == f"Blasted around column {x + 1}, row {y + 1}." or after["status"] == "lost"


# ----- Ask: an action of the mode's own that names no cell -------------------------------------------


def proven_safe(player: httpx.Client, game_id: str) -> list[list[int]]:
    status = player.get(f"/api/games/{game_id}/analysis").json()["status"]
    return [[x, y] for y, row in enumerate(status) for x, symbol in enumerate(row) if symbol == "s"]


def test_two_asks_count_what_is_proven_and_a_third_gives_up_with_those_cells(server) -> None:
    url, _ = server
    with client(url) as player:
        early = act(player, new_game(player, "test-ask")["id"], "ask")
        assert early.status_code == 409 and "before the first click" in early.json()["detail"]
        game = opened(player, "test-ask")
        assert game["ask"] == {"asks": 0, "free_left": 2, "missed": []}
        proven = proven_safe(player, game["id"])
        assert act_on_page(player, game["id"], "ask") == (
            f"Asked: {len(proven)} covered cell{'s' * (len(proven) != 1)} can be proven safe."
        )
        second = act(player, game["id"], "ask")
        assert second.status_code == 200 and second.json()["ask"] == {"asks": 2, "free_left": 0, "missed": []}
        given_up = act(player, game["id"], "ask").json()
        assert given_up["status"] == "lost" and given_up["exploded"] is None
        assert given_up["ask"]["missed"] == proven and given_up["ask"]["asks"] == 2
        assert act(player, game["id"], "ask").status_code == 409, "a lost game takes no more asks"


def ask_game_at(player: httpx.Client, database, rows: list[str], mines: list[int]) -> str:
    """An Ask game on a hand-made position with its layout (`mines`, by index): what no deal promises."""
    game_id = new_game(player, "test-ask")["id"]
    put_position(database, game_id, rows, len(mines), hidden={"mines": mines})
    return game_id


# A position with one cell proven safe, (4, 1): the 2 between the 1s has one mine above it and one below.
PROVEN = ["0001.", "0002.", "0001."]
PROVEN_MINES = [4, 14]


def test_a_game_given_up_outlines_the_cells_proven_safe_on_its_page(server) -> None:
    url, database = server
    with client(url) as player:
        game_id = ask_game_at(player, database, PROVEN, PROVEN_MINES)
        for _ in range(3):
            assert act(player, game_id, "ask").status_code == 200
        page = player.get(f"/games/{game_id}").text
        outlined = re.search(r'<p id="hint" class="hint review"[^>]* data-safe="([^"]*)"', page)
        assert outlined is not None and outlined.group(1).split() == ["c-4-1"]
        assert "You gave up after 2 asks" in page and page.count('id="hint"') == 1
        # Its own words for them (Mode.missed_words), not Help's.
        assert "could be proven safe when you gave up" in page and "when you asked" not in page


# A position with no cell proven safe: one 1 among eleven covered cells, two of them mines.
GUESS = ["..1.", "....", "...."]
GUESS_MINES = [0, 1]


def test_the_bot_asks_before_its_first_guess_in_the_modes_own_words(server) -> None:
    url, database = server
    with client(url) as player:
        game_id = ask_game_at(player, database, GUESS, GUESS_MINES)
        choice = player.get(f"/api/games/{game_id}/bot")
        assert choice.status_code == 200, choice.text
        assert choice.json()["action"] == "ask" and not choice.json()["safe"]
        words = player.get(f"/games/{game_id}/bot", headers=HTMX).text
        assert "The bot would ask before its first guess" in words
        played = player.post(f"/api/games/{game_id}/bot")
        assert played.status_code == 200 and played.json()["ask"]["asks"] == 1
        assert player.get(f"/api/games/{game_id}/bot").json()["action"] == "reveal", "it asks once a game"


# ----- the pages: each mode's own controls on its games alone ----------------------------------------


FACE_TAGS = {
    "test-blast": (
        'id="blast-button"',
        '<script type="module" src="/static/modes/test-blast/blast.js"></script>',
        '<link rel="stylesheet" href="/static/modes/test-blast/blast.css">',
        'data-actions="reveal flag chord undo blast"',
        'data-blast-reach="1"',
    ),
    "test-ask": (
        'id="ask-button"',
        '<script type="module" src="/static/modes/test-ask/ask.js"></script>',
        'data-actions="reveal flag chord undo ask"',
    ),
}


def test_each_game_page_offers_its_modes_own_controls_and_no_other_page_does(server) -> None:
    url, _ = server
    with client(url) as player:
        home = player.get("/").text
        assert 'value="test-blast medium"' in home and 'value="test-ask medium"' in home
        pages = {}
        for mode in (*FACE_TAGS, "classic"):
            made = player.post("/games", data={"choice": f"{mode} {'beginner' if mode == 'classic' else 'medium'}"})
            assert made.status_code == 303, made.text
            pages[mode] = player.get(made.headers["location"]).text
        for mode, tags in FACE_TAGS.items():
            for tag in tags:
                assert tag in pages[mode], (mode, tag)
                for other in pages.keys() - {mode}:
                    assert tag not in pages[other], (other, tag)
        for name in ("blast.js", "blast.css"):
            assert player.get(f"/static/modes/test-blast/{name}").status_code == 200
        assert player.get("/static/modes/test-ask/ask.js").status_code == 200
        assert player.get("/static/modes/test-ask/toolbar.html").status_code == 404


def test_no_shared_file_names_these_modes_their_actions_their_state_or_their_faces_parts() -> None:
    modes = (blast_mode.Blast, ask_mode.Ask)
    own = {mode.name for mode in modes} | {action for mode in modes for action in mode.extra_actions}
    # Keys the registered modes keep too (Help's "missed") are test_boundaries.py's to check.
    keys = set().union(*(schema_keys(mode.state_schema) for mode in modes)) - set().union(*KEPT_BY.values())
    assert found(re.compile(rf"""["']({alternatives(own | keys)})["']"""), SHARED_TEXT) == {}
    assert found(re.compile(r"[.#][\w-]*\b(blast|ask)\b[\w-]*"), SHARED_STYLES) == {}


# ----- in the browser: each face's script through the board's interface -------------------------------


def open_game(browser, url: str, choice: str, errors: list[str], faces: list[str]):
    context = browser.new_context(base_url=url, viewport={"width": 1366, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(seconds(10) * 1000)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: faces.append(request.url) if "/static/modes/" in request.url else None)
    page.goto("/")
    page.click(f"button[value='{choice}']")
    page.wait_for_url("**/games/*")
    page.wait_for_load_state()
    return context, page


def api_of(page, game_id: str) -> dict:
    return page.request.get(f"/api/games/{game_id}").json()


def first_click(page, game_id: str) -> dict:
    x, y = CENTRE
    page.click(f"#c-{x}-{y}")
    page.wait_for_function(f"!document.getElementById('c-{x}-{y}').classList.contains('u')")
    return api_of(page, game_id)


def test_blasts_tool_aims_the_square_and_the_next_click_blasts_there(server, browser) -> None:
    url, _ = server
    errors: list[str] = []
    faces: list[str] = []
    context, page = open_game(browser, url, "test-blast medium", errors, faces)
    try:
        assert sorted(address.rsplit("/", 1)[1] for address in faces) == ["blast.css", "blast.js"]
        game_id = page.get_attribute("#board", "data-game")
        game = first_click(page, game_id)
        x, y = frontier(game)
        page.click("#blast-button")
        assert page.get_attribute("#blast-button", "aria-pressed") == "true"
        target = page.locator(f"#c-{x}-{y}")
        target.hover()
        aimed = page.eval_on_selector_all(".blast-aim", "cells => cells.map(cell => cell.id)")
        assert sorted(aimed) == sorted(f"c-{cx}-{cy}" for cx, cy in square(game, x, y))
        assert page.locator("#board").evaluate("board => getComputedStyle(board.querySelector('.c.u')).cursor") == (
            "crosshair"
        ), "the face's stylesheet"
        target.click()
        wait_until(lambda: api_of(page, game_id)["blast"]["blasts"] == 1, 10, "the tool's blast was not played")
        # The page shows what the answer opened: the square, or the square up to the mine that lost.
        after = api_of(page, game_id)
        blasted = [
            f"c-{cx}-{cy}" for cx, cy in square(game, x, y) & set(covered(game)) if after["board"][cy][cx] != "."
        ]
        assert blasted, "a blast opens at least one cell"
        page.wait_for_function(
            "ids => ids.every(id => !document.getElementById(id).classList.contains('u'))", arg=blasted
        )
        assert page.get_attribute("#blast-button", "aria-pressed") == "false"
        assert page.locator(".blast-aim").count() == 0, "the tool is put away with its square"
        # X arms it and puts it away, as the button does.
        page.keyboard.press("x")
        assert page.get_attribute("#blast-button", "aria-pressed") == "true"
        page.keyboard.press("x")
        assert page.get_attribute("#blast-button", "aria-pressed") == "false"
    finally:
        context.close()
    assert not errors, errors


def test_asks_button_and_key_send_the_ask_and_the_panel_counts_it(server, browser) -> None:
    url, _ = server
    errors: list[str] = []
    faces: list[str] = []
    context, page = open_game(browser, url, "test-ask medium", errors, faces)
    try:
        assert [address.rsplit("/", 1)[1] for address in faces] == ["ask.js"]
        game_id = page.get_attribute("#board", "data-game")
        page.click("#ask-button")
        page.wait_for_selector("#message.refused")
        assert "before the first click" in page.text_content("#message")
        first_click(page, game_id)
        page.click("#ask-button")
        page.wait_for_function("document.querySelector('#asks').textContent === '1'")
        assert page.text_content("#message").startswith("Asked: ")
        page.keyboard.press("k")
        page.wait_for_function("document.querySelector('#asks').textContent === '2'")
        assert api_of(page, game_id)["ask"]["asks"] == 2
    finally:
        context.close()
    assert not errors, errors
