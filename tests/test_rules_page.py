"""Issue 41 #16: the rules page says how each mode, each kind of room, the boards of the day and the review go,
in sections to link to, its lists read from the code that decides them; and each of those pages links to its
section."""

from __future__ import annotations

import re

import httpx
import pytest

from app.core.game import AIDS as AID_WORDS
from app.modes import MODES
from app.rooms import KINDS
from app.web.views.reviews import MARGIN_TEXT
from tests.live import live_server, put_layout, seconds
from tests.test_flags_web import create
from tests.test_rooms import new_room

pytestmark = [pytest.mark.usefixtures("seeded"), pytest.mark.server]


def sections(page: str) -> dict[str, str]:
    """The rules page's sections, by id: the text of each, tags dropped."""
    found = re.findall(r'<section id="([a-z-]+)" class="rules-mode"[^>]*>(.*?)</section>', page, re.S)
    return {name: " ".join(re.sub(r"<[^>]+>", " ", text).split()) for name, text in found}


def test_the_rules_have_a_section_for_each_mode_room_the_days_boards_and_the_review(tmp_path) -> None:
    with live_server(tmp_path / "games.sqlite3") as url, httpx.Client(base_url=url, timeout=seconds(30)) as ann:
        page = ann.get("/rules").text
    shown = sections(page)
    for name in [*MODES, *KINDS, "daily", "review"]:
        assert name in shown and f'<a href="#{name}">' in page, name
    for kind in KINDS.values():
        assert kind.summary in shown[kind.name] and shown[kind.name].count(". ") >= 4
    assert "start cell" in shown["race"] and "A mine ends that racer's run" in shown["race"]
    assert "nobody's record" in shown["coop"] and "no longer moves" in shown["coop"]
    # What makes a win clean, as the ladders' code decides it.
    daily = shown["daily"]
    assert all(words in daily for words in AID_WORDS.values())
    for mode in MODES.values():
        if mode.daily is not None:
            assert mode.daily_title in daily
            for name in mode.options_class.helping():
                assert mode.options_class.label(name).lower() in daily.lower()
    review = shown["review"]
    assert str(MARGIN_TEXT) in review
    assert all(grade in review for grade in ("Proven", "Best guess", "Inaccuracy", "Mistake", '"1 in 12"'))


def test_each_page_links_to_its_rules(tmp_path) -> None:
    database = tmp_path / "games.sqlite3"
    with live_server(database) as url, httpx.Client(base_url=url, timeout=seconds(30)) as ann:
        coop = new_room(ann, "coop", "Ann")
        assert 'href="/rules#coop"' in ann.get(f"/rooms/{coop['id']}", follow_redirects=True).text
        race = new_room(ann, "race", "Ann")
        assert 'href="/rules#race"' in ann.get(f"/rooms/{race['id']}").text
        assert 'href="/rules#daily"' in ann.get("/daily").text
        made = ann.post("/api/games", json={"mode": "classic", "width": 9, "height": 9, "mines": 10})
        game_id = made.json()["id"]
        put_layout(database, game_id, ["o*", ".."])
        assert ann.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": 1, "y": 0}).status_code == 200
        assert 'href="/rules#review"' in ann.get(f"/games/{game_id}/replay").text
        cruel = create(ann, mode="cruel-flags", opponent="screen")
        assert 'href="/rules#cruel-flags"' in ann.get(f"/games/{cruel}").text.split('id="settings"', 1)[1]
