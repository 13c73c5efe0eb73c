"""Modes behind one interface: the registry, and no answer that shows a mode's hidden state before the end.

Every registered mode is walked, and a test-only mode that deals a fixed
layout at creation (tests/fixed_mode.py) with them: cruel mode's only secret
is the seed of its deals, so a layout kept in advance is checked there.
"""

from __future__ import annotations

import json
import random
import sqlite3

import httpx
import pytest

from app.core.game import Invalid, Move
from app.core.seats import Player
from app.modes import MODES, CruelOptions, apply_move, get_mode, new_game
from solver import Analyzer, Position
from solver.strategy import progress_cell
from tests.fixed_mode import FixedLayout, registered
from tests.live import seconds

pytestmark = pytest.mark.usefixtures("seeded")
# Run over many seeds (--deal-seeds) the tests create many games from one address.
SERVER_SETTINGS = {"create_limit": 100_000}


def test_the_registry_names_every_mode_and_refuses_others():
    assert "cruel" in MODES and all(name == mode.name for name, mode in MODES.items())
    with pytest.raises(Invalid, match="unknown mode 'nonsense': expected one of cruel"):
        get_mode("nonsense")
    with pytest.raises(Invalid, match="unknown setting 'allow_guessing'"):
        get_mode("cruel").options(allow_guessing=True)
    game = new_game(9, 9, 10, options=CruelOptions(allow_outside=True), seats=[Player("alice")], rng=random.Random(0))
    assert game.mode == "cruel" and game.options.allow_outside and game.state == {"forced_guesses": 0}
    # Cruel games keep no layout, only the 128-bit seed their deals come from.
    assert set(game.hidden) == {"deal_seed"} and int(game.hidden["deal_seed"], 16) < 2**128


def test_a_mode_with_a_secret_plays_through_the_shared_flow(monkeypatch):
    registered(monkeypatch)
    game = new_game(5, 5, 5, mode=FixedLayout.name, rng=random.Random(1))
    mines = set(game.hidden["mines"])
    safe = next(index for index in range(25) if index not in mines)
    after, _ = apply_move(game, Move("reveal", *game.cell(safe)), rng=random.Random(2), now=1.0)
    assert after.cells[safe] != "." and after.status in ("playing", "won") and after.hidden == game.hidden
    lost, _ = apply_move(after, Move("reveal", *after.cell(min(mines))), rng=random.Random(2), now=2.0)
    assert lost.status == "lost" and set(lost.shown_mines) == mines
    back, _ = apply_move(lost, Move("undo"), rng=random.Random(2), now=3.0)
    assert back.status == after.status and back.shown_mines is None and back.cells == after.cells


# The modes of Flags show the mines their players found as they play: tests/test_flags_web.py checks them its own way.
MODE_NAMES = [*(name for name, mode in MODES.items() if not mode.mines_score), FixedLayout.name]


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_no_answer_shows_a_modes_hidden_state_before_the_end(mode, monkeypatch, server, database):
    if mode == FixedLayout.name:
        registered(monkeypatch)
    with httpx.Client(base_url=server, timeout=seconds(30)) as client:
        created = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "mode": mode})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        api, page = f"/api/games/{game_id}", f"/games/{game_id}"
        htmx = {"HX-Request": "true"}

        def stored() -> dict:
            with sqlite3.connect(database) as connection:
                return json.loads(connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()[0])

        def answers_of_one_step(step: int) -> list[httpx.Response]:
            game = client.get(api).json()
            cell = progress_cell(Analyzer(Position(9, 9, 10, tuple(game["board"]))))
            x, y = cell
            revealed = next(
                ((cx, cy) for cy, row in enumerate(game["board"]) for cx, s in enumerate(row) if s in "012345678"),
                (9, 9),
            )
            responses = [
                client.get(api),
                client.get(page),
                client.get(f"{api}/analysis"),
                client.post(f"{api}/hint"),
                client.post(f"{page}/hint", data={"show": "yes"}, headers=htmx),
                client.post(
                    f"{api}/moves", json={"action": "flag", "x": revealed[0], "y": revealed[1]}
                ),  # refused: 409 or 422
                client.post(
                    f"{page}/moves", data={"action": "reveal", "x": "99", "y": "0", "version": "0"}, headers=htmx
                ),
                client.patch(f"{api}/options", json={"debug_overlay": step % 2 == 0}),
            ]
            # The move itself, through the API and the page in turn.
            if step % 2:
                version = client.get(api).json()["version"]
                data = {"action": "reveal", "x": str(x), "y": str(y), "version": str(version)}
                responses.append(client.post(f"{page}/moves", data=data, headers=htmx))
            else:
                responses.append(client.post(f"{api}/moves", json={"action": "reveal", "x": x, "y": y}))
            return responses

        # Each reveal opens at least one cell or ends the game: the game ends within this many moves.
        for step in range(9 * 9 - 10):
            before = stored()
            responses = answers_of_one_step(step)
            for response in responses[:-1]:
                assert response.status_code in (200, 409, 422), (response.request.url, response.text)
                assert_nothing_hidden_shows(response.text, before)
            move = responses[-1]
            assert move.status_code == 200, move.text
            after = stored()
            if after["status"] == "playing":
                assert_nothing_hidden_shows(move.text, after)
            else:
                # The end shows the mines, exactly those the game kept.
                board = client.get(api).json()["board"]
                shown = {y * 9 + x for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol == "*"}
                assert shown == set(after["shown_mines"])
                if "mines" in (after["hidden"] or {}):
                    assert shown == set(after["hidden"]["mines"])
                return
    pytest.fail("the game did not end although every safe cell was opened")


def assert_nothing_hidden_shows(text: str, stored: dict) -> None:
    """No mine, exploded cell, wrong flag or stored secret in an answer given while the game is played."""
    assert stored["status"] == "playing"
    if text.startswith("{"):
        answer = json.loads(text)
        assert not {"hidden", "layout", "shown_mines"} & set(answer), answer
        for row in answer.get("board", []):
            assert "*" not in row
    else:
        for look in ('class="c m"', 'class="c x"', 'class="c f w"'):  # a mine, the mine hit, a wrong flag
            assert look not in text, look
    if stored["hidden"] is not None:
        assert json.dumps(stored["hidden"]) not in text
        # A secret not yet dealt (a layout before the first click) is null: nothing to reveal.
        for value in (value for value in stored["hidden"].values() if value is not None):
            assert json.dumps(value) not in text and json.dumps(value).replace(" ", "") not in text
            if isinstance(value, str):
                assert value not in text  # a seed, unquoted
