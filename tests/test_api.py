"""The JSON API and the pages over HTTP, against a real uvicorn and a real SQLite file.

The server deals from a seeded source (the `deal_seed` of each test), and
every move after a reveal acts on cells read from the answer: a test holds
for any deal (run `pytest tests/test_api.py --deal-seeds 200` to see it).
"""

from __future__ import annotations

import httpx
import pytest

from app.service import Deals
from tests.live import live_server, put_position, seconds

pytestmark = pytest.mark.usefixtures("seeded")
# Run over many seeds (--deal-seeds) the tests create many games from one address.
SERVER_SETTINGS = {"create_limit": 100_000}


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server, timeout=seconds(30)) as client:
        yield client


def new_game(client, **body):
    response = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "mode": "cruel", **body})
    assert response.status_code == 201, response.text
    return response.json()


def move(client, game_id: str, expected: int = 200, **body) -> dict:
    response = client.post(f"/api/games/{game_id}/moves", json=body)
    assert response.status_code == expected, (body, response.text)
    return response.json()


def covered(board: list[str]) -> tuple[int, int]:
    """A cell the answer shows covered (a reveal may have flooded any other)."""
    return next((x, y) for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol == ".")


def test_create_play_and_read_a_game(client):
    game = new_game(client)
    assert game["status"] == "playing" and game["board"] == ["." * 9] * 9 and game["exploded"] is None
    assert len(game["id"]) >= 22  # 128 bits, URL-safe
    assert game["version"] == game["moves"] == 0
    moved = move(client, game["id"], action="reveal", x=4, y=4)
    assert moved["board"][4][4] in "012345678" and moved["status"] in ("playing", "won")
    if moved["status"] == "won":
        return  # the first reveal cleared the board: nothing left to flag
    x, y = covered(moved["board"])
    flagged = move(client, game["id"], action="flag", x=x, y=y)
    assert flagged["board"][y][x] == "F" and flagged["flags"] == 1
    assert flagged["version"] == flagged["moves"] == 2
    assert client.get(f"/api/games/{game['id']}").json()["board"] == flagged["board"]


def test_refused_moves_answer_409_or_422_and_change_nothing(client):
    game = new_game(client)
    url = f"/api/games/{game['id']}/moves"
    move(client, game["id"], action="reveal", x=4, y=4)
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
    for body in (
        {"width": 1, "height": 9, "mines": 3},
        {"width": 9, "height": 9, "mines": 81},
        {"width": 9, "height": 9},
    ):
        response = client.post("/api/games", json={"mode": "cruel", **body})
        assert response.status_code == 422, body
    response = client.post("/api/games", json={"width": 5, "height": 5, "mines": 25})
    assert "between 1 and 24" in response.json()["detail"]
    response = client.post("/api/games", json={"width": 5, "height": 5, "mines": 5, "mode": "nonsense"})
    assert response.status_code == 422


def test_another_players_game_is_not_found(client, server):
    game = new_game(client)
    with httpx.Client(base_url=server) as stranger:
        assert stranger.get(f"/api/games/{game['id']}").status_code == 404
        assert (
            stranger.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": 0, "y": 0}).status_code
            == 404
        )
        assert stranger.get(f"/games/{game['id']}").status_code == 404
    assert client.get("/api/games/not-a-game").status_code == 404


def test_analysis_hint_and_options(client, database):
    game = new_game(client, width=16, height=16, mines=40)
    url = f"/api/games/{game['id']}"
    start = client.post(f"{url}/hint")
    assert start.status_code == 200 and start.json()["kind"] == "start"
    # A hand-made position: the lower 1s put the mine at (1, 1), so the top 1 leaves (1, 0) safe.
    put_position(database, game["id"], ["1....", "1....", "11..."], mines=3)
    status = client.get(f"{url}/analysis").json()["status"]
    assert status == ["1s???", "1ms??", "11s??"]
    advice = client.post(f"{url}/hint").json()
    assert advice == {
        "kind": "safe",
        "message": "There are safe cells",
        "cell": [1, 0],
        "proof": [[0, 0], [0, 2]],
        "uses_count": False,
    }
    # Nothing safe: one mine by the 1, so the other two fill the left column.
    put_position(database, game["id"], ["...", "..1"], mines=3)
    assert client.post(f"{url}/hint").json()["kind"] == "guess"
    options = client.patch(f"{url}/options", json={"debug_overlay": True, "countdown": True}).json()["options"]
    assert options["debug_overlay"] and options["countdown"] and not options["allow_outside"]
    assert client.get(url).json()["hints"] == 3


def test_a_settings_change_that_changes_nothing_writes_nothing(client, database):
    game = new_game(client)
    url = f"/api/games/{game['id']}"
    for unchanged in ({}, {"countdown": False}, dict(game["options"])):
        answer = client.patch(f"{url}/options", json=unchanged)
        assert answer.status_code == 200 and answer.json()["version"] == game["version"] == 0, unchanged
    assert stored_version(database, game["id"]) == 0, "no write, so no live page woken for nothing"
    options = client.patch(f"{url}/options", json={"countdown": True}).json()
    assert options["version"] == 1
    # The page's form sends every ticked box: the boxes as they are are no change either.
    ticked = {name: "on" for name, on in options["options"].items() if on}
    form = client.post(f"/games/{game['id']}/options", data=ticked, headers={"HX-Request": "true"})
    assert form.status_code == 200 and stored_version(database, game["id"]) == 1


def stored_version(database, game_id: str) -> int:
    import sqlite3

    with sqlite3.connect(database) as connection:
        return connection.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()[0]


def test_a_new_game_from_the_page_keeps_the_settings_the_game_has_now(client):
    first = client.post("/games", data={"preset": "beginner"}, follow_redirects=False).headers["location"]
    first_id = first.rsplit("/", 1)[1]
    changed = {"allow_outside": True, "debug_overlay": True, "safe_mode": True, "countdown": True, "undo": False}
    assert client.patch(f"/api/games/{first_id}/options", json=changed).status_code == 200

    # The page's forms name the game; what counts is the game as it is now, not the form as it was rendered.
    def created(form: dict) -> dict:
        answer = client.post("/games", data=form, follow_redirects=False)
        assert answer.status_code == 303, answer.text
        return client.get(f"/api{answer.headers['location']}").json()

    again = created({"preset": "custom", "width": "9", "height": "9", "mines": "10", "settings_of": first_id})
    second = created({"preset": "expert", "settings_of": first_id})
    for game in (again, second):
        assert {name: game["options"][name] for name in changed} == changed
    assert (second["width"], second["height"], second["mines"]) == (30, 16, 99)
    # A game that is not the player's (or no longer exists) gives the defaults, and a game still starts.
    fresh = created({"preset": "beginner", "settings_of": "not-a-game"})
    assert fresh["options"]["undo"] and not fresh["options"]["debug_overlay"]


def test_after_a_loss_the_page_shows_what_could_have_been_known(client, database):
    game = new_game(client, width=9, height=9, mines=10)
    # Both mines next to the 2, so the right column is safe by the count; (1, 0) could be a mine.
    put_position(database, game["id"], ["2..", "..."], mines=2)
    answer = client.post(
        f"/games/{game['id']}/moves",
        data={"action": "reveal", "x": "1", "y": "0", "version": "1"},
        headers={"HX-Request": "true"},
    )
    assert answer.status_code == 200 and "Boom" in answer.text
    for text in (answer.text, client.get(f"/games/{game['id']}").text):
        assert 'class="hint review"' in text and 'data-safe="c-2-0 c-2-1 "' in text and 'data-cell="c-2-0"' in text
        assert "it was a mine in 67 %" in text


def test_the_home_page_lists_the_players_games_to_resume_or_delete(client):
    first = new_game(client, width=9, height=9, mines=10)["id"]
    second = new_game(client, width=30, height=16, mines=99)["id"]
    home = client.get("/")
    assert home.status_code == 200 and 'id="games-title"' in home.text
    # Newest first, with size, mode and state, each with a link and a delete button.
    assert home.text.index(f'href="/games/{second}"') < home.text.index(f'href="/games/{first}"')
    assert (
        '<span class="game-title">Expert 30×16, 99 mines</span> <span class="game-mode">Cruel but fair</span>'
        in home.text
    )
    assert "Not started" in home.text
    assert [game["id"] for game in client.get("/api/games").json()] == [second, first]
    deleted = client.post(f"/games/{second}/delete", follow_redirects=False)
    assert deleted.status_code == 303 and deleted.headers["location"] == "/"
    assert client.get(f"/api/games/{second}").status_code == 404
    assert client.delete(f"/api/games/{first}").status_code == 204
    assert client.delete(f"/api/games/{first}").status_code == 404
    assert client.get("/api/games").json() == []
    assert 'id="games-title"' not in client.get("/").text


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
    # The panel's content (swapped into the region that stays), the counters and the changed cells out of band.
    assert 'id="version"' in fragment.text and 'id="topbar" class="topbar" hx-swap-oob="true"' in fragment.text
    assert 'id="panel"' not in fragment.text  # the live region stays, so screen readers announce the change
    assert fragment.text.count('hx-swap-oob="true"') >= 2
    assert 'role="grid"' not in fragment.text  # cells or rows only, not the whole board
    x, y = covered(client.get(f"/api/games/{game_id}").json()["board"])
    stale = client.post(
        f"{game_url}/moves",
        data={"action": "flag", "x": str(x), "y": str(y), "version": "0"},
        headers={"HX-Request": "true"},
    )
    assert stale.status_code == 200
    assert 'role="grid"' in stale.text  # the page was behind: the whole board comes back
    refused = client.post(
        f"{game_url}/moves",
        data={"action": "reveal", "x": "15", "y": "8", "version": "2"},
        headers={"HX-Request": "true"},
    )
    assert refused.status_code == 409 and "already revealed" in refused.text
    assert client.get(f"/api/games/{game_id}").json()["moves"] == 2


def test_new_game_form_validates_sizes(client):
    response = client.post(
        "/games", data={"preset": "custom", "width": "200", "height": "10", "mines": "10", "unit": "count"}
    )
    assert response.status_code == 422 and "between 2 and 100" in response.text
    response = client.post("/games", data={"preset": "custom", "width": "<b>ten</b>", "height": "10", "mines": "10"})
    assert response.status_code == 422 and "Width must be a whole number" in response.text
    assert "<b>ten" not in response.text and "&lt;b&gt;ten" in response.text
    response = client.post(
        "/games",
        data={"preset": "custom", "width": "10", "height": "10", "mines": "20", "unit": "percent"},
        follow_redirects=True,
    )
    assert response.status_code == 200 and "20 mines" in response.text


def test_health_and_openapi(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    paths = client.get("/openapi.json").json()["paths"]
    assert {
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/moves",
        "/api/games/{game_id}/analysis",
        "/api/games/{game_id}/hint",
    } <= set(paths)


@pytest.mark.server
def test_a_restart_loses_nothing(tmp_path, deal_seed):
    database = tmp_path / "games.sqlite3"
    with live_server(database, deals=Deals(deal_seed)) as url:
        with httpx.Client(base_url=url) as client:
            game = new_game(client)
            revealed = move(client, game["id"], action="reveal", x=4, y=4)
            if revealed["status"] == "playing":
                x, y = covered(revealed["board"])
                move(client, game["id"], action="flag", x=x, y=y)
            before = client.get(f"/api/games/{game['id']}").json()
            cookies = dict(client.cookies)
    with live_server(database) as url:
        with httpx.Client(base_url=url, cookies=cookies) as client:
            after = client.get(f"/api/games/{game['id']}").json()
            assert {k: v for k, v in after.items() if k != "elapsed"} == {
                k: v for k, v in before.items() if k != "elapsed"
            }
            undone = move(client, game["id"], action="undo")
            assert undone["flags"] == 0 and undone["board"][4][4] != "."
            assert undone["version"] == before["version"] + 1


def test_big_changes_travel_as_rows_not_hundreds_of_swaps(client):
    # One mine on 480 cells: a first click floods most of the board unless the
    # mine touches it; a second click far from the first then floods instead.
    created = client.post(
        "/games", data={"preset": "custom", "width": "30", "height": "16", "mines": "1", "unit": "count"}
    )
    game_id = created.headers["location"].rsplit("/", 1)[1]
    version = 0
    for x, y in ((15, 8), (0, 0), (29, 15)):
        fragment = client.post(
            f"/games/{game_id}/moves",
            data={"action": "reveal", "x": str(x), "y": str(y), "version": str(version)},
            headers={"HX-Request": "true"},
        )
        assert fragment.status_code in (200, 409), fragment.text  # 409: an earlier flood opened it
        if fragment.text.count('role="gridcell"') > 40:
            break
        version = client.get(f"/api/games/{game_id}").json()["version"]
    assert fragment.text.count('role="gridcell"') > 40
    # The counters, Undo, the settings (the first click deals the board) and at most every row.
    assert fragment.text.count('hx-swap-oob="true"') <= 19
    assert 'id="r-8" hx-swap-oob="true"' in fragment.text and 'role="grid"' not in fragment.text


def test_simultaneous_moves_on_one_game_are_applied_one_after_the_other(client, server):
    from concurrent.futures import ThreadPoolExecutor

    game = new_game(client, width=16, height=16, mines=40)
    url = f"{server}/api/games/{game['id']}/moves"
    cookies = dict(client.cookies)
    cells = [(x, y) for y in range(4) for x in range(16)]

    def flag(cell):
        with httpx.Client(cookies=cookies, timeout=seconds(30)) as own:
            return own.post(url, json={"action": "flag", "x": cell[0], "y": cell[1], "mark": "flag"}).status_code

    with ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(flag, cells))
    assert statuses == [200] * len(cells)
    after = client.get(f"/api/games/{game['id']}").json()
    assert after["flags"] == len(cells) and after["moves"] == len(cells)
    assert all(row == "F" * 16 for row in after["board"][:4])


@pytest.mark.parametrize("mode", ["classic", "help"])
def test_no_answer_reveals_a_fixed_layout_before_the_end(client, database, mode):
    """Two classic games show the same position over different layouts: every answer a player can get
    (the page, a move's fragment, a refusal, the JSON, the analysis, a hint, the bot's choice) is the same for
    both, so none can tell the layout. The corner 1 has its mine at (1, 0) in one game and at (0, 1) in the other."""
    import re

    def answers(layout: list[int]) -> list[str]:
        game_id = new_game(client, mode=mode)["id"]
        put_position(database, game_id, ["1..", "...", "..."], mines=1, hidden={"mines": layout})
        url = f"/api/games/{game_id}"
        htmx = {"HX-Request": "true"}
        assert client.patch(f"{url}/options", json={"probabilities": True, "debug_overlay": True}).status_code == 200
        put_position(database, game_id, ["1..", "...", "..."], mines=1, hidden={"mines": layout})
        texts = [
            client.get(f"/games/{game_id}").text,
            client.get(url).text,
            client.get(f"{url}/analysis").text,
            client.get(f"{url}/probabilities").text,
            client.get(f"{url}/bot").text,
            client.get(f"/games/{game_id}/bot", headers=htmx).text,
            client.post(f"{url}/hint").text,
            client.post(f"/games/{game_id}/hint", data={"show": "yes"}, headers=htmx).text,
            client.post(
                f"/games/{game_id}/moves", data={"action": "flag", "x": "2", "y": "2", "version": "4"}, headers=htmx
            ).text,
            client.post(
                f"/games/{game_id}/moves", data={"action": "reveal", "x": "0", "y": "0", "version": "5"}, headers=htmx
            ).text,
            client.post(f"{url}/moves", json={"action": "reveal", "x": 0, "y": 0}).text,
        ]
        # The game's id and the clock (it runs between requests) are the only differences allowed.
        clock = re.compile(r'data-elapsed="\d+"|id="timer"([^>]*)>[^<]*<|"elapsed":[0-9.]+')
        return [clock.sub("TIME", text.replace(game_id, "ID")) for text in texts]

    first, second = answers([1]), answers([3])
    assert "Boom" not in " ".join(first)  # the game is still being played: the layout stays secret
    assert "The bot would open" in " ".join(first)  # the bot answered, rather than refused
    for one, other in zip(first, second, strict=True):
        assert one == other


def test_a_classic_game_from_the_page_carries_its_mode_and_the_settings_modes_share(client):
    created = client.post("/games", data={"preset": "small", "mode": "classic"}, follow_redirects=False)
    assert created.status_code == 303, created.text
    game_id = created.headers["location"].rsplit("/", 1)[1]
    game = client.get(f"/api/games/{game_id}").json()
    assert game["mode"] == "classic" and (game["width"], game["height"], game["mines"]) == (8, 8, 10)
    assert "allow_outside" not in game["options"]  # a cruel-but-fair setting
    page = client.get(f"/games/{game_id}").text
    assert (
        '<option value="classic" selected>Classic</option>' in page
        and '<input type="hidden" name="mode" value="classic">' in page
    )
    moved = move(client, game_id, action="reveal", x=3, y=3)
    assert moved["board"][3][3] == "0" and moved["status"] in ("playing", "won")  # the first click opens
    # A new game in another mode takes the settings both modes have, as the game has them now.
    assert client.patch(f"/api/games/{game_id}/options", json={"first_click_safe_only": True}).status_code == 200
    data = {"preset": "custom", "mode": "cruel", "width": "9", "height": "9", "mines": "10", "settings_of": game_id}
    other = client.post("/games", data=data, follow_redirects=False).headers["location"].rsplit("/", 1)[1]
    options = client.get(f"/api/games/{other}").json()["options"]
    assert options["first_click_safe_only"] and not options["allow_outside"]
    # An unknown mode is refused with the modes there are.
    refused = client.post("/games", data={"preset": "small", "mode": "chess"})
    assert refused.status_code == 422 and "cruel, classic" in refused.text


def test_fixed_layout_games_take_their_settings_through_the_api(client):
    game = new_game(client, mode="help", first_click="safe", no_guess=True, assist="local")
    assert game["mode"] == "help" and game["help"] == {"granted": 0, "used": 0, "pending": False}
    options = game["options"]
    assert (
        options["first_click_safe_only"]
        and options["no_guess"]
        and options["assist_local"]
        and not options["assist_all"]
    )
    assert new_game(client, mode="classic", assist="all")["options"]["assist_all"]
    assert new_game(client, mode="classic")["help"] is None
    # A setting the mode does not have, or a value the API does not know, is refused and makes no game.
    listed = len(client.get("/api/games").json())
    for body, words in (
        ({"mode": "cruel", "no_guess": True}, "unknown setting 'no_guess'"),
        ({"mode": "classic", "assist": "some"}, "assist"),
    ):
        refused = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, **body})
        assert refused.status_code == 422 and words in refused.text
    assert len(client.get("/api/games").json()) == listed


def test_help_through_the_api_granted_then_a_mine_opened_is_flagged_not_fatal(client, database):
    game_id = new_game(client, mode="help")["id"]
    # Two covered cells and one mine: nothing can be proven safe.
    put_position(database, game_id, ["11", ".."], mines=1, hidden={"mines": [2]})
    helped = move(client, game_id, action="help")
    assert helped["help"] == {"granted": 1, "used": 0, "pending": True} and helped["status"] == "playing"
    shown = move(client, game_id, action="reveal", x=0, y=1)
    assert shown["status"] == "playing" and shown["board"] == ["11", "*."] and shown["help"]["used"] == 1
    assert move(client, game_id, action="reveal", x=1, y=1)["status"] == "won"
    # Help is an action of help games only.
    other = new_game(client, mode="classic")["id"]
    refused = client.post(f"/api/games/{other}/moves", json={"action": "help"})
    assert refused.status_code == 422 and "unknown action 'help'" in refused.text


def test_help_asked_with_a_provably_safe_cell_loses_through_the_api(client, database):
    game_id = new_game(client, mode="help")["id"]
    put_position(database, game_id, ["1..", "...", "..."], mines=1, hidden={"mines": [1]})
    lost = move(client, game_id, action="help")
    assert lost["status"] == "lost" and lost["exploded"] is None and lost["board"][0][1] == "*"
    page = client.get(f"/games/{game_id}").text
    assert "could be proven safe when you asked" in page and "You asked for help while" in page


def test_probabilities_are_exact_and_come_from_what_the_player_sees(client, database):
    game_id = new_game(client, mode="classic")["id"]
    put_position(database, game_id, ["1..", "...", "..."], mines=1, hidden={"mines": [4]})
    answer = client.get(f"/api/games/{game_id}/probabilities").json()
    third = 1 / 3
    assert answer == {
        "probability": [[None, third, 0.0], [third, third, 0.0], [0.0, 0.0, 0.0]],
        "budget_exceeded": False,
    }
    # The page shows them when the setting is on: a colour step, the percentage, the safest cells ringed.
    assert client.patch(f"/api/games/{game_id}/options", json={"probabilities": True}).status_code == 200
    page = client.get(f"/games/{game_id}").text
    assert (
        'id="c-1-0" class="c u p3" role="gridcell" aria-label="covered, 33 % mine, column 2, row 1" data-p="33 % mine"'
        in page
    )
    assert 'class="c u p0 best"' in page and "among the safest" in page
    missing = client.get("/api/games/nope/probabilities")
    assert missing.status_code == 404


def stored_layout(database, game_id: str) -> list[int]:
    """What the server keeps secret of a game (read from its store, as no client can)."""
    import json
    import sqlite3

    with sqlite3.connect(database) as connection:
        return json.loads(connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()[0])[
            "hidden"
        ]["mines"]


def test_a_board_id_plays_the_same_layout_for_another_player_and_restart_plays_it_again(client, server, database):
    game = new_game(client, mode="classic", width=16, height=16, mines=40)
    assert game["board_id"] is None  # dealt at the first click
    first = move(client, game["id"], action="reveal", x=3, y=12)
    board_id = first["board_id"]
    assert board_id and board_id.startswith("16x16-40-o-4.13-")
    with httpx.Client(base_url=server, timeout=seconds(30)) as other:  # another browser: another cookie
        shared = new_game(other, mode="classic", board_id=board_id)
        assert (shared["width"], shared["height"], shared["mines"], shared["board_id"]) == (16, 16, 40, board_id)
        assert move(other, shared["id"], action="reveal", x=3, y=12)["board"] == first["board"]
    assert stored_layout(database, shared["id"]) == stored_layout(database, game["id"])
    again = client.post(f"/api/games/{game['id']}/restart")
    assert again.status_code == 201 and again.json()["board_id"] == board_id and again.json()["id"] != game["id"]
    move(client, again.json()["id"], action="reveal", x=3, y=12)
    assert stored_layout(database, again.json()["id"]) == stored_layout(database, game["id"])
    # The page: the id as a link, a restart button; the link plays the board in any browser.
    page = client.get(f"/games/{game['id']}").text
    assert f'href="/play/{board_id}"' in page and "Restart this board" in page
    with httpx.Client(base_url=server, timeout=seconds(30)) as third:
        opened = third.get(f"/play/{board_id}", follow_redirects=False)
        assert opened.status_code == 303
        landed = third.get(opened.headers["location"]).text
        assert 'id="c-3-12" class="c u start"' in landed and "start here, column 4, row 13" in landed


def test_a_bad_board_id_or_a_restart_before_the_first_click_is_refused_and_makes_no_game(client):
    listed = len(client.get("/api/games").json())
    refused = client.post("/api/games", json={"mode": "classic", "board_id": "9x9-10-o-10.1-0123456789abcdef"})
    assert refused.status_code == 422 and "off the 9x9 board" in refused.text
    refused = client.post("/api/games", json={"mode": "cruel", "board_id": "9x9-10-o-1.1-0123456789abcdef"})
    assert refused.status_code == 422 and "no fixed layout" in refused.text
    refused = client.post("/api/games", json={"mode": "classic"})
    assert refused.status_code == 422 and "required unless board_id" in refused.text
    assert client.get("/play/nonsense").status_code == 422
    fresh = new_game(client, mode="classic")
    assert client.post(f"/api/games/{fresh['id']}/restart").status_code == 409
    assert len(client.get("/api/games").json()) == listed + 1


def test_a_won_classic_game_has_its_3bv_and_the_records_count_each_game_once(client, database):
    game_id = new_game(client, mode="classic")["id"]
    put_position(database, game_id, ["1.", ".."], mines=1, hidden={"mines": [3]})
    assert move(client, game_id, action="reveal", x=1, y=0)["status"] == "playing"
    won = move(client, game_id, action="reveal", x=0, y=1)
    assert won["status"] == "won" and won["bbbv"] == 3 and won["clicks"] == 2
    assert won["bbbv_per_second"] == pytest.approx(3 / won["elapsed"])
    # A loss taken back with undo and played on to a win counts as the loss it first was.
    other = new_game(client, mode="classic")["id"]
    put_position(database, other, ["1.", ".."], mines=1, hidden={"mines": [3]})
    assert move(client, other, action="reveal", x=1, y=1)["status"] == "lost"
    move(client, other, action="undo")
    move(client, other, action="reveal", x=1, y=0)
    assert move(client, other, action="reveal", x=0, y=1)["status"] == "won"
    (record,) = [r for r in client.get("/api/records").json() if (r["width"], r["height"], r["mines"]) == (2, 2, 1)]
    assert (record["mode"], record["games"], record["wins"], record["streak"], record["best_streak"]) == (
        "classic",
        2,
        1,
        0,
        1,
    )
    assert record["best_times"][0]["bbbv"] == 3
    page = client.get("/records").text
    assert "Your records" in page and "2×2, 1 mine" in page and "Best times" in page
    # A game deleted keeps its result.
    assert client.delete(f"/api/games/{game_id}").status_code == 204
    assert [r["games"] for r in client.get("/api/records").json() if r["width"] == 2] == [2]


def test_a_finished_games_accuracy_shows_in_the_list_and_the_records_with_its_replay(client, database):
    """Issue 25 #5: a game graded at its end shows its accuracy in the game list and in the records, pages and
    JSON alike, and the list links its replay; a game in play has neither."""
    game_id = new_game(client, mode="classic")["id"]
    # One mine, in the top right corner: the 0 proves the three cells around it safe, the other two are even.
    put_position(database, game_id, ["0..", "..."], mines=1, hidden={"mines": [2]})
    # Bottom right risks the mine (one chance in two) while three cells were proven safe: a mistake, survived.
    assert move(client, game_id, action="reveal", x=2, y=1)["status"] == "playing"
    assert move(client, game_id, action="reveal", x=1, y=0)["status"] == "playing"  # proven
    assert move(client, game_id, action="reveal", x=0, y=1)["status"] == "won"  # proven; its 0 opens the last cell
    playing = new_game(client, mode="classic")["id"]
    # Two of its three moves proven: 2/3.
    listed = {game["id"]: game for game in client.get("/api/games").json()}
    assert listed[game_id]["accuracy"] == 2 / 3 and listed[playing]["accuracy"] is None
    home = client.get("/").text
    row = home[home.index(f'href="/games/{game_id}"') : home.index("</li>", home.index(f'href="/games/{game_id}"'))]
    assert ">Accuracy 67 %</span>" in row and f'<a class="game-replay" href="/games/{game_id}/replay"' in row
    in_play = home[home.index(f'href="/games/{playing}"') : home.index("</li>", home.index(f'href="/games/{playing}"'))]
    assert "Accuracy" not in in_play and "/replay" not in in_play
    (record,) = [r for r in client.get("/api/records").json() if (r["width"], r["height"], r["mines"]) == (3, 2, 1)]
    assert (record["games"], record["graded"], record["accuracy"]) == (1, 1, 2 / 3)
    assert [best["accuracy"] for best in record["best_times"]] == [2 / 3]
    page = client.get("/records").text
    assert '<dd class="record-accuracy">67 %</dd>' in page and '<th scope="col">Accuracy</th>' in page
    assert "<td>67 %</td>" in page


def dealt_layout(database, game_id: str) -> frozenset[int]:
    """The mines a board id deals, worked out from the game's stored secret before its first click."""
    import sqlite3

    from app.core.stored import read_state
    from app.modes import MODES, get_mode
    from app.modes.classic import BoardId

    with sqlite3.connect(database) as connection:
        game = read_state(connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()[0], MODES)
    board = BoardId.parse(game.state["board_id"])
    return get_mode(game.mode).layout(game, game.state["start"], board.safe_only, board.no_guess)


def test_a_board_replayed_after_its_layout_was_shown_counts_in_no_record(client, database):
    """Issue 23 #4: lose a board, play it again by Restart this board and by its link, win: no win in the records."""
    board_id = "8x7-9-o-3.3-00000000000000a4"  # a size no other test plays: its record is this test's alone

    def opened(response: httpx.Response) -> str:
        assert response.status_code == 303, response.text
        return response.headers["location"].rsplit("/", 1)[-1]

    def started(game_id: str) -> dict:
        """The game opened at its board's first click: the only cell a first click may open."""
        start = client.get(f"/api/games/{game_id}").json()["start"]
        return move(client, game_id, action="reveal", x=start[0], y=start[1])

    def cleared(game_id: str) -> dict:
        game = started(game_id)
        while game["status"] == "playing":
            x, y = next(
                (x, y)
                for y, row in enumerate(game["board"])
                for x, symbol in enumerate(row)
                if symbol == "." and y * 8 + x not in mines
            )
            game = move(client, game_id, action="reveal", x=x, y=y)
        return game

    lost = opened(client.get(f"/play/{board_id}", follow_redirects=False))
    mines = dealt_layout(database, lost)
    # A mine loses, and shows the layout.
    started(lost)
    assert move(client, lost, action="reveal", x=min(mines) % 8, y=min(mines) // 8)["status"] == "lost"
    assert 'id="layout-seen"' not in client.get(f"/games/{lost}").text
    restarted = opened(client.post(f"/games/{lost}/restart", follow_redirects=False))
    # Said from the start, and still once it is won.
    assert "You had seen this board's layout" in client.get(f"/games/{restarted}").text
    assert cleared(restarted)["status"] == "won"
    assert 'id="layout-seen"' in client.get(f"/games/{restarted}").text
    shared = opened(client.get(f"/play/{board_id}", follow_redirects=False))
    assert cleared(shared)["status"] == "won"
    (record,) = [r for r in client.get("/api/records").json() if (r["width"], r["height"], r["mines"]) == (8, 7, 9)]
    assert (record["games"], record["wins"], record["streak"], record["best_streak"], record["best_times"]) == (
        1,
        0,
        0,
        0,
        [],
    )
