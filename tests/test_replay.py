"""A finished game's replay and review over HTTP (issue 25), against a real uvicorn and a real SQLite file:
hand-made positions whose grades are known, in every mode, through the JSON and through the page; what
a game in play, another player's game and a deleted game answer; the shared link and its withdrawal."""

from __future__ import annotations

import html
import json
import re

import httpx
import pytest

from tests.live import put_layout, put_position, seconds

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000}


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server, timeout=seconds(30)) as client:
        yield client


def stranger(server) -> httpx.Client:
    return httpx.Client(base_url=server, timeout=seconds(30))


def new_game(client, **body) -> str:
    response = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "mode": "classic", **body})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def move(client, game_id: str, **body) -> dict:
    response = client.post(f"/api/games/{game_id}/moves", json=body)
    assert response.status_code == 200, (body, response.text)
    return response.json()


def open_all_but(answer: dict, mine: tuple[int, int], reveal) -> dict:
    """Reveal, one by one, each cell the latest answer shows covered but `mine`, to the game's end: its answer."""
    while answer["status"] == "playing":
        board = answer["board"]
        covered = [(x, y) for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol == "."]
        answer = reveal(*next(cell for cell in covered if cell != mine))
    return answer


def frames_of(page: str) -> list[dict]:
    found = re.search(r"data-frames='([^']*)'", page)
    assert found, "the replay page carries its frames"
    return json.loads(html.unescape(found.group(1)))


def test_a_classic_game_with_a_mistake_a_death_taken_back_and_proven_moves_is_graded_so(client, database):
    # One mine, next to the 1 in the corner: every far cell is proven safe by the 1 and the count.
    game_id = new_game(client, undo=True)
    put_layout(database, game_id, ["o*.", "...", "..."])
    assert move(client, game_id, action="reveal", x=1, y=1)["status"] == "playing"  # a risk: a mistake
    assert move(client, game_id, action="reveal", x=1, y=0)["status"] == "lost"  # the mine: a death
    assert client.get(f"/api/games/{game_id}/review").status_code == 200  # a lost game has its review
    answer = move(client, game_id, action="undo")
    assert answer["status"] == "playing"
    # In play again: nothing of it shows; its player's page says when it will, with the way back to the game.
    assert client.get(f"/api/games/{game_id}/review").json()["detail"] == "no such game"
    in_play = client.get(f"/games/{game_id}/replay")
    assert in_play.status_code == 404 and "This game is gone" not in in_play.text
    assert "still in play: its replay and review open when it ends" in in_play.text
    assert f'<a href="/games/{game_id}">Back to the game</a>' in in_play.text
    # Every other covered cell but the mine is safe: open them as the answers show them covered.
    answer = open_all_but(answer, (1, 0), lambda x, y: move(client, game_id, action="reveal", x=x, y=y))
    assert answer["status"] == "won"

    review = client.get(f"/api/games/{game_id}/review").json()
    steps = review["steps"]
    mistake, death, undo = steps[0], steps[1], steps[2]
    assert (mistake["action"], mistake["x"], mistake["y"], mistake["grade"]) == ("reveal", 1, 1, "mistake")
    assert mistake["chance"] == pytest.approx(1 / 3) and mistake["best"] == 0 and not mistake["taken_back"]
    assert mistake["example"] == [2, 0] and mistake["proof"] == [[0, 0]] and mistake["uses_count"]
    assert death["death"] and death["taken_back"] and (death["x"], death["y"]) == (1, 0)
    assert undo["action"] == "undo" and undo["grade"] == "noted" and undo["taken_back"]
    assert [step["grade"] for step in steps[3:]] == ["proven"] * (len(steps) - 3)
    assert not any(step["taken_back"] for step in steps[3:])
    assert review["status"] == "won" and review["deaths"] == 1 and review["best_guess_margin"] == 0.02
    summary = review["summary"]
    assert summary["mistakes"] == 2 and summary["proven"] == len(steps) - 3  # the death was a risk too
    assert summary["accuracy"] == pytest.approx(summary["proven"] / summary["moves"])
    # Luck: the risk that stands survived with a chance of 2 in 3; the best move then risked nothing.
    assert review["luck"]["survived"] == pytest.approx(2 / 3) and review["luck"]["with_best"] == 1
    assert review["luck"]["survived_one_in"] == pytest.approx(1.5)

    page = client.get(f"/games/{game_id}/replay")
    assert page.status_code == 200
    text = page.text
    assert "Mistake: a 33 % chance of a mine while column 3, row 1 was proven safe" in text
    assert "Deaths" in text and "within 2 points" in text
    assert "would survive: 1 in 1.5; the best move each time would have left nothing to luck." in text
    frames = frames_of(text)
    assert len(frames) == len(steps) and frames[1]["death"] and frames[1]["back"] and frames[2]["back"]
    assert frames[0]["cell"] == [1, 1] and frames[0]["example"] == [2, 0] and frames[0]["proof"] == [[0, 0]]
    assert frames[2]["caption"] == f"Step 3 of {len(steps)} · Undo. The action before it is taken back."
    # The death's frame shows the mine that exploded; the undo's shows it covered again.
    exploded = {change[0]: change[1] for change in frames[1]["changes"]}
    assert "x" in exploded["c-1-0"].split() and "u" in {c[0]: c[1] for c in frames[2]["changes"]}["c-1-0"].split()
    game_page = client.get(f"/games/{game_id}").text
    assert f'href="/games/{game_id}/replay"' in game_page and "accuracy" in game_page

    # Graded once and kept: asked again, the same answer, and the game's version stays.
    version = client.get(f"/api/games/{game_id}").json()["version"]
    assert client.get(f"/api/games/{game_id}/review").json() == review
    assert client.get(f"/api/games/{game_id}").json()["version"] == version


def test_a_guess_at_the_lowest_chance_is_the_best_guess_and_a_riskier_one_an_inaccuracy(client, database):
    # Two mines: one among the 1's three neighbours (a third each), one among the six far cells (a sixth each).
    best = new_game(client)
    put_layout(database, best, ["o*...", "....*"])
    assert move(client, best, action="reveal", x=3, y=0)["status"] == "playing"
    assert move(client, best, action="reveal", x=4, y=1)["status"] == "lost"
    inaccurate = new_game(client)
    put_layout(database, inaccurate, ["o*...", "....*"])
    assert move(client, inaccurate, action="reveal", x=1, y=1)["status"] == "playing"
    assert move(client, inaccurate, action="reveal", x=1, y=0)["status"] == "lost"
    first = client.get(f"/api/games/{best}/review").json()["steps"][0]
    assert (first["grade"], first["chance"], first["best"]) == ("best", pytest.approx(1 / 6), pytest.approx(1 / 6))
    first = client.get(f"/api/games/{inaccurate}/review").json()["steps"][0]
    assert (first["grade"], first["chance"], first["best"]) == (
        "inaccuracy",
        pytest.approx(1 / 3),
        pytest.approx(1 / 6),
    )
    text = client.get(f"/games/{inaccurate}/replay").text
    assert "Inaccuracy: a 33 % chance of a mine; the lowest was 17 % (17 points more risk than needed)." in text
    assert "Best guess: a 17 % chance" in client.get(f"/games/{best}/replay").text


def test_a_cruel_game_takes_no_luck_and_counts_its_deaths(client, database):
    game_id = new_game(client, mode="cruel")
    put_position(database, game_id, ["1..", "...", "..."], mines=1)
    # Any of the 1's neighbours can be the mine while every far cell is safe: cruel rules make it one.
    assert move(client, game_id, action="reveal", x=1, y=1)["status"] == "lost"
    review = client.get(f"/api/games/{game_id}/review").json()
    (step,) = review["steps"]
    assert step["grade"] == "mistake" and step["death"] and step["example"] == [2, 0]
    assert review["luck"] is None and review["deaths"] == 1
    text = client.get(f"/games/{game_id}/replay").text
    assert "Luck takes no part in this mode" in text and "Deaths" in text


def test_an_ask_for_help_game_notes_its_help_and_grades_its_moves(client, database):
    game_id = new_game(client, mode="help")
    put_layout(database, game_id, ["o*.", "oo."])  # the corner's 1 below proves the mine; the rest is safe
    assert move(client, game_id, action="flag", x=1, y=0)["status"] == "playing"
    answer = move(client, game_id, action="reveal", x=2, y=0)
    answer = move(client, game_id, action="reveal", x=2, y=1) if answer["status"] == "playing" else answer
    assert answer["status"] == "won"
    review = client.get(f"/api/games/{game_id}/review").json()
    assert [step["grade"] for step in review["steps"]] == ["proven"] * len(review["steps"])
    assert review["summary"]["accuracy"] == 1 and review["luck"]["survived"] == 1
    assert "No luck needed" in client.get(f"/games/{game_id}/replay").text


def test_in_flags_a_proven_mine_left_for_the_opponent_is_a_mistake_and_each_seat_is_summed_up(client, database):
    response = client.post(
        "/api/games", json={"mode": "flags", "width": 6, "height": 6, "mines": 9, "opponent": "screen", "bomb": False}
    )
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    # One mine, in the corner, proven by the 1 below it; the right-hand column is safe.
    put_position(database, game_id, [".1.", "11."], mines=1, hidden={"layout": [0]})
    assert move(client, game_id, action="reveal", x=2, y=0)["status"] == "playing"  # seat 0 leaves it
    assert move(client, game_id, action="reveal", x=0, y=0)["status"] == "won"  # seat 1 takes it: the game
    review = client.get(f"/api/games/{game_id}/review").json()
    left, taken = review["steps"]
    assert (left["seat"], left["grade"], left["example"], left["chance"], left["best"]) == (0, "mistake", [0, 0], 0, 1)
    assert (taken["seat"], taken["grade"]) == (1, "proven")
    assert review["luck"] is None
    assert [(seat["seat"], seat["mistakes"], seat["proven"]) for seat in review["seats"]] == [(0, 1, 0), (1, 0, 1)]
    # The list sums up the maker's moves (seat 0), not the other player's with them.
    (listed,) = [game for game in client.get("/api/games").json() if game["id"] == game_id]
    assert listed["accuracy"] == 0 and review["summary"]["accuracy"] == 0.5
    text = client.get(f"/games/{game_id}/replay").text
    assert "column 1, row 1 was a proven mine, left for the opponent" in text


def test_a_replay_shows_nothing_of_a_game_in_play_another_players_game_or_a_deleted_one(client, server, database):
    playing = new_game(client)
    for path in (
        f"/api/games/{playing}/review",
        f"/games/{playing}/replay",
        f"/games/{playing}/replay/overlay?step=0",
    ):
        assert client.get(path).status_code == 404, path
    assert client.post(f"/api/games/{playing}/share").status_code == 409
    with stranger(server) as other:  # to whoever may not open it, a game in play is no game at all
        gone = other.get(f"/games/{playing}/replay")
        assert gone.status_code == 404 and "This game is gone" in gone.text and "still in play" not in gone.text
    finished = new_game(client)
    put_layout(database, finished, ["o*", ".."])
    assert move(client, finished, action="reveal", x=1, y=0)["status"] == "lost"
    with stranger(server) as other:
        for path in (f"/api/games/{finished}/review", f"/games/{finished}/replay"):
            assert other.get(path).status_code == 404, path
        assert other.post(f"/api/games/{finished}/share").status_code == 404
    assert client.get(f"/games/{finished}/replay/overlay?step=2").status_code == 422
    assert client.get(f"/games/{finished}/replay/overlay?step=x").status_code == 422
    assert client.delete(f"/api/games/{finished}").status_code == 204
    assert client.get(f"/api/games/{finished}/review").status_code == 404
    assert client.get(f"/games/{finished}/replay").status_code == 404


def test_the_overlay_of_a_step_shows_what_could_be_known_then(client, database):
    game_id = new_game(client)
    put_layout(database, game_id, ["o*.", "oo."])
    move(client, game_id, action="reveal", x=2, y=0)
    assert move(client, game_id, action="reveal", x=1, y=0)["status"] == "lost"
    before = client.get(f"/games/{game_id}/replay/overlay?step=0").json()
    looks = {cell: classes.split() for cell, classes, *_ in before["changes"]}
    assert "om" in looks["c-1-0"] and "os" in looks["c-2-0"] and "os" in looks["c-2-1"]
    assert before["note"] == ""
    # After the last step the game is over: the layout shows, nothing is left to know.
    assert client.get(f"/games/{game_id}/replay/overlay?step=2").json()["changes"] == []


def test_a_shared_link_shows_the_replay_until_it_is_withdrawn_and_a_loss_taken_back_withdraws_it(
    client, server, database
):
    game_id = new_game(client, undo=True)
    put_layout(database, game_id, ["o*", ".."])
    assert move(client, game_id, action="reveal", x=1, y=0)["status"] == "lost"
    url = client.post(f"/api/games/{game_id}/share").json()["url"]
    assert client.post(f"/api/games/{game_id}/share").json()["url"] == url  # shared once, one link
    path = httpx.URL(url).path
    assert re.fullmatch(rf"/replays/{game_id}/[A-Za-z0-9_-]{{22}}", path)
    with stranger(server) as other:
        page = other.get(path)
        assert page.status_code == 200 and "Replay" in page.text and "Make a link" not in page.text
        assert other.get(f"{path}/overlay?step=0").status_code == 200
        assert other.get(path[:-1] + ("A" if path[-1] != "A" else "B")).status_code == 404
    assert client.delete(f"/api/games/{game_id}/share").status_code == 204
    with stranger(server) as other:
        assert other.get(path).status_code == 404
    again = httpx.URL(client.post(f"/api/games/{game_id}/share").json()["url"]).path
    assert again != path
    # Undo takes the loss back: the game is in play, and the link opens nothing, now or after it ends again.
    move(client, game_id, action="undo")
    with stranger(server) as other:
        assert other.get(again).status_code == 404
    assert move(client, game_id, action="reveal", x=1, y=0)["status"] == "lost"
    with stranger(server) as other:
        assert other.get(again).status_code == 404
    # The page's form shares and withdraws too.
    shared = client.post(f"/games/{game_id}/share", data={"shared": "1"}, follow_redirects=False)
    assert shared.status_code == 303 and shared.headers["location"] == f"/games/{game_id}/replay#share"
    assert "Withdraw the link" in client.get(f"/games/{game_id}/replay").text


def headline(page: str) -> str:
    """The replay's headline, as marked up."""
    found = re.search(r'<p class="result [a-z]+">(.*?)</p>', page)
    assert found, "the replay page has its headline"
    return found.group(1)


def test_a_shared_replay_names_its_player_to_others_and_says_you_to_the_player(client, server, database):
    won = new_game(client)
    put_layout(database, won, ["o*", ".."])
    open_all_but(
        move(client, won, action="reveal", x=0, y=1), (1, 0), lambda x, y: move(client, won, action="reveal", x=x, y=y)
    )
    lost = new_game(client)
    put_layout(database, lost, ["o*", ".."])
    assert move(client, lost, action="reveal", x=1, y=0)["status"] == "lost"
    links = {game: httpx.URL(client.post(f"/api/games/{game}/share").json()["url"]).path for game in (won, lost)}
    # Without a name of their own, the player goes by the tag the ladders show.
    anonymous = re.search(r'id="name"[^>]* placeholder="(anonymous [0-9a-f]+)"', client.get("/daily").text).group(1)
    with stranger(server) as other:
        assert headline(other.get(links[won]).text).startswith(f"<bdi>{anonymous}</bdi> won in ")
    # A name of the player's own, held by nobody else on the module's server: each run (a seed) has its own game ids.
    name = "Ann " + "".join(letter for letter in won if "a" <= letter.lower() <= "z")[:8]
    assert client.put("/api/name", json={"name": name}).status_code == 200
    with stranger(server) as other:
        assert re.fullmatch(rf"<bdi>{name}</bdi> won in \d+:\d\d\.\d\.", headline(other.get(links[won]).text))
        lost_line = headline(other.get(links[lost]).text)
        assert lost_line.startswith(f"<bdi>{name}</bdi> lost: the cell at column 2, row 1 was a mine ("), lost_line
    # The player reads their own game as theirs, by its link or on their own replay page.
    assert headline(client.get(links[won]).text).startswith("You won in ")
    assert headline(client.get(f"/games/{lost}/replay").text).startswith("Boom: the cell at column 2, row 1")


def test_a_big_game_not_graded_at_its_end_is_graded_where_slow_work_runs_when_first_asked(client, database):
    import sqlite3

    game_id = new_game(client)
    # 3,600 cells, past SLOW_REVIEW_CELLS; one mine in the corner, and a 0 shown: the layout stands as given.
    put_layout(database, game_id, ["*" + "." * 59] + ["." * 60] * 58 + ["." * 59 + "o"])
    answer = move(client, game_id, action="reveal", x=58, y=58)  # a 0 beside the 0: a flood
    answer = open_all_but(answer, (0, 0), lambda x, y: move(client, game_id, action="reveal", x=x, y=y))
    assert answer["status"] == "won"
    with sqlite3.connect(database) as connection:
        data = json.loads(connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()[0])
        assert data.pop("review")["accuracy"] == "1/1"  # graded at its end: every move proven
        connection.execute("UPDATE games SET data = ? WHERE id = ?", (json.dumps(data), game_id))
    assert [row["accuracy"] for row in client.get("/api/games").json() if row["id"] == game_id] == [None]
    version = client.get(f"/api/games/{game_id}").json()["version"]
    review = client.get(f"/api/games/{game_id}/review").json()
    assert {step["grade"] for step in review["steps"]} == {"proven"} and review["summary"]["accuracy"] == 1
    # Kept: asked again, the same, and no second write.
    assert client.get(f"/api/games/{game_id}").json()["version"] == version + 1
    assert client.get(f"/api/games/{game_id}/review").json() == review
    assert client.get(f"/api/games/{game_id}").json()["version"] == version + 1
    assert client.get(f"/games/{game_id}/replay/overlay?step=0").status_code == 200
