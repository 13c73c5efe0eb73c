"""The web layer: pages and fragments for people, JSON for scripts. `create_app` only wires the parts.

routes/     the routes, one module per feature (their order: routes.ROUTERS)
views/      what a page or a fragment shows
schemas/    the API's request and answer shapes
faces/      how a mode looks beyond the generic board
deps.py     the player, the service and the templates routes depend on
errors.py   one table from exceptions to answers
render.py   the page's blocks: the whole page, the panel, a move's changes
guard.py    headers, the cross-site check, the body limit, strict JSON, server timing, each client's turns
i18n.py     the request's language, the catalogs (locales/), the words, numbers and dates in it

The web layer imports nothing of app.host.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.sessions import SessionMiddleware

from app.core.config import Settings
from app.service import Deals, GameService
from app.service.kept import KEPT
from app.store import Store, StoreUnavailable, open_store
from app.web import errors
from app.web.deps import STATIC, templates
from app.web.faces import FaceFiles
from app.web.guard import ClientTurns, Guard, StrictJSON
from app.web.i18n import Catalogs, LanguageMiddleware
from app.web.routes import ROUTERS

EXPIRY_SWEEP_SECONDS = 3600
EXPIRY_RETRY_SECONDS = 60
HELD_REPORT_SECONDS = 600
# Smaller answers go as they are: a one-cell move's (about 1 KB) would lose some 500 bytes, which
# saves no round trip (TCP's first flight alone carries about 14 KB). Pages, rows, whole grids, the
# static files and a big board's JSON are above this.
COMPRESS_MIN_BYTES = 2048
# zlib's level 5 is the knee for a 100x100 page (930 KB, some 17 ms of CPU to render): 53 KB for
# 3.5 ms of CPU, where level 1 gives 65 KB for 1.7 ms and level 6 52 KB for 5.3 ms; levels 8 and 9
# (Starlette's default) take 38 ms and come out larger (zlib 1.2.13, the image's). Bodies over
# 128 KB are compressed in a thread, off the event loop (zlib lets go of the GIL).
COMPRESS_LEVEL = 5
log = logging.getLogger("kaboom")


def end_live_streams_on_stop(service: GameService) -> None:
    """End the live streams as soon as the server is told to stop.

    uvicorn lets open answers finish before it tells the app (lifespan) that it
    stops, and a live stream never finishes by itself: one open page of a game
    with seats kept a stopping server serving, and its computer playing, until uvicorn's own
    time ran out. So the stopping signal is heard here too, beside uvicorn's
    handler (installed before the app starts, and put back after it stops). Not
    in a server whose event loop runs outside the main thread (tests): it
    installs no signal handler, and stops by being told so."""
    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        uvicorns = signal.getsignal(number)
        if not callable(uvicorns):
            continue

        def stopping(received: int, frame: Any, uvicorns: Callable[[int, Any], Any] = uvicorns) -> None:
            # A signal handler runs between two steps of the event loop's thread, perhaps inside a lock
            # stop_live takes: it only asks the loop to run it next.
            loop.call_soon_threadsafe(service.stop_live)
            uvicorns(received, frame)

        signal.signal(number, stopping)


def create_app(
    settings: Settings | None = None,
    store: Store | None = None,
    deals: Deals | None = None,
    clock: Callable[[], float] | None = None,
    lane: Any = None,
    reports: Sequence[Callable[[], str]] = (),
) -> FastAPI:
    """The app. Tests hand in a seeded `deals` and a `clock`; a server takes the defaults. The process host hands in
    what is its own: the worker's slow lane (`lane`), and what else its report of what it holds says (`reports`)."""
    settings = settings or Settings()
    clock = clock or time.time
    # Compiled now, as the worker starts: compiled at the first page instead, they took some 0.3 s of the
    # first player's request (bench/hammer.py --fresh).
    for name in templates.env.list_templates(extensions=["html"]):
        templates.env.get_template(name)
    store = store or open_store(settings, KEPT, clock)
    service = GameService(store, settings, deals, clock, lane)

    async def expire_idle_games() -> None:
        # Every worker sweeps; a sweep that finds nothing costs one indexed query.
        while True:
            try:
                await service.games.expire_idle()
                wait = EXPIRY_SWEEP_SECONDS
            except StoreUnavailable as error:
                # The store comes back by itself; so does the sweep, sooner than usual.
                log.warning("idle games not swept: %s", error)
                wait = EXPIRY_RETRY_SECONDS
            await asyncio.sleep(wait)

    async def report_what_is_held() -> None:
        # What this worker keeps in memory, now and then: a self-hoster (and bench/load.py's soak) can tell
        # a cache filling up to its bound from memory that grows for no reason.
        while True:
            await asyncio.sleep(HELD_REPORT_SECONDS)
            log.info("%s", ", ".join([service.held(), *(report() for report in reports)]))

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        tasks = [asyncio.create_task(expire_idle_games()), asyncio.create_task(report_what_is_held())]
        service.start()
        end_live_streams_on_stop(service)
        yield
        for task in tasks:
            task.cancel()
        service.close()

    app = FastAPI(
        title="Kaboom",
        summary="Cruel-but-fair Minesweeper: a SAT solver decides what the player could have known.",
        lifespan=lifespan,
        # FastAPI's pages load Swagger UI and ReDoc from a CDN and start them with inline scripts:
        # routes/site.py serves /docs from the vendored copy in static/ instead, and ReDoc not at all.
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
    # The last one added is the outermost. Compression wraps Guard: Guard's headers are on every answer,
    # compressed or not, and Server-Timing measures the app alone, not the compression that follows.
    # The event stream (text/event-stream) is never compressed nor held back: GZipMiddleware passes it
    # through as it comes (its default exclusions).
    app.add_middleware(StrictJSON)
    # A client waits for its own turns, not everyone's: as many may wait as it may hold connections.
    app.add_middleware(ClientTurns, per_client=settings.requests_per_client, waiting=settings.connections_per_client)
    app.add_middleware(Guard, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(GZipMiddleware, minimum_size=COMPRESS_MIN_BYTES, compresslevel=COMPRESS_LEVEL)
    # Outermost: every answer, a guard's refusal too, is in the request's language.
    app.add_middleware(LanguageMiddleware, catalogs=Catalogs(settings.languages))
    app.mount("/static", FaceFiles(directory=STATIC), name="static")
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    return app
