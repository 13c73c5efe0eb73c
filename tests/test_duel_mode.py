"""A mode with seats added from tests/ alone (tests/duel_mode.py and its face in tests/duel_face/): on one
screen, by an invitation (joining, watching, live updates over the stream and the poll, who is
connected) and through the JSON API, on a real uvicorn and a real SQLite file.

Every deal is seeded (`deal_seed`); every move acts on a cell read from the answer before it.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from app.service import Deals
from tests.clock import FakeClock
from tests.duel_mode import registered
from tests.live import live_server, seconds, wait_until
from tests.test_flags_web import HTMX, api, covered, lines


@pytest.fixture
def server(tmp_path, deal_seed, monkeypatch):
    registered(monkeypatch)
    # The clock stands still: who is connected never runs out while a slow machine runs the test.
    with live_server(tmp_path / "games.sqlite3", deals=Deals(seed=deal_seed), clock=FakeClock()) as url:
        yield url


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=httpx.Timeout(seconds(30), read=seconds(20)))


def create(player: httpx.Client, opponent: str) -> str:
    response = player.post("/games", data={"choice": "test-duel tiny", "opponent": opponent})
    assert response.status_code == 303, response.text
    return response.headers["location"].rsplit("/", 1)[1]


def move(player: httpx.Client, game_id: str, x: int, y: int, expected: int = 200) -> httpx.Response:
    version = api(player, game_id)["version"] if player.cookies else 0
    answer = player.post(
        f"/games/{game_id}/moves",
        data={"action": "reveal", "x": str(x), "y": str(y), "version": str(version)},
        headers=HTMX,
    )
    assert answer.status_code == expected, answer.text
    return answer


def test_the_page_offers_the_mode_with_its_own_fields_and_draws_its_face(server) -> None:
    with client(server) as player:
        home = player.get("/")
        assert 'value="test-duel tiny"' in home.text and "Duel (tests only)" in home.text
        game_id = create(player, "screen")
        page = player.get(f"/games/{game_id}").text
        assert 'class="topbar test-duel-bar"' in page and 'id="duel-0"' in page, "the face's counters"
        assert lines(page)[0] == "North to move" and 'data-actions="reveal"' in page
        assert 'sse-connect="/games/' in page, "a game of seats is live"


def test_on_one_screen_one_player_moves_for_both_seats_in_turn(server) -> None:
    with client(server) as player:
        game_id = create(player, "screen")
        for _ in range(25):
            game = api(player, game_id)
            if game["status"] != "playing":
                break
            mover = game["duel"]["turn"]
            x, y = covered(game)[0]
            answer = move(player, game_id, x, y)
            after = api(player, game_id)
            assert after["duel"]["moves"][mover] == game["duel"]["moves"][mover] + 1
            if after["status"] == "playing":
                assert after["duel"]["turn"] == 1 - mover and "to move" in lines(answer.text)[0]
        assert api(player, game_id)["status"] in ("won", "lost"), "a 5x5 duel ends within 25 reveals"


def test_an_invitation_seats_who_asks_first_shows_others_the_game_and_keeps_everyone_live(server) -> None:
    with client(server) as north, client(server) as south, client(server) as carol:
        game_id = create(north, "invite")
        page = north.get(f"/games/{game_id}").text
        assert "South has not joined yet" in page
        link = re.search(r'id="invite-link" type="text" readonly value="([^"]+)"', page).group(1)
        key = link.rsplit("/", 1)[1]
        # Opening the link shows the game; the button takes the seat.
        shown = carol.get(link, follow_redirects=True)
        assert "Play as South" in shown.text and "South&#39;s seat is free" in shown.text
        assert south.post(link).headers["location"] == f"/games/{game_id}"
        assert "South (you)" in south.get(f"/games/{game_id}").text
        late = carol.post(link)
        assert late.headers["location"] == f"/games/{game_id}/watch/{key}", "the seat is South's"
        # South may not move on North's turn; North may.
        game = api(north, game_id)
        x, y = covered(game)[0]
        refused = move(south, game_id, x, y, expected=409)
        assert "It is North&#39;s turn" in refused.text
        # Each side's page hears of the other's move: the stream says the game changed, the poll sends it.
        version = api(north, game_id)["version"]
        with south.stream("GET", f"/games/{game_id}/events", params={"version": str(version)}) as stream:
            events = stream.iter_lines()
            move(north, game_id, x, y)
            assert next(line for line in events if line.startswith("event:")) == "event: changed"
        presence = re.search(r'id="presence" name="presence" value="(\d*)"', south.get(f"/games/{game_id}").text)
        assert presence.group(1) == "01", "both players are connected"
        live = south.get(f"/games/{game_id}/live", params={"version": str(version), "presence": "01"})
        assert live.status_code == 200 and f'id="c-{x}-{y}"' in live.text
        now = api(south, game_id)["version"]
        assert south.get(f"/games/{game_id}/live", params={"version": str(now), "presence": "01"}).status_code == 204
        # The spectator watches by the link, live, and moves nothing.
        watched = carol.get(f"/games/{game_id}/watch/{key}/live", params={"version": str(version), "presence": ""})
        assert watched.status_code == 200 and "You are watching: the two players" in watched.text
        assert carol.get(f"/games/{game_id}").status_code == 404


def test_the_json_api_plays_it_and_shows_its_part(server) -> None:
    with client(server) as player:
        made = player.post("/api/games", json={"mode": "test-duel", "width": 5, "height": 5, "mines": 5})
        assert made.status_code == 201, made.text
        game = made.json()
        assert game["duel"] == {"turn": 0, "moves": [0, 0]} and game["two_players"] is None
        x, y = covered(game)[0]
        moved = player.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": x, "y": y})
        assert moved.status_code == 200, moved.text
        assert moved.json()["duel"]["moves"] == [1, 0]
        refused = player.post(f"/api/games/{game['id']}/moves", json={"action": "flag", "x": x, "y": y})
        assert refused.status_code == 422 and "expected reveal" in refused.json()["detail"]


FACE_SCRIPT = '<script type="module" src="/static/modes/test-duel/duel.js"></script>'
FACE_STYLE = '<link rel="stylesheet" href="/static/modes/test-duel/duel.css">'


def test_its_faces_script_and_stylesheet_are_served_from_its_folder_and_loaded_by_its_games_alone(server) -> None:
    folder = Path(__file__).parent / "duel_face"
    with client(server) as player:
        page = player.get(f"/games/{create(player, 'screen')}").text
        assert FACE_SCRIPT in page and FACE_STYLE in page
        for name, kind in (("duel.js", "javascript"), ("duel.css", "text/css")):
            served = player.get(f"/static/modes/test-duel/{name}")
            assert served.status_code == 200 and kind in served.headers["content-type"]
            assert served.content == (folder / name).read_bytes()
        # Only what the face names: not its templates, nor anything beside its folder.
        for other in ("topbar.html", "..%2Fduel_mode.py", "missing.js"):
            assert player.get(f"/static/modes/test-duel/{other}").status_code == 404, other
        # The page's own script is still served as before, and a game of another mode loads no Duel.
        assert player.get("/static/kaboom.js").status_code == 200
        made = player.post("/games", data={"choice": "classic beginner"})
        classic = player.get(made.headers["location"]).text
        assert "/static/modes/" not in classic and '<script type="module" src="/static/kaboom.js">' in classic


def test_its_faces_script_runs_on_its_games_page_alone_through_the_boards_interface(server, browser) -> None:
    context = browser.new_context(base_url=server, viewport={"width": 1366, "height": 650}, bypass_csp=True)
    errors: list[str] = []
    faces: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: faces.append(request.url) if "/static/modes/" in request.url else None)
        page.goto("/")
        page.click("button[value='test-duel tiny']")
        page.wait_for_url("**/games/*")
        page.wait_for_load_state()
        assert sorted(url.rsplit("/", 1)[1] for url in faces) == ["duel.css", "duel.js"]
        game_id = page.url.rsplit("/", 1)[1]
        note = page.locator("#board-note")
        # D is the face's key: its tool takes the next click on a cell, says so, and reveals it.
        page.keyboard.press("d")
        assert note.text_content() == "Duel: pick a cell."
        cell = page.locator(".c.u").first
        x, y = (int(part) for part in (cell.get_attribute("id") or "").split("-")[1:])
        cell.click()
        page.wait_for_function("document.querySelector('#board-note').textContent.startsWith('Duel: column')")
        assert note.text_content() == f"Duel: column {x + 1}, row {y + 1}."
        wait_until(
            lambda: page.request.get(f"/api/games/{game_id}").json()["duel"]["moves"] == [1, 0],
            10,
            "the tool's reveal was not played",
        )
        # Another mode's page loads no face script, and D is nobody's key there.
        faces.clear()
        page.goto("/")
        page.click("button[value='classic beginner']")
        page.wait_for_url("**/games/*")
        page.wait_for_load_state()
        page.keyboard.press("d")
        assert faces == [] and note.text_content() == ""
    finally:
        context.close()
    assert not errors, errors
