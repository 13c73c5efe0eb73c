"""Games in Redis, shared by every worker on every host.

The data is laid out as in SQLite: a game's state is one hash and its undo
records a list, each record written once, so a click late in a big game sends a
few hundred bytes. Writes are optimistic transactions: WATCH the keys, check
what was read, then MULTI/EXEC. EXEC fails if another process wrote in
between, and the check runs again on what that process wrote, so two
processes can never both write over the same version.

Keys, under `prefix`:
    game:<id>       hash: seats (JSON list), owner (seat 0), version, data, history_length, finished, updated
    history:<id>    list: the undo records, as JSON
    owner:<player>  sorted set: the games the player made, by last update (the per-player cap)
    player:<player> sorted set: every game the player holds a seat in, by last update
    games           sorted set: every game id by last update, for expiry
    rate:<key>:<window start>   counter of one window, expiring after it
    lease:<id>      the host working on a move of that game (redis-py's lock: a token and an expiry)
    changed:<id>    pub/sub channel: the new version after every save

Times come from the store's clock (each host's, as with SQLite): keep the hosts' clocks synchronised.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import redis
from redis.exceptions import LockError

from app.config import ConfigurationError
from app.game import Game
from app.store.base import Clock, Conflict, Corrupt, NotFound, Store, creator, encode, new_game_id, window_start

# A move takes milliseconds; a lease this long outlives any move, and frees a
# game whose host died mid-move soon enough.
LEASE_SECONDS = 15
LEASE_WAIT_SECONDS = 30


class RedisStore(Store):
    # A write that loses this many races in a row is refused rather than retried forever.
    ATTEMPTS = 5

    def __init__(self, url: str, prefix: str = "kaboom", clock: Clock = time.time) -> None:
        super().__init__(clock)
        self.prefix = prefix
        try:
            # Without timeouts a Redis that stops answering would hang every request.
            self.redis = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=10)
            self.redis.ping()
        except (redis.RedisError, ValueError, OSError) as error:
            raise ConfigurationError(f"cannot reach Redis at {without_password(url)}: {error}") from None

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def create(self, game: Game, keep: int = 100) -> str:
        maker = creator(game)
        game_id = new_game_id()
        data = encode(game)
        made = self._key("owner", maker)

        def write(pipe: redis.client.Pipeline) -> None:
            surplus = pipe.zcard(made) - keep + 1
            doomed = self._first_to_drop(made)[:surplus] if surplus > 0 else []
            now = self.clock()
            pipe.multi()
            for old in doomed:
                self._delete(pipe, old)
            pipe.hset(
                self._key("game", game_id),
                mapping={
                    "seats": json.dumps(game.seats),
                    "owner": maker,
                    "version": game.version,
                    "data": data,
                    "history_length": 0,
                    "finished": int(game.status != "playing"),
                    "updated": now,
                },
            )
            self._index(pipe, game_id, game.seats, now)

        # Every save and delete of the player's games changes their index, so
        # watching it means the games chosen to drop are still the right ones.
        self._transaction([made], write)
        return game_id

    def _first_to_drop(self, made_key: str) -> list[str]:
        """The player's games, finished ones first, then from the longest idle."""
        games = self.redis.zrange(made_key, 0, -1, withscores=True)
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id, _ in games:
                pipe.hget(self._key("game", game_id.decode()), "finished")
            finished = pipe.execute()
        # A game whose hash is gone is a dead index entry: drop it first of all.
        order = sorted(zip(games, finished), key=lambda entry: (entry[1] == b"0", entry[0][1]))
        return [game_id.decode() for (game_id, _), _ in order]

    def _seats(self, game_id: str, seats: bytes | None, owner: bytes | None) -> list[str]:
        """The stored seats; a game from before seats has its owner alone."""
        if seats is None:
            return [owner.decode()] if owner is not None else []
        try:
            decoded = json.loads(seats)
        except ValueError:
            decoded = None
        if not isinstance(decoded, list) or not all(isinstance(player, str) for player in decoded):
            raise Corrupt(f"game {game_id}: its seats are not a list of players: {seats!r}")
        return decoded

    def load(self, game_id: str, player: str) -> Game:
        key = self._key("game", game_id)
        seats, owner, version = self._read_hash(key, "seats", "owner", "version")
        if player not in self._seats(game_id, seats, owner):
            raise NotFound(game_id)
        history = self._cached_history(game_id, _number(game_id, version))
        if history is None:
            # Read state and records in one transaction: a save in between would pair them wrongly.
            with self.redis.pipeline() as pipe:
                pipe.hmget(key, "seats", "owner", "data")
                pipe.lrange(self._key("history", game_id), 0, -1)
                (seats, owner, data), records = pipe.execute()
            if player not in self._seats(game_id, seats, owner):
                raise NotFound(game_id)
            try:
                history = [json.loads(record) for record in records]
            except ValueError as error:
                raise Corrupt(f"game {game_id}: an undo record is not JSON: {error}") from None
        else:
            data = self.redis.hget(key, "data")
        if data is None:
            raise NotFound(game_id)
        return self._decode(game_id, data, history, player)

    def _read_hash(self, key: str, *fields: str) -> list[Any]:
        try:
            return self.redis.hmget(key, *fields)
        except redis.ResponseError as error:
            # A key of another type where a game should be.
            raise Corrupt(f"{key}: {error}") from None

    def save(self, game_id: str, player: str, game: Game, read_version: int) -> None:
        key = self._key("game", game_id)
        history_key = self._key("history", game_id)
        data = encode(game)

        def write(pipe: redis.client.Pipeline) -> None:
            seats, owner, version, stored_length = pipe.hmget(key, "seats", "owner", "version", "history_length")
            stored_seats = self._seats(game_id, seats, owner)
            if player not in stored_seats:
                raise NotFound(game_id)
            if _number(game_id, version) != read_version:
                raise Conflict(game_id)
            kept = min(_number(game_id, stored_length), len(game.history))
            # Encoded before MULTI: a record that cannot be written leaves the game as it was.
            appended = [json.dumps(record) for record in game.history[kept:]]
            all_seats = list(dict.fromkeys(stored_seats + game.seats))
            now = self.clock()
            pipe.multi()
            if kept == 0:
                pipe.delete(history_key)
            else:
                pipe.ltrim(history_key, 0, kept - 1)
            if appended:
                pipe.rpush(history_key, *appended)
            pipe.hset(
                key,
                mapping={
                    "seats": json.dumps(all_seats),
                    "version": game.version,
                    "data": data,
                    "history_length": len(game.history),
                    "finished": int(game.status != "playing"),
                    "updated": now,
                },
            )
            self._index(pipe, game_id, all_seats, now)
            pipe.publish(self._key("changed", game_id), game.version)

        # The history list only changes together with the hash, so watching the hash covers both.
        self._transaction([key], write)
        self._remember_history(game_id, game)

    def latest(self, player: str) -> str | None:
        newest = [
            entry
            for index in ("player", "owner")  # games from before seats are only in the owner index
            for entry in self.redis.zrange(self._key(index, player), 0, 0, desc=True, withscores=True)
        ]
        return max(newest, key=lambda entry: entry[1])[0].decode() if newest else None

    def expire(self, idle_before: float) -> int:
        candidates = self.redis.zrangebyscore(self._key("games"), "-inf", f"({idle_before!r}")
        return sum(self._expire_one(game_id.decode(), idle_before) for game_id in candidates)

    def _expire_one(self, game_id: str, idle_before: float) -> bool:
        key = self._key("game", game_id)
        with self.redis.pipeline() as pipe:
            try:
                pipe.watch(key)
                updated = pipe.hget(key, "updated")
                if updated is not None and float(updated) >= idle_before:
                    return False
                pipe.multi()
                self._delete(pipe, game_id)
                pipe.execute()
                return updated is not None
            except redis.WatchError:
                return False  # played while we looked: not idle after all

    def allow(self, key: str, limit: int, window: float) -> bool:
        start = window_start(self.clock(), window)
        counter = self._key("rate", key, repr(start))
        # One transaction counts and sets the expiry, so no crash in between can
        # leave a counter that never goes away.
        with self.redis.pipeline() as pipe:
            pipe.incr(counter)
            pipe.expire(counter, max(1, int(window) + 1))
            count, _ = pipe.execute()
        return count <= limit

    def stored_version(self, game_id: str) -> int | None:
        version = self._read_hash(self._key("game", game_id), "version")[0]
        return None if version is None else _number(game_id, version)

    def wait_for_change(self, game_id: str, version: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe(self._key("changed", game_id))
            # Subscribed first, then read: a save in between is seen one way or the other.
            while self.stored_version(game_id) == version:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                pubsub.get_message(timeout=min(left, 1.0))
            return True
        finally:
            pubsub.close()

    @contextmanager
    def lease(self, game_id: str) -> Iterator[None]:
        # A lease, not a lock forever: a host that dies mid-move frees the game
        # after LEASE_SECONDS. redis-py's lock releases only with its own token.
        lock = self.redis.lock(
            self._key("lease", game_id), timeout=LEASE_SECONDS, sleep=0.002, blocking_timeout=LEASE_WAIT_SECONDS
        )
        if not lock.acquire():
            raise Conflict(f"{game_id}: another host held the game too long")
        try:
            yield
        finally:
            try:
                lock.release()
            except LockError:
                pass  # the lease ran out and another host has the game now: the version check guards it

    def close(self) -> None:
        self.redis.close()

    def _index(self, pipe: redis.client.Pipeline, game_id: str, seats: list[str], updated: float) -> None:
        pipe.zadd(self._key("owner", seats[0]), {game_id: updated})
        for player in dict.fromkeys(seats):
            pipe.zadd(self._key("player", player), {game_id: updated})
        pipe.zadd(self._key("games"), {game_id: updated})

    def _delete(self, pipe: redis.client.Pipeline, game_id: str) -> None:
        """Delete a game and its index entries. Reads its seats first, so call it before MULTI."""
        seats, owner = self.redis.hmget(self._key("game", game_id), "seats", "owner")
        try:
            players = self._seats(game_id, seats, owner)
        except Corrupt:
            players = [owner.decode()] if owner else []
        pipe.delete(self._key("game", game_id), self._key("history", game_id))
        for player in players:
            pipe.zrem(self._key("owner", player), game_id)
            pipe.zrem(self._key("player", player), game_id)
        pipe.zrem(self._key("games"), game_id)

    def _transaction(self, watched: list[str], write: Callable[[redis.client.Pipeline], Any]) -> None:
        """Run `write` (reads, then `pipe.multi()`, then writes) until no watched key changed under it."""
        for _ in range(self.ATTEMPTS):
            with self.redis.pipeline() as pipe:
                try:
                    pipe.watch(*watched)
                    write(pipe)
                    pipe.execute()
                    return
                except redis.WatchError:
                    continue
        raise Conflict(f"{watched[0]}: kept changing while being written")


def _number(game_id: str, value: bytes | None) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Corrupt(f"game {game_id}: a stored count is not a number: {value!r}") from None


def without_password(url: str) -> str:
    """The URL fit for a message: a password, in the address or the query, masked."""
    password = urlsplit(url).password
    if password is not None:
        url = url.replace(f":{password}@", ":***@", 1)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url)
