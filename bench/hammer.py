"""Hammering beside other players (issue 23): another player's move times with the server idle, then while one
client address hammers it with slow work on dense 100x100 boards (--hammer: no-guess deals, the default, or
the bot's moves); and, with --fresh, the first slow request on freshly started servers (the slow lane's start
must not come out of its deadline).

Starts `kaboom serve` (one worker unless --workers) on a fresh SQLite file with the default settings. The
player (from 127.0.0.1) plays classic Expert games through the JSON API: a cell the solver proves safe
from what the page shows, else a random covered cell, a new game after each end, with a pause between
moves (exponential, seeded, --think ms on average). Every move is timed as the client saw it (round trip)
and as the server measured it (its Server-Timing). After --warmup seconds it is measured for --seconds
alone, then for --seconds more while --hammer-processes processes of --hammers connections each, all from
127.0.0.2, hammer it with no pause (processes of their own, at nice 10: a flooding client's processor is not the
player's nor the server's, and threads of one Python process were too slow to flood a server):
- `--hammer no-guess` (--mines 3000 unless given): each makes a 100x100 no-guess game and clicks its middle
  cell, again and again: a new game each time while the creation limit lets them, then the last game again
  (a refused deal changes nothing, so the same click searches again; a dealt one is undone first);
- `--hammer bot` (--mines 2000 unless given): each makes a classic 100x100 game and asks what the bot would
  do (GET .../bot), then has it play that move (POST .../bot), again and again (a game goes to the slow
  lane only once one of its requests took more than 0.25 s of processor time); a new game after each end
  (or a 409 saying it is over), or past the creation limit the last one with its loss undone;
- `--hammer rooms`, `daily`, `review` (issue 41): each floods those routes, every request refused by its limit
  once past it: new rooms, a throwaway cookie joining and leaving, a room's page, poll and stream; the day's
  boards asked for, the name changed, the day's page, a ladder and the calendar; Expert games lost at once, then
  each one's review, replay page, overlays at every step, and its link shared and withdrawn.
What the hammer got back is counted by request and status. Processor time is read per process of the server
(the worker, and its slow lane at a lower priority).

With --fresh N it starts N servers instead, one after the other, each with KABOOM_SOLVER_SECONDS=0.5; on
each, as soon as it answers, puts a slow position in a game (100x100, 3,000 mines, 2,100 numbers shown at
random, seeded, as tests/test_limits.py's HEAVY) with the debug overlay on, and times its page twice: the
first slow request on a fresh server, then once warm. --cheap-first asks for a small game's page before
(the worker's own first-page costs, its templates, then come out of that one); --pause S waits S seconds
before the slow request.

--server-cpus LIST runs the server under `taskset --cpu-list LIST` and the player and the hammer on the other
CPUs (as bench/load.py's): 0 on a 2-core machine is a 1-vCPU host whose one core the flood fights over.

Issue 41's floods with that last command (--hammer rooms, daily, review; 2 cores, the 1-minute load 0.4-1.0
before each run): the player's p95 idle -> flooded, three runs each, was 5.6 -> 62.6, 6.4 -> 85.6, 6.4 -> 124.8 ms
(rooms), 6.3 -> 133.3, 6.1 -> 137.4, 6.7 -> 163.5 ms (daily) and 6.0 -> 204.1, 6.2 -> 192.1, 6.3 -> 264.0 ms
(review), the server's worker at 0.95-0.98 of its core; with each client's turns (KABOOM_REQUESTS_PER_CLIENT)
and refusals remembered, 6.4 -> 11.2, 6.2 -> 11.9, 7.2 -> 16.3 ms (rooms), 6.3 -> 45.5, 5.8 -> 44.7,
7.6 -> 44.2 ms (daily) and 6.6 -> 30.8, 5.5 -> 21.2, 6.9 -> 34.6 ms (review): docs/self-hosting.md#rooms. Beside
no-guess deals and the bot (the same command, --hammer no-guess, bot): 7.0 -> 9.3 and 7.0 -> 9.9 ms.

--source DIR runs the server from another copy of the code (`git archive HEAD | tar -x -C DIR` gives
today's committed one), with this virtualenv. Run by hand:

    .venv/bin/python bench/hammer.py
    .venv/bin/python bench/hammer.py --seconds 60 --hammers 2 --mines 3000
    .venv/bin/python bench/hammer.py --hammer bot --mines 2500
    .venv/bin/python bench/hammer.py --hammer rooms     # daily, review
    # one address flooding, the server alone on one CPU (a 1-vCPU host), the flood from four processes
    .venv/bin/python bench/hammer.py --hammer review --seconds 30 --server-cpus 0 --hammer-processes 4 --hammers 8
    .venv/bin/python bench/hammer.py --fresh 4 --cheap-first
    .venv/bin/python bench/hammer.py --source /tmp/kaboom-head --fresh 4
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import httpx
import psutil
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.web import free_port, pin_apart, server_ms  # noqa: E402  (one copy of each, for every bench)

PLAYER_ADDRESS = "127.0.0.1"
HAMMER_ADDRESS = "127.0.0.2"
EXPERT = {"width": 30, "height": 16, "mines": 99, "mode": "classic"}


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Server:
    """`kaboom serve` from `source`, on a fresh SQLite file in `data`."""

    def __init__(self, source: Path, data: Path, workers: int, env: dict[str, str], pinned: list[str]):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = data / "games.sqlite3"
        environment = {
            **os.environ,
            "PYTHONPATH": str(source),
            "KABOOM_HOST": "127.0.0.1",
            "KABOOM_PORT": str(self.port),
            "KABOOM_DATABASE": str(self.database),
            "KABOOM_WORKERS": str(workers),
            "KABOOM_SECRET_KEY": secrets.token_urlsafe(32),
            **env,
        }
        environment.pop("KABOOM_STORE", None)
        # pinned (--server-cpus): taskset runs the server in its own place, and the workers it starts inherit it.
        command = [*pinned, sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main(['serve']))"]
        self.log = open(data / "server.log", "w")
        self.process = subprocess.Popen(command, cwd=source, env=environment, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: see {data / 'server.log'}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer within 60 s")
            time.sleep(0.02)
        self.up = time.monotonic()

    def processes(self) -> list[psutil.Process]:
        root = psutil.Process(self.process.pid)
        return [root, *root.children(recursive=True)]

    def cpu(self) -> dict[str, float]:
        """Processor seconds so far: the lane(s) (a lower priority) apart from the rest."""
        used: Counter[str] = Counter()
        for process in self.processes():
            try:
                times = process.cpu_times()
                used["lane" if process.nice() > 0 else "workers"] += times.user + times.system
            except psutil.NoSuchProcess:
                pass
        return dict(used)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def client(url: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=120, transport=httpx.HTTPTransport(local_address=address))


@dataclass
class Moves:
    round_trip: dict[str, list[float]] = field(default_factory=lambda: {"idle": [], "hammered": []})
    server: dict[str, list[float]] = field(default_factory=lambda: {"idle": [], "hammered": []})
    creations: dict[str, list[float]] = field(default_factory=lambda: {"idle": [], "hammered": []})
    errors: Counter = field(default_factory=Counter)


def play(url: str, phase: list[str], stop: threading.Event, moves: Moves, think: float, seed: int) -> None:
    """Classic Expert games played as a player does: a cell the solver proves safe, else a guess; a new game
    after each end. Every move is timed under the phase it was made in."""
    from solver import Analyzer, Position

    rng = random.Random(seed)
    with client(url, PLAYER_ADDRESS) as player:
        game = None
        while not stop.is_set():
            if game is None or game["status"] != "playing":
                current, started = phase[0], time.perf_counter()
                created = player.post("/api/games", json=EXPERT)
                if current in moves.creations:
                    moves.creations[current].append((time.perf_counter() - started) * 1000)
                if created.status_code != 201:
                    moves.errors[created.status_code] += 1
                    time.sleep(0.1)
                    continue
                game = created.json()
            covered = [(x, y) for y, row in enumerate(game["board"]) for x, symbol in enumerate(row) if symbol == "."]
            safe = Analyzer(Position(game["width"], game["height"], game["mines"], tuple(game["board"]))).safe_cells()
            x, y = rng.choice(safe or covered)
            body = {"action": "reveal", "x": x, "y": y}
            current = phase[0]
            started = time.perf_counter()
            answer = player.post(f"/api/games/{game['id']}/moves", json=body)
            elapsed = (time.perf_counter() - started) * 1000
            if answer.status_code != 200:
                moves.errors[answer.status_code] += 1
                game = None
                continue
            if current in moves.round_trip:
                moves.round_trip[current].append(elapsed)
                moves.server[current].append(server_ms(answer))
            game = answer.json()
            if think:
                stop.wait(rng.expovariate(1000 / think))


class Answers:
    """What the hammer got back, by request and status, with each one's round trip (ms)."""

    def __init__(self) -> None:
        self.times: dict[tuple[str, int], list[float]] = {}

    def timed(self, request: str, send: Callable[[], httpx.Response]) -> httpx.Response:
        started = time.perf_counter()
        try:
            response = send()
        except httpx.TransportError:
            # Closed by the server (past KABOOM_CONNECTIONS_PER_CLIENT): counted as status 0, and the hammer
            # starts again (keep_hammering).
            self.times.setdefault((request, 0), []).append((time.perf_counter() - started) * 1000)
            raise
        self.times.setdefault((request, response.status_code), []).append((time.perf_counter() - started) * 1000)
        return response


def keep_hammering(run: Callable[[str, int, threading.Event, Answers], None], *args: Any) -> None:
    """`run`, started again whenever the server closed one of its connections, until it ends by itself."""
    while True:
        try:
            return run(*args)
        except httpx.TransportError:
            continue


def new_or_last(attacker: httpx.Client, board: dict, answers: Answers, last: str | None) -> str | None:
    """A new game, or past the creation limit the last one (None before the first)."""
    created = answers.timed("new game", lambda: attacker.post("/api/games", json=board))
    return created.json()["id"] if created.status_code == 201 else last


def undo(attacker: httpx.Client, answers: Answers, game_id: str) -> httpx.Response:
    return answers.timed("undo", lambda: attacker.post(f"/api/games/{game_id}/moves", json={"action": "undo"}))


def no_guess_hammer(url: str, mines: int, stop: threading.Event, answers: Answers) -> None:
    """One client address asking for a dense 100x100 no-guess deal again and again, with no pause: on a new game
    each time (a game the server has not seen slow), or, past the creation limit, on the last one again."""
    board = {"width": 100, "height": 100, "mines": mines, "mode": "classic", "no_guess": True}
    with client(url, HAMMER_ADDRESS) as attacker:
        game_id = None
        while not stop.is_set():
            game_id = new_or_last(attacker, board, answers, game_id)
            if game_id is None:
                time.sleep(0.1)
                continue
            click = {"action": "reveal", "x": 50, "y": 50}
            answer = answers.timed("reveal", partial(attacker.post, f"/api/games/{game_id}/moves", json=click))
            if answer.status_code == 200:
                undo(attacker, answers, game_id)


def bot_hammer(url: str, mines: int, stop: threading.Event, answers: Answers) -> None:
    """One client address having the bot play dense 100x100 classic games with no pause: what would it do, then
    play it, again and again; a new game after each end, or, past the creation limit, the last one with its
    loss undone."""
    board = {"width": 100, "height": 100, "mines": mines, "mode": "classic"}
    with client(url, HAMMER_ADDRESS) as attacker:
        game_id, over = None, True
        while not stop.is_set():
            if over:
                last, game_id = game_id, new_or_last(attacker, board, answers, game_id)
                # A win is not undone: then nothing is left to play until the limit lets a game be made.
                if game_id is None or (game_id == last and undo(attacker, answers, game_id).status_code != 200):
                    time.sleep(0.1)
                    continue
                over = False
            bot = f"/api/games/{game_id}/bot"
            if answers.timed("GET bot", partial(attacker.get, bot)).status_code == 409:
                over = True
                continue
            played = answers.timed("POST bot", partial(attacker.post, bot))
            over = played.status_code == 409 or (played.status_code == 200 and played.json()["status"] != "playing")


COOP = {"kind": "coop", "mode": "classic", "width": 9, "height": 9, "mines": 10, "name": "Flood"}


def rooms_hammer(url: str, mines: int, stop: threading.Event, answers: Answers) -> None:
    """One client address flooding the rooms' routes with no pause: a new room again and again (refused past
    KABOOM_ROOM_LIMIT a window, and KABOOM_ROOMS_PER_PLAYER), a throwaway cookie joining its first room and
    leaving, the room's page and its poll, and its live stream opened and dropped (refused past the streams an
    address may hold)."""
    with client(url, HAMMER_ADDRESS) as attacker, client(url, HAMMER_ADDRESS) as visitor:
        room = None
        while not stop.is_set():
            made = answers.timed("new room", partial(attacker.post, "/api/rooms", json=COOP))
            if room is None:
                room = made.json() if made.status_code == 201 else None
                continue
            visitor.cookies.clear()  # a new player each time, as a client that throws its cookies away is
            join = {"invite": room["invite"], "name": "Visitor"}
            answers.timed("join", partial(visitor.post, f"/api/rooms/{room['id']}/join", json=join))
            answers.timed("leave", partial(visitor.post, f"/api/rooms/{room['id']}/leave"))
            answers.timed("room page", partial(attacker.get, f"/rooms/{room['id']}", follow_redirects=True))
            answers.timed("room poll", partial(attacker.get, f"/rooms/{room['id']}/live", params={"room_state": "?"}))
            with attacker.stream("GET", f"/rooms/{room['id']}/events") as stream:
                answers.times.setdefault(("room stream", stream.status_code), []).append(0.0)


def daily_hammer(url: str, mines: int, stop: threading.Event, answers: Answers) -> None:
    """One client address flooding the boards of the day with no pause: its game of each board asked for again
    and again (one at a time; past the creation limit, refused), its name changed (refused past the limit), the
    day's page, a ladder through the API and the calendar."""
    today = time.strftime("%Y-%m-%d", time.gmtime())
    with client(url, HAMMER_ADDRESS) as attacker:
        number = 0
        while not stop.is_set():
            number += 1
            for mode in ("cruel", "classic"):
                answers.timed("play", partial(attacker.post, f"/api/daily/{today}/{mode}/games"))
            answers.timed("name", partial(attacker.put, "/api/name", json={"name": f"Flood {number}"}))
            answers.timed("day page", partial(attacker.get, "/daily"))
            answers.timed("ladder", partial(attacker.get, f"/api/daily/{today}/ladder"))
            answers.timed("calendar", partial(attacker.get, "/daily/history"))


def review_hammer(url: str, mines: int, stop: threading.Event, answers: Answers) -> None:
    """One client address flooding the reviews of its finished games with no pause: Expert games lost at once
    (a new one while the creation limit lets it, or the last again), then each one's review, replay page,
    overlays at every step in turn, and its link shared and withdrawn."""
    rng = random.Random(7)
    with client(url, HAMMER_ADDRESS) as attacker:
        finished: list[str] = []
        turn = 0
        while not stop.is_set():
            made = answers.timed("new game", partial(attacker.post, "/api/games", json=EXPERT))
            if made.status_code == 201:
                game = made.json()
                while game["status"] == "playing":
                    covered = [(x, y) for y, row in enumerate(game["board"]) for x, s in enumerate(row) if s == "."]
                    x, y = rng.choice(covered)
                    click = {"action": "reveal", "x": x, "y": y}
                    game = attacker.post(f"/api/games/{game['id']}/moves", json=click).json()
                finished.append(game["id"])
            if not finished:
                time.sleep(0.1)
                continue
            game_id = finished[turn % len(finished)]
            turn += 1
            reviewed = answers.timed("review", partial(attacker.get, f"/api/games/{game_id}/review"))
            steps = len(reviewed.json()["steps"]) if reviewed.status_code == 200 else 0
            answers.timed("replay page", partial(attacker.get, f"/games/{game_id}/replay"))
            for at in range(steps + 1):
                overlay = partial(attacker.get, f"/games/{game_id}/replay/overlay", params={"step": at})
                answers.timed("overlay", overlay)
            answers.timed("share", partial(attacker.post, f"/api/games/{game_id}/share"))
            answers.timed("withdraw", partial(attacker.delete, f"/api/games/{game_id}/share"))


@dataclass(frozen=True)
class Hammer:
    run: Callable[[str, int, threading.Event, Answers], None]
    mines: int
    doing: str  # for the table's title, with the board's mines


HAMMERS = {
    "no-guess": Hammer(no_guess_hammer, 3000, "hammering 100x100/{mines} no-guess deals"),
    "bot": Hammer(bot_hammer, 2000, "having the bot play 100x100/{mines} classic games"),
    "rooms": Hammer(rooms_hammer, 0, "flooding the rooms' routes"),
    "daily": Hammer(daily_hammer, 0, "flooding the boards of the day"),
    "review": Hammer(review_hammer, 0, "flooding reviews and replays"),
}


@dataclass(frozen=True)
class Signals:
    """Between this process and the hammer's: each says it is ready (its imports take seconds at its priority on
    a busy machine), then all start on `go` and end on `stop`, and each puts what it got back into `times`."""

    ready: multiprocessing.Queue
    go: Event
    stop: Event
    times: multiprocessing.Queue


def hammer_process(name: str, url: str, mines: int, connections: int, signals: Signals) -> None:
    """One process of the hammer: `connections` threads of it from `go` to `stop`. At a lower priority, on the
    processor it shares with the player: a flooding client's processor is its own, and the player's round trip is
    to time the server, not a wait for the hammer's processor."""
    os.nice(10)
    answers, stopping = Answers(), threading.Event()
    threads = [
        threading.Thread(target=keep_hammering, args=(HAMMERS[name].run, url, mines, stopping, answers), daemon=True)
        for _ in range(connections)
    ]
    signals.ready.put(None)
    signals.go.wait()
    for thread in threads:
        thread.start()
    signals.stop.wait()
    stopping.set()
    for thread in threads:
        thread.join(120)
    signals.times.put(answers.times)


def contention(args: argparse.Namespace, source: Path, console: Console, pinned: list[str]) -> None:
    hammer = HAMMERS[args.hammer]
    mines = args.mines or hammer.mines
    # Spawned, not forked: this process runs the player's thread by then.
    spawning = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as data:
        server = Server(source, Path(data), args.workers, dict(item.split("=", 1) for item in args.env), pinned)
        signals = Signals(spawning.Queue(), spawning.Event(), spawning.Event(), spawning.Queue())
        hammers = [
            spawning.Process(target=hammer_process, args=(args.hammer, server.url, mines, args.hammers, signals))
            for _ in range(args.hammer_processes)
        ]
        try:
            for process in hammers:
                process.start()
            phase, stop, moves = ["warmup"], threading.Event(), Moves()
            playing = (server.url, phase, stop, moves, args.think, args.seed)
            player = threading.Thread(target=play, args=playing, daemon=True)
            player.start()
            time.sleep(args.warmup)
            for _ in hammers:
                signals.ready.get(timeout=120)
            cpu = {}
            phase[0] = "idle"
            cpu["idle"] = (server.cpu(), time.monotonic())
            time.sleep(args.seconds)
            phase[0] = "hammered"
            cpu["hammered"] = (server.cpu(), time.monotonic())
            signals.go.set()
            time.sleep(args.seconds)
            phase[0] = "done"
            cpu["done"] = (server.cpu(), time.monotonic())
            stop.set()
            signals.stop.set()
            player.join(120)
            answers = Answers()
            for _ in hammers:
                for key, times in signals.times.get(timeout=180).items():
                    answers.times.setdefault(key, []).extend(times)
            for process in hammers:
                process.join(30)
        finally:
            signals.go.set()
            signals.stop.set()
            for process in hammers:
                if process.is_alive():
                    process.terminate()
            server.stop()
            if args.keep_log:
                args.keep_log.write_text((Path(data) / "server.log").read_text())

    def cores(start: str, end: str, role: str) -> str:
        (before, started), (after, ended) = cpu[start], cpu[end]
        return f"{(after.get(role, 0) - before.get(role, 0)) / (ended - started):.2f}"

    connections = f"{args.hammer_processes} process(es) of {args.hammers} connection(s)"
    where = f"; the server on CPUs {args.server_cpus}, the rest here" if args.server_cpus else ""
    title = f"Another player's moves (ms), idle and beside {connections} {hammer.doing.format(mines=mines)}{where}"
    table = Table(title=title)
    columns = (
        "phase",
        "moves",
        "p50",
        "p95",
        "p99",
        "max",
        "server p95",
        "new games: max ms",
        "worker cores",
        "lane cores",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for name, following in (("idle", "hammered"), ("hammered", "done")):
        times = moves.round_trip[name]
        table.add_row(
            name,
            str(len(times)),
            *(f"{percentile(times, share):.1f}" for share in (0.5, 0.95, 0.99)),
            f"{max(times, default=float('nan')):.1f}",
            f"{percentile(moves.server[name], 0.95):.1f}",
            f"{max(moves.creations[name], default=float('nan')):.0f}",
            cores(name, following, "workers"),
            cores(name, following, "lane"),
        )
    console.print(table)
    hammered = Table(title="What the hammer got back")
    for column in ("request", "status", "answers", "median ms", "max ms"):
        hammered.add_column(column, justify="right")
    for (request, status), times in sorted(answers.times.items()):
        shown = str(status) if status else "closed"
        hammered.add_row(request, shown, str(len(times)), f"{statistics.median(times):.0f}", f"{max(times):.0f}")
    console.print(hammered)
    asked = sum(len(times) for times in answers.times.values())
    console.print(f"the hammer's answers: {asked} in {args.seconds:.0f} s ({asked / args.seconds:.0f}/s)")
    idle, busy = percentile(moves.round_trip["idle"], 0.95), percentile(moves.round_trip["hammered"], 0.95)
    verdict = "met" if busy - idle <= 100 else "NOT met"
    console.print(
        f"p95 {idle:.1f} ms idle, {busy:.1f} ms hammered: {busy - idle:+.1f} ms (target: at most +100 ms: {verdict})"
    )
    if moves.errors:
        console.print(f"the player's errors: {dict(moves.errors)}")


def fresh(args: argparse.Namespace, source: Path, console: Console, pinned: list[str]) -> None:
    from tests.live import put_position
    from tests.test_rules import scattered_game

    heavy, _ = scattered_game(seed=3, side=100, mines=3000, shown=2100)
    rows = heavy.board.rows(heavy.cells)
    table = Table(title="The first slow request on a fresh server (KABOOM_SOLVER_SECONDS=0.5; ms)")
    columns = (
        "server",
        "since it answered",
        "first: round trip",
        "first: server",
        "warm: round trip",
        "warm: server",
        "status",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for number in range(args.fresh):
        with tempfile.TemporaryDirectory() as data:
            env = {"KABOOM_SOLVER_SECONDS": "0.5", **dict(item.split("=", 1) for item in args.env)}
            server = Server(source, Path(data), args.workers, env, pinned)
            try:
                with client(server.url, PLAYER_ADDRESS) as player:
                    game_id = player.post("/api/games", json={"width": 9, "height": 9, "mines": 10}).json()["id"]
                    if args.cheap_first:
                        player.get(f"/games/{game_id}").raise_for_status()
                    time.sleep(args.pause)
                    put_position(server.database, game_id, rows, heavy.mines)
                    player.patch(f"/api/games/{game_id}/options", json={"debug_overlay": True}).raise_for_status()
                    since = (time.monotonic() - server.up) * 1000
                    timed = []
                    for _ in range(2):
                        started = time.perf_counter()
                        page = player.get(f"/games/{game_id}")
                        timed.append(((time.perf_counter() - started) * 1000, server_ms(page), page.status_code))
            finally:
                server.stop()
        (first, first_server, status), (warm, warm_server, warm_status) = timed
        figures = (since, first, first_server, warm, warm_server)
        table.add_row(str(number + 1), *(f"{figure:.0f}" for figure in figures), f"{status}, {warm_status}")
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--seconds", type=float, default=30, help="seconds measured idle, as many hammered (default %(default)s)"
    )
    parser.add_argument("--warmup", type=float, default=5, help="seconds played before measuring (default %(default)s)")
    parser.add_argument("--think", type=float, default=100, help="the player's mean pause, ms (default %(default)s)")
    parser.add_argument(
        "--hammer", choices=HAMMERS, default="no-guess", help="what the hammer asks for (default %(default)s)"
    )
    parser.add_argument(
        "--hammers", type=int, default=4, help="connections hammering from one address (default %(default)s)"
    )
    parser.add_argument(
        "--hammer-processes",
        type=int,
        default=1,
        help="processes hammering, each with --hammers connections, all from the one address (default %(default)s)",
    )
    parser.add_argument(
        "--server-cpus",
        metavar="LIST",
        help="run the server on these CPUs only (taskset's list: 0 on a 2-core machine, a 1-vCPU host), the player "
        "and the hammer on the others",
    )
    parser.add_argument(
        "--mines", type=int, help="mines on the hammer's 100x100 boards (default 3000 for no-guess, 2000 for bot)"
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--fresh", type=int, metavar="N", help="time the first slow request on N fresh servers instead")
    parser.add_argument("--pause", type=float, default=0, help="--fresh: seconds to wait before the slow request")
    parser.add_argument(
        "--cheap-first", action="store_true", help="--fresh: a cheap page first (the worker's own first costs)"
    )
    parser.add_argument("--source", type=Path, default=ROOT, help="the code the server runs (default: this checkout)")
    parser.add_argument("--env", nargs="*", default=[], metavar="KABOOM_X=V", help="more settings for the server")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep-log", type=Path, metavar="PATH", help="keep the server's log as PATH")
    args = parser.parse_args()
    if args.hammers < 1 or args.hammer_processes < 1:
        parser.error("--hammers and --hammer-processes: at least 1")
    pinned = pin_apart(args.server_cpus, parser.error) if args.server_cpus else []
    console = Console(width=160)
    console.print(f"server code: {args.source.resolve()}; {psutil.cpu_count()} cores")
    if args.fresh:
        fresh(args, args.source.resolve(), console, pinned)
    else:
        contention(args, args.source.resolve(), console, pinned)


if __name__ == "__main__":
    main()
