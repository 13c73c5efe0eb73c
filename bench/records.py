"""Records benchmark (issue 23 #10): what a player's records cost with a long history, and what asking for them
costs everyone else.

For each history size, fills a fresh SQLite file (or, with --redis, a redis-server of its own) with that many
results for one player, as the store keeps them and as the code before tallies wrote them (results only), then
starts `kaboom serve` on it and measures, over HTTP:
- the first GET /api/records of that player (with tallies: the one time their old results are counted), then
  the median and p95 of --requests more;
- another player's moves (reveals on Beginner classic games, a new game after each end): their p95 idle, and
  while 4 threads of the history's player (one client, one cookie) ask for their records without a pause,
  with how many records answers those threads got a second.
Before the server, it also times in this process what each way costs without HTTP: records_of over every
result (the way before tallies), recount (the one-off count of old results) and tallied (reading the tallies).
`--code DIR` runs the server from another checkout, for the figures before a change:

    .venv/bin/python bench/records.py
    .venv/bin/python bench/records.py --results 20000,100000 --redis
    git archive <commit> | tar -x -C /tmp/before && .venv/bin/python bench/records.py --code /tmp/before

Run by hand; never part of the test suite.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

import httpx
import itsdangerous

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.results.records import records_of, recount, tallied  # noqa: E402
from app.service.kept import KEPT  # noqa: E402
from app.store import SQLiteStore  # noqa: E402

HOST = "127.0.0.1"
SECRET = "records benchmark key, not a secret"
HISTORY_PLAYER = "bench-history"
SIZES = [
    ("classic", 9, 9, 10),
    ("classic", 16, 16, 40),
    ("classic", 30, 16, 99),
    ("cruel", 9, 9, 10),
    ("cruel", 30, 16, 99),
    ("help", 16, 16, 40),
]
RECORD_THREADS = 4


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def history(count: int, rng: random.Random) -> list[str]:
    """Results as app.results.records.result_of writes them: mixed modes and sizes, about 40 % won, a game a
    minute or so."""
    results, now = [], 1_600_000_000.0
    for _ in range(count):
        mode, width, height, mines = rng.choice(SIZES)
        won = rng.random() < 0.4
        seconds = rng.uniform(5, 400)
        now += rng.uniform(10, 120)
        bbbv = rng.randint(10, 200) if won and mode != "cruel" else None
        results.append(
            json.dumps(
                {
                    "mode": mode,
                    "width": width,
                    "height": height,
                    "mines": mines,
                    "won": won,
                    "seconds": seconds,
                    "finished_at": now,
                    "deaths": rng.choice([0, 0, 0, 1]),
                    "hints": rng.choice([0, 0, 1, 2]),
                    "bbbv": bbbv,
                    "clicks": bbbv + rng.randint(0, 40) if bbbv else None,
                    "kind": "no guessing" if mode != "cruel" and rng.random() < 0.2 else "",
                }
            )
        )
    return results


def timed(work, repeat: int = 3) -> float:
    """The best of a few runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def fill_sqlite(path: Path, results: list[str]) -> None:
    SQLiteStore(path, kept=KEPT).close()  # the schema, as the server makes it
    import sqlite3

    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO results (player, game_id, kept_at, data) VALUES (?, ?, ?, ?)",
            [
                (HISTORY_PLAYER, f"game-{number:07d}", json.loads(text)["finished_at"], text)
                for number, text in enumerate(results)
            ],
        )


def fill_redis(url: str, results: list[str]) -> None:
    import redis

    client = redis.Redis.from_url(url)
    client.flushdb()  # the benchmark's own redis-server
    for start in range(0, len(results), 5000):
        chunk = results[start : start + 5000]
        client.hset(
            f"kaboom:results:{HISTORY_PLAYER}",
            mapping={f"game-{start + number:07d}": text for number, text in enumerate(chunk)},
        )
    client.close()


def start_redis(data: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = open(data / "redis.log", "wb")
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"redis://{HOST}:{port}/0"
    import redis

    deadline = time.monotonic() + 10
    while True:
        try:
            redis.Redis.from_url(url).ping()
            return process, url
        except redis.ConnectionError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit("redis-server did not start") from None
            time.sleep(0.05)


def start_server(data: Path, port: int, code: Path, store: str | None) -> subprocess.Popen:
    env = {
        **os.environ,
        "KABOOM_HOST": HOST,
        "KABOOM_PORT": str(port),
        "KABOOM_DATABASE": str(data / "records.sqlite3"),
        "KABOOM_SECRET_KEY": SECRET,
        "KABOOM_CREATE_LIMIT": str(10**9),
        "KABOOM_CONNECTIONS_PER_CLIENT": str(10**6),
        # The checkout to serve comes first on the path: its `app`, its templates.
        "PYTHONPATH": str(code),
    }
    env.pop("KABOOM_STORE", None)
    if store:
        env["KABOOM_STORE"] = store
    output = open(data / "server.log", "wb")
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("kaboom")), "serve"],
        env=env,
        cwd=data,
        stdout=output,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"http://{HOST}:{port}/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the server did not start:\n" + (data / "server.log").read_text(errors="replace")[-2000:])
        time.sleep(0.1)


def cookie_of(player: str) -> str:
    """The signed session cookie the server would have given this player (Starlette's format, the server's key)."""
    payload = base64.b64encode(json.dumps({"player": player}).encode())
    return itsdangerous.TimestampSigner(SECRET).sign(payload).decode()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Mover:
    """Another player, revealing random covered cells of Beginner classic games as fast as answered."""

    def __init__(self, url: str, seed: int):
        self.client = httpx.Client(base_url=url, timeout=60)
        self.rng = random.Random(seed)
        self.game: dict | None = None

    def moves(self, count: int) -> list[float]:
        timings = []
        while len(timings) < count:
            if self.game is None or self.game["status"] != "playing":
                self.game = self.client.post(
                    "/api/games", json={"mode": "classic", "width": 9, "height": 9, "mines": 10}
                ).json()
            covered = [
                (x, y) for y, row in enumerate(self.game["board"]) for x, symbol in enumerate(row) if symbol == "."
            ]
            x, y = self.rng.choice(covered)
            started = time.perf_counter()
            response = self.client.post(
                f"/api/games/{self.game['id']}/moves", json={"action": "reveal", "x": x, "y": y}
            )
            timings.append(time.perf_counter() - started)
            response.raise_for_status()
            self.game = response.json()
        return timings


def measure(url: str, requests: int, moves: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    cookies = {"kaboom": cookie_of(HISTORY_PLAYER)}
    with httpx.Client(base_url=url, timeout=120, cookies=cookies) as client:
        started = time.perf_counter()
        answer = client.get("/api/records")
        figures["first"] = time.perf_counter() - started
        answer.raise_for_status()
        figures["games"] = sum(record["games"] for record in answer.json())
        timings = []
        for _ in range(requests):
            started = time.perf_counter()
            client.get("/api/records").raise_for_status()
            timings.append(time.perf_counter() - started)
    figures["median"], figures["p95"] = statistics.median(timings), percentile(timings, 0.95)
    mover = Mover(url, seed=1)
    mover.moves(20)  # warm: the first games, the analyzers' code
    figures["idle p95"] = percentile(mover.moves(moves), 0.95)
    stop = threading.Event()
    answered = [0] * RECORD_THREADS

    def ask(thread: int) -> None:
        with httpx.Client(base_url=url, timeout=120, cookies=cookies) as client:
            while not stop.is_set():
                client.get("/api/records").raise_for_status()
                answered[thread] += 1

    threads = [threading.Thread(target=ask, args=(thread,)) for thread in range(RECORD_THREADS)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # the threads under way before the moves are timed
    started = time.perf_counter()
    loaded = mover.moves(moves)
    elapsed = time.perf_counter() - started
    stop.set()
    for thread in threads:
        thread.join()
    figures["loaded p95"] = percentile(loaded, 0.95)
    figures["records/s"] = sum(answered) / (elapsed + 1.0)
    mover.client.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="20000,100000", help="history sizes, comma-separated")
    parser.add_argument("--requests", type=int, default=40, help="GET /api/records timed after the first")
    parser.add_argument("--moves", type=int, default=200, help="the other player's moves timed, idle and under load")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout the server runs (default: this one)")
    parser.add_argument("--redis", action="store_true", help="keep the games in a redis-server of the benchmark's own")
    options = parser.parse_args()
    store_name = "Redis" if options.redis else "SQLite"
    print(f"server code: {options.code}; store: {store_name}")
    for count in (int(size) for size in options.results.split(",")):
        results = history(count, random.Random(count))
        old_way = timed(partial(records_of, results))
        rows = recount(results)
        print(
            f"\n{count:,} results, in this process: records_of over them all {old_way * 1000:.0f} ms, "
            f"recount once {timed(partial(recount, results)) * 1000:.0f} ms, "
            f"tallied {timed(partial(tallied, rows)) * 1000:.2f} ms ({len(rows) - 1} tallies)"
        )
        with tempfile.TemporaryDirectory(prefix="kaboom-records-") as folder:
            data = Path(folder)
            redis_process = None
            try:
                store = None
                if options.redis:
                    redis_process, store = start_redis(data)
                    fill_redis(store, results)
                else:
                    fill_sqlite(data / "records.sqlite3", results)
                port = free_port()
                server = start_server(data, port, options.code, store)
                try:
                    figures = measure(f"http://{HOST}:{port}", options.requests, options.moves)
                finally:
                    server.terminate()
                    server.wait(20)
            finally:
                if redis_process is not None:
                    redis_process.terminate()
                    redis_process.wait(10)
        assert figures["games"] == count, f"the records count {figures['games']} games of {count}"
        print(
            f"GET /api/records over HTTP ({store_name}): first {figures['first'] * 1000:.0f} ms, "
            f"then median {figures['median'] * 1000:.1f} ms, p95 {figures['p95'] * 1000:.1f} ms\n"
            f"another player's moves, p95: idle {figures['idle p95'] * 1000:.1f} ms, "
            f"while {RECORD_THREADS} threads ask for records {figures['loaded p95'] * 1000:.1f} ms "
            f"({figures['records/s']:.0f} records answers/s)"
        )


if __name__ == "__main__":
    main()
