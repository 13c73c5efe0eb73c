"""What every part of the service shares: the store, the settings, where operations run, the cache of live
analyzers, the deal's randomness, the clock, and the hooks through which a feature takes part in every game's
life without being named by the games' code (app/service/hooks.py)."""

from __future__ import annotations

import functools
import hashlib
import hmac
import random
import secrets
import threading
from collections.abc import Callable
from typing import Any

import anyio
from cachetools import LRUCache, TTLCache

from app.core.config import Settings
from app.core.game import Game
from app.service.hooks import Hooks
from app.service.runner import SOLVER_THREADS, Runner, SlowGame
from app.store import Store
from solver import Analyzer, Limits

# A game no thread here has analysed is sent to the slow lane before its first
# analysis when this many covered cells touch its numbers. Measured with a
# fresh Analyzer classifying (2-core machine): games played to the end stay
# under 2,100 such cells and 75 ms on boards up to 100x100; numbers scattered
# at random over 100x100 give 3,900 (140 ms) to 6,500 (0.9 s).
SLOW_FRONTIER_CELLS = 3000
# A live page marks its seat present for this long, and renews the mark well before it runs out.
PRESENCE_SECONDS = 15.0
PRESENCE_RENEW_SECONDS = 5.0
# Seats whose marks a worker remembers renewing (a few bytes each): far more than the live pages it may hold.
PRESENCE_KEPT = 65536


class AnalyzerCache:
    """Live analyzers of recently played games, so a click costs only its change.

    Bounded by the memory the analyzers hold (a 100x100 game's grows to about
    5 MiB, an Expert game's to a few hundred KiB), least recently used first out.
    An entry is valid for one version of one game; anything else (undo, a
    move from another process) gets a fresh Analyzer from the position.
    """

    def __init__(self, max_bytes: int):
        self._entries: LRUCache[str, tuple[int, Analyzer]] = LRUCache(
            max_bytes, getsizeof=lambda entry: entry[1].footprint()
        )
        # Different games are worked on in different threads at once.
        self._lock = threading.Lock()

    @property
    def bytes_held(self) -> int:
        return int(self._entries.currsize)

    def take(self, game_id: str, game: Game) -> Analyzer | None:
        """The cached analyzer of this version of the game, taken out of the cache (moves change it); None if none."""
        with self._lock:
            entry = self._entries.pop(game_id, None)
        if entry is not None and entry[0] == game.version:
            return entry[1]
        return None

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._entries.pop(game_id, None)

    def put(self, game_id: str, game: Game, analyzer: Analyzer | None) -> None:
        if analyzer is None or game.status != "playing":
            # A finished game needs no analyzer until an undo, which builds a fresh one;
            # keeping it would only hold memory that live games could use.
            self.drop(game_id)
            return
        entry = (game.version, analyzer)
        with self._lock:
            try:
                self._entries[game_id] = entry
            except ValueError:
                # Larger than the whole cache: rebuilt from the position when next needed.
                self._entries.pop(game_id, None)


class Deals:
    """Where the randomness of layouts comes from: a fresh generator per move.

    Layouts decide games, so no one may predict them: in production every
    generator is seeded with 128 bits from the OS (drawing every number from
    the OS cost a fifth of the server's time under load). A seeded source
    makes every deal of a test repeatable.
    """

    def __init__(self, seed: int | None = None):
        self._source: random.Random = secrets.SystemRandom() if seed is None else random.Random(seed)
        self._lock = threading.Lock()

    def reseed(self, seed: int) -> None:
        with self._lock:
            self._source = random.Random(seed)

    def next(self) -> random.Random:
        with self._lock:
            return random.Random(self._source.getrandbits(128))


class Context:
    """The parts' shared means. `lane`: where slow operations run in a process of their own (the host's slow lane,
    app/host/lane.py), or None for a thread of this process."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        deals: Deals,
        clock: Callable[[], float],
        lane: Any = None,
    ):
        self.store = store
        self.settings = settings
        self.deals = deals
        self.clock = clock
        self.analyzers = AnalyzerCache(settings.cache_megabytes * 2**20)
        self.runner = Runner(store, lane, forget=self.analyzers.drop)
        self.hooks = Hooks()
        # Live pages ask often and quickly: their store reads never wait behind game work.
        self.live_limiter = anyio.CapacityLimiter(SOLVER_THREADS)
        # The seats this worker marked present lately: (game or room id, seat) -> True, by the clock.
        self._marked: TTLCache[tuple[str, int], bool] = TTLCache(PRESENCE_KEPT, ttl=PRESENCE_RENEW_SECONDS, timer=clock)
        self._presence_lock = threading.Lock()

    @functools.cached_property
    def board_secret(self) -> bytes:
        """The key a board id's layout is derived with: the server's, so that an id shows nothing of its layout
        and every host sharing the key deals the same board for it."""
        return hmac.new(self.settings.signing_key().encode(), b"kaboom board ids", hashlib.sha256).digest()

    def limits(self) -> Limits:
        """What one request may spend on the solver, from the moment its work starts."""
        return Limits.starting_now(self.settings.solver_seconds, self.settings.solver_work)

    async def offload(self, work: Callable[..., Any], *args: Any, limiter: anyio.CapacityLimiter | None = None) -> Any:
        """Run blocking work (the store, the solver) in one of the few game threads."""
        return await self.runner.offload(work, *args, limiter=limiter)

    def forget(self, game_id: str) -> None:
        """The game's cached analysis can no longer be trusted (its seats or position changed beside a move)."""
        self.analyzers.drop(game_id)

    def analyzer(self, game_id: str, game: Game) -> Analyzer:
        """The game's live analyzer: the cached one, else a fresh one, unless a cheap thread would build a slow one."""
        analyzer = self.analyzers.take(game_id, game)
        if analyzer is not None:
            return analyzer
        if (
            self.runner.on_cheap_thread()
            and len(game.cells) >= SLOW_FRONTIER_CELLS
            and game.board.frontier_size(game.cells) >= SLOW_FRONTIER_CELLS
        ):
            raise SlowGame(game_id)
        return Analyzer(game.position())

    def mark_present(self, key: str, seat: int) -> None:
        """Renew a seat's mark, at most once every PRESENCE_RENEW_SECONDS from this worker: a page's stream
        and its poll both ask, and with hundreds of live pages these writes were much of a worker's work."""
        with self._presence_lock:
            if (key, seat) in self._marked:
                return
        self.store.mark_present(key, seat, self.clock() + PRESENCE_SECONDS)
        with self._presence_lock:
            self._marked[(key, seat)] = True

    @property
    def presence_marks(self) -> int:
        return len(self._marked)
