"""A client address's requests take turns in a worker (app.web.guard.ClientTurns): a flood from one address waits
behind itself, and another client's request goes ahead of it. Told apart by what the app has started, never by
time: the app of these tests holds each request until the test lets it answer."""

from __future__ import annotations

import asyncio
import json

from app.web.guard import ClientTurns
from tests.live import seconds

DEADLINE = seconds(10.0)  # seconds any one wait here may take


class HeldApp:
    """An ASGI app that answers each request only when the test lets it (`answer(path)`); a path ending in
    /events starts an event stream at once and holds its body."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.released: dict[str, asyncio.Event] = {}
        self.changed = asyncio.Event()

    async def __call__(self, scope, receive, send):
        path = scope["path"]
        self.started.append(path)
        self.changed.set()
        release = self.released.setdefault(path, asyncio.Event())
        if path.endswith("/events"):
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]}
            )
            await release.wait()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": path.encode()})

    def answer(self, path: str) -> None:
        self.released.setdefault(path, asyncio.Event()).set()

    async def until_started(self, *paths: str) -> None:
        async def waiting() -> None:
            while not set(paths) <= set(self.started):
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(waiting(), DEADLINE)


def request(turns: ClientTurns, path: str, address: str = "10.0.0.1") -> asyncio.Task[list[dict]]:
    """A GET of `path` from `address` through `turns`, as a task: what it sends back, once it has."""

    async def asked() -> list[dict]:
        sent: list[dict] = []

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": path, "client": (address, 1234), "headers": []}
        await turns(scope, receive, send)
        return sent

    return asyncio.create_task(asked())


def status(sent: list[dict]) -> int:
    return sent[0]["status"]


async def settled() -> None:
    """Every task that can run has run up to its next wait."""
    for _ in range(20):
        await asyncio.sleep(0)


def test_a_client_past_its_turns_waits_behind_itself_while_another_client_goes_ahead() -> None:
    async def scene() -> None:
        app = HeldApp()
        turns = ClientTurns(app, per_client=2, waiting=10)
        asked = [request(turns, f"/flood/{number}") for number in range(4)]
        await app.until_started("/flood/0", "/flood/1")
        await settled()
        assert app.started == ["/flood/0", "/flood/1"]  # the other two wait their turn

        move = request(turns, "/move", "10.0.0.2")
        await app.until_started("/move")  # ahead of the flood's waiting requests
        app.answer("/move")
        assert status(await asyncio.wait_for(move, DEADLINE)) == 200
        assert app.started == ["/flood/0", "/flood/1", "/move"]

        app.answer("/flood/1")
        await app.until_started("/flood/2")  # in the order they came
        await settled()
        assert "/flood/3" not in app.started
        for number in range(4):
            app.answer(f"/flood/{number}")
        answers = await asyncio.wait_for(asyncio.gather(*asked), DEADLINE)
        assert [status(sent) for sent in answers] == [200] * 4
        assert turns._clients == {}  # nothing kept for clients with nothing under way

    asyncio.run(scene())


def test_past_the_requests_that_may_wait_a_client_is_refused_with_a_message() -> None:
    async def scene() -> None:
        app = HeldApp()
        turns = ClientTurns(app, per_client=1, waiting=2)
        held = [request(turns, f"/flood/{number}") for number in range(3)]
        await app.until_started("/flood/0")
        await settled()
        refused = await asyncio.wait_for(request(turns, "/api/games"), DEADLINE)
        assert status(refused) == 429
        assert json.loads(refused[1]["body"])["detail"] == (
            "Too many requests at once from your address: 1 are worked on at a time and 2 more may wait their "
            "turn. Wait for the answers before asking again."
        )
        assert app.started == ["/flood/0"]  # the refusal reached nothing
        for number in range(3):
            app.answer(f"/flood/{number}")
        answers = await asyncio.wait_for(asyncio.gather(*held), DEADLINE)
        assert [status(sent) for sent in answers] == [200] * 3

    asyncio.run(scene())


def test_a_live_stream_gives_up_its_turn_as_it_starts() -> None:
    async def scene() -> None:
        app = HeldApp()
        turns = ClientTurns(app, per_client=1, waiting=10)
        stream = request(turns, "/games/g/events")
        await app.until_started("/games/g/events")
        # The stream is open and holds no turn: the same client's next request is worked on at once.
        live = request(turns, "/games/g/live")
        await app.until_started("/games/g/live")
        app.answer("/games/g/live")
        assert status(await asyncio.wait_for(live, DEADLINE)) == 200
        app.answer("/games/g/events")
        assert status(await asyncio.wait_for(stream, DEADLINE)) == 200
        assert turns._clients == {}

    asyncio.run(scene())


def test_a_request_that_fails_gives_its_turn_to_the_next() -> None:
    async def scene() -> None:
        started: list[str] = []

        async def failing(scope, receive, send):
            started.append(scope["path"])
            raise RuntimeError("the app failed")

        turns = ClientTurns(failing, per_client=1, waiting=10)
        for path in ("/one", "/two"):
            try:
                await turns({"type": "http", "path": path, "client": ("10.0.0.1", 1), "headers": []}, None, None)
            except RuntimeError:
                pass
        assert started == ["/one", "/two"]
        assert turns._clients == {}

    asyncio.run(scene())
