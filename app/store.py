"""Where games live between requests: by an unguessable id, bound to the player who made them.

SQLite is the embedded default: one file, every move written before the
response goes out, so a restart loses nothing. Each write checks the version
it read, so a move can never be applied over another one; inside one process
a lock per game makes simultaneous moves wait their turn. MemoryStore serves
tests that do not need a file.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

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
        lock, users = self._locks.get(game_id, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
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
    """The interface every store offers; see SQLiteStore for the semantics."""

    def __init__(self) -> None:
        self.locks = _GameLocks()

    def create(self, owner: str, game: Game) -> str:
        raise NotImplementedError

    def load(self, game_id: str, owner: str) -> Game:
        raise NotImplementedError

    def save(self, game_id: str, owner: str, game: Game, read_version: int) -> None:
        raise NotImplementedError

    def latest(self, owner: str) -> str | None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    @staticmethod
    def _decode(data: str) -> Game:
        try:
            return Game.from_json(json.loads(data))
        except (ValueError, TypeError) as error:
            raise Corrupt(str(error)) from None


class MemoryStore(Store):
    def __init__(self) -> None:
        super().__init__()
        self._games: dict[str, tuple[str, str, float]] = {}  # id -> (owner, json, updated)

    def create(self, owner: str, game: Game) -> str:
        game_id = new_game_id()
        self._games[game_id] = (owner, json.dumps(game.to_json()), time.time())
        return game_id

    def load(self, game_id: str, owner: str) -> Game:
        row = self._games.get(game_id)
        if row is None or row[0] != owner:
            raise NotFound(game_id)
        return self._decode(row[1])

    def save(self, game_id: str, owner: str, game: Game, read_version: int) -> None:
        current = self.load(game_id, owner)
        if current.moves != read_version:
            raise Conflict(game_id)
        self._games[game_id] = (owner, json.dumps(game.to_json()), time.time())

    def latest(self, owner: str) -> str | None:
        mine = [(updated, game_id) for game_id, (who, _, updated) in self._games.items() if who == owner]
        return max(mine)[1] if mine else None


class SQLiteStore(Store):
    SCHEMA = """
        CREATE TABLE IF NOT EXISTS games (
            id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            version INTEGER NOT NULL,
            data TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS games_by_owner ON games (owner, updated_at);
    """

    def __init__(self, path: Path):
        super().__init__()
        self.path = Path(path)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        with self._connection() as connection:
            connection.executescript(self.SCHEMA)

    def _connection(self) -> sqlite3.Connection:
        # One connection per thread: the web layer runs store calls in a thread pool.
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA busy_timeout=10000")
            self._local.connection = connection
            with self._all_lock:
                self._all.append(connection)
        return connection

    def create(self, owner: str, game: Game) -> str:
        game_id = new_game_id()
        now = time.time()
        self._connection().execute(
            "INSERT INTO games (id, owner, version, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, owner, game.moves, json.dumps(game.to_json()), now, now),
        )
        return game_id

    def load(self, game_id: str, owner: str) -> Game:
        row = self._connection().execute("SELECT owner, data FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None or row[0] != owner:
            raise NotFound(game_id)
        return self._decode(row[1])

    def save(self, game_id: str, owner: str, game: Game, read_version: int) -> None:
        cursor = self._connection().execute(
            "UPDATE games SET version = ?, data = ?, updated_at = ? WHERE id = ? AND owner = ? AND version = ?",
            (game.moves, json.dumps(game.to_json()), time.time(), game_id, owner, read_version),
        )
        if cursor.rowcount != 1:
            raise Conflict(game_id)

    def latest(self, owner: str) -> str | None:
        row = self._connection().execute(
            "SELECT id FROM games WHERE owner = ? ORDER BY updated_at DESC LIMIT 1", (owner,)
        ).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        with self._all_lock:
            for connection in self._all:
                connection.close()
            self._all.clear()
