"""Live updates under load: one follower of the store per worker wakes every stream (app.service.changes), streams
are capped per client and per worker with a message, and they end when the server stops.

The figures of how many streams a worker holds, and how quickly other pages hear of moves, come from
bench/live.py; these tests check what holds whatever the machine."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import threading
from contextlib import AsyncExitStack

import httpx
import pytest
import redis

from app.core.game import Move
from app.core.seats import Player
from app.modes import apply_move, new_game
from app.service import Deals
from app.service.changes import ChangeFeed
from app.service.kept import KEPT
from app.store import MemoryStore
from tests.live import kaboom_process, live_server, seconds
from tests.redis_server import redis_server

pytestmark = [pytest.mark.server, pytest.mark.subprocess, pytest.mark.redis]

# The browser test's server: one live stream per worker, so that a second page's stream is refused.
SERVER_SETTINGS = {"live_streams": 1}
# Every wait below has a deadline well beyond what any machine needs; none is a measure of speed.
DEADLINE = seconds(20.0)
# `docker stop` sends SIGTERM, then SIGKILL this many seconds later.
DOCKER_STOP_SECONDS = seconds(10)


def saved_again(store: MemoryStore, game_id: str) -> None:
    game = store.load(game_id, "alice")
    flagged = apply_move(game, Move("flag", 0, 0), rng=random.Random(0), now=1.0)[0]
    store.save(game_id, "alice", flagged, game.version)


def test_one_save_wakes_every_stream_of_its_game_and_no_other() -> None:
    store = MemoryStore(kept=KEPT)
    moved, still = (store.create(new_game(9, 9, 10, seats=[Player("alice")], rng=random.Random(0))) for _ in range(2))
    feed = ChangeFeed(store)
    threads_before = threading.active_count()

    async def scene() -> None:
        woken = [asyncio.create_task(feed.wait(moved, 0, DEADLINE)) for _ in range(200)]
        waiting = [asyncio.create_task(feed.wait(still, 0, DEADLINE)) for _ in range(200)]
        while feed.watched < 400:
            await asyncio.sleep(0)
        # 400 waits, one thread: a stream costs no thread of its own.
        assert threading.active_count() <= threads_before + 1
        saved_again(store, moved)
        assert await asyncio.wait_for(asyncio.gather(*woken), DEADLINE) == [True] * 200
        assert not any(task.done() for task in waiting), "another game's streams sleep on"
        # A page that shows an old version hears of the change at once.
        assert await asyncio.wait_for(feed.wait(moved, 0, DEADLINE), DEADLINE) is True
        # Closing (the server stops) ends every wait, with False, and later ones at once.
        feed.close()
        assert await asyncio.wait_for(asyncio.gather(*waiting), DEADLINE) == [False] * 200
        assert await feed.wait(still, 0, DEADLINE) is False
        assert feed.watched == 0

    asyncio.run(scene())


def test_a_wait_with_nothing_changed_ends_at_its_time_with_false() -> None:
    store = MemoryStore(kept=KEPT)
    game_id = store.create(new_game(9, 9, 10, seats=[Player("alice")], rng=random.Random(0)))
    feed = ChangeFeed(store)
    try:
        assert asyncio.run(feed.wait(game_id, 0, 0.01)) is False
        assert feed.watched == 0
    finally:
        feed.close()


def flags_game(player: httpx.Client) -> str:
    response = player.post(
        "/api/games", json={"mode": "flags", "width": 6, "height": 6, "mines": 9, "opponent": "screen"}
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


async def open_streams(stack: AsyncExitStack, url: str, cookies, game_ids: list[str]) -> list[httpx.Response]:
    """A live stream on each game, each on a connection of its own, all open before this returns."""
    client = await stack.enter_async_context(
        httpx.AsyncClient(
            base_url=url, cookies=cookies, timeout=httpx.Timeout(DEADLINE), limits=httpx.Limits(max_connections=None)
        )
    )
    streams = [
        stack.enter_async_context(client.stream("GET", f"/games/{game_id}/events", params={"version": "0"}))
        for game_id in game_ids
    ]
    return list(await asyncio.gather(*streams))


async def stream_once_free(stack: AsyncExitStack, url: str, cookies, game_id: str) -> httpx.Response:
    """A live stream on `game_id`, asked again while the server refuses it for the client's cap: a closed stream's
    place comes back when the server notices the close, a moment after the client's. Gives up at the deadline."""
    deadline = asyncio.get_running_loop().time() + DEADLINE
    while True:
        attempt = AsyncExitStack()
        client = await attempt.enter_async_context(httpx.AsyncClient(base_url=url, cookies=cookies, timeout=DEADLINE))
        stream = await attempt.enter_async_context(
            client.stream("GET", f"/games/{game_id}/events", params={"version": "0"})
        )
        if stream.status_code != 429 or asyncio.get_running_loop().time() > deadline:
            stack.push_async_exit(attempt)
            return stream
        await attempt.aclose()
        await asyncio.sleep(0.02)


def test_hundreds_of_live_streams_on_redis_hold_no_store_connection_each(tmp_path) -> None:
    """150 streams on one worker (redis-py's pool once held a connection per stream, and 100 ran it dry):
    Redis sees a handful of this worker's connections, and another player's game and /healthz go on."""
    with (
        redis_server() as redis_url,
        live_server(
            tmp_path / "unused.sqlite3",
            deals=Deals(seed=1),
            store=redis_url,
            live_streams_per_client=1000,
            connections_per_client=1000,  # one address opening 150 at once: as many may wait their turn
            create_limit=1000,
        ) as url,
        httpx.Client(base_url=url, timeout=DEADLINE) as alice,
        httpx.Client(base_url=url, timeout=DEADLINE) as bob,
    ):
        games = [flags_game(alice) for _ in range(30)]
        watcher = redis.Redis.from_url(redis_url)
        before = len(watcher.client_list())

        async def scene() -> None:
            async with AsyncExitStack() as stack:
                streams = await open_streams(stack, url, alice.cookies, games * 5)
                assert all(stream.status_code == 200 for stream in streams)
                held = len(watcher.client_list()) - before
                assert held <= 12, f"{held} Redis connections for 150 streams"
                # Another player plays on, and the server says it is healthy.
                assert (await asyncio.to_thread(bob.get, "/healthz")).status_code == 200
                created = await asyncio.to_thread(bob.post, "/api/games", json={"width": 9, "height": 9, "mines": 10})
                assert created.status_code == 201
                moved = await asyncio.to_thread(
                    bob.post, f"/api/games/{created.json()['id']}/moves", json={"action": "reveal", "x": 4, "y": 4}
                )
                assert moved.status_code == 200
                # A move on a watched game reaches each of its five streams.
                board = (await asyncio.to_thread(alice.get, f"/api/games/{games[7]}")).json()["board"]
                x, y = next((x, y) for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol == ".")
                assert (
                    await asyncio.to_thread(
                        alice.post, f"/api/games/{games[7]}/moves", json={"action": "reveal", "x": x, "y": y}
                    )
                ).status_code == 200
                heard = [stream for index, stream in enumerate(streams) if index % 30 == 7]

                async def changed(stream: httpx.Response) -> None:
                    async for line in stream.aiter_lines():
                        if line == 'data: "1"':
                            return

                await asyncio.wait_for(asyncio.gather(*(changed(stream) for stream in heard)), DEADLINE)

        asyncio.run(scene())
        watcher.close()


def test_streams_past_a_clients_cap_or_the_workers_are_refused_with_a_message(tmp_path) -> None:
    with (
        live_server(tmp_path / "games.sqlite3", live_streams_per_client=3, live_streams=4) as url,
        httpx.Client(base_url=url, timeout=DEADLINE) as alice,
    ):
        game_id = flags_game(alice)

        async def scene() -> None:
            async with AsyncExitStack() as stack:
                streams = await open_streams(stack, url, alice.cookies, [game_id] * 3)
                assert [stream.status_code for stream in streams] == [200] * 3
                refused = await asyncio.to_thread(alice.get, f"/games/{game_id}/events", params={"version": "0"})
                assert refused.status_code == 429 and "Too many live pages from your address: at most 3" in refused.text
                # The page's poll answers still.
                assert (
                    await asyncio.to_thread(alice.get, f"/games/{game_id}/live", params={"version": "0"})
                ).status_code in (200, 204)
            # Closed streams give their places back, as soon as the server has seen them close.
            async with AsyncExitStack() as stack:
                for _ in range(3):
                    assert (await stream_once_free(stack, url, alice.cookies, game_id)).status_code == 200

        asyncio.run(scene())
    with (
        live_server(tmp_path / "games.sqlite3", live_streams_per_client=10, live_streams=2) as url,
        httpx.Client(base_url=url, timeout=DEADLINE) as alice,
    ):
        game_id = flags_game(alice)

        async def full() -> None:
            async with AsyncExitStack() as stack:
                assert [
                    stream.status_code for stream in await open_streams(stack, url, alice.cookies, [game_id] * 2)
                ] == [200] * 2
                refused = await asyncio.to_thread(alice.get, f"/games/{game_id}/events", params={"version": "0"})
                assert refused.status_code == 503 and "as many live pages as it can (2)" in refused.text

        asyncio.run(full())


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_stopping_server_ends_its_live_streams_and_the_computers_turns(tmp_path, workers: str) -> None:
    """SIGTERM with a Flags page open against the computer: the stream ends and the server exits at once,
    where it used to keep serving (and the computer playing) until its streams timed out."""
    database = tmp_path / "games.sqlite3"
    env = {
        "KABOOM_DATABASE": str(database),
        "KABOOM_WORKERS": workers,
        "KABOOM_COMPUTER_PAUSE": "5",
        "KABOOM_SECRET_KEY": "a test key of enough length",
    }
    with kaboom_process(**env) as (process, url), httpx.Client(base_url=url, timeout=DEADLINE) as alice:
        made = alice.post(
            "/api/games", json={"mode": "flags", "width": 8, "height": 8, "mines": 12, "opponent": "computer"}
        )
        assert made.status_code == 201, made.text
        game_id = made.json()["id"]
        opened, ended = threading.Event(), threading.Event()

        def listen() -> None:
            with httpx.Client(base_url=url, cookies=alice.cookies, timeout=httpx.Timeout(DEADLINE, read=60)) as page:
                try:
                    with page.stream("GET", f"/games/{game_id}/events", params={"version": "-1"}) as stream:
                        for _ in stream.iter_lines():
                            opened.set()  # the page's first event: the stream is served
                except httpx.HTTPError:
                    pass
            ended.set()

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        assert opened.wait(DEADLINE), "the stream did not open"
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(DOCKER_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server still served {DOCKER_STOP_SECONDS} s after SIGTERM, when Docker would kill it")
        assert ended.wait(DEADLINE), "the stream did not end"
        log = process.stderr.read()
        # The streams ended by themselves: uvicorn's last guard (STOP_SECONDS) did not have to cut them.
        assert "timeout graceful shutdown exceeded" not in log, log
        assert "Shutting down" in log or workers == "2", log


def test_a_live_page_polls_only_while_its_stream_is_down(open_page) -> None:
    """With its stream open a page polls every 30 s (in case a proxy holds events back), not every 3 s:
    with hundreds of live pages the polls were most of a worker's work. A page whose stream is refused
    (here: past the worker's cap of one) polls every 3 s. The pages' clocks are Playwright's, moved by hand."""
    from tests.test_first_minutes import LAPTOP

    first = open_page(LAPTOP)
    first.clock.install()
    first.goto("/")
    made = first.evaluate(
        "fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},"
        " body: JSON.stringify({mode: 'flags', width: 8, height: 8, mines: 12, opponent: 'screen'})})"
        ".then(r => r.json())"
    )
    polls: dict[str, list[str]] = {"first": [], "second": []}
    first.on("request", lambda request: "/live?" in request.url and polls["first"].append(request.url))
    first.goto(f"/games/{made['id']}")
    first.wait_for_selector("#live[data-stream=open]", state="attached")
    first.clock.run_for(20_000)
    assert polls["first"] == [], "no poll in 20 s while the stream is open"
    second = open_page(LAPTOP, storage_state=first.context.storage_state())
    second.clock.install()
    second.on("request", lambda request: "/live?" in request.url and polls["second"].append(request.url))
    second.goto(f"/games/{made['id']}")
    second.wait_for_selector("#live[data-stream=down]", state="attached")
    for _ in range(3):
        # A poll at a time: moved on at once, the page's clock would fire the next while one is on its way.
        with second.expect_request_finished(lambda request: "/live?" in request.url):
            second.clock.run_for(3_000)
    first.clock.run_for(15_000)
    assert len(polls["first"]) == 1, "one look at 30 s beside the open stream"
