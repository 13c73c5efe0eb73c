"""Aids (issue 41, point 4): every route that tells a player something about covered cells, or takes back what a
move cost, marks the game (Game.aids, listed whole in app.core.game.AIDS with the settings that help), and a board of
the day won with any of them is no clean win. Every route of a game is classified below: a new one fails
test_every_route_of_a_game_is_classified until it is."""

from __future__ import annotations

import asyncio
import datetime

import httpx
import pytest

from app.core.game import AIDS, Move
from app.results.daily import DailyBoard
from app.web.routes import ROUTERS
from tests.live import put_layout, seconds
from tests.test_daily import MIDNIGHT, played_out, service  # noqa: F401  (service: on memory and on SQLite)

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000}
HTMX = {"HX-Request": "true"}
# The corner 1 holds the only mine among its neighbours: every other cell is proven safe, none yet opened.
PROVABLE = ["oo..", "o*..", "...."]

# Each route that tells about covered cells, with the aid it marks (a setting that helps marks its own name).
TELLS = {
    ("GET", "/api/games/{game_id}/bot"): "bot",
    ("POST", "/api/games/{game_id}/bot"): "bot",
    ("GET", "/games/{game_id}/bot"): "bot",
    ("POST", "/games/{game_id}/bot"): "bot",
    ("POST", "/api/games/{game_id}/hint"): "hint",
    ("POST", "/games/{game_id}/hint"): "hint",
    ("GET", "/api/games/{game_id}/analysis"): "analysis",
    ("GET", "/api/games/{game_id}/probabilities"): "analysis",
    ("PATCH", "/api/games/{game_id}/options"): "probabilities",
    ("POST", "/games/{game_id}/options"): "debug_overlay",
    # An undo takes back what a move cost: a mine's place, once lost.
    ("POST", "/api/games/{game_id}/moves"): "undo",
    ("POST", "/games/{game_id}/moves"): "undo",
}
# Every other route of a game, and why it tells nothing of its covered cells.
TELLS_NOTHING = {
    ("GET", "/api/games/{game_id}"): "what the player sees",
    ("GET", "/games/{game_id}"): "what the player sees (overlays are settings, marked when turned on)",
    ("GET", "/games/{game_id}/live"): "what the player sees, as it changes",
    ("GET", "/games/{game_id}/events"): "that the game changed",
    ("GET", "/games/{game_id}/watch/{key}"): "another seat's view: what its players see",
    ("GET", "/games/{game_id}/watch/{key}/live"): "another seat's view, as it changes",
    ("GET", "/games/{game_id}/watch/{key}/events"): "that the game changed",
    ("GET", "/games/{game_id}/join/{key}"): "an invitation",
    ("POST", "/games/{game_id}/join/{key}"): "taking an invitation's seat",
    ("POST", "/games/{game_id}/free-seat"): "a seat given back",
    ("POST", "/api/games/{game_id}/restart"): "a new game: refused where another game of the board would tell",
    ("POST", "/games/{game_id}/restart"): "a new game: refused where another game of the board would tell",
    ("DELETE", "/api/games/{game_id}"): "deletes the game",
    ("POST", "/games/{game_id}/delete"): "deletes the game",
    ("GET", "/api/games/{game_id}/review"): "a finished game's story only",
    ("GET", "/games/{game_id}/replay"): "a finished game's story only",
    ("GET", "/games/{game_id}/replay/overlay"): "a finished game's story only",
    ("GET", "/replays/{game_id}/{key}"): "a finished game's story only",
    ("GET", "/replays/{game_id}/{key}/overlay"): "a finished game's story only",
    ("POST", "/api/games/{game_id}/share"): "a finished game's link",
    ("DELETE", "/api/games/{game_id}/share"): "a finished game's link",
    ("POST", "/games/{game_id}/share"): "a finished game's link",
}


def routes_of_a_game() -> set[tuple[str, str]]:
    return {
        (method, route.path)
        for router in ROUTERS
        for route in router.routes
        for method in route.methods
        if "{game_id}" in route.path
    }


def test_every_route_of_a_game_is_classified():
    assert routes_of_a_game() == TELLS.keys() | TELLS_NOTHING.keys()
    assert not TELLS.keys() & TELLS_NOTHING.keys()
    assert {aid for aid in TELLS.values() if aid in AIDS} == {"bot", "hint", "analysis", "undo"}


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server, timeout=seconds(30)) as client:
        yield client


def asked(client: httpx.Client, method: str, path: str, game_id: str) -> httpx.Response:
    """The route asked as its page or a script asks it, on a game where a cell is proven safe."""
    url = path.format(game_id=game_id)
    if path.endswith("/options"):
        if method == "PATCH":
            return client.patch(url, json={"probabilities": True})
        return client.post(url, data={"debug_overlay": "on"}, headers=HTMX)
    if path.endswith("/moves"):
        form = {"action": "undo"}
        return client.post(url, json=form) if path.startswith("/api") else client.post(url, data=form, headers=HTMX)
    if method == "POST" and not path.startswith("/api"):
        return client.post(url, headers=HTMX)
    return client.request(method, url, headers=HTMX)


@pytest.mark.parametrize(("method", "path"), sorted(TELLS), ids=lambda part: part)
def test_each_route_that_tells_marks_the_game(client, database, method, path):
    made = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "mode": "classic"})
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    put_layout(database, game_id, PROVABLE)
    flagged = client.post(f"/api/games/{game_id}/moves", json={"action": "flag", "x": 3, "y": 2})
    assert flagged.status_code == 200 and flagged.json()["aids"] == [], flagged.text
    answer = asked(client, method, path, game_id)
    assert answer.status_code == 200, answer.text
    game = client.get(f"/api/games/{game_id}").json()
    assert TELLS[(method, path)] in game["aids"], (method, path, game["aids"])


def test_the_bots_advice_on_a_board_of_the_day_takes_its_clean_mark(service, small_dailies):  # noqa: F811
    """The issue's case: "What would the bot do?" named a proven-safe cell, as Show me does, and the board of the
    day cleared on it ranked as a clean win."""
    board = DailyBoard(datetime.date(2026, 11, 26), "classic")
    for player, asks in (("ann", True), ("bob", False)):
        game_id, game = asyncio.run(service.daily.play_daily(player, "client", board.key))
        game = asyncio.run(service.games.move(game_id, player, Move("reveal", *game.cell(game.state["start"])))).after
        if asks:
            game, choice = asyncio.run(service.aids.bot_choice(game_id, player))
            assert choice.safe and game.aids == ["bot"]
            game = asyncio.run(service.games.move(game_id, player, Move("reveal", *choice.cell))).after
        assert played_out(service, game_id, player, game).status == "won"
    _, (_, classic) = asyncio.run(service.daily.ladders(board.date.isoformat(), "carol"))
    assert classic.counts == (1, 1, 0)
    lines = {line.entry["aids"] and "ann" or "bob": line for line in classic.lines}
    assert lines["bob"].place == 1 and lines["ann"].place is None and lines["ann"].entry["aids"] == ["bot"]
    assert MIDNIGHT < service.clock() < MIDNIGHT + 86400
