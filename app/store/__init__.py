"""Where games live between requests: one contract (base.py), three stores."""

from __future__ import annotations

import sqlite3
import time

from app.core.config import ConfigurationError, Settings
from app.store.base import (
    Changes,
    Clock,
    Conflict,
    Corrupt,
    Holdings,
    Kept,
    LadderPage,
    LadderRow,
    Listing,
    NotFound,
    Store,
    StoreUnavailable,
    new_game_id,
)
from app.store.memory import MemoryStore
from app.store.sqlite import SQLiteStore


def open_store(settings: Settings, kept: Kept, clock: Clock = time.time) -> Store:
    """The store the settings name, reading and writing what it keeps as `kept` says, its history cache sized by
    the settings; one that cannot be opened raises ConfigurationError."""
    store = _open(settings, kept, clock)
    store.bound_history_cache(settings.cache_megabytes * 2**20 // 4)
    return store


def _open(settings: Settings, kept: Kept, clock: Clock) -> Store:
    if settings.store:
        from app.store.redis import RedisStore

        return RedisStore(
            settings.store,
            clock=clock,
            lease_seconds=settings.lease_seconds,
            socket_seconds=settings.redis_timeout,
            kept=kept,
        )
    try:
        settings.database.parent.mkdir(parents=True, exist_ok=True)
        return SQLiteStore(settings.database, clock=clock, kept=kept)
    except (OSError, sqlite3.Error, StoreUnavailable) as error:
        raise ConfigurationError(f"cannot open the database {settings.database}: {error}") from None


__all__ = [
    "Changes",
    "Clock",
    "Conflict",
    "Corrupt",
    "Holdings",
    "Kept",
    "LadderPage",
    "LadderRow",
    "Listing",
    "MemoryStore",
    "NotFound",
    "SQLiteStore",
    "Store",
    "StoreUnavailable",
    "new_game_id",
    "open_store",
]
