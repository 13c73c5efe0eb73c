"""Scheduling the game operations: one at a time per game, in a few threads, slow games in the slow lane,
and a write that met another process's worked out again.

An operation is a method of a part of the service marked by name (`operation`) and registered with the runner
when the part is built (`Runner.register`): the runner calls it on its game under the game's turn lock in this
process and the store's lease across processes, in a thread of the cheap pool, the slow thread, or the slow lane
(app/host/lane.py), which builds a service of its own and calls the same operation by the same name in its process.
What an operation does to a game is its part's (app/service/); where and when it runs is the runner's.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from app.store import Conflict, Corrupt, Store
from solver import Inconsistent

# Game work is CPU-bound Python: more threads than cores only fight over the
# GIL, and a thread holding SQLite's write lock then waits its turn while the
# others run (measured: a convoy that halves throughput).
SOLVER_THREADS = 4
# Slow games are played in the slow lane (app/host/lane.py: a process of its own at
# a lower priority), so that a few slow positions can neither hold every
# thread nor take the worker's processor from cheap clicks. Without a lane (a
# store only this process sees) they get one thread of their own: threads
# share the GIL, and each slow one takes its share of the worker's core
# (bench/load.py --slow 8: the other players' p95 was 736 ms with two slow
# threads, 249 ms with the lane).
SLOW_THREADS = 1
# A game is slow once one of its operations took this much processor time (not
# the clock's: on a busy worker a cheap game waits for the GIL and the
# processor, and by the clock it would look slow). It stays slow in this
# process: its warm analyzer lives where it was played, and a game sent back
# would be analysed from scratch, slowly, on a cheap thread.
SLOW_OPERATION_CPU_SECONDS = 0.25
SLOW_GAMES_KEPT = 1024
# A move that keeps meeting writes from other processes gives up after this many tries.
WRITE_ATTEMPTS = 8

Operation = Callable[..., Any]
F = TypeVar("F", bound=Operation)


def operation(name: str) -> Callable[[F], F]:
    """Mark a part's method, `(self, game_id, *args)`, as the operation `name` (a name crosses to the lane's
    process): Runner.register finds it on the part."""

    def mark(function: F) -> F:
        function.operation_name = name  # type: ignore[attr-defined]
        return function

    return mark


class SlowGame(Exception):
    """A cheap thread met a game too big to analyse from scratch beside cheap clicks; nothing was done."""


class TurnLocks:
    """One asyncio lock per game in this process, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def turn(self, game_id: str) -> AsyncIterator[None]:
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


class Runner:
    """Where and when the operations of one service run. `forget(game_id)` is told when a game's cached
    analysis can no longer be trusted (another process wrote the game, or its numbers contradict)."""

    def __init__(self, store: Store, lane: Any, forget: Callable[[str], None]):
        self.store = store
        self.lane = lane
        self.forget = forget
        self.turns = TurnLocks()
        self.limiter = anyio.CapacityLimiter(SOLVER_THREADS)
        self.slow_limiter = anyio.CapacityLimiter(SLOW_THREADS)
        self.slow_games: OrderedDict[str, None] = OrderedDict()
        self._slow_lock = threading.Lock()
        self._thread = threading.local()  # .cheap: this thread serves cheap games
        self.operations: dict[str, Operation] = {}

    def register(self, part: object) -> None:
        """Take the part's operations (the methods `operation` marked), each by its name."""
        for attribute in dir(type(part)):
            name = getattr(getattr(type(part), attribute), "operation_name", None)
            if name is None:
                continue
            if name in self.operations:
                raise ValueError(f"two operations are called {name!r}")
            self.operations[name] = getattr(part, attribute)

    async def offload(self, work: Callable[..., Any], *args: Any, limiter: anyio.CapacityLimiter | None = None) -> Any:
        """Run blocking work (the store, the solver) in one of the few game threads."""
        return await anyio.to_thread.run_sync(work, *args, limiter=limiter or self.limiter)

    def on_cheap_thread(self) -> bool:
        """Whether the calling thread serves cheap games (a slow one must leave it: SlowGame)."""
        return getattr(self._thread, "cheap", False)

    async def run(self, name: str, game_id: str, *args: Any) -> Any:
        """The operation `name` on the game, holding the game's turn lock and the store's lease.

        Other processes (workers, hosts) are kept apart by the store's version
        check: a write that finds the game moved on is thrown away and the
        whole operation runs again on the new state.
        """
        async with self.turns.turn(game_id):
            attempt = 0
            while True:
                with self._slow_lock:
                    slow = game_id in self.slow_games
                try:
                    if slow and self.lane is not None:
                        answer = await self.lane.run(name, game_id, args)
                        if answer is not None:
                            result, cpu_seconds = answer
                            self.note_duration(game_id, cpu_seconds)
                            return result
                    if slow:
                        return await self.offload(self.leased, name, game_id, *args, limiter=self.slow_limiter)
                    return await self.offload(self._cheap, name, game_id, *args)
                except SlowGame:
                    self.note_slow(game_id)
                except Conflict:
                    self.forget(game_id)
                    attempt += 1
                    if attempt == WRITE_ATTEMPTS:
                        raise
                    # Processes that collided should not collide again in step.
                    await asyncio.sleep(random.uniform(0, 0.005 * 2 ** (attempt - 1)))

    def _cheap(self, name: str, game_id: str, *args: Any) -> Any:
        """leased on a thread of the cheap pool, which refuses to analyse a big position from scratch (SlowGame)."""
        self._thread.cheap = True
        try:
            return self.leased(name, game_id, *args)
        finally:
            self._thread.cheap = False

    def leased(self, name: str, game_id: str, *args: Any) -> Any:
        """The operation under the store's lease, in the calling thread (the slow lane calls it too)."""
        # The thread's processor time, not the clock's: on a busy worker a cheap
        # game waits for the GIL and the processor, and by the clock it would
        # look slow and go to the lane, where it would wait behind slow work.
        started = time.thread_time()
        try:
            with self.store.lease(game_id):
                return self.operations[name](game_id, *args)
        except Inconsistent as error:
            # Every board the rules build has a layout: numbers that contradict each other were stored by
            # something else.
            self.forget(game_id)
            raise Corrupt(f"game {game_id}: {error}") from None
        finally:
            self.note_duration(game_id, time.thread_time() - started)

    def note_duration(self, game_id: str, cpu_seconds: float) -> None:
        if cpu_seconds > SLOW_OPERATION_CPU_SECONDS:
            self.note_slow(game_id)

    def note_slow(self, game_id: str) -> None:
        with self._slow_lock:
            self.slow_games[game_id] = None
            self.slow_games.move_to_end(game_id)
            while len(self.slow_games) > SLOW_GAMES_KEPT:
                self.slow_games.popitem(last=False)
