"""Live updates: one follower of the store's changes per worker, fanned out to every live stream it serves.

A live page's stream waits for its game's stored version to move. Waiting in
the store once per stream cost a thread each and, on Redis, a connection each
(a pub/sub subscription): about 100 streams exhausted a host's connection pool,
and 300 on one worker pushed other pages' updates past two seconds. Here one
thread per worker follows the store (Redis pub/sub on one connection, or one
query over every watched game's version on SQLite) and wakes the streams of the
games whose version moved; a waiting stream costs an asyncio future.

The follower compares versions rather than trusting messages alone: a stream
registers the version its page shows, the thread looks at a newly watched
game once at once (a change just before the stream registered is not lost),
and after the store was out of reach it looks at every watched game again.

The number of streams is capped per client address and per worker (StreamSlots):
past either cap a stream is refused with a message, and the page falls back to
its poll, so one client cannot crowd out everyone's updates.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from app.core.errors import KaboomError
from app.core.languages import lazy_gettext
from app.store import Store, StoreUnavailable

log = logging.getLogger("kaboom")

# How long the follower sleeps after the store could not be read before it looks again.
RETRY_SECONDS = 1.0
# With nothing watched, the thread waits this long between looks at whether something is (a new stream
# wakes it at once).
IDLE_SECONDS = 30.0


@dataclass
class Waiter:
    version: int  # the version the page shows: the stream wakes once the stored one differs
    future: asyncio.Future[bool]
    loop: asyncio.AbstractEventLoop

    def wake(self, changed: bool) -> None:
        self.loop.call_soon_threadsafe(self._settle, changed)

    def _settle(self, changed: bool) -> None:
        if not self.future.done():
            self.future.set_result(changed)


class ChangeFeed:
    """Streams wait here for their game to change; one thread per worker watches the store for all of them."""

    def __init__(self, store: Store):
        self._store = store
        self._lock = threading.Lock()
        self._waiters: dict[str, list[Waiter]] = {}
        self._fresh: set[str] = set()  # games watched since the thread last looked: looked at once
        self._wake = threading.Event()
        self._stopped = False
        self._thread: threading.Thread | None = None

    @property
    def closed(self) -> bool:
        return self._stopped

    @property
    def watched(self) -> int:
        """How many streams wait now (for the figures of bench/live.py and the tests)."""
        with self._lock:
            return sum(len(waiters) for waiters in self._waiters.values())

    async def wait(self, game_id: str, version: int, timeout: float) -> bool:
        """Whether the game's stored version moved from `version` within `timeout` seconds; False at once
        when the feed is closed (the server is stopping)."""
        return await self.wait_any({game_id: version}, timeout)

    async def wait_any(self, versions: dict[str, int], timeout: float) -> bool:
        """Whether any of the games' (or rooms') stored versions moved from the one given within `timeout`
        seconds: a room's page follows the room and each of its games."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        waiters = {game_id: Waiter(version, future, loop) for game_id, version in versions.items()}
        with self._lock:
            if self._stopped:
                return False
            for game_id, waiter in waiters.items():
                self._waiters.setdefault(game_id, []).append(waiter)
                self._fresh.add(game_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._follow, name="change feed", daemon=True)
                self._thread.start()
        self._wake.set()
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return False
        finally:
            with self._lock:
                for game_id, waiter in waiters.items():
                    waiting = self._waiters.get(game_id, [])
                    if waiter in waiting:
                        waiting.remove(waiter)
                    if not waiting:
                        self._waiters.pop(game_id, None)

    def close(self) -> None:
        """Wake every waiting stream (with False) and stop the thread; later waits answer False at once."""
        with self._lock:
            self._stopped = True
            waiters = [waiter for waiting in self._waiters.values() for waiter in waiting]
        for waiter in waiters:
            waiter.wake(False)
        # The thread sees it at its next look (a fraction of a second) and lets go of the store; nobody
        # waits for that, least of all the event loop of a stopping server.
        self._wake.set()

    def _follow(self) -> None:
        changes = None
        while True:
            with self._lock:
                if self._stopped:
                    break
                watched = set(self._waiters)
                fresh, self._fresh = self._fresh, set()
            if not watched:
                self._wake.wait(IDLE_SECONDS)
                self._wake.clear()
                continue
            try:
                if changes is None:
                    changes = self._store.changes()
                    fresh = watched  # anything may have moved while nobody followed the store
                moved = changes.next()
                # None: the store cannot say which games changed, so every watched one is looked at.
                look = watched if moved is None else (moved & watched) | fresh
                if look:
                    self._settle(self._store.stored_versions(sorted(look)))
            except StoreUnavailable as error:
                log.warning("live updates wait for the store: %s", error)
                if changes is not None:
                    changes.close()
                    changes = None
                self._wake.wait(RETRY_SECONDS)
                self._wake.clear()
            except Exception:
                # The thread must not die: streams would wait out their time and pages fall back to the poll.
                log.exception("the change feed failed; it starts again")
                if changes is not None:
                    changes.close()
                    changes = None
                self._wake.wait(RETRY_SECONDS)
                self._wake.clear()
        if changes is not None:
            changes.close()

    def _settle(self, versions: dict[str, int | None]) -> None:
        with self._lock:
            woken = [
                waiter
                for game_id, stored in versions.items()
                for waiter in self._waiters.get(game_id, ())
                if stored != waiter.version
            ]
        for waiter in woken:
            waiter.wake(True)


class TooManyStreams(KaboomError):
    """A live stream past its client's cap (429). The page's poll still updates it."""


class StreamsFull(TooManyStreams):
    """A live stream past the worker's cap (503): everyone else's updates stay quick."""


class StreamSlots:
    """Live streams open in this worker, per client address, within their caps. Used from the event loop only."""

    def __init__(self, per_client: int, total: int):
        self.per_client = per_client
        self.total = total
        self.open = 0
        self._per_client: Counter[str] = Counter()

    @contextmanager
    def slot(self, client: str) -> Iterator[None]:
        if self._per_client[client] >= self.per_client:
            raise TooManyStreams(
                lazy_gettext(
                    "Too many live pages from your address: at most %(limit)s at once. Close some; "
                    "this one still updates every few seconds.",
                    limit=self.per_client,
                )
            )
        if self.open >= self.total:
            raise StreamsFull(
                lazy_gettext(
                    "This server follows as many live pages as it can (%(limit)s); "
                    "this one updates every few seconds instead.",
                    limit=self.total,
                )
            )
        self._per_client[client] += 1
        self.open += 1
        try:
            yield
        finally:
            self.open -= 1
            self._per_client[client] -= 1
            if not self._per_client[client]:
                del self._per_client[client]
