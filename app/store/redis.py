"""Games in Redis, shared by every worker on every host.

The data is laid out as in SQLite: a game's state is one hash and its undo
records a list, each record written once, so a click late in a big game sends a
few hundred bytes. Writes are optimistic transactions: WATCH the keys, check
what was read, then MULTI/EXEC. EXEC fails if another process wrote in
between, and the check runs again on what that process wrote, so two
processes can never both write over the same version.

Keys, under `prefix`:
    game:<id>      hash: owner, version, data, history_length, finished, updated
    history:<id>   list: the undo records, as JSON
    owner:<owner>  sorted set: the player's game ids by last update
    games          sorted set: every game id by last update, for expiry
    rate:<key>     counter of the current window, expiring with it
    lock:<id>      the host working on a move of that game (a lease with a token)

Times come from each host's clock, as with SQLite: keep the hosts' clocks synchronised.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import redis

from app.config import ConfigurationError
from app.game import Game
from app.store import Conflict, Corrupt, NotFound, Store, new_game_id


# A move takes milliseconds; a lease this long outlives any move, and frees a
# game whose host died mid-move soon enough.
LOCK_SECONDS = 15
LOCK_WAIT_SECONDS = 30
RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"


class RedisStore(Store):
    # A write that loses this many races in a row is refused rather than retried forever.
    ATTEMPTS = 5

    def __init__(self, url: str, prefix: str = "kaboom") -> None:
        super().__init__()
        self.prefix = prefix
        try:
            # Without timeouts a Redis that stops answering would hang every request.
            self.redis = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=10)
            self.redis.ping()
        except (redis.RedisError, ValueError, OSError) as error:
            raise ConfigurationError(f"cannot reach Redis at {without_password(url)}: {error}") from None
        self._release = self.redis.register_script(RELEASE)

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def create(self, owner: str, game: Game, keep: int = 100) -> str:
        game_id = new_game_id()
        data = json.dumps(game.to_json())
        mine = self._key("owner", owner)

        def write(pipe: redis.client.Pipeline) -> None:
            surplus = pipe.zcard(mine) - keep + 1
            doomed = self._first_to_drop(mine)[:surplus] if surplus > 0 else []
            now = time.time()
            pipe.multi()
            for old in doomed:
                self._delete(pipe, old, owner)
            pipe.hset(
                self._key("game", game_id),
                mapping={
                    "owner": owner,
                    "version": game.moves,
                    "data": data,
                    "history_length": 0,
                    "finished": int(game.status != "playing"),
                    "updated": now,
                },
            )
            self._index(pipe, game_id, owner, now)

        # Every save and delete of the player's games changes their index, so
        # watching it means the games chosen to drop are still the right ones.
        self._transaction([mine], write)
        return game_id

    def _first_to_drop(self, owner_key: str) -> list[str]:
        """The player's games, finished ones first, then from the longest idle."""
        games = self.redis.zrange(owner_key, 0, -1, withscores=True)
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id, _ in games:
                pipe.hget(self._key("game", game_id.decode()), "finished")
            finished = pipe.execute()
        # A game whose hash is gone is a dead index entry: drop it first of all.
        order = sorted(zip(games, finished), key=lambda entry: (entry[1] == b"0", entry[0][1]))
        return [game_id.decode() for (game_id, _), _ in order]

    def load(self, game_id: str, owner: str) -> Game:
        key = self._key("game", game_id)
        stored_owner, version, data = self.redis.hmget(key, "owner", "version", "data")
        if stored_owner != owner.encode():
            raise NotFound(game_id)
        history = self._cached_history(game_id, _number(game_id, version))
        if history is None:
            # Read state and records in one transaction: a save in between would pair them wrongly.
            with self.redis.pipeline() as pipe:
                pipe.hmget(key, "owner", "data")
                pipe.lrange(self._key("history", game_id), 0, -1)
                (stored_owner, data), records = pipe.execute()
            if stored_owner != owner.encode():
                raise NotFound(game_id)
            try:
                history = [json.loads(record) for record in records]
            except ValueError as error:
                raise Corrupt(f"game {game_id}: an undo record is not JSON: {error}") from None
        return self._decode(game_id, data, history)

    def save(self, game_id: str, owner: str, game: Game, read_version: int) -> None:
        key = self._key("game", game_id)
        history_key = self._key("history", game_id)
        data = json.dumps(game.to_json())

        def write(pipe: redis.client.Pipeline) -> None:
            stored_owner, version, stored_length = pipe.hmget(key, "owner", "version", "history_length")
            if stored_owner != owner.encode():
                raise NotFound(game_id)
            if _number(game_id, version) != read_version:
                raise Conflict(game_id)
            kept = min(_number(game_id, stored_length), len(game.history))
            # Encoded before MULTI: a record that cannot be written leaves the game as it was.
            appended = [json.dumps(record) for record in game.history[kept:]]
            now = time.time()
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
                    "version": game.moves,
                    "data": data,
                    "history_length": len(game.history),
                    "finished": int(game.status != "playing"),
                    "updated": now,
                },
            )
            self._index(pipe, game_id, owner, now)

        # The history list only changes together with the hash, so watching the hash covers both.
        self._transaction([key], write)
        self._remember_history(game_id, game.moves, game.history, game.status == "playing")

    def latest(self, owner: str) -> str | None:
        newest = self.redis.zrange(self._key("owner", owner), 0, 0, desc=True)
        return newest[0].decode() if newest else None

    def expire(self, idle_before: float) -> int:
        candidates = self.redis.zrangebyscore(self._key("games"), "-inf", f"({idle_before!r}")
        return sum(self._expire_one(game_id.decode(), idle_before) for game_id in candidates)

    def _expire_one(self, game_id: str, idle_before: float) -> bool:
        key = self._key("game", game_id)
        with self.redis.pipeline() as pipe:
            try:
                pipe.watch(key)
                owner, updated = pipe.hmget(key, "owner", "updated")
                if owner is None:
                    pipe.multi()
                    pipe.zrem(self._key("games"), game_id)
                    pipe.execute()
                    return False
                if float(updated) >= idle_before:
                    return False
                pipe.multi()
                self._delete(pipe, game_id, owner.decode())
                pipe.execute()
                return True
            except redis.WatchError:
                return False  # played while we looked: not idle after all

    def allow(self, key: str, limit: int, window: float) -> bool:
        counter = self._key("rate", key)
        # One transaction creates the counter together with its expiry, so no
        # crash in between can leave a counter that never resets.
        with self.redis.pipeline() as pipe:
            pipe.set(counter, 0, nx=True, px=max(1, round(window * 1000)))
            pipe.incr(counter)
            _, count = pipe.execute()
        return count <= limit

    @contextmanager
    def hold(self, game_id: str) -> Iterator[None]:
        # A lease, not a lock forever: a host that dies mid-move frees the game
        # after LOCK_SECONDS. Released only by its holder (the token check).
        key, token = self._key("lock", game_id), secrets.token_hex(16)
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while not self.redis.set(key, token, nx=True, px=int(LOCK_SECONDS * 1000)):
            if time.monotonic() > deadline:
                raise Conflict(f"{game_id}: another host held the game too long")
            time.sleep(0.002)
        try:
            yield
        finally:
            self._release(keys=[key], args=[token])

    def close(self) -> None:
        self.redis.close()

    def _index(self, pipe: redis.client.Pipeline, game_id: str, owner: str, updated: float) -> None:
        pipe.zadd(self._key("owner", owner), {game_id: updated})
        pipe.zadd(self._key("games"), {game_id: updated})

    def _delete(self, pipe: redis.client.Pipeline, game_id: str, owner: str) -> None:
        pipe.delete(self._key("game", game_id), self._key("history", game_id))
        pipe.zrem(self._key("owner", owner), game_id)
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
