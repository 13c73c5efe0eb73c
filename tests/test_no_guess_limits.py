"""No-guess deals within the server's limits (issue 23, point 11): the work allowance decides whether a board is
made, the same way under any load; a big board is made where slow work runs; each client address has an
allowance of no-guess deals; and the slow lane starts with the server, not inside a player's request.

Every deal is seeded; no test waits on the clock (limits without a deadline, an injected clock for windows)."""

from __future__ import annotations

import asyncio
import html
import random
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context

import httpx
import pytest

from app.core.config import Settings
from app.core.game import Move, Refused
from app.host.lane import Lane
from app.host.worker import worker_app
from app.modes import ClassicOptions, apply_move, new_game
from app.service import Deals, GameService, lane_service
from app.service.kept import KEPT
from app.store.memory import MemoryStore
from solver import Allowance, Limits, OutOfWork
from solver.generate import no_guess_layout
from tests.clock import FakeClock
from tests.live import live_server, seconds

pytestmark = [pytest.mark.server, pytest.mark.subprocess]

DEADLINE = seconds(60.0)  # the longest any wait here may take

HTMX = {"HX-Request": "true"}
REFUSAL = "No no-guess board of this size and density could be made within the server's limit"
# A dense 100x100 board: today's deal is seconds of work, far past what a small allowance gives.
DENSE = {"width": 100, "height": 100, "mines": 2500}


def new_no_guess_game(
    client: httpx.Client, width: int = 9, height: int = 9, mines: int = 10, no_guess: bool = True
) -> str:
    body = {"width": width, "height": height, "mines": mines, "mode": "classic", "no_guess": no_guess}
    created = client.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    return created.json()["id"]


def reveal(client: httpx.Client, game_id: str, x: int = 4, y: int = 4) -> httpx.Response:
    return client.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": x, "y": y})


def assert_undealt(client: httpx.Client, game_id: str, version: int) -> None:
    game = client.get(f"/api/games/{game_id}").json()
    assert game["version"] == version and game["status"] == "playing" and game["board_id"] is None
    assert all(set(row) == {"."} for row in game["board"])


def test_a_dense_no_guess_board_past_the_work_allowance_is_refused_and_changes_nothing(tmp_path):
    # A deadline far away: the refusal comes from the work counted, not from the clock.
    server = live_server(tmp_path / "games.sqlite3", solver_work=10_000, solver_seconds=600)
    with server as url, httpx.Client(base_url=url, timeout=seconds(120)) as client:
        game_id = new_no_guess_game(client, **DENSE)
        version = client.get(f"/api/games/{game_id}").json()["version"]
        refused = reveal(client, game_id, 50, 50)
        assert refused.status_code == 409, refused.text
        assert REFUSAL in refused.json()["detail"] and "turn off No guessing" in refused.json()["detail"]
        assert_undealt(client, game_id, version)
        # The page says it in the status panel, and still nothing is dealt.
        form = {"action": "reveal", "x": 50, "y": 50, "version": str(version)}
        page = client.post(f"/games/{game_id}/moves", data=form, headers=HTMX)
        assert page.status_code == 409 and REFUSAL in html.unescape(page.text)
        assert_undealt(client, game_id, version)


def test_the_same_seed_and_allowance_deal_the_same_board_or_the_same_refusal():
    """Work, not time, decides: no deadline here, so nothing the clock or the machine's load does can matter."""

    def first_click(mines: int, limits: Limits) -> tuple[str, object]:
        game = new_game(100, 100, mines, "classic", ClassicOptions(no_guess=True), rng=random.Random(7))
        try:
            after, _ = apply_move(game, Move("reveal", 50, 50), rng=random.Random(0), now=1.0, limits=limits)
        except Refused as refusal:
            assert game.started_at is None and game.hidden["mines"] is None
            return "refused", str(refusal.message)
        return "dealt", tuple(after.hidden["mines"])

    small = [first_click(2000, Limits(work=10_000)) for _ in range(2)]
    assert small[0] == small[1] and small[0][0] == "refused" and REFUSAL in small[0][1]
    enough = [first_click(2000, Limits(work=4_000_000)) for _ in range(2)]
    assert enough[0] == enough[1] and enough[0][0] == "dealt"
    # The allowance decides whether the board is made, never which board: unlimited work deals the same one.
    assert first_click(2000, Limits()) == enough[0]


def test_generation_stops_at_the_same_point_for_the_same_seed_and_allowance():
    spent = []
    for _ in range(2):
        allowance = Allowance(work=2_000_000)
        with pytest.raises(OutOfWork):
            no_guess_layout(100, 100, 2500, 5050, random.Random("seed"), allowance=allowance)
        spent.append(allowance.spent)
    assert spent[0] == spent[1] >= 2_000_000


def test_no_guess_deals_are_limited_per_client_address(tmp_path):
    clock = FakeClock()
    settings = {"no_guess_limit": 2, "no_guess_window": 60, "create_limit": 1000}
    server = live_server(tmp_path / "games.sqlite3", clock=clock, **settings)
    with server as url, httpx.Client(base_url=url, timeout=seconds(60)) as client:
        games = [new_no_guess_game(client) for _ in range(4)]
        assert [reveal(client, game_id).status_code for game_id in games[:2]] == [200, 200]
        version = client.get(f"/api/games/{games[2]}").json()["version"]
        limited = reveal(client, games[2])
        assert limited.status_code == 429, limited.text
        detail = limited.json()["detail"]
        assert "Too many no-guess boards" in detail and "at most 2 every 60 seconds" in detail
        assert_undealt(client, games[2], version)
        # The page shows it in the status panel (htmx swaps a 409, not a 429).
        form = {"action": "reveal", "x": 4, "y": 4, "version": "0"}
        page = client.post(f"/games/{games[3]}/moves", data=form, headers=HTMX)
        assert page.status_code == 409 and "Too many no-guess boards" in html.unescape(page.text)
        # A board dealt without the no-guess search is not counted.
        assert reveal(client, new_no_guess_game(client, no_guess=False)).status_code == 200
        # Another client address has an allowance of its own.
        other = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=url, timeout=seconds(60), transport=other) as neighbour:
            assert reveal(neighbour, new_no_guess_game(neighbour)).status_code == 200
        # The next window brings the allowance back.
        clock.advance(60)
        assert reveal(client, games[2]).status_code == 200


def test_undoing_the_first_click_and_clicking_again_is_another_deal(tmp_path):
    clock = FakeClock()
    server = live_server(tmp_path / "games.sqlite3", clock=clock, no_guess_limit=2, no_guess_window=60)
    with server as url, httpx.Client(base_url=url, timeout=seconds(60)) as client:
        game_id = new_no_guess_game(client)
        statuses = []
        for _ in range(3):
            statuses.append(reveal(client, game_id).status_code)
            if statuses[-1] == 200:
                assert client.post(f"/api/games/{game_id}/moves", json={"action": "undo"}).status_code == 200
        assert statuses == [200, 200, 429]


def deals_seen(monkeypatch, service: GameService) -> list[bool]:
    """Whether each no-guess search ran on one of the cheap games' threads."""
    import app.modes.classic as classic

    cheap: list[bool] = []
    search = classic.no_guess_layout

    def watched(*args, **kwargs):
        cheap.append(service.runner.on_cheap_thread())
        return search(*args, **kwargs)

    monkeypatch.setattr(classic, "no_guess_layout", watched)
    return cheap


SIZES = [
    ((100, 100, 1000), True),
    ((60, 60, 400), True),
    ((20, 20, 300), True),
    ((30, 16, 99), False),
    ((16, 16, 40), False),
]


@pytest.mark.parametrize("size,slow", SIZES, ids=[f"{w}x{h}-{k}" for (w, h, k), _ in SIZES])
def test_a_big_no_guess_deal_is_made_where_slow_work_runs(tmp_path, monkeypatch, size, slow):
    """Never on the threads beside other players' clicks, even when this board's search happens to be quick
    (100x100 with 1,000 mines takes some 70 ms): which boards go is a rule of size and mines, not of luck."""
    settings = Settings(database=tmp_path / "unused.sqlite3", secret_key="a-long-test-secret-of-32-characters!")
    service = GameService(MemoryStore(kept=KEPT), settings, Deals(seed=3))
    cheap = deals_seen(monkeypatch, service)

    async def play() -> str:
        game_id, _ = await service.games.create("alice", "client", "classic", *size, {"no_guess": True})
        await service.games.move(game_id, "alice", Move("reveal", 5, 5))
        return game_id

    game_id = asyncio.run(play())
    assert cheap == [not slow]
    assert (game_id in service.runner.slow_games) == slow


def test_the_slow_lane_starts_with_the_server(tmp_path):
    """Its process starts (in the background) when the server does: the first slow request does not wait for it."""

    async def serve(app, requests=None) -> None:
        # The server's start and stop (lifespan) around the requests, as uvicorn runs them.
        async with app.router.lifespan_context(app):
            if requests is not None:
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(
                    transport=transport, base_url="http://kaboom", timeout=seconds(120)
                ) as client:
                    await requests(client)

    # A deadline no busy machine reaches: this is a test of where the work runs (a busy machine made the
    # no-guess deal past the default 2 s and refused it).
    app = worker_app(Settings(database=tmp_path / "games.sqlite3", solver_seconds=120))
    lane = app.state.service.runner.lane
    assert lane is not None and lane._pool is None

    async def first_slow_request(client: httpx.AsyncClient) -> None:
        assert lane._pool is not None
        processes = set(lane._pool._processes)
        assert len(processes) == 1
        assert lane.ready(timeout=seconds(120))
        # The process started with the server answers the first slow work: no request pays for a start.
        board = {"width": 100, "height": 100, "mines": 1000, "mode": "classic", "no_guess": True}
        created = await client.post("/api/games", json=board)
        game_id = created.json()["id"]
        answer = await client.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": 50, "y": 50})
        assert answer.status_code == 200, answer.text
        assert game_id in app.state.service.runner.slow_games
        assert set(lane._pool._processes) == processes

    asyncio.run(serve(app, first_slow_request))
    # None where none is configured: turned off, or a store only this process sees.
    for app in (
        worker_app(Settings(database=tmp_path / "off.sqlite3", slow_lane=False)),
        worker_app(Settings(database=tmp_path / "games.sqlite3"), store=MemoryStore(kept=KEPT)),
    ):
        asyncio.run(serve(app))
        assert app.state.service.runner.lane is None


def test_a_slow_game_does_not_wait_for_the_lane_to_load(tmp_path):
    """While the lane's process loads, run() sends slow work back to the worker's slow thread at once."""
    lane = Lane(Settings(database=tmp_path / "games.sqlite3"), lane_service)
    lane._started = Future()  # a start that has not finished: no process is asked, nothing waits
    try:
        assert asyncio.run(lane.run("_move", "game", ())) is None
        assert lane._pool is None
    finally:
        lane.close()


class _SlowToLoad(Lane):
    """A lane whose process never finishes loading."""

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=get_context("spawn"), initializer=time.sleep, initargs=(3600,)
            )
        return self._pool


def test_a_lane_still_loading_is_stopped_at_once(tmp_path):
    """A stopping server does not wait for its lane's process to load (at the lane's low priority on a busy
    machine, loading kept the server up 8 s): the process is ended and close() returns."""
    lane = _SlowToLoad(Settings(database=tmp_path / "games.sqlite3"), lane_service)
    lane.start()
    assert lane._pool is not None
    (process,) = lane._pool._processes.values()
    assert not lane.ready(timeout=0.2)
    closing = threading.Thread(target=lane.close, daemon=True)
    closing.start()
    closing.join(DEADLINE)
    assert not closing.is_alive(), f"close() still waited for the loading process after {DEADLINE} s"
    process.join(DEADLINE)
    assert process.exitcode is not None
    assert lane._pool is None and not lane.ready()


def test_a_lane_at_rest_is_ended_at_once(tmp_path):
    """With no operation in it, the lane's process is ended, not asked to wind down (at its low priority on a busy
    machine that took seconds)."""
    lane = Lane(Settings(database=tmp_path / "games.sqlite3"), lane_service)
    lane.start()
    assert lane.ready(timeout=DEADLINE)
    assert lane._pool is not None
    (process,) = lane._pool._processes.values()
    lane.close()
    process.join(DEADLINE)
    assert process.exitcode == -signal.SIGTERM
