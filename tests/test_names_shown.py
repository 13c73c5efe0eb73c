"""Issue 41 #7: a name a player chose is set apart in <bdi> wherever a page shows it, so that a name written
right to left ("سارة") does not turn the words around it: the day's ladders and the name form, a shared
replay's headline, a room's members and log, a race's lobby and scoreboard, and the home page's rooms."""

from __future__ import annotations

from html.parser import HTMLParser

import httpx
import pytest

from tests.clock import FakeClock
from tests.live import live_server, seconds
from tests.test_daily import KEY, MIDNIGHT
from tests.test_daily_pages import TODAY, played, win_by_proof
from tests.test_rooms import join, new_room

# Beginner boards of the day (conftest.py): a ladder's names show the same on any size.
pytestmark = pytest.mark.usefixtures("small_dailies")

SARA = "سارة"


class Isolation(HTMLParser):
    """Where a page's text shows a name: inside a <bdi>, or bare."""

    def __init__(self, name: str):
        super().__init__()
        self.name, self.depth = name, 0
        self.isolated, self.bare = 0, []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.depth += tag == "bdi"

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag == "bdi"

    def handle_data(self, data: str) -> None:
        if self.name in data:
            if self.depth:
                self.isolated += data.count(self.name)
            else:
                self.bare.append(" ".join(data.split()))


def isolated(page: str, name: str = SARA) -> int:
    """How often the page's text shows `name`, each time in a <bdi>; fails with the text that shows it bare."""
    parser = Isolation(name)
    parser.feed(page)
    parser.close()
    assert parser.bare == [], parser.bare
    return parser.isolated


def test_the_checker_finds_a_name_outside_bdi_and_not_in_an_attribute() -> None:
    assert isolated(f'<p title="{SARA}"><bdi>{SARA}</bdi> won</p>') == 1
    with pytest.raises(AssertionError, match="won"):
        isolated(f"<p>{SARA} won</p>")


@pytest.mark.server
def test_a_name_written_right_to_left_is_set_apart_wherever_a_page_shows_it(tmp_path) -> None:
    clock = FakeClock(MIDNIGHT + 7200)
    with (
        live_server(tmp_path / "games.sqlite3", clock=clock, secret_key=KEY) as url,
        httpx.Client(base_url=url, timeout=seconds(30)) as sara,
        httpx.Client(base_url=url, timeout=seconds(30)) as bob,
    ):
        # The day's page: her name under its form, then her line on the ladder, as she and Bob see it.
        assert sara.put("/api/name", json={"name": SARA}).status_code == 200
        assert isolated(sara.get("/daily").text) == 1
        game_id = played(sara, f"{TODAY}/cruel")
        win_by_proof(sara, clock, game_id)
        assert isolated(sara.get("/daily").text) == 2
        assert isolated(bob.get("/daily").text) == 1
        # Her shared replay, as anyone else reads its headline (once the day is over: a board of the day's replay
        # waits for those who have not played it).
        path = httpx.URL(sara.post(f"/api/games/{game_id}/share").json()["url"]).path
        clock.advance(86400)
        assert isolated(bob.get(path).text) == 1
        # A co-op room she joined: its members and its log, on the board's page of each; Bob's list of rooms.
        coop = new_room(bob, "coop", "Bob")
        join(sara, coop, SARA)
        for player in (sara, bob):
            assert isolated(player.get(f"/rooms/{coop['id']}", follow_redirects=True).text) == 2
        assert isolated(bob.get("/").text) == 1
        # A race she made: Bob waits for her to start it, and its scoreboard names her.
        race = new_room(sara, "race", SARA)
        join(bob, race, "Bob")
        lobby = bob.get(f"/rooms/{race['id']}").text
        assert "Waiting for <bdi>" in lobby and isolated(lobby) == 2
