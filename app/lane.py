"""The slow lane: a process of its own, at a lower priority, for the games whose work is slow.

Threads of one worker share its GIL, so a thread busy on a slow position
takes its share of the worker's processor from every cheap click beside it
(bench/load.py --slow 8, one slow thread per worker: the other players' p95
went from 45 ms to 310 ms). A process has a GIL of its own, and at a lower
priority the operating system gives the web workers the processor first.

The lane runs the service's own operations on its own GameService, over the
same SQLite file or Redis, with its own analyzer cache (a slow game keeps
going to the lane, so the cache stays warm there). The randomness and the
time of a move come from the worker, so seeded tests deal the same either way.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from app.config import Settings

log = logging.getLogger("kaboom")
# Slow work yields the processor to the web workers: at nice 10 the scheduler
# gives it about a tenth of a contended core, all of an idle one.
NICENESS = 10
# After the lane failed, slow games play in a thread this long before it is started again.
RETRY_SECONDS = 60

_service: Any = None  # the lane process's GameService


def _start(settings: Settings, parent_pid: int) -> None:
    from app.server import stop_with_parent
    from app.service import GameService
    from app.store import open_store

    os.nice(NICENESS)
    stop_with_parent(parent_pid)
    global _service
    _service = GameService(open_store(settings), settings)


def _run(operation: str, game_id: str, args: tuple) -> tuple[Any, float]:
    started = time.thread_time()  # as GameService._leased measures
    result = _service._leased(game_id, getattr(_service, operation), *args)
    outcome = getattr(result, "outcome", None)
    if outcome is not None:
        # The analyzer stays in the lane's cache; the worker needs none.
        outcome.analyzer = None
    return result, time.thread_time() - started


class Lane:
    """One lane process per worker, started when a game first turns out slow."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._pool: ProcessPoolExecutor | None = None
        self._closed_until = 0.0

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: a worker has threads, and a forked copy of their locks can hang.
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=get_context("spawn"), initializer=_start, initargs=(self.settings, os.getpid())
            )
        return self._pool

    async def run(self, operation: str, game_id: str, args: tuple) -> tuple[Any, float] | None:
        """The operation's result and the processor time it took in the lane; None when the lane cannot take it (run it here).

        What the operation raises (a refusal, a conflict, a damaged game) comes back as raised."""
        if time.monotonic() < self._closed_until:
            return None
        try:
            future = self._executor().submit(_run, operation, game_id, args)
        except Exception:
            # No process could be started (spawn refused, no resources): slow games play in a thread meanwhile.
            log.exception("the slow lane cannot start; slow games play in a thread for %d s", RETRY_SECONDS)
            self._fail()
            return None
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            log.warning("the slow lane stopped; slow games play in a thread for %d s", RETRY_SECONDS)
            self._fail()
            return None

    def _fail(self) -> None:
        self.close(wait=False)
        self._closed_until = time.monotonic() + RETRY_SECONDS

    def close(self, wait: bool = True) -> None:
        """Stop the lane process. Waiting (at most one operation, which its deadline bounds) lets the pool
        release its queues' semaphores; a stop without it leaves them to multiprocessing's tracker, which
        warns of leaked semaphores on every shutdown."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None
