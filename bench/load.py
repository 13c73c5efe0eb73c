"""Load benchmark: many players at once against a real server, with 1 and with 2 workers.

For each worker count, starts `kaboom serve` on a free loopback port and a
fresh SQLite file, then N simulated players (asyncio tasks, each with its own
keep-alive connection and cookie, so its own games) play Expert games (30x16/99,
cruel) through the JSON API: create a game, then play it the way a player does,
until it is won or lost, then start another. Each player keeps an incremental
solver.Analyzer of its game and reveals a proven-safe cell when there is one,
else an unknown cell next to a number (a forced guess, which the rules make
safe), else any unknown cell, as solver.strategy chooses and bench/web.py
plays: a game lasts about 200 moves and is mostly won. With --random a player
reveals a random covered cell instead (the old stress variant: in cruel mode a
risky click while a safe cell exists is a mine, so games last about two moves
and half the requests create games). --think sets a mean pause (exponentially
distributed, seeded) before each move and each new game; the default 0 plays as
fast as the server answers.

With --slow N, N more clients ask for slow work the whole time, one request
after another with no pause: each owns a game placed on a slow position (a
100x100 board with 3,000 mines and 30% of its safe cells revealed at random,
seeded: one huge component, seconds of solver work; made through the API and
written into the SQLite row as tests/live.py's put_position does, then the
debug overlay switched on) and asks in turn for its page (the server classifies
every covered cell for the overlay, up to its deadline) and for a reveal of a
random covered cell through the API; when such a game ends, a new slow position
is placed the same way. Their numbers are reported in a table of their own, so
what they cost the other players reads off the players' columns.

The load generator shares the machine with the server, so it is kept cheap:
a minimal HTTP/1.1 client on asyncio streams (one keep-alive connection per
player, opened again after a transport error; a request that met the server
closing the idle connection, before a byte of answer, goes again on a new one,
as a browser sends it; the players start 20 ms apart so their connections
spread over the workers), uvloop when it is installed, and
the solver's analysis run only when the proven-safe cells found last are used up.
After a warm-up, measures for a set time and prints per configuration: moves
per second, p50/p95/p99 milliseconds per move as the client saw it (round
trip) and as the server measured it (its Server-Timing header), errors
(transport errors and any non-2xx answer but 409; the 409 refusals are counted
apart), games finished, CPU used by the server and by this load generator (in
cores), and the server's memory (RSS, as psutil reads it, summed over the
server process and all its descendants) after the warm-up, half way, at its
peak and at the end, and whether the games file is intact after the run (PRAGMA
integrity_check). The machine may be shared, so under the table it also says
how much CPU other processes took while measuring, and the load average when
measuring began. The targets are printed under the tables.

With --live N, N live pages besides (issue 23): Flags games on one screen
(16x16/51, the creator's cookie holding both seats), --pages-per-game pages
each (default 2, as two players have), each page an open event stream
(GET /games/{id}/events, read chunk by chunk) that fetches the /live fragment
at each `changed` event as htmx does (one request at a time, the last one
asked for waiting behind it), and polls /live every --live-poll seconds
besides (default 3, as templates/game.html does; 0 turns it off). Each game
has a client of its own that created it and moves in it (a random covered
cell); --live-moves R moves per second in all go to the games in turn. For
every move, from its answer to each page of its game: the time to the page's
event of it and to a fragment showing its version (update latency; a page
that had it before the answer counts 0). A move not announced to every page
within 10 s is late; streams that end or fail are opened again and counted,
refusals (429/503) apart, with a growing pause as htmx's SSE extension does.
A game that ends is replaced by a new one once its pages have its end, and
they move to it. The table also gives this load generator's event-loop lag,
so that latencies near it are known for its own.

With --rooms N and --races M (issue 26), N co-op rooms of --room-players
members (default 3) and M races of --racers (default 8) besides, on the players'
board (Expert cruel). Every member is a client of its own: its own cookie and its
own loopback address (127.0.x.y: all of 127.0.0.0/8 is this machine, and the
server counts each address as a client, as it would a person's home), so the
limits per client are each member's. A co-op room is made by one member and
joined by the others (POST /api/rooms, .../join); each loads the game's page and
keeps it open as a browser does (its event stream, with the room's signature;
the /live fragment at each `changed` event and every --live-poll seconds, one at
a time) and moves in the shared game through the API, choosing on the board its
page shows (the newest answer's, a move's, a read's or a fragment's): a
proven-safe cell, now and then a flag on a proven mine, else a guess, which in
co-op the first member makes while the others wait for it (in a cruel game
guesses made at once from one position are mines); a 409 reads the game again.
When the game ends the members leave and the next one makes a new room. A race
is made and joined likewise and started by its maker; each racer loads their own
game's page and plays once the boards open after the countdown (--race-countdown
sets the server's); once every racer's game ended, the next racer starts the
rematch. Per kind: moves per second, milliseconds per move (round trip and
Server-Timing), and from each move's answer to each other member's page a
fragment showing it (update latency: the co-op game's version, or the mover's
safe cells opened on a racer's scoreboard, which the room's signature in the
fragment carries); /live, page loads, rooms made (races: rounds started) and what
became of the streams. --room-think sets the members' mean think time (default
--think). With --page-moves every move, the players' too, goes through the game's
page as htmx sends it (a form, answered with the panel and the changed cells,
read back into the board): in a room that answer works out the room's view, in a
race every racer's game (the scoreboard); the API's answer does not.

With --flood K, K flooding clients besides, each from an address of its own
(127.1.0.x), over the measured time: each asks for new rooms without a pause,
with a new cookie after each refusal (so that the limit on its address, not its
player's, is what stops it), and opens live streams of its first room's game and
holds them, asking again FLOOD_RETRY s after each refusal. Counted: rooms made
and refused, streams opened, held and refused, every refusal by its status and
the message it gave. With --flood the server keeps its own limit on streams per
client (the other limits per client are raised as ever, the players all coming
from 127.0.0.1), so --flood does not go with --live.

--server-cpus LIST runs the server under `taskset --cpu-list LIST` and this load
generator on the other CPUs: 0 on a 2-core machine approximates a 1-vCPU host.

--store redis starts a redis-server of its own for each run (no disk) and
keeps the games there; --hosts H starts H `kaboom serve` processes (each with
--workers) on the one store with one secret key: players are spread over them,
a live game's moves go to one host and its pages to each host in turn from
there, so its updates cross hosts.

--sample SECONDS writes the RSS of every process (per host its supervisor,
workers, slow lanes, multiprocessing's resource tracker; redis-server apart)
that often to --samples-csv PATH as it goes, and prints per process its first,
least, most and last RSS and its slope over the second half of the measured
time in MB per minute: whether memory levels off over a long soak.

Run by hand:

    .venv/bin/python bench/load.py
    .venv/bin/python bench/load.py --players 50 --seconds 20 --workers 1,2
    .venv/bin/python bench/load.py --think 100            # players who pause 0.1 s on average
    .venv/bin/python bench/load.py --random               # random clicks: short games, many creations
    .venv/bin/python bench/load.py --seconds 600 --workers 2     # is memory flat over 10 minutes?
    .venv/bin/python bench/load.py --seconds 600 --workers 2 --think 100 --slow 8   # other players beside slow work
    # live pages: how many streams one worker carries with players beside (update latency p95 under 1 s?)
    .venv/bin/python bench/load.py --workers 1 --players 10 --live 300 --live-moves 5
    .venv/bin/python bench/load.py --workers 1 --players 10 --live 300 --live-poll 0   # what the 3 s poll costs
    # Redis, one host with 2 workers, then two hosts whose pages' updates cross between them
    .venv/bin/python bench/load.py --workers 2 --players 10 --live 600 --store redis
    .venv/bin/python bench/load.py --workers 1 --hosts 2 --players 10 --live 600 --store redis
    # rooms (issue 26): 10 co-op rooms of 3 and 2 races of 8 beside 10 players, then a client flooding
    # rooms and streams besides; moves through the game's page (what a room's view costs); a 1-vCPU host
    .venv/bin/python bench/load.py --players 10 --think 300 --rooms 10 --races 2
    .venv/bin/python bench/load.py --players 10 --think 300 --rooms 10 --races 2 --flood 1
    .venv/bin/python bench/load.py --players 10 --think 300 --rooms 10 --races 2 --page-moves
    .venv/bin/python bench/load.py --workers 1 --server-cpus 0 --players 10 --think 300 --rooms 40 --room-think 1000
    # an hour's memory soak, players and live pages together: does each process's RSS level off?
    .venv/bin/python bench/load.py --seconds 3600 --workers 2 --players 20 --think 100 --live 200 \\
        --live-moves 2 --sample 30 --samples-csv /tmp/soak.csv --keep-log /tmp/soak
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import html
import json
import math
import os
import random
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

import psutil
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.core.board import Board  # noqa: E402
from bench.web import pin_apart  # noqa: E402
from solver import Analyzer, Position, Status  # noqa: E402
from solver.strategy import progress_cell, safe_cells  # noqa: E402

Cell = tuple[int, int]

WIDTH, HEIGHT, MINES = 30, 16, 99
NEW_GAME = json.dumps({"width": WIDTH, "height": HEIGHT, "mines": MINES, "mode": "cruel"}).encode()
NUMBERS = frozenset("012345678")
HOST = "127.0.0.1"
REQUEST_TIMEOUT = 10.0  # seconds; bounds every request, so the players stop by themselves
GRACE = REQUEST_TIMEOUT + 5  # after the deadline, how long the players get to finish their last request
ERROR_PAUSE = 0.05  # after an error, so a broken server is not hammered in a tight loop
# Player n connects n * STAGGER seconds after the start. Uvicorn's workers share one listening socket and
# each accepts a whole backlog at once, so 50 players connecting together can all land on one worker and
# stay there (a connection lasts the run): one at a time, a busy worker accepts more slowly than an idle
# one, and the connections spread over the workers.
STAGGER = 0.02
MEMORY_EVERY = 2.0  # seconds between memory samples
TARGET_MOVES = 300  # moves/s with 2 workers
TARGET_P99 = 100  # ms, client round trip
MEMORY_FLAT = 0.10  # "flat": the end within 10% of the start
MEMORY_RUN = 600  # seconds a memory verdict needs
# The slow clients' position: bench/solver.py's `scattered` one, the kind issue 8 measured at seconds of solver work.
SLOW_SIDE, SLOW_MINES, SLOW_SHOWN = 100, 3000, 0.30
# Made at the same size, then its position replaced; any mine count would do, the row's is overwritten.
SLOW_NEW_GAME = json.dumps({"width": SLOW_SIDE, "height": SLOW_SIDE, "mines": 2000, "mode": "cruel"}).encode()
OVERLAY_ON = b'{"debug_overlay":true}'
TARGET_SLOW_P95 = 100  # ms, the other players' client round trip beside TARGET_SLOW_CLIENTS slow clients
TARGET_SLOW_CLIENTS = 8
DATABASE_NAME = "load.sqlite3"
# --live: Flags games on one screen, as the issue's pages play them.
FLAGS_GAME = json.dumps({"mode": "flags", "width": 16, "height": 16, "mines": 51, "opponent": "screen"}).encode()
ANNOUNCE_WITHIN = 10.0  # seconds a move has to reach every page of its game; later it counts as not announced
REOPEN_PAUSE = 0.5  # seconds before a page opens its stream again after it ended or failed
REFUSED_PAUSE, REFUSED_PAUSE_MAX = 1.0, 30.0  # after a refused stream; doubled at each refusal in a row
PAGE_STAGGER = STAGGER / 4  # pages are many: 600 open their streams in 3 s
LAG_PROBE = 0.1  # seconds: the timer that measures the load generator's own event-loop lag
CREATING_AT_ONCE = 4  # the live games' first creations in flight at once, so they do not crowd out the players
TARGET_UPDATE_P95 = 1000  # ms, a move answered → every page of its game showing it
VERSION_FIELD = re.compile(rb'id="version"[^>]*value="(\d+)"')
PRESENCE_FIELD = re.compile(rb'id="presence"[^>]*value="([0-9]*)"')
# --page-moves: a move as the game page's htmx sends it, and what its answer shows.
PAGE_MOVE = {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"}
CELL_FIELD = re.compile(rb'id="c-(\d+)-(\d+)" class="c ([a-z0-9]+)')
CELL_SYMBOLS = {b"u": ".", b"f": "F", b"x": "*", b"m": "*", **{b"n%d" % number: str(number) for number in range(9)}}
STATUS_FIELD = re.compile(rb'id="result"[^>]*data-status="(\w+)"')
# --rooms, --races, --flood (issue 26): the boards their games are played on, as the players' games are.
ROOM_BOARD = {"mode": "cruel", "width": WIDTH, "height": HEIGHT, "mines": MINES}
ROOM_STATE_FIELD = re.compile(rb'id="room-state"[^>]*value="([^"]*)"')
MESSAGE_FIELD = re.compile(rb'id="message"[^>]*>([^<]*)<')
FLAG_SHARE = 0.2  # of a room member's moves, while it knows of a proven mine not flagged: a flag on one
START_PAUSE = 0.5  # seconds before a race's start is asked for again after a refusal or an error
FLOOD_RETRY = 0.1  # seconds between a flooder's stream attempts once refused (its rooms it asks for without a pause)
FLOOD_HELD_MAX = 2000  # streams one flooder holds at most: this load generator's own open files
TARGET_FLOOD_P95 = 100  # ms, the players' moves (client round trip) beside the flooders


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


# ----- the server's processes -----------------------------------------------------


def server_processes(root: int) -> list[psutil.Process]:
    """`root` and every live process below it; none when `root` itself is gone."""
    try:
        process = psutil.Process(root)
        return [process, *process.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def rss_mb(*roots: int) -> tuple[float, int]:
    """Resident memory (MB) summed over the server process trees (one per host), and how many processes they have."""
    total, count = 0, 0
    for process in (process for root in roots for process in server_processes(root)):
        try:
            total += process.memory_info().rss
        except psutil.NoSuchProcess:  # a worker that exited since the tree was listed
            continue
        count += 1
    return total / 2**20, count


def cpu_seconds(*roots: int) -> float:
    """User + system CPU time of the live processes of the server trees."""
    total = 0.0
    for process in (process for root in roots for process in server_processes(root)):
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def machine_busy_seconds() -> float:
    """CPU time the whole machine spent busy (every core, every process) since it started."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def process_roles(servers: Servers) -> list[tuple[psutil.Process, str]]:
    """Every process of the run's servers with what it is: per host its supervisor (with several workers),
    workers, their slow lanes and multiprocessing's resource trackers; and redis-server."""
    named = []
    workers = servers.workers
    for host, root in enumerate(servers.roots):
        prefix = f"host {host} " if len(servers.roots) > 1 else ""
        for process in server_processes(root):
            try:
                command, parent = " ".join(process.cmdline()), process.ppid()
            except psutil.Error:
                continue
            if process.pid == root:
                role = "supervisor" if workers > 1 else "worker"
            elif "resource_tracker" in command:
                role = "resource tracker"
            elif parent == root and workers > 1:
                role = "worker"
            else:  # spawned by a worker: app.host.lane's process for slow games
                role = "slow lane"
            named.append((process, prefix + role))
    if servers.redis is not None:
        named += [(process, "redis-server") for process in server_processes(servers.redis)]
    return named


@dataclass
class Series:
    """One process's RSS samples: (seconds into the measured time, MB)."""

    role: str
    points: list[tuple[float, float]] = field(default_factory=list)

    def slope(self, since: float) -> float:
        """MB per minute from `since` on, by least squares; NaN with fewer than two samples."""
        points = [(t, mb) for t, mb in self.points if t >= since]
        if len(points) < 2:
            return float("nan")
        mean_t = sum(t for t, _ in points) / len(points)
        mean_mb = sum(mb for _, mb in points) / len(points)
        spread = sum((t - mean_t) ** 2 for t, _ in points)
        if spread == 0:
            return float("nan")
        return 60 * sum((t - mean_t) * (mb - mean_mb) for t, mb in points) / spread


class Sampler:
    """--sample: every process's RSS at a fixed period over the measured time, written to the CSV as it is
    taken (a soak stopped early keeps its figures) and kept per process for the summary."""

    COLUMNS = ("configuration", "seconds", "unix_time", "pid", "role", "rss_mb")

    def __init__(self, every: float, path: Path):
        self.every = every
        self.file = open(path, "w", newline="")  # open for the whole run: main() closes it
        self.writer = csv.writer(self.file)
        self.writer.writerow(self.COLUMNS)

    def close(self) -> None:
        self.file.close()

    async def run(self, label: str, servers: Servers, clock: Clock, series: dict[int, Series]) -> None:
        """Sample from the start of the measured time to the deadline into `series` (by pid)."""
        await asyncio.sleep(max(0.0, clock.measure_from - time.monotonic()))
        while True:
            now = time.monotonic()
            seconds, unix_time = now - clock.measure_from, time.time()
            for process, role in process_roles(servers):
                try:
                    mb = process.memory_info().rss / 2**20
                except psutil.NoSuchProcess:
                    continue
                series.setdefault(process.pid, Series(role)).points.append((seconds, mb))
                self.writer.writerow((label, f"{seconds:.1f}", f"{unix_time:.1f}", process.pid, role, f"{mb:.1f}"))
            self.file.flush()
            if now >= clock.deadline:
                return
            await asyncio.sleep(min(self.every, clock.deadline - now))


# ----- the client -----------------------------------------------------------------


class ProtocolError(Exception):
    """An answer this client does not read: it knows HTTP/1.1 with a Content-Length body, nothing more."""


# What a request can fail with; the client has closed its connection then, the next request opens another.
TRANSPORT_ERRORS = (OSError, EOFError, asyncio.LimitOverrunError, ProtocolError)  # OSError takes in TimeoutError


class Client:
    """One keep-alive HTTP/1.1 connection to the server on loopback, and the cookies it has set.

    Far less than an HTTP library and far cheaper: the server is uvicorn on
    127.0.0.1, its JSON answers always carry a Content-Length, and the load
    generator must leave the machine to it.
    """

    def __init__(self, port: int, source: str | None = None):
        self.port = port
        self.host = f"{HOST}:{port}"
        # The loopback address it connects from (None: 127.0.0.1): the server counts each address as a client
        # of its own for its limits, as it counts a person's home.
        self.source = source
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self) -> None:
        self.close()
        local = (self.source, 0) if self.source is not None else None
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port, local_addr=local)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """Send one request (a JSON body unless `headers` give another Content-Type) and read its answer:
        status, headers (lower-case names) and body."""
        for attempt in range(2):
            # A connection the server closed while it was idle (keep-alive timeout) shows as at EOF...
            kept, answered = self.reader is not None and not self.reader.at_eof(), False
            try:
                async with asyncio.timeout(REQUEST_TIMEOUT):
                    if not kept:
                        await self.connect()
                    status, answer_headers = await self._exchange(method, path, body, headers)
                    answered = True
                    content = await self.reader.readexactly(self._length(status, answer_headers))
                break
            except (ConnectionResetError, BrokenPipeError, asyncio.IncompleteReadError) as error:
                self.close()
                # ...unless it closed it just as the request went: not a byte of an answer came, and the request
                # goes again on a new connection, as a browser sends it again.
                if not kept or attempt or answered or getattr(error, "partial", b""):
                    raise
            except BaseException:  # a failed or cancelled request leaves the connection in an unknown state
                self.close()
                raise
        if answer_headers.get("connection", "").lower() == "close":
            self.close()
        return status, answer_headers, content

    async def _exchange(
        self, method: str, path: str, body: bytes, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str]]:
        """Send the request on the open connection and read the answer's status and headers."""
        cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        with_body = method in ("POST", "PATCH")
        headers = {"Content-Type": "application/json", **(headers or {})} if with_body else headers or {}
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
            + "".join(f"{name}: {value}\r\n" for name, value in headers.items())
            + (f"Content-Length: {len(body)}\r\n" if with_body else "")
            + (f"Cookie: {cookie}\r\n" if cookie else "")
            + "\r\n"
        )
        self.writer.write(head.encode() + body)
        await self.writer.drain()
        return self._head(await self.reader.readuntil(b"\r\n\r\n"))

    def _head(self, raw: bytes) -> tuple[int, dict[str, str]]:
        lines = raw.decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise ProtocolError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                name, value = name.strip().lower(), value.strip()
                headers[name] = value
                if name == "set-cookie":  # its first name=value; the attributes after ';' do not matter here
                    cookie, equals, content = value.partition(";")[0].partition("=")
                    if equals:
                        self.cookies[cookie.strip()] = content.strip()
        if version == "HTTP/1.0" and headers.get("connection", "").lower() != "keep-alive":
            headers["connection"] = "close"
        return int(code), headers

    @staticmethod
    def _length(status: int, headers: dict[str, str]) -> int:
        """The body's length in bytes; ProtocolError unless the answer gives it as this client reads it."""
        if status in (204, 304):  # never a body (a live page's poll answers 204 while nothing changed)
            return 0
        if "transfer-encoding" in headers:
            encoding = headers["transfer-encoding"]
            raise ProtocolError(f"a body sent with Transfer-Encoding: {encoding}; only Content-Length is read")
        if not headers.get("content-length", "").isdigit():
            raise ProtocolError(f"an answer without a Content-Length ({status})")
        return int(headers["content-length"])


class EventStream(Client):
    """A live page's server-sent event stream: a connection of its own, open as long as the stream.

    The server sends it chunked (the one body Client does not read), so here it is
    read chunk by chunk and split into events at their blank lines.
    """

    refusal = b""  # the body of the last answer other than 200: what the server said

    async def open(self, path: str) -> int:
        """Ask for the stream on a new connection: the status. An answer other than 200 is read (into
        `refusal`), and the connection closed."""
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                await self.connect()
                status, headers = await self._exchange("GET", path, b"")
                if status != 200:
                    self.refusal = await self.reader.readexactly(self._length(status, headers))
                    self.close()
                elif headers.get("transfer-encoding", "").lower() != "chunked":
                    raise ProtocolError(f"a stream that is not chunked: {headers.get('transfer-encoding')!r}")
        except BaseException:
            self.close()
            raise
        return status

    async def events(self) -> AsyncIterator[tuple[str, str]]:
        """Each event as (name, data) as it comes, until the server ends the stream; EOFError if the
        connection ends first."""
        pending = b""
        while True:
            size_line = await self.reader.readuntil(b"\r\n")
            try:
                size = int(size_line.split(b";")[0], 16)
            except ValueError:
                raise ProtocolError(f"not a chunk size: {size_line[:40]!r}") from None
            if size == 0:
                return
            pending += (await self.reader.readexactly(size + 2))[:-2].replace(b"\r\n", b"\n")
            *blocks, pending = pending.split(b"\n\n")
            for block in blocks:
                name, data = "message", []
                for line in block.decode().split("\n"):
                    key, _, value = line.partition(":")  # a comment (": ping") has no key
                    if key == "event":
                        name = value.removeprefix(" ")
                    elif key == "data":
                        data.append(value.removeprefix(" "))
                if data:  # an event without data is not dispatched (as EventSource does)
                    yield name, "\n".join(data)


# ----- the players ----------------------------------------------------------------


@dataclass
class Stats:
    client_ms: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    moves: int = 0  # accepted moves (2xx)
    refused: int = 0  # 409
    errors: int = 0  # transport errors, other non-2xx
    error_kinds: dict[str, int] = field(default_factory=dict)
    created: int = 0
    won: int = 0
    lost: int = 0

    def error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1


@dataclass
class Clock:
    measure_from: float  # time.monotonic(): requests started before it are the warm-up
    deadline: float  # no request starts after it


def server_ms(headers: dict[str, str]) -> float | None:
    timing = headers.get("server-timing", "")
    try:
        return float(timing.split("dur=")[1].split(";")[0].split(",")[0]) if "dur=" in timing else None
    except ValueError:
        return None


async def send(
    client: Client,
    method: str,
    path: str,
    body: bytes,
    stats: Stats,
    clock: Clock,
    timed: bool,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes] | None:
    """One request, counted in `stats` when it starts after the warm-up: its times when `timed`, a 409 as refused,
    a transport error or any other non-2xx answer as an error. The status and body; None after a transport error."""
    started = time.monotonic()
    counted = started >= clock.measure_from
    try:
        status, headers, content = await client.request(method, path, body, headers)
    except TRANSPORT_ERRORS as error:
        if counted:
            stats.error(type(error).__name__)
        return None
    if counted and timed:
        stats.client_ms.append((time.monotonic() - started) * 1000)
        if (ms := server_ms(headers)) is not None:
            stats.server_ms.append(ms)
    if counted and not 200 <= status < 300:
        if status == 409:
            stats.refused += 1
        else:
            stats.error(f"HTTP {status}")
    return status, content


async def request(
    client: Client, path: str, body: bytes, stats: Stats, clock: Clock, move: bool, method: str = "POST"
) -> dict | bool:
    """Send `body`: the answer's JSON when it is 2xx; else, after counting it, False for a 409 and True for an error."""
    answer = await send(client, method, path, body, stats, clock, timed=move)
    if answer is None:
        return True
    status, content = answer
    if 200 <= status < 300:
        return json.loads(content)
    return status != 409


async def move(
    client: Client, game: dict, action: str, cell: Cell, stats: Stats, clock: Clock, page: bool
) -> dict | bool:
    """One move ("reveal", or "flag" to flag a covered cell) in `game` (its id, board and version), timed in
    `stats`: through the API, or with `page` (--page-moves) as the game's page sends it with htmx, a form
    answered with the panel and the cells that changed (applied to `game`'s board here). As `request`
    answers: the game as answered (board, version, status) when 2xx, False for a 409, True for an error."""
    x, y = cell
    if not page:
        mark = b',"mark":"flag"' if action == "flag" else b""
        body = b'{"action":"%s","x":%d,"y":%d%s}' % (action.encode(), x, y, mark)
        return await request(client, f"/api/games/{game['id']}/moves", body, stats, clock, move=True)
    # The page's flag cycles the mark (flag, ?, none); flags go on unmarked cells only, so a flag it is.
    form = f"action={action}&x={x}&y={y}&version={game['version']}".encode()
    answer = await send(client, "POST", f"/games/{game['id']}/moves", form, stats, clock, True, PAGE_MOVE)
    if answer is None:
        return True
    status, content = answer
    if not 200 <= status < 300:
        return status != 409
    return page_game(content, game)


def page_game(content: bytes, game: dict) -> dict:
    """`game` (its board, version and status) as a page's answer shows it: a move's answer or a live fragment
    (the cells it swaps in), or the whole page (every cell); with the room's signature where it has one."""
    board = game["board"]
    rows: dict[int, list[str]] = {}
    for x, y, look in CELL_FIELD.findall(content):
        if (symbol := CELL_SYMBOLS.get(look)) is not None:
            rows.setdefault(int(y), list(board[int(y)]))[int(x)] = symbol
    if rows:
        board = ["".join(rows[y]) if y in rows else line for y, line in enumerate(board)]
    version, status, state = (field.search(content) for field in (VERSION_FIELD, STATUS_FIELD, ROOM_STATE_FIELD))
    return {
        **game,
        "board": board,
        "version": int(version.group(1)) if version else game["version"],
        "status": status.group(1).decode() if status else game["status"],
        "room_state": state.group(1).decode() if state else None,
    }


class Player:
    """One simulated player: its own connection and cookie, its own seeded choices; one game at a time."""

    def __init__(self, port: int, number: int, args: argparse.Namespace, stats: Stats, clock: Clock):
        self.client = Client(port)
        self.rng = random.Random(args.seed * 1_000_003 + number)  # the cells
        # The think times from a generator apart, so --think does not change which cells are chosen.
        self.pauses = random.Random(f"think {args.seed} {number}")
        self.think = args.think / 1000  # mean seconds
        self.random_clicks = args.random
        self.page_moves = args.page_moves
        self.stats, self.clock = stats, clock
        self.start = number * STAGGER

    async def run(self) -> None:
        await asyncio.sleep(self.start)
        try:
            while time.monotonic() < self.clock.deadline:
                started = time.monotonic()
                try:
                    await self.play_one()
                # Not a game, a solver surprise, or (a slow client) its position not written.
                except (ValueError, LookupError, TypeError, sqlite3.Error) as error:
                    if started >= self.clock.measure_from:
                        self.stats.error(type(error).__name__)
                    await asyncio.sleep(ERROR_PAUSE)
        finally:
            self.client.close()

    async def pause(self) -> bool:
        """The think time before an action; whether there is still time for it."""
        if self.think > 0:
            await asyncio.sleep(self.pauses.expovariate(1 / self.think))
        return time.monotonic() < self.clock.deadline

    async def play_one(self) -> None:
        """Create a game and play it until it ends, a 409, or the deadline."""
        stats, clock = self.stats, self.clock
        if not await self.pause():
            return
        started = time.monotonic()
        game = await request(self.client, "/api/games", NEW_GAME, stats, clock, move=False)
        if isinstance(game, bool):
            await asyncio.sleep(ERROR_PAUSE)
            return
        if started >= clock.measure_from:
            stats.created += 1
        board = game["board"]
        analyzer = None if self.random_clicks else Analyzer(Position.empty(WIDTH, HEIGHT, MINES))
        safe: list[Cell] = []  # proven safe by the last analysis and still covered
        # Every cell once, plus room for errors: a game never holds a player forever.
        for _ in range(2 * WIDTH * HEIGHT):
            if game["status"] != "playing":
                return
            cell = covered_cell(board, self.rng) if analyzer is None else choose(analyzer, self.rng, safe)
            if cell is None or not await self.pause():
                return
            started = time.monotonic()
            answer = await move(self.client, game, "reveal", cell, stats, clock, self.page_moves)
            if answer is False:  # a 409: this game is not what this player thinks it is; leave it
                return
            if answer is True:
                await asyncio.sleep(ERROR_PAUSE)
                continue
            game = answer
            if started >= clock.measure_from:
                stats.moves += 1
                stats.won += game["status"] == "won"
                stats.lost += game["status"] == "lost"
            if analyzer is not None and game["status"] == "playing":
                # The whole board is compared, so a move whose answer was lost is caught up with here.
                analyzer.reveal(revealed(board, game["board"]))
                safe[:] = [(x, y) for x, y in safe if game["board"][y][x] == "."]
            board = game["board"]


class SlowClient(Player):
    """A client asking for slow work without a pause: the page of a game on a slow position with the debug
    overlay on, then a reveal in it through the API, in turn; a new slow position when the game ends.

    Its reveals, the positions it placed (`created`) and its games' ends are counted in `stats`, its pages
    in `pages`: apart from the players', whose numbers show what the slow work costs everyone else.
    """

    def __init__(self, port: int, number: int, args: argparse.Namespace, slow: SlowStats, clock: Clock, database: Path):
        # Numbered after the players, so its connection, too, is opened STAGGER after the last one.
        super().__init__(port, args.players + number, args, slow.reveals, clock)
        self.rng = random.Random(f"slow {args.seed} {number}")  # the positions and the cells
        self.pages = slow.pages
        self.database = database

    async def play_one(self) -> None:
        """Place a slow position, then ask for its page and reveal in it until the game ends, a 409 or the deadline."""
        stats, clock = self.stats, self.clock
        placed = await self.place()
        if placed is None:
            await asyncio.sleep(ERROR_PAUSE)
            return
        game_id, board = placed
        page, moves = f"/games/{game_id}", f"/api/games/{game_id}/moves"
        while time.monotonic() < clock.deadline:
            shown = await send(self.client, "GET", page, b"", self.pages, clock, timed=True)
            if shown is None:  # a transport error, counted: the next request opens another connection
                await asyncio.sleep(ERROR_PAUSE)
                continue
            if not 200 <= shown[0] < 300:  # counted; a game gone or refused is left for a new one
                await asyncio.sleep(ERROR_PAUSE)
                return
            cell = covered_cell(board, self.rng)
            if cell is None or time.monotonic() >= clock.deadline:
                return
            started = time.monotonic()
            body = b'{"action":"reveal","x":%d,"y":%d}' % cell
            answer = await request(self.client, moves, body, stats, clock, move=True)
            if answer is False:  # a 409: this game is not what this client thinks it is; leave it
                return
            if answer is True:
                await asyncio.sleep(ERROR_PAUSE)
                continue
            if started >= clock.measure_from:
                stats.moves += 1
                stats.won += answer["status"] == "won"
                stats.lost += answer["status"] == "lost"
            if answer["status"] != "playing":
                return
            board = answer["board"]

    async def place(self) -> tuple[str, list[str]] | None:
        """A new game of this client's with a slow position and the overlay on: its id and board, or None (counted)."""
        stats, clock = self.stats, self.clock
        started = time.monotonic()
        game = await request(self.client, "/api/games", SLOW_NEW_GAME, stats, clock, move=False)
        if isinstance(game, bool):
            return None
        # In a thread: building the position and writing the row would otherwise stall every player's requests.
        await asyncio.to_thread(place_slow_position, self.database, game["id"], self.rng)
        options = f"/api/games/{game['id']}/options"
        placed = await request(self.client, options, OVERLAY_ON, stats, clock, move=False, method="PATCH")
        if isinstance(placed, bool):
            return None
        if started >= clock.measure_from:
            stats.created += 1
        return placed["id"], placed["board"]


@dataclass
class SlowStats:
    """The slow clients' numbers, kept apart from the players'."""

    pages: Stats = field(default_factory=Stats)
    reveals: Stats = field(default_factory=Stats)


def place_slow_position(database: Path, game_id: str, rng: random.Random) -> None:
    """Replace the stored game's board by bench/solver.py's `scattered` position: numbers revealed at random,
    nothing else. put_position moves the version on in the JSON and in its column alike, as any change does."""
    from tests.live import put_position  # here: only --slow needs it, and it imports the whole app

    board = Board(SLOW_SIDE, SLOW_SIDE)
    layout = set(rng.sample(range(SLOW_SIDE * SLOW_SIDE), SLOW_MINES))
    safe = [index for index in range(SLOW_SIDE * SLOW_SIDE) if index not in layout]
    cells = ["."] * (SLOW_SIDE * SLOW_SIDE)
    for index in rng.sample(safe, int(len(safe) * SLOW_SHOWN)):
        cells[index] = str(board.mines_around(index, layout))
    put_position(database, game_id, board.rows(cells), SLOW_MINES)


def choose(analyzer: Analyzer, rng: random.Random, safe: list[Cell]) -> Cell | None:
    """solver.strategy.progress_cell's choice, with the proven-safe cells of one analysis kept for the next moves.

    A proven-safe cell stays safe, so the others of one analysis wait in `safe`
    (the caller drops those that got revealed) and the analysis (its classify(),
    a dict of every covered cell) runs again only once they are used up: about one
    move in six, which cuts the player's CPU by about three quarters. When none is
    proven safe, progress_cell analyses the position a second time to pick the guess.
    """
    if not safe:
        safe += safe_cells(analyzer)
        if not safe:
            return progress_cell(analyzer, rng)
    return safe.pop(rng.randrange(len(safe)))


def revealed(before: list[str], after: list[str]) -> dict[Cell, str]:
    """The numbers shown in `after` and not in `before`: what Analyzer.reveal takes."""
    return {
        (x, y): symbol
        for y, (old, new) in enumerate(zip(before, after, strict=True))
        if old != new
        for x, symbol in enumerate(new)
        if symbol != old[x] and symbol in NUMBERS
    }


def covered_cell(board: list[str], rng: random.Random) -> Cell | None:
    """A covered cell ('.'), uniformly: by rejection while most cells are covered (cheap), else from the list."""
    for _ in range(32):
        x, y = rng.randrange(len(board[0])), rng.randrange(len(board))
        if board[y][x] == ".":
            return x, y
    covered = [(x, y) for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol == "."]
    return rng.choice(covered) if covered else None


# ----- live pages -----------------------------------------------------------------


@dataclass
class LiveStats:
    """What the live pages and their games' movers saw."""

    moves: Stats = field(default_factory=Stats)  # the movers' moves in the Flags games, and the games they start
    fragments: Stats = field(default_factory=Stats)  # the pages' /live requests, for an event or their poll
    drops: Stats = field(default_factory=Stats)  # streams that ended or failed while their page wanted them (errors)
    event_ms: list[float] = field(default_factory=list)  # a move answered → a page's event of it, per page
    update_ms: list[float] = field(default_factory=list)  # a move answered → a page's fragment showing it, per page
    # Measured moves, each judged ANNOUNCE_WITHIN after its answer, or sooner once every page heard and showed it.
    judged: int = 0
    unannounced: int = 0  # of them, those some page had no event of in time
    unshown: int = 0  # (move, page) pairs whose fragment did not show the move in time
    opened: int = 0  # streams answered 200
    refused: dict[int, int] = field(default_factory=lambda: {429: 0, 503: 0})
    open_now: int = 0
    open_at_end: int = 0  # streams open at the deadline
    # How late this load generator's own event loop ran a 100 ms timer: latencies near it are the generator's.
    loop_lag_ms: list[float] = field(default_factory=list)
    replaced: int = 0  # games that ended and passed their pages to a new one
    skipped: int = 0  # move slots due while every game was busy with a move or its replacement


class Announcement:
    """One move of a live game on its way to the game's pages: their event of it, then their fragment showing it."""

    def __init__(self, version: int, answered: float, measured: bool):
        self.version, self.answered, self.measured = version, answered, measured
        self.heard: set[Page] = set()
        self.shown: set[Page] = set()
        self.settled = asyncio.Event()
        self.timer: asyncio.TimerHandle | None = None


class LiveGame:
    """One Flags game and the moves of it that not every page has shown yet."""

    def __init__(self, game_id: str, version: int, pages: list[Page], stats: LiveStats):
        self.id, self.version, self.pages, self.stats = game_id, version, pages, stats
        self.pending: list[Announcement] = []
        self.next: asyncio.Future[LiveGame] = asyncio.get_running_loop().create_future()  # its replacement

    def announce(self, version: int, answered: float, measured: bool) -> Announcement:
        move = Announcement(version, answered, measured)
        self.pending.append(move)
        # The stream may beat the move's answer to a page: what a page already has counts as there at the answer.
        for page in self.pages:
            if page.game is self:
                if page.heard >= version:
                    self._record(move.heard, self.stats.event_ms, move, page, answered)
                if page.shown >= version:
                    self._record(move.shown, self.stats.update_ms, move, page, answered)
        move.timer = asyncio.get_running_loop().call_later(ANNOUNCE_WITHIN, self._judge, move)
        self._judge_if_done(move)
        return move

    def heard(self, page: Page, version: int, at: float) -> None:
        for move in list(self.pending):
            if move.version <= version and page not in move.heard:
                self._record(move.heard, self.stats.event_ms, move, page, at)
                self._judge_if_done(move)

    def shown(self, page: Page, version: int, at: float) -> None:
        for move in list(self.pending):
            if move.version <= version and page not in move.shown:
                self._record(move.shown, self.stats.update_ms, move, page, at)
                self._judge_if_done(move)

    def _judge_if_done(self, move: Announcement) -> None:
        # Both, not the fragment alone: the fragment asked for at the move before may already show this one,
        # and its own event come after.
        if len(move.heard) == len(move.shown) == len(self.pages):
            self._judge(move)

    @staticmethod
    def _record(pages: set[Page], times: list[float], move: Announcement, page: Page, at: float) -> None:
        pages.add(page)
        if move.measured:
            times.append(max(0.0, at - move.answered) * 1000)

    def _judge(self, move: Announcement) -> None:
        if move not in self.pending:
            return
        self.pending.remove(move)
        move.timer.cancel()
        if move.measured:
            self.stats.judged += 1
            self.stats.unannounced += len(move.heard) < len(self.pages)
            self.stats.unshown += len(self.pages) - len(move.shown)
        move.settled.set()


class LiveTable:
    """A Flags game on one screen at a time (its creator's cookie holds both seats), the client that creates
    it and moves in it, and the pages that follow it; when the game ends, a new one and the pages move to it."""

    def __init__(self, live: LiveLoad, number: int, port: int, page_ports: list[int]):
        self.live = live
        self.mover = Client(port)
        self.rng = random.Random(f"live {live.args.seed} {number}")
        self.pages = [Page(self, page_port, f"{number} {index}") for index, page_port in enumerate(page_ports)]
        self.game: LiveGame | None = None
        self.board: list[str] = []
        self.busy = False  # a move or a replacement under way: the round robin passes this table by

    async def new_game(self) -> LiveGame | None:
        """A new game of this table's, tried again after errors (counted) until the deadline; None past it."""
        live = self.live
        while time.monotonic() < live.clock.deadline:
            started = time.monotonic()
            game = await request(self.mover, "/api/games", FLAGS_GAME, live.stats.moves, live.clock, move=False)
            if isinstance(game, dict):
                if started >= live.clock.measure_from:
                    live.stats.moves.created += 1
                self.board = game["board"]
                return LiveGame(game["id"], game["version"], self.pages, live.stats)
            await asyncio.sleep(ERROR_PAUSE)
        return None

    async def move(self) -> None:
        """Reveal a covered cell and announce the move to the pages; a game that ended is replaced once they
        showed its end (or were given up on)."""
        live, game = self.live, self.game
        stats, clock = live.stats.moves, live.clock
        try:
            cell = covered_cell(self.board, self.rng)
            if cell is None:
                return
            started = time.monotonic()
            body = b'{"action":"reveal","x":%d,"y":%d}' % cell
            answer = await request(self.mover, f"/api/games/{game.id}/moves", body, stats, clock, move=True)
            answered = time.monotonic()
            if answer is False:  # a 409 (counted): the board this table keeps is not the game's; read it again
                again = await request(self.mover, f"/api/games/{game.id}", b"", stats, clock, move=False, method="GET")
                if isinstance(again, dict):
                    self.board = again["board"]
                return
            if answer is True:
                return
            measured = started >= clock.measure_from
            moved = game.announce(answer["version"], answered, measured)
            self.board = answer["board"]
            if measured:
                stats.moves += 1
            if answer["status"] != "playing":
                if measured:
                    stats.won += answer["status"] == "won"
                    stats.lost += answer["status"] == "lost"
                await moved.settled.wait()
                if (successor := await self.new_game()) is not None:
                    self.game = successor
                    game.next.set_result(successor)
                    live.stats.replaced += measured
        finally:
            self.busy = False

    def close(self) -> None:
        self.mover.close()
        for page in self.pages:
            page.client.close()
            page.stream.close()


class Page:
    """A Flags game's page in a browser: its event stream, and on each `changed` event (and every
    --live-poll seconds) a request for the /live fragment, one at a time, the last one asked for waiting
    behind the one under way (htmx's queue). It shares its table's cookie, on connections of its own."""

    def __init__(self, table: LiveTable, port: int, name: str):
        self.table, self.live = table, table.live
        self.client, self.stream = Client(port), EventStream(port)
        self.client.cookies = self.stream.cookies = table.mover.cookies
        self.rng = random.Random(f"page {self.live.args.seed} {name}")  # its poll's phase
        self.game: LiveGame | None = None
        self.heard = self.shown = -1  # the newest version its stream announced, and its fragments showed
        self.presence = ""
        self.wanted = asyncio.Event()  # a fragment is asked for

    async def run(self, start: float) -> None:
        await asyncio.sleep(start)
        game = self.table.game
        while game is not None:
            # The page as loaded: the game's version when it was made, nobody shown as connected yet.
            self.game, self.heard, self.shown, self.presence = game, game.version, game.version, ""
            parts = [asyncio.create_task(self.follow(game)), asyncio.create_task(self.fetch(game))]
            try:
                game = await game.next
            finally:
                for part in parts:
                    part.cancel()
                await asyncio.gather(*parts, return_exceptions=True)

    async def follow(self, game: LiveGame) -> None:
        """Keep the game's stream open; each `changed` event (the game's version) asks for the fragment."""
        # EventSource opens its first URL again: the version the page was loaded with.
        path = f"/games/{game.id}/events?version={game.version}"

        def changed(data: str) -> None:
            try:
                version = int(data.strip('"'))
            except ValueError:
                raise ProtocolError(f"a changed event without a version: {data[:40]!r}") from None
            self.heard = max(self.heard, version)
            game.heard(self, version, time.monotonic())
            self.wanted.set()

        await follow_stream(self.stream, path, self.live.stats, changed)

    async def fetch(self, game: LiveGame) -> None:
        """The /live fragments: what they show of the game and of who is connected."""

        def path() -> str:
            return f"/games/{game.id}/live?version={self.shown}&presence={self.presence}"

        def shown(content: bytes) -> None:
            if (shown := VERSION_FIELD.search(content)) is not None:
                version = int(shown.group(1))
                self.shown = max(self.shown, version)
                game.shown(self, version, time.monotonic())
            if (present := PRESENCE_FIELD.search(content)) is not None:
                self.presence = present.group(1).decode()

        live = self.live
        await fetch_fragments(
            self.client, self.wanted, live.args.live_poll, self.rng, path, live.stats.fragments, live.clock, shown
        )


async def follow_stream(stream: EventStream, path: str, stats: LiveStats, changed: Callable[[str], None]) -> None:
    """Keep a page's event stream open: again after it ends or fails (counted as dropped), later and later
    after refusals (429/503, counted apart), as htmx's SSE extension does; `changed` takes each `changed`
    event's data (a ProtocolError it raises counts as the stream failing)."""
    refusals = 0
    while True:
        try:
            status = await stream.open(path)
        except TRANSPORT_ERRORS as error:
            stats.drops.error(f"open: {type(error).__name__}")
            await asyncio.sleep(REOPEN_PAUSE)
            continue
        if status in stats.refused:
            stats.refused[status] += 1
            refusals += 1
            await asyncio.sleep(min(REFUSED_PAUSE * 2 ** (refusals - 1), REFUSED_PAUSE_MAX))
            continue
        if status != 200:
            stats.drops.error(f"open: HTTP {status}")
            await asyncio.sleep(REOPEN_PAUSE)
            continue
        refusals = 0
        stats.opened += 1
        stats.open_now += 1
        try:
            async for name, data in stream.events():
                if name == "changed":
                    changed(data)
            stats.drops.error("ended")
        except TRANSPORT_ERRORS as error:
            stats.drops.error(type(error).__name__)
        finally:
            stats.open_now -= 1
            stream.close()
        await asyncio.sleep(REOPEN_PAUSE)


async def fetch_fragments(
    client: Client,
    wanted: asyncio.Event,
    poll: float,
    rng: random.Random,
    path: Callable[[], str],
    stats: Stats,
    clock: Clock,
    shown: Callable[[bytes], None],
) -> None:
    """A page's /live requests (timed in `stats`), one at a time: when `wanted` is set (its stream's event; the
    last one asked for waits behind the one under way, as htmx's queue does) and every `poll` seconds (0: no
    poll), the first at a random phase; `shown` takes the body of each 200 (a 204 is a page up to date)."""
    due = time.monotonic() + rng.uniform(0, poll) if poll else math.inf
    while True:
        try:
            async with asyncio.timeout_at(due if poll else None):
                await wanted.wait()
        except TimeoutError:
            pass
        now = time.monotonic()
        if now >= due:
            due = now + poll
        wanted.clear()
        answer = await send(client, "GET", path(), b"", stats, clock, timed=True)
        if answer is None or answer[0] != 200:  # counted; a 204 is a page up to date
            await asyncio.sleep(ERROR_PAUSE if answer is None else 0)
            continue
        shown(answer[1])


async def measure_lag(clock: Clock, lags: list[float]) -> None:
    """How late this load generator's event loop runs a LAG_PROBE timer, into `lags`, over the measured time."""
    while True:
        asked = time.monotonic()
        await asyncio.sleep(LAG_PROBE)
        if clock.measure_from <= asked < clock.deadline:
            lags.append((time.monotonic() - asked - LAG_PROBE) * 1000)


class LiveLoad:
    """--live: the live pages, --pages-per-game to a Flags game, and the moves in those games, --live-moves
    per second in all, each by its game's own client, the games taken in turn. A game's moves go to one
    host and its pages to each host in turn from there, so with --hosts 2 its updates cross hosts."""

    def __init__(self, ports: list[int], args: argparse.Namespace, clock: Clock):
        self.args, self.clock = args, clock
        self.stats = LiveStats()
        per_game = args.pages_per_game
        self.tables = [
            LiveTable(
                self,
                number,
                ports[number % len(ports)],
                [ports[(number + index) % len(ports)] for index in range(min(per_game, args.live - number * per_game))],
            )
            for number in range(math.ceil(args.live / per_game))
        ]

    async def run(self) -> None:
        creating = asyncio.Semaphore(CREATING_AT_ONCE)

        async def first_game(table: LiveTable) -> None:
            async with creating:
                table.game = await table.new_game()

        await asyncio.gather(*(first_game(table) for table in self.tables))
        # Page by page, a game's pages a round apart, so that each worker accepts its share of the streams.
        per_game = self.args.pages_per_game
        pages = [page for index in range(per_game) for table in self.tables for page in table.pages[index : index + 1]]
        running = [asyncio.create_task(page.run(number * PAGE_STAGGER)) for number, page in enumerate(pages)]
        running.append(asyncio.create_task(measure_lag(self.clock, self.stats.loop_lag_ms)))
        try:
            await self.moves()
            # Every move gets its verdict: at most ANNOUNCE_WITHIN after its answer.
            waiting = [move.settled.wait() for table in self.tables if table.game for move in table.game.pending]
            await asyncio.gather(*waiting)
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            for table in self.tables:
                table.close()

    async def moves(self) -> None:
        """--live-moves per second until the deadline, each to the next table not busy; then those under way end."""
        rate, clock = self.args.live_moves, self.clock
        under_way: set[asyncio.Task] = set()
        turn, due = 0, time.monotonic()
        while (now := time.monotonic()) < clock.deadline:
            if rate <= 0 or due > now:
                await asyncio.sleep((min(due, clock.deadline) if rate > 0 else clock.deadline) - now)
                continue
            # Behind by more than a second (a stalled machine): start again from now, rather than a burst.
            due = max(due + 1 / rate, now - 1)
            for _ in range(len(self.tables)):
                table = self.tables[turn]
                turn = (turn + 1) % len(self.tables)
                if table.game is not None and not table.busy:
                    table.busy = True
                    task = asyncio.create_task(table.move())
                    under_way.add(task)
                    task.add_done_callback(under_way.discard)
                    break
            else:
                self.stats.skipped += now >= clock.measure_from
        self.stats.open_at_end = self.stats.open_now
        await asyncio.gather(*under_way)


# ----- rooms ----------------------------------------------------------------------


def loopback(number: int) -> str:
    """The address room member `number` connects from, one of its own: all of 127.0.0.0/8 is this machine, and
    the server counts each address as a client, so its limits per client are each member's, as each person's."""
    return f"127.0.{1 + number // 250}.{1 + number % 250}"


def flood_address(number: int) -> str:
    """A flooding client's address: apart from the members' and from 127.0.0.1 (the players')."""
    return f"127.1.0.{1 + number}"


@dataclass
class RoomStats(LiveStats):
    """What the members of one kind of room saw: their moves (`moves.created` counts the rooms made, in races
    the rounds started), their pages (streams, fragments, the update latency to the other members), and the
    rest they asked for."""

    loads: Stats = field(default_factory=Stats)  # the game's page, as a member goes to it (a new room, a round)
    requests: Stats = field(default_factory=Stats)  # make, join, start, leave, and reads after a 409
    members: int = 0  # pages it wants open: one per member


class Notice(Announcement):
    """An announcement to some pages only: the other members'."""

    def __init__(self, version: int, answered: float, measured: bool, pages: frozenset[Member]):
        super().__init__(version, answered, measured)
        self.pages = pages


class Channel:
    """A room's news on its way to the other members' pages, each piece judged as LiveGame judges a move, by
    the fragment that shows it (or, in a co-op game, the member's own next answer): a co-op game's versions,
    or one racer's safe cells opened, on the others' scoreboards. The events are not timed: a race's do not
    say whose move they follow, and a room game's event may name the version read before the room's view, an
    older one than the view it announces (see the report)."""

    def __init__(self, stats: LiveStats):
        self.stats = stats
        self.pending: list[Notice] = []
        self.shown_by: dict[Member, int] = {}  # the newest value each page showed: it may beat the move's answer

    def announce(self, value: int, answered: float, measured: bool, pages: list[Member]) -> None:
        notice = Notice(value, answered, measured, frozenset(pages))
        self.pending.append(notice)
        for page in pages:
            if self.shown_by.get(page, -1) >= value:
                LiveGame._record(notice.shown, self.stats.update_ms, notice, page, answered)
        notice.timer = asyncio.get_running_loop().call_later(ANNOUNCE_WITHIN, self._judge, notice)
        if len(notice.shown) == len(notice.pages):
            self._judge(notice)

    def shown(self, page: Member, value: int, at: float) -> None:
        self.shown_by[page] = max(self.shown_by.get(page, -1), value)
        for notice in list(self.pending):
            if notice.version <= value and page in notice.pages and page not in notice.shown:
                LiveGame._record(notice.shown, self.stats.update_ms, notice, page, at)
                if len(notice.shown) == len(notice.pages):
                    self._judge(notice)

    def _judge(self, notice: Notice) -> None:
        if notice not in self.pending:
            return
        self.pending.remove(notice)
        notice.timer.cancel()
        if notice.measured:
            self.stats.judged += 1
            self.stats.unshown += len(notice.pages) - len(notice.shown)
        notice.settled.set()

    async def settled(self) -> None:
        """Once every piece has its verdict: at most ANNOUNCE_WITHIN after the last answer."""
        await asyncio.gather(*(notice.settled.wait() for notice in list(self.pending)))


class Member:
    """A person in a co-op room or a race, from an address and with a cookie of their own: moves in the room's
    game through the API (or the game's page, --page-moves) with the page open beside, as Page has it (its
    event stream, and its /live fragment at each `changed` event and every --live-poll seconds). The page
    shows what its newest answer showed, a move's, a read's or a fragment's: the board the next move is
    chosen on, its version and the room's signature, sent back with each fragment asked for."""

    def __init__(self, group: RoomGroup, number: int, port: int):
        rooms = group.rooms
        self.group, self.stats, self.clock = group, group.stats, rooms.clock
        self.page_moves, self.poll, self.think = rooms.args.page_moves, rooms.args.live_poll, rooms.think
        self.name = f"P{number}"
        source = loopback(number)
        self.client, self.fetcher, self.stream = Client(port, source), Client(port, source), EventStream(port, source)
        self.fetcher.cookies = self.stream.cookies = self.client.cookies
        self.rng = random.Random(f"member {rooms.args.seed} {number}")  # the cells, and the poll's phase
        self.pauses = random.Random(f"member think {rooms.args.seed} {number}")
        self.place = 0  # its place among the room's members, as the room's signature numbers them
        self.game: dict = {}  # id, board, version, status: the page's game as last shown
        self.state = ""  # the room's signature the page shows
        self.presence = ""
        self.opened = 0  # a racer: its safe cells opened, as it announced them last
        self.wanted = asyncio.Event()
        self.news = asyncio.Event()  # set as the page shows a newer version of its game
        self.following: list[asyncio.Task] = []

    async def open_page(self, game_id: str) -> bool:
        """Go to the game's page (a new room's, a new round's) and follow it; False (counted) if it did not load."""
        await self.close_page()
        answer = await send(self.client, "GET", f"/games/{game_id}", b"", self.stats.loads, self.clock, timed=True)
        if answer is None or answer[0] != 200:
            return False
        self.game = page_game(
            answer[1], {"id": game_id, "board": ["." * WIDTH] * HEIGHT, "version": -1, "status": "playing"}
        )
        self.state, self.presence, self.opened = self.game["room_state"] or "", "", 0
        # EventSource opens its first URL again: the page as loaded.
        path = f"/games/{game_id}/events?version={self.game['version']}&room_state={quote(self.state, safe='')}"
        fragments = (self.wanted, self.poll, self.rng, self.live_path, self.stats.fragments, self.clock, self.fragment)
        self.following = [
            asyncio.create_task(follow_stream(self.stream, path, self.stats, self.changed)),
            asyncio.create_task(fetch_fragments(self.fetcher, *fragments)),
        ]
        return True

    async def close_page(self) -> None:
        for task in self.following:
            task.cancel()
        await asyncio.gather(*self.following, return_exceptions=True)
        self.following = []
        self.stream.close()
        self.wanted.clear()

    def close(self) -> None:
        self.client.close()
        self.fetcher.close()
        self.stream.close()

    def live_path(self) -> str:
        game, state = self.game, quote(self.state, safe="")
        return f"/games/{game['id']}/live?version={game['version']}&presence={self.presence}&room_state={state}"

    def changed(self, data: str) -> None:
        self.wanted.set()

    def fragment(self, content: bytes) -> None:
        if (present := PRESENCE_FIELD.search(content)) is not None:
            self.presence = present.group(1).decode()
        self.take(page_game(content, self.game), time.monotonic())

    def take(self, game: dict, at: float) -> None:
        """An answer's game (a move's, a read's, a fragment's) unless the page shows a newer one; and the room's
        news in it, a race's scoreboard."""
        if game.get("room_state") is not None:
            self.state = game["room_state"]
            if self.group.kind == "race":
                self.scoreboard(at)
        if game["version"] < self.game["version"]:
            return
        if game["version"] > self.game["version"]:
            self.news.set()
        self.game = game
        if self.group.kind == "coop":
            self.group.channels[0].shown(self, game["version"], at)

    def scoreboard(self, at: float) -> None:
        """The other racers' safe cells opened, as the room's signature has them ("version|member.opened.…,…")."""
        _, _, rows = self.state.partition("|")
        try:
            for row in rows.split(",") if rows else ():
                place, opened, *_ = row.split(".")
                channel = self.group.channels.get(int(place))
                if channel is not None and int(place) != self.place:
                    channel.shown(self, int(opened), at)
        except ValueError:
            self.stats.fragments.error("room signature")

    async def guesses_wait(self) -> bool:
        """Whether this member leaves the guess to another, and waited for the game to move (at most a second).

        In a cruel game a guess while a safe cell exists is a mine: members who guessed at once from the
        same position would lose nearly every shared game (the first guess opens cells; the others then
        guess beside safe cells), so in co-op the first member guesses, the others wait, as people agree."""
        if self.group.kind != "coop" or self.place == 0:
            return False
        self.news.clear()
        try:
            await asyncio.wait_for(self.news.wait(), 1.0)
        except TimeoutError:
            pass
        return True

    async def pause(self) -> bool:
        """The think time before a move; whether there is still time for it."""
        if self.think > 0:
            await asyncio.sleep(self.pauses.expovariate(1 / self.think))
        return time.monotonic() < self.clock.deadline

    async def play(self) -> None:
        """Move in the page's game until it ends (as the page shows it) or the deadline: a proven-safe cell, else
        a guess, as the players choose them, and now and then a flag on a proven mine. A 409 (another member's
        move was there first, or the game ended) reads the game again."""
        stats, clock = self.stats, self.clock
        blank = ["." * WIDTH] * HEIGHT
        analyzer, analyzed = Analyzer(Position.empty(WIDTH, HEIGHT, MINES)), blank
        safe: list[Cell] = []
        mines: list[Cell] = []  # proven by the last analysis, not flagged yet
        read = f"/api/games/{self.game['id']}"
        while self.game["status"] == "playing":
            if not await self.pause():
                return
            board = self.game["board"]
            try:
                # The whole board is compared: the others' moves (a shared game) come in too.
                if changes := revealed(analyzed, board):
                    analyzer.reveal(changes)
            except ValueError as error:  # what the page showed does not add up: read the game, start over
                stats.moves.error(type(error).__name__)
                analyzer, analyzed = Analyzer(Position.empty(WIDTH, HEIGHT, MINES)), blank
                again = await request(self.client, read, b"", stats.requests, clock, move=False, method="GET")
                if isinstance(again, dict):
                    self.take(again, time.monotonic())
                continue
            analyzed = board
            safe[:] = [(x, y) for x, y in safe if board[y][x] == "."]
            mines[:] = [(x, y) for x, y in mines if board[y][x] == "."]
            if not safe:
                safe += safe_cells(analyzer)
                statuses = analyzer.proven_statuses()
                mines[:] = [
                    (x, y) for (x, y), status in statuses.items() if status is Status.MINE and board[y][x] == "."
                ]
                if not safe and await self.guesses_wait():
                    continue
            if mines and self.rng.random() < FLAG_SHARE:
                action, cell = "flag", mines.pop(self.rng.randrange(len(mines)))
            else:
                action, cell = "reveal", choose(analyzer, self.rng, safe)
            if cell is None:
                return
            started = time.monotonic()
            answer = await move(self.client, self.game, action, cell, stats.moves, clock, self.page_moves)
            answered = time.monotonic()
            if answer is False:
                again = await request(self.client, read, b"", stats.requests, clock, move=False, method="GET")
                if isinstance(again, dict):
                    self.take(again, time.monotonic())
                continue
            if answer is True:
                await asyncio.sleep(ERROR_PAUSE)
                continue
            ended = self.game["status"] == "playing" and answer["status"] != "playing"
            self.take(answer, answered)
            measured = started >= clock.measure_from
            if measured:
                stats.moves.moves += 1
                stats.moves.won += ended and answer["status"] == "won"
                stats.moves.lost += ended and answer["status"] == "lost"
            self.group.announce(self, answer, answered, measured)


class RoomGroup:
    """The members of one room, making it and playing its games round after round (CoopRoom, RaceRoom)."""

    kind: ClassVar[str]

    def __init__(self, rooms: RoomsLoad, number: int, first: int, size: int, ports: list[int]):
        self.rooms, self.clock = rooms, rooms.clock
        self.stats = rooms.coop if self.kind == "coop" else rooms.race
        self.stats.members += size
        # A room's members on each host in turn (--hosts): its news crosses hosts.
        self.members = [Member(self, first + place, ports[(number + place) % len(ports)]) for place in range(size)]
        self.start = first * PAGE_STAGGER
        self.playing: list[Member] = []  # the members whose page follows a game of the room this round
        self.channels: dict[int, Channel] = {}  # by member's place: co-op's one is the game's, at 0

    async def run(self) -> None:
        await asyncio.sleep(self.start)
        clock = self.clock
        try:
            while time.monotonic() < clock.deadline:
                started = time.monotonic()
                try:
                    await self.round()
                except (ValueError, LookupError, TypeError) as error:  # an answer not as the API describes it
                    if started >= clock.measure_from:
                        self.stats.requests.error(type(error).__name__)
                    await asyncio.sleep(ERROR_PAUSE)
                finally:
                    await self.close_pages()
        finally:
            for member in self.members:
                member.close()

    async def round(self) -> None:
        raise NotImplementedError

    async def make(self, members: list[Member]) -> dict | None:
        """A new room of the group's kind, made by the first of `members`, the others joining it in turn (their
        places in it); made again after errors (counted) until the deadline; None past it."""
        maker, stats, clock = members[0], self.stats, self.clock
        body = json.dumps({"kind": self.kind, **ROOM_BOARD, "name": maker.name, "colour": 0}).encode()
        while time.monotonic() < clock.deadline:
            # Timed, as a move is: what making and joining a room cost.
            room = await request(maker.client, "/api/rooms", body, stats.requests, clock, move=True)
            if isinstance(room, bool):
                await asyncio.sleep(ERROR_PAUSE)
                continue
            maker.place = 0
            for place, member in enumerate(members[1:], 1):
                join = json.dumps({"invite": room["invite"], "name": member.name, "colour": place}).encode()
                joined = await request(
                    member.client, f"/api/rooms/{room['id']}/join", join, stats.requests, clock, True
                )
                if isinstance(joined, bool):
                    await self.leave(room, members[:place])
                    await asyncio.sleep(ERROR_PAUSE)
                    break
                member.place = place
            else:
                return room
        return None

    async def leave(self, room: dict, members: list[Member]) -> None:
        for member in members:
            await send(
                member.client, "POST", f"/api/rooms/{room['id']}/leave", b"", self.stats.requests, self.clock, True
            )

    async def open_pages(self, games: dict[Member, str]) -> bool:
        """Each member's page of their game; whether all of them loaded."""
        self.playing = list(games)
        return all(await asyncio.gather(*(member.open_page(game_id) for member, game_id in games.items())))

    async def close_pages(self) -> None:
        await asyncio.gather(*(member.close_page() for member in self.members))

    def announce(self, mover: Member, answer: dict, answered: float, measured: bool) -> None:
        raise NotImplementedError


class CoopRoom(RoomGroup):
    """A co-op room: every member moves in its one game; once it ends, they leave the room and the next member in
    turn makes another (the limit on new rooms per address is then each one's, as each person's)."""

    kind = "coop"
    turn = 0

    async def round(self) -> None:
        order = self.members[self.turn :] + self.members[: self.turn]
        self.turn = (self.turn + 1) % len(self.members)
        asked = time.monotonic()
        room = await self.make(order)
        if room is None:
            return
        if asked >= self.clock.measure_from:
            self.stats.moves.created += 1
        try:
            self.channels = {0: Channel(self.stats)}
            if await self.open_pages({member: room["game"]["id"] for member in order}):
                await asyncio.gather(*(member.play() for member in order))
            await self.channels[0].settled()
        finally:
            await self.close_pages()
            await self.leave(room, order)

    def announce(self, mover: Member, answer: dict, answered: float, measured: bool) -> None:
        others = [member for member in self.playing if member is not mover]
        self.channels[0].announce(answer["version"], answered, measured, others)


class RaceRoom(RoomGroup):
    """A race: made by its first member and joined by the others; the maker starts it, each racer plays their
    own game of the board once it opens after the countdown; once every racer is out (cleared or lost) the next
    racer in turn starts the rematch. The others' moves reach a racer's page as the scoreboard."""

    kind = "race"
    room: dict | None = None
    rounds = 0

    async def round(self) -> None:
        stats, clock = self.stats, self.clock
        if self.room is None:
            self.room = await self.make(self.members)
            if self.room is None:
                return
        path = f"/api/rooms/{self.room['id']}"
        starter = self.members[self.rounds % len(self.members)]
        asked = time.monotonic()
        started = await request(starter.client, f"{path}/start", b"", stats.requests, clock, move=True)
        if isinstance(started, bool):  # counted: a rematch refused while a racer is still out there, or an error
            await asyncio.sleep(START_PAUSE)
            return
        self.rounds += 1
        if asked >= clock.measure_from:
            stats.moves.created += 1
        games = {starter: started["game"]["id"]}
        for member in self.members:
            if member is not starter:
                seen = await request(member.client, path, b"", stats.requests, clock, move=True, method="GET")
                if isinstance(seen, dict) and seen["game"] is not None:
                    games[member] = seen["game"]["id"]
        self.channels = {member.place: Channel(stats) for member in games}
        if await self.open_pages(games):
            # The boards open together after the countdown: a move before it is refused.
            await asyncio.sleep(max(0.0, started["starts_at"] - time.time()))
            await asyncio.gather(*(member.play() for member in games))
        await asyncio.gather(*(channel.settled() for channel in self.channels.values()))

    def announce(self, mover: Member, answer: dict, answered: float, measured: bool) -> None:
        opened = sum(symbol in NUMBERS for row in answer["board"] for symbol in row)
        if opened > mover.opened:  # a flag changes nothing on the scoreboard
            mover.opened = opened
            others = [member for member in self.playing if member is not mover]
            self.channels[mover.place].announce(opened, answered, measured, others)


@dataclass
class FloodStats:
    """What the flooding clients asked for and were told, over the measured time."""

    room_ms: list[float] = field(default_factory=list)  # each room asked for, made or refused (client round trip)
    room_server_ms: list[float] = field(default_factory=list)  # the same, as the server measured it
    asked: int = 0  # rooms
    made: int = 0
    tried: int = 0  # streams
    opened: int = 0
    held: int = 0  # streams open now
    held_most: int = 0
    held_at_end: int = 0
    # (what, status, message) -> count: "room" or "stream", the status, and the message it gave ("" for none).
    refusals: dict[tuple[str, int, str], int] = field(default_factory=dict)
    errors: Stats = field(default_factory=Stats)  # transport errors

    def refused(self, what: str, status: int, message: str) -> None:
        key = (what, status, message)
        self.refusals[key] = self.refusals.get(key, 0) + 1

    def count(self, what: str) -> int:
        return sum(count for (kind, _, _), count in self.refusals.items() if kind == what)


class Flooder:
    """A client that makes rooms and opens live streams as fast as it is answered, from an address of its own,
    over the measured time: refused, it asks again (a room at once, with a new cookie, so that only the limit
    on its address can stop it; a stream after FLOOD_RETRY seconds). Its streams follow the game of the first
    room it made."""

    def __init__(self, rooms: RoomsLoad, number: int, port: int):
        self.clock, self.stats = rooms.clock, rooms.flood
        self.port, self.source = port, flood_address(number)
        self.client = Client(port, self.source)
        self.name = f"Flood {number}"
        self.holding: set[asyncio.Task] = set()

    async def run(self) -> None:
        await asyncio.sleep(max(0.0, self.clock.measure_from - time.monotonic()))
        watching: asyncio.Future[tuple[str, dict[str, str]]] = asyncio.get_running_loop().create_future()
        parts = [asyncio.create_task(self.make_rooms(watching)), asyncio.create_task(self.open_streams(watching))]
        try:
            await asyncio.gather(*parts)
        finally:
            for task in (*parts, *self.holding):
                task.cancel()
            await asyncio.gather(*parts, *self.holding, return_exceptions=True)
            self.client.close()

    async def make_rooms(self, watching: asyncio.Future) -> None:
        stats, clock = self.stats, self.clock
        body = json.dumps({"kind": "coop", **ROOM_BOARD, "name": self.name}).encode()
        while time.monotonic() < clock.deadline:
            started = time.monotonic()
            stats.asked += 1
            try:
                status, headers, content = await self.client.request("POST", "/api/rooms", body)
            except TRANSPORT_ERRORS as error:
                stats.errors.error(f"room: {type(error).__name__}")
                await asyncio.sleep(ERROR_PAUSE)
                continue
            stats.room_ms.append((time.monotonic() - started) * 1000)
            if (ms := server_ms(headers)) is not None:
                stats.room_server_ms.append(ms)
            if status == 201:
                stats.made += 1
                if not watching.done():
                    watching.set_result((json.loads(content)["game"]["id"], dict(self.client.cookies)))
                continue
            try:
                message = json.loads(content)["detail"]
            except (ValueError, LookupError, TypeError):
                message = ""
            stats.refused("room", status, message if isinstance(message, str) else json.dumps(message)[:80])
            # A player in as many rooms as allowed comes back as another: the address's limit is what is left.
            self.client.cookies.clear()
            if status != 429:
                await asyncio.sleep(ERROR_PAUSE)

    async def open_streams(self, watching: asyncio.Future) -> None:
        stats, clock = self.stats, self.clock
        try:
            game_id, cookies = await asyncio.wait_for(watching, max(0.0, clock.deadline - time.monotonic()))
        except TimeoutError:
            return
        path = f"/games/{game_id}/events?version=-1"
        while time.monotonic() < clock.deadline:
            stream = EventStream(self.port, self.source)
            stream.cookies = dict(cookies)
            stats.tried += 1
            try:
                status = await stream.open(path)
            except TRANSPORT_ERRORS as error:
                stats.errors.error(f"stream: {type(error).__name__}")
                await asyncio.sleep(FLOOD_RETRY)
                continue
            if status != 200:
                found = MESSAGE_FIELD.search(stream.refusal)
                stats.refused("stream", status, html.unescape(found.group(1).decode()).strip() if found else "")
                await asyncio.sleep(FLOOD_RETRY)
                continue
            stats.opened += 1
            if len(self.holding) >= FLOOD_HELD_MAX:
                stream.close()
                await asyncio.sleep(FLOOD_RETRY)
                continue
            task = asyncio.create_task(self.hold(stream))
            self.holding.add(task)
            task.add_done_callback(self.holding.discard)

    async def hold(self, stream: EventStream) -> None:
        stats = self.stats
        stats.held += 1
        stats.held_most = max(stats.held_most, stats.held)
        try:
            async for _ in stream.events():
                pass
        except TRANSPORT_ERRORS:
            pass
        finally:
            stats.held -= 1
            stream.close()


class RoomsLoad:
    """--rooms, --races, --flood: the co-op rooms and races (a RoomGroup each, its members numbered after one
    another, each with an address of its own), their numbers per kind, and the flooding clients beside them."""

    def __init__(self, ports: list[int], args: argparse.Namespace, clock: Clock):
        self.args, self.clock = args, clock
        self.coop, self.race, self.flood = RoomStats(), RoomStats(), FloodStats()
        self.lag_ms: list[float] = []  # this load generator's event-loop lag
        self.think = (args.think if args.room_think is None else args.room_think) / 1000
        self.groups: list[RoomGroup] = []
        first = 0
        for number in range(args.rooms):
            self.groups.append(CoopRoom(self, number, first, args.room_players, ports))
            first += args.room_players
        for number in range(args.races):
            self.groups.append(RaceRoom(self, args.rooms + number, first, args.racers, ports))
            first += args.racers
        self.flooders = [Flooder(self, number, ports[number % len(ports)]) for number in range(args.flood)]

    async def run(self) -> None:
        """Until the deadline, and the verdicts of the last moves (at most ANNOUNCE_WITHIN after it)."""
        running = [asyncio.create_task(group.run()) for group in self.groups]
        running += [asyncio.create_task(flooder.run()) for flooder in self.flooders]
        measuring = [asyncio.create_task(measure_lag(self.clock, self.lag_ms)), asyncio.create_task(self.at_deadline())]
        try:
            await asyncio.gather(*running)
        finally:
            for task in running + measuring:
                task.cancel()
            await asyncio.gather(*running, *measuring, return_exceptions=True)

    async def at_deadline(self) -> None:
        await asyncio.sleep(max(0.0, self.clock.deadline - time.monotonic()))
        for stats in (self.coop, self.race):
            stats.open_at_end = stats.open_now
        self.flood.held_at_end = self.flood.held


# ----- one configuration ----------------------------------------------------------


@dataclass
class Result:
    workers: int
    seconds: float
    stats: Stats
    rss_start: float
    rss_mid: float
    rss_peak: float
    rss_end: float
    processes: int
    server_cpu: float  # cores
    client_cpu: float  # cores
    slow: SlowStats | None  # the slow clients' numbers; None without --slow
    integrity: str = "not checked"  # SQLite's PRAGMA integrity_check of the games file once the server stopped
    hosts: int = 1
    redis_cpu: float | None = None  # cores; None without --store redis
    live: LiveStats | None = None  # None without --live
    rooms: RoomsLoad | None = None  # None without --rooms, --races or --flood
    memory: dict[int, Series] | None = None  # per pid; None without --sample
    # The machine is shared: what everything else took during the measured time, and the load when it began.
    others_cpu: float = float("nan")  # cores
    load_average: float = float("nan")  # the 1-minute one


@dataclass
class Servers:
    """What one configuration runs: `kaboom serve` per host, and the redis-server they share if any."""

    workers: int
    ports: list[int]
    roots: list[int]  # each host's server process
    redis: int | None = None


def start_server(
    workers: int,
    data: Path,
    port: int,
    store: str | None = None,
    secret: str | None = None,
    log_name: str = "server.log",
    args: argparse.Namespace | None = None,
    command: list[str] | None = None,
) -> tuple[subprocess.Popen, Path]:
    """`kaboom serve` (or `command`, bench/ceiling.py's bare app) with the run's settings in its environment."""
    env = {
        **os.environ,
        "KABOOM_HOST": HOST,
        "KABOOM_PORT": str(port),
        "KABOOM_DATABASE": str(data / DATABASE_NAME),
        "KABOOM_WORKERS": str(workers),
        # Every simulated player and live page comes from 127.0.0.1 (room members and flooders have addresses
        # of their own): the per-client limits on new games, on open connections (50 players and 8 slow
        # clients on one worker are 58), on requests at once and on live streams must not bite.
        "KABOOM_CREATE_LIMIT": str(10**9),
        "KABOOM_CONNECTIONS_PER_CLIENT": str(10**6),
        "KABOOM_REQUESTS_PER_CLIENT": str(10**6),
        "KABOOM_LIVE_STREAMS_PER_CLIENT": str(10**6),
        "KABOOM_GAMES_PER_PLAYER": "20",
    }
    if args is not None and args.flood:
        # The flooders are to meet the limit on streams per client as it stands; the members, who have
        # an address each, hold one stream each, and --flood is refused beside --live.
        del env["KABOOM_LIVE_STREAMS_PER_CLIENT"]
    if args is not None and args.race_countdown is not None:
        env["KABOOM_RACE_COUNTDOWN"] = str(args.race_countdown)
    if store is None:
        env.pop("KABOOM_STORE", None)  # the temporary SQLite file
    else:
        env["KABOOM_STORE"] = store
    if secret is not None:  # hosts that share it take each other's cookies
        env["KABOOM_SECRET_KEY"] = secret
    log = data / log_name
    kaboom = Path(sys.executable).with_name("kaboom")
    with open(log, "wb") as output:
        # Its own session, so the whole tree can be stopped by its group id if it ignores SIGTERM;
        # cwd in the temporary directory, so no .env file of the checkout is read.
        # --server-cpus: taskset runs kaboom in its own place (the same pid), and the workers it starts inherit it.
        pinned = ["taskset", "--cpu-list", args.server_cpus] if args is not None and args.server_cpus else []
        server = subprocess.Popen(
            [*pinned, *(command or [str(kaboom), "serve"])],
            env=env,
            cwd=data,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return server, log


def start_redis(data: Path) -> tuple[subprocess.Popen, str]:
    """A redis-server of the run's own on a free loopback port, writing nothing to disk: its process and its
    URL, once it answers."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("--store redis needs redis-server on the PATH (Debian: apt-get install redis-server)")
    port = free_port()
    log = data / "redis.log"
    command = [binary, "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no", "--daemonize", "no"]
    with open(log, "wb") as output:
        redis = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, cwd=data, start_new_session=True)
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection((HOST, port), timeout=1) as probe:
                probe.sendall(b"PING\r\n")
                if probe.recv(64).startswith(b"+PONG"):
                    return redis, f"redis://{HOST}:{port}/0"
        except OSError:
            pass
        if redis.poll() is not None or time.monotonic() > deadline:
            stop_server(redis)
            tail = log.read_text(errors="replace").strip().splitlines()[-10:]
            raise SystemExit("redis-server did not start:\n" + "\n".join(tail))
        time.sleep(0.05)


async def wait_until_up(server: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + 30
    client = Client(port)
    try:
        while True:
            try:
                if (await client.request("GET", "/healthz"))[0] == 200:
                    return
            except TRANSPORT_ERRORS:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace").strip().splitlines()[-10:]
                raise SystemExit("the server did not start:\n" + "\n".join(tail))
            await asyncio.sleep(0.1)
    finally:
        client.close()


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM, then wait for the server and every process it started (uvicorn's workers and helpers)."""
    helpers = server_processes(server.pid)[1:] if server.poll() is None else []
    server.terminate()
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + 10
    # is_running() compares creation times too, so a helper's pid reused by another process does not hold this up.
    while server.poll() is None or any(process.is_running() for process in helpers):
        if time.monotonic() > deadline:
            try:
                os.killpg(server.pid, signal.SIGKILL)  # the process group made for this server only
            except ProcessLookupError:
                pass
            server.wait(10)
            break
        time.sleep(0.1)


def configuration_name(servers: Servers) -> str:
    hosts = f"{len(servers.ports)} hosts × " if len(servers.ports) > 1 else ""
    return f"{hosts}{servers.workers} worker(s)"


async def run_load(
    servers: Servers,
    database: Path,
    args: argparse.Namespace,
    progress: Progress,
    sampler: Sampler | None,
    player: type[Player] = Player,
) -> Result:
    now = time.monotonic()
    clock = Clock(measure_from=now + args.warmup, deadline=now + args.warmup + args.seconds)
    stats = Stats()
    slow = SlowStats() if args.slow else None
    ports, roots, workers = servers.ports, servers.roots, servers.workers
    clients: list[Player] = [
        player(ports[number % len(ports)], number, args, stats, clock) for number in range(args.players)
    ]
    if slow is not None:
        clients += [
            SlowClient(ports[number % len(ports)], number, args, slow, clock, database) for number in range(args.slow)
        ]
    tasks = [asyncio.create_task(client.run()) for client in clients]
    live = LiveLoad(ports, args, clock) if args.live else None
    # The live pages go on after the deadline until every move has its verdict (ANNOUNCE_WITHIN), not longer.
    extra = [asyncio.create_task(live.run())] if live is not None else []
    rooms = RoomsLoad(ports, args, clock) if args.rooms or args.races or args.flood else None
    if rooms is not None:  # likewise
        extra.append(asyncio.create_task(rooms.run()))
    name = configuration_name(servers)
    memory: dict[int, Series] | None = None
    if sampler is not None:
        memory = {}
        extra.append(asyncio.create_task(sampler.run(name, servers, clock, memory)))
    task = progress.add_task(f"{name}: warm-up", total=args.warmup + args.seconds)
    samples: list[float] = []
    rss_mid = None  # the first sample past half the measured time: growth after it is what a leak looks like
    rss_start, processes, cpu_start, client_start, redis_start, machine_start = 0.0, 0, 0.0, 0.0, 0.0, 0.0
    load_average = float("nan")
    try:
        while (now := time.monotonic()) < clock.deadline:
            if not samples and now >= clock.measure_from:
                rss_start, processes = rss_mb(*roots)
                samples.append(rss_start)
                cpu_start, client_start = cpu_seconds(*roots), time.process_time()
                redis_start = cpu_seconds(servers.redis) if servers.redis else 0.0
                machine_start, load_average = machine_busy_seconds(), os.getloadavg()[0]
                progress.update(task, description=f"{name}: measuring")
            elif samples:
                samples.append(rss_mb(*roots)[0])
                if rss_mid is None and now >= clock.measure_from + args.seconds / 2:
                    rss_mid = samples[-1]
            progress.update(task, completed=min(now - (clock.measure_from - args.warmup), args.warmup + args.seconds))
            if samples:
                await asyncio.sleep(min(MEMORY_EVERY, max(0.01, clock.deadline - now)))
            else:
                await asyncio.sleep(min(0.2, clock.measure_from - now + 0.01))
        rss_end, _ = rss_mb(*roots)
        server_cpu = (cpu_seconds(*roots) - cpu_start) / args.seconds
        client_cpu = (time.process_time() - client_start) / args.seconds
        redis_cpu = (cpu_seconds(servers.redis) - redis_start) / args.seconds if servers.redis else None
        machine_cpu = (machine_busy_seconds() - machine_start) / args.seconds
        others_cpu = machine_cpu - server_cpu - client_cpu - (redis_cpu or 0.0)
        samples.append(rss_end)
        progress.update(task, description=f"{name}: finishing", completed=args.warmup + args.seconds)
        pages = live is not None or rooms is not None
        done, pending = await asyncio.wait(tasks + extra, timeout=GRACE + (ANNOUNCE_WITHIN if pages else 0))
        for stuck in pending:
            stuck.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for client, finished in zip(clients, tasks, strict=True):
            if finished in done and (error := finished.exception()) is not None:
                client.stats.error(type(error).__name__)
        for finished in extra:
            if finished in done and (error := finished.exception()) is not None:
                raise error  # a fault of this load generator's, not the server's
    finally:
        for running in tasks + extra:
            running.cancel()
        await asyncio.gather(*tasks, *extra, return_exceptions=True)
        progress.remove_task(task)
    rss = (rss_start, rss_end if rss_mid is None else rss_mid, max(samples), rss_end)
    result = Result(workers, args.seconds, stats, *rss, processes, server_cpu, client_cpu, slow)
    result.hosts, result.redis_cpu, result.memory = len(ports), redis_cpu, memory
    result.others_cpu, result.load_average = others_cpu, load_average
    result.live = live.stats if live is not None else None
    result.rooms = rooms
    return result


def new_event_loop():
    """uvloop's loop factory when it is installed (it comes with uvicorn's extras), else None: asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run_configuration(
    workers: int,
    args: argparse.Namespace,
    progress: Progress,
    sampler: Sampler | None,
    command: list[str] | None = None,
    player: type[Player] = Player,
) -> Result:
    """One configuration: its servers on a fresh store, the load, then the servers stopped. `command` and `player`
    (bench/ceiling.py) start another server than `kaboom serve` and play it with another Player."""
    with tempfile.TemporaryDirectory(prefix="kaboom-load-") as data:
        data = Path(data)
        database = data / DATABASE_NAME
        redis, store = start_redis(data) if args.store == "redis" else (None, None)
        ports: list[int] = []
        while len(ports) < args.hosts:
            if (port := free_port()) not in ports:
                ports.append(port)
        secret = secrets.token_urlsafe(32)
        started: list[tuple[subprocess.Popen, Path]] = []
        try:
            for host, port in enumerate(ports):
                log_name = "server.log" if host == 0 else f"server-host{host}.log"
                started.append(start_server(workers, data, port, store, secret, log_name, args, command))
            servers = Servers(workers, ports, [server.pid for server, _ in started], redis.pid if redis else None)
            with asyncio.Runner(loop_factory=new_event_loop()) as runner:
                for (server, log), port in zip(started, ports, strict=True):
                    runner.run(wait_until_up(server, port, log))
                result = runner.run(run_load(servers, database, args, progress, sampler, player))
        finally:
            for server, _ in started:
                stop_server(server)
            if redis is not None:
                stop_server(redis)
            for host, (_, log) in enumerate(started if args.keep_log else ()):
                # The server's own account of errors the table counts; the temporary directory goes.
                suffix = f".{workers}-workers.log" if host == 0 else f".{workers}-workers.host{host}.log"
                kept = Path(args.keep_log).with_suffix(suffix)
                shutil.copyfile(log, kept)
                which = f" (host {host})" if host else ""
                print(f"server log of the {workers}-worker run{which}: {kept}", file=sys.stderr)
        if store is None:
            # Many processes wrote the file at once for the whole run: is it still sound?
            with closing(sqlite3.connect(database)) as connection:
                result.integrity = "; ".join(row[0] for row in connection.execute("PRAGMA integrity_check"))
        return result


# ----- the report -----------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    """Nearest rank: the smallest value with at least p% of the values at or below it."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def latencies(values: list[float], points: tuple[int, ...] = (50, 95, 99)) -> str:
    return " / ".join(f"{percentile(values, p):.1f}" for p in points)


def errors_text(*stats: Stats) -> str:
    """How many errors, and of which kinds, over all of `stats`."""
    kinds: dict[str, int] = {}
    for each in stats:
        for kind, count in each.error_kinds.items():
            kinds[kind] = kinds.get(kind, 0) + count
    total = sum(each.errors for each in stats)
    return f"{total} ({', '.join(f'{kind}: {count}' for kind, count in sorted(kinds.items()))})" if total else "0"


def report(results: list[Result], args: argparse.Namespace) -> None:
    console = Console(width=180)
    play = "random covered cell" if args.random else "solver-guided (safe cell, else forced guess)"
    think = f"think {args.think:g} ms mean (exponential)" if args.think > 0 else "no think time"
    beside = f", beside {args.slow} slow clients" if args.slow else ""
    beside += f", beside {args.live} live pages" if args.live else ""
    beside += f", beside {args.rooms} co-op rooms" if args.rooms else ""
    beside += f", beside {args.races} races" if args.races else ""
    beside += f" and {args.flood} flooding client(s)" if args.flood else ""
    play += ", moves through the game page" if args.page_moves else ""
    where = f", {args.hosts} hosts on one store" if args.hosts > 1 else ""
    where += ", games in Redis" if args.store == "redis" else ""
    table = Table(
        title=f"{args.players} players, Expert {WIDTH}x{HEIGHT}/{MINES} cruel, {play}, {think}{beside}{where}, "
        f"{args.seconds:g} s measured after {args.warmup:g} s warm-up; ms are p50 / p95 / p99"
    )
    columns = (
        "workers",
        "moves/s",
        "moves",
        "client ms",
        "server ms",
        "errors",
        "409",
        "games won/lost",
        "new games/s",
        "CPU server/client" + ("/redis" if args.store == "redis" else ""),
        "RSS MB start / mid / peak / end",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for r in results:
        s = r.stats
        table.add_row(
            workers_text(r),
            f"{s.moves / r.seconds:.0f}",
            str(s.moves),
            latencies(s.client_ms),
            latencies(s.server_ms),
            errors_text(s),
            str(s.refused),
            f"{s.won + s.lost} ({s.won}/{s.lost})",
            f"{s.created / r.seconds:.0f}",
            f"{r.server_cpu:.2f} / {r.client_cpu:.2f}" + (f" / {r.redis_cpu:.2f}" if r.redis_cpu is not None else ""),
            f"{r.rss_start:.0f} / {r.rss_mid:.0f} / {r.rss_peak:.0f} / {r.rss_end:.0f} ({r.processes} proc)",
        )
    console.print(table)
    pinned = f"; the server pinned to CPUs {args.server_cpus}, this load generator to the others"
    pinned = pinned if args.server_cpus else ""
    for r in results:
        console.print(
            f"  {workers_text(r)} worker(s): {psutil.cpu_count()} cores; other processes used {r.others_cpu:.2f} of "
            f"them while measuring; load average {r.load_average:.2f} as measuring began{pinned}"
        )
    if args.slow:
        report_slow(console, results, args)
    if args.live:
        report_live(console, results, args)
    if args.rooms or args.races or args.flood:
        report_rooms(console, results, args)
    if args.sample:
        report_memory(console, results, args)
    console.print("Targets:")

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    two = [r for r in results if r.workers == 2]
    # With pages alone (--live, the rooms: --players 0) the players' targets are not measured.
    if args.players and two:
        rate = two[0].stats.moves / two[0].seconds
        console.print(f"  ≥ {TARGET_MOVES} moves/s with 2 workers: {rate:.0f} — {verdict(rate >= TARGET_MOVES)}")
    elif args.players:
        console.print(f"  ≥ {TARGET_MOVES} moves/s with 2 workers: not measured (add 2 to --workers)")
    for r in results if args.players else ():
        p99 = percentile(r.stats.client_ms, 99)
        ok = verdict(p99 <= TARGET_P99)
        who = f"{workers_text(r)} worker(s)"
        console.print(f"  p99 ≤ {TARGET_P99} ms (client round trip), {who}: {p99:.1f} ms — {ok}")
    target = f"p95 of the other players ≤ {TARGET_SLOW_P95} ms with --slow {TARGET_SLOW_CLIENTS}"
    if not args.slow:
        console.print(f"  {target}: not measured (add --slow {TARGET_SLOW_CLIENTS})")
    for r in results if args.slow else ():
        p95 = percentile(r.stats.client_ms, 95)
        # Fewer slow clients than the target's is an easier run: its figure is shown, with no verdict.
        ok = verdict(p95 <= TARGET_SLOW_P95) if args.slow >= TARGET_SLOW_CLIENTS else f"with --slow {args.slow} only"
        console.print(f"  {target}, {workers_text(r)} worker(s): {p95:.1f} ms — {ok}")
    for r in results if args.live else ():
        p95 = percentile(r.live.update_ms, 95)
        console.print(
            f"  update latency p95 ≤ {TARGET_UPDATE_P95} ms with {args.live} live pages, "
            f"{workers_text(r)} worker(s): {p95:.1f} ms — {verdict(p95 <= TARGET_UPDATE_P95)}"
        )
    for r in [result for result in results if result.rooms is not None]:
        beside = f" beside {args.flood} flooding client(s)" if args.flood else ""
        kinds = (("players'", r.stats), ("co-op members'", r.rooms.coop.moves), ("racers'", r.rooms.race.moves))
        for who, stats in kinds:
            if stats.client_ms:
                p95 = percentile(stats.client_ms, 95)
                target = f"p95 of the {who} moves ≤ {TARGET_FLOOD_P95} ms{beside}, {workers_text(r)} worker(s)"
                console.print(f"  {target}: {p95:.1f} ms — {verdict(p95 <= TARGET_FLOOD_P95)}")
        if args.flood:
            flood = r.rooms.flood
            rooms, streams = flood.count("room"), flood.count("stream")
            silent = sum(count for (_, _, message), count in flood.refusals.items() if not message)
            ok = verdict(rooms > 0 and streams > 0 and silent == 0)
            console.print(
                f"  the flooders refused, each with a message, {workers_text(r)} worker(s): rooms {rooms}, "
                f"streams {streams}, without a message {silent} — {ok}"
            )
    for r in results:
        console.print(f"  0 errors, {workers_text(r)} worker(s): {r.stats.errors} — {verdict(r.stats.errors == 0)}")
    for r in results if args.store == "sqlite" else ():
        intact = verdict(r.integrity == "ok")
        console.print(f"  the games file intact after the run, {workers_text(r)} worker(s): {r.integrity} — {intact}")
    for r in results:
        growth = r.rss_end - r.rss_start
        share = growth / r.rss_start if r.rss_start else float("nan")
        flat = verdict(abs(share) <= MEMORY_FLAT)
        change = f"{r.rss_start:.0f} → {r.rss_end:.0f} MB, {growth:+.1f} MB ({share:+.1%}) over {r.seconds:g} s"
        target = f"memory flat (end within {MEMORY_FLAT:.0%} of start), {workers_text(r)} worker(s)"
        console.print(f"  {target}: {change} — {flat}")
        console.print(f"      {r.rss_end - r.rss_mid:+.1f} MB in the second half", end="")
        console.print(f"; the target is over 10 minutes: --seconds {MEMORY_RUN}" if r.seconds < MEMORY_RUN else "")


def report_slow(console: Console, results: list[Result], args: argparse.Namespace) -> None:
    """The slow clients' table: what they asked for and got, apart from the players' numbers."""
    table = Table(
        title=f"{args.slow} slow clients, {SLOW_SIDE}x{SLOW_SIDE}/{SLOW_MINES} cruel with {SLOW_SHOWN:.0%} of the "
        "safe cells shown at random, debug overlay on: the page and a reveal through the API in turn, no think "
        "time; ms are p50 / p95"
    )
    columns = (
        "workers",
        "requests/s",
        "pages / reveals",
        "page client ms",
        "page server ms",
        "reveal client ms",
        "reveal server ms",
        "errors",
        "409",
        "positions placed",
        "games won/lost",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for r in results:
        pages, reveals = r.slow.pages, r.slow.reveals
        answered = len(pages.client_ms) + len(reveals.client_ms)
        table.add_row(
            str(r.workers),
            f"{answered / r.seconds:.1f}",
            f"{len(pages.client_ms)} / {len(reveals.client_ms)}",
            latencies(pages.client_ms, (50, 95)),
            latencies(pages.server_ms, (50, 95)),
            latencies(reveals.client_ms, (50, 95)),
            latencies(reveals.server_ms, (50, 95)),
            errors_text(pages, reveals),
            str(pages.refused + reveals.refused),
            str(reveals.created),
            f"{reveals.won + reveals.lost} ({reveals.won}/{reveals.lost})",
        )
    console.print(table)


def workers_text(r: Result) -> str:
    return f"{r.hosts}×{r.workers}" if r.hosts > 1 else str(r.workers)


def report_live(console: Console, results: list[Result], args: argparse.Namespace) -> None:
    """The live pages' table: how soon a move reached each page of its game; then what became of the streams."""
    poll = f", and a poll every {args.live_poll:g} s" if args.live_poll else ", no poll"
    table = Table(
        title=f"{args.live} live pages, {args.pages_per_game} per Flags game 16x16/51 (a stream each, the /live "
        f"fragment at each event{poll}), {args.live_moves:g} moves/s in those games. From a move's answer to each "
        "page of its game: its event (event ms) and a fragment showing it (update ms); late events: moves some page "
        f"had no event of within {ANNOUNCE_WITHIN:g} s; late fragments: (move, page) pairs not shown within it; "
        "ms are p50 / p95 / p99"
    )
    columns = (
        "workers",
        "moves",
        "event ms",
        "update ms",
        "late events",
        "late fragments",
        "/live ms",
        "Flags move ms",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for r in results:
        live = r.live
        table.add_row(
            workers_text(r),
            str(live.judged),
            latencies(live.event_ms),
            latencies(live.update_ms),
            str(live.unannounced),
            str(live.unshown),
            latencies(live.fragments.client_ms),
            latencies(live.moves.client_ms),
        )
    console.print(table)
    for r in results:
        live = r.live
        console.print(
            f"  {workers_text(r)} worker(s), over the whole run: streams open at the end {live.open_at_end} of "
            f"{args.live}, opened {live.opened}, ended or failed unexpectedly (reopened) {errors_text(live.drops)}, "
            f"refused 429: {live.refused[429]}, 503: {live.refused[503]}; measured: errors of moves and /live "
            f"{errors_text(live.moves, live.fragments)}, 409 {live.moves.refused}, games ended and replaced "
            f"{live.replaced}, moves not made (every game busy) {live.skipped}; this load generator's event-loop lag "
            f"ms p50 / p99 / max {latencies(live.loop_lag_ms, (50, 99, 100))}"
        )


def report_rooms(console: Console, results: list[Result], args: argparse.Namespace) -> None:
    """The rooms' table: per kind, the members' moves and how soon the other members' pages showed them, then
    what became of their streams; and the flooders' table, with every refusal's words."""
    moves = "the game's page (htmx)" if args.page_moves else "the API"
    think = args.think if args.room_think is None else args.room_think
    paced = f"think {think:g} ms mean" if think > 0 else "no think time"
    poll = f", a poll every {args.live_poll:g} s" if args.live_poll else ", no poll"
    table = Table(
        title=f"{args.rooms} co-op rooms of {args.room_players} and {args.races} races of {args.racers}, Expert "
        f"{WIDTH}x{HEIGHT}/{MINES} cruel, moves through {moves}, {paced}, each member's page of the game open (its "
        f"stream, the /live fragment at each event{poll}). From a move's answer to each other member's page: a "
        "fragment showing it (update ms: co-op, the game's version; a race, the mover's cells opened on the "
        f"scoreboard); late: (move, page) pairs not shown within {ANNOUNCE_WITHIN:g} s of "
        "those judged; rooms: made (a race: rounds started); ms are p50 / p95 / p99"
    )
    columns = (
        "workers",
        "kind",
        "moves/s",
        "client ms",
        "server ms",
        "409",
        "errors",
        "games won/lost",
        "rooms",
        "update ms",
        "late / judged",
        "/live ms",
        "page ms",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for r in results:
        for kind, stats in (("co-op", r.rooms.coop), ("race", r.rooms.race)):
            if not stats.members:
                continue
            moved = stats.moves
            table.add_row(
                workers_text(r),
                kind,
                f"{moved.moves / r.seconds:.0f}",
                latencies(moved.client_ms),
                latencies(moved.server_ms),
                str(moved.refused),
                errors_text(moved),
                f"{moved.won + moved.lost} ({moved.won}/{moved.lost})",
                str(moved.created),
                latencies(stats.update_ms),
                f"{stats.unshown} / {stats.judged}",
                latencies(stats.fragments.client_ms),
                latencies(stats.loads.client_ms),
            )
    console.print(table)
    for r in results:
        for kind, stats in (("co-op", r.rooms.coop), ("race", r.rooms.race)):
            if stats.members:
                console.print(
                    f"  {workers_text(r)} worker(s), {kind}, over the whole run: streams open at the end "
                    f"{stats.open_at_end} of {stats.members}, opened {stats.opened}, ended or failed (reopened) "
                    f"{errors_text(stats.drops)}, refused 429: {stats.refused[429]}, 503: {stats.refused[503]}; "
                    f"measured: errors of /live, page loads and room requests "
                    f"{errors_text(stats.fragments, stats.loads, stats.requests)}, 409 of room requests "
                    f"{stats.requests.refused}, room requests ms {latencies(stats.requests.client_ms)}"
                )
        # What a move costs the server all in: its answer, and the streams and fragments of every page it wakes.
        moves = r.stats.moves + r.rooms.coop.moves.moves + r.rooms.race.moves.moves
        per_move = r.server_cpu * r.seconds / moves * 1000 if moves else float("nan")
        console.print(
            f"  {workers_text(r)} worker(s): server CPU per move, players' and members' together, with what it "
            f"wakes: {per_move:.1f} ms; this load generator's event-loop lag ms p50 / p99 / max "
            f"{latencies(r.rooms.lag_ms, (50, 99, 100))}"
        )
    if args.flood:
        report_flood(console, results, args)


def report_flood(console: Console, results: list[Result], args: argparse.Namespace) -> None:
    table = Table(
        title=f"{args.flood} flooding client(s), each from an address of its own, over the measured time: rooms "
        "asked for without a pause (a new cookie after each refusal), live streams of its first room's game "
        f"held open, asked for again {FLOOD_RETRY:g} s after a refusal; ms are p50 / p95 / p99"
    )
    columns = (
        "workers",
        "rooms asked",
        "made",
        "refused",
        "room ms",
        "room server ms",
        "streams asked",
        "opened",
        "held most / at end",
        "refused",
        "errors",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for r in results:
        flood = r.rooms.flood
        table.add_row(
            workers_text(r),
            str(flood.asked),
            str(flood.made),
            str(flood.count("room")),
            latencies(flood.room_ms),
            latencies(flood.room_server_ms),
            str(flood.tried),
            str(flood.opened),
            f"{flood.held_most} / {flood.held_at_end}",
            str(flood.count("stream")),
            errors_text(flood.errors),
        )
    console.print(table)
    for r in results:
        for (what, status, message), count in sorted(r.rooms.flood.refusals.items()):
            said = message or "(no message)"
            console.print(f"  {workers_text(r)} worker(s): {what} refused {status} ×{count}: {said}")


def report_memory(console: Console, results: list[Result], args: argparse.Namespace) -> None:
    """Per process: its RSS over the measured time, and its trend over the second half (whether it levels off)."""
    for r in results:
        table = Table(
            title=f"RSS per process (MB), {workers_text(r)} worker(s), sampled every {args.sample:g} s into "
            f"{args.samples_csv}; slope by least squares over the second half of the {r.seconds:g} s"
        )
        for column in ("pid", "role", "samples", "first", "min", "max", "last", "MB/min, second half"):
            table.add_column(column, justify="left" if column == "role" else "right")
        for pid, series in sorted(r.memory.items(), key=lambda item: (item[1].role, item[0])):
            values = [mb for _, mb in series.points]
            table.add_row(
                str(pid),
                series.role,
                str(len(values)),
                f"{values[0]:.1f}",
                f"{min(values):.1f}",
                f"{max(values):.1f}",
                f"{values[-1]:.1f}",
                f"{series.slope(r.seconds / 2):+.2f}",
            )
        console.print(table)


def build_parser() -> argparse.ArgumentParser:
    """The options, with their defaults (bench/ceiling.py plays as load.py does with them)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=50, help="simulated players at once (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=60, help="seconds measured per run (default %(default)s)")
    parser.add_argument("--warmup", type=float, default=5, help="seconds played before measuring (default %(default)s)")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated (default %(default)s)")
    parser.add_argument(
        "--think",
        type=float,
        default=0,
        metavar="MS",
        help="mean think time in ms before each move and new game, exponentially distributed (default 0: none)",
    )
    parser.add_argument("--random", action="store_true", help="reveal random covered cells: the old stress variant")
    parser.add_argument(
        "--slow",
        type=int,
        default=0,
        metavar="N",
        help="N more clients asking for slow work without a pause: the page of a slow position with the debug "
        "overlay on, and reveals in it (default 0: none)",
    )
    parser.add_argument(
        "--live",
        type=int,
        default=0,
        metavar="N",
        help="N live pages of Flags games besides: each an event stream, the /live fragment at each event "
        "(default 0: none)",
    )
    parser.add_argument(
        "--live-moves",
        type=float,
        default=5,
        metavar="R",
        help="moves per second in all in the live pages' games, the games in turn (default %(default)s)",
    )
    parser.add_argument("--pages-per-game", type=int, default=2, help="live pages per game (default %(default)s)")
    parser.add_argument(
        "--live-poll",
        type=float,
        default=3,
        metavar="SECONDS",
        help="a live page's fallback poll of /live, as templates/game.html's (default %(default)s; 0: none)",
    )
    parser.add_argument(
        "--rooms",
        type=int,
        default=0,
        metavar="N",
        help="N co-op rooms besides, --room-players each, every member with the game's page open (default 0: none)",
    )
    parser.add_argument("--room-players", type=int, default=3, help="members per co-op room (default %(default)s)")
    parser.add_argument(
        "--races", type=int, default=0, metavar="M", help="M races besides, --racers each (default 0: none)"
    )
    parser.add_argument("--racers", type=int, default=8, help="racers per race (default %(default)s)")
    parser.add_argument(
        "--room-think",
        type=float,
        metavar="MS",
        help="the room members' mean think time in ms before each move (default: --think)",
    )
    parser.add_argument(
        "--page-moves",
        action="store_true",
        help="every move through the game's page, as htmx sends it (the panel and changed cells come back, with "
        "the room's view in a room), not the JSON API",
    )
    parser.add_argument(
        "--flood",
        type=int,
        default=0,
        metavar="K",
        help="K flooding clients, each from an address of its own: rooms and live streams until refused, and on "
        "(default 0: none)",
    )
    parser.add_argument(
        "--race-countdown",
        type=float,
        metavar="SECONDS",
        help="KABOOM_RACE_COUNTDOWN for the server (default: the server's own)",
    )
    parser.add_argument(
        "--server-cpus",
        metavar="LIST",
        help="run the server on these CPUs only (taskset's list, 0 for a 1-vCPU host) and this load generator "
        "on the others",
    )
    parser.add_argument(
        "--store",
        choices=("sqlite", "redis"),
        default="sqlite",
        help="where the games are kept: a temporary SQLite file, or a redis-server started for each run",
    )
    parser.add_argument(
        "--hosts",
        type=int,
        default=1,
        help="kaboom serve processes on one store, each with --workers; players and pages spread over them",
    )
    parser.add_argument(
        "--sample",
        type=float,
        default=0,
        metavar="SECONDS",
        help="sample every server process's RSS (and redis-server's) this often into --samples-csv, and print "
        "each one's first, least, most and last, and its slope over the second half (default 0: no)",
    )
    parser.add_argument("--samples-csv", metavar="PATH", help="where --sample writes its samples")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep-log", metavar="PATH", help="keep the server's log as PATH.<N>-workers.log")
    return parser


def main() -> None:
    parser = build_parser()
    args = parser.parse_args()
    try:
        worker_counts = [int(part) for part in args.workers.split(",") if part.strip()]
    except ValueError:
        parser.error(f"--workers: expected a comma list of numbers, got {args.workers!r}")
    # Live pages or rooms alone (--players 0) measure what they cost by themselves.
    others = args.live or args.rooms or args.races or args.flood
    too_small = args.players < (0 if others else 1) or args.seconds <= 0 or args.warmup < 0 or args.think < 0
    too_small |= args.slow < 0 or args.live < 0 or args.live_moves < 0 or args.live_poll < 0 or args.sample < 0
    too_small |= args.rooms < 0 or args.races < 0 or not 0 <= args.flood <= 250 or (args.room_think or 0) < 0
    if not worker_counts or min(worker_counts) < 1 or args.hosts < 1 or args.pages_per_game < 1 or too_small:
        parser.error(
            "--players (but with --live, --rooms, --races or --flood), --hosts, --pages-per-game and every "
            "--workers count must be at least 1, --seconds above 0, --warmup, --think, --room-think, --slow, "
            "--live, --live-moves, --live-poll, --sample, --rooms and --races at least 0, --flood 0 to 250"
        )
    if not 2 <= args.room_players <= 8 or not 2 <= args.racers <= 8:
        parser.error("--room-players and --racers: a room has 2 to 8 players")
    if args.flood and args.live:
        parser.error("--flood keeps the limit on streams per client, which --live's pages (all from 127.0.0.1) meet")
    if args.slow and args.store != "sqlite":
        parser.error("--slow places its positions in the SQLite file: it needs --store sqlite")
    if args.sample and not args.samples_csv:
        parser.error("--sample needs --samples-csv PATH")
    if args.server_cpus:
        pin_apart(args.server_cpus, parser.error)  # start_server runs the server under taskset
    sampler = Sampler(args.sample, Path(args.samples_csv)) if args.sample else None
    results = []
    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    try:
        with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
            for workers in worker_counts:
                results.append(run_configuration(workers, args, progress, sampler))
    except KeyboardInterrupt:
        print("interrupted; the server is stopped", file=sys.stderr)
        if results:
            report(results, args)
        sys.exit(130)
    finally:
        if sampler is not None:
            sampler.close()
    report(results, args)


if __name__ == "__main__":
    main()
