"""Ceiling benchmark: Kaboom's moves per second beside a bare FastAPI app's requests per second, side by side.

The bare app (`bare_app` below, a factory) has one route, `POST /api/games/{game_id}/moves`, that validates a
pydantic body shaped as Kaboom's move (MoveIn: action, x, y, mark; strict, no other field) and answers a
5-field JSON object; nothing is stored, no cookie is set. It is served by `kaboom serve`'s own code with only
the app swapped: this script runs app.cli's `serve` command (settings, store check, listening socket,
app.host.server.serve) in a process of its own with KaboomConfig's app `app.host.worker:worker_app` replaced by
`bench.ceiling:bare_app`, so uvicorn runs with every other setting Kaboom's has (app factory, Kaboom's
httptools protocol with its limits, the loop, the access log, the workers, proxy headers, keep-alive and stop
timeouts, log configuration). Those settings, as the bare server built them, are printed under the table; a
product that no longer names its app by an import string with factory=True stops the run with a message.

Both run as bench/load.py runs Kaboom (its start_server, run_load and run_configuration: a free loopback port,
a fresh SQLite file, the same environment, CPU from psutil over the server's process tree) with --workers
workers and --players clients on load.py's own HTTP/1.1 Client: one keep-alive connection each, no think time,
a warm-up, then the measured time. First the bare app, its clients posting load.py's move body (a reveal of a
random cell) to a game id of their own without a pause; right after it Kaboom, load.py's players on Expert
30x16/99 cruel games (solver-guided: a proven-safe cell, else a forced guess). One table: requests (moves) per
second, milliseconds per request (round trip; Server-Timing where the server sends it), errors, server CPU in
cores and per request, this load generator's CPU, what other processes took while measuring, and the load
average when measuring began; then Kaboom's rate as a share of the bare app's, with the issue's goal: at least
0.25 of the ceiling with 2 workers on SQLite.

The load generator shares the machine with the servers, and Kaboom's players spend more of it than the bare
app's clients (they run the solver): its CPU is in the table, and so is every other process's.

Run by hand:

    .venv/bin/python bench/ceiling.py
    .venv/bin/python bench/ceiling.py --seconds 20 --warmup 5 --players 50 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal
from unittest import mock

import psutil
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import (  # noqa: E402
    ERROR_PAUSE,
    HEIGHT,
    MINES,
    WIDTH,
    Player,
    Result,
    build_parser,
    errors_text,
    latencies,
    move,
    run_configuration,
)

BARE_APP = "bench.ceiling:bare_app"
TARGET_SHARE = 0.25  # Kaboom's moves/s over the bare app's requests/s, 2 workers, SQLite
TARGET_WORKERS = 2
# What the bare server's uvicorn Config is shown by, under the table.
SHOWN_SETTINGS = (
    "app",
    "factory",
    "loop",
    "http",
    "ws",
    "interface",
    "lifespan",
    "workers",
    "access_log",
    "log_level",
    "proxy_headers",
    "forwarded_allow_ips",
    "limit_concurrency",
    "limit_max_requests",
    "backlog",
    "timeout_keep_alive",
    "timeout_graceful_shutdown",
    "read_timeout",
    "connections_per_client",
    "server_header",
    "date_header",
)


# ----- the bare app -----------------------------------------------------------------


class MoveIn(BaseModel):
    """Kaboom's move body (app/web/schemas/games.py's move_model: strict, no other field) without the notes of its
    schema; that module is not imported, since it imports the whole app."""

    model_config = ConfigDict(extra="forbid", strict=True)

    action: str
    x: int | None = None
    y: int | None = None
    mark: Literal["flag", "question", "none"] | None = None


def bare_app() -> FastAPI:
    """The ceiling: FastAPI with one route shaped as Kaboom's move, answering a 5-field JSON object.

    /healthz, declared after it, is only for load.py's wait_until_up: the router tries its routes in order and
    stops at the first that matches, so it costs a move nothing."""
    app = FastAPI()

    @app.post("/api/games/{game_id}/moves")
    async def move_route(game_id: str, body: MoveIn) -> JSONResponse:
        # A JSONResponse, as Kaboom's move route answers: no response model, no encoding pass.
        return JSONResponse({"id": game_id, "action": body.action, "x": body.x, "y": body.y, "status": "playing"})

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return app


def described(value: Any) -> Any:
    """A Config setting as JSON: classes and functions by their dotted names."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [described(item) for item in value]
    name = getattr(value, "__qualname__", None)
    return f"{value.__module__}.{name}" if name else repr(value)


def serve_bare(record: Path) -> int:
    """`kaboom serve` with the bare app: app.cli's serve command as it runs, KaboomConfig's app swapped for
    BARE_APP and nothing else; the settings uvicorn got are written to `record` (JSON)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from app.cli import main as kaboom
    from app.host import server

    product_init = server.KaboomConfig.__init__

    def swapped(config: server.KaboomConfig, app: Any, **options: Any) -> None:
        if not isinstance(app, str) or options.get("factory") is not True:
            raise SystemExit(
                f"bench/ceiling.py: kaboom serve no longer hands uvicorn an app factory by import string "
                f"(app={app!r}, factory={options.get('factory')!r}); the bare app cannot be swapped in"
            )
        product_init(config, BARE_APP, **options)
        settings = {name: described(getattr(config, name, None)) for name in SHOWN_SETTINGS}
        loop = config.get_loop_factory()
        settings["loop"] = f"{settings['loop']} → {described(loop) if loop is not None else 'none'}"
        settings["httptools"] = isinstance(config.http, type) and issubclass(config.http, HttpToolsProtocol)
        record.write_text(json.dumps({"product_app": app, "passed": sorted(options), "settings": settings}))

    with mock.patch.object(server.KaboomConfig, "__init__", swapped):
        return kaboom(["serve"])


# ----- its clients ------------------------------------------------------------------


class BarePlayer(Player):
    """A client of the bare app: load.py's Player (its connection, stagger, deadline and counting) posting
    load.py's move body, a reveal of a random cell of an Expert board, to a game id of its own without a pause."""

    async def play_one(self) -> None:
        game = {"id": base64.urlsafe_b64encode(self.rng.randbytes(16)).rstrip(b"=").decode()}  # as Kaboom's ids
        while await self.pause():
            cell = (self.rng.randrange(WIDTH), self.rng.randrange(HEIGHT))
            started = time.monotonic()
            answer = await move(self.client, game, "reveal", cell, self.stats, self.clock, page=False)
            if isinstance(answer, bool):  # an error or a refusal, counted by load.py's send
                await asyncio.sleep(ERROR_PAUSE)
                continue
            if started >= self.clock.measure_from:
                self.stats.moves += 1


# ----- the report -------------------------------------------------------------------


def per_request_ms(cores: float, r: Result) -> float:
    """CPU milliseconds per measured request from cores used over the measured time."""
    return cores * r.seconds / r.stats.moves * 1000 if r.stats.moves else float("nan")


def report(bare: Result, kaboom: Result, uvicorn: dict[str, Any], args: argparse.Namespace) -> None:
    console = Console(width=180)
    table = Table(
        title=f"The framework's ceiling beside Kaboom: {args.players} clients, each one keep-alive connection, no "
        f"think time, {args.workers} worker(s), {args.seconds:g} s measured after {args.warmup:g} s warm-up, the bare "
        "app first, Kaboom right after; ms are p50 / p95 / p99, CPU in cores (and ms per request), other processes: "
        "the machine's CPU besides the server and this load generator; load: the 1-minute average as measuring began "
        "(Kaboom's still counts the bare run before it)"
    )
    columns = (
        "server",
        "requests/s",
        "requests",
        "client ms",
        "Server-Timing ms",
        "errors",
        "409",
        "server CPU",
        "client CPU",
        "other processes",
        "load",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "server" else "right")
    rows = (("bare FastAPI", bare), ("Kaboom", kaboom))
    for name, r in rows:
        s = r.stats
        table.add_row(
            name,
            f"{s.moves / r.seconds:.0f}",
            str(s.moves),
            latencies(s.client_ms),
            latencies(s.server_ms) if s.server_ms else "–",
            errors_text(s),
            str(s.refused),
            f"{r.server_cpu:.2f} ({per_request_ms(r.server_cpu, r):.2f} ms)",
            f"{r.client_cpu:.2f} ({per_request_ms(r.client_cpu, r):.2f} ms)",
            f"{r.others_cpu:.2f}",
            f"{r.load_average:.2f}",
        )
    console.print(table)
    bare_rate, kaboom_rate = bare.stats.moves / bare.seconds, kaboom.stats.moves / kaboom.seconds
    share = kaboom_rate / bare_rate if bare_rate else float("nan")
    cpu_share = per_request_ms(bare.server_cpu, bare) / per_request_ms(kaboom.server_cpu, kaboom)
    console.print(
        f"  Kaboom / bare: {share:.2f} of the ceiling in requests per second; in server CPU per request the bare "
        f"app's is {cpu_share:.2f} of Kaboom's"
    )
    games = kaboom.stats
    console.print(
        f"  bare FastAPI: one route, POST /api/games/{{game_id}}/moves, a strict pydantic body, a 5-field JSON answer; "
        f"Kaboom: load.py's solver-guided players on Expert {WIDTH}x{HEIGHT}/{MINES} cruel games in SQLite, "
        f"{games.created} games made and {games.won + games.lost} finished ({games.won} won, {games.lost} lost) "
        f"while measuring, its games file after the run: {kaboom.integrity}"
    )
    console.print(
        f"  {psutil.cpu_count()} cores, shared by the server, this load generator and whatever else runs on the "
        "machine (the other processes' column)"
    )
    settings = uvicorn["settings"]
    shown = ", ".join(
        f"{name}={value if value != '' else repr(value)}" for name, value in settings.items() if name != "app"
    )
    console.print(
        f"  uvicorn settings, both servers: `kaboom serve`'s own (app.cli serve → app.host.server.serve → "
        f"KaboomConfig), for the bare app with only the app swapped: {uvicorn['product_app']} → {settings['app']}; "
        f"as the bare server's Config held them: {shown}"
    )
    console.print("Target:")
    if args.workers == TARGET_WORKERS:
        verdict = "met" if share >= TARGET_SHARE else "NOT met"
        console.print(
            f"  Kaboom ≥ {TARGET_SHARE:g} of the bare ceiling with {TARGET_WORKERS} workers on SQLite: {share:.2f} — "
            f"{verdict}"
        )
    else:
        console.print(
            f"  Kaboom ≥ {TARGET_SHARE:g} of the bare ceiling with {TARGET_WORKERS} workers on SQLite: not measured "
            f"(this run had {args.workers}; --workers {TARGET_WORKERS})"
        )
    for name, r in rows:
        ok = "met" if r.stats.errors == 0 else "NOT met"
        console.print(f"  0 errors, {name.split(',')[0]}: {r.stats.errors} — {ok}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=50, help="clients at once (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=30, help="seconds measured per server (default %(default)s)")
    parser.add_argument("--warmup", type=float, default=5, help="seconds played before measuring (default %(default)s)")
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers of each server (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    # The bare server itself, started by this script (load.py's start_server) in a process of its own.
    parser.add_argument("--bare-server", metavar="RECORD", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server:
        sys.exit(serve_bare(Path(args.bare_server)))
    if args.players < 1 or args.workers < 1 or args.seconds <= 0 or args.warmup < 0:
        parser.error("--players and --workers must be at least 1, --seconds above 0, --warmup at least 0")
    # load.py's options with their defaults (SQLite, one host, solver-guided players, nothing beside them).
    load_args = build_parser().parse_args(
        [
            *("--players", str(args.players)),
            *("--seconds", str(args.seconds)),
            *("--warmup", str(args.warmup)),
            *("--workers", str(args.workers)),
            *("--seed", str(args.seed)),
        ]
    )
    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    with tempfile.TemporaryDirectory(prefix="kaboom-ceiling-") as scratch:
        record = Path(scratch) / "uvicorn.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--bare-server", str(record)]
        try:
            with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
                bare = run_configuration(args.workers, load_args, progress, None, command, BarePlayer)
                kaboom = run_configuration(args.workers, load_args, progress, None)
        except KeyboardInterrupt:
            print("interrupted; the server is stopped", file=sys.stderr)
            sys.exit(130)
        uvicorn = json.loads(record.read_text())
    report(bare, kaboom, uvicorn, args)


if __name__ == "__main__":
    main()
