"""Where a move's server time goes: the processor time of one move, stage by stage, JSON and HTML, Expert and 100x100.

The production stack in one process: `app.host.server.serve` (uvicorn with Kaboom's protocol, limits and access
log, one worker, no slow lane) in a thread on a fresh SQLite file, and a seeded, solver-guided player in the main
thread playing cruel games through `POST /api/games/{id}/moves` (JSON) and `POST /games/{id}/moves` (HTMX).

A move's server time is the process's processor time while the move's request is open less the player's own
(its thread), so it counts every thread of the server: the event loop, the thread the move runs in, the change
feed. Each stage is a set of the app's functions, wrapped for the run; a stage's time is the processor time of
its functions less that of the stages they call, so the stages add up; `uvicorn and the framework` is what is
left (the HTTP protocol, routing, the event loop, thread hops). A stage called from the event loop while an await
of its own lets another task run would count that task too: the player sends one request at a time, so only the
server's own background tasks can, and they are rare. The wrappers cost a little themselves, counted in the
stage that calls them: compare two runs of this benchmark, not its totals with bench/load.py's.

    .venv/bin/python bench/move_profile.py
    .venv/bin/python bench/move_profile.py --sizes 30x16/99 --games 20 --routes json
"""

from __future__ import annotations

import argparse
import collections
import functools
import inspect
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from web import free_port, numbers_shown  # noqa: E402

from solver import Analyzer, Position  # noqa: E402
from solver.strategy import progress_cell  # noqa: E402

SIZES = {"30x16/99": (30, 16, 99, 12), "100x100/2000": (100, 100, 2000, 2)}
FRAMEWORK = "uvicorn and the framework"


def stages() -> dict[str, list[tuple[Any, str]]]:
    """Each stage's functions, as (owner, attribute name) to wrap: in the order a move meets them."""
    import json

    import itsdangerous
    import starlette.middleware.gzip
    import starlette.middleware.sessions
    import starlette.responses
    import starlette.routing
    from fastapi.dependencies import utils as fastapi_dependencies
    from jinja2 import Template
    from uvicorn.protocols.http import httptools_impl

    from app import modes
    from app.core.game import Game
    from app.service import changes, hooks, overlays, runner
    from app.store.sqlite import SQLiteStore
    from app.web import guard, render
    from app.web.schemas import games as game_schemas
    from app.web.views import game as game_views
    from app.web.views import game_page
    from solver import analysis

    analyzer_methods = [
        (analysis.Analyzer, name)
        for name, member in vars(analysis.Analyzer).items()
        if inspect.isfunction(member) and (not name.startswith("__") or name == "__init__")
    ]
    return {
        "guards (body, turns, strict JSON)": [
            (guard.Guard, "__call__"),
            (guard.ClientTurns, "__call__"),
            (guard.StrictJSON, "__call__"),
        ],
        "session cookie": [
            (starlette.middleware.sessions.SessionMiddleware, "__call__"),
            (itsdangerous.TimestampSigner, "unsign"),
            (itsdangerous.Signer, "sign"),
        ],
        # Below the middleware: the endpoint itself and the framework around it (a middleware's own time is
        # then its own alone).
        "routing and the endpoint (FastAPI)": [(starlette.routing.Router, "__call__")],
        "parameters and validation": [(fastapi_dependencies, "solve_dependencies")],
        "the service: turn, lease, thread hop": [(runner.Runner, "run"), (runner.Runner, "leased")],
        "load (read and decode)": [(SQLiteStore, "load")],
        "apply the move": [(modes, "apply_move")],
        "analysis (verdicts, overlays)": [
            *analyzer_methods,
            (overlays, "overlay"),
            (overlays, "overlay_shown"),
            (overlays, "loss_review"),
        ],
        "the player's view of the game": [(Game, "seen_by")],
        "save (encode, write, undo record)": [(SQLiteStore, "save")],
        "what a game's end sets off": [
            (hooks.Hooks, name) for name in ("game_ending", "game_ended", "game_acted", "game_seen")
        ],
        "the change feed (live pages)": [(changes.ChangeFeed, "_settle"), (SQLiteStore, "stored_versions")],
        "the JSON answer": [(game_schemas, "game_out"), (starlette.responses.JSONResponse, "render")],
        "the HTML answer (context)": [
            (game_page, "company"),
            (render, "page_context"),
            (game_views, "changed_cells"),
            (game_views, "cell_html"),
        ],
        "the HTML answer (templates)": [(Template, "render"), (Template, "generate"), (render, "blocks")],
        "JSON parsing": [(json, "loads")],
        "compression": [(starlette.middleware.gzip.GZipResponder, "_compress_body")],
        "writing the answer (uvicorn)": [(httptools_impl.RequestResponseCycle, "send")],
    }


class Stages:
    """Exclusive processor time per stage, counted only while `open` (a measured request is in flight)."""

    def __init__(self) -> None:
        self.open = False
        self.spent: collections.Counter[str] = collections.Counter()
        self.local = threading.local()

    def _frames(self) -> list[list]:
        if not hasattr(self.local, "frames"):
            self.local.frames = []
        return self.local.frames

    def _enter(self, stage: str) -> list | None:
        frames = self._frames()
        if frames and frames[-1][0] == stage:
            return None  # a stage's function calling another of the same stage: counted once, by the outer
        frame = [stage, time.thread_time(), 0.0]
        frames.append(frame)
        return frame

    def _leave(self, frame: list | None) -> None:
        if frame is None:
            return
        frames = self._frames()
        frames.pop()
        spent = time.thread_time() - frame[1]
        if self.open:
            self.spent[frame[0]] += spent - frame[2]
        if frames:
            frames[-1][2] += spent

    def wrap(self, stage: str, function: Callable) -> Callable:
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def timed_async(*args, **kwargs):
                frame = self._enter(stage)
                try:
                    return await function(*args, **kwargs)
                finally:
                    self._leave(frame)

            return timed_async

        @functools.wraps(function)
        def timed(*args, **kwargs):
            frame = self._enter(stage)
            try:
                return function(*args, **kwargs)
            finally:
                self._leave(frame)

        return timed

    def install(self) -> None:
        """Wraps each stage's functions where they are defined and wherever a module imported them by name."""
        import app.host.worker  # noqa: F401 (the whole app, imported now, so that every name is there to replace)
        import app.web.routes  # noqa: F401

        places = stages()
        modules = [module for name, module in sys.modules.items() if name.split(".")[0] in ("app", "solver")]
        for stage, functions in places.items():
            for owner, name in functions:
                function = inspect.getattr_static(owner, name)
                if isinstance(function, staticmethod | classmethod):
                    raise SystemExit(f"bench/move_profile.py: {owner.__name__}.{name} is not a plain function")
                timed = self.wrap(stage, function)
                setattr(owner, name, timed)
                for module in modules:
                    for attribute, value in list(vars(module).items()):
                        if value is function:
                            setattr(module, attribute, timed)


class Meter:
    """The server's processor time of each measured request, with the stages counting while it is open."""

    def __init__(self, stages: Stages) -> None:
        self.stages = stages
        self.per_move: list[float] = []

    def measure(self, send: Callable[..., httpx.Response], *args: Any, **kwargs: Any) -> httpx.Response:
        client_before, process_before = time.thread_time(), time.process_time()
        self.stages.open = True
        try:
            return send(*args, **kwargs)
        finally:
            self.stages.open = False
            self.per_move.append((time.process_time() - process_before) - (time.thread_time() - client_before))


def start_server(data: str) -> str:
    """The production server (`kaboom serve`'s, one worker) in a daemon thread; its URL once it answers."""
    port = free_port()
    os.environ.update(
        KABOOM_DATABASE=f"{data}/bench.sqlite3",
        KABOOM_PORT=str(port),
        KABOOM_HOST="127.0.0.1",
        KABOOM_WORKERS="1",
        KABOOM_SLOW_LANE="false",
        KABOOM_SECRET_KEY="a-benchmark-secret-long-enough",
        # The player starts more games from one address than a person would.
        KABOOM_CREATE_LIMIT="1000000",
    )
    from app.core.config import Settings
    from app.host.server import listening_socket, serve

    settings = Settings()
    listener = listening_socket(settings)
    threading.Thread(target=serve, args=(settings, listener), daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                return url
        except httpx.TransportError:
            time.sleep(0.05)
    raise SystemExit("bench/move_profile.py: the server did not answer /healthz within 60 s")


def play(client: httpx.Client, route: str, size: tuple[int, int, int], rng: random.Random, measure: Callable) -> None:
    """One cruel game to its end, each move sent through `measure(send, *args)`; the board is read back unmeasured."""
    width, height, mines = size
    game = client.post("/api/games", json={"width": width, "height": height, "mines": mines, "mode": "cruel"}).json()
    game_id, board = game["id"], game["board"]
    analyzer = Analyzer(Position.empty(width, height, mines))
    while game["status"] == "playing":
        x, y = progress_cell(analyzer, rng)
        if route == "json":
            response = measure(client.post, f"/api/games/{game_id}/moves", json={"action": "reveal", "x": x, "y": y})
        else:
            form = {"action": "reveal", "x": str(x), "y": str(y), "version": str(game["moves"])}
            response = measure(client.post, f"/games/{game_id}/moves", data=form, headers={"HX-Request": "true"})
        response.raise_for_status()
        game = response.json() if route == "json" else client.get(f"/api/games/{game_id}").json()
        changed = numbers_shown(board, game["board"])
        board = game["board"]
        if game["status"] == "playing":
            analyzer.reveal(changed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(SIZES), help=f"of {', '.join(SIZES)}")
    parser.add_argument("--games", type=int, help="games per size and route (default: 12 at Expert, 2 at 100x100)")
    parser.add_argument("--routes", default="json,html", help="json, html (HTMX fragments), or both")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes, routes = args.sizes.split(","), args.routes.split(",")
    for name in sizes:
        if name not in SIZES:
            parser.error(f"--sizes: {name!r} is not one of {', '.join(SIZES)}")
    for route in routes:
        if route not in ("json", "html"):
            parser.error(f"--routes: {route!r} is neither json nor html")
    console = Console(file=sys.__stdout__)
    counted = Stages()
    counted.install()
    with tempfile.TemporaryDirectory() as data:
        # uvicorn's log goes where the server's would (it is written all the same): here, nowhere to read.
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the process's own, for its whole life)
        url = start_server(data)
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        console.print(f"load {os.getloadavg()[0]:.2f} at the start")
        for name in sizes:
            width, height, mines, games = SIZES[name]
            for route in routes:
                counted.spent.clear()
                meter = Meter(counted)
                rng = random.Random(args.seed)
                with httpx.Client(base_url=url, timeout=120) as client:
                    for _ in range(args.games or games):
                        play(client, route, (width, height, mines), rng, meter.measure)
                show(console, f"{name}, {route}: {len(meter.per_move)} moves", meter.per_move, counted.spent)


def show(console: Console, title: str, per_move: list[float], spent: collections.Counter[str]) -> None:
    total = sum(per_move)
    moves = len(per_move)
    ordered = sorted(per_move)
    p95 = ordered[min(moves - 1, int(0.95 * moves))]
    table = Table(
        title=f"{title}: server CPU per move {1000 * total / moves:.2f} ms mean, "
        f"{1000 * statistics.median(ordered):.2f} median, {1000 * p95:.2f} p95"
    )
    table.add_column("stage")
    table.add_column("ms per move", justify="right")
    table.add_column("share", justify="right")
    rest = total - sum(spent.values())
    for stage, seconds in [*spent.most_common(), (FRAMEWORK, rest)]:
        table.add_row(stage, f"{1000 * seconds / moves:.3f}", f"{100 * seconds / total:.0f} %")
    console.print(table)


if __name__ == "__main__":
    main()
