"""The stores: ownership, versions, atomic writes, damaged rows."""

from __future__ import annotations

import random
import sqlite3

import pytest

from app.game import Game, Move, apply_move
from app.store import Conflict, Corrupt, MemoryStore, NotFound, SQLiteStore


@pytest.fixture(params=["sqlite", "memory"])
def store(request, tmp_path):
    store = SQLiteStore(tmp_path / "games.sqlite3") if request.param == "sqlite" else MemoryStore()
    yield store
    store.close()


def moved(game: Game, action: str, x=None, y=None) -> Game:
    return apply_move(game, Move(action, x, y), rng=random.Random(3), now=1.0)[0]


def test_games_round_trip_with_their_history(store):
    game = Game.new(9, 9, 10)
    game_id = store.create("alice", game)
    assert len(game_id) >= 22
    for step in (("reveal", 4, 4), ("flag", 0, 0), ("flag", 1, 0), ("undo",)):
        before = store.load(game_id, "alice")
        after = moved(before, *step)
        store.save(game_id, "alice", after, before.moves)
    loaded = store.load(game_id, "alice")
    assert loaded == after and len(loaded.history) == 2
    assert store.latest("alice") == game_id and store.latest("bob") is None


def test_only_the_owner_finds_a_game(store):
    game_id = store.create("alice", Game.new(9, 9, 10))
    with pytest.raises(NotFound):
        store.load(game_id, "mallory")
    with pytest.raises(NotFound):
        store.save(game_id, "mallory", Game.new(9, 9, 10), 0)
    with pytest.raises(NotFound):
        store.load("no-such-game", "alice")


def test_a_write_over_a_newer_version_is_refused(store):
    game_id = store.create("alice", Game.new(9, 9, 10))
    base = store.load(game_id, "alice")
    first = moved(base, "flag", 0, 0)
    second = moved(base, "flag", 1, 1)
    store.save(game_id, "alice", first, base.moves)
    with pytest.raises(Conflict):
        store.save(game_id, "alice", second, base.moves)
    assert store.load(game_id, "alice") == first


def test_a_damaged_row_is_reported_and_other_games_keep_working(tmp_path):
    store = SQLiteStore(tmp_path / "games.sqlite3")
    damaged = store.create("alice", Game.new(9, 9, 10))
    healthy = store.create("alice", Game.new(9, 9, 10))
    with sqlite3.connect(tmp_path / "games.sqlite3") as connection:
        connection.execute("UPDATE games SET data = '{\"width\": 9}' WHERE id = ?", (damaged,))
    fresh = SQLiteStore(tmp_path / "games.sqlite3")  # no cached copy
    with pytest.raises(Corrupt):
        fresh.load(damaged, "alice")
    game = fresh.load(healthy, "alice")
    fresh.save(healthy, "alice", moved(game, "reveal", 4, 4), game.moves)
    store.close()
    fresh.close()


def test_a_failed_save_leaves_the_stored_game_whole(tmp_path):
    store = SQLiteStore(tmp_path / "games.sqlite3")
    game_id = store.create("alice", Game.new(9, 9, 10))
    game = store.load(game_id, "alice")
    after = moved(game, "reveal", 4, 4)
    after.history[-1]["unserialisable"] = object()  # json.dumps fails mid-transaction
    with pytest.raises(TypeError):
        store.save(game_id, "alice", after, game.moves)
    fresh = SQLiteStore(tmp_path / "games.sqlite3")
    assert fresh.load(game_id, "alice") == game
    with fresh._connection() as connection:
        assert connection.execute("SELECT COUNT(*) FROM history").fetchone()[0] == 0
    store.close()
    fresh.close()


def test_a_player_keeps_a_bounded_number_of_games_finished_ones_going_first(store):
    import dataclasses

    first = store.create("alice", Game.new(9, 9, 10), keep=3)
    finished = store.create("alice", Game.new(9, 9, 10), keep=3)
    game = store.load(finished, "alice")
    store.save(finished, "alice", dataclasses.replace(game, status="won", moves=game.moves + 1), game.moves)
    third = store.create("alice", Game.new(9, 9, 10), keep=3)
    fourth = store.create("alice", Game.new(9, 9, 10), keep=3)
    with pytest.raises(NotFound):
        store.load(finished, "alice")
    for kept in (first, third, fourth):
        store.load(kept, "alice")
    fifth = store.create("alice", Game.new(9, 9, 10), keep=3)
    with pytest.raises(NotFound):
        store.load(first, "alice")  # then the longest idle
    store.load(fifth, "alice")


def test_idle_games_expire(store):
    import time

    old = store.create("alice", Game.new(9, 9, 10))
    time.sleep(0.02)
    cutoff = time.time()
    new = store.create("alice", Game.new(9, 9, 10))
    assert store.expire(cutoff) == 1
    with pytest.raises(NotFound):
        store.load(old, "alice")
    store.load(new, "alice")


def test_rate_counters_allow_a_limit_per_window(store):
    import time

    assert [store.allow("create:1.2.3.4", 3, 0.2) for _ in range(4)] == [True, True, True, False]
    assert store.allow("create:5.6.7.8", 3, 0.2)
    time.sleep(0.25)
    assert store.allow("create:1.2.3.4", 3, 0.2)
