"""What a worker process serves: the web layer's app over a service whose slow games run in the worker's own slow
lane, and whose report of what it holds names the C heap too. uvicorn builds it by name in each worker."""

from __future__ import annotations

from fastapi import FastAPI

from app.core.config import Settings
from app.host import allocator
from app.host.lane import Lane
from app.service import lane_service
from app.service.kept import KEPT
from app.store import Store, open_store
from app.web import create_app


def worker_app(settings: Settings | None = None, store: Store | None = None) -> FastAPI:
    settings = settings or Settings()
    store = store or open_store(settings, KEPT)
    # The lane opens the store from the settings, so only a store the settings name, and other processes share,
    # can have one.
    lane = Lane(settings, lane_service) if settings.slow_lane and store.shared_by_processes else None
    return create_app(settings, store=store, lane=lane, reports=[allocator.described])
