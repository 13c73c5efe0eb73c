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
    results:<player>  hash: game id -> the game's result (JSON), kept once
    tallies:<player>  hash: what the results add up to (app.results.records.tally), written in the result's transaction
    boards:<player>   hash: board id -> the game whose end first showed the player that board
    presence:<id>:<seat>  a seat's player is on the game's (or room's) page until the time it holds; expires then
    room:<id>       hash: version, data, members (JSON list, as indexed), created, updated (its last save)
    rooms           sorted set: every room id by last activity (its saves and its games'), for expiry and order
    member:<player> set: the rooms the player is a member of
    names           hash: player -> the display name they chose
    names-at        sorted set: player by when they chose their name (kaboom admin lists the latest)
    audit           list: the host's audit log (kaboom admin), oldest first
    ladder:<key>    hash: player -> their entry on that board of the day's ladder, as
                    "<group>:<millis>:<seq>:<entry JSON>" (all an entry is: its ranking can be told from it)
    ladder-rank:<key>  sorted set: "<seq, 12 digits>:<player>" by group * LADDER_MILLIS + millis: the ladder in
                    rank order (equal scores go by member, so by seq: the order kept)
    ladder-kept:<key>  the last seq the ladder gave (how many entries it has kept)
    ladders:<player>   hash: ladder key -> the player's entry JSON
    departed:<player>  set: the games the player took off their list (their seat kept): found for their export
    departures-indexed  set once the games left before that set was kept are in it (see _index_departures_once)
    claim:<key>     a claim's value (Store.claim)
    passkey:<id>    hash: player, data (a passkey by its credential id)
    passkeys:<player>  set: the player's passkeys' credential ids
    token:<key>     a one-time token: "<until> <value>", expiring at its time
    (one script writes an entry's four keys, so they never disagree: see ENTER_LADDER)

Times come from the store's clock (each host's, as with SQLite): keep the hosts' clocks synchronised.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, cast
from urllib.parse import urlsplit

import redis
from redis.backoff import EqualJitterBackoff, NoBackoff
from redis.commands.core import Script
from redis.exceptions import LockError, OutOfMemoryError, ReadOnlyError
from redis.lock import Lock
from redis.retry import Retry
from redis.typing import EncodableT

from app.core.config import ConfigurationError
from app.core.game import Game
from app.core.seats import vacated
from app.store.base import (
    CHANGES_POLL_SECONDS,
    GAMES_LISTED,
    LADDER_GROUPS,
    LADDER_LISTED_GROUPS,
    LADDER_MILLIS,
    LEASE_WAIT_SECONDS,
    Changes,
    Clock,
    Conflict,
    Corrupt,
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
    names_player,
    new_game_id,
    window_start,
)

logger = logging.getLogger(__name__)

# A lease is renewed while its move runs, so it can be short: a host that dies
# mid-move holds its game up for this long at most.
LEASE_SECONDS = 2.0
# How long one Redis command may take before the request answers 503: Redis
# answers in a millisecond or so, and a hung one must not hang every request.
SOCKET_SECONDS = 2.0

UNREACHABLE = "The game store cannot be reached right now; games already saved are kept. Try again in a moment."
REFUSING = "The game store cannot save games right now; games already saved are kept. Try again later."


@contextmanager
def store_faults() -> Iterator[None]:
    """Redis faults as StoreUnavailable: unreachable or hung, or refusing writes
    (out of memory, a disk it cannot save to, a replica)."""
    try:
        yield
    except (redis.ConnectionError, redis.TimeoutError) as error:
        raise StoreUnavailable(UNREACHABLE, "redis") from error
    except (OutOfMemoryError, ReadOnlyError) as error:
        raise StoreUnavailable(REFUSING, "redis") from error
    except redis.ResponseError as error:
        if not str(error).startswith("MISCONF"):
            raise
        raise StoreUnavailable(REFUSING, "redis") from error


class Lease(Lock):
    """redis-py's lock, taken so that a request Redis gets after its sender gave up on it takes nothing.

    A SET NX PX that timed out on the client may still wait in Redis's input
    (a Redis that hung, then went on) and take the lease later, for nobody:
    the game would be held up until it expires. So an acquisition first asks
    Redis the time, and the script that takes the lease does nothing once
    `answer_within` seconds past it have gone by on Redis's clock, which is
    well before the client stops waiting for the answer (its socket timeout).
    A request stuck before Redis answered the time sends no script at all.
    """

    LATE = -1

    LUA_ACQUIRE_SCRIPT = """
        local now = redis.call('TIME')
        if tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) > tonumber(ARGV[3]) then
            return -1
        end
        if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
            return 1
        end
        return 0
    """
    lua_acquire: Script | None = None

    def __init__(self, client: redis.Redis, name: str, *, answer_within: float, **options: Any) -> None:
        self.answer_within = answer_within
        super().__init__(client, name, **options)

    def register_scripts(self) -> None:
        super().register_scripts()
        if Lease.lua_acquire is None:
            Lease.lua_acquire = self.redis.register_script(self.LUA_ACQUIRE_SCRIPT)

    def acquire(self, *args: Any, **kwargs: Any) -> bool:
        self._read_redis_time()
        return super().acquire(*args, **kwargs)

    def _read_redis_time(self) -> None:
        # Read once per acquisition: later attempts add the time gone by here, so hosts' clocks never matter.
        seconds, microseconds = self.redis.time()
        self._redis_time = (seconds * 1000 + microseconds // 1000, time.monotonic())

    def do_acquire(self, token: str | bytes) -> bool:  # redis-py passes bytes, and types it as str
        redis_ms, read_at = self._redis_time
        taken = self.acquire_before(token, redis_ms + int((time.monotonic() - read_at + self.answer_within) * 1000))
        if taken == self.LATE:
            # Too late (or Redis's clock jumped): the next attempt starts from Redis's time again.
            self._read_redis_time()
        return taken == 1

    def acquire_before(self, token: str | bytes, deadline_ms: int) -> int:
        """Take the lease with `token` (1), unless another holds it (0) or Redis's clock is past
        `deadline_ms` when the request reaches it (LATE)."""
        assert self.timeout is not None and self.lua_acquire is not None, "made with a timeout, scripts registered"
        arguments = [token, int(self.timeout * 1000), deadline_ms]
        return self.lua_acquire(keys=[self.name], args=arguments, client=self.redis)


@contextmanager
def renewed(lease: Lock, every: float) -> Iterator[None]:
    """Keep `lease` from running out while the block runs, renewing it every `every` seconds in a thread of its own."""
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(every):
            try:
                lease.reacquire()
            except LockError:
                return  # it ran out all the same (a stall longer than the lease): the version check guards the save
            except redis.RedisError:
                continue  # Redis is unreachable for now: the move hears of it, and the lease runs out by itself

    renewer = threading.Thread(target=renew, name=f"renew {lease.name}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        # Joined, so no renewal outlives the lease; a renewal under way takes a socket timeout at most.
        renewer.join()


# Between two tries at keeping a result: half fixed, half random, growing from 1 ms to 50 ms at most.
RESULT_RETRY = EqualJitterBackoff(cap=0.05, base=0.001)


# Keeps a ladder's entry. A script rather than WATCH/MULTI: whether the entry is the player's first, and the
# number it gets, are known only inside Redis as it writes, and under WATCH every entry of a ladder would
# collide with every other (they all write its counter). Redis runs a script whole, so a client that dies
# midway leaves no half an entry; the types and the counter are checked before the first write, because a
# script whose later write fails is not rolled back.
#   KEYS: the ladder's entries (hash), its ranking (sorted set), its counter, the player's ladders (hash)
#   ARGV: player, group, millis, entry, ladder key, score
# Returns 1 (kept), 0 (the player had an entry there already), -1 (a key of another type, a counter that is
# not a count).
ENTER_LADDER = """
    local kinds = {'hash', 'zset', 'string', 'hash'}
    for i, kind in ipairs(kinds) do
        local found = redis.call('TYPE', KEYS[i]).ok
        if found ~= 'none' and found ~= kind then
            return -1
        end
    end
    local kept = tonumber(redis.call('GET', KEYS[3]) or '0')
    if kept == nil or kept < 0 or kept ~= math.floor(kept) then
        return -1
    end
    local seq = string.format('%d', kept + 1)
    if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2] .. ':' .. ARGV[3] .. ':' .. seq .. ':' .. ARGV[4]) == 0 then
        return 0
    end
    redis.call('SET', KEYS[3], seq)
    redis.call('ZADD', KEYS[2], ARGV[6], string.format('%012d', kept + 1) .. ':' .. ARGV[1])
    redis.call('HSET', KEYS[4], ARGV[5], ARGV[4])
    return 1
"""

# Store.claim and Store.release: compare and set (and delete), whole inside Redis. A claim's key holding another
# type of value is treated as held by something else: the claim fails and nothing is written.
#   KEYS: the claim's key;  ARGV: the new value, the value expected ('' for none)
CLAIM = """
    local found = redis.call('TYPE', KEYS[1]).ok
    if found ~= 'none' and found ~= 'string' then
        return 0
    end
    local current = redis.call('GET', KEYS[1]) or ''
    if current ~= ARGV[2] then
        return 0
    end
    redis.call('SET', KEYS[1], ARGV[1])
    return 1
"""
#   KEYS: the claim's key;  ARGV: the value it must hold to be let go
RELEASE = """
    if redis.call('TYPE', KEYS[1]).ok == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('DEL', KEYS[1])
    end
    return 1
"""


class RedisStore(Store):
    shared_by_processes = True

    # A write that loses this many races in a row is refused rather than retried forever.
    ATTEMPTS = 5

    def __init__(
        self,
        url: str,
        prefix: str = "kaboom",
        clock: Clock = time.time,
        lease_seconds: float = LEASE_SECONDS,
        socket_seconds: float = SOCKET_SECONDS,
        *,
        kept: Kept,
    ) -> None:
        super().__init__(clock, kept)
        self.prefix = prefix
        self.lease_seconds = lease_seconds
        self.socket_seconds = socket_seconds
        try:
            # Without timeouts a Redis that stops answering would hang every request. No retries:
            # redis-py's default retries a command ten times, each up to a timeout, and a command
            # sent again may be applied twice; a request that fails answers 503 and the player retries.
            self.redis = redis.Redis.from_url(
                url, socket_connect_timeout=socket_seconds, socket_timeout=socket_seconds, retry=Retry(NoBackoff(), 0)
            )
            self.redis.ping()
        except (redis.RedisError, ValueError, OSError) as error:
            raise ConfigurationError(f"cannot reach Redis at {without_password(url)}: {error}") from None
        # Sent by its digest, and loaded again only when Redis does not know it (after a restart).
        self._enter_ladder = self.redis.register_script(ENTER_LADDER)
        self._claim = self.redis.register_script(CLAIM)
        self._release = self.redis.register_script(RELEASE)
        with store_faults():
            self._index_departures_once()

    def _index_departures_once(self) -> None:
        """Index by player the games they took off their list before `departed:<player>` was kept (a player's
        export and deletion find their games through it): once per Redis, marked done by a key. Hosts starting
        together may each run it; adding a game to a set twice is adding it once."""
        done = self._key("departures-indexed")
        if self.redis.exists(done):
            return
        prefix = self._key("game", "")
        keys = self.redis.scan_iter(match=f"{prefix}*", count=1000, _type="hash")
        while batch := list(itertools.islice(keys, 1000)):
            with self.redis.pipeline(transaction=False) as pipe:
                for key in batch:
                    pipe.hget(key, "departed")
                found = pipe.execute(raise_on_error=False)
            with self.redis.pipeline(transaction=False) as pipe:
                for key, departed in zip(batch, found, strict=True):
                    game_id = key.decode().removeprefix(prefix)
                    try:
                        players = self._departed(game_id, _replied(departed, None))
                    except Corrupt:
                        continue  # reported when the game is opened
                    for player in players:
                        pipe.sadd(self._key("departed", player), game_id)
                pipe.execute()
        self.redis.set(done, "1")

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    @store_faults()
    def create(self, game: Game, keep: int = 100) -> str:
        maker = creator(game)
        game_id = new_game_id()
        data = self._encode(game, game_id)
        made = self._key("owner", maker)
        self._repair_indexes(self._index_keys(game.credentials()))

        def write(pipe: redis.client.Pipeline) -> None:
            surplus = pipe.zcard(made) - keep + 1
            doomed = self._first_to_drop(made)[:surplus] if surplus > 0 else []
            now = self.clock()
            pipe.multi()
            for old in doomed:
                self._delete(pipe, old)
            if doomed:
                # Even a game whose seats cannot be read any more leaves its maker's index.
                pipe.zrem(made, *doomed)
            pipe.hset(
                self._key("game", game_id),
                mapping={
                    "seats": json.dumps(game.credentials()),
                    "owner": maker,
                    "version": game.version,
                    "data": data,
                    "history_length": 0,
                    "finished": int(game.status != "playing"),
                    "updated": now,
                },
            )
            self._index(pipe, game_id, game.credentials(), now)

        # Every save and delete of the player's games changes their index, so
        # watching it means the games chosen to drop are still the right ones.
        self._transaction([made], write)
        return game_id

    def _first_to_drop(self, made_key: str) -> list[str]:
        """The player's games, finished ones first, then from the longest idle."""
        games = cast(list[tuple[bytes, float]], self.redis.zrange(made_key, 0, -1, withscores=True))
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id, _ in games:
                pipe.hget(self._key("game", game_id.decode()), "finished")
            finished = pipe.execute(raise_on_error=False)
        # A game whose hash is gone (or is not a hash) is a dead index entry: drop it first of all.
        order = sorted(zip(games, finished, strict=True), key=lambda entry: (entry[1] == b"0", entry[0][1]))
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

    @store_faults()
    def load(self, game_id: str, player: str) -> Game:
        key = self._key("game", game_id)
        # The version and the data in one read: the cached history is paired with the data by that version.
        seats, owner, version, data = self._read_hash(key, "seats", "owner", "version", "data")
        if player not in self._seats(game_id, seats, owner):
            raise NotFound(game_id)
        cached = self._cached_history(game_id, _number(game_id, version))
        records = history_length = None
        if cached is None:
            # Read state and records in one transaction: a save in between would pair them wrongly.
            with self.redis.pipeline() as pipe:
                pipe.hmget(key, "seats", "owner", "version", "data", "history_length")
                pipe.lrange(self._key("history", game_id), 0, -1)
                try:
                    (seats, owner, version, data, history_length), records = pipe.execute()
                except redis.ResponseError as error:
                    raise Corrupt(f"game {game_id}: its state or undo records are not of their type: {error}") from None
            if player not in self._seats(game_id, seats, owner):
                raise NotFound(game_id)
            history_length = _number(game_id, history_length)
        if data is None:
            raise NotFound(game_id)
        return self._decode(game_id, player, _number(game_id, version), data, records, cached, history_length)

    def _read_hash(self, key: str, *fields: str, client: redis.Redis | None = None) -> list[Any]:
        try:
            return (client or self.redis).hmget(key, *fields)
        except redis.ResponseError as error:
            # A key of another type where a game should be.
            raise Corrupt(f"{key}: {error}") from None

    @store_faults()
    def save(self, game_id: str, player: str, game: Game, read_version: int) -> None:
        key = self._key("game", game_id)
        history_key = self._key("history", game_id)
        data = self._encode(game, game_id)

        def write(pipe: redis.client.Pipeline) -> None:
            fields = ("seats", "owner", "version", "history_length", "departed")
            seats, owner, version, stored_length, departed = self._read_hash(key, *fields, client=pipe)
            stored_seats = self._seats(game_id, seats, owner)
            if player not in stored_seats:
                raise NotFound(game_id)
            if _number(game_id, version) != read_version:
                raise Conflict(game_id)
            kept = min(_number(game_id, stored_length), len(game.history))
            # Encoded before MULTI: a record that cannot be written leaves the game as it was.
            appended = [json.dumps(record) for record in game.history[kept:]]
            # The seats as the game has them now: a seat may have gone to another player.
            all_seats = game.credentials() or stored_seats
            unseated = [self._key("player", gone) for gone in dict.fromkeys(stored_seats) if gone not in all_seats]
            listed = [seated for seated in all_seats if seated not in self._departed(game_id, departed)]
            # Types are checked before MULTI: EXEC does not stop at a command on a key of another type,
            # it runs the others, and the game would be half written.
            indexes = self._index_keys(all_seats, listed)
            activity = [self._key("rooms")] if game.room else []
            kinds = self._kinds(history_key, *indexes, *unseated, *activity)
            if kinds[history_key] not in (b"list", b"none"):
                raise Corrupt(f"game {game_id}: its undo records are a {kinds[history_key].decode()}, not a list")
            self._repair_indexes(indexes + unseated, kinds)
            self._repair_room_indexes(activity, kinds)
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
            for index in indexes:
                pipe.zadd(index, {game_id: now})
            for index in unseated:
                pipe.zrem(index, game_id)
            if game.room:
                # The room is active while its games are played. XX: a room deleted meanwhile stays gone;
                # and only its score moves, so the game's save never waits on the room's (nor on its other games').
                pipe.zadd(activity[0], {game.room["id"]: now}, xx=True)
            pipe.publish(self._key("changed", game_id), game.version)

        # The history list only changes together with the hash, so watching the hash covers both.
        self._transaction([key], write)
        self._remember_history(game_id, game)

    @store_faults()
    def games_of(self, player: str, limit: int = GAMES_LISTED) -> list[Listing]:
        # Games from before seats are only in the owner index; a game may be in both.
        indexes = [self._key("player", player), self._key("owner", player)]

        def ranked() -> list[tuple[bytes, float]]:
            return [
                entry
                for index in indexes
                for entry in cast(
                    list[tuple[bytes, float]], self.redis.zrange(index, 0, limit - 1, desc=True, withscores=True)
                )
            ]

        try:
            entries = ranked()
        except redis.ResponseError:  # an index of another type
            self._repair_indexes(indexes)
            entries = ranked()
        played: dict[str, float] = {}
        for member, score in entries:
            played[member.decode()] = max(score, played.get(member.decode(), score))
        newest = sorted(played.items(), key=lambda entry: entry[1], reverse=True)[:limit]
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id, _ in newest:
                pipe.hmget(self._key("game", game_id), "seats", "owner", "version", "data", "departed")
            rows = pipe.execute(raise_on_error=False)
        listed = []
        for (game_id, played_at), row in zip(newest, rows, strict=True):
            if isinstance(row, Exception):  # a key of another type where the game should be
                listed.append(Listing(game_id, None, played_at))
                continue
            seats, owner, version, data, departed = row
            if data is None and seats is None and owner is None:
                continue  # gone: an index entry that expiry has not swept yet
            try:
                if player not in self._seats(game_id, seats, owner) or player in self._departed(game_id, departed):
                    continue
                listed.append(self._listing(game_id, _number(game_id, version), data, played_at))
            except Corrupt:
                listed.append(Listing(game_id, None, played_at))
        return listed

    @store_faults()
    def delete(self, game_id: str, player: str) -> None:
        key = self._key("game", game_id)

        def write(pipe: redis.client.Pipeline) -> None:
            seats, owner = self._read_hash(key, "seats", "owner", client=pipe)
            try:
                players = self._seats(game_id, seats, owner)
            except Corrupt:
                # Seats that cannot be read: the player who made the game may still take it away.
                players = [owner.decode()] if owner is not None else []
            if player not in players:
                raise NotFound(game_id)
            pipe.multi()
            self._delete(pipe, game_id)

        self._transaction([key], write)
        with self._cache_lock:
            self._histories.pop(game_id, None)

    @store_faults()
    def leave(self, game_id: str, player: str) -> None:
        key = self._key("game", game_id)

        def write(pipe: redis.client.Pipeline) -> None:
            seats, owner, departed = self._read_hash(key, "seats", "owner", "departed", client=pipe)
            if player not in self._seats(game_id, seats, owner):
                raise NotFound(game_id)
            gone = self._departed(game_id, departed) | {player}
            pipe.multi()
            pipe.hset(key, "departed", json.dumps(sorted(gone)))
            # Off the list at once; its maker's index keeps counting it towards the games they may keep.
            pipe.zrem(self._key("player", player), game_id)
            pipe.sadd(self._key("departed", player), game_id)

        self._transaction([key], write)

    @staticmethod
    def _departed(game_id: str, departed: bytes | None) -> set[str]:
        """The players who left the game's list."""
        if departed is None:
            return set()
        try:
            players = json.loads(departed)
        except ValueError:
            players = None
        if not isinstance(players, list) or not all(isinstance(player, str) for player in players):
            raise Corrupt(f"game {game_id}: the players who left it are not a list of players: {departed!r}")
        return set(players)

    @store_faults()
    def expire(self, idle_before: float) -> int:
        games = self._key("games")
        try:
            candidates = cast(list[bytes], self.redis.zrangebyscore(games, "-inf", f"({idle_before!r}"))
        except redis.ResponseError:  # the index of another type
            self._repair_indexes([games])
            candidates = cast(list[bytes], self.redis.zrangebyscore(games, "-inf", f"({idle_before!r}"))
        expired = sum(self._expire_one(game_id.decode(), idle_before) for game_id in candidates)
        rooms = self._key("rooms")
        try:
            idle = cast(list[bytes], self.redis.zrangebyscore(rooms, "-inf", f"({idle_before!r}"))
        except redis.ResponseError:
            self._repair_room_indexes([rooms])
            idle = cast(list[bytes], self.redis.zrangebyscore(rooms, "-inf", f"({idle_before!r}"))
        return expired + sum(self._expire_room(room_id.decode(), idle_before) for room_id in idle)

    def _expire_one(self, game_id: str, idle_before: float) -> bool:
        key = self._key("game", game_id)
        with self.redis.pipeline() as pipe:
            try:
                pipe.watch(key)
                try:
                    updated = pipe.hget(key, "updated")
                    if updated is not None and float(updated) >= idle_before:
                        return False
                except (redis.ResponseError, ValueError):
                    updated = b"damaged"  # the index of all games says it is idle: it goes like the others
                pipe.multi()
                self._delete(pipe, game_id)
                pipe.execute()
                return updated is not None
            except redis.WatchError:
                return False  # played while we looked: not idle after all

    @store_faults()
    def record_result(self, player: str, game_id: str, result: dict[str, Any] | None, board: str | None = None) -> None:
        results, tallies, boards = (self._key(name, player) for name in ("results", "tallies", "boards"))
        text = json.dumps(result) if result is not None else None
        # Only this player's ends race here; a tally a result would miss is worse than a few more tries. Writers
        # that collided wait a jittered, growing moment before they try again: retried at once, four threads
        # ending games together starved one of them past every try (tests/test_tallies.py, one run in a few).
        for attempt in range(self.ATTEMPTS * 4):
            if attempt:
                time.sleep(RESULT_RETRY.compute(attempt))
            with self.redis.pipeline() as pipe:
                try:
                    pipe.watch(results, tallies, boards)
                    first = cast(bytes | None, pipe.hget(boards, board)) if board is not None else None
                    if first is not None and first.decode(errors="replace") != game_id:
                        return
                    keep = text is not None and not pipe.hexists(results, game_id)
                    if not keep and (board is None or first is not None):
                        return
                    changes, damaged = None, False
                    if keep and text is not None:
                        names = [self.kept.tallied, *filter(None, [self.kept.tally_key(text)])]
                        try:
                            values = cast(list[bytes | None], pipe.hmget(tallies, names))
                        except redis.ResponseError:  # tallies of another type: written over
                            values, damaged = [None] * len(names), True
                        rows = {
                            name: value.decode(errors="replace")
                            for name, value in zip(names, values, strict=True)
                            if value
                        }
                        changes = self.kept.tally(rows, text, self.kept.tallied not in rows and pipe.hlen(results) == 0)
                    pipe.multi()
                    if board is not None and first is None:
                        pipe.hset(boards, board, game_id)
                    if keep:
                        pipe.hset(results, game_id, text)
                        if changes is None or damaged:
                            pipe.delete(tallies)  # None: counted again from every result when next read (tallies_of)
                        if changes is not None:
                            pipe.hset(tallies, mapping=_fields(changes))
                    pipe.execute()
                    return
                except redis.WatchError:
                    continue
        raise Conflict(f"{results}: kept changing while being written")

    @store_faults()
    def board_seen_in(self, player: str, board: str) -> str | None:
        first = cast(bytes | None, self.redis.hget(self._key("boards", player), board))
        return None if first is None else first.decode(errors="replace")

    @store_faults()
    def results_of(self, player: str) -> list[str]:
        try:
            return self._stored_results(self.redis, self._key("results", player))
        except redis.ResponseError:  # a key of another type: no results to show, and nothing is changed
            return []

    @store_faults()
    def results_by_game(self, player: str) -> dict[str, str]:
        try:
            return _texts(cast(dict[bytes, bytes], self.redis.hgetall(self._key("results", player))))
        except redis.ResponseError:  # a key of another type: no results to show, and nothing is changed
            return {}

    @staticmethod
    def _stored_results(client: redis.Redis, key: str) -> list[str]:
        return [value.decode(errors="replace") for value in cast(list[bytes], client.hvals(key))]

    @store_faults()
    def tallies_of(self, player: str) -> dict[str, str]:
        try:
            stored = cast(dict[bytes, bytes], self.redis.hgetall(self._key("tallies", player)))
        except redis.ResponseError:  # a key of another type: counted again, over it
            return self.retally(player)
        rows = {name.decode(errors="replace"): value.decode(errors="replace") for name, value in stored.items()}
        return (
            rows
            if self.kept.tallied in rows or not self.redis.exists(self._key("results", player))
            else self.retally(player)
        )

    @store_faults()
    def retally(self, player: str) -> dict[str, str]:
        results, tallies = self._key("results", player), self._key("tallies", player)
        for _ in range(self.ATTEMPTS):
            with self.redis.pipeline() as pipe:
                try:
                    pipe.watch(results, tallies)
                    try:
                        stored = self._stored_results(pipe, results)
                    except redis.ResponseError:  # results of another type: none to count, and they are left as they are
                        stored = []
                    rows = self.kept.recount(stored) if stored else {}
                    pipe.multi()
                    pipe.delete(tallies)
                    if rows:
                        pipe.hset(tallies, mapping=_fields(rows))
                    pipe.execute()
                    return rows
                except redis.WatchError:
                    continue
        raise Conflict(f"{tallies}: kept changing while being counted")

    @store_faults()
    def count_event(self, key: str, limit: int, window: float) -> bool:
        start = window_start(self.clock(), window)
        counter = self._key("rate", key, repr(start))
        # One transaction counts and sets the expiry, so no crash in between can
        # leave a counter that never goes away.
        with self.redis.pipeline() as pipe:
            pipe.incr(counter)
            pipe.expire(counter, max(1, int(window) + 1))
            count, _ = pipe.execute()
        return count <= limit

    @store_faults()
    def stored_version(self, game_id: str) -> int | None:
        version = self._read_hash(self._key("game", game_id), "version")[0]
        if version is None:
            version = self._read_hash(self._key("room", game_id), "version")[0]
        return None if version is None else _number(game_id, version)

    @store_faults()
    def mark_present(self, game_id: str, seat: int, until: float) -> None:
        # Redis forgets the mark by itself: its expiry is the time left on the store's clock.
        self.redis.set(
            self._key("presence", game_id, str(seat)), repr(until), px=max(1, int(1000 * (until - self.clock())))
        )

    @store_faults()
    def present(self, game_id: str) -> set[int]:
        # A game has two seats at most, a room a place per member: one read covers either.
        keys = [self._key("presence", game_id, str(seat)) for seat in range(self.kept.room_seats)]
        marks = cast(list[bytes | None], self.redis.mget(keys))
        now = self.clock()
        return {seat for seat, until in enumerate(marks) if until is not None and _moment(until) > now}

    @store_faults()
    def stored_versions(self, game_ids: list[str]) -> dict[str, int | None]:
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hget(self._key("game", game_id), "version")
                pipe.hget(self._key("room", game_id), "version")
            stored = pipe.execute(raise_on_error=False)
        versions: dict[str, int | None] = {}
        # A game's version, or else a room's: the two share one space of ids.
        found = (game if game is not None else room for game, room in zip(stored[::2], stored[1::2], strict=True))
        for game_id, version in zip(game_ids, found, strict=True):
            try:
                versions[game_id] = None if version is None else _number(game_id, version)
            except (Corrupt, redis.ResponseError, TypeError):
                versions[game_id] = None  # unreadable: the stream wakes, and its read says why
        return versions

    def changes(self) -> Changes:
        return RedisChanges(self)

    @store_faults()
    def create_room(self, room: Any) -> str:
        room_id = new_game_id()
        data = self._room_data(room, room_id)
        players = room.players()
        rooms = self._key("rooms")
        self._repair_room_indexes([rooms, *self._member_keys(players)])
        now = self.clock()
        with self.redis.pipeline() as pipe:
            pipe.hset(
                self._key("room", room_id),
                mapping={
                    "version": room.version,
                    "data": data,
                    "members": json.dumps(players),
                    "created": now,
                    "updated": now,
                },
            )
            pipe.zadd(rooms, {room_id: now})
            for index in self._member_keys(players):
                pipe.sadd(index, room_id)
            pipe.execute()
        return room_id

    @store_faults()
    def load_room(self, room_id: str) -> Any:
        try:
            version, data = cast(list[bytes | None], self.redis.hmget(self._key("room", room_id), "version", "data"))
        except redis.ResponseError as error:
            raise Corrupt(f"room {room_id}: not stored as a hash: {error}") from None
        if version is None and data is None:
            raise NotFound(room_id)
        if data is None:
            raise Corrupt(f"room {room_id}: its data is missing")
        return self._read_room(room_id, _room_version(room_id, version), data)

    @store_faults()
    def save_room(self, room_id: str, room: Any, read_version: int) -> None:
        key, rooms = self._key("room", room_id), self._key("rooms")
        data = self._room_data(room, room_id)
        players = room.players()

        def write(pipe: redis.client.Pipeline) -> None:
            try:
                version, members = cast(list[bytes | None], pipe.hmget(key, "version", "members"))
            except redis.ResponseError as error:
                raise Corrupt(f"room {room_id}: not stored as a hash: {error}") from None
            if version is None:
                raise NotFound(room_id)
            if _room_version(room_id, version) != read_version:
                raise Conflict(room_id)
            gone = self._member_keys([player for player in _players(members) if player not in players])
            # Types are checked before MULTI, as a game's save does: EXEC would run the other commands.
            self._repair_room_indexes([rooms, *self._member_keys(players), *gone])
            now = self.clock()
            pipe.multi()
            pipe.hset(
                key, mapping={"version": room.version, "data": data, "members": json.dumps(players), "updated": now}
            )
            pipe.zadd(rooms, {room_id: now})
            for index in self._member_keys(players):
                pipe.sadd(index, room_id)
            for index in gone:
                pipe.srem(index, room_id)
            pipe.publish(self._key("changed", room_id), room.version)

        self._transaction([key], write)

    @store_faults()
    def delete_room(self, room_id: str) -> None:
        key = self._key("room", room_id)

        def write(pipe: redis.client.Pipeline) -> None:
            players = self._stored_members(pipe, key)
            pipe.multi()
            self._drop_room(pipe, room_id, players)

        self._transaction([key], write)

    @store_faults()
    def rooms_of(self, player: str) -> list[str]:
        index, rooms = self._key("member", player), self._key("rooms")

        def active() -> list[tuple[float, str]]:
            ids = [room_id.decode() for room_id in cast(set[bytes], self.redis.smembers(index))]
            scores = self.redis.zmscore(rooms, ids) if ids else []
            # No score: the room went (an entry left by damage): not listed.
            return [(score, room_id) for room_id, score in zip(ids, scores, strict=True) if score is not None]

        try:
            found = active()
        except redis.ResponseError:  # an index of another type
            self._repair_room_indexes([index, rooms])
            found = active()
        return [room_id for _, room_id in sorted(found, reverse=True)]

    @store_faults()
    def peek(self, game_ids: list[str]) -> dict[str, Game | None]:
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hmget(self._key("game", game_id), "version", "data")
            rows = pipe.execute(raise_on_error=False)
        games: dict[str, Game | None] = {}
        for game_id, row in zip(game_ids, rows, strict=True):
            if isinstance(row, Exception):  # a key of another type where the game should be
                games[game_id] = None
                continue
            version, data = row
            try:
                games[game_id] = self._glance(_number(game_id, version), data)
            except Corrupt:
                games[game_id] = None
        return games

    def _expire_room(self, room_id: str, idle_before: float) -> bool:
        rooms, key = self._key("rooms"), self._key("room", room_id)
        for _ in range(self.ATTEMPTS):
            with self.redis.pipeline() as pipe:
                try:
                    # All rooms' activity is watched, not this room's hash alone: a game's save moves only the
                    # score of its room.
                    pipe.watch(rooms, key)
                    score = pipe.zscore(rooms, room_id)
                    if score is None or score >= idle_before:
                        return False
                    players = self._stored_members(pipe, key)
                    pipe.multi()
                    self._drop_room(pipe, room_id, players)
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue
        return False  # busy all along: the next expiry takes it

    def _stored_members(self, pipe: redis.client.Pipeline, key: str) -> list[str]:
        """The players a room is indexed for (none for a room gone or damaged), their indexes checked. Before MULTI."""
        try:
            members = cast(list[bytes | None], pipe.hmget(key, "members"))[0]
        except redis.ResponseError:  # a key of another type where the room should be: it goes all the same
            members = None
        players = _players(members)
        self._repair_room_indexes(self._member_keys(players))
        return players

    def _drop_room(self, pipe: redis.client.Pipeline, room_id: str, players: list[str]) -> None:
        pipe.delete(self._key("room", room_id))
        pipe.zrem(self._key("rooms"), room_id)
        for index in self._member_keys(players):
            pipe.srem(index, room_id)

    def _member_keys(self, players: list[str]) -> list[str]:
        return [self._key("member", player) for player in dict.fromkeys(players)]

    def _repair_room_indexes(self, indexes: list[str], kinds: dict[str, bytes] | None = None) -> None:
        """Rebuild any of these room indexes (`rooms`, `member:<player>`) that holds another type, from the rooms.

        As for games' indexes: such a key would fail every write touching it.
        A rebuilt `rooms` knows each room's own last save, not its games' since.
        """
        if not indexes:
            return
        kinds = kinds or self._kinds(*indexes)
        rooms = self._key("rooms")
        damaged = [index for index in indexes if kinds[index] not in ((b"zset" if index == rooms else b"set"), b"none")]
        if not damaged:
            return
        logger.warning("rebuilding Redis room indexes that held another type: %s", ", ".join(damaged))
        self.redis.delete(*damaged)
        members: dict[str, list[str]] = {index: [] for index in damaged if index != rooms}
        activity: dict[str, float] = {}
        prefix = self._key("room", "")
        keys = self.redis.scan_iter(match=f"{prefix}*", count=1000, _type="hash")
        while batch := list(itertools.islice(keys, 1000)):
            with self.redis.pipeline(transaction=False) as pipe:
                for key in batch:
                    pipe.hmget(key, "members", "updated")
                found = pipe.execute(raise_on_error=False)
            for key, fields in zip(batch, found, strict=True):
                room_id = key.decode().removeprefix(prefix)
                if isinstance(fields, Exception):
                    continue
                for index in self._member_keys(_players(fields[0])):
                    if index in members:
                        members[index].append(room_id)
                if rooms in damaged:
                    try:
                        activity[room_id] = float(fields[1])
                    except (TypeError, ValueError):
                        activity[room_id] = 0.0  # a damaged room is found idle, and expires
        with self.redis.pipeline(transaction=False) as pipe:
            for index, room_ids in members.items():
                if room_ids:
                    pipe.sadd(index, *room_ids)
            if activity:
                # GT: a save in the meantime gave the room a later time, which stays.
                pipe.zadd(rooms, activity, gt=True)
            pipe.execute()

    @contextmanager
    def lease(self, game_id: str) -> Iterator[None]:
        # A lease, not a lock forever: short, and renewed while the move runs, so
        # a host that dies mid-move frees the game after lease_seconds. The token
        # is shared with the renewing thread (thread_local=False); it releases only
        # the lease it took.
        lease = Lease(
            self.redis,
            self._key("lease", game_id),
            timeout=self.lease_seconds,
            sleep=0.002,
            blocking_timeout=LEASE_WAIT_SECONDS,
            thread_local=False,
            answer_within=self.socket_seconds / 2,
        )
        with store_faults():
            taken = lease.acquire()
        if not taken:
            raise Conflict(f"{game_id}: another host held the game too long")
        try:
            with renewed(lease, every=self.lease_seconds / 3):
                yield
        finally:
            try:
                lease.release()
            except (LockError, redis.ConnectionError, redis.TimeoutError):
                # It ran out and another host may have the game (the version check guards it),
                # or Redis is unreachable and the lease runs out by itself.
                pass

    @store_faults()
    def set_name(self, player: str, name: str) -> None:
        try:
            with self.redis.pipeline() as pipe:
                pipe.hset(self._key("names"), player, name)
                pipe.zadd(self._key("names-at"), {player: self.clock()})
                pipe.execute()
        except redis.ResponseError as error:
            raise Corrupt(f"{self._key('names')}: not stored as a hash: {error}") from None

    @store_faults()
    def recent_names(self, limit: int) -> list[tuple[str, str, float]]:
        timed = cast(
            list[tuple[bytes, float]], self.redis.zrevrange(self._key("names-at"), 0, limit - 1, withscores=True)
        )
        players = [player.decode() for player, _ in timed]
        names = self.names_of(players)
        found = [
            (player, names[player], float(at))
            for player, (_, at) in zip(players, timed, strict=True)
            if player in names
        ]
        if len(found) < limit:  # names kept before their time was: listed last
            listed = set(players)
            for player, name in self.redis.hscan_iter(self._key("names")):
                if len(found) >= limit:
                    break
                if player.decode() not in listed:
                    found.append((player.decode(), name.decode(errors="replace"), 0.0))
        return found

    @store_faults()
    def drop_name(self, player: str) -> bool:
        with self.redis.pipeline() as pipe:
            pipe.hdel(self._key("names"), player)
            pipe.zrem(self._key("names-at"), player)
            dropped, _ = pipe.execute()
        return bool(dropped)

    @store_faults()
    def drop_ladder_entry(self, ladder: str, player: str) -> bool:
        entries, ranking, _ = self._ladder_keys(ladder)
        dropped = False

        def write(pipe: redis.client.Pipeline) -> None:
            nonlocal dropped
            kept = _ladder_value(cast(bytes | None, pipe.hget(entries, player)))
            dropped = kept is not None
            pipe.multi()
            if kept is not None:
                pipe.hdel(entries, player)
                pipe.zrem(ranking, f"{kept[2]:012d}:{player}")
                pipe.hdel(self._key("ladders", player), ladder)

        self._transaction([entries], write)
        return dropped

    @store_faults()
    def write_audit(self, entry: str) -> None:
        self.redis.rpush(self._key("audit"), entry)

    @store_faults()
    def audit_log(self, limit: int) -> list[str]:
        lines = cast(list[bytes], self.redis.lrange(self._key("audit"), -limit, -1))
        return [line.decode(errors="replace") for line in reversed(lines)]

    @store_faults()
    def names_of(self, players: list[str]) -> dict[str, str]:
        if not players:
            return {}
        try:
            names = cast(list[bytes | None], self.redis.hmget(self._key("names"), players))
        except redis.ResponseError:  # a key of another type: no names to show, and nothing is changed
            return {}
        return {
            player: name.decode(errors="replace")
            for player, name in zip(players, names, strict=True)
            if name is not None
        }

    def _ladder_keys(self, ladder: str) -> tuple[str, str, str]:
        """A ladder's entries (hash), its ranking (sorted set) and its counter."""
        return self._key("ladder", ladder), self._key("ladder-rank", ladder), self._key("ladder-kept", ladder)

    @store_faults()
    def enter_ladder(self, ladder: str, player: str, group: int, millis: int, entry: str) -> bool:
        check_ladder_arguments(group=group, millis=millis)
        keys = [*self._ladder_keys(ladder), self._key("ladders", player)]
        score = group * LADDER_MILLIS + millis
        kept = self._enter_ladder(keys=keys, args=[player, group, millis, entry, ladder, score])
        if kept == -1:
            raise Corrupt(f"ladder {ladder}: its keys are not of their types, or its counter is not a count")
        return kept == 1

    @store_faults()
    def ladder(self, ladder: str, limit: int, player: str | None = None) -> LadderPage:
        check_ladder_arguments(limit=limit)
        entries, ranking, _ = self._ladder_keys(ladder)
        # Two round trips, each one MULTI: the top's members and the player's entry, then the top's entries, the
        # player's place and the counts. An entry kept in between moves the place and the counts alike (they
        # agree); the top is a moment older. Entries are never taken away, so every member listed has its entry.
        with self.redis.pipeline() as pipe:
            listed_below = LADDER_LISTED_GROUPS * LADDER_MILLIS
            pipe.zrangebyscore(ranking, "-inf", f"({listed_below}", start=0, num=limit, withscores=True)
            if player is not None:
                pipe.hget(entries, player)
            first = pipe.execute(raise_on_error=False)
        # A key of another type answers an error in place of its reply: that part of the page stays empty, and
        # a member or an entry that does not read leaves its row out.
        ranked = [(place, _ranked(*member)) for place, member in enumerate(_replied(first[0], []), 1)]
        top = [(place, found) for place, found in ranked if found is not None]
        mine = _ladder_value(_replied(first[1], None)) if player is not None else None
        players = [found[0] for _, found in top]
        with self.redis.pipeline() as pipe:
            for group in range(LADDER_GROUPS):
                pipe.zcount(ranking, group * LADDER_MILLIS, f"({(group + 1) * LADDER_MILLIS}")
            if mine is not None:
                pipe.zrank(ranking, f"{mine[2]:012d}:{player}")
            if players:
                pipe.hmget(entries, players)
            second = pipe.execute(raise_on_error=False)
        counts = [count if isinstance(count, int) else 0 for count in second[:LADDER_GROUPS]]
        rank = second[LADDER_GROUPS] if mine is not None else None
        kept = _replied(second[-1], []) if players else []
        rows = []
        for (place, (who, group, millis)), value in zip(top, kept, strict=False):
            stored = _ladder_value(value)
            rows.append(ladder_row(place, who, group, millis, stored[3]) if stored is not None else None)
        own = None
        if mine is not None and isinstance(rank, int):  # no rank: its ranking lost it (damage)
            own = ladder_row(rank + 1, player, mine[0], mine[1], mine[3])
        return LadderPage([row for row in rows if row is not None], own, (counts[0], counts[1], counts[2]))

    @store_faults()
    def ladder_entries_of(self, player: str) -> dict[str, str]:
        try:
            stored = cast(dict[bytes, bytes], self.redis.hgetall(self._key("ladders", player)))
        except redis.ResponseError:  # a key of another type: no entries to show, and nothing is changed
            return {}
        return {ladder.decode(errors="replace"): entry.decode(errors="replace") for ladder, entry in stored.items()}

    @store_faults()
    def claim(self, key: str, value: str, expected: str | None = None) -> bool:
        return bool(self._claim(keys=[self._key("claim", key)], args=[value, expected or ""]))

    @store_faults()
    def claimed(self, key: str) -> str | None:
        try:
            value = cast(bytes | None, self.redis.get(self._key("claim", key)))
        except redis.ResponseError:  # a key of another type: held by nothing this store wrote
            return None
        return None if value is None else value.decode(errors="replace")

    @store_faults()
    def release(self, key: str, value: str) -> None:
        self._release(keys=[self._key("claim", key)], args=[value])

    # ----- passkeys and one-time tokens ---------------------------------------------------------------

    @store_faults()
    def keep_passkey(self, player: str, credential_id: str, data: str) -> bool:
        key = self._key("passkey", credential_id)
        kept = False

        def write(pipe: redis.client.Pipeline) -> None:
            nonlocal kept
            kept = not pipe.exists(key)
            pipe.multi()
            if kept:
                pipe.hset(key, mapping={"player": player, "data": data})
                pipe.sadd(self._key("passkeys", player), credential_id)

        self._transaction([key], write)
        return kept

    @store_faults()
    def passkey(self, credential_id: str) -> tuple[str, str] | None:
        player, data = cast(list[bytes | None], self.redis.hmget(self._key("passkey", credential_id), "player", "data"))
        return None if player is None or data is None else (player.decode(), data.decode())

    @store_faults()
    def passkeys_of(self, player: str) -> dict[str, str]:
        ids = sorted(member.decode() for member in _replied_members(self.redis, self._key("passkeys", player)))
        with self.redis.pipeline(transaction=False) as pipe:
            for credential_id in ids:
                pipe.hmget(self._key("passkey", credential_id), "player", "data")
            rows = pipe.execute(raise_on_error=False)
        return {
            credential_id: row[1].decode()
            for credential_id, row in zip(ids, rows, strict=True)
            if not isinstance(row, Exception) and row[0] == player.encode() and row[1] is not None
        }

    @store_faults()
    def update_passkey(self, player: str, credential_id: str, data: str) -> bool:
        return self._change_passkey(player, credential_id, data)

    @store_faults()
    def drop_passkey(self, player: str, credential_id: str) -> bool:
        return self._change_passkey(player, credential_id, None)

    def _change_passkey(self, player: str, credential_id: str, data: str | None) -> bool:
        """Write a player's passkey's data, or with None take it away; False when it is not theirs."""
        key = self._key("passkey", credential_id)
        theirs = False

        def write(pipe: redis.client.Pipeline) -> None:
            nonlocal theirs
            theirs = pipe.hget(key, "player") == player.encode()
            pipe.multi()
            if theirs and data is not None:
                pipe.hset(key, "data", data)
            elif theirs:
                pipe.delete(key)
                pipe.srem(self._key("passkeys", player), credential_id)

        self._transaction([key], write)
        return theirs

    @store_faults()
    def put_token(self, key: str, value: str, until: float) -> bool:
        # Redis lets it run out in its own time (the store clock's seconds left, on Redis's clock); take_token
        # checks the store's clock as well, so a test that moves the clock sees it run out.
        left = max(1, int(1000 * (until - self.clock())))
        return bool(self.redis.set(self._key("token", key), f"{until!r} {value}", nx=True, px=left))

    @store_faults()
    def take_token(self, key: str) -> str | None:
        held = cast(bytes | None, self.redis.getdel(self._key("token", key)))
        if held is None:
            return None
        until, _, value = held.decode(errors="replace").partition(" ")
        try:
            return value if float(until) > self.clock() else None
        except ValueError:
            return None

    # ----- a player's whole keeping -------------------------------------------------------------------
    # Read under WATCH, worked out here, written in one MULTI/EXEC: Redis applies all of it or, if the process
    # dies before EXEC or another wrote a watched key, none of it.

    def _player_keys(self, player: str) -> dict[str, str]:
        """The keys named after a player, by what they hold."""
        names = ("player", "owner", "departed", "member", "results", "tallies", "boards", "ladders", "passkeys")
        keys = {name: self._key(name, player) for name in names}
        keys["vacated"] = self._key("player", vacated(player).id)  # the index of the seats they left in rooms
        return keys

    def _naming(self, kind: str, player: str) -> dict[str, str]:
        """The claims or tokens (`kind`) about `player` (names_player), by their key: every one is looked at, as
        no index says whose it is. A token's value is what follows its time."""
        prefix = self._key(kind, "")
        keys = list(self.redis.scan_iter(match=f"{prefix}*", count=1000, _type="string"))
        values = cast(list[bytes | None], self.redis.mget(keys)) if keys else []
        found = {}
        for key, value in zip(keys, values, strict=True):
            if value is not None:
                text = value.decode(errors="replace")
                found[key.decode().removeprefix(prefix)] = text.partition(" ")[2] if kind == "token" else text
        return {key: value for key, value in found.items() if names_player(key, value, player)}

    def _games_naming(self, client: Any, player: str) -> list[str]:
        """The games `player` holds a seat in or left one of, from the indexes (a game gone is not listed)."""
        keys = self._player_keys(player)
        found: dict[str, None] = {}
        for index in (keys["owner"], keys["player"], keys["vacated"]):
            found.update(dict.fromkeys(member.decode() for member in _replied_members(client, index, zset=True)))
        found.update(dict.fromkeys(member.decode() for member in _replied_members(client, keys["departed"])))
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in found:
                pipe.hmget(self._key("game", game_id), "seats", "owner")
            rows = pipe.execute(raise_on_error=False)
        named = []
        for game_id, row in zip(found, rows, strict=True):
            if isinstance(row, Exception) or row == [None, None]:
                continue
            try:
                seats = self._seats(game_id, *row)
            except Corrupt:
                seats = [row[1].decode()] if row[1] else []
            if player in seats or vacated(player).id in seats:
                named.append(game_id)
        return named

    @store_faults()
    def holdings(self, player: str) -> Holdings:
        keys = self._player_keys(player)
        games = self._games_naming(self.redis, player)
        with self.redis.pipeline() as pipe:
            for game_id in games:
                pipe.hget(self._key("game", game_id), "departed")
            pipe.smembers(keys["member"])
            for name in ("results", "tallies", "boards", "ladders"):
                pipe.hgetall(keys[name])
            pipe.hget(self._key("names"), player)
            replies = pipe.execute(raise_on_error=False)
        departures = replies[: len(games)]
        members, results, tallies, boards, ladders, name = (_replied(reply, None) for reply in replies[len(games) :])
        left = []
        for game_id, departed in zip(games, departures, strict=True):
            try:
                if player in self._departed(game_id, _replied(departed, None)):
                    left.append(game_id)
            except Corrupt:
                continue
        return Holdings(
            games=games,
            left=left,
            rooms=sorted(room.decode() for room in members or ()),
            results=_texts(results),
            tallies=_texts(tallies),
            boards=_texts(boards),
            name=name.decode(errors="replace") if name is not None else None,
            ladders=_texts(ladders),
            claims=self._naming("claim", player),
            passkeys=self.passkeys_of(player),
            tokens=self._naming("token", player),
        )

    @store_faults()
    def forget(self, player: str, stand_in: str) -> None:
        self._recast_player(player, stand_in, forget=True)

    @store_faults()
    def merge(self, source: str, target: str) -> None:
        if source != target:
            self._recast_player(source, target, forget=False)

    def _recast_player(self, source: str, target: str, *, forget: bool) -> None:
        mine, theirs = self._player_keys(source), self._player_keys(target)
        names = self._key("names")
        for _ in range(self.ATTEMPTS):
            games = self._games_naming(self.redis, source)
            rooms = sorted(member.decode() for member in _replied_members(self.redis, mine["member"]))
            ladders = list(_texts(_replied(self._try(lambda: self.redis.hgetall(mine["ladders"])), None)))
            claims = self._naming("claim", source)
            tokens = self._naming("token", source)
            passkeys = sorted(member.decode() for member in _replied_members(self.redis, mine["passkeys"]))
            watched = [
                self._key("names-at"),
                *(self._key("token", key) for key in tokens),
                *(self._key("passkey", credential_id) for credential_id in passkeys),
                *mine.values(),
                *theirs.values(),
                names,
                *(self._key("game", game_id) for game_id in games),
                *(self._key("room", room_id) for room_id in rooms),
                *(key for ladder in ladders for key in self._ladder_keys(ladder)[:2]),
                *(self._key("claim", key) for key in claims),
            ]
            with self.redis.pipeline() as pipe:
                try:
                    pipe.watch(*watched)
                    # What the watch covers is read again: a change between the first look and the watch shows.
                    if (
                        self._games_naming(pipe, source) != games
                        or sorted(member.decode() for member in _replied_members(pipe, mine["member"])) != rooms
                    ):
                        continue
                    writes = self._recast_writes(pipe, source, target, games, rooms, ladders, claims, forget=forget)
                    writes += self._recast_passkeys_and_tokens(pipe, source, target, passkeys, tokens, forget=forget)
                    pipe.multi()
                    for command in writes:
                        pipe.execute_command(*command)
                    pipe.execute()
                except redis.WatchError:
                    continue
            self._forget_histories(games)
            return
        raise Conflict(f"{mine['player']}: kept changing while being {'forgotten' if forget else 'merged'}")

    def _recast_writes(
        self,
        pipe: redis.client.Pipeline,
        source: str,
        target: str,
        games: list[str],
        rooms: list[str],
        ladders: list[str],
        claims: dict[str, str],
        *,
        forget: bool,
    ) -> list[tuple[Any, ...]]:
        """The commands a recast writes, worked out from what is read under WATCH before MULTI: a game or room
        that does not read back leaves all as it was."""
        mine, theirs = self._player_keys(source), self._player_keys(target)
        names = self._key("names")
        writes: list[tuple[Any, ...]] = []
        rooms_kept = set()
        for room_id in rooms:
            key = self._key("room", room_id)
            data, members = cast(list[bytes | None], pipe.hmget(key, "data", "members"))
            if data is None:
                continue
            room = self._recast_room(data, source, target, forget=forget)
            if room is None:
                writes += [("DEL", key), ("ZREM", self._key("rooms"), room_id)]
                writes += [("SREM", index, room_id) for index in self._member_keys(_players(members))]
                continue
            rooms_kept.add(room_id)
            stored = self._room_data(room, room_id)
            writes.append(("HSET", key, "version", room.version, "data", stored, "members", json.dumps(room.players())))
            writes.append(("PUBLISH", self._key("changed", room_id), room.version))
            if not forget:
                writes.append(("SADD", theirs["member"], room_id))
        for game_id in games:
            key = self._key("game", game_id)
            fields = cast(list[bytes | None], pipe.hmget(key, "data", "updated", "departed", "seats", "owner"))
            data, updated, departed, seats, owner = fields
            if data is None:
                continue
            game = self._recast_game(data, source, target, rooms_kept=rooms_kept if forget else None)
            if game is None:
                writes += [("DEL", key, self._key("history", game_id)), ("ZREM", self._key("games"), game_id)]
                for player in self._seats(game_id, seats, owner) if seats is not None else []:
                    writes += [("ZREM", self._key(index, player), game_id) for index in ("owner", "player")]
                continue
            gone = self._departed(game_id, departed)
            if source in gone:
                gone = (gone - {source}) | (set() if forget else {target})
            credentials = game.credentials()
            writes.append(
                ("HSET", key, "seats", json.dumps(credentials), "owner", game.maker, "version", game.version)
                + ("data", self._encode(game, game_id), "departed", json.dumps(sorted(gone)))
            )
            listed = [seated for seated in credentials if seated not in gone]
            writes += [("ZADD", index, float(updated or 0), game_id) for index in self._index_keys(credentials, listed)]
            if target in gone:
                writes.append(("SADD", theirs["departed"], game_id))
            writes.append(("PUBLISH", self._key("changed", game_id), game.version))
        if not forget:
            # Where both kept a row of the same key (a game both played, a board both saw), the target's stays.
            for kind in ("results", "boards"):
                rows, kept = (
                    _texts(_replied(self._try(partial(pipe.hgetall, keys[kind])), None)) for keys in (mine, theirs)
                )
                for field, value in rows.items():
                    if field not in kept:
                        writes.append(("HSET", theirs[kind], field, value))
            name = pipe.hget(names, source)
            if name is not None and pipe.hget(names, target) is None:
                writes.append(("HSET", names, target, name))
                writes.append(("ZADD", self._key("names-at"), pipe.zscore(self._key("names-at"), source) or 0, target))
        for ladder in ladders:
            entries, ranking, _ = self._ladder_keys(ladder)
            ours, others = (
                _ladder_value(cast(bytes | None, pipe.hget(entries, player))) for player in (source, target)
            )
            if ours is None:
                continue
            writes += [("HDEL", entries, source), ("ZREM", ranking, f"{ours[2]:012d}:{source}")]
            # Each ladder keeps whichever of the two entries it kept first.
            if forget or (others is not None and others[2] < ours[2]):
                continue
            group, millis, seq, entry = ours
            if others is not None:
                writes.append(("ZREM", ranking, f"{others[2]:012d}:{target}"))
            writes.append(("HSET", entries, target, f"{group}:{millis}:{seq}:{entry}"))
            writes.append(("ZADD", ranking, group * LADDER_MILLIS + millis, f"{seq:012d}:{target}"))
            writes.append(("HSET", theirs["ladders"], ladder, entry))
        for key, value in claims.items():
            writes.append(("DEL", self._key("claim", key)))
            if not forget:
                moved = self._key("claim", key.replace(source, target))
                writes.append(("SET", moved, target if value == source else value, "NX"))
        # The tallies are counted again from the results together when next read (tallies_of).
        writes += [("HDEL", names, source), ("ZREM", self._key("names-at"), source)]
        writes.append(("DEL", theirs["tallies"], *mine.values()))
        return writes

    def _recast_passkeys_and_tokens(
        self,
        pipe: redis.client.Pipeline,
        source: str,
        target: str,
        passkeys: list[str],
        tokens: dict[str, str],
        *,
        forget: bool,
    ) -> list[tuple[Any, ...]]:
        """The commands that take `source`'s passkeys and tokens away (`forget`) or give them to `target`; a token
        keeps the time it has left. Read under WATCH, before MULTI."""
        writes: list[tuple[Any, ...]] = []
        for credential_id in passkeys:
            key = self._key("passkey", credential_id)
            if forget:
                writes.append(("DEL", key))
            else:
                writes += [("HSET", key, "player", target), ("SADD", self._key("passkeys", target), credential_id)]
        for token, value in tokens.items():
            key = self._key("token", token)
            held, left = cast(bytes | None, pipe.get(key)), pipe.pttl(key)
            writes.append(("DEL", key))
            if forget or held is None or left <= 0:
                continue
            until = held.decode(errors="replace").partition(" ")[0]
            moved = self._key("token", token.replace(source, target))
            writes.append(("SET", moved, f"{until} {target if value == source else value}", "PX", left, "NX"))
        return writes

    def _try(self, read: Callable[[], Any]) -> Any:
        try:
            return read()
        except redis.ResponseError as error:
            return error

    @store_faults()
    def check(self) -> None:
        self.redis.ping()

    def close(self) -> None:
        self.redis.close()

    def _index(self, pipe: redis.client.Pipeline, game_id: str, seats: list[str], updated: float) -> None:
        for index in self._index_keys(seats):
            pipe.zadd(index, {game_id: updated})

    def _index_keys(self, seats: list[str], listed: list[str] | None = None) -> list[str]:
        """The indexes a game with these seats is in: its maker's, the seated players' who list it (by
        default every one), and all games'."""
        players = [self._key("player", player) for player in dict.fromkeys(seats if listed is None else listed)]
        return [self._key("owner", seats[0]), *players, self._key("games")]

    def _kinds(self, *keys: str) -> dict[str, bytes]:
        """The type of each key (b"none" for a key that does not exist), in one round trip."""
        with self.redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.type(key)
            return dict(zip(keys, pipe.execute(), strict=True))

    def _repair_indexes(self, indexes: list[str], kinds: dict[str, bytes] | None = None) -> None:
        """Rebuild any of these indexes that holds another type than a sorted set, from the games themselves.

        Such a key (damage, or a stray command by hand) would fail every write
        that touches it, and so every game of its player. Each game's hash
        keeps its seats and its last update, so the index is rebuilt whole;
        other indexes are left as they are.
        """
        kinds = kinds or self._kinds(*indexes)
        damaged = [index for index in indexes if kinds[index] not in (b"zset", b"none")]
        if not damaged:
            return
        logger.warning("rebuilding Redis indexes that held another type: %s", ", ".join(damaged))
        self.redis.delete(*damaged)
        rebuilt: dict[str, dict[str, float]] = {index: {} for index in damaged}
        prefix = self._key("game", "")
        keys = self.redis.scan_iter(match=f"{prefix}*", count=1000, _type="hash")
        while batch := list(itertools.islice(keys, 1000)):
            with self.redis.pipeline(transaction=False) as pipe:
                for key in batch:
                    pipe.hmget(key, "seats", "owner", "updated")
                found = pipe.execute(raise_on_error=False)
            for key, fields in zip(batch, found, strict=True):
                game_id = key.decode().removeprefix(prefix)
                try:
                    seats, updated = self._seats(game_id, fields[0], fields[1]), float(fields[2])
                except (Corrupt, TypeError, ValueError):
                    continue  # a damaged game is reported when it is opened, not indexed
                for index in self._index_keys(seats) if seats else ():
                    if index in rebuilt:
                        rebuilt[index][game_id] = updated
        with self.redis.pipeline(transaction=False) as pipe:
            for index, games in rebuilt.items():
                if games:
                    # GT: a save in the meantime indexed the game with a later time, which stays.
                    pipe.zadd(index, games, gt=True)
            pipe.execute()

    def _delete(self, pipe: redis.client.Pipeline, game_id: str) -> None:
        """Delete a game and its index entries. Reads its seats first, so call it before MULTI."""
        owner = None
        try:
            seats, owner = self._read_hash(self._key("game", game_id), "seats", "owner")
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


class RedisChanges(Changes):
    """Every save publishes on its game's channel; one pattern subscription hears them all, on one connection."""

    def __init__(self, store: RedisStore):
        self._channels = store._key("changed", "")
        self._pubsub = store.redis.pubsub()
        with store_faults():
            self._pubsub.psubscribe(self._channels + "*")
            # Following once Redis says so: a save after this returns is heard.
            confirmed = self._pubsub.get_message(timeout=store.socket_seconds)
        if confirmed is None or confirmed["type"] != "psubscribe":
            self.close()
            raise StoreUnavailable(UNREACHABLE, "redis")

    @store_faults()
    def next(self) -> set[str] | None:
        saved: set[str] = set()
        message = self._pubsub.get_message(timeout=CHANGES_POLL_SECONDS)
        while message is not None:
            if message["type"] == "pmessage":
                saved.add(message["channel"].decode(errors="replace")[len(self._channels) :])
            message = self._pubsub.get_message(timeout=0)
        return saved

    def close(self) -> None:
        try:
            self._pubsub.close()
        except redis.RedisError:
            pass


def _number(game_id: str, value: bytes | None) -> int:
    if value is not None:
        try:
            return int(value)
        except ValueError:
            pass
    raise Corrupt(f"game {game_id}: a stored count is not a number: {value!r}")


def _room_version(room_id: str, value: bytes | None) -> int:
    if value is not None:
        try:
            return int(value)
        except ValueError:
            pass
    raise Corrupt(f"room {room_id}: its stored version is not a number: {value!r}")


def _players(members: bytes | None) -> list[str]:
    """The players a room is indexed for, as its hash notes them; none when that note is missing or damaged."""
    try:
        players = json.loads(members) if members is not None else []
    except ValueError:
        return []
    return [player for player in players if isinstance(player, str)] if isinstance(players, list) else []


def _fields(rows: dict[str, str]) -> dict[EncodableT, EncodableT]:
    """Rows for HSET's mapping, which redis-py types as every kind of value it can encode."""
    return cast(dict[EncodableT, EncodableT], rows)


def _moment(value: bytes) -> float:
    """A presence mark's time; a mark that is not a number (written by hand) counts as gone."""
    try:
        return float(value)
    except ValueError:
        return 0.0


def _ranked(member: bytes, score: float) -> tuple[str, int, int] | None:
    """A ladder ranking's member as (player, group, millis); None for one whose format is broken."""
    seq, colon, player = member.decode(errors="replace").partition(":")
    if not (colon and seq.isdecimal() and float(score).is_integer() and score >= 0):
        return None
    group, millis = divmod(int(score), LADDER_MILLIS)
    return player, group, millis


def _replied(reply: Any, otherwise: Any) -> Any:
    """A pipeline's reply, or `otherwise` where it holds an error (a key of another type)."""
    return otherwise if isinstance(reply, Exception) else reply


def _ladder_value(value: bytes | None) -> tuple[int, int, int, str] | None:
    """A ladder's stored entry as (group, millis, seq, entry JSON); None for none, or one that does not read."""
    if value is None:
        return None
    parts = value.decode(errors="replace").split(":", 3)
    if len(parts) != 4 or not all(part.isdecimal() for part in parts[:3]):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2]), parts[3]


def without_password(url: str) -> str:
    """The URL fit for a message: a password, in the address or the query, masked."""
    password = urlsplit(url).password
    if password is not None:
        url = url.replace(f":{password}@", ":***@", 1)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url)


def _replied_members(client: Any, key: str, *, zset: bool = False) -> list[bytes]:
    """The members of an index (a sorted set, or a set); none where the key holds another type."""
    try:
        return list(client.zrange(key, 0, -1) if zset else client.smembers(key))
    except redis.ResponseError:
        return []


def _texts(stored: dict[bytes, bytes] | None) -> dict[str, str]:
    return {field.decode(errors="replace"): value.decode(errors="replace") for field, value in (stored or {}).items()}
