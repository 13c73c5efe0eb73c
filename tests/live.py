"""A real uvicorn server in a thread, for the API, restart and browser tests."""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from app.core.config import Settings
from app.service import Deals
from app.web import create_app
from tests import kinds

# Every wall-clock limit the tests set is its figure times this: what an idle two-core machine needs, with room, at
# 1; a machine kept busy by other work raises it (KABOOM_TEST_TIME_SCALE=3 make test), and no figure is changed.
TIME_SCALE = float(os.environ.get("KABOOM_TEST_TIME_SCALE") or 1)


def seconds(figure: float) -> float:
    """A wall-clock limit of `figure` seconds, as this run scales it (TIME_SCALE)."""
    return figure * TIME_SCALE


def wait_until(
    condition: Callable[[], object], limit: float, failure: str | Callable[[], str], every: float = 0.01
) -> None:
    """Polls `condition` until it is true; past `limit` seconds (scaled), fails with `failure` (a function of no
    arguments for a message that says how far it got)."""
    deadline = time.monotonic() + seconds(limit)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(failure() if callable(failure) else failure)
        time.sleep(every)


def answers_health(url: str, timeout: float) -> bool:
    """Whether the server at `url` answers /healthz; a connection refused or cut is a no, not an error."""
    import httpx

    try:
        return httpx.get(f"{url}/healthz", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def live_server(database: Path, deals: Deals | None = None, clock=None, **settings):
    """A server on a free port; `deals` (seeded) and `clock` make what it deals and when repeatable."""
    # No slow lane unless asked: it starts with its server, a Python process loading the app, which every
    # test server would pay for; slow games play in a thread of the same answers (tests/test_limits.py).
    settings.setdefault("slow_lane", False)
    kinds.start("server")
    app = create_app(Settings(database=database, **settings), deals=deals or Deals(seed=0), clock=clock)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()

    def started() -> bool:
        # A server that fails to start ends its thread: no use waiting out the deadline then.
        if not (server.started or thread.is_alive()):
            raise RuntimeError("the test server did not start")
        return server.started

    wait_until(started, 10, "the test server did not start")
    try:
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(seconds(10))


@contextmanager
def kaboom_process(preexec_fn=None, **env: str):
    """`kaboom serve` as its own process (workers are processes too), on a free port, without slow lanes unless
    `env` asks for them (KABOOM_SLOW_LANE="true"); `preexec_fn` runs in it before it starts."""
    import os
    import subprocess
    import sys

    kinds.start("subprocess")
    port = free_port()
    # No slow lane unless asked, as live_server: a lane is one more Python process loading the app per worker
    # (0.7 s of processor time each), and only the tests of lanes look at one.
    environment = {
        **os.environ,
        "KABOOM_HOST": "127.0.0.1",
        "KABOOM_PORT": str(port),
        "KABOOM_SLOW_LANE": "false",
        **env,
    }
    command = [str(Path(sys.executable).with_name("kaboom")), "serve"]
    process = subprocess.Popen(
        command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn
    )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"kaboom serve exited: {process.stderr.read()}")
        return answers_health(url, timeout=seconds(1))

    try:
        wait_until(answers, 30, "kaboom serve did not answer /healthz", every=0.1)
        yield process, url
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(seconds(10))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


_RUNS = itertools.count()


def fresh_name(name: str, *, same_length: bool = False) -> str:
    """`name`, made one that no earlier run on the same server holds (a name's look is one player's at a time, and a
    module's server outlives a test run once per deal seed): two letters of this run's own, added after a space, or
    in place of the name's last two (`same_length`)."""
    number = next(_RUNS)
    tag = chr(ord("a") + number // 26 % 26) + chr(ord("a") + number % 26)
    return name[:-2] + tag if same_length else f"{name} {tag}"


def put_position(database: Path, game_id: str, rows: list[str], mines: int, hidden: dict | None = None) -> None:
    """Replace a stored game's board by a hand-made one ('.' covered, 'F' flagged, '0'-'8' revealed),
    and with `hidden` what its mode keeps secret (a fixed layout).

    For tests of what the server answers on a position chosen for it rather
    than dealt: the version moves on, as after any change, so caches of the old
    board are not used."""
    import json
    import sqlite3

    with sqlite3.connect(database) as connection:
        data = json.loads(connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()[0])
        width = len(rows[0])
        data.update(
            width=width,
            height=len(rows),
            mines=mines,
            cells="".join(row.replace("F", ".") for row in rows),
            marks={
                str(y * width + x): "F" for y, row in enumerate(rows) for x, symbol in enumerate(row) if symbol == "F"
            },
            started_at=0.0 if any(symbol not in ".F" for row in rows for symbol in row) else None,
            version=data["version"] + 1,
        )
        if hidden is not None:
            data["hidden"] = {**data["hidden"], **hidden}
        connection.execute(
            "UPDATE games SET data = ?, version = ? WHERE id = ?", (json.dumps(data), data["version"], game_id)
        )


def put_layout(database: Path, game_id: str, layout: list[str]) -> None:
    """Replace a stored fixed-layout game's board by a hand-made one with its layout: '*' a covered mine,
    '.' a covered safe cell, 'o' a revealed safe cell (it shows its number)."""
    from app.core.board import Board

    board = Board(len(layout[0]), len(layout))
    mines = [board.index(x, y) for y, row in enumerate(layout) for x, symbol in enumerate(row) if symbol == "*"]
    rows = [
        "".join(
            str(board.mines_around(board.index(x, y), set(mines))) if symbol == "o" else "."
            for x, symbol in enumerate(row)
        )
        for y, row in enumerate(layout)
    ]
    put_position(database, game_id, rows, mines=len(mines), hidden={"mines": mines})
