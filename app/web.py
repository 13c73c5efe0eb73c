"""The web layer: pages and fragments for people, JSON for scripts; a request becomes a move.

Routes parse a request, load the game under its lock, apply the move off the
event loop (the solver may take a while), save, and render one template block
(HTMX) or the whole page. The game rules live in app.game, the look in app.view.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import anyio.to_thread
from fastapi import Depends, FastAPI, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2_fragments.fastapi import Jinja2Blocks
from pydantic import BaseModel, ConfigDict, Field
from starlette.middleware.sessions import SessionMiddleware

from app import game as rules
from app.config import ConfigurationError, Settings
from app.guard import Guard
from app.game import Game, Move, Options, Refused
from app.store import Conflict, Corrupt, NotFound, SQLiteStore, Store
from app.view import Look, changed_cells, panel
from solver import Analyzer, Budget, OutOfTime

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"
PAGE = "game.html"
# Past this many changed cells a response sends rows, past this many rows the whole grid:
# htmx fires an event per earlier swap on every out-of-band swap (N^2/2 events in all).
OOB_CELLS = 40
OOB_ROWS = 30
SOLVER_THREADS = 4
# A move that keeps meeting writes from other processes gives up after this many tries.
WRITE_ATTEMPTS = 8


class AnalyzerCache:
    """Live analyzers of recently played games, so a click costs only its change.

    An entry is valid for one version of one game; anything else (undo, a
    move from another process) gets a fresh Analyzer from the position.
    """

    def __init__(self, size: int = 64):
        self.size = size
        self._entries: OrderedDict[str, tuple[int, Analyzer]] = OrderedDict()
        # Different games are worked on in different threads at once.
        self._lock = threading.Lock()

    def get(self, game_id: str, game: Game) -> Analyzer:
        """The cached analyzer, taken out of the cache (moves change it), or a fresh one."""
        with self._lock:
            entry = self._entries.pop(game_id, None)
        if entry is not None and entry[0] == game.moves:
            return entry[1]
        return Analyzer(game.position())

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._entries.pop(game_id, None)

    def put(self, game_id: str, game: Game, analyzer: Analyzer | None) -> None:
        if analyzer is None or game.status != "playing":
            # A finished game needs no analyzer until an undo, which builds a fresh one;
            # keeping it would only hold memory that live games could use.
            self.drop(game_id)
            return
        with self._lock:
            self._entries[game_id] = (game.moves, analyzer)
            self._entries.move_to_end(game_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)


@dataclass
class MoveResult:
    before: Game
    after: Game
    outcome: rules.Outcome
    statuses_before: dict | None
    statuses_after: dict | None


class Games:
    """Every game operation, for pages and API alike: one lock per game, solver work in a thread."""

    def __init__(self, store: Store, settings: Settings):
        self.store = store
        self.settings = settings
        self.analyzers = AnalyzerCache()
        # Game work is CPU-bound Python: more threads than cores only fight over
        # the GIL, and a thread holding SQLite's write lock then waits its turn
        # while the others run (measured: a convoy that halves throughput).
        self.limiter = anyio.CapacityLimiter(SOLVER_THREADS)

    def forget(self, game_id: str) -> None:
        self.analyzers.drop(game_id)

    def budget(self) -> Budget:
        return Budget(seconds=self.settings.solver_seconds)

    async def create(self, owner: str, game: Game) -> str:
        return await self.offload(self.store.create, owner, game, self.settings.games_per_player)

    async def load(self, game_id: str, owner: str) -> Game:
        return await self.offload(self.store.load, game_id, owner)

    async def offload(self, work, *args):
        """Run blocking work (the store, the solver) in one of the few game threads."""
        return await anyio.to_thread.run_sync(work, *args, limiter=self.limiter)

    async def _locked(self, game_id: str, work, *args):
        """Run `work` in a thread while holding the game's lock in this process.

        Other processes (workers, hosts) are kept apart by the store's version
        check instead: a write that finds the game moved on is thrown away and
        the whole operation runs again on the new state, so every move is
        applied to the game as it is, one after the other.
        """
        async with self.store.locks.hold(game_id):
            for attempt in range(WRITE_ATTEMPTS):
                try:
                    return await self.offload(self._held, game_id, work, *args)
                except Conflict:
                    self.analyzers.drop(game_id)
                    if attempt == WRITE_ATTEMPTS - 1:
                        raise
                    # Processes that collided should not collide again in step.
                    await asyncio.sleep(random.uniform(0, 0.005 * 2**attempt))

    def _held(self, game_id: str, work, *args):
        with self.store.hold(game_id):
            return work(game_id, *args)

    def _statuses(self, analyzer: Analyzer, game: Game) -> dict | None:
        """Every covered cell's status for the debug overlay; None when off, over, or out of time."""
        if not game.options.debug_overlay or game.status != "playing":
            return None
        try:
            with analyzer.time_limit(self.settings.solver_seconds):
                return analyzer.classify()
        except OutOfTime:
            return None

    async def look(self, game_id: str, owner: str) -> tuple[Game, dict | None]:
        """The game and, when its overlay is on, every covered cell's status."""
        return await self._locked(game_id, self._look, owner)

    def _look(self, game_id: str, owner: str) -> tuple[Game, dict | None]:
        game = self.store.load(game_id, owner)
        analyzer = self.analyzers.get(game_id, game)
        statuses = self._statuses(analyzer, game)
        self.analyzers.put(game_id, game, analyzer)
        return game, statuses

    async def move(self, game_id: str, owner: str, move: Move) -> MoveResult:
        return await self._locked(game_id, self._move, owner, move)

    def _move(self, game_id: str, owner: str, move: Move) -> MoveResult:
        before = self.store.load(game_id, owner)
        analyzer = self.analyzers.get(game_id, before)
        statuses_before = self._statuses(analyzer, before)
        try:
            after, outcome = rules.apply_move(
                before, move, rng=unpredictable_rng(), now=time.time(), analyzer=analyzer, budget=self.budget()
            )
        except Refused:
            # A refused move changed nothing, not even the analyzer.
            self.analyzers.put(game_id, before, analyzer)
            raise
        self.store.save(game_id, owner, after, before.moves)
        fresh = outcome.analyzer or Analyzer(after.position())
        self.analyzers.put(game_id, after, fresh)
        return MoveResult(before, after, outcome, statuses_before, self._statuses(fresh, after))

    async def set_options(self, game_id: str, owner: str, changes: dict[str, bool]) -> Game:
        return await self._locked(game_id, self._set_options, owner, changes)

    def _set_options(self, game_id: str, owner: str, changes: dict[str, bool]) -> Game:
        before = self.store.load(game_id, owner)
        after = rules.set_options(before, changes)
        self.store.save(game_id, owner, after, before.moves)
        return after

    async def hint(self, game_id: str, owner: str) -> tuple[Game, rules.Hint]:
        return await self._locked(game_id, self._hint, owner)

    def _hint(self, game_id: str, owner: str) -> tuple[Game, rules.Hint]:
        before = self.store.load(game_id, owner)
        analyzer = self.analyzers.get(game_id, before)
        try:
            with analyzer.time_limit(self.settings.solver_seconds):
                advice = rules.hint(before, analyzer)
        except (OutOfTime, Refused) as error:
            # What was proven so far stays useful for the next request.
            self.analyzers.put(game_id, before, analyzer)
            if isinstance(error, OutOfTime):
                raise TooComplex from None
            raise
        after = rules.count_hint(before)
        self.store.save(game_id, owner, after, before.moves)
        self.analyzers.put(game_id, after, analyzer)
        return after, advice

    async def analysis(self, game_id: str, owner: str) -> list[str]:
        return await self._locked(game_id, self._analysis, owner)

    def _analysis(self, game_id: str, owner: str) -> list[str]:
        game = self.store.load(game_id, owner)
        analyzer = self.analyzers.get(game_id, game)
        try:
            with analyzer.time_limit(self.settings.solver_seconds):
                return analyzer.status_rows()
        except OutOfTime:
            raise TooComplex from None
        finally:
            self.analyzers.put(game_id, game, analyzer)


def unpredictable_rng() -> random.Random:
    """A generator for one move's layouts, seeded with 128 bits from the OS.

    Layouts decide games, so no one may predict them; drawing every number
    from the OS (SystemRandom) cost a fifth of the server's time under load,
    and a fresh seed per move is as unpredictable.
    """
    return random.Random(secrets.randbits(128))


class TooComplex(Exception):
    """The solver could not finish within the time a request may take."""

    message = "The position is too complex to analyse within the server's time limit; play on and ask again."


# ----- JSON shapes ------------------------------------------------------------


class NewGameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    width: int = Field(ge=2, le=rules.MAX_SIDE)
    height: int = Field(ge=2, le=rules.MAX_SIDE)
    mines: int = Field(ge=1)
    mode: Literal["cruel"] = "cruel"
    allow_outside: bool = False
    undo: bool = True


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["reveal", "flag", "chord", "undo"]
    x: int | None = None
    y: int | None = None
    mark: Literal["flag", "question", "none"] | None = Field(None, description='for "flag": set this mark instead of cycling flag, ?, none')


class OptionsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    allow_outside: bool | None = None
    debug_overlay: bool | None = None
    safe_mode: bool | None = None
    countdown: bool | None = None
    undo: bool | None = None


class GameOut(BaseModel):
    id: str
    mode: str
    width: int
    height: int
    mines: int
    status: Literal["playing", "won", "lost"]
    board: list[str] = Field(description="H rows: '.' covered, 'F' flagged, '0'-'8' revealed; after the end '*' marks the mines of the dealt layout")
    exploded: list[int] | None = Field(description="[x, y] of the mine that ended the game")
    forced_guesses: int
    hints: int
    flags: int
    elapsed: float
    moves: int
    can_undo: bool
    options: dict[str, bool]


class AnalysisOut(BaseModel):
    status: list[str] = Field(description="H rows as printed by kaboom analyze: s safe, m mine, ? unknown for covered cells")


class HintOut(BaseModel):
    kind: Literal["safe", "guess", "outside", "wrong_flag", "start"]
    message: str
    cell: list[int] | None
    proof: list[list[int]]
    uses_count: bool


class ErrorOut(BaseModel):
    # A sentence for refusals; FastAPI's list of field errors when the JSON itself is malformed.
    detail: str | list[dict[str, Any]]


def game_out(game_id: str, game: Game) -> GameOut:
    return GameOut(
        id=game_id,
        mode=game.mode,
        width=game.width,
        height=game.height,
        mines=game.mines,
        status=game.status,
        board=game.board_rows(),
        exploded=list(game.cell(game.exploded)) if game.exploded is not None else None,
        forced_guesses=game.forced_guesses,
        hints=game.hints,
        flags=game.flags(),
        elapsed=game.elapsed(time.time()),
        moves=game.moves,
        can_undo=game.options.undo and bool(game.history),
        options={name: getattr(game.options, name) for name in Options.NAMES},
    )


ERRORS = {
    403: {"model": ErrorOut, "description": "a cross-site request from a browser"},
    404: {"model": ErrorOut, "description": "no such game for this player"},
    409: {"model": ErrorOut, "description": "the rules refuse the move, or another request changed the game at the same moment; nothing changed"},
    413: {"model": ErrorOut, "description": "the request body is too large"},
    422: {"model": ErrorOut, "description": "not a valid request: malformed JSON, or a move that makes no sense on this board"},
    500: {"model": ErrorOut, "description": "the stored game is damaged (other games are unaffected)"},
    503: {"model": ErrorOut, "description": "the position is too complex to analyse within the time limit"},
}


# ----- the app ----------------------------------------------------------------


def player(request: Request) -> str:
    """The player's opaque id, from the signed cookie (made on the first visit)."""
    player_id = request.session.get("player")
    if not isinstance(player_id, str):
        player_id = secrets.token_urlsafe(16)
        request.session["player"] = player_id
    return player_id


Player = Annotated[str, Depends(player)]


def open_store(settings: Settings) -> Store:
    """The store the settings name; a store that cannot be opened raises ConfigurationError."""
    if settings.store:
        from app.redis_store import RedisStore

        return RedisStore(settings.store)
    try:
        settings.database.parent.mkdir(parents=True, exist_ok=True)
        return SQLiteStore(settings.database)
    except (OSError, sqlite3.Error) as error:
        raise ConfigurationError(f"cannot open the database {settings.database}: {error}") from None


def create_app(settings: Settings | None = None, store: Store | None = None) -> FastAPI:
    settings = settings or Settings()
    store = store or open_store(settings)
    signing_key = settings.signing_key()
    games = Games(store, settings)

    async def expire_idle_games() -> None:
        # Every worker sweeps; a sweep that finds nothing costs one indexed query.
        while True:
            idle_before = time.time() - settings.idle_days * 86400
            await games.offload(store.expire, idle_before)
            await asyncio.sleep(3600)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        sweeper = asyncio.create_task(expire_idle_games())
        yield
        sweeper.cancel()
        store.close()

    app = FastAPI(
        title="Kaboom",
        summary="Cruel-but-fair Minesweeper: a SAT solver decides what the player could have known.",
        lifespan=lifespan,
    )
    app.state.games = games
    app.add_middleware(
        SessionMiddleware,
        secret_key=signing_key,
        session_cookie="kaboom",
        max_age=400 * 24 * 3600,
        same_site="lax",
        https_only=settings.secure_cookies,
    )
    app.add_middleware(Guard, max_body_bytes=settings.max_body_bytes)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    templates = Jinja2Blocks(directory=TEMPLATES)

    @app.exception_handler(NotFound)
    async def not_found(request: Request, error: NotFound) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": "no such game"}, status_code=404)
        return templates.TemplateResponse(request, PAGE, page_context(None, message="No such game."), status_code=404)

    @app.exception_handler(Conflict)
    async def conflict(request: Request, error: Conflict) -> Response:
        games.forget(str(error))
        message = "This game changed through another request at the same moment; nothing was applied. Try again."
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": message}, status_code=409)
        # The page shows a game that has moved on: htmx reloads it.
        return HTMLResponse(message, status_code=409, headers={"HX-Refresh": "true"})

    @app.exception_handler(TooComplex)
    async def too_complex(request: Request, error: TooComplex) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": TooComplex.message}, status_code=503)
        game_id = request.path_params.get("game_id")
        game, statuses = await games.look(game_id, player(request))
        context = page_context(game_id, game, statuses, message=TooComplex.message, oob=True)
        # 409 so that htmx shows it in the status panel (it swaps 409 and 422 only).
        return templates.TemplateResponse(request, PAGE, context, status_code=409, block_names=["panel"])

    async def may_create(request: Request) -> bool:
        client = request.client.host if request.client else "unknown"
        return await games.offload(store.allow, f"create:{client}", settings.create_limit, settings.create_window)

    too_many = f"Too many new games from your address: at most {settings.create_limit} every {settings.create_window:g} seconds. Wait a little."

    @app.exception_handler(Corrupt)
    async def corrupt(request: Request, error: Corrupt) -> Response:
        message = "This game's stored data is damaged and cannot be played; other games are fine."
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": message}, status_code=500)
        return templates.TemplateResponse(request, PAGE, page_context(None, message=message), status_code=500)

    def page_context(game_id: str | None, game: Game | None = None, statuses: dict | None = None, **extra) -> dict:
        context = {"game_id": game_id, "game": game, "presets": rules.PRESETS, "max_side": rules.MAX_SIDE}
        if game is not None:
            context.update(look=Look(game, statuses), panel=panel(game, time.time()))
        context.update(extra)
        return context

    def is_htmx(request: Request) -> bool:
        return request.headers.get("HX-Request") == "true"

    # ----- pages -----------------------------------------------------------

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict:
        return {"status": "ok"}

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request, owner: Player) -> Response:
        latest = await games.offload(store.latest, owner)
        if latest is not None:
            return RedirectResponse(f"/games/{latest}", status_code=303)
        return templates.TemplateResponse(request, PAGE, page_context(None))

    @app.post("/games", response_class=HTMLResponse, include_in_schema=False)
    async def new_game_form(
        request: Request,
        owner: Player,
        preset: Annotated[str, Form()] = "custom",
        width: Annotated[str, Form()] = "",
        height: Annotated[str, Form()] = "",
        mines: Annotated[str, Form()] = "",
        unit: Annotated[str, Form()] = "count",
        allow_outside: Annotated[str | None, Form()] = None,
        undo: Annotated[str | None, Form()] = None,
    ) -> Response:
        try:
            if preset in rules.PRESETS:
                size = rules.PRESETS[preset]
            elif preset == "custom":
                size = rules.board_size(
                    _whole(width, "width"),
                    _whole(height, "height"),
                    mines=_whole(mines, "mines") if unit == "count" else None,
                    percent=_decimal(mines, "mine percentage") if unit == "percent" else None,
                )
            else:
                raise rules.Invalid(f"unknown preset {preset!r}")
        except Refused as error:
            context = page_context(None, message=error.message, form={"width": width, "height": height, "mines": mines, "unit": unit})
            return templates.TemplateResponse(request, PAGE, context, status_code=422)
        if not await may_create(request):
            return templates.TemplateResponse(request, PAGE, page_context(None, message=too_many), status_code=429)
        options = Options(allow_outside=allow_outside is not None, undo=undo is not None)
        game_id = await games.create(owner, Game.new(*size, options=options))
        return RedirectResponse(f"/games/{game_id}", status_code=303)

    @app.get("/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def game_page(request: Request, game_id: str, owner: Player) -> Response:
        game, statuses = await games.look(game_id, owner)
        return templates.TemplateResponse(request, PAGE, page_context(game_id, game, statuses))

    @app.post("/games/{game_id}/moves", response_class=HTMLResponse, include_in_schema=False)
    async def move_form(
        request: Request,
        game_id: str,
        owner: Player,
        action: Annotated[str, Form()],
        x: Annotated[str, Form()] = "",
        y: Annotated[str, Form()] = "",
        version: Annotated[str, Form()] = "",
    ) -> Response:
        if not is_htmx(request):
            return RedirectResponse(f"/games/{game_id}", status_code=303)
        try:
            move = Move(action, _whole(x, "x") if x else None, _whole(y, "y") if y else None)
            result = await games.move(game_id, owner, move)
        except Refused as error:
            game, statuses = await games.look(game_id, owner)
            context = page_context(game_id, game, statuses, message=error.message, oob=True)
            return templates.TemplateResponse(request, PAGE, context, status_code=error.status, block_names=["panel"])
        before, after = Look(result.before, result.statuses_before), Look(result.after, result.statuses_after)
        whole_board = version != str(result.before.moves)
        context = page_context(game_id, result.after, result.statuses_after, message=result.outcome.message, oob=True)
        if whole_board:
            # The page shows an older board than the one moved on: send all of it.
            return templates.TemplateResponse(request, PAGE, context, block_names=["panel", "grid"])
        changes = changed_cells(before, after, result.outcome.changed)
        if len(changes) <= OOB_CELLS:
            context.update(changes=changes, changed_rows=[])
            return templates.TemplateResponse(request, PAGE, context, block_names=["panel", "changes"])
        # htmx settles out-of-band swaps in quadratic time: a big change goes as whole rows.
        rows = sorted({int(cell_id.rsplit("-", 1)[1]) for cell_id, _ in changes})
        if len(rows) > OOB_ROWS:
            return templates.TemplateResponse(request, PAGE, context, block_names=["panel", "grid"])
        context.update(changes=[], changed_rows=[(y, after.row(y)) for y in rows])
        return templates.TemplateResponse(request, PAGE, context, block_names=["panel", "changes"])

    @app.post("/games/{game_id}/options", response_class=HTMLResponse, include_in_schema=False)
    async def options_form(request: Request, game_id: str, owner: Player) -> Response:
        form = await request.form()
        changes = {name: form.get(name) == "on" for name in Options.NAMES}
        await games.set_options(game_id, owner, changes)
        if not is_htmx(request):
            return RedirectResponse(f"/games/{game_id}", status_code=303)
        game, statuses = await games.look(game_id, owner)
        context = page_context(game_id, game, statuses, oob=True)
        return templates.TemplateResponse(request, PAGE, context, block_names=["panel", "grid"])

    @app.post("/games/{game_id}/hint", response_class=HTMLResponse, include_in_schema=False)
    async def hint_form(request: Request, game_id: str, owner: Player, show: Annotated[str, Form()] = "") -> Response:
        try:
            game, advice = await games.hint(game_id, owner)
        except Refused as error:
            game, statuses = await games.look(game_id, owner)
            context = page_context(game_id, game, statuses, message=error.message, oob=True)
            return templates.TemplateResponse(request, PAGE, context, status_code=error.status, block_names=["panel"])
        if not is_htmx(request):
            return RedirectResponse(f"/games/{game_id}", status_code=303)
        game, statuses = await games.look(game_id, owner)
        context = page_context(game_id, game, statuses, hint=advice, show_hint=show == "yes", oob=True)
        return templates.TemplateResponse(request, PAGE, context, block_names=["panel"])

    # ----- JSON API ------------------------------------------------------------

    @app.post(
        "/api/games",
        status_code=201,
        response_model=GameOut,
        responses={**ERRORS, 429: {"model": ErrorOut, "description": "too many new games from this address"}},
        tags=["games"],
    )
    async def api_new_game(request: Request, body: NewGameIn, owner: Player) -> GameOut:
        """Start a game; the player cookie that comes back owns it."""
        if not await may_create(request):
            raise HTTPException(429, too_many)
        try:
            game = Game.new(body.width, body.height, body.mines, Options(allow_outside=body.allow_outside, undo=body.undo))
        except Refused as error:
            raise HTTPException(error.status, error.message) from None
        game_id = await games.create(owner, game)
        return game_out(game_id, game)

    @app.get("/api/games/{game_id}", response_model=GameOut, responses=ERRORS, tags=["games"])
    async def api_game(game_id: str, owner: Player) -> GameOut:
        return game_out(game_id, await games.load(game_id, owner))

    @app.post(
        "/api/games/{game_id}/moves",
        response_model=GameOut,
        responses=ERRORS,
        tags=["games"],
    )
    async def api_move(game_id: str, body: MoveIn, owner: Player) -> GameOut:
        """Reveal, flag (cycles flag, ?, none unless `mark` is given), chord or undo. x and y count from 0."""
        try:
            result = await games.move(game_id, owner, Move(body.action, body.x, body.y, body.mark))
        except Refused as error:
            raise HTTPException(error.status, error.message) from None
        return game_out(game_id, result.after)

    @app.patch("/api/games/{game_id}/options", response_model=GameOut, responses=ERRORS, tags=["games"])
    async def api_options(game_id: str, body: OptionsIn, owner: Player) -> GameOut:
        """Change settings: allow guessing anywhere, debug overlay, safe mode, countdown, undo."""
        changes = {name: value for name, value in body.model_dump().items() if value is not None}
        return game_out(game_id, await games.set_options(game_id, owner, changes))

    @app.get("/api/games/{game_id}/analysis", response_model=AnalysisOut, responses=ERRORS, tags=["games"])
    async def api_analysis(game_id: str, owner: Player) -> AnalysisOut:
        """What the player could know: every covered cell proven safe, a mine, or unknown."""
        return AnalysisOut(status=await games.analysis(game_id, owner))

    @app.post(
        "/api/games/{game_id}/hint",
        response_model=HintOut,
        responses=ERRORS,
        tags=["games"],
    )
    async def api_hint(game_id: str, owner: Player) -> HintOut:
        """A hint: the situation, and a proven-safe cell with the revealed numbers that prove it."""
        try:
            _, advice = await games.hint(game_id, owner)
        except Refused as error:
            raise HTTPException(error.status, error.message) from None
        return HintOut(
            kind=advice.kind,
            message=advice.message,
            cell=list(advice.cell) if advice.cell else None,
            proof=[list(cell) for cell in advice.proof],
            uses_count=advice.uses_count,
        )

    return app


def _whole(text: str, name: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise rules.Invalid(f"{name} must be a whole number, not {text!r}") from None


def _decimal(text: str, name: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise rules.Invalid(f"{name} must be a number, not {text!r}") from None
