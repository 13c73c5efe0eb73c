"""The web layer: pages and fragments for people, JSON for scripts. `create_app` only wires the parts.

    deps.py     the player, the service and the templates routes depend on
    pages.py    the page, its forms and HTMX fragments
    api.py      the JSON API
    schemas.py  the API's request and response shapes
    errors.py   one table from exceptions to answers
    render.py   the page's blocks; view.py how cells and the status line look
    guard.py    headers, the cross-site check, the body limit, strict JSON, server timing
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.middleware.sessions import SessionMiddleware

from app.config import Settings
from app.service import Deals, GameService
from app.store import Store, StoreUnavailable, open_store
from app.web import api, errors, pages
from app.web.deps import STATIC
from app.web.guard import Guard, StrictJSON

EXPIRY_SWEEP_SECONDS = 3600
EXPIRY_RETRY_SECONDS = 60
log = logging.getLogger("kaboom")


def create_app(
    settings: Settings | None = None,
    store: Store | None = None,
    deals: Deals | None = None,
    clock: Callable[[], float] | None = None,
) -> FastAPI:
    """The app. Tests hand in a seeded `deals` and a `clock`; a server takes the defaults."""
    settings = settings or Settings()
    clock = clock or time.time
    from_settings = store is None
    store = store or open_store(settings, clock)
    service = GameService(store, settings, deals, clock, slow_lane=settings.slow_lane and from_settings)

    async def expire_idle_games() -> None:
        # Every worker sweeps; a sweep that finds nothing costs one indexed query.
        while True:
            try:
                await service.expire_idle()
                wait = EXPIRY_SWEEP_SECONDS
            except StoreUnavailable as error:
                # The store comes back by itself; so does the sweep, sooner than usual.
                log.warning("idle games not swept: %s", error)
                wait = EXPIRY_RETRY_SECONDS
            await asyncio.sleep(wait)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        sweeper = asyncio.create_task(expire_idle_games())
        yield
        sweeper.cancel()
        service.close()

    app = FastAPI(
        title="Kaboom",
        summary="Cruel-but-fair Minesweeper: a SAT solver decides what the player could have known.",
        lifespan=lifespan,
        # FastAPI's pages load Swagger UI and ReDoc from a CDN and start them with inline scripts:
        # pages.py serves /docs from the vendored copy in static/ instead, and ReDoc not at all.
        docs_url=None,
        redoc_url=None,
    )
    app.state.service = service
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.signing_key(),
        session_cookie="kaboom",
        max_age=400 * 24 * 3600,
        same_site="lax",
        https_only=settings.secure_cookies,
    )
    # The last one added is the outermost: Guard sees every request first and every answer last.
    app.add_middleware(StrictJSON)
    app.add_middleware(Guard, max_body_bytes=settings.max_body_bytes)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    errors.install(app)
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(api.records_router)
    return app
