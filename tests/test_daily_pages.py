"""Boards of the day (issue 28) across hosts and on the pages: two hosts of one Redis and two workers of one
SQLite file share a day's board and its ladder; the day's page, a past day's, the calendar and the game's line
about its ladder, on a live uvicorn whose clock is a FakeClock."""

from __future__ import annotations

import asyncio
import datetime
import re
import sqlite3
import uuid

import httpx
import pytest

from app.results.daily import DailyBoard, anonymous_name
from app.service.kept import KEPT
from app.store import SQLiteStore
from app.store.redis import RedisStore
from solver import Analyzer
from solver.position import Position
from solver.strategy import progress_cell
from tests.clock import FakeClock
from tests.live import live_server, seconds
from tests.test_daily import KEY, MIDNIGHT, a_mine_of, cruel_win, secrets_of, service_on

# Beginner boards of the day (conftest.py), for every test here: what they test holds on any size.
pytestmark = [pytest.mark.usefixtures("small_dailies"), pytest.mark.server, pytest.mark.redis]

TODAY = "2026-11-26"


@pytest.fixture(params=["redis", "sqlite"])
def two_hosts(request, tmp_path):
    """Two services on one store, as two hosts of one Redis or two workers of one SQLite file, sharing the key."""
    clock = FakeClock(MIDNIGHT + 3600)
    path = tmp_path / "games.sqlite3"
    if request.param == "redis":
        url, prefix = request.getfixturevalue("redis_url"), f"daily-{uuid.uuid4().hex}"
        stores = [RedisStore(url, prefix=prefix, clock=clock, kept=KEPT) for _ in range(2)]
    else:
        stores = [SQLiteStore(path, clock, kept=KEPT) for _ in range(2)]
    hosts = [service_on(store, clock, path=path) for store in stores]
    yield hosts
    for host in hosts:
        host.close()


def test_two_hosts_of_one_store_give_the_same_board_and_one_ladder(two_hosts):
    one, other = two_hosts
    key = f"{TODAY}/cruel"
    made = [
        asyncio.run(host.daily.play_daily(player, "client", key))[1]
        for host, player in ((one, "alice"), (other, "bob"))
    ]
    assert secrets_of(made[0]) == secrets_of(made[1])
    asyncio.run(other.daily.set_name("alice", "client", "Alice"))  # named on one host, shown by both
    _, alice_game = cruel_win(one, "alice")
    _, bob_game = cruel_win(other, "bob")
    finished = [
        ("Alice", round(alice_game.elapsed(alice_game.finished_at) * 1000), 0),
        (anonymous_name("bob", one.context.board_secret), round(bob_game.elapsed(bob_game.finished_at) * 1000), 1),
    ]
    expected = [(place, name) for place, (name, _, _) in enumerate(sorted(finished, key=lambda e: e[1:]), start=1)]
    for host in (one, other):
        _, (cruel, classic) = asyncio.run(host.daily.ladders(TODAY, "carol"))
        assert [(line.place, line.name) for line in cruel.lines] == expected
        assert cruel.counts == (2, 0, 0) and classic.counts == (0, 0, 0)
    # The same ladders from either host, line for line.
    assert asyncio.run(one.daily.ladders(TODAY, "carol")) == asyncio.run(other.daily.ladders(TODAY, "carol"))


# ----- the pages -------------------------------------------------------------------------------------------


def played(client: httpx.Client, key: str) -> str:
    """The game the day's page's Play button opens (a redirect to its page): its id."""
    answer = client.post(f"/daily/{key}/games")
    assert answer.status_code == 303, answer.text
    return answer.headers["location"].removeprefix("/games/")


def win_by_proof(client: httpx.Client, clock: FakeClock, game_id: str, pace: float = 1.0) -> dict:
    """Play a cruel board to a win from its marked start as a cruel-but-fair player does (solver.strategy: a
    proven-safe cell, else a forced guess by the numbers, safe by the rules); the cells are read from each
    answer, the proofs worked out here (no analysis asked, which would be an aid); `pace` seconds a move."""
    game = client.get(f"/api/games/{game_id}").json()
    x, y = game["start"]
    for _ in range(game["width"] * game["height"]):
        clock.advance(pace)
        game = client.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": x, "y": y}).json()
        assert game["status"] != "lost", (x, y)
        if game["status"] == "won":
            return game
        cell = progress_cell(Analyzer(Position(game["width"], game["height"], game["mines"], tuple(game["board"]))))
        assert cell is not None, game["board"]
        x, y = cell
    raise AssertionError("the board was not cleared")


def board_section(html: str, mode: str) -> str:
    return html.split(f'<section class="daily-board" id="{mode}"', 1)[1].split("</section>", 1)[0]


def ladder_rows(html: str, mode: str) -> list[str]:
    """The text of each row of a board's ladder on a day's page, tags stripped."""
    section = board_section(html, mode)
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", section, re.S)]


def test_the_days_page_names_plays_ranks_and_keeps_the_calendar(tmp_path):
    clock = FakeClock(MIDNIGHT + 7200)
    database = tmp_path / "games.sqlite3"
    with (
        live_server(database, clock=clock, secret_key=KEY) as url,
        httpx.Client(base_url=url, timeout=seconds(30)) as ada,
        httpx.Client(base_url=url, timeout=seconds(30)) as bob,
    ):
        assert 'href="/daily"' in ada.get("/").text  # the Today link
        page = ada.get("/daily").text
        assert "Boards of the day" in page and "26 November 2026" in page
        for key in (f"{TODAY}/cruel", f"{TODAY}/classic"):
            assert f'action="/daily/{key}/games"' in page
        width, height, mines = DailyBoard(datetime.date(2026, 11, 26), "cruel").size
        assert "Cruel Expert" in page and "No-guess Expert" in page and f"{width}×{height} · {mines} mines" in page
        # A malformed name: said at its field on the day's page, after a redirect (a reload posts nothing again),
        # with what was typed kept, all escaped; nothing is kept.
        refused = ada.post("/daily/name", data={"name": "<b>me</b>"})
        assert refused.status_code == 303 and refused.headers["location"] == "/daily#you"
        again = ada.get("/daily").text
        form = again.split('class="name-form"', 1)[1].split("</form>", 1)[0]
        assert (
            'role="alert">A name holds letters, digits, spaces, &#39;-&#39; and &#39;_&#39; only, not &#39;&lt;&#39;'
            in form
        )
        assert 'value="&lt;b&gt;me&lt;/b&gt;"' in form and 'aria-invalid="true"' in form and "<b>me" not in again
        assert ada.get("/api/daily").json()["name"] is None
        assert 'role="alert"' not in ada.get("/daily").text and 'value=""' in ada.get("/daily").text, "said once"
        named = ada.post("/daily/name", data={"name": "  Ada  "})
        assert named.status_code == 303 and named.headers["location"] == "/daily#you"
        assert 'value="Ada"' in ada.get("/daily").text
        # Play: the game opens with its first click marked and a line about its ladder; Play again goes on with it.
        game_id = played(ada, f"{TODAY}/classic")
        assert played(ada, f"{TODAY}/classic") == game_id
        game_page = ada.get(f"/games/{game_id}").text
        assert 'id="daily-line"' in game_page and f'href="/daily/{TODAY}#classic"' in game_page
        assert "covered, start here" in game_page
        # Where to start is said in words too, until the first click.
        assert re.search(r'<p id="start-note" class="margin-note">Start at column \d+, row \d+: [^<]+\.</p>', game_page)
        mine = a_mine_of(DailyBoard(datetime.date(2026, 11, 26), "classic"), clock)
        start = ada.get(f"/api/games/{game_id}").json()["start"]
        assert ada.post(
            f"/api/games/{game_id}/moves", json={"action": "reveal", "x": start[0], "y": start[1]}
        ).is_success
        lost = ada.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": mine[0], "y": mine[1]}).json()
        assert lost["status"] == "lost"
        assert 'id="start-note"' not in ada.get(f"/games/{game_id}").text
        # Bob wins the cruel board cleanly; Ada, who has not finished it, sees his line but not its replay.
        bob_game = played(bob, f"{TODAY}/cruel")
        won = win_by_proof(bob, clock, bob_game)
        page = ada.get("/daily").text
        rows = ladder_rows(page, "cruel")
        bob_name = bob.get("/daily").text.split('id="name"', 1)[1].split('placeholder="', 1)[1].split('"', 1)[0]
        assert bob_name.startswith("anonymous ")
        elapsed = int(won["elapsed"])
        assert rows[1].startswith(f"1 {bob_name} {elapsed // 60}:{elapsed % 60:02d}.")
        cruel = board_section(page, "cruel")
        assert "/replays/" not in cruel and "The replays open once" in cruel
        assert "Your entry: lost" in page and "Play again (practice)" in page
        # Ada's lost entry is her own line on the classic board's ladder: shown to her, not to Bob; lost, as
        # nothing helped her.
        (ada_row,) = [row for row in ladder_rows(page, "classic") if row.startswith("– Ada (you)")]
        assert ada_row.startswith("– Ada (you) lost –") and "with" not in ada_row
        assert "Ada" not in " ".join(ladder_rows(bob.get("/daily").text, "classic"))
        # Bob sees his own replay; the page and the API read the same ladder.
        own = bob.get(f"/api/daily/{TODAY}/ladder").json()["boards"][0]["lines"][0]
        assert own["own"] and f'href="{own["replay"]}"' in bob.get("/daily").text
        # A name kept by another tool, with markup in it: shown escaped.
        with sqlite3.connect(database) as connection:
            connection.execute("UPDATE names SET name = '<i>Ada</i>'")
        assert "&lt;i&gt;Ada&lt;/i&gt;" in ada.get("/daily").text and "<i>Ada</i>" not in ada.get("/daily").text
        # A past day's board is closed: said on the day's page. The next day: yesterday's page, with replays.
        closed = bob.post("/daily/2026-11-25/cruel/games")
        assert closed.status_code == 422 and "closed" in closed.text and "Boards of the day" in closed.text
        clock.advance(86400)
        yesterday = ada.get(f"/daily/{TODAY}").text
        assert "Boards of 26 November 2026" in yesterday and f'action="/daily/{TODAY}/cruel/games"' not in yesterday
        assert f'href="{own["replay"]}"' in yesterday
        # The calendar: Bob's won day, and his streak still standing the next day.
        calendar = bob.get("/daily/history").text
        assert "Streak: <strong>1 day</strong>" in calendar
        won_day = r'aria-label="26 November: Cruel Expert won in \d+:\d\d\.\d; No-guess Expert not played"'
        assert re.search(won_day, calendar)
        assert 'aria-current="date"' in calendar
        for path in ("/daily/2026-11-28", "/daily/yesterday"):
            answer = bob.get(path)
            assert answer.status_code == 422 and ("still to come" in answer.text or "not a date" in answer.text)


def test_the_replay_page_of_an_entry_keeps_its_link_and_says_why(tmp_path):
    """The owner's replay page offers no Withdraw for an entry on a ladder (the ladder links to it) and says so; the
    API refuses the withdrawal with its message; a practice game of the board keeps its Withdraw."""
    clock = FakeClock(MIDNIGHT + 7200)
    with live_server(tmp_path / "games.sqlite3", clock=clock, secret_key=KEY) as url:
        with httpx.Client(base_url=url, timeout=seconds(30)) as ada:
            entry_id = played(ada, f"{TODAY}/cruel")
            win_by_proof(ada, clock, entry_id)
            replay = ada.get(f"/games/{entry_id}/replay").text
            share = replay.split('id="share"', 1)[1].split("</section>", 1)[0]
            assert "Withdraw the link" not in share and "so the link stays" in share
            assert f'href="/daily/{TODAY}#cruel"' in share
            refused = ada.delete(f"/api/games/{entry_id}/share")
            assert refused.status_code == 409 and "so the link stays" in refused.json()["detail"]
            link = re.search(r'id="share-link" type="text" readonly value="([^"]+)"', share)
            assert link is not None and ada.get(link.group(1)).status_code == 200
            practice_id = played(ada, f"{TODAY}/cruel")
            assert practice_id != entry_id
            win_by_proof(ada, clock, practice_id)
            assert "Withdraw the link" in ada.get(f"/games/{practice_id}/replay").text
            assert ada.delete(f"/api/games/{practice_id}/share").status_code == 204
