"""The boards of the day's fair play through the JSON API of real servers (issue 41, points 3 and 5): two
`kaboom serve` workers of one SQLite file, or two hosts of one Redis, sharing the server's key; one cookie
asking both at once, as a client that tries would."""

from __future__ import annotations

import datetime
from functools import partial

import httpx
import pytest

from app.core.config import Settings
from app.modes import get_mode
from app.results.daily import DailyBoard
from app.service import GameService
from app.service.kept import KEPT
from app.store import MemoryStore
from tests.live import kaboom_process, seconds
from tests.redis_server import redis_server
from tests.test_store_ladders import at_once

pytestmark = [pytest.mark.subprocess, pytest.mark.redis]

KEY = "a key the test holds, to know the boards"
DEADLINE = seconds(60)  # seconds an answer may take: far beyond what any needs, so only a hang fails


@pytest.fixture(params=["sqlite", "redis"])
def two_servers(request, tmp_path):
    """Two servers of one store: workers of one SQLite file, or hosts of one Redis."""
    if request.param == "sqlite":
        env = {"KABOOM_DATABASE": str(tmp_path / "games.sqlite3"), "KABOOM_SECRET_KEY": KEY}
        with kaboom_process(**env) as (_, first), kaboom_process(**env) as (_, second):
            yield first, second
    else:
        with redis_server() as url:
            env = {"KABOOM_STORE": url, "KABOOM_SECRET_KEY": KEY}
            with kaboom_process(**env) as (_, first), kaboom_process(**env) as (_, second):
                yield first, second


def the_days_classic_board_id(date: datetime.date) -> str:
    """The id of the day's no-guess board, as the servers make it from the day and their key."""
    service = GameService(MemoryStore(kept=KEPT), Settings(database="unused.sqlite3", secret_key=KEY))
    try:
        board_id = get_mode("classic").board_id(DailyBoard(date, "classic").game(service.context.board_secret))
    finally:
        service.close()
    assert board_id is not None
    return board_id


def test_one_cookie_asking_two_servers_at_once_gets_one_game_of_each_board_and_no_copy(two_servers):
    first, second = two_servers
    with httpx.Client(base_url=first, timeout=DEADLINE) as ann:
        today = ann.get("/api/daily").json()["date"]
        cookies = dict(ann.cookies)
    clients = [httpx.Client(base_url=url, cookies=cookies, timeout=DEADLINE) for url in (first, second) * 4]
    try:
        for mode in ("cruel", "classic"):
            answers = at_once(*(partial(client.post, f"/api/daily/{today}/{mode}/games") for client in clients))
            assert [answer.status_code for answer in answers] == [201] * len(clients), [a.text for a in answers]
            assert len({answer.json()["id"] for answer in answers}) == 1
            assert {answer.json()["board_id"] for answer in answers} == {None}
        listed = clients[1].get("/api/games").json()
        assert len(listed) == 2, listed
        # The day's no-guess board is played from nowhere else while the entry is not in: not by its id, on
        # either server, by any route that makes a game.
        board_id = the_days_classic_board_id(datetime.date.fromisoformat(today))
        for client in clients[:2]:
            for refused in (
                client.post("/api/games", json={"mode": "classic", "board_id": board_id}),
                client.get(f"/play/{board_id}"),
            ):
                assert refused.status_code == 409 and "board of the day" in refused.text, refused.text
        assert len(clients[0].get("/api/games").json()) == 2, "nothing was made"
    finally:
        for client in clients:
            client.close()
