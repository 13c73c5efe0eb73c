"""The slow lane: a process of its own, at a lower priority, for the games whose work is slow.

Threads of one worker share its GIL, so a thread busy on a slow position
takes its share of the worker's processor from every cheap click beside it
(bench/load.py --slow 8, one slow thread per worker: the other players' p95
went from 45 ms to 310 ms). A process has a GIL of its own, and at a lower
priority the operating system gives the web workers the processor first.

The lane runs the service's operations, by name (app.service.runner), on a service of its own that the factory
it is handed builds (app.service.lane_service), over the same SQLite file or Redis, with its own analyzer cache
(a slow game keeps going to the lane, so the cache stays warm there). The randomness and the
time of a move come from the worker, so seeded tests deal the same either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from app.core.config import Settings
from app.host.allocator import limit_arenas

log = logging.getLogger("kaboom")
# Slow work yields the processor to the web workers: at nice 10 the scheduler
# gives it about a tenth of a contended core, all of an idle one.
NICENESS = 10
# After the lane failed, slow games play in a thread this long before it is started again.
RETRY_SECONDS = 60

_service: Any = None  # the lane process's service


def _start(settings: Settings, parent_pid: int, factory: Callable[[Settings], Any]) -> None:
    from app.host.server import stop_with_parent

    limit_arenas()
    # Set already by the worker that started it, unless it could not.
    os.setpriority(os.PRIO_PROCESS, 0, max(NICENESS, os.getpriority(os.PRIO_PROCESS, 0)))
    stop_with_parent(parent_pid)
    global _service
    _service = factory(settings)


def _ready() -> int:
    return os.getpid()


def _run(operation: str, game_id: str, args: tuple) -> tuple[Any, float]:
    started = time.thread_time()  # as Runner.leased measures
    result = _service.runner.leased(operation, game_id, *args)
    outcome = getattr(result, "outcome", None)
    if outcome is not None:
        # The analyzer stays in the lane's cache; the worker needs none.
        outcome.analyzer = None
    return result, time.thread_time() - started


class Lane:
    """One lane process per worker, started with the worker (start), or by the first slow game after a failure.

    Until its process has loaded, slow games play in the worker's slow thread: loading Python, the app and the
    solver there takes about half a second of processor time (more on a busy machine), and a request that waited
    for it went past its deadline by as much (1.0 s against a 0.5 s deadline, on fresh servers)."""

    def __init__(self, settings: Settings, factory: Callable[[Settings], Any]):
        """`factory`: builds, in the lane's process, the service whose runner plays the operations (a function of a
        module, as it crosses to the process by name)."""
        self.settings = settings
        self.factory = factory
        self._pool: ProcessPoolExecutor | None = None
        self._closed_until = 0.0
        self._started: Future | None = None
        self._running = 0  # operations sent to the process and not answered yet (on the event loop's thread)

    def start(self) -> None:
        """Start the process in the background; run() uses it once it has loaded."""
        try:
            pool = self._executor()
            self._started = pool.submit(_ready)
        except Exception:
            log.exception("the slow lane cannot start; slow games play in a thread for %d s", RETRY_SECONDS)
            self._fail()
            return
        # At the lower priority from its start, not once loaded: its loading then takes no processor time
        # the worker's requests need (bench/hammer.py --fresh 4 --cheap-first, a busy 2-core machine: a
        # fresh server's first slow request took 0.7-1.0 s against a 0.5 s deadline, then 0.6-0.8 s).
        for pid in list(pool._processes):
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, pid, NICENESS)

    def ready(self, timeout: float | None = None) -> bool:
        """Whether the process started by start() has loaded, waiting at most `timeout` seconds for it."""
        if self._started is None:
            return False
        try:
            self._started.result(timeout)
        except Exception:
            return False
        return True

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: a worker has threads, and a forked copy of their locks can hang.
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=get_context("spawn"),
                initializer=_start,
                initargs=(self.settings, os.getpid(), self.factory),
            )
        return self._pool

    async def run(self, operation: str, game_id: str, args: tuple) -> tuple[Any, float] | None:
        """The operation's result and the processor time it took in the lane; None when the lane cannot take
        it (run it here).

        What the operation raises (a refusal, a conflict, a damaged game) comes back as raised."""
        if time.monotonic() < self._closed_until:
            return None
        if self._started is None:
            self.start()
            return None
        if not self._started.done():
            return None
        try:
            future = self._executor().submit(_run, operation, game_id, args)
        except Exception:
            # No process could be started (spawn refused, no resources): slow games play in a thread meanwhile.
            log.exception("the slow lane cannot start; slow games play in a thread for %d s", RETRY_SECONDS)
            self._fail()
            return None
        self._running += 1
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            log.warning("the slow lane stopped; slow games play in a thread for %d s", RETRY_SECONDS)
            self._fail()
            return None
        finally:
            self._running -= 1

    def _fail(self) -> None:
        self.close(wait=False)
        self._closed_until = time.monotonic() + RETRY_SECONDS

    def close(self, wait: bool = True) -> None:
        """Stop the lane process. Waiting (at most one operation, which its deadline bounds) lets the pool
        release its queues' semaphores; a stop without it leaves them to multiprocessing's tracker, which
        warns of leaked semaphores on every shutdown. A process with no operation in it is ended at once: at
        its lower priority on a busy machine, one still loading kept a stopping server up 8 s, and one at
        rest took 2.7 s to wind down."""
        if self._pool is not None:
            if not self._running:
                for process in list(self._pool._processes.values()):
                    with contextlib.suppress(OSError):
                        process.terminate()
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None
        self._started = None
