"""Where games live between requests: by an unguessable id, bound to the player who made them.

SQLite is the embedded default: one file, every move written before the
response goes out, so a restart loses nothing. A game's state is one row; its
undo records are rows of their own, written once each, so a click late in a
100x100 game writes a few hundred bytes, not the whole history. Each write
checks the version it read, inside one transaction, so a move can never be
applied over another one; inside one process a lock per game makes
simultaneous moves wait their turn. MemoryStore serves tests that need no file.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from app.game import Game


class NotFound(Exception):
    """No such game for this player (another player's game is not found either)."""


class Corrupt(Exception):
    """A stored game that cannot be read back; other games are unaffected."""


class Conflict(Exception):
    """The game changed since it was read: the write was not applied."""


def new_game_id() -> str:
    # 128 bits from the OS, URL-safe.
    return secrets.token_urlsafe(16)


class _GameLocks:
    """One asyncio lock per game id, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, game_id: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(game_id, (asyncio.Lock(), 0))
        self._locks[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[game_id]
            if users == 1:
                del self._locks[game_id]
            else:
                self._locks[game_id] = (lock, users - 1)


class Store:
    """What every store offers. Histories of recently used games stay decoded in memory,
    keyed by version: a given version of a game always has the same history."""

    def __init__(self, cached_histories: int = 64) -> None:
        self.locks = _GameLocks()
        self._histories: OrderedDict[str, tuple[int, list[dict[str, Any]]]] = OrderedDict()
        self._cached_histories = cached_histories
        self._cache_lock = threading.Lock()

    def create(self, owner: str, game: Game, keep: int = 100) -> str:
        """Store a new game. A player keeps at most `keep` games: past that the
        oldest finished games go first, then the longest idle ones."""
        raise NotImplementedError

    def load(self, game_id: str, owner: str) -> Game:
        """The game, if `owner` made it; NotFound otherwise, Corrupt if it cannot be read."""
        raise NotImplementedError

    def save(self, game_id: str, owner: str, game: Game, read_version: int) -> None:
        """Write `game` if the stored version is still `read_version`, else Conflict; all or nothing."""
        raise NotImplementedError

    def latest(self, owner: str) -> str | None:
        """The id of the player's most recently played game."""
        raise NotImplementedError

    def expire(self, idle_before: float) -> int:
        """Delete games nobody touched since `idle_before` (epoch seconds); returns how many."""
        raise NotImplementedError

    def allow(self, key: str, limit: int, window: float) -> bool:
        """Count one event for `key`; False when it is over `limit` in the current `window` seconds.

        Kept in the store, so every worker and host shares the count."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    @contextmanager
    def hold(self, game_id: str) -> Iterator[None]:
        """Keep other processes off this game while a move is worked out.

        The version check in save() already makes a lost update impossible;
        a store that several hosts share also takes a lock, so that a game
        played from many places at once queues its moves instead of retrying
        them. Processes on one SQLite file retry (see app.web).
        """
        yield

    def _cached_history(self, game_id: str, version: int) -> list[dict[str, Any]] | None:
        with self._cache_lock:
            entry = self._histories.get(game_id)
            if entry is None or entry[0] != version:
                return None
            self._histories.move_to_end(game_id)
            return entry[1]

    def _remember_history(self, game_id: str, version: int, history: list[dict[str, Any]], playing: bool = True) -> None:
        with self._cache_lock:
            if not playing:
                # Finished games are rarely touched again: read them from the store if they are.
                self._histories.pop(game_id, None)
                return
            self._histories[game_id] = (version, list(history))
            self._histories.move_to_end(game_id)
            while len(self._histories) > self._cached_histories:
                self._histories.popitem(last=False)

    def _decode(self, game_id: str, data: str, history: list[dict[str, Any]]) -> Game:
        try:
            game = Game.from_json(json.loads(data), history)
        except (ValueError, TypeError) as error:
            raise Corrupt(f"game {game_id}: {error}") from None
        self._remember_history(game_id, game.moves, game.history, game.status == "playing")
        return game


class MemoryStore(Store):
    def __init__(self) -> None:
        super().__init__()
        self._games: dict[str, dict[str, Any]] = {}
        self._counters: dict[str, tuple[float, int]] = {}

    def create(self, owner: str, game: Game, keep: int = 100) -> str:
        mine = [(row["status"] == "playing", row["updated"], game_id) for game_id, row in self._games.items() if row["owner"] == owner]
        for _, _, old in sorted(mine)[: max(0, len(mine) - keep + 1)]:
            del self._games[old]
        game_id = new_game_id()
        self._games[game_id] = {
            "owner": owner, "data": json.dumps(game.to_json()), "history": [], "updated": time.time(), "status": game.status
        }
        return game_id

    def load(self, game_id: str, owner: str) -> Game:
        row = self._games.get(game_id)
        if row is None or row["owner"] != owner:
            raise NotFound(game_id)
        return self._decode(game_id, row["data"], [json.loads(record) for record in row["history"]])

    def save(self, game_id: str, owner: str, game: Game, read_version: int) -> None:
        if self.load(game_id, owner).moves != read_version:
            raise Conflict(game_id)
        row = self._games[game_id]
        del row["history"][len(game.history) :]
        row["history"].extend(json.dumps(record) for record in game.history[len(row["history"]) :])
        row.update(data=json.dumps(game.to_json()), updated=time.time(), status=game.status)
        self._remember_history(game_id, game.moves, game.history, game.status == "playing")

    def latest(self, owner: str) -> str | None:
        mine = [(row["updated"], game_id) for game_id, row in self._games.items() if row["owner"] == owner]
        return max(mine)[1] if mine else None

    def expire(self, idle_before: float) -> int:
        old = [game_id for game_id, row in self._games.items() if row["updated"] < idle_before]
        for game_id in old:
            del self._games[game_id]
        return len(old)

    def allow(self, key: str, limit: int, window: float) -> bool:
        now = time.time()
        started, count = self._counters.get(key, (now, 0))
        if now - started >= window:
            started, count = now, 0
        self._counters[key] = (started, count + 1)
        return count + 1 <= limit


# How long a write waits for other processes' writes before it gives up.
BUSY_SECONDS = 10


class _Immediate:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error: all of a write or none of it.

    SQLite's own busy handler waits for the write lock by sleeping 1, 2, 5,
    10... ms: with dozens of threads, or two worker processes, those sleeps
    cost more than the writes (measured: 85 instead of 290 requests a second
    in one process, and a second worker left a third of the machine idle).
    So threads of one process take turns on a lock, and the one whose turn it
    is asks SQLite again every half millisecond or so while another process
    writes.
    """

    def __init__(self, connection: sqlite3.Connection, writing: threading.Lock):
        self.connection = connection
        self.writing = writing

    def __enter__(self) -> sqlite3.Connection:
        self.writing.acquire()
        try:
            self.connection.execute("PRAGMA busy_timeout = 0")
            deadline = time.monotonic() + BUSY_SECONDS
            while True:
                try:
                    self.connection.execute("BEGIN IMMEDIATE")
                    break
                except sqlite3.OperationalError as error:
                    if "locked" not in str(error) and "busy" not in str(error) or time.monotonic() > deadline:
                        raise
                    time.sleep(random.uniform(0.0002, 0.001))
        except BaseException:
            self._restore()
            self.writing.release()
            raise
        return self.connection

    def __exit__(self, kind, error, traceback) -> None:
        try:
            self.connection.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self._restore()
            self.writing.release()

    def _restore(self) -> None:
        self.connection.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")


class SQLiteStore(Store):
    SCHEMA = """
        CREATE TABLE IF NOT EXISTS games (
            id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            version INTEGER NOT NULL,
            data TEXT NOT NULL,
            history_length INTEGER NOT NULL DEFAULT 0,
            finished INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS games_by_owner ON games (owner, updated_at);
        CREATE INDEX IF NOT EXISTS games_by_age ON games (updated_at);
        CREATE TABLE IF NOT EXISTS counters (
            key TEXT PRIMARY KEY,
            window_start REAL NOT NULL,
            count INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS history (
            game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            record TEXT NOT NULL,
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID;
    """

    def __init__(self, path: Path):
        super().__init__()
        self.path = Path(path)
        # Connections not in use. A pool, not one per thread: the thread pool
        # retires and replaces its threads, and per-thread connections (each
        # with its page cache) piled up, growing memory for as long as the server ran.
        self._idle: list[sqlite3.Connection] = []
        self._pool_lock = threading.Lock()
        self._writing = threading.Lock()
        with self._connection() as connection:
            connection.executescript(self.SCHEMA)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        with self._pool_lock:
            connection = self._idle.pop() if self._idle else None
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
        try:
            yield connection
        finally:
            with self._pool_lock:
                self._idle.append(connection)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connection() as connection, _Immediate(connection, self._writing):
            yield connection

    def create(self, owner: str, game: Game, keep: int = 100) -> str:
        game_id = new_game_id()
        now = time.time()
        with self._transaction() as connection:
            surplus = connection.execute("SELECT COUNT(*) FROM games WHERE owner = ?", (owner,)).fetchone()[0] - keep + 1
            if surplus > 0:
                connection.execute(
                    "DELETE FROM games WHERE id IN (SELECT id FROM games WHERE owner = ? ORDER BY finished DESC, updated_at LIMIT ?)",
                    (owner, surplus),
                )
            connection.execute(
                "INSERT INTO games (id, owner, version, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, owner, game.moves, json.dumps(game.to_json()), now, now),
            )
        return game_id

    def load(self, game_id: str, owner: str) -> Game:
        with self._connection() as connection:
            row = connection.execute("SELECT owner, version, data FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None or row[0] != owner:
                raise NotFound(game_id)
            history = self._cached_history(game_id, row[1])
            if history is None:
                records = connection.execute(
                    "SELECT record FROM history WHERE game_id = ? ORDER BY seq", (game_id,)
                ).fetchall()
        if history is None:
            try:
                history = [json.loads(record) for (record,) in records]
            except ValueError as error:
                raise Corrupt(f"game {game_id}: an undo record is not JSON: {error}") from None
        return self._decode(game_id, row[2], history)

    def save(self, game_id: str, owner: str, game: Game, read_version: int) -> None:
        # BEGIN IMMEDIATE takes the write lock first, so the version read below
        # cannot change before the writes that depend on it.
        with self._transaction() as connection:
            row = connection.execute(
                "SELECT version, history_length FROM games WHERE id = ? AND owner = ?", (game_id, owner)
            ).fetchone()
            if row is None:
                raise NotFound(game_id)
            if row[0] != read_version:
                raise Conflict(game_id)
            stored = row[1]
            kept = min(stored, len(game.history))
            connection.execute("DELETE FROM history WHERE game_id = ? AND seq >= ?", (game_id, kept))
            connection.executemany(
                "INSERT INTO history (game_id, seq, record) VALUES (?, ?, ?)",
                [(game_id, seq, json.dumps(game.history[seq])) for seq in range(kept, len(game.history))],
            )
            connection.execute(
                "UPDATE games SET version = ?, data = ?, history_length = ?, finished = ?, updated_at = ? WHERE id = ?",
                (game.moves, json.dumps(game.to_json()), len(game.history), game.status != "playing", time.time(), game_id),
            )
        self._remember_history(game_id, game.moves, game.history, game.status == "playing")

    def latest(self, owner: str) -> str | None:
        with self._connection() as connection:
            row = connection.execute(
                "SELECT id FROM games WHERE owner = ? ORDER BY updated_at DESC LIMIT 1", (owner,)
            ).fetchone()
        return row[0] if row else None

    def expire(self, idle_before: float) -> int:
        with self._transaction() as connection:
            return connection.execute("DELETE FROM games WHERE updated_at < ?", (idle_before,)).rowcount

    def allow(self, key: str, limit: int, window: float) -> bool:
        now = time.time()
        with self._transaction() as connection:
            row = connection.execute("SELECT window_start, count FROM counters WHERE key = ?", (key,)).fetchone()
            if row is None or now - row[0] >= window:
                connection.execute("INSERT OR REPLACE INTO counters (key, window_start, count) VALUES (?, ?, 1)", (key, now))
                # Old windows are dead weight: sweep them now and then, not on every call.
                if row is None and secrets.randbelow(100) == 0:
                    connection.execute("DELETE FROM counters WHERE window_start < ?", (now - 3600,))
                return True
            connection.execute("UPDATE counters SET count = count + 1 WHERE key = ?", (key,))
            return row[1] + 1 <= limit

    def close(self) -> None:
        with self._pool_lock:
            for connection in self._idle:
                connection.close()
            self._idle.clear()
