"""Games in SQLite: the embedded default. One file, every move written before the answer goes out.

A game's state is one row; its undo records are rows of their own, written
once each, so a click late in a 100x100 game writes a few hundred bytes, not
the whole history. Each write checks the version it read, inside one
transaction, so a move can never be applied over another one. Seats are rows
of their own too: a game answers every player who holds one.
"""

from __future__ import annotations

import _sqlite3
import ctypes
import fcntl
import json
import os
import random
import secrets
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from app.core.game import Game
from app.core.seats import vacated
from app.store.base import (
    GAMES_LISTED,
    LADDER_LISTED_GROUPS,
    LEASE_WAIT_SECONDS,
    Clock,
    Conflict,
    Holdings,
    Kept,
    LadderPage,
    Listing,
    NotFound,
    Store,
    StoreUnavailable,
    check_ladder_arguments,
    creator,
    ladder_row,
    new_game_id,
    window_start,
)


def sqlite_memory() -> int | None:
    """The bytes SQLite holds in this process now (page caches above all), from the very library Python's
    sqlite3 module uses (sqlite3_status64 of its handle, so a copy linked into the module counts too); None
    where it cannot be asked."""
    try:
        status = ctypes.CDLL(_sqlite3.__file__).sqlite3_status64
        used, peak = ctypes.c_int64(), ctypes.c_int64()
        if status(SQLITE_STATUS_MEMORY_USED, ctypes.byref(used), ctypes.byref(peak), 0) != 0:
            return None
    except (OSError, AttributeError):
        return None
    return used.value


SQLITE_STATUS_MEMORY_USED = 0
# Game ids per query when the live follower reads many versions at once (SQLite takes up to 32,766 parameters).
VERSIONS_PER_QUERY = 500

# How long a write waits for other processes' writes before it gives up.
BUSY_SECONDS = 10

# SQLite's primary result codes that mean the disk or the file failed, not the query: what the player is told.
FAULTS = {
    sqlite3.SQLITE_FULL: "the server's disk is full",
    sqlite3.SQLITE_READONLY: "the server's disk is read-only",
    sqlite3.SQLITE_IOERR: "the server's disk reported an error",
    sqlite3.SQLITE_CANTOPEN: "the database file cannot be opened",
    sqlite3.SQLITE_BUSY: "other writers held the database too long",
    sqlite3.SQLITE_LOCKED: "other writers held the database too long",
}


def unavailable(error: sqlite3.Error) -> StoreUnavailable | None:
    """The StoreUnavailable a fault of the disk or the file becomes; None for any other error."""
    code = getattr(error, "sqlite_errorcode", None)
    cause = FAULTS.get(code & 0xFF) if code is not None else None
    if cause is None:
        return None
    message = f"Games cannot be saved right now ({cause}); nothing was changed. Try again later."
    return StoreUnavailable(message, "sqlite")


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
            try:
                with suppress(sqlite3.Error):  # the error that stopped BEGIN is the one to report
                    self._restore()
            finally:
                self.writing.release()
            raise
        return self.connection

    def __exit__(self, kind, error, traceback) -> None:
        try:
            if kind is None:
                # A COMMIT that fails leaves the connection in doubt: SQLiteStore._connection drops it,
                # and closing it rolls back whatever SQLite had not already.
                self.connection.execute("COMMIT")
                self._restore()
            else:
                # The error that stopped the write is the one to report, not a failed ROLLBACK: SQLite
                # rolls back by itself on a full disk or an I/O error, and then ROLLBACK finds nothing to undo.
                with suppress(sqlite3.Error):
                    self.connection.execute("ROLLBACK")
                with suppress(sqlite3.Error):
                    self._restore()
        finally:
            self.writing.release()

    def _restore(self) -> None:
        self.connection.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")


class SQLiteStore(Store):
    shared_by_processes = True

    # `owner` is the player who made the game (seat 0): the per-player cap counts those.
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
        CREATE TABLE IF NOT EXISTS seats (
            game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            player TEXT NOT NULL,
            PRIMARY KEY (game_id, seat)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS seats_by_player ON seats (player, game_id);
        -- Players who took a game off their list: their seat stays, the list no longer shows it.
        CREATE TABLE IF NOT EXISTS departures (
            game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            player TEXT NOT NULL,
            PRIMARY KEY (game_id, player)
        ) WITHOUT ROWID;
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
        -- Each finished game's first result, per player: kept when the game is gone, for the records.
        CREATE TABLE IF NOT EXISTS results (
            player TEXT NOT NULL,
            game_id TEXT NOT NULL,
            kept_at REAL NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (player, game_id)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS results_by_player ON results (player, kept_at);
        -- What each player's results add up to, per group (app.results.records.tally; key '' is the player's own),
        -- written with each result. A player with results and no tallies (kept before them) is counted once.
        CREATE TABLE IF NOT EXISTS tallies (
            player TEXT NOT NULL,
            key TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (player, key)
        ) WITHOUT ROWID;
        -- The game whose end first showed a player a board (its id): later games of it are no result.
        CREATE TABLE IF NOT EXISTS boards (
            player TEXT NOT NULL,
            board TEXT NOT NULL,
            game_id TEXT NOT NULL,
            PRIMARY KEY (player, board)
        ) WITHOUT ROWID;
        -- Who watches a live game: a seat's player is connected until `until` (the store clock).
        CREATE TABLE IF NOT EXISTS presence (
            game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            until REAL NOT NULL,
            PRIMARY KEY (game_id, seat)
        ) WITHOUT ROWID;
        -- Rooms (app.rooms): `updated_at` moves when the room or one of its games is saved (expiry goes by it).
        CREATE TABLE IF NOT EXISTS rooms (
            id TEXT PRIMARY KEY,
            version INTEGER NOT NULL,
            data TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS rooms_by_age ON rooms (updated_at);
        CREATE TABLE IF NOT EXISTS room_members (
            room_id TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
            player TEXT NOT NULL,
            PRIMARY KEY (room_id, player)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS room_members_by_player ON room_members (player, room_id);
        -- Who is in a room's page, as `presence` for games: a room id is no game's, so it has a table of its own.
        CREATE TABLE IF NOT EXISTS room_presence (
            room_id TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            until REAL NOT NULL,
            PRIMARY KEY (room_id, seat)
        ) WITHOUT ROWID;
        -- The display name each player chose (checked by the app before it is kept).
        CREATE TABLE IF NOT EXISTS names (
            player TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            named_at REAL NOT NULL DEFAULT 0
        );
        -- The host's audit log (kaboom admin): what was done, in the order it was, kept for good.
        CREATE TABLE IF NOT EXISTS audit (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            entry TEXT NOT NULL
        );
        -- Each player's first entry on a board of the day's ladder (`data`: the app's JSON, never read here),
        -- ranked by (grp, millis, seq); `seq` numbers a ladder's entries in the order they were kept.
        CREATE TABLE IF NOT EXISTS ladders (
            ladder TEXT NOT NULL,
            player TEXT NOT NULL,
            grp INTEGER NOT NULL,
            millis INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (ladder, player)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS ladders_by_rank ON ladders (ladder, grp, millis, seq);
        CREATE INDEX IF NOT EXISTS ladders_by_player ON ladders (player, ladder);
        -- Compare-and-set claims (Store.claim): one value per key, the app's words, never read here.
        CREATE TABLE IF NOT EXISTS claims (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        -- Passkeys (WebAuthn credentials) by their id, each a player's; `data` is the app's JSON, never read here.
        CREATE TABLE IF NOT EXISTS passkeys (
            credential_id TEXT PRIMARY KEY,
            player TEXT NOT NULL,
            data TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS passkeys_by_player ON passkeys (player);
        -- One-time tokens (a link code, a passkey's challenge): a value until a time of the store's clock.
        CREATE TABLE IF NOT EXISTS tokens (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            until REAL NOT NULL
        ) WITHOUT ROWID;
        -- /healthz writes its one row here: a write that fails says games cannot be saved either.
        CREATE TABLE IF NOT EXISTS health (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            checked_at REAL NOT NULL
        );
        -- Games from before seats had one player, their owner, in seat 0.
        INSERT OR IGNORE INTO seats (game_id, seat, player)
            SELECT id, 0, owner FROM games WHERE NOT EXISTS (SELECT 1 FROM seats WHERE game_id = games.id);
    """

    def __init__(self, path: Path, clock: Clock = time.time, *, kept: Kept):
        super().__init__(clock, kept)
        self.path = Path(path)
        # Connections not in use. A pool, not one per thread: the thread pool
        # retires and replaces its threads, and per-thread connections (each
        # with its page cache) piled up, growing memory for as long as the server ran.
        self._idle: list[sqlite3.Connection] = []
        self._pool_lock = threading.Lock()
        self._writing = threading.Lock()
        # Each game's lease is one byte of this file, locked (fcntl) by the process that works out a move on it.
        # Open for the store's life: closing any descriptor of the file would drop every lock the process holds.
        self._leases = open(self.path.with_name(self.path.name + "-leases"), "a+b")  # noqa: SIM115
        # Idempotent: workers starting together may all run it.
        with self._connection() as connection:
            connection.executescript(self.SCHEMA)
            self._add_columns(connection)

    @staticmethod
    def _add_columns(connection: sqlite3.Connection) -> None:
        """Columns a file made before them lacks: when each name was chosen."""
        columns = {row[1] for row in connection.execute("PRAGMA table_info(names)")}
        if "named_at" not in columns:
            try:
                connection.execute("ALTER TABLE names ADD COLUMN named_at REAL NOT NULL DEFAULT 0")
            except sqlite3.OperationalError as error:
                if "duplicate column" not in str(error):  # another worker starting at once added it
                    raise

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A connection from the pool, or a new one; a fault of the disk or the file is StoreUnavailable.

        Only a connection that did its work and was opened writable goes back
        to the pool: one that failed may be stuck (inside a transaction, or on a
        file handle that broke), and the next request gets a fresh one instead,
        so writes work again as soon as the disk does.
        """
        with self._pool_lock:
            connection = self._idle.pop() if self._idle else None
        writable = True
        try:
            if connection is None:
                connection, writable = self._open()
            yield connection
        except sqlite3.Error as error:
            if connection is not None:
                connection.close()
                connection = None
            fault = unavailable(error)
            if fault is None:
                raise
            raise fault from error
        finally:
            if connection is not None:
                if writable and not connection.in_transaction:
                    with self._pool_lock:
                        self._idle.append(connection)
                else:
                    connection.close()

    def held(self) -> str:
        # Each pooled connection keeps a page cache of up to 2 MB (SQLite's default), filled as the file grows:
        # a part of a worker's slow rise in memory that only SQLite itself can tell.
        with self._pool_lock:
            pooled = len(self._idle)
        used = sqlite_memory()
        return f"SQLite connections pooled {pooled} (page caches up to 2 MB each), SQLite memory " + (
            f"{used / 2**20:.1f} MB" if used is not None else "unknown"
        )

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A connection inside one read transaction: its SELECTs all see the same state. Each statement
        on its own would see the latest, and a save from another process between reading a game's row
        and its undo records paired them wrongly (N+1 records where the row counts N: a game taken
        for damaged, under two workers flagging one game at once)."""
        with self._connection() as connection:
            connection.execute("BEGIN")
            try:
                yield connection
            finally:
                connection.execute("COMMIT")

    def _open(self) -> tuple[sqlite3.Connection, bool]:
        """A new connection, and whether it can write.

        SQLite opens a file it may not write (its permissions, a read-only
        mount) read-only without a word, and the connection stays read-only
        after the file is writable again: such a connection serves this one
        request and is not pooled.
        """
        connection = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
        except BaseException:
            connection.close()
            raise
        # access(2), never open() and close(): closing any descriptor of the database file drops
        # every POSIX lock this process holds on it, other connections' included; another process
        # then takes itself for the last user and deletes the log in use (bench/load.py --slow
        # corrupted its file that way).
        return connection, os.access(self.path, os.W_OK)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connection() as connection, _Immediate(connection, self._writing):
            yield connection

    def create(self, game: Game, keep: int = 100) -> str:
        maker = creator(game)
        game_id = new_game_id()
        now = self.clock()
        with self._transaction() as connection:
            surplus = (
                connection.execute("SELECT COUNT(*) FROM games WHERE owner = ?", (maker,)).fetchone()[0] - keep + 1
            )
            if surplus > 0:
                connection.execute(
                    "DELETE FROM games WHERE id IN "
                    "(SELECT id FROM games WHERE owner = ? ORDER BY finished DESC, updated_at LIMIT ?)",
                    (maker, surplus),
                )
            connection.execute(
                "INSERT INTO games (id, owner, version, data, finished, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, maker, game.version, self._encode(game, game_id), game.status != "playing", now, now),
            )
            self._seat(connection, game_id, game)
        return game_id

    @staticmethod
    def _seat(connection: sqlite3.Connection, game_id: str, game: Game) -> None:
        # The seats as the game has them now: a seat may have gone to another player, or gone.
        credentials = game.credentials()
        connection.execute("DELETE FROM seats WHERE game_id = ? AND seat >= ?", (game_id, len(credentials)))
        connection.executemany(
            "INSERT OR REPLACE INTO seats (game_id, seat, player) VALUES (?, ?, ?)",
            [(game_id, seat, player) for seat, player in enumerate(credentials)],
        )

    def load(self, game_id: str, player: str) -> Game:
        with self._snapshot() as connection:
            row = connection.execute(
                "SELECT version, data, history_length FROM games "
                "WHERE id = ? AND EXISTS (SELECT 1 FROM seats WHERE game_id = ? AND player = ?)",
                (game_id, game_id, player),
            ).fetchone()
            if row is None:
                raise NotFound(game_id)
            version, data, history_length = row
            cached = self._cached_history(game_id, version)
            records = None
            if cached is None:
                query = connection.execute("SELECT record FROM history WHERE game_id = ? ORDER BY seq", (game_id,))
                records = [record for (record,) in query]
        return self._decode(game_id, player, version, data, records, cached, history_length)

    def save(self, game_id: str, player: str, game: Game, read_version: int) -> None:
        # BEGIN IMMEDIATE takes the write lock first, so the version read below
        # cannot change before the writes that depend on it.
        with self._transaction() as connection:
            row = connection.execute(
                "SELECT version, history_length, finished FROM games "
                "WHERE id = ? AND EXISTS (SELECT 1 FROM seats WHERE game_id = ? AND player = ?)",
                (game_id, game_id, player),
            ).fetchone()
            if row is None:
                raise NotFound(game_id)
            if row[0] != read_version:
                raise Conflict(game_id)
            stored, was_finished = row[1], row[2]
            now = self.clock()
            kept = min(stored, len(game.history))
            connection.execute("DELETE FROM history WHERE game_id = ? AND seq >= ?", (game_id, kept))
            connection.executemany(
                "INSERT INTO history (game_id, seq, record) VALUES (?, ?, ?)",
                [(game_id, seq, json.dumps(game.history[seq])) for seq in range(kept, len(game.history))],
            )
            connection.execute(
                "UPDATE games SET version = ?, data = ?, history_length = ?, finished = ?, updated_at = ? WHERE id = ?",
                (
                    game.version,
                    self._encode(game, game_id),
                    len(game.history),
                    game.status != "playing",
                    now,
                    game_id,
                ),
            )
            # A one-player game's credentials change only while it is over (its replay shared or withdrawn,
            # or taken back into play by undo) or in a room (its racer left, or came back): the other moves
            # write no seat.
            if len(game.seats) > 1 or game.room is not None or was_finished or game.status != "playing":
                self._seat(connection, game_id, game)
            if game.room:
                # A room is active while its games are played: it expires only once they are idle too.
                connection.execute("UPDATE rooms SET updated_at = ? WHERE id = ?", (now, game.room["id"]))
        self._remember_history(game_id, game)

    def games_of(self, player: str, limit: int = GAMES_LISTED) -> list[Listing]:
        with self._connection() as connection:
            # A game is listed once, however many of its seats are the player's (both, on one screen).
            rows = connection.execute(
                "SELECT id, version, data, updated_at FROM games "
                "WHERE id IN (SELECT game_id FROM seats WHERE player = ?) "
                "AND NOT EXISTS (SELECT 1 FROM departures WHERE game_id = games.id AND player = ?) "
                "ORDER BY updated_at DESC LIMIT ?",
                (player, player, limit),
            ).fetchall()
        return [self._listing(*row) for row in rows]

    def delete(self, game_id: str, player: str) -> None:
        with self._transaction() as connection:
            deleted = connection.execute(
                "DELETE FROM games WHERE id = ? AND EXISTS (SELECT 1 FROM seats WHERE game_id = ? AND player = ?)",
                (game_id, game_id, player),
            ).rowcount
        if not deleted:
            raise NotFound(game_id)
        with self._cache_lock:
            self._histories.pop(game_id, None)

    def leave(self, game_id: str, player: str) -> None:
        with self._transaction() as connection:
            left = connection.execute(
                "INSERT OR IGNORE INTO departures (game_id, player) "
                "SELECT ?, ? WHERE EXISTS (SELECT 1 FROM seats WHERE game_id = ? AND player = ?)",
                (game_id, player, game_id, player),
            ).rowcount
            if (
                not left
                and connection.execute(
                    "SELECT 1 FROM seats WHERE game_id = ? AND player = ?", (game_id, player)
                ).fetchone()
                is None
            ):
                raise NotFound(game_id)

    def expire(self, idle_before: float) -> int:
        with self._transaction() as connection:
            games = connection.execute("DELETE FROM games WHERE updated_at < ?", (idle_before,)).rowcount
            rooms = connection.execute("DELETE FROM rooms WHERE updated_at < ?", (idle_before,)).rowcount
            connection.execute("DELETE FROM tokens WHERE until <= ?", (self.clock(),))  # ran out: taken by nobody
        return games + rooms

    def record_result(self, player: str, game_id: str, result: dict[str, Any] | None, board: str | None = None) -> None:
        text = json.dumps(result) if result is not None else None
        with self._transaction() as connection:
            if board is not None:
                connection.execute(
                    "INSERT OR IGNORE INTO boards (player, board, game_id) VALUES (?, ?, ?)", (player, board, game_id)
                )
                first = connection.execute(
                    "SELECT game_id FROM boards WHERE player = ? AND board = ?", (player, board)
                ).fetchone()
                if first[0] != game_id:
                    return
            if text is None:
                return
            kept = connection.execute(
                "INSERT OR IGNORE INTO results (player, game_id, kept_at, data) VALUES (?, ?, ?, ?)",
                (player, game_id, self.clock(), text),
            ).rowcount
            if not kept:
                return
            key = self.kept.tally_key(text)
            rows = dict(
                connection.execute(
                    "SELECT key, data FROM tallies WHERE player = ? AND key IN (?, ?)",
                    (player, self.kept.tallied, key or self.kept.tallied),
                )
            )
            alone = (
                self.kept.tallied not in rows
                and connection.execute(
                    "SELECT COUNT(*) FROM (SELECT 1 FROM results WHERE player = ? LIMIT 2)", (player,)
                ).fetchone()[0]
                == 1
            )
            changes = self.kept.tally(rows, text, alone)
            if changes is None:
                # Counted again from every result when next read (tallies_of), outside the write lock every move takes.
                connection.execute("DELETE FROM tallies WHERE player = ?", (player,))
            else:
                connection.executemany(
                    "INSERT OR REPLACE INTO tallies (player, key, data) VALUES (?, ?, ?)",
                    [(player, name, data) for name, data in changes.items()],
                )

    def board_seen_in(self, player: str, board: str) -> str | None:
        with self._connection() as connection:
            row = connection.execute(
                "SELECT game_id FROM boards WHERE player = ? AND board = ?", (player, board)
            ).fetchone()
        return None if row is None else row[0]

    def results_of(self, player: str) -> list[str]:
        with self._connection() as connection:
            rows = connection.execute(
                "SELECT data FROM results WHERE player = ? ORDER BY kept_at, game_id", (player,)
            ).fetchall()
        return [row[0] for row in rows]

    def results_by_game(self, player: str) -> dict[str, str]:
        with self._connection() as connection:
            return self._results_by_game(connection, player)

    @staticmethod
    def _results_by_game(connection: sqlite3.Connection, player: str) -> dict[str, str]:
        return dict(
            connection.execute(
                "SELECT game_id, data FROM results WHERE player = ? ORDER BY kept_at, game_id", (player,)
            )
        )

    def tallies_of(self, player: str) -> dict[str, str]:
        with self._connection() as connection:
            rows = dict(connection.execute("SELECT key, data FROM tallies WHERE player = ?", (player,)))
            if (
                self.kept.tallied in rows
                or connection.execute("SELECT 1 FROM results WHERE player = ? LIMIT 1", (player,)).fetchone() is None
            ):
                return rows
        return self.retally(player)

    def retally(self, player: str) -> dict[str, str]:
        # Counted outside the write lock, which every move takes (100,000 results take a second or more), and
        # kept only if no result came in meanwhile: results are never taken away, so as many is the same ones.
        for _ in range(3):
            with self._snapshot() as connection:
                results = self._results(connection, player)
            rows = self.kept.recount(results) if results else {}
            try:
                with self._transaction() as connection:
                    if connection.execute("SELECT COUNT(*) FROM results WHERE player = ?", (player,)).fetchone()[
                        0
                    ] == len(results):
                        self._keep_tallies(connection, player, rows)
                        return rows
            except StoreUnavailable:
                return rows  # a disk that cannot write: the records show all the same, and are kept next time
        with self._transaction() as connection:
            return self._retally(connection, player)

    def _retally(self, connection: sqlite3.Connection, player: str) -> dict[str, str]:
        results = self._results(connection, player)
        rows = self.kept.recount(results) if results else {}
        self._keep_tallies(connection, player, rows)
        return rows

    @staticmethod
    def _results(connection: sqlite3.Connection, player: str) -> list[str]:
        return [
            row[0]
            for row in connection.execute(
                "SELECT data FROM results WHERE player = ? ORDER BY kept_at, game_id", (player,)
            )
        ]

    @staticmethod
    def _keep_tallies(connection: sqlite3.Connection, player: str, rows: dict[str, str]) -> None:
        connection.execute("DELETE FROM tallies WHERE player = ?", (player,))
        connection.executemany(
            "INSERT INTO tallies (player, key, data) VALUES (?, ?, ?)",
            [(player, key, data) for key, data in rows.items()],
        )

    def count_event(self, key: str, limit: int, window: float) -> bool:
        now = self.clock()
        start = window_start(now, window)
        with self._transaction() as connection:
            row = connection.execute("SELECT window_start, count FROM counters WHERE key = ?", (key,)).fetchone()
            if row is None or row[0] != start:
                connection.execute(
                    "INSERT OR REPLACE INTO counters (key, window_start, count) VALUES (?, ?, 1)", (key, start)
                )
                # Old windows are dead weight: sweep them now and then, not on every call.
                if row is None and secrets.randbelow(100) == 0:
                    connection.execute("DELETE FROM counters WHERE window_start < ?", (now - 3600 - window,))
                return 1 <= limit
            connection.execute("UPDATE counters SET count = count + 1 WHERE key = ?", (key,))
            return row[1] + 1 <= limit

    def stored_version(self, game_id: str) -> int | None:
        with self._connection() as connection:
            row = connection.execute(
                "SELECT version FROM games WHERE id = ? UNION ALL SELECT version FROM rooms WHERE id = ?",
                (game_id, game_id),
            ).fetchone()
        return None if row is None else row[0]

    def stored_versions(self, game_ids: list[str]) -> dict[str, int | None]:
        versions: dict[str, int | None] = dict.fromkeys(game_ids)
        with self._connection() as connection:
            # In slices: a statement takes a bounded number of parameters.
            for start in range(0, len(game_ids), VERSIONS_PER_QUERY):
                ids = game_ids[start : start + VERSIONS_PER_QUERY]
                marks = ", ".join("?" * len(ids))
                query = f"SELECT id, version FROM games WHERE id IN ({marks}) UNION ALL " + (
                    f"SELECT id, version FROM rooms WHERE id IN ({marks})"
                )
                versions.update(connection.execute(query, ids + ids).fetchall())
        return versions

    def mark_present(self, game_id: str, seat: int, until: float) -> None:
        with self._transaction() as connection:
            if connection.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None:
                connection.execute(
                    "INSERT INTO presence (game_id, seat, until) VALUES (?, ?, ?) "
                    "ON CONFLICT (game_id, seat) DO UPDATE SET until = excluded.until",
                    (game_id, seat, until),
                )
            elif connection.execute("SELECT 1 FROM rooms WHERE id = ?", (game_id,)).fetchone() is not None:
                connection.execute(
                    "INSERT INTO room_presence (room_id, seat, until) VALUES (?, ?, ?) "
                    "ON CONFLICT (room_id, seat) DO UPDATE SET until = excluded.until",
                    (game_id, seat, until),
                )

    def present(self, game_id: str) -> set[int]:
        now = self.clock()
        with self._connection() as connection:
            rows = connection.execute(
                "SELECT seat FROM presence WHERE game_id = ? AND until > ? "
                "UNION SELECT seat FROM room_presence WHERE room_id = ? AND until > ?",
                (game_id, now, game_id, now),
            ).fetchall()
        return {seat for (seat,) in rows}

    def create_room(self, room: Any) -> str:
        room_id = new_game_id()
        data = self._room_data(room, room_id)
        now = self.clock()
        with self._transaction() as connection:
            connection.execute(
                "INSERT INTO rooms (id, version, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                (room_id, room.version, data, now, now),
            )
            self._members(connection, room_id, room)
        return room_id

    @staticmethod
    def _members(connection: sqlite3.Connection, room_id: str, room: Any) -> None:
        players = room.players()
        marks = ", ".join("?" * len(players))
        connection.execute(
            f"DELETE FROM room_members WHERE room_id = ? AND player NOT IN ({marks})", [room_id, *players]
        )
        connection.executemany(
            "INSERT OR IGNORE INTO room_members (room_id, player) VALUES (?, ?)",
            [(room_id, player) for player in players],
        )

    def load_room(self, room_id: str) -> Any:
        with self._connection() as connection:
            row = connection.execute("SELECT version, data FROM rooms WHERE id = ?", (room_id,)).fetchone()
        if row is None:
            raise NotFound(room_id)
        return self._read_room(room_id, *row)

    def save_room(self, room_id: str, room: Any, read_version: int) -> None:
        data = self._room_data(room, room_id)
        with self._transaction() as connection:
            row = connection.execute("SELECT version FROM rooms WHERE id = ?", (room_id,)).fetchone()
            if row is None:
                raise NotFound(room_id)
            if row[0] != read_version:
                raise Conflict(room_id)
            connection.execute(
                "UPDATE rooms SET version = ?, data = ?, updated_at = ? WHERE id = ?",
                (room.version, data, self.clock(), room_id),
            )
            self._members(connection, room_id, room)

    def delete_room(self, room_id: str) -> None:
        with self._transaction() as connection:
            connection.execute("DELETE FROM rooms WHERE id = ?", (room_id,))

    def rooms_of(self, player: str) -> list[str]:
        with self._connection() as connection:
            rows = connection.execute(
                "SELECT id FROM rooms WHERE id IN (SELECT room_id FROM room_members WHERE player = ?) "
                "ORDER BY updated_at DESC",
                (player,),
            ).fetchall()
        return [room_id for (room_id,) in rows]

    def peek(self, game_ids: list[str]) -> dict[str, Game | None]:
        games: dict[str, Game | None] = dict.fromkeys(game_ids)
        with self._connection() as connection:
            for start in range(0, len(game_ids), VERSIONS_PER_QUERY):
                ids = game_ids[start : start + VERSIONS_PER_QUERY]
                marks = ", ".join("?" * len(ids))
                rows = connection.execute(f"SELECT id, version, data FROM games WHERE id IN ({marks})", ids)
                games.update((game_id, self._glance(version, data)) for game_id, version, data in rows)
        return games

    def set_name(self, player: str, name: str) -> None:
        with self._transaction() as connection:
            connection.execute(
                "INSERT INTO names (player, name, named_at) VALUES (?, ?, ?) "
                "ON CONFLICT (player) DO UPDATE SET name = excluded.name, named_at = excluded.named_at",
                (player, name, self.clock()),
            )

    def recent_names(self, limit: int) -> list[tuple[str, str, float]]:
        with self._connection() as connection:
            rows = connection.execute(
                "SELECT player, name, named_at FROM names ORDER BY named_at DESC, player LIMIT ?", (limit,)
            ).fetchall()
        return [(player, name, float(named_at)) for player, name, named_at in rows]

    def drop_name(self, player: str) -> bool:
        with self._transaction() as connection:
            return bool(connection.execute("DELETE FROM names WHERE player = ?", (player,)).rowcount)

    def drop_ladder_entry(self, ladder: str, player: str) -> bool:
        with self._transaction() as connection:
            return bool(
                connection.execute("DELETE FROM ladders WHERE ladder = ? AND player = ?", (ladder, player)).rowcount
            )

    def write_audit(self, entry: str) -> None:
        with self._transaction() as connection:
            connection.execute("INSERT INTO audit (entry) VALUES (?)", (entry,))

    def audit_log(self, limit: int) -> list[str]:
        with self._connection() as connection:
            return [row[0] for row in connection.execute("SELECT entry FROM audit ORDER BY seq DESC LIMIT ?", (limit,))]

    def names_of(self, players: list[str]) -> dict[str, str]:
        names: dict[str, str] = {}
        with self._connection() as connection:
            for start in range(0, len(players), VERSIONS_PER_QUERY):
                some = players[start : start + VERSIONS_PER_QUERY]
                marks = ", ".join("?" * len(some))
                names.update(connection.execute(f"SELECT player, name FROM names WHERE player IN ({marks})", some))
        return names

    def enter_ladder(self, ladder: str, player: str, group: int, millis: int, entry: str) -> bool:
        check_ladder_arguments(group=group, millis=millis)
        # One statement in a write transaction: the entry's number is taken under the write lock every
        # process shares, and a player's first entry stays as it was.
        with self._transaction() as connection:
            return bool(
                connection.execute(
                    "INSERT INTO ladders (ladder, player, grp, millis, seq, data) "
                    "SELECT ?, ?, ?, ?, COALESCE(MAX(seq), 0) + 1, ? FROM ladders WHERE ladder = ? "
                    "ON CONFLICT (ladder, player) DO NOTHING",
                    (ladder, player, group, millis, entry, ladder),
                ).rowcount
            )

    def ladder(self, ladder: str, limit: int, player: str | None = None) -> LadderPage:
        check_ladder_arguments(limit=limit)
        # One read transaction: the top, the counts and the player's place all see the same entries.
        with self._snapshot() as connection:
            # The listed groups rank before any other, so the top's places count from 1.
            top = connection.execute(
                "SELECT player, grp, millis, data FROM ladders WHERE ladder = ? AND grp < ? "
                "ORDER BY grp, millis, seq LIMIT ?",
                (ladder, LADDER_LISTED_GROUPS, limit),
            ).fetchall()
            counts = dict(
                connection.execute("SELECT grp, COUNT(*) FROM ladders WHERE ladder = ? GROUP BY grp", (ladder,))
            )
            own = None
            if player is not None:
                mine = connection.execute(
                    "SELECT grp, millis, seq, data FROM ladders WHERE ladder = ? AND player = ?", (ladder, player)
                ).fetchone()
                if mine is not None:
                    before = connection.execute(
                        "SELECT COUNT(*) FROM ladders WHERE ladder = ? AND (grp, millis, seq) < (?, ?, ?)",
                        (ladder, *mine[:3]),
                    ).fetchone()[0]
                    own = ladder_row(before + 1, player, mine[0], mine[1], mine[3])
        rows = [ladder_row(place, *row) for place, row in enumerate(top, 1)]
        return LadderPage(
            [row for row in rows if row is not None], own, (counts.get(0, 0), counts.get(1, 0), counts.get(2, 0))
        )

    def ladder_entries_of(self, player: str) -> dict[str, str]:
        with self._connection() as connection:
            return dict(connection.execute("SELECT ladder, data FROM ladders WHERE player = ?", (player,)))

    def claim(self, key: str, value: str, expected: str | None = None) -> bool:
        # Read and written under the write lock every process shares.
        with self._transaction() as connection:
            row = connection.execute("SELECT value FROM claims WHERE key = ?", (key,)).fetchone()
            if (row[0] if row else None) != expected:
                return False
            connection.execute(
                "INSERT INTO claims (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
            return True

    def claimed(self, key: str) -> str | None:
        with self._connection() as connection:
            row = connection.execute("SELECT value FROM claims WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def release(self, key: str, value: str) -> None:
        with self._transaction() as connection:
            connection.execute("DELETE FROM claims WHERE key = ? AND value = ?", (key, value))

    # ----- passkeys and one-time tokens ---------------------------------------------------------------

    def keep_passkey(self, player: str, credential_id: str, data: str) -> bool:
        with self._transaction() as connection:
            return bool(
                connection.execute(
                    "INSERT OR IGNORE INTO passkeys (credential_id, player, data) VALUES (?, ?, ?)",
                    (credential_id, player, data),
                ).rowcount
            )

    def passkey(self, credential_id: str) -> tuple[str, str] | None:
        with self._connection() as connection:
            row = connection.execute(
                "SELECT player, data FROM passkeys WHERE credential_id = ?", (credential_id,)
            ).fetchone()
        return None if row is None else (row[0], row[1])

    def passkeys_of(self, player: str) -> dict[str, str]:
        with self._connection() as connection:
            return dict(connection.execute("SELECT credential_id, data FROM passkeys WHERE player = ?", (player,)))

    def update_passkey(self, player: str, credential_id: str, data: str) -> bool:
        with self._transaction() as connection:
            return bool(
                connection.execute(
                    "UPDATE passkeys SET data = ? WHERE credential_id = ? AND player = ?", (data, credential_id, player)
                ).rowcount
            )

    def drop_passkey(self, player: str, credential_id: str) -> bool:
        with self._transaction() as connection:
            return bool(
                connection.execute(
                    "DELETE FROM passkeys WHERE credential_id = ? AND player = ?", (credential_id, player)
                ).rowcount
            )

    def put_token(self, key: str, value: str, until: float) -> bool:
        with self._transaction() as connection:
            connection.execute("DELETE FROM tokens WHERE key = ? AND until <= ?", (key, self.clock()))
            return bool(
                connection.execute(
                    "INSERT OR IGNORE INTO tokens (key, value, until) VALUES (?, ?, ?)", (key, value, until)
                ).rowcount
            )

    def take_token(self, key: str) -> str | None:
        with self._transaction() as connection:
            row = connection.execute("DELETE FROM tokens WHERE key = ? RETURNING value, until", (key,)).fetchone()
        return row[0] if row is not None and row[1] > self.clock() else None

    # ----- a player's whole keeping -------------------------------------------------------------------

    def holdings(self, player: str) -> Holdings:
        with self._snapshot() as connection:
            games = self._games_naming(connection, player)
            left = [row[0] for row in connection.execute("SELECT game_id FROM departures WHERE player = ?", (player,))]
            rooms = [
                row[0] for row in connection.execute("SELECT room_id FROM room_members WHERE player = ?", (player,))
            ]
            results = self._results_by_game(connection, player)
            tallies = dict(connection.execute("SELECT key, data FROM tallies WHERE player = ?", (player,)))
            boards = dict(connection.execute("SELECT board, game_id FROM boards WHERE player = ?", (player,)))
            name = connection.execute("SELECT name FROM names WHERE player = ?", (player,)).fetchone()
            ladders = dict(connection.execute("SELECT ladder, data FROM ladders WHERE player = ?", (player,)))
            claims = dict(self._naming(connection, "claims", player))
            passkeys = dict(connection.execute("SELECT credential_id, data FROM passkeys WHERE player = ?", (player,)))
            tokens = dict(self._naming(connection, "tokens", player))
        return Holdings(
            games, left, rooms, results, tallies, boards, name and name[0], ladders, claims, passkeys, tokens
        )

    @staticmethod
    def _games_naming(connection: sqlite3.Connection, player: str) -> list[str]:
        return [
            row[0]
            for row in connection.execute(
                "SELECT DISTINCT game_id FROM seats WHERE player IN (?, ?)", (player, vacated(player).id)
            )
        ]

    @staticmethod
    def _naming(connection: sqlite3.Connection, table: str, player: str) -> list[tuple[str, str]]:
        """The rows of `table` (claims or tokens: key, value) about `player` (names_player)."""
        return connection.execute(
            f"SELECT key, value FROM {table} WHERE value = ? OR instr(key, ?) > 0", (player, player)
        ).fetchall()

    def forget(self, player: str, stand_in: str) -> None:
        with self._transaction() as connection:
            rooms_kept = self._recast_rooms(connection, player, stand_in, forget=True)
            games = self._recast_games(connection, player, stand_in, rooms_kept=rooms_kept)
            for table in ("departures", "results", "tallies", "boards", "names", "ladders", "passkeys"):
                connection.execute(f"DELETE FROM {table} WHERE player = ?", (player,))
            connection.executemany(
                "DELETE FROM tokens WHERE key = ?", [(key,) for key, _ in self._naming(connection, "tokens", player)]
            )
            connection.executemany(
                "DELETE FROM claims WHERE key = ?", [(key,) for key, _ in self._naming(connection, "claims", player)]
            )
        self._forget_histories(games)

    def merge(self, source: str, target: str) -> None:
        if source == target:
            return
        with self._transaction() as connection:
            self._recast_rooms(connection, source, target, forget=False)
            games = self._recast_games(connection, source, target)
            # Where both kept a row of the same key (a game both played, a board both saw), the target's stays.
            for table in ("departures", "results", "boards"):
                connection.execute(f"UPDATE OR IGNORE {table} SET player = ? WHERE player = ?", (target, source))
                connection.execute(f"DELETE FROM {table} WHERE player = ?", (source,))
            connection.execute(
                "INSERT OR IGNORE INTO names (player, name, named_at) "
                "SELECT ?, name, named_at FROM names WHERE player = ?",
                (target, source),
            )
            connection.execute("DELETE FROM names WHERE player = ?", (source,))
            # Each ladder keeps whichever of the two entries it kept first.
            connection.execute(
                "DELETE FROM ladders WHERE player IN (?, ?) AND EXISTS (SELECT 1 FROM ladders AS other "
                "WHERE other.ladder = ladders.ladder AND other.player IN (?, ?) AND other.seq < ladders.seq)",
                (source, target, source, target),
            )
            connection.execute("UPDATE ladders SET player = ? WHERE player = ?", (target, source))
            for key, value in self._naming(connection, "claims", source):
                connection.execute("DELETE FROM claims WHERE key = ?", (key,))
                connection.execute(
                    "INSERT OR IGNORE INTO claims (key, value) VALUES (?, ?)",
                    (key.replace(source, target), target if value == source else value),
                )
            connection.execute("UPDATE passkeys SET player = ? WHERE player = ?", (target, source))
            for key, value in self._naming(connection, "tokens", source):
                connection.execute(
                    "UPDATE OR REPLACE tokens SET key = ?, value = ? WHERE key = ?",
                    (key.replace(source, target), target if value == source else value, key),
                )
            # Counted again from the results together when next read (tallies_of), outside the write lock.
            connection.execute("DELETE FROM tallies WHERE player IN (?, ?)", (source, target))
        self._forget_histories(games)

    def _recast_games(
        self, connection: sqlite3.Connection, source: str, target: str, rooms_kept: set[str] | None = None
    ) -> list[str]:
        """Give `target` every seat of `source` (Store._recast_game); forgetting `source` (`rooms_kept` given),
        the games nobody else plays go."""
        games = self._games_naming(connection, source)
        for game_id in games:
            row = connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()
            game = self._recast_game(row[0], source, target, rooms_kept=rooms_kept)
            if game is None:
                connection.execute("DELETE FROM games WHERE id = ?", (game_id,))
                continue
            connection.execute(
                "UPDATE games SET owner = ?, version = ?, data = ? WHERE id = ?",
                (game.maker, game.version, self._encode(game, game_id), game_id),
            )
            connection.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            self._seat(connection, game_id, game)
        return games

    def _recast_rooms(self, connection: sqlite3.Connection, source: str, target: str, *, forget: bool) -> set[str]:
        """Name `target` wherever `source`'s rooms name `source` (Store._recast_room); the rooms that go on."""
        rooms = connection.execute(
            "SELECT id, data FROM rooms WHERE id IN (SELECT room_id FROM room_members WHERE player = ?)", (source,)
        ).fetchall()
        kept = set()
        for room_id, data in rooms:
            room = self._recast_room(data, source, target, forget=forget)
            if room is None:
                connection.execute("DELETE FROM rooms WHERE id = ?", (room_id,))
                continue
            connection.execute(
                "UPDATE rooms SET version = ?, data = ? WHERE id = ?",
                (room.version, self._room_data(room, room_id), room_id),
            )
            self._members(connection, room_id, room)
            kept.add(room_id)
        return kept

    def check(self) -> None:
        # A real write, committed: a full or read-only disk fails it as it would fail a move.
        with self._transaction() as connection:
            connection.execute(
                "INSERT INTO health (id, checked_at) VALUES (1, ?) "
                "ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at",
                (self.clock(),),
            )

    @contextmanager
    def lease(self, game_id: str) -> Iterator[None]:
        # Processes on one file used to retry a move whose write met another's: two players moving at once
        # through two workers, one kept winning, and the other's move failed after eight tries. A process now
        # waits for the game's byte of the leases file instead; a process that dies lets go of it with its
        # last breath (the kernel's), so no lease outlives its holder. Threads of one process take turns at a
        # game already (app.service.runner), and fcntl's locks are the process's, so they never wait on each other.
        byte = zlib.crc32(game_id.encode()) + 1
        deadline = time.monotonic() + LEASE_WAIT_SECONDS
        while True:
            try:
                fcntl.lockf(self._leases, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, byte)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise Conflict(f"{game_id}: another process held the game too long") from None
                time.sleep(random.uniform(0.0002, 0.001))
        try:
            yield
        finally:
            fcntl.lockf(self._leases, fcntl.LOCK_UN, 1, byte)

    def close(self) -> None:
        with self._pool_lock:
            for connection in self._idle:
                connection.close()
            self._idle.clear()
        self._leases.close()
