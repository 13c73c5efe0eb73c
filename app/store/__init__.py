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


def open_store(settings: Settings, clock: Clock = time.time) -> Store:
    """The store the settings name, its history cache sized by them; one that cannot be opened raises
    ConfigurationError."""
    store = _open(settings, clock)
    store.bound_history_cache(settings.cache_megabytes * 2**20 // 4)
    return store


def _open(settings: Settings, clock: Clock) -> Store:
    if settings.store:
        from app.store.redis import RedisStore

        return RedisStore(
            settings.store, clock=clock, lease_seconds=settings.lease_seconds, socket_seconds=settings.redis_timeout
        )
    try:
        settings.database.parent.mkdir(parents=True, exist_ok=True)
        return SQLiteStore(settings.database, clock=clock)
    except (OSError, sqlite3.Error, StoreUnavailable) as error:
        raise ConfigurationError(f"cannot open the database {settings.database}: {error}") from None


__all__ = [
    "Changes",
    "Clock",
    "Conflict",
    "Corrupt",
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
