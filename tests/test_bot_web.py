"""The bot in the browser's service (issue 11): GET /api/games/{id}/bot names the cell it would open, POST
plays it as a move; the pages' counterparts. Every position is hand-made with its layout (tests.live.put_layout),
and every move acts on cells read from the answers, so nothing depends on a deal."""

from __future__ import annotations

import json
import re
import sqlite3

import httpx
import pytest

from tests.live import put_layout, seconds

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000}
HTMX = {"HX-Request": "true"}
# Revealed: the corner 1, whose only covered neighbour is the mine; the count then proves every other cell safe.
PROVABLE = ["oo..", "o*..", "...."]


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server, timeout=seconds(30)) as client:
        yield client


def on_layout(client, database, layout: list[str], mode: str = "classic") -> str:
    response = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "mode": mode})
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    put_layout(database, game_id, layout)
    return game_id


def read(client, game_id: str) -> dict:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    return response.json()


def suggestion(client, game_id: str) -> dict:
    response = client.get(f"/api/games/{game_id}/bot")
    assert response.status_code == 200, response.text
    return response.json()


def play_safe_cells_to_the_end(client, game_id: str) -> dict:
    """The player's own moves: a cell the analysis proves safe, again and again, until the game ends."""
    game = read(client, game_id)
    for _ in range(game["width"] * game["height"]):
        if game["status"] != "playing":
            return game
        rows = client.get(f"/api/games/{game_id}/analysis").json()["status"]
        x, y = next((x, y) for y, row in enumerate(rows) for x, status in enumerate(row) if status == "s")
        response = client.post(f"/api/games/{game_id}/moves", json={"action": "reveal", "x": x, "y": y})
        assert response.status_code == 200, response.text
        game = response.json()
    raise AssertionError(f"not over after a move per cell: {game['board']}")


def test_a_proven_safe_cell_is_named_safe(client, database):
    # The corner 1 holds the only mine among its neighbours: the count proves the cells beyond them safe.
    game_id = on_layout(client, database, ["o*.", "...", "..."])
    choice = suggestion(client, game_id)
    assert choice["safe"] is True and choice["mine_probability"] == 0
    rows = client.get(f"/api/games/{game_id}/analysis").json()["status"]
    assert rows[choice["y"]][choice["x"]] == "s"


def test_a_guess_has_the_chance_the_solver_counts(client, database):
    # A 1 in the corner and its three covered neighbours, one of them the mine: nothing is proven.
    game_id = on_layout(client, database, ["o*", ".."])
    choice = suggestion(client, game_id)
    chances = client.get(f"/api/games/{game_id}/probabilities").json()["probability"]
    assert choice["safe"] is False
    assert choice["mine_probability"] == pytest.approx(chances[choice["y"]][choice["x"]]) == pytest.approx(1 / 3)


# Nothing proven, and three far corners equally safe: the bot breaks the tie with its random source.
TIED = ["o*......", "........", "..*.*.*.", "*.*.*...", "........", ".*.*.*.*", "........", "*......."]


def test_asking_again_names_the_same_cell_and_changes_nothing_but_the_aids(client, database):
    fresh = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "mode": "classic"}).json()["id"]
    # Before the first click the rules make every cell safe; the bot's first click is a tie of its own.
    for game_id, safe in [(fresh, True), (on_layout(client, database, TIED), False)]:
        before = read(client, game_id)
        answers = [suggestion(client, game_id) for _ in range(3)]
        assert answers[0]["safe"] is safe and answers == [answers[0]] * 3
        after = read(client, game_id)
        # The advice is an aid, kept once (one version); the board and the hints stay as they were.
        assert (after["version"], after["board"], after["hints"], after["aids"]) == (
            before["version"] + 1,
            before["board"],
            before["hints"],
            ["bot"],
        )
        # The move that follows opens the cell named.
        x, y = answers[0]["x"], answers[0]["y"]
        assert client.post(f"/api/games/{game_id}/bot").json()["board"][y][x] != "."


@pytest.mark.parametrize("mode", ["classic", "help"])
def test_the_bot_move_opens_the_named_cell_as_a_move(client, database, mode):
    game_id = on_layout(client, database, PROVABLE, mode)
    choice = suggestion(client, game_id)
    before = read(client, game_id)
    response = client.post(f"/api/games/{game_id}/bot")
    assert response.status_code == 200, response.text
    after = response.json()
    assert after.keys() == before.keys()  # the answer of POST .../moves
    assert after["version"] == before["version"] + 1 and after["bot_moves"] == 1
    assert before["board"][choice["y"]][choice["x"]] == "." and after["board"][choice["y"]][choice["x"]] in "012345678"
    assert read(client, game_id)["board"] == after["board"]


def test_in_a_help_game_the_bot_asks_for_help_instead_of_guessing_and_never_loses(client, database):
    # Nothing is proven (one mine among the corner 1's neighbours): a classic bot would guess at 1 in 3.
    game_id = on_layout(client, database, ["o*", ".."], "help")
    choice = suggestion(client, game_id)
    assert choice["action"] == "help" and choice["safe"] is False and choice["mine_probability"] == pytest.approx(1 / 3)
    asked = client.post(f"/api/games/{game_id}/bot").json()
    assert asked["help"] == {"granted": 1, "used": 0, "pending": True} and asked["bot_moves"] == 1
    then = suggestion(client, game_id)
    assert then["action"] == "reveal" and then["safe"] is True and then["helped"] is True
    opened = client.post(f"/api/games/{game_id}/bot").json()
    assert opened["help"]["used"] == 1 and opened["status"] != "lost"
    for _ in range(4):  # at most the board's covered cells: each step a proven cell or help, never a blind guess
        if opened["status"] != "playing":
            break
        opened = client.post(f"/api/games/{game_id}/bot").json()
    assert opened["status"] == "won"


def test_refusals_change_nothing(client, database):
    lost = on_layout(client, database, PROVABLE)
    assert client.post(f"/api/games/{lost}/moves", json={"action": "reveal", "x": 1, "y": 1}).json()["status"] == "lost"
    cruel = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "mode": "cruel"}).json()["id"]
    for game_id, status, words in [
        (lost, 409, "the game is lost"),
        (cruel, 409, "classic and help games"),
        ("no-such-game", 404, "no such game"),
    ]:
        before = client.get(f"/api/games/{game_id}").json()
        for response in (client.get(f"/api/games/{game_id}/bot"), client.post(f"/api/games/{game_id}/bot")):
            assert response.status_code == status and words in response.json()["detail"], response.text
        after = client.get(f"/api/games/{game_id}").json()
        assert after.get("version") == before.get("version") and after.get("board") == before.get("board")
    # The page says it in the panel, as it says any refused move.
    refused = client.post(f"/games/{cruel}/bot", data={"version": "0"}, headers=HTMX)
    assert (
        refused.status_code == 409
        and 'role="alert"' in refused.text
        and "The bot plays classic and help games" in refused.text
    )


def test_a_game_the_bot_played_in_is_left_out_of_the_records(client, database):
    # The player's own win counts...
    assert play_safe_cells_to_the_end(client, on_layout(client, database, PROVABLE))["status"] == "won"
    counted = client.get("/api/records").json()
    assert [(record["games"], record["wins"]) for record in counted] == [(1, 1)]
    # ...one where the bot played a move does not, even with that move undone and the rest the player's,
    played = on_layout(client, database, PROVABLE)
    assert client.post(f"/api/games/{played}/bot").json()["bot_moves"] == 1
    undone = client.post(f"/api/games/{played}/moves", json={"action": "undo"}).json()
    assert undone["bot_moves"] == 1 and undone["board"] == read(client, played)["board"]
    assert play_safe_cells_to_the_end(client, played)["status"] == "won"
    # ...nor one the bot played to the end.
    botted = on_layout(client, database, PROVABLE)
    game = read(client, botted)
    for _ in range(12):
        if game["status"] != "playing":
            break
        game = client.post(f"/api/games/{botted}/bot").json()
    assert game["status"] == "won" and game["bot_moves"] > 1
    assert client.get("/api/records").json() == counted
    # The page says so.
    panel = client.get(f"/games/{botted}").text
    assert 'id="bot-moves">' in panel and "bot moves." in panel


def test_the_pages_show_the_bots_cell_and_play_it_as_a_click(client, database):
    game_id = on_layout(client, database, PROVABLE)
    choice = suggestion(client, game_id)
    cell = f"c-{choice['x']}-{choice['y']}"
    shown = client.get(f"/games/{game_id}/bot", headers=HTMX)
    assert shown.status_code == 200 and f'data-cell="{cell}"' in shown.text
    assert f"The bot would open column {choice['x'] + 1}, row {choice['y'] + 1}: proven safe." in shown.text
    # Without htmx the whole page, with the cell named.
    assert f'data-cell="{cell}"' in client.get(f"/games/{game_id}/bot").text
    # The step of Play for me answers as a click on that cell does, in a twin game.
    twin = on_layout(client, database, PROVABLE)
    assert suggestion(client, twin) == choice  # asked too: the advice is an aid, kept in both games alike
    version = str(read(client, game_id)["version"])
    assert read(client, twin)["version"] == int(version)
    stepped = client.post(f"/games/{game_id}/bot", data={"version": version}, headers=HTMX)
    clicked = client.post(
        f"/games/{twin}/moves",
        data={"action": "reveal", "x": choice["x"], "y": choice["y"], "version": version},
        headers=HTMX,
    )
    assert stepped.status_code == clicked.status_code == 200

    bot_said = (
        f'<p id="hint" class="hint bot" data-cell="{cell}" data-proof="">'
        f"The bot opened column {choice['x'] + 1}, row {choice['y'] + 1}: proven safe.</p>"
    )
    counter = (
        '<div title="Moves the bot played for you: this game does not count in your records">'
        '<dt>Bot moves</dt> <dd id="bot-moves">1</dd></div>'
    )
    assert bot_said in stepped.text and counter in stepped.text and f'id="{cell}"' in stepped.text

    def same(text: str, game: str) -> str:
        # What the bot says and counts aside, the game's id and the clock (it runs between requests).
        text = text.replace(bot_said, "").replace(counter, "").replace(game, "ID")
        return re.sub(r"\s+", " ", re.sub(r'data-elapsed="\d+"|id="timer"([^>]*)>[^<]*<', "TIME", text))

    assert same(stepped.text, game_id) == same(clicked.text, twin)


def test_a_loss_the_bot_played_is_reviewed_as_the_bots(client, database):
    """Issue 22 #12: after the bot's losing click, the review said "When you clicked". The bot's guess is read
    first; then the layout is set, at the same version (the guess is the same), with a mine under it."""
    game_id = on_layout(client, database, ["o*.", "...", "..*"])
    choice = suggestion(client, game_id)
    assert not choice["safe"], choice
    x, y = choice["x"], choice["y"]
    beside = {(1, 0), (0, 1), (1, 1)}
    other = (2, 2) if (x, y) in beside else (1, 0)  # the 1 in the corner keeps its one mine
    with sqlite3.connect(database) as connection:
        data = json.loads(connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()[0])
        data["hidden"]["mines"] = sorted(row * 3 + column for column, row in ((x, y), other))
        connection.execute("UPDATE games SET data = ? WHERE id = ?", (json.dumps(data), game_id))
    played = client.post(f"/api/games/{game_id}/bot")
    assert played.status_code == 200 and played.json()["status"] == "lost", played.text
    page = client.get(f"/games/{game_id}").text
    assert f"When the bot clicked column {x + 1}, row {y + 1}" in page and "When you clicked" not in page
