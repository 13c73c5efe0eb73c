"""The JSON API and the pages over HTTP, against a real uvicorn and a real SQLite file."""

from __future__ import annotations

import httpx
import pytest

from tests.live import live_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with live_server(tmp_path_factory.mktemp("api") / "games.sqlite3") as url:
        yield url


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server, timeout=30) as client:
        yield client


def new_game(client, **body):
    response = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "mode": "cruel", **body})
    assert response.status_code == 201, response.text
    return response.json()


def test_create_play_and_read_a_game(client):
    game = new_game(client)
    assert game["status"] == "playing" and game["board"] == ["." * 9] * 9 and game["exploded"] is None
    assert len(game["id"]) >= 22  # 128 bits, URL-safe
    response = client.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": 4, "y": 4})
    assert response.status_code == 200, response.text
    moved = response.json()
    assert moved["board"][4][4] in "012345678" and moved["status"] == "playing"
    flagged = client.post(f"/api/games/{game['id']}/moves", json={"action": "flag", "x": 0, "y": 0}).json()
    assert flagged["board"][0][0] == "F" and flagged["flags"] == 1
    assert client.get(f"/api/games/{game['id']}").json()["board"] == flagged["board"]


def test_refused_moves_answer_409_or_422_and_change_nothing(client):
    game = new_game(client)
    url = f"/api/games/{game['id']}/moves"
    client.post(url, json={"action": "reveal", "x": 4, "y": 4})
    before = client.get(f"/api/games/{game['id']}").json()
    cases = [
        ({"action": "reveal", "x": 4, "y": 4}, 409, "already revealed"),
        ({"action": "undo"}, 200, None),
        ({"action": "undo"}, 409, "nothing to undo"),
        ({"action": "reveal", "x": 9, "y": 0}, 422, "off the 9x9 board"),
        ({"action": "reveal"}, 422, "whole numbers"),
        ({"action": "explode", "x": 1, "y": 1}, 422, None),
        ({"action": "flag", "x": 1, "y": 1, "mark": "star"}, 422, None),
    ]
    for body, status, fragment in cases:
        response = client.post(url, json=body)
        assert response.status_code == status, (body, response.text)
        if fragment:
            assert fragment in response.json()["detail"]
    after = client.get(f"/api/games/{game['id']}").json()
    assert after["board"] == ["." * 9] * 9  # only the undo changed it
    assert after["moves"] == before["moves"] + 1


def test_invalid_new_games_are_refused_with_a_message(client):
    for body in ({"width": 1, "height": 9, "mines": 3}, {"width": 9, "height": 9, "mines": 81}, {"width": 9, "height": 9}):
        response = client.post("/api/games", json={"mode": "cruel", **body})
        assert response.status_code == 422, body
    response = client.post("/api/games", json={"width": 5, "height": 5, "mines": 25})
    assert "between 1 and 24" in response.json()["detail"]


def test_another_players_game_is_not_found(client, server):
    game = new_game(client)
    with httpx.Client(base_url=server) as stranger:
        assert stranger.get(f"/api/games/{game['id']}").status_code == 404
        assert stranger.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": 0, "y": 0}).status_code == 404
        assert stranger.get(f"/games/{game['id']}").status_code == 404
    assert client.get("/api/games/not-a-game").status_code == 404


def test_analysis_hint_and_options(client):
    game = new_game(client, width=16, height=16, mines=40)
    url = f"/api/games/{game['id']}"
    assert client.post(f"{url}/hint").json()["kind"] == "start"
    client.post(f"{url}/moves", json={"action": "reveal", "x": 8, "y": 8})
    status = client.get(f"{url}/analysis").json()["status"]
    assert len(status) == 16 and all(len(row) == 16 for row in status)
    advice = client.post(f"{url}/hint").json()
    assert set(advice) == {"kind", "message", "cell", "proof", "uses_count"}
    if advice["cell"]:
        x, y = advice["cell"]
        assert status[y][x] == "s"
        for px, py in advice["proof"]:
            assert status[py][px] in "12345678"
    options = client.patch(f"{url}/options", json={"debug_overlay": True, "countdown": True}).json()["options"]
    assert options["debug_overlay"] and options["countdown"] and not options["allow_outside"]
    assert client.get(url).json()["hints"] == 2


def test_pages_render_and_htmx_moves_send_only_what_changed(client):
    page = client.get("/")
    assert page.status_code == 200 and "New game" in page.text
    created = client.post("/games", data={"preset": "expert"}, follow_redirects=False)
    assert created.status_code == 303
    game_url = created.headers["location"]
    page = client.get(game_url)
    assert page.text.count('role="gridcell"') == 30 * 16
    assert len(page.content) < 90_000
    game_id = game_url.rsplit("/", 1)[1]
    fragment = client.post(
        f"{game_url}/moves",
        data={"action": "reveal", "x": "15", "y": "8", "version": "0"},
        headers={"HX-Request": "true"},
    )
    assert fragment.status_code == 200
    assert 'id="panel"' in fragment.text and fragment.text.count('hx-swap-oob="true"') >= 2
    assert 'role="grid"' not in fragment.text  # cells only, not the whole board
    stale = client.post(
        f"{game_url}/moves",
        data={"action": "flag", "x": "0", "y": "0", "version": "0"},
        headers={"HX-Request": "true"},
    )
    assert 'role="grid"' in stale.text  # the page was behind: the whole board comes back
    refused = client.post(
        f"{game_url}/moves", data={"action": "reveal", "x": "15", "y": "8", "version": "2"}, headers={"HX-Request": "true"}
    )
    assert refused.status_code == 409 and "already revealed" in refused.text
    assert client.get(f"/api/games/{game_id}").json()["moves"] == 2


def test_new_game_form_validates_sizes(client):
    response = client.post("/games", data={"preset": "custom", "width": "200", "height": "10", "mines": "10", "unit": "count"})
    assert response.status_code == 422 and "between 2 and 100" in response.text
    response = client.post("/games", data={"preset": "custom", "width": "<b>ten</b>", "height": "10", "mines": "10"})
    assert response.status_code == 422 and "width must be a whole number" in response.text
    assert "<b>ten" not in response.text and "&lt;b&gt;ten" in response.text
    response = client.post(
        "/games", data={"preset": "custom", "width": "10", "height": "10", "mines": "20", "unit": "percent"}, follow_redirects=True
    )
    assert response.status_code == 200 and "20 mines" in response.text


def test_health_and_openapi(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/games", "/api/games/{game_id}", "/api/games/{game_id}/moves", "/api/games/{game_id}/analysis", "/api/games/{game_id}/hint"} <= set(paths)


def test_a_restart_loses_nothing(tmp_path):
    database = tmp_path / "games.sqlite3"
    with live_server(database) as url:
        with httpx.Client(base_url=url) as client:
            game = new_game(client)
            for body in ({"action": "reveal", "x": 4, "y": 4}, {"action": "flag", "x": 0, "y": 0}):
                client.post(f"/api/games/{game['id']}/moves", json=body)
            before = client.get(f"/api/games/{game['id']}").json()
            cookies = dict(client.cookies)
    with live_server(database) as url:
        with httpx.Client(base_url=url, cookies=cookies) as client:
            after = client.get(f"/api/games/{game['id']}").json()
            assert {k: v for k, v in after.items() if k != "elapsed"} == {k: v for k, v in before.items() if k != "elapsed"}
            undone = client.post(f"/api/games/{game['id']}/moves", json={"action": "undo"}).json()
            assert undone["flags"] == 0 and undone["board"][4][4] != "."


def test_big_changes_travel_as_rows_not_hundreds_of_swaps(client):
    # One mine on 480 cells: a first click floods most of the board, unless the
    # dealt mine happens to touch it (1.7%): a few tries make that negligible.
    for _ in range(6):
        created = client.post("/games", data={"preset": "custom", "width": "30", "height": "16", "mines": "1", "unit": "count"})
        fragment = client.post(
            f"{created.headers['location']}/moves",
            data={"action": "reveal", "x": "15", "y": "8", "version": "0"},
            headers={"HX-Request": "true"},
        )
        if fragment.text.count('role="gridcell"') > 40:
            break
    assert fragment.text.count('role="gridcell"') > 40
    assert fragment.text.count('hx-swap-oob="true"') <= 17  # the panel and at most every row
    assert 'id="r-8" hx-swap-oob="true"' in fragment.text


def test_simultaneous_moves_on_one_game_are_applied_one_after_the_other(client, server):
    from concurrent.futures import ThreadPoolExecutor

    game = new_game(client, width=16, height=16, mines=40)
    url = f"{server}/api/games/{game['id']}/moves"
    cookies = dict(client.cookies)
    cells = [(x, y) for y in range(4) for x in range(16)]

    def flag(cell):
        with httpx.Client(cookies=cookies, timeout=30) as own:
            return own.post(url, json={"action": "flag", "x": cell[0], "y": cell[1], "mark": "flag"}).status_code

    with ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(flag, cells))
    assert statuses == [200] * len(cells)
    after = client.get(f"/api/games/{game['id']}").json()
    assert after["flags"] == len(cells) and after["moves"] == len(cells)
    assert all(row == "F" * 16 for row in after["board"][:4])
