"""Web benchmark: click latency of a real uvicorn server, over HTTP, one player at a time.

Starts `kaboom serve` on a fresh SQLite file, then a seeded, solver-guided
player (a proven-safe cell when there is one, else a frontier guess, else the
outside: the rules make all of those safe) plays Expert and 100x100/2000 games
through the HTML route (HTMX fragments) and through the JSON route, or through the
JSON route reading the whole game page after each click (route "page"), or through the JSON route and then,
once the game is over, reading its replay, the rules and the home page (route "pages"). Prints per
route the median, p95 and max milliseconds per click as the server measured it
(its Server-Timing header) and as the client saw it. With --languages, the same
seeded clicks in each language (the browser's Accept-Language; the server offers
them all): what a page costs in Russian or Arabic beside English. Run by hand:

    .venv/bin/python bench/web.py
    .venv/bin/python bench/web.py --sizes 30x16/99 --games 5
    .venv/bin/python bench/web.py --routes html --probabilities   # the probability overlay's cost: compare without
    .venv/bin/python bench/web.py --routes html,page --languages en,ru,ar
    .venv/bin/python bench/web.py --sizes 30x16/99 --routes pages --languages en,ru,hu,ar
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import httpx
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver import Analyzer, Position  # noqa: E402
from solver.strategy import progress_cell  # noqa: E402

SIZES = {"30x16/99": (30, 16, 99, 6), "100x100/2000": (100, 100, 2000, 1)}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def pin_apart(server_cpus: str, error: Callable[[str], NoReturn]) -> list[str]:
    """--server-cpus: keeps this process (and whatever it starts from now on) off `server_cpus` (taskset's comma
    list: 0 on a 2-core machine approximates a 1-vCPU host) and gives the command prefix that runs the server on
    them; `error` says what is wrong with the list."""
    if shutil.which("taskset") is None:
        error("--server-cpus needs taskset (Debian: util-linux)")
    try:
        cpus = {int(part) for part in server_cpus.split(",")}
    except ValueError:
        error(f"--server-cpus: a comma list of CPU numbers, got {server_cpus!r}")
    rest = os.sched_getaffinity(0) - cpus
    if not rest or not cpus <= os.sched_getaffinity(0):
        error(f"--server-cpus {server_cpus}: CPUs of this machine, and not all of them")
    # Before any thread starts: a thread and a process take the affinity of the one that starts them.
    os.sched_setaffinity(0, rest)
    return ["taskset", "--cpu-list", server_cpus]


def server_ms(response: httpx.Response) -> float:
    timing = response.headers.get("server-timing", "")
    return float(timing.split("dur=")[1].split(",")[0]) if "dur=" in timing else float("nan")


def play(
    client: httpx.Client, route: str, size: tuple[int, int, int], rng: random.Random, timings: dict, probabilities: bool
) -> str:
    width, height, mines = size
    game = client.post("/api/games", json={"width": width, "height": height, "mines": mines}).json()
    game_id = game["id"]
    if probabilities:
        client.patch(f"/api/games/{game_id}/options", json={"probabilities": True}).raise_for_status()
    analyzer = Analyzer(Position.empty(width, height, mines))
    board = game["board"]
    version = 0
    while game["status"] == "playing":
        x, y = progress_cell(analyzer, rng)
        started = time.perf_counter()
        if route in ("json", "page", "pages"):
            response = client.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": x, "y": y})
        else:
            response = client.post(
                f"/games/{game_id}/moves",
                data={"action": "reveal", "x": str(x), "y": str(y), "version": str(version)},
                headers={"HX-Request": "true"},
            )
        if route not in ("page", "pages"):
            timings["client"].append((time.perf_counter() - started) * 1000)
            timings["server"].append(server_ms(response))
        response.raise_for_status()
        if route == "page":
            started = time.perf_counter()
            page = client.get(f"/games/{game_id}")
            timings["client"].append((time.perf_counter() - started) * 1000)
            timings["server"].append(server_ms(page))
            page.raise_for_status()
        game = response.json() if route != "html" else client.get(f"/api/games/{game_id}").json()
        version = game["moves"]
        changes = numbers_shown(board, game["board"])
        board = game["board"]
        if game["status"] == "playing":
            analyzer.reveal(changes)
    if route == "pages":
        # The replay twice: its first reading grades the game, the second reads the kept grades.
        for path in (f"/games/{game_id}/replay", f"/games/{game_id}/replay", "/rules", "/"):
            started = time.perf_counter()
            page = client.get(path)
            timings["client"].append((time.perf_counter() - started) * 1000)
            timings["server"].append(server_ms(page))
            page.raise_for_status()
    return game["status"]


def numbers_shown(before: list[str], after: list[str]) -> dict[tuple[int, int], str]:
    """The numbers a move revealed, from the board's rows before and after it, as the solver takes them."""
    return {
        (x, y): symbol
        for y, row in enumerate(after)
        for x, symbol in enumerate(row)
        if symbol in "012345678" and before[y][x] != symbol
    }


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{statistics.median(ordered):.1f} / {p95:.1f} / {ordered[-1]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--games", type=int, help="games per size and route (default: per size)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--routes",
        default="html,json",
        help="html (HTMX fragments), json, page (a click, then its whole page), pages (replay, rules, home)",
    )
    parser.add_argument(
        "--languages", default="en", help="the pages' languages, each with the same seeded clicks (en,ru,hu,ar)"
    )
    parser.add_argument(
        "--probabilities", action="store_true", help="with the mine-probability overlay on: what it costs per click"
    )
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        languages = args.languages.split(",")
        env = {
            **os.environ,
            "KABOOM_DATABASE": f"{data}/bench.sqlite3",
            "KABOOM_PORT": str(port),
            "KABOOM_LANGUAGES": ",".join(languages),
            # Every language plays its own games: more than a player's usual pace of new games.
            "KABOOM_CREATE_LIMIT": "100000",
        }
        kaboom = Path(sys.executable).with_name("kaboom")
        server = subprocess.Popen([str(kaboom), "serve"], env=env, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 20
            while True:
                try:
                    httpx.get(f"{base}/healthz").raise_for_status()
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.1)
            table = Table(title="Click latency, ms: median / p95 / max (server = Server-Timing, client = round trip)")
            for column in ("size", "route", "language", "games", "clicks", "won", "server", "client"):
                table.add_column(column)
            with Progress(console=Console(stderr=True), transient=True) as progress:
                for name in args.sizes.split(","):
                    width, height, mines, games = SIZES[name]
                    games = args.games or games
                    for route in args.routes.split(","):
                        for language in languages:
                            # The same clicks in every language: each one's own client (its header, its cookie).
                            rng = random.Random(args.seed)
                            headers = {"Accept-Language": language}
                            timings: dict = {"client": [], "server": []}
                            won = 0
                            task = progress.add_task(f"{name} {route} {language}", total=games)
                            with httpx.Client(base_url=base, timeout=60, headers=headers) as client:
                                for _ in range(games):
                                    size = (width, height, mines)
                                    won += play(client, route, size, rng, timings, args.probabilities) == "won"
                                    progress.advance(task)
                            table.add_row(
                                name,
                                route,
                                language,
                                str(games),
                                str(len(timings["client"])),
                                str(won),
                                summary(timings["server"]),
                                summary(timings["client"]),
                            )
            Console(width=160).print(table)
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
