"""Damaged stored games (issue 8): each is answered "damaged", nothing of it is saved, and the player plays on.

Real uvicorns on a real SQLite file (tests/live.py) for the damage a row can
hold, and on a real redis-server (tests/redis_server.py) for keys of the
wrong type. One server plays a game, the damage is done to what the store
keeps, and a second server on the same store (another worker: it has nothing
of the game cached) meets it. Every variant is checked through the HTTP API:
the answer is the "damaged" message, what is stored is byte for byte what it
was, and the same player plays a new game. A property test then damages a
stored game at random: loading it gives a playable Game or Corrupt, nothing else.
"""

from __future__ import annotations

import copy
import json
import random
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import markupsafe
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from app.core.game import Move, Refused
from app.core.seats import Player
from app.modes import apply_move, new_game
from app.service.kept import KEPT
from app.store import Corrupt, SQLiteStore
from app.web.errors import ANSWERS
from app.web.views.game import Look
from tests.live import live_server, seconds
from tests.redis_server import redis_server
from tests.test_store import game_for

pytestmark = pytest.mark.usefixtures("seeded")
# Every variant starts a game or two from the one test address.
SERVER_SETTINGS = {"create_limit": 100_000}

DAMAGED = ANSWERS[Corrupt]


@pytest.fixture(scope="module")
def second_server(server, database, deals):
    """Another worker on the same SQLite file (the first made the secret that signs cookies: both read it)."""
    with live_server(database, deals=deals, **SERVER_SETTINGS) as url:
        yield url


@pytest.fixture
def client(server):
    # A client of its own per test: a new player, whose games are only the test's.
    with httpx.Client(base_url=server, timeout=seconds(30)) as client:
        yield client


@contextmanager
def same_player(client: httpx.Client, url: str) -> Iterator[httpx.Client]:
    """The client's player, on another server."""
    with httpx.Client(base_url=url, cookies=client.cookies, timeout=seconds(30)) as other:
        yield other


def start(client: httpx.Client) -> dict:
    """A game with two undo records: a flag at (0, 0), then a reveal at (4, 4) (the first reveal is always safe)."""
    game = client.post("/api/games", json={"width": 9, "height": 9, "mines": 25})
    assert game.status_code == 201, game.text
    game_id = game.json()["id"]
    for move in ({"action": "flag", "x": 0, "y": 0}, {"action": "reveal", "x": 4, "y": 4}):
        answer = client.post(f"/api/games/{game_id}/moves", json=move)
        assert answer.status_code == 200, answer.text
    return answer.json()


def plays_on(client: httpx.Client) -> None:
    """The player's other games are fine: a new one is made and played, and the home page answers."""
    start(client)
    assert client.get("/", follow_redirects=True).status_code == 200


def is_damaged(answer: httpx.Response) -> bool:
    # English words for scripts, and the same sentence for a person (English asked, English answered).
    words = str(DAMAGED.message(Corrupt("game g: damaged")))
    return answer.status_code == DAMAGED.status and answer.json() == {"detail": words, "message": words}


# ----- a stored row, read and written as SQLite keeps it -------------------------


@dataclass
class Row:
    """A game as the SQLite store keeps it: its state, its undo records and the two counts beside them."""

    data: Any  # the JSON object, or text for damage to the text itself
    records: list[Any]
    version: Any
    history_length: Any

    @property
    def cells(self) -> str:
        return self.data["cells"]

    def covered(self) -> int:
        return next(i for i, symbol in enumerate(self.cells) if symbol == "." and str(i) not in self.data["marks"])

    def revealed(self) -> int:
        return next(i for i, symbol in enumerate(self.cells) if symbol != ".")


def read_row(database, game_id: str) -> Row:
    with closing(sqlite3.connect(database)) as connection:
        version, data, history_length = connection.execute(
            "SELECT version, data, history_length FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        records = connection.execute("SELECT record FROM history WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
    return Row(json.loads(data), [json.loads(record) for (record,) in records], version, history_length)


def write_row(database, game_id: str, row: Row) -> None:
    def text(value: Any) -> str:
        return value if isinstance(value, str) else json.dumps(value)

    with closing(sqlite3.connect(database)) as connection, connection:
        connection.execute(
            "UPDATE games SET data = ?, version = ?, history_length = ? WHERE id = ?",
            (text(row.data), row.version, row.history_length, game_id),
        )
        connection.execute("DELETE FROM history WHERE game_id = ?", (game_id,))
        connection.executemany(
            "INSERT INTO history (game_id, seq, record) VALUES (?, ?, ?)",
            [(game_id, seq, text(record)) for seq, record in enumerate(row.records)],
        )


def stored_bytes(database, game_id: str) -> tuple:
    """Everything the store keeps of a game, exactly as it is on disk."""
    with closing(sqlite3.connect(database)) as connection:
        return (
            connection.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchall(),
            connection.execute("SELECT * FROM history WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall(),
            connection.execute("SELECT * FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)).fetchall(),
        )


def changed(**fields: Any) -> Callable[[Row], None]:
    return lambda row: row.data.update(fields)


def record_cell(row: Row) -> str:
    """A cell the reveal's undo record puts back."""
    return next(iter(row.records[1]["cells"]))


DAMAGE: dict[str, Callable[[Row], None]] = {
    # A wrong type in each field that matters.
    "width as text": changed(width="9"),
    "height as a fraction": changed(height=9.0),
    "mines as a boolean": changed(mines=True),
    "cells as a list": lambda row: row.data.update(cells=list(row.cells)),
    "marks as a list": lambda row: row.data.update(marks=list(row.data["marks"].items())),
    "status as a number": changed(status=1),
    "exploded as text": changed(exploded="3"),
    "shown mines as text": changed(shown_mines="1,2"),
    "last cell as a fraction": changed(last_cell=4.5),
    "seats as one string": changed(seats="someone"),
    "options as a list": changed(options=["undo"]),
    "an option as a number": lambda row: row.data["options"].update(undo=1),
    "start time as text": changed(started_at="yesterday"),
    "start time not a number": changed(started_at=float("nan")),
    "finish time a boolean": changed(finished_at=True),
    "hints negative": changed(hints=-1),
    "version as text": changed(version="2"),
    "mode as a number": changed(mode=1),
    # Values out of range or unknown.
    "a board too big": changed(width=1000),
    "cells one short": lambda row: row.data.update(cells=row.cells[:-1]),
    "cells with a flag in them": lambda row: row.data.update(cells=row.cells.replace(".", "F", 1)),
    "more mines than covered cells": lambda row: row.data.update(mines=row.cells.count(".") + 1),
    "an unknown mark": lambda row: row.data["marks"].update({str(row.covered()): "X"}),
    "a mark off the board": lambda row: row.data["marks"].update({"81": "F"}),
    "a mark on a revealed cell": lambda row: row.data["marks"].update({str(row.revealed()): "F"}),
    "a mark's cell written oddly": lambda row: row.data["marks"].update({"0" + str(row.covered()): "F"}),
    "an unknown status": changed(status="paused"),
    "exploded off the board": changed(exploded=81),
    "last cell negative": changed(last_cell=-1),
    "an unknown option": lambda row: row.data["options"].update(turbo=True),
    "an unknown mode": changed(mode="classic"),
    "a secret in a mode that keeps none": changed(hidden={"mines": [1, 2]}),
    # The mode's own state.
    "mode state missing": lambda row: row.data.pop("state"),
    "mode state empty": changed(state={}),
    "mode state of the wrong type": changed(state={"forced_guesses": "0"}),
    "mode state with a stranger": changed(state={"forced_guesses": 0, "lives": 3}),
    # Undo records.
    "an undo record off the board": lambda row: row.records[1]["cells"].update({"81": "."}),
    "an undo record's cell not a number": lambda row: row.records[1]["cells"].update({"x": "."}),
    "an undo record's cell negative": lambda row: row.records[1]["cells"].update({"-1": "."}),
    "an undo record with an unknown symbol": lambda row: row.records[1]["cells"].update({record_cell(row): "F"}),
    "an undo record with an unknown mark": lambda row: row.records[0]["marks"].update({"0": "X"}),
    "an undo record without a status": lambda row: row.records[0].pop("status"),
    "an undo record with the wrong mode state": lambda row: row.records[0].update(state={"forced_guesses": None}),
    "an undo record's cells as a list": lambda row: row.records[1].update(cells=[]),
    "an undo record not JSON": lambda row: row.records.__setitem__(0, "{not JSON"),
    "an undo record not an object": lambda row: row.records.__setitem__(0, "[]"),
    "an undo record missing": lambda row: row.records.pop(),
    # The counts beside the data, and the text itself.
    "version column ahead of the data": lambda row: setattr(row, "version", row.version + 1),
    "version column behind the data": lambda row: setattr(row, "version", row.version - 1),
    "truncated JSON": lambda row: setattr(row, "data", json.dumps(row.data)[:200]),
    "JSON that is not an object": lambda row: setattr(row, "data", "[1, 2, 3]"),
    "JSON null": lambda row: setattr(row, "data", "null"),
}


def attempts(game: dict) -> list[tuple[str, str, dict | None]]:
    """Every way a player touches a game: look, move, undo, hint, settings, analysis."""
    x, y = a_covered_cell(game)
    url = f"/api/games/{game['id']}"
    return [
        ("GET", url, None),
        ("POST", f"{url}/moves", {"action": "reveal", "x": x, "y": y}),
        ("POST", f"{url}/moves", {"action": "flag", "x": x, "y": y}),
        ("POST", f"{url}/moves", {"action": "undo"}),
        ("POST", f"{url}/hint", None),
        ("PATCH", f"{url}/options", {"countdown": True}),
        ("GET", f"{url}/analysis", None),
    ]


def assert_damaged_every_way(player: httpx.Client, game: dict, stored: Callable[[], object]) -> None:
    """Every attempt on the game is answered that it is damaged, and what `stored` reads of it stays as it was."""
    before = stored()
    for method, url, body in attempts(game):
        answer = player.request(method, url, json=body)
        assert is_damaged(answer), (method, url, body, answer.status_code, answer.text)
    assert stored() == before


def damaged_on_disk(client: httpx.Client, database, damage: Callable[[Row], None]) -> dict:
    """A game played on the first server, then damaged where it is stored."""
    game = start(client)
    row = read_row(database, game["id"])
    damage(row)
    write_row(database, game["id"], row)
    return game


@pytest.mark.server
@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_game_is_answered_damaged_and_nothing_is_saved(client, second_server, database, damage):
    game = damaged_on_disk(client, database, DAMAGE[damage])
    with same_player(client, second_server) as player:
        assert_damaged_every_way(player, game, lambda: stored_bytes(database, game["id"]))
        plays_on(player)


def test_the_page_of_a_damaged_game_says_so(client, second_server, database):
    game = damaged_on_disk(client, database, DAMAGE["an undo record off the board"])
    with same_player(client, second_server) as player:
        page = player.get(f"/games/{game['id']}")
        assert page.status_code == DAMAGED.status and "text/html" in page.headers["content-type"]
        assert str(markupsafe.escape(DAMAGED.message(Corrupt("game g: damaged")))) in page.text
        plays_on(player)


def reveal_the_flag_on_undo(row: Row) -> None:
    """Well formed, but not of this game: undoing the reveal would show a number under the flag at (0, 0)."""
    row.records[1]["cells"]["0"] = "1"


def test_an_undo_into_an_impossible_board_saves_nothing(client, second_server, database):
    """The game reads fine until the undo, which is refused as damage; the stored game stays as it was."""
    game = damaged_on_disk(client, database, reveal_the_flag_on_undo)
    before = stored_bytes(database, game["id"])
    with same_player(client, second_server) as player:
        assert is_damaged(player.post(f"/api/games/{game['id']}/moves", json={"action": "undo"}))
        assert stored_bytes(database, game["id"]) == before
        assert player.get(f"/api/games/{game['id']}").json()["board"] == game["board"]
        plays_on(player)


def from_the_release_before(row: Row) -> None:
    data = row.data
    data["moves"] = data.pop("version")
    data["layout"] = data.pop("shown_mines")
    data["forced_guesses"] = data.pop("state")["forced_guesses"]
    del data["hidden"], data["seats"]
    for record in row.records:
        record["layout"] = record.pop("shown_mines")
        record["forced_guesses"] = record.pop("state")["forced_guesses"]


def test_a_game_from_the_release_before_still_plays_and_undoes(client, second_server, database):
    """The old shape (moves, layout, forced_guesses; no seats, no mode state) is read, not taken for damage."""
    game = damaged_on_disk(client, database, from_the_release_before)
    with same_player(client, second_server) as player:
        assert player.get(f"/api/games/{game['id']}").json()["board"] == game["board"]
        undone = player.post(f"/api/games/{game['id']}/moves", json={"action": "undo"})
        assert undone.status_code == 200 and undone.json()["board"][0][0] == "F"


# ----- Redis: keys of the wrong type ---------------------------------------------


@pytest.fixture(scope="module")
def redis_workers(database, deals):
    """Two servers sharing a real redis-server, and a connection to it; what a test stores is flushed after it."""
    import redis

    settings = {"deals": deals, "store": None, **SERVER_SETTINGS}
    with redis_server() as url:
        settings["store"] = url
        # Both keep their cookie secret beside this file, so a player is the same player on both.
        secret_beside = database.with_name("redis-workers.sqlite3")
        with live_server(secret_beside, **settings) as first, live_server(secret_beside, **settings) as second:
            connection = redis.Redis.from_url(url)
            yield first, second, connection, url
            connection.close()


@pytest.fixture
def on_redis(redis_workers):
    first, second, connection, _ = redis_workers
    with httpx.Client(base_url=first, timeout=seconds(30)) as client:
        yield client, second, connection
    connection.flushdb()


def only_key(connection, pattern: str) -> bytes:
    keys = connection.keys(pattern)
    assert len(keys) == 1, keys
    return keys[0]


def a_covered_cell(game: dict) -> tuple[int, int]:
    return next((x, y) for y, row in enumerate(game["board"]) for x, symbol in enumerate(row) if symbol == ".")


@pytest.mark.server
@pytest.mark.redis
@pytest.mark.parametrize("index", ["player", "owner"])
def test_an_index_of_the_wrong_type_is_rebuilt_and_the_players_games_play_on(on_redis, index):
    client, second, connection = on_redis
    first_game, second_game = start(client), start(client)
    key = only_key(connection, f"kaboom:{index}:*")
    connection.delete(key)
    connection.set(key, "a string where a sorted set belongs")
    with same_player(client, second) as player:
        x, y = a_covered_cell(first_game)
        flagged = player.post(f"/api/games/{first_game['id']}/moves", json={"action": "flag", "x": x, "y": y})
        assert flagged.status_code == 200, flagged.text
        assert connection.type(key) == b"zset"
        assert {game.decode() for game in connection.zrange(key, 0, -1)} == {first_game["id"], second_game["id"]}
        plays_on(player)


@pytest.mark.server
@pytest.mark.redis
def test_the_home_page_rebuilds_a_broken_index_it_reads(on_redis):
    client, second, connection = on_redis
    game = start(client)
    key = only_key(connection, "kaboom:player:*")
    connection.delete(key)
    connection.hset(key, "not", "a sorted set")
    with same_player(client, second) as player:
        assert player.get("/", follow_redirects=True).status_code == 200
    assert [member.decode() for member in connection.zrange(key, 0, -1)] == [game["id"]]


@pytest.mark.server
@pytest.mark.redis
@pytest.mark.parametrize("part", ["game", "history"])
def test_a_game_key_of_the_wrong_type_is_that_game_damaged_only(on_redis, part):
    client, second, connection = on_redis
    damaged, other = start(client), start(client)
    key = f"kaboom:{part}:{damaged['id']}"
    connection.delete(key)
    connection.set(key, "a string")
    keys = sorted(connection.keys(f"kaboom:*{damaged['id']}"))
    with same_player(client, second) as player:
        assert_damaged_every_way(player, damaged, lambda: [connection.dump(key) for key in keys])
        x, y = a_covered_cell(other)
        flagged = player.post(f"/api/games/{other['id']}/moves", json={"action": "flag", "x": x, "y": y})
        assert flagged.status_code == 200, flagged.text
        plays_on(player)


@pytest.mark.server
@pytest.mark.redis
def test_a_redis_version_field_ahead_of_the_data_is_damage_not_a_conflict_forever(on_redis):
    client, second, connection = on_redis
    game = start(client)
    keys = f"kaboom:game:{game['id']}", f"kaboom:history:{game['id']}"
    connection.hincrby(keys[0], "version", 1)
    with same_player(client, second) as player:
        assert_damaged_every_way(player, game, lambda: [connection.dump(key) for key in keys])
        plays_on(player)


@pytest.mark.server
@pytest.mark.redis
def test_a_game_key_of_the_wrong_type_stops_neither_the_cap_nor_expiry(redis_workers, clock):
    from app.store.redis import RedisStore

    _, _, connection, url = redis_workers
    store = RedisStore(url, clock=clock, kept=KEPT)
    try:
        damaged, kept = store.create(game_for("alice")), store.create(game_for("alice"))
        connection.delete(f"kaboom:game:{damaged}")
        connection.set(f"kaboom:game:{damaged}", "a string")
        clock.advance(1)
        newest = store.create(game_for("alice"), keep=2)  # the damaged game goes first
        assert not connection.exists(f"kaboom:game:{damaged}")
        assert {game.decode() for game in connection.zrange("kaboom:owner:alice", 0, -1)} == {kept, newest}
        connection.delete(f"kaboom:game:{kept}")
        connection.rpush(f"kaboom:game:{kept}", "a list")
        clock.advance(1)
        assert store.expire(clock()) == 2  # the whole game and the damaged one
        assert connection.keys("kaboom:game:*") == []
    finally:
        store.close()
        connection.flushdb()


@pytest.mark.server
@pytest.mark.redis
def test_expiry_rebuilds_the_index_of_all_games_if_it_is_of_the_wrong_type(redis_workers, clock):
    from app.store.redis import RedisStore

    _, _, connection, url = redis_workers
    store = RedisStore(url, clock=clock, kept=KEPT)
    try:
        old = store.create(game_for("alice"))
        clock.advance(10)
        new = store.create(game_for("bob"))
        connection.delete("kaboom:games")
        connection.set("kaboom:games", "a string")
        assert store.expire(clock() - 5) == 1
        assert [game.decode() for game in connection.zrange("kaboom:games", 0, -1)] == [new]
        assert not connection.exists(f"kaboom:game:{old}")
    finally:
        store.close()
        connection.flushdb()


# ----- any damage at all: a Game or Corrupt, nothing else ------------------------------


def stored_game() -> tuple[dict, list[dict]]:
    """A cruel game as stored after a flag, a reveal and a question mark: every kind of undo record."""
    game = new_game(9, 9, 25, seats=[Player("alice")], rng=random.Random(0))
    for move in (Move("flag", 0, 0), Move("reveal", 4, 4)):
        game = apply_move(game, move, rng=random.Random(7), now=1_700_000_000.0)[0]
    x, y = game.cell(next(i for i, symbol in enumerate(game.cells) if symbol == "." and i not in game.marks))
    game = apply_move(game, Move("flag", x, y, mark="question"), rng=random.Random(7), now=1_700_000_001.0)[0]
    return game.to_json(), copy.deepcopy(game.history)


STORED, RECORDS = stored_game()
# What a damaged field may hold instead: other types, values just off the 9x9 board, non-finite numbers.
SWAPS = [None, True, False, 0, -1, 1, 80, 81, 2**64, 1.5, float("nan"), float("inf"), "", "x", "9", "F"]
SWAPS += [[], [1], {}, {"0": "F"}]


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON value, as the keys and indices that lead to it."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


def mutate(document: Any, path: tuple, action: str, swap: Any) -> None:
    *parents, last = path
    for step in parents:
        document = document[step]
    if action == "delete":
        del document[last]
    elif action == "rename" and isinstance(document, dict):
        document[f"{last}x" if isinstance(last, str) else str(last)] = document.pop(last)
    elif action == "shorten" and isinstance(document[last], str):
        document[last] = document[last][:-1]
    else:
        document[last] = copy.deepcopy(swap)  # later damage may go inside it


@st.composite
def damaged_rows(draw) -> tuple[dict, list[dict]]:
    data, records = copy.deepcopy(STORED), copy.deepcopy(RECORDS)
    whole = {"data": data, "records": records}
    for _ in range(draw(st.integers(1, 3))):
        # Anywhere inside the state or the records; the text of each is damaged by the table above.
        places = [("data", *place) for place in paths(data)] + [("records", *place) for place in paths(records)]
        path = draw(st.sampled_from(places))
        action = draw(st.sampled_from(["delete", "swap", "rename", "shorten"]))
        mutate(whole, path, action, draw(st.sampled_from(SWAPS)))
    return whole["data"], whole["records"]


@pytest.fixture(scope="module")
def property_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("property") / "games.sqlite3"
    store = SQLiteStore(path, kept=KEPT)
    game_id = store.create(new_game(9, 9, 25, seats=[Player("alice")], rng=random.Random(0)))
    store.close()
    return path, game_id


@given(row=damaged_rows())
def test_any_damage_loads_as_a_playable_game_or_as_corrupt(property_store, row):
    path, game_id = property_store
    data, records = row
    version = data.get("version") if isinstance(data, dict) else None
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(
            "UPDATE games SET data = ?, version = ?, history_length = ? WHERE id = ?",
            # The column follows the data where it can, so that the checks past it are reached too.
            (json.dumps(data), version if type(version) is int and version < 2**63 else 0, len(records), game_id),
        )
        connection.execute("DELETE FROM history WHERE game_id = ?", (game_id,))
        connection.executemany(
            "INSERT INTO history (game_id, seq, record) VALUES (?, ?, ?)",
            [(game_id, seq, json.dumps(record)) for seq, record in enumerate(records)],
        )
    store = SQLiteStore(path, kept=KEPT)  # another process: nothing cached
    try:
        try:
            game = store.load(game_id, "alice")
        except Corrupt:
            event("refused as damaged")
            return
        event("loaded")
        # What loads is whole: every cell can be shown, the solver reads it, and undo works or is refused.
        look = Look(game, None)
        for index in range(game.width * game.height):
            look.cell(index)
        game.position()
        try:
            undone, _ = apply_move(game, Move("undo"), rng=random.Random(0), now=1_700_000_002.0)
        except Refused:
            return
        try:
            store.save(game_id, "alice", undone, game.version)
        except Corrupt:
            event("undo refused as damaged")
            return  # an undo record that does not fit its game: refused, nothing written
        store.load(game_id, "alice")
    finally:
        store.close()
