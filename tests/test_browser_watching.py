"""Watching a room's games in Chromium (issue 41 #22): whoever watches a co-op game by its link takes every update
without an error in the browser's console, and whoever was left watching a racer's board when the race was played
again goes to the room, instead of asking for the old board every few seconds for as long as the page is open."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.test_api import covered
from tests.test_browser import CHROMIUM, play_out, reveal  # noqa: F401  (CHROMIUM: skips the module without Chromium)
from tests.test_browser_axe import room_of_two
from tests.test_browser_replay import api
from tests.test_browser_rooms import DEADLINE, STREAM_OPEN, settled
from tests.test_layout import LAPTOP

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"race_countdown": 0}


def someone(open_page):
    page = open_page(LAPTOP)
    page.set_default_timeout(DEADLINE * 1000)
    page.goto("/")
    return page


def test_a_coop_watcher_takes_every_update_without_an_error(open_page):
    ann, _, room = room_of_two(open_page, "coop", someone)
    game_id = room["game"]["id"]
    dee = someone(open_page)
    said: list[str] = []
    dee.on("console", lambda message: message.type in ("error", "warning") and said.append(message.text))
    dee.goto(urlsplit(room["link"]).path)
    dee.wait_for_url(f"**/games/{game_id}/watch/*")
    # Every error htmx meets on the page, counted there too (the console's words for it may change).
    dee.evaluate(
        "window.htmxErrors = []; document.body.addEventListener('htmx:error', event =>"
        " htmxErrors.push(String(event.detail.errorInfo && event.detail.errorInfo.error)))"
    )
    settled(dee, STREAM_OPEN)
    answer = reveal(ann, game_id, 4, 4)
    for _ in range(3):
        settled(dee, f"Number(document.getElementById('version').value) === {answer['version']}")
        x, y = covered(answer["board"])
        answer = api(ann, "POST", f"/api/games/{game_id}/moves", {"action": "flag", "x": x, "y": y})
    settled(dee, f"Number(document.getElementById('version').value) === {answer['version']}")
    assert dee.evaluate("window.htmxErrors") == [] and said == []


def test_a_watcher_left_on_a_racers_board_goes_to_the_room_when_the_race_is_played_again(open_page):
    ann, bob, room = room_of_two(open_page, "race", someone)
    api(ann, "POST", f"/api/rooms/{room['id']}/start")
    boards = []
    for racer in (ann, bob):
        game = api(racer, "GET", f"/api/rooms/{room['id']}")["game"]
        boards.append(play_out(racer, reveal(racer, game["id"], *game["start"]))["id"])
    dee = someone(open_page)
    key = room["invite"]
    dee.goto(f"/games/{boards[0]}/watch/{key}")
    dee.wait_for_selector("#grid")
    settled(dee, STREAM_OPEN)
    assert api(ann, "POST", f"/api/rooms/{room['id']}/start")["round"] == 2
    # The old board is gone for whoever watches: the page hears it (its stream ends, its poll is refused) and
    # goes to the room, which shows the new round.
    dee.wait_for_url(lambda address: boards[0] not in address)
    dee.wait_for_selector("#room")
    assert urlsplit(dee.url).path == f"/rooms/{room['id']}/watch/{key}"
