"""The store contract (app/store/base.py), one set of tests run against memory, SQLite and Redis.

Each backend is a fixture that knows how to reopen its store without caches
and how to damage what it keeps; the tests are the same for all three.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time

import pytest

from app.core.game import Game, Move
from app.core.seats import Invitation, Player, replay_watcher, watcher
from app.modes import apply_move, new_game
from app.rooms import MAX_PLAYERS, Member, Room
from app.rooms.base import new_invite
from app.service.kept import KEPT
from app.store import Conflict, Corrupt, MemoryStore, NotFound, SQLiteStore, Store
from tests.clock import FakeClock
from tests.live import seconds


def game_for(*players: str, width: int = 9, height: int = 9, mines: int = 10) -> Game:
    return new_game(width, height, mines, seats=[Player(player) for player in players], rng=random.Random(0))


def moved(game: Game, action: str, x=None, y=None, seed: int = 3) -> Game:
    return apply_move(game, Move(action, x, y), rng=random.Random(seed), now=1.0)[0]


def room_for(*players: str, kind: str = "race") -> Room:
    """A room of these members (the first made it), as it is before anything happens in it."""
    state = {"game": None} if kind == "coop" else {"round": 0, "phase": "lobby", "starts_at": None, "games": {}}
    return Room(
        kind=kind,
        mode="classic",
        width=9,
        height=9,
        mines=10,
        settings={},
        invite=new_invite(),
        members=[Member(player, player.title(), colour) for colour, player in enumerate(players)],
        state=state,
        created_at=1.0,
    )


def changed_room(room: Room, *players: str) -> Room:
    """The room's next version, with these members (the same ones when none are named)."""
    after = room.copy()
    if players:
        after.members = [Member(player, player.title(), colour) for colour, player in enumerate(players)]
    after.version += 1
    return after


def game_in(room_id: str, room: Room, *players: str) -> Game:
    game = game_for(*players)
    game.room = {"id": room_id, "kind": room.kind, "invite": room.invite}
    return game


def covered_cell(game: Game) -> tuple[int, int]:
    """A cell the game still shows covered: moves after a reveal act on what the reveal left."""
    return game.cell(
        next(index for index, symbol in enumerate(game.cells) if symbol == "." and index not in game.marks)
    )


class Backend:
    """A store under test, and what its tests need to know of how it keeps games."""

    name: str

    def __init__(self, clock: FakeClock):
        self.clock = clock
        self.store = self.open()
        self.others: list[Store] = []

    def open(self) -> Store:
        raise NotImplementedError

    def reopened(self) -> Store:
        """Another store on the same data, with nothing cached (another process); closed with the backend."""
        other = self.another()
        if other is not self.store:
            self.others.append(other)
        return other

    def another(self) -> Store:
        raise NotImplementedError

    def damage_state(self, game_id: str) -> None:
        raise NotImplementedError

    def damage_record(self, game_id: str) -> None:
        raise NotImplementedError

    def records(self, game_id: str) -> int:
        raise NotImplementedError

    def put_record(self, game_id: str, record: str) -> None:
        """Replace the game's first undo record by this text."""
        raise NotImplementedError

    def set_version(self, game_id: str, version: int) -> None:
        """Set the version the store keeps beside the game's data (the one its writes check)."""
        raise NotImplementedError

    def damage_room(self, room_id: str) -> None:
        """Write a room's data as something that is no room."""
        raise NotImplementedError

    def set_room_version(self, room_id: str, version: int) -> None:
        """Set the version the store keeps beside the room's data."""
        raise NotImplementedError

    def scan(self, needle: str) -> list[tuple[str, ...]]:
        """Every place the store keeps `needle` (a player's id), read from what it holds without its methods:
        each place as the strings that locate it (a table and its row's texts, a key and its field)."""
        raise NotImplementedError

    def close(self) -> None:
        for store in [*self.others, self.store]:
            store.close()


class MemoryBackend(Backend):
    name = "memory"

    def open(self) -> Store:
        return MemoryStore(clock=self.clock, kept=KEPT)

    def another(self) -> Store:
        # One process holds a memory store: "another" is the same one, its history cache emptied.
        self.store._histories.clear()
        return self.store

    def damage_state(self, game_id: str) -> None:
        self.store._games[game_id]["data"] = '{"width": 9}'

    def damage_record(self, game_id: str) -> None:
        self.store._games[game_id]["history"][0] = "not JSON"

    def records(self, game_id: str) -> int:
        return len(self.store._games[game_id]["history"])

    def put_record(self, game_id: str, record: str) -> None:
        self.store._games[game_id]["history"][0] = record

    def set_version(self, game_id: str, version: int) -> None:
        self.store._games[game_id]["version"] = version

    def damage_room(self, room_id: str) -> None:
        self.store._rooms[room_id]["data"] = '{"kind": "race"}'

    def set_room_version(self, room_id: str, version: int) -> None:
        self.store._rooms[room_id]["version"] = version

    def scan(self, needle: str) -> list[tuple[str, ...]]:
        found = []

        def leaves(value):
            if isinstance(value, dict):
                return [text for key, inner in value.items() for text in (str(key), *leaves(inner))]
            if isinstance(value, (list, tuple, set)):
                return [text for inner in value for text in leaves(inner)]
            return [str(value)]

        def walk(value, path):
            if isinstance(value, dict):
                for key, inner in value.items():
                    if isinstance(key, str) and needle in key:
                        found.append((*path, key, *leaves(inner)))  # a player's own part: what it holds locates it
                    walk(inner, (*path, str(key)))
            elif isinstance(value, (list, tuple, set)):
                for inner in value:
                    walk(inner, path)
            elif isinstance(value, str) and needle in value:
                found.append((*path, value))

        kept = ("_games", "_results", "_tallies", "_boards", "_rooms", "_names", "_named_at", "_ladders", "_entered")
        for name in (*kept, "_claims", "_passkeys", "_tokens", "_audit"):
            walk(getattr(self.store, name), (name,))
        return found


class SQLiteBackend(Backend):
    name = "sqlite"

    def __init__(self, clock: FakeClock, path):
        self.path = path
        super().__init__(clock)

    def open(self) -> Store:
        return SQLiteStore(self.path, clock=self.clock, kept=KEPT)

    def another(self) -> Store:
        return SQLiteStore(self.path, clock=self.clock, kept=KEPT)

    def damage_state(self, game_id: str) -> None:
        with sqlite3.connect(self.path) as connection:
            connection.execute("UPDATE games SET data = '{\"width\": 9}' WHERE id = ?", (game_id,))

    def damage_record(self, game_id: str) -> None:
        with sqlite3.connect(self.path) as connection:
            connection.execute("UPDATE history SET record = 'not JSON' WHERE game_id = ? AND seq = 0", (game_id,))

    def records(self, game_id: str) -> int:
        with sqlite3.connect(self.path) as connection:
            return connection.execute("SELECT COUNT(*) FROM history WHERE game_id = ?", (game_id,)).fetchone()[0]

    def put_record(self, game_id: str, record: str) -> None:
        with sqlite3.connect(self.path) as connection:
            connection.execute("UPDATE history SET record = ? WHERE game_id = ? AND seq = 0", (record, game_id))

    def set_version(self, game_id: str, version: int) -> None:
        with sqlite3.connect(self.path) as connection:
            connection.execute("UPDATE games SET version = ? WHERE id = ?", (version, game_id))

    def damage_room(self, room_id: str) -> None:
        with sqlite3.connect(self.path) as connection:
            connection.execute("UPDATE rooms SET data = ? WHERE id = ?", ('{"kind": "race"}', room_id))

    def set_room_version(self, room_id: str, version: int) -> None:
        with sqlite3.connect(self.path) as connection:
            connection.execute("UPDATE rooms SET version = ? WHERE id = ?", (version, room_id))

    def scan(self, needle: str) -> list[tuple[str, ...]]:
        found = []
        with sqlite3.connect(self.path) as connection:
            tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                for row in connection.execute(f"SELECT * FROM {table}"):
                    texts = [str(value) for value in row]
                    if any(needle in text for text in texts):
                        found.append((table, *texts))
        return found


class RedisBackend(Backend):
    name = "redis"

    def __init__(self, clock: FakeClock, url: str):
        self.url = url
        super().__init__(clock)

    def open(self) -> Store:
        from app.store.redis import RedisStore

        return RedisStore(self.url, clock=self.clock, kept=KEPT)

    another = open

    def damage_state(self, game_id: str) -> None:
        self.store.redis.hset(f"kaboom:game:{game_id}", "data", '{"width": 9}')

    def damage_record(self, game_id: str) -> None:
        self.store.redis.lset(f"kaboom:history:{game_id}", 0, b"\xff not JSON")

    def records(self, game_id: str) -> int:
        return self.store.redis.llen(f"kaboom:history:{game_id}")

    def put_record(self, game_id: str, record: str) -> None:
        self.store.redis.lset(f"kaboom:history:{game_id}", 0, record)

    def set_version(self, game_id: str, version: int) -> None:
        self.store.redis.hset(f"kaboom:game:{game_id}", "version", version)

    def damage_room(self, room_id: str) -> None:
        self.store.redis.hset(f"kaboom:room:{room_id}", "data", '{"kind": "race"}')

    def set_room_version(self, room_id: str, version: int) -> None:
        self.store.redis.hset(f"kaboom:room:{room_id}", "version", version)

    def scan(self, needle: str) -> list[tuple[str, ...]]:
        client = self.store.redis
        found = []
        for key in client.scan_iter(count=1000):
            name = key.decode()
            kind = client.type(key).decode()
            if kind == "string":
                parts = [(client.get(key),)]
            elif kind == "hash":
                parts = list(client.hgetall(key).items())
            elif kind == "list":
                parts = [(item,) for item in client.lrange(key, 0, -1)]
            elif kind == "set":
                parts = [(item,) for item in client.smembers(key)]
            elif kind == "zset":
                parts = [(item,) for item in client.zrange(key, 0, -1)]
            else:
                parts = [()]
            for part in parts or [()]:
                texts = [name, *(item.decode(errors="replace") for item in part)]
                if any(needle in text for text in texts):
                    found.append(tuple(texts))
        return found

    def close(self) -> None:
        self.store.redis.flushdb()
        super().close()


# The fixtures `backend` (each of the backends above in turn), `store` (its store) and `redis_url` are in
# conftest.py, for tests/test_tallies.py too.


class TestStoreContract:
    def test_games_round_trip_with_their_history(self, store, deal_seed):
        game_id = store.create(game_for("alice"))
        assert len(game_id) >= 22
        before = store.load(game_id, "alice")
        after = moved(before, "reveal", 4, 4, seed=deal_seed)
        store.save(game_id, "alice", after, before.version)
        # Flags go on cells the reveal left covered, whatever it opened.
        for _ in range(2):
            before = store.load(game_id, "alice")
            after = moved(before, "flag", *covered_cell(before))
            store.save(game_id, "alice", after, before.version)
        before = store.load(game_id, "alice")
        after = moved(before, "undo")
        store.save(game_id, "alice", after, before.version)
        loaded = store.load(game_id, "alice")
        assert loaded == after and len(loaded.history) == 2 and loaded.flags() == 1
        assert store.latest("alice") == game_id and store.latest("bob") is None

    def test_a_games_first_result_is_kept_for_its_player_and_outlives_the_game(self, store):
        game_id = store.create(game_for("alice"))
        store.record_result("alice", game_id, {"won": False, "finished_at": 1.0})
        store.record_result("alice", game_id, {"won": True, "finished_at": 2.0})  # after an undo: not kept
        other = store.create(game_for("alice"))
        store.record_result("alice", other, {"won": True, "finished_at": 3.0})
        store.delete(game_id, "alice")
        kept = sorted(
            (json.loads(text) for text in store.results_of("alice")), key=lambda result: result["finished_at"]
        )
        assert kept == [{"won": False, "finished_at": 1.0}, {"won": True, "finished_at": 3.0}]
        assert store.results_of("bob") == []

    def test_only_a_player_with_a_seat_finds_a_game(self, store):
        game_id = store.create(game_for("alice"))
        with pytest.raises(NotFound):
            store.load(game_id, "mallory")
        with pytest.raises(NotFound):
            store.save(game_id, "mallory", game_for("mallory"), 0)
        with pytest.raises(NotFound):
            store.load("no-such-game", "alice")

    def test_every_seat_finds_the_game_and_a_new_seat_is_kept(self, store):
        game_id = store.create(game_for("alice", "bob"))
        assert store.load(game_id, "bob").credentials() == ["alice", "bob"]
        assert store.latest("bob") == game_id
        game = store.load(game_id, "alice")
        joined = game.copy()
        joined.seats.append(Player("carol"))
        joined.version += 1
        store.save(game_id, "alice", joined, game.version)
        assert store.load(game_id, "carol").credentials() == ["alice", "bob", "carol"]
        assert store.latest("carol") == game_id

    def test_a_seat_given_to_another_player_no_longer_lets_the_one_who_held_it_in(self, backend):
        store = backend.store
        made = game_for("alice")
        made.seats.append(Invitation("old", "mallory"))
        game_id = store.create(made)
        game = store.load(game_id, "alice")
        freed = game.copy()
        freed.seats = [Player("alice"), Invitation("new")]
        freed.version += 1
        store.save(game_id, "alice", freed, game.version)
        for process in (store, backend.reopened()):
            for gone in ("mallory", watcher("old")):
                with pytest.raises(NotFound):
                    process.load(game_id, gone)
            assert process.games_of("mallory") == [] and process.latest("mallory") is None
            assert process.load(game_id, watcher("new")).seats == [Player("alice"), Invitation("new")]

    def test_a_shared_replay_key_opens_a_one_player_game_until_it_is_withdrawn_or_the_game_plays_on(self, backend):
        store = backend.store
        game_id = store.create(game_for("alice"))
        game = store.load(game_id, "alice")
        ended = game.copy()
        ended.status, ended.share, ended.version = "lost", "k" * 22, game.version + 1
        store.save(game_id, "alice", ended, game.version)
        for process in (store, backend.reopened()):
            assert process.load(game_id, replay_watcher("k" * 22)).share == "k" * 22
        # Played on (a loss taken back), or withdrawn: the key opens nothing, in every process.
        for status, share in (("playing", "k" * 22), ("lost", None)):
            game = store.load(game_id, "alice")
            changed = game.copy()
            changed.status, changed.version = status, game.version + 1
            changed.share = share if status == "lost" else None
            store.save(game_id, "alice", changed, game.version)
            for process in (store, backend.reopened()):
                with pytest.raises(NotFound):
                    process.load(game_id, replay_watcher("k" * 22))
                assert process.load(game_id, "alice").status == status
            if status == "playing":
                game = store.load(game_id, "alice")
                again = game.copy()
                again.status, again.share, again.version = "lost", "k" * 22, game.version + 1
                store.save(game_id, "alice", again, game.version)
                assert store.load(game_id, replay_watcher("k" * 22)).status == "lost"

    def test_a_player_who_leaves_a_game_keeps_the_seat_but_not_the_listing(self, backend):
        store = backend.store
        game_id = store.create(game_for("alice", "bob"))
        store.leave(game_id, "bob")
        store.leave(game_id, "bob")  # twice is once
        with pytest.raises(NotFound):
            store.leave(game_id, "mallory")
        with pytest.raises(NotFound):
            store.leave("no-such-game", "bob")
        # Played on by either seat, it stays off Bob's list, in every process.
        game = store.load(game_id, "bob")
        store.save(game_id, "bob", moved(game, "flag", 0, 0), game.version)
        for process in (store, backend.reopened()):
            assert [listing.game_id for listing in process.games_of("bob")] == [] and process.latest("bob") is None
            assert [listing.game_id for listing in process.games_of("alice")] == [game_id]
            assert process.load(game_id, "bob").version == game.version + 1
        store.delete(game_id, "alice")
        with pytest.raises(NotFound):
            store.load(game_id, "bob")

    def test_a_game_on_one_screen_is_listed_once(self, store):
        game_id = store.create(game_for("alice", "alice"))
        assert [listing.game_id for listing in store.games_of("alice")] == [game_id]

    def test_a_write_over_a_newer_version_is_refused(self, store):
        game_id = store.create(game_for("alice"))
        base = store.load(game_id, "alice")
        first = moved(base, "flag", 0, 0)
        second = moved(base, "flag", 1, 1)
        store.save(game_id, "alice", first, base.version)
        with pytest.raises(Conflict):
            store.save(game_id, "alice", second, base.version)
        assert store.load(game_id, "alice") == first

    def test_a_damaged_game_is_reported_and_other_games_keep_working(self, backend):
        store = backend.store
        damaged_state = store.create(game_for("alice"))
        damaged_record = store.create(game_for("alice"))
        healthy = store.create(game_for("alice"))
        game = store.load(damaged_record, "alice")
        store.save(damaged_record, "alice", moved(game, "flag", 0, 0), game.version)
        backend.damage_state(damaged_state)
        backend.damage_record(damaged_record)
        fresh = backend.reopened()
        for damaged in (damaged_state, damaged_record):
            with pytest.raises(Corrupt):
                fresh.load(damaged, "alice")
        # A player without a seat learns nothing, damaged or not.
        with pytest.raises(NotFound):
            fresh.load(damaged_state, "mallory")
        game = fresh.load(healthy, "alice")
        fresh.save(healthy, "alice", moved(game, "reveal", 4, 4), game.version)

    @pytest.mark.parametrize(
        "record",
        [
            {"cells": {"81": "."}},  # a cell off the 9x9 board
            {"cells": {"0": "X"}},  # a symbol a cell never shows
            {"marks": {"0": "X"}},  # an unknown mark
            {"state": {}},  # the mode's state without its count
            {"started_at": "yesterday"},
        ],
        ids=["off the board", "unknown symbol", "unknown mark", "mode state missing", "time as text"],
    )
    def test_an_undo_record_that_does_not_fit_its_game_is_damage(self, backend, record):
        store = backend.store
        game_id = store.create(game_for("alice"))
        game = store.load(game_id, "alice")
        flagged = moved(game, "flag", 0, 0)
        store.save(game_id, "alice", flagged, game.version)
        backend.put_record(game_id, json.dumps({**flagged.history[0], **record}))
        with pytest.raises(Corrupt, match=f"game {game_id}: .*undo record 0"):
            backend.reopened().load(game_id, "alice")

    @pytest.mark.parametrize("change", [1, -1], ids=["ahead", "behind"])
    def test_a_version_field_that_disagrees_with_the_data_is_damage(self, backend, change):
        """No write could pass the version check, so such a game is damaged, not "changed, try again" forever."""
        store = backend.store
        game_id = store.create(game_for("alice"))
        game = moved(store.load(game_id, "alice"), "flag", 0, 0)
        store.save(game_id, "alice", game, game.version - 1)
        backend.set_version(game_id, game.version + change)
        with pytest.raises(Corrupt, match=f"game {game_id}: version"):
            backend.reopened().load(game_id, "alice")

    def test_a_game_that_would_not_read_back_is_not_written(self, backend):
        store = backend.store
        game_id = store.create(game_for("alice"))
        game = store.load(game_id, "alice")
        after = moved(game, "reveal", 4, 4)
        after.marks[next(i for i, symbol in enumerate(after.cells) if symbol != ".")] = "F"  # a flag on a revealed cell
        with pytest.raises(Corrupt, match="marks"):
            store.save(game_id, "alice", after, game.version)
        assert backend.reopened().load(game_id, "alice") == game
        assert backend.records(game_id) == 0

    def test_a_failed_save_leaves_the_stored_game_whole(self, backend):
        store = backend.store
        game_id = store.create(game_for("alice"))
        game = store.load(game_id, "alice")
        after = moved(game, "reveal", 4, 4)
        after.history[-1]["unserialisable"] = object()  # json.dumps fails mid-write
        with pytest.raises(TypeError):
            store.save(game_id, "alice", after, game.version)
        fresh = backend.reopened()
        assert fresh.load(game_id, "alice") == game
        assert backend.records(game_id) == 0

    def test_a_player_keeps_a_bounded_number_of_games_finished_ones_going_first(self, backend, clock):
        store = backend.store
        bobs = store.create(game_for("bob"))
        first = store.create(game_for("alice"), keep=3)
        clock.advance(1)
        finished = store.create(game_for("alice"), keep=3)
        game = store.load(finished, "alice")
        done = game.copy()
        done.status, done.version = "won", game.version + 1
        clock.advance(1)
        store.save(finished, "alice", done, game.version)  # now the most recently played, yet the first to go
        clock.advance(1)
        third = store.create(game_for("alice"), keep=3)
        clock.advance(1)
        store.create(game_for("alice"), keep=3)
        with pytest.raises(NotFound):
            store.load(finished, "alice")
        for kept in (first, third):
            store.load(kept, "alice")
        clock.advance(1)
        newest = store.create(game_for("alice"), keep=3)
        with pytest.raises(NotFound):
            store.load(first, "alice")  # then the longest idle
        store.load(newest, "alice")
        store.load(bobs, "bob")
        assert store.latest("alice") == newest

    def test_a_player_lists_their_games_newest_first_and_deletes_them(self, backend, clock):
        store = backend.store
        first = store.create(game_for("alice"))
        clock.advance(5)
        shared = store.create(game_for("bob", "alice"))
        clock.advance(5)
        damaged = store.create(game_for("alice", width=16, height=16, mines=40))
        backend.damage_state(damaged)
        clock.advance(5)
        game = store.load(first, "alice")
        store.save(first, "alice", moved(game, "flag", 0, 0), game.version)  # played last
        listed = backend.reopened().games_of("alice")
        assert [listing.game_id for listing in listed] == [first, damaged, shared]
        assert listed[0].game.flags() == 1 and listed[0].game.history == [] and listed[0].updated_at == clock()
        assert listed[1].game is None  # listed, so that it can be deleted
        assert [listing.game_id for listing in store.games_of("bob")] == [shared]
        assert store.games_of("mallory") == []
        assert len(store.games_of("alice", limit=2)) == 2
        # Only a player with a seat deletes, and the game is gone for every seat.
        with pytest.raises(NotFound):
            store.delete(shared, "mallory")
        store.delete(shared, "alice")
        for player in ("alice", "bob"):
            with pytest.raises(NotFound):
                store.load(shared, player)
        with pytest.raises(NotFound):
            store.delete(shared, "bob")
        store.delete(damaged, "alice")
        assert [listing.game_id for listing in backend.reopened().games_of("alice")] == [first]
        assert store.latest("bob") is None

    def test_a_game_read_while_another_process_saves_it_comes_back_whole(self, backend, monkeypatch):
        """A save between reading a game's state and its undo records must not pair them wrongly
        (two workers flagging one game at once saw 'N+1 undo records where the store counts N')."""
        store = backend.store
        game_id = store.create(game_for("alice"))
        game = store.load(game_id, "alice")
        store.save(game_id, "alice", moved(game, "flag", 0, 0), game.version)
        writer, reader = backend.reopened(), backend.reopened()
        read_history = reader._cached_history
        saved: list[int] = []

        def another_process_saves_now(*args):
            monkeypatch.setattr(reader, "_cached_history", read_history)  # once
            saved.append(1)
            current = writer.load(game_id, "alice")
            writer.save(game_id, "alice", moved(current, "flag", 1, 1), current.version)
            return read_history(*args)

        # SQLite and Redis look in their history cache between reading the state and reading the
        # records (the memory store reads both under one lock, and never looks).
        monkeypatch.setattr(reader, "_cached_history", another_process_saves_now)
        loaded = reader.load(game_id, "alice")
        assert len(loaded.history) == loaded.flags() == loaded.version
        assert store.load(game_id, "alice").flags() == 1 + len(saved)

    def test_idle_games_expire(self, store, clock):
        old = store.create(game_for("alice"))
        clock.advance(10)
        cutoff = clock()
        new = store.create(game_for("alice"))
        assert store.expire(cutoff) == 1
        with pytest.raises(NotFound):
            store.load(old, "alice")
        store.load(new, "alice")
        assert store.latest("alice") == new
        assert store.expire(cutoff) == 0
        clock.advance(1)
        assert store.expire(clock()) == 1
        assert store.latest("alice") is None

    def test_rate_counters_allow_a_limit_per_window(self, backend, clock):
        store = backend.store
        other = backend.reopened()  # every process shares the count
        answers = [process.allow("create:1.2.3.4", 3, 60) for process in (store, other, store, other)]
        assert answers == [True, True, True, False]
        assert store.allow("create:5.6.7.8", 3, 60)
        clock.advance(60)
        assert other.allow("create:1.2.3.4", 3, 60)

    def test_a_key_over_its_limit_is_refused_without_a_write_until_its_window_ends(self, backend, clock, monkeypatch):
        store = backend.store
        assert [store.allow("room:1.2.3.4", 2, 60) for _ in range(3)] == [True, True, False]

        def counted(*args):
            raise AssertionError("a refusal already known was counted in the store")

        monkeypatch.setattr(store, "count_event", counted)
        assert not any(store.allow("room:1.2.3.4", 2, 60) for _ in range(100))
        monkeypatch.undo()
        assert store.allow("room:5.6.7.8", 2, 60)  # another key, and the same key's other limits, are counted
        assert store.allow("room:1.2.3.4", 200, 60)
        clock.advance(60)
        assert store.allow("room:1.2.3.4", 2, 60)

    def test_a_seat_is_present_until_its_mark_runs_out_in_every_process(self, backend, clock):
        store, other = backend.store, backend.reopened()
        game_id = store.create(game_for("alice", "bob"))
        assert store.present(game_id) == set()
        store.mark_present(game_id, 0, clock() + 15)
        other.mark_present(game_id, 1, clock() + 5)
        assert other.present(game_id) == store.present(game_id) == {0, 1}
        assert store.present("no-such-game") == set()
        clock.advance(10)
        assert other.present(game_id) == {0}
        store.mark_present(game_id, 1, clock() + 15)  # back again
        assert store.present(game_id) == {0, 1}
        clock.advance(20)
        assert other.present(game_id) == set()

    def test_a_follower_hears_of_saves_from_any_process_and_reads_many_versions_at_once(self, backend):
        store = backend.store
        ids = [store.create(game_for("alice")) for _ in range(3)]
        games = [store.load(game_id, "alice") for game_id in ids]
        assert store.stored_versions([*ids, "no-such-game"]) == {
            **{game_id: 0 for game_id in ids},
            "no-such-game": None,
        }
        assert store.stored_version(ids[0]) == 0 and store.stored_version("no-such-game") is None
        changes = backend.reopened().changes()  # following from the moment it is made
        try:
            store.save(ids[1], "alice", moved(games[1], "flag", 0, 0), games[1].version)
            heard: set[str] = set()
            deadline = time.monotonic() + seconds(10)
            while ids[1] not in heard:
                assert time.monotonic() < deadline, "the save was not heard within 10 s"
                saved = changes.next()
                # None: a store without a push channel says "look at every game you watch".
                heard |= set(ids) if saved is None else saved
        finally:
            changes.close()
        assert store.stored_versions(ids) == {ids[0]: 0, ids[1]: 1, ids[2]: 0}

    def test_games_stored_before_seats_and_mode_state_still_load(self, backend):
        """An upgrade loses no game: the old shape (owner, layout, moves, forced_guesses) reads back."""
        store = backend.store
        game_id = store.create(game_for("alice"))
        game = store.load(game_id, "alice")
        played = moved(game, "reveal", 4, 4)
        store.save(game_id, "alice", played, game.version)
        old = played.to_json()
        old["moves"] = old.pop("version")
        old["layout"] = old.pop("shown_mines")
        old["forced_guesses"] = old.pop("state")["forced_guesses"]
        for name in ("hidden", "seats"):
            del old[name]
        record = dict(played.history[0])
        record["layout"] = record.pop("shown_mines")
        record["forced_guesses"] = record.pop("state")["forced_guesses"]
        assert _rewrite(backend, game_id, json.dumps(old), json.dumps(record))
        back = backend.reopened().load(game_id, "alice")
        assert back.cells == played.cells and back.version == played.version and back.seats == [Player("alice")]
        assert back.state == {"forced_guesses": played.state["forced_guesses"]}
        undone = moved(back, "undo")
        assert undone.cells == game.cells and undone.shown_mines is None

    # ----- rooms ---------------------------------------------------------------------------------

    def test_a_room_reads_back_as_made_and_each_member_lists_it_the_most_recently_active_first(self, backend, clock):
        store = backend.store
        race = room_for("alice", "bob")
        older = store.create_room(race)
        clock.advance(5)
        coop = room_for("bob", "carol", kind="coop")
        newer = store.create_room(coop)
        assert len(older) >= 22 and older != newer
        for process in (store, backend.reopened()):
            assert process.load_room(older) == race and process.load_room(newer) == coop
            assert process.rooms_of("bob") == [newer, older]
            assert process.rooms_of("alice") == [older] and process.rooms_of("carol") == [newer]
            assert process.rooms_of("mallory") == []
        clock.advance(5)
        store.save_room(older, changed_room(race), race.version)
        assert backend.reopened().rooms_of("bob") == [older, newer]

    def test_a_room_saved_over_a_stale_version_is_refused_and_left_as_it_was(self, backend):
        store = backend.store
        room = room_for("alice", "bob")
        room_id = store.create_room(room)
        first = changed_room(room, "alice", "bob", "carol")
        store.save_room(room_id, first, room.version)
        with pytest.raises(Conflict):
            store.save_room(room_id, changed_room(room, "alice", "dave"), room.version)
        for process in (store, backend.reopened()):
            assert process.load_room(room_id) == first
            assert process.rooms_of("dave") == [] and process.rooms_of("carol") == [room_id]

    def test_a_room_saved_indexes_its_members_as_it_has_them(self, backend):
        store = backend.store
        room = room_for("alice", "bob")
        room_id = store.create_room(room)
        store.save_room(room_id, changed_room(room, "alice", "dave"), room.version)
        for process in (store, backend.reopened()):
            assert process.rooms_of("bob") == []
            assert process.rooms_of("dave") == process.rooms_of("alice") == [room_id]
            assert process.load_room(room_id).players() == ["alice", "dave"]

    def test_an_unknown_room_is_not_found_and_deleting_it_is_no_error(self, store):
        with pytest.raises(NotFound):
            store.load_room("no-such-room")
        with pytest.raises(NotFound):
            store.save_room("no-such-room", room_for("alice"), 0)
        store.delete_room("no-such-room")
        assert store.rooms_of("alice") == []

    @pytest.mark.parametrize("damage", ["data", "version ahead", "version behind"])
    def test_a_damaged_room_is_corrupt_naming_it_and_other_rooms_keep_working(self, backend, damage):
        store = backend.store
        room = room_for("alice", "bob")
        damaged, healthy = store.create_room(room), store.create_room(room_for("alice", "carol"))
        if damage == "data":
            backend.damage_room(damaged)
        else:
            backend.set_room_version(damaged, room.version + (1 if damage == "version ahead" else -1))
        fresh = backend.reopened()
        with pytest.raises(Corrupt, match=f"room {damaged}: " + ("" if damage == "data" else "version")):
            fresh.load_room(damaged)
        loaded = fresh.load_room(healthy)
        fresh.save_room(healthy, changed_room(loaded), loaded.version)
        assert fresh.load_room(healthy).version == 1
        # Still listed, so that its members can see it is there (and leave it).
        assert sorted(fresh.rooms_of("alice")) == sorted([damaged, healthy])

    def test_a_room_that_would_not_read_back_is_not_written(self, backend):
        store = backend.store
        strange = room_for("alice")
        strange.kind = "no-such-kind"
        with pytest.raises(Corrupt, match=r"room \S+: not stored, as it would not read back: kind"):
            store.create_room(strange)
        assert store.rooms_of("alice") == []
        room = room_for("alice")
        room_id = store.create_room(room)
        clash = changed_room(room, "alice", "bob")
        clash.members[1] = Member("bob", "Bob", 0)  # two members of one colour
        with pytest.raises(Corrupt, match=f"room {room_id}: .*colour"):
            store.save_room(room_id, clash, room.version)
        assert backend.reopened().load_room(room_id) == room
        assert store.rooms_of("bob") == []

    def test_rooms_versions_are_read_and_their_saves_heard_as_games_are(self, backend):
        store = backend.store
        room = room_for("alice", "bob")
        room_id = store.create_room(room)
        game_id = store.create(game_for("alice"))
        assert store.stored_version(room_id) == 0
        assert store.stored_versions([room_id, game_id, "no-such-room"]) == {
            room_id: 0,
            game_id: 0,
            "no-such-room": None,
        }
        changes = backend.reopened().changes()  # following from the moment it is made
        try:
            store.save_room(room_id, changed_room(room), room.version)
            heard: set[str] = set()
            deadline = time.monotonic() + seconds(10)
            while room_id not in heard:
                assert time.monotonic() < deadline, "the room's save was not heard within 10 s"
                saved = changes.next()
                # None: a store without a push channel says "look at every one you watch".
                heard |= {room_id, game_id} if saved is None else saved
        finally:
            changes.close()
        assert store.stored_versions([room_id, game_id]) == {room_id: 1, game_id: 0}
        assert backend.reopened().stored_version(room_id) == 1

    def test_peek_reads_games_without_their_history_or_a_seat_check_and_none_for_missing_or_damaged(self, backend):
        store = backend.store
        played, damaged, wrong_version = (store.create(game_for("alice", "bob")) for _ in range(3))
        game = store.load(played, "alice")
        flagged = moved(game, "flag", 0, 0)
        store.save(played, "alice", flagged, game.version)
        backend.damage_state(damaged)
        backend.set_version(wrong_version, 5)
        peeked = backend.reopened().peek([played, damaged, wrong_version, "no-such-game"])
        expected = flagged.copy()
        expected.history = []
        assert peeked == {played: expected, damaged: None, wrong_version: None, "no-such-game": None}
        assert store.peek([]) == {}

    def test_a_game_played_in_a_room_keeps_the_room_from_expiring_and_idle_rooms_expire(self, backend, clock):
        store = backend.store
        idle = store.create_room(room_for("alice", "bob"))
        room = room_for("alice", "bob")
        busy = store.create_room(room)
        game_id = store.create(game_in(busy, room, "alice"))
        clock.advance(10)
        game = store.load(game_id, "alice")
        store.save(game_id, "alice", moved(game, "flag", 0, 0), game.version)
        assert store.expire(clock()) == 1  # the idle room: the game and its room were active just now
        with pytest.raises(NotFound):
            store.load_room(idle)
        for process in (store, backend.reopened()):
            assert process.rooms_of("bob") == [busy]
            # Activity is no change of the room: its live pages have nothing new to show.
            assert process.load_room(busy) == room and process.stored_version(busy) == 0
        clock.advance(10)
        assert store.expire(clock()) == 2  # the room and its game, idle alike
        assert store.rooms_of("alice") == [] and store.latest("alice") is None

    def test_a_game_whose_room_is_gone_saves_and_does_not_bring_the_room_back(self, backend, clock):
        store = backend.store
        room = room_for("alice")
        room_id = store.create_room(room)
        game_id = store.create(game_in(room_id, room, "alice"))
        store.delete_room(room_id)
        clock.advance(1)
        game = store.load(game_id, "alice")
        store.save(game_id, "alice", moved(game, "flag", 0, 0), game.version)
        for process in (store, backend.reopened()):
            with pytest.raises(NotFound):
                process.load_room(room_id)
            assert process.rooms_of("alice") == [] and process.stored_version(room_id) is None
        assert store.load(game_id, "alice").version == 1

    def test_a_deleted_room_is_forgotten_by_its_members_and_its_games_stay(self, backend):
        store = backend.store
        room = room_for("alice", "bob")
        room_id = store.create_room(room)
        kept = store.create_room(room_for("bob"))
        game_id = store.create(game_in(room_id, room, "alice", "bob"))
        store.delete_room(room_id)
        store.delete_room(room_id)  # twice is once
        for process in (store, backend.reopened()):
            with pytest.raises(NotFound):
                process.load_room(room_id)
            assert process.rooms_of("alice") == [] and process.rooms_of("bob") == [kept]
            assert process.stored_versions([room_id]) == {room_id: None}
            assert process.load(game_id, "bob").room == {"id": room_id, "kind": "race", "invite": room.invite}
        with pytest.raises(NotFound):
            store.save_room(room_id, changed_room(room), room.version)

    def test_every_place_of_a_room_and_every_seat_of_a_game_is_present_until_its_mark_runs_out(self, backend, clock):
        store, other = backend.store, backend.reopened()
        players = [f"player{number}" for number in range(MAX_PLAYERS)]
        room_id = store.create_room(room_for(*players))
        game_id = store.create(game_for(*players))
        for watched in (room_id, game_id):
            for seat in range(MAX_PLAYERS):
                (store if seat % 2 else other).mark_present(watched, seat, clock() + 5 + seat)
            assert store.present(watched) == other.present(watched) == set(range(MAX_PLAYERS))
        clock.advance(9)
        for watched in (room_id, game_id):
            assert other.present(watched) == {5, 6, 7}
        clock.advance(10)
        assert store.present(room_id) == store.present(game_id) == set()


def _rewrite(backend: Backend, game_id: str, data: str, record: str) -> bool:
    """Put a game's state and its first undo record back as an older release wrote them."""
    if isinstance(backend, MemoryBackend):
        row = backend.store._games[game_id]
        row["data"], row["history"][0] = data, record
    elif isinstance(backend, SQLiteBackend):
        with sqlite3.connect(backend.path) as connection:
            connection.execute("UPDATE games SET data = ? WHERE id = ?", (data, game_id))
            connection.execute("UPDATE history SET record = ? WHERE game_id = ? AND seq = 0", (record, game_id))
    else:
        backend.store.redis.hset(f"kaboom:game:{game_id}", "data", data)
        backend.store.redis.hdel(f"kaboom:game:{game_id}", "seats")
        backend.store.redis.lset(f"kaboom:history:{game_id}", 0, record)
    return True


def test_a_sqlite_file_from_before_seats_opens_with_its_games(tmp_path, clock):
    """The seats table is filled from the old owner column when an old file is opened."""
    path = tmp_path / "old.sqlite3"
    store = SQLiteStore(path, clock=clock, kept=KEPT)
    game_id = store.create(game_for("alice"))
    store.close()
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE seats")
    reopened = SQLiteStore(path, clock=clock, kept=KEPT)
    assert reopened.load(game_id, "alice").seats == [Player("alice")]
    assert reopened.latest("alice") == game_id
    reopened.close()


def test_a_sqlite_file_from_before_rooms_opens_and_keeps_rooms(tmp_path, clock):
    """Rooms' tables are made when a file from before them is opened; its games stay as they were."""
    path = tmp_path / "old.sqlite3"
    store = SQLiteStore(path, clock=clock, kept=KEPT)
    game_id = store.create(game_for("alice"))
    store.close()
    with sqlite3.connect(path) as connection:
        for table in ("room_presence", "room_members", "rooms"):
            connection.execute(f"DROP TABLE {table}")
    reopened = SQLiteStore(path, clock=clock, kept=KEPT)
    room = room_for("alice")
    room_id = reopened.create_room(room)
    assert reopened.load_room(room_id) == room and reopened.rooms_of("alice") == [room_id]
    assert reopened.load(game_id, "alice").version == 0
    reopened.close()


def test_redis_room_indexes_of_another_type_are_rebuilt_from_the_rooms(redis_url, clock):
    """A member's index or the index of all rooms holding another type (damage, a stray command by hand)
    would fail every write touching it: it is rebuilt, and the rooms are found again."""
    backend = RedisBackend(clock, redis_url)
    store = backend.store
    try:
        room = room_for("alice", "bob")
        room_id = store.create_room(room)
        store.redis.set("kaboom:member:bob", "a string where a set belongs")
        assert store.rooms_of("bob") == [room_id]
        store.redis.delete("kaboom:rooms")
        store.redis.set("kaboom:rooms", "a string where a sorted set belongs")
        game_id = store.create(game_in(room_id, room, "alice"))
        game = store.load(game_id, "alice")
        store.save(game_id, "alice", moved(game, "flag", 0, 0), game.version)  # the index of rooms is rebuilt first
        store.redis.set("kaboom:member:alice", "a string again")
        store.save_room(room_id, changed_room(room, "alice", "carol"), room.version)
        assert store.rooms_of("alice") == store.rooms_of("carol") == [room_id] and store.rooms_of("bob") == []
        clock.advance(1)
        assert store.expire(clock()) == 2
        assert store.rooms_of("alice") == []
    finally:
        backend.close()


@pytest.mark.subprocess
def test_processes_on_one_sqlite_file_take_turns_at_a_game_and_a_dead_holder_lets_go(tmp_path, monkeypatch):
    """The lease is another process's to hold (fcntl locks are per process): a move waits for it, up to
    LEASE_WAIT_SECONDS, then gives up; another game is free; a holder that dies frees it at once."""
    import subprocess
    import sys

    import app.store.sqlite as sqlite_store

    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path, kept=KEPT)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from app.store import SQLiteStore; from app.service.kept import KEPT\n"
            "store = SQLiteStore(sys.argv[1], kept=KEPT)\n"
            "with store.lease('game'):\n    print('held', flush=True); sys.stdin.read()",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        monkeypatch.setattr(sqlite_store, "LEASE_WAIT_SECONDS", 0.2)
        with pytest.raises(Conflict), store.lease("game"):
            pass
        with store.lease("another game"):
            pass
    finally:
        holder.kill()
        holder.wait(seconds(10))
    with store.lease("game"):
        pass
    store.close()
