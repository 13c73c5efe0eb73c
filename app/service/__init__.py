"""Game operations for every front end: the pages, the JSON API, the bot and the computer seat.

One operation = load, apply the mode's rules, save; the service adds what
makes that safe and quick with many requests at once:
- a turn lock per game in this process, and the store's lease across
  processes; a write that finds the game moved on (Conflict) is worked out
  again on the new state, so moves apply one after the other (runner.py);
- solver work in a few threads, never on the event loop, and slow games in the
  slow lane the host hands in (app/host/lane.py);
- a cache of live analyzers, so a click costs only its change (context.py);
- the deal's randomness and the clock, both injectable: tests deal seeded boards
  and move time instead of sleeping.
Nothing here knows about HTTP.

The service is composed of parts over one context, each a group of operations: games (games.py), aids (aids.py),
seats (seats.py), reviews (reviews.py), rooms (rooms.py), the boards of the day (daily.py), a player as a whole
(players.py), the devices they play from (devices.py) and what the host does to keep the server civil
(moderation.py). A part registers its
operations with the runner and its listeners with the hooks (hooks.py): what happens when a game ends — its result,
a room's place, a ladder's entry, the share key, the grade — is a list a feature adds to, not code in the move.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from app.core.config import Settings
from app.service.aids import AidOperations
from app.service.context import Context, Deals
from app.service.daily import DailyOperations
from app.service.devices import DeviceOperations
from app.service.games import GameOperations
from app.service.kept import KEPT
from app.service.moderation import ModerationOperations
from app.service.players import PlayerOperations
from app.service.reviews import ReviewOperations
from app.service.rooms import RoomOperations
from app.service.seats import SeatOperations
from app.store import Store, open_store

__all__ = ["Deals", "GameService", "lane_service"]


class GameService:
    """The service's parts, built over one context in the order their listeners run (a game's result is kept
    before a ladder's entry, a grade before the share key). `lane`: where slow operations run in a process of
    their own (the host's slow lane), or None for a thread of this one."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        deals: Deals | None = None,
        clock: Callable[[], float] = time.time,
        lane: Any = None,
    ):
        self.context = context = Context(store, settings, deals or Deals(), clock, lane)
        self.store, self.settings, self.clock, self.runner = store, settings, clock, context.runner
        self.games = GameOperations(context)
        self.aids = AidOperations(context)
        self.seats = SeatOperations(context)
        self.reviews = ReviewOperations(context)
        self.rooms = RoomOperations(context, self.seats)
        self.daily = DailyOperations(context)
        self.players = PlayerOperations(context)
        self.devices = DeviceOperations(context)
        self.moderation = ModerationOperations(context, self.daily)
        for part in (self.games, self.aids, self.seats, self.reviews, self.rooms, self.daily):
            context.runner.register(part)

    def start(self) -> None:
        """Start the slow lane's process now, in the background (the server is starting): the first slow request
        would otherwise wait out Python and the solver loading in it, beyond its deadline."""
        if self.runner.lane is not None:
            self.runner.lane.start()

    def stop_live(self) -> None:
        """The server is stopping: live streams and the computer's turns end now."""
        self.seats.stop()

    def held(self) -> str:
        """What this worker holds in memory that grows with use, each against its bound, in words for the log."""
        megabytes = self.settings.cache_megabytes
        seats = self.seats
        return (
            f"held in this worker: analyzers {self.context.analyzers.bytes_held / 2**20:.1f} of {megabytes} MB, "
            f"undo histories {self.store.history_bytes / 2**20:.1f} of {megabytes / 4:g} MB, "
            f"live streams {seats.streams.open} (waiting {seats.changes.watched}), "
            f"computer turns {len(seats.computers)}, "
            f"games known slow {len(self.runner.slow_games)}, presence marks {self.context.presence_marks}"
            + (f", {self.store.held()}" if self.store.held() else "")
        )

    def close(self) -> None:
        self.stop_live()
        if self.runner.lane is not None:
            self.runner.lane.close()
        self.store.close()


def lane_service(settings: Settings) -> GameService:
    """The service a slow lane's process runs operations on: the same store the settings name, no lane of its own."""
    return GameService(open_store(settings, KEPT), settings)
