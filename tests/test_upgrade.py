"""Games stored by an earlier release still load and play.

tests/stored/games-before-typed-seats.sqlite3 was written by the release before typed seats (commit
2d1236d, through its web pages): classic, cruel and help games in play, and Flags on one screen, by an
open invitation, by an invitation taken and played, and against the computer. That release stored a
game's seats as the strings that open it ("link:" and a key for an invitation, "computer"), and kept in
Flags' state who filled Red's seat.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.game import Move, Refused
from app.core.seats import Computer, Invitation, Player, watcher
from app.service import Deals, GameService
from app.service.kept import KEPT
from app.store.sqlite import SQLiteStore
from tests.live import seconds

OLD = Path(__file__).parent / "stored" / "games-before-typed-seats.sqlite3"


@pytest.fixture
def database(tmp_path) -> Path:
    copy = tmp_path / "games.sqlite3"
    shutil.copy(OLD, copy)
    return copy


def rows(database: Path) -> dict[str, tuple[list[str], dict]]:
    """Each game's credentials as the seats table holds them, and its stored data."""
    with sqlite3.connect(database) as connection:
        credentials: dict[str, list[str]] = {}
        for game_id, player in connection.execute("SELECT game_id, player FROM seats ORDER BY game_id, seat"):
            credentials.setdefault(game_id, []).append(player)
        data = dict(connection.execute("SELECT id, data FROM games"))
    return {game_id: (credentials[game_id], json.loads(data[game_id])) for game_id in data}


def by_kind(database: Path) -> dict[str, str]:
    """The file's games by what they are, told from the old data itself."""
    kinds = {}
    for game_id, (credentials, data) in rows(database).items():
        if data["mode"] != "flags":
            kinds[data["mode"]] = game_id
        elif credentials[1] == "computer":
            kinds["computer"] = game_id
        elif credentials[1].startswith("link:"):
            kinds["taken" if len(credentials) == 3 else "open"] = game_id
        else:
            kinds["screen"] = game_id
    assert sorted(kinds) == ["classic", "computer", "cruel", "help", "open", "screen", "taken"], kinds
    return kinds


def service_on(database: Path) -> GameService:
    settings = Settings(database=database, secret_key="a key for the old database only", computer_pause=0.0)
    return GameService(SQLiteStore(database, kept=KEPT), settings, Deals(seed=3))


def covered_cell(game) -> tuple[int, int]:
    return game.cell(
        next(index for index, symbol in enumerate(game.cells) if symbol == "." and index not in game.marks)
    )


def test_the_old_file_holds_what_this_test_expects() -> None:
    old = rows(OLD)
    assert all(isinstance(seat, str) for credentials, data in old.values() for seat in data["seats"])
    assert any("opponent" in data["state"] for _, data in old.values())


def test_every_game_loads_with_typed_seats(database) -> None:
    kinds, old = by_kind(database), rows(database)
    store = SQLiteStore(database, kept=KEPT)
    try:
        for kind, game_id in kinds.items():
            credentials, data = old[game_id]
            maker = credentials[0]
            game = store.load(game_id, maker)
            assert game.maker == maker and game.credentials() == credentials, kind
            if kind in ("classic", "cruel", "help"):
                assert game.seats == [Player(maker)]
            elif kind == "screen":
                assert game.seats == [Player(maker), Player(maker)]
            elif kind == "computer":
                assert game.seats == [Player(maker), Computer(data["state"]["level"])]
            elif kind == "open":
                assert game.seats == [Player(maker), Invitation(credentials[1].removeprefix("link:"))]
            else:
                assert game.seats == [Player(maker), Invitation(credentials[1].removeprefix("link:"), credentials[2])]
            assert "opponent" not in game.state and all("opponent" not in record["state"] for record in game.history)
            assert game.version == data["version"] and game.cells == list(data["cells"])
    finally:
        store.close()


def test_every_game_plays_on_and_is_stored_in_todays_shape(database) -> None:
    kinds, old = by_kind(database), rows(database)

    async def scene() -> None:
        service = service_on(database)
        try:
            for kind in ("classic", "cruel", "help", "screen", "computer"):
                game_id = kinds[kind]
                maker = old[game_id][0][0]
                game = await service.games.load(game_id, maker)
                if game.status != "playing":
                    continue
                x, y = covered_cell(game)
                result = await service.games.move(game_id, maker, Move("reveal", x, y))
                assert result.after.version == game.version + 1, kind
            # The open invitation: a new player takes the seat by its key.
            game_id = kinds["open"]
            key = old[game_id][0][1].removeprefix("link:")
            assert await service.seats.join(game_id, key, "newcomer")
            joined = await service.games.load(game_id, "newcomer")
            assert joined.seats[1] == Invitation(key, "newcomer")
            # The taken one: whoever's turn it is moves; the other seat is refused.
            game_id = kinds["taken"]
            blue, _, red = old[game_id][0]
            game = await service.games.load(game_id, blue)
            mover, waiter = (blue, red) if game.state["turn"] == 0 else (red, blue)
            x, y = covered_cell(game)
            with pytest.raises(Refused, match="turn"):
                await service.games.move(game_id, waiter, Move("reveal", x, y))
            moved = await service.games.move(game_id, mover, Move("reveal", x, y))
            # Whoever holds the link still watches it.
            watched = await service.games.load(game_id, watcher(old[game_id][0][1].removeprefix("link:")))
            assert watched.version == moved.after.version
            # The computer answers Blue's move, as before.
            computer = kinds["computer"]
            deadline = time.monotonic() + seconds(5)
            while True:
                game = await service.games.load(computer, old[computer][0][0])
                if game.status != "playing" or game.state["turn"] == 0:
                    break
                assert time.monotonic() < deadline, "the computer did not move within 5 seconds"
                await asyncio.sleep(0.01)
        finally:
            service.close()

    asyncio.run(scene())
    for game_id, (credentials, data) in rows(database).items():
        assert all(isinstance(seat, dict) for seat in data["seats"]), "saved in today's shape"
        assert "opponent" not in data["state"] and "level" not in data["state"]
        assert credentials == old[game_id][0] or game_id == kinds["open"]
