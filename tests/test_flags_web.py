"""Flags through the server (httpx on a real uvicorn): seats and turns, the invitation, spectators, the
computer, the live stream and poll, and that nothing a seat receives shows the layout before the end."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import httpx
import pytest

from app.service import Deals
from tests.live import live_server, put_position, seconds, wait_until

HTMX = {"HX-Request": "true"}


@pytest.fixture
def server(tmp_path, deal_seed):
    with live_server(tmp_path / "games.sqlite3", deals=Deals(seed=deal_seed), computer_pause=0.0) as url:
        yield url, tmp_path / "games.sqlite3"


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=seconds(30))


def create(player: httpx.Client, **form: str) -> str:
    response = player.post(
        "/games", data={"mode": "flags", "preset": "custom", "width": "6", "height": "6", "mines": "9", **form}
    )
    assert response.status_code == 303, response.text
    return response.headers["location"].rsplit("/", 1)[1]


def stored(database: Path, game_id: str) -> dict:
    with sqlite3.connect(database) as connection:
        return json.loads(connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()[0])


def api(player: httpx.Client, game_id: str) -> dict:
    response = player.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    return response.json()


def covered(game: dict) -> list[tuple[int, int]]:
    return [(x, y) for y, row in enumerate(game["board"]) for x, symbol in enumerate(row) if symbol == "."]


def move(player: httpx.Client, game_id: str, x: int, y: int, action: str = "reveal") -> httpx.Response:
    version = api(player, game_id)["version"] if player.cookies else 0
    return player.post(
        f"/games/{game_id}/moves",
        data={"action": action, "x": str(x), "y": str(y), "version": str(version)},
        headers=HTMX,
    )


def lines(html: str) -> list[str]:
    return re.findall(r'class="seat-line[^"]*"[^>]*>([^<]+)<', html)


def test_on_one_screen_one_player_moves_for_both_seats_in_turn(server) -> None:
    url, _ = server
    with client(url) as player:
        home = player.get("/")
        assert 'name="choice" value="flags msn"' in home.text and 'name="opponent"' in home.text
        game_id = create(player, opponent="screen")  # the form's custom size: 6x6 with 9 mines
        page = player.get(f"/games/{game_id}")
        assert lines(page.text)[0] == "Blue to move" and 'data-actions="reveal bomb"' in page.text
        for _ in range(40):
            game = api(player, game_id)
            if game["status"] != "playing":
                break
            mover = game["two_players"]["turn"]
            x, y = covered(game)[0]  # a cell read from the answer
            answer = move(player, game_id, x, y)
            assert answer.status_code == 200, answer.text
            after = api(player, game_id)
            scored = after["board"][y][x] == "*"
            assert (
                after["two_players"]["turn"] == mover or after["status"] != "playing"
                if scored
                else after["two_players"]["turn"] == 1 - mover
            )
            assert [x, y] in after["two_players"]["last"]
        game = api(player, game_id)
        assert game["status"] == "won", "a 6x6 game ends within 36 reveals"
        scores, winner = game["two_players"]["scores"], game["two_players"]["winner"]
        assert winner == (0 if scores[0] > scores[1] else 1 if scores[1] > scores[0] else None)
        assert max(scores) * 2 > 9 or sum(scores) == 9


def join_form(page: str) -> str | None:
    """Where the page's Play as Red button posts, if it has one."""
    found = re.search(r'<form class="join" method="post" action="([^"]+)"', page)
    return found.group(1) if found else None


def test_an_invitation_seats_the_first_who_asks_for_the_seat_and_shows_the_game_to_later_ones(server) -> None:
    url, database = server
    with client(url) as alice, client(url) as bob, client(url) as carol, client(url) as preview:
        game_id = create(alice, opponent="invite")
        page = alice.get(f"/games/{game_id}")
        assert "Red has not joined yet" in page.text
        link = re.search(r'id="invite-link" type="text" readonly value="([^"]+)"', page.text).group(1)
        key = link.rsplit("/", 1)[1]
        assert len(key) >= 22, "128 bits, URL-safe"
        # A chat app draws its preview: a cookie-less GET that follows the redirect. It takes no seat.
        shown = preview.get(link, follow_redirects=True)
        assert shown.status_code == 200 and join_form(shown.text) == f"/games/{game_id}/join/{key}"
        assert "Red&#39;s seat is free" in shown.text
        assert "player" not in stored(database, game_id)["seats"][1] and stored(database, game_id)["version"] == 0
        opened = bob.get(link)
        assert opened.status_code == 303 and opened.headers["location"] == f"/games/{game_id}/watch/{key}"
        joined = bob.post(join_form(bob.get(opened.headers["location"]).text))
        assert joined.status_code == 303 and joined.headers["location"] == f"/games/{game_id}"
        assert "Red (you)" in bob.get(f"/games/{game_id}").text
        watching = carol.get(link, follow_redirects=True)
        assert str(watching.url).endswith(f"/games/{game_id}/watch/{key}") and join_form(watching.text) is None
        late = carol.post(f"/games/{game_id}/join/{key}")
        assert late.status_code == 303 and late.headers["location"] == f"/games/{game_id}/watch/{key}", (
            "the seat is Bob's"
        )
        assert bob.get(link).headers["location"] == f"/games/{game_id}", "Red comes back by the same link"
        # The spectator's page has nothing to click, and their own cookie holds no seat.
        view = carol.get(f"/games/{game_id}/watch/{key}")
        assert view.status_code == 200 and "hx-post" not in view.text.split('id="board"')[1].split(">")[0]
        assert "You are watching" in view.text
        assert carol.get(f"/games/{game_id}").status_code == 404
        assert (
            carol.post(
                f"/games/{game_id}/moves", data={"action": "reveal", "x": "0", "y": "0", "version": "1"}, headers=HTMX
            ).status_code
            == 404
        )
        # A wrong key finds nothing.
        assert carol.get(f"/games/{game_id}/join/{key[:-1]}x").status_code == 404
        # Red may not move on Blue's turn; Blue may.
        refused = bob.post(
            f"/games/{game_id}/moves", data={"action": "reveal", "x": "0", "y": "0", "version": "1"}, headers=HTMX
        )
        assert refused.status_code == 409 and "It is Blue&#39;s turn" in refused.text
        assert "Blue&#39;s turn: wait for their move" in refused.text and "Red (you)" in refused.text
        assert stored(database, game_id)["version"] == 1, "the refusal changed nothing"
        game = api(alice, game_id)
        x, y = covered(game)[0]
        assert move(alice, game_id, x, y).status_code == 200
        assert api(bob, game_id)["version"] == 2


def test_the_poll_answers_204_until_something_changes_and_then_the_cells_that_did(server) -> None:
    url, _ = server
    with client(url) as alice, client(url) as bob:
        game_id = create(alice, opponent="invite")
        link = re.search(
            r'id="invite-link" type="text" readonly value="([^"]+)"', alice.get(f"/games/{game_id}").text
        ).group(1)
        assert bob.post(link).status_code == 303
        page = bob.get(f"/games/{game_id}")
        version = re.search(r'id="version" name="version" value="(\d+)"', page.text).group(1)
        presence = re.search(r'id="presence" name="presence" value="(\d*)"', page.text).group(1)
        assert bob.get(f"/games/{game_id}/live", params={"version": version, "presence": presence}).status_code == 204
        game = api(alice, game_id)
        x, y = covered(game)[0]
        move(alice, game_id, x, y)
        fresh = bob.get(f"/games/{game_id}/live", params={"version": version, "presence": presence})
        assert fresh.status_code == 200
        assert f'id="c-{x}-{y}"' in fresh.text and 'hx-swap-oob="true"' in fresh.text
        now = re.search(r'id="version" name="version" value="(\d+)"', fresh.text).group(1)
        assert int(now) == int(version) + 1


def next_event(lines) -> list[str]:
    """The lines of the stream's next event (keep-alive comments skipped)."""
    event: list[str] = []
    for line in lines:
        if line and not line.startswith(":"):
            event.append(line)
        elif not line and event:
            return event
    return event


def test_the_stream_says_only_that_the_game_changed(server) -> None:
    url, _ = server
    with (
        client(url) as alice,
        httpx.Client(base_url=url, timeout=httpx.Timeout(seconds(30), read=seconds(20))) as watcher,
    ):
        game_id = create(alice, opponent="screen")
        watcher.cookies = alice.cookies
        # A page older than the game hears of it at once; then of each move as it is made.
        with watcher.stream("GET", f"/games/{game_id}/events", params={"version": "-1"}) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.iter_lines()
            assert next_event(lines) == ["event: changed", 'data: "0"']
            x, y = covered(api(alice, game_id))[0]
            assert move(alice, game_id, x, y).status_code == 200
            assert next_event(lines) == ["event: changed", 'data: "1"']
        assert alice.get(f"/games/{game_id}/watch/not-the-key/events").status_code == 404


def test_the_computer_answers_each_move_until_the_game_ends(server) -> None:
    url, _ = server
    with client(url) as alice:
        game_id = create(alice, opponent="computer", level="easy")
        assert api(alice, game_id)["two_players"]["level"] == "easy"
        for _ in range(40):
            game = api(alice, game_id)
            if game["status"] != "playing":
                break
            assert game["two_players"]["turn"] == 0
            version = game["version"]
            x, y = covered(game)[0]
            assert move(alice, game_id, x, y).status_code == 200

            def my_turn_again() -> bool:
                now = api(alice, game_id)
                return now["status"] != "playing" or now["two_players"]["turn"] == 0

            wait_until(my_turn_again, 30, "the computer did not move within 30 s")
            assert api(alice, game_id)["version"] > version
        game = api(alice, game_id)
        assert game["status"] == "won"
        # The computer's moves went through the rules: Red found some of the mines, or none.
        assert sum(game["two_players"]["scores"]) <= 9


def play_until_the_computers_turn(player: httpx.Client, game_id: str) -> dict:
    """Blue opens the first covered cell until the turn passes (or the game ends); the game then."""
    game = api(player, game_id)
    while game["two_players"]["turn"] == 0 and game["status"] == "playing":
        x, y = covered(game)[0]
        assert move(player, game_id, x, y).status_code == 200
        game = api(player, game_id)
    return game


@pytest.mark.server
def test_a_move_on_the_computers_turn_is_refused(tmp_path) -> None:
    # The computer takes its time (ten seconds): its turn stays open while the player tries to move.
    with live_server(tmp_path / "games.sqlite3", deals=Deals(seed=3), computer_pause=10.0) as url, client(url) as alice:
        game_id = create(alice, opponent="computer", level="hard")
        game = play_until_the_computers_turn(alice, game_id)
        assert game["status"] == "playing", "the seeded board hands the turn over before the end"
        x, y = covered(game)[0]
        refused = move(alice, game_id, x, y)
        assert refused.status_code == 409 and "It is Red&#39;s turn" in refused.text
        page = alice.get(f"/games/{game_id}")
        assert "The computer (Red) is moving" in page.text


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"opponent": "robot"}, "Unknown opponent &#39;robot&#39;"),
        ({"opponent": "computer", "level": "expert"}, "Unknown level &#39;expert&#39;"),
    ],
)
def test_a_bad_opponent_or_level_is_refused_with_a_message(server, form: dict, message: str) -> None:
    url, _ = server
    with client(url) as alice:
        response = alice.post("/games", data={"mode": "flags", "preset": "msn", **form})
        assert response.status_code in (409, 422) and message in response.text


def test_the_api_plays_flags_and_refuses_an_opponent_for_one_player_games(server) -> None:
    url, _ = server
    with client(url) as alice:
        made = alice.post(
            "/api/games",
            json={"mode": "flags", "width": 6, "height": 6, "mines": 9, "opponent": "screen", "bomb": False},
        )
        assert made.status_code == 201, made.text
        game = made.json()
        assert game["two_players"]["turn"] == 0 and game["options"] == {
            "bomb": False,
            "uncover_all": False,
            "probabilities": False,
        }
        x, y = covered(game)[0]
        moved = alice.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": x, "y": y})
        assert moved.status_code == 200 and moved.json()["version"] == 1
        bomb = alice.post(f"/api/games/{game['id']}/moves", json={"action": "bomb", "x": 2, "y": 2})
        assert bomb.status_code == 409 and "turned off" in bomb.json()["detail"]
        refused = alice.post(
            "/api/games", json={"mode": "classic", "width": 9, "height": 9, "mines": 10, "opponent": "computer"}
        )
        assert refused.status_code == 422 and "one player" in refused.json()["detail"]


def test_no_answer_shows_a_mine_nobody_found_before_the_end(server) -> None:
    url, database = server
    with client(url) as alice, client(url) as bob, client(url) as carol:
        game_id = create(alice, opponent="invite")
        link = re.search(
            r'id="invite-link" type="text" readonly value="([^"]+)"', alice.get(f"/games/{game_id}").text
        ).group(1)
        key = link.rsplit("/", 1)[1]
        assert bob.post(link).status_code == 303
        carol.get(link)
        players = (alice, bob)
        for _ in range(40):
            data = stored(database, game_id)
            if data["status"] != "playing":
                break
            layout = set(data["hidden"]["layout"])
            found = {index for cells in data["state"]["found"] for index in cells}
            answers = [
                alice.get(f"/games/{game_id}"),
                bob.get(f"/api/games/{game_id}"),
                carol.get(f"/games/{game_id}/watch/{key}"),
                bob.get(f"/games/{game_id}/live", params={"version": "0"}),
                carol.get(f"/games/{game_id}/watch/{key}/live", params={"version": "0"}),
            ]
            for answer in answers:
                assert answer.status_code == 200
                assert (
                    json.dumps(data["hidden"]["layout"]) not in answer.text
                    and json.dumps(sorted(layout)) not in answer.text
                )
                if answer.headers["content-type"].startswith("application/json"):
                    shown = {
                        y * 6 + x
                        for y, row in enumerate(answer.json()["board"])
                        for x, symbol in enumerate(row)
                        if symbol == "*"
                    }
                    assert shown == found
                else:
                    assert 'class="c m"' not in answer.text
                    assert len(re.findall(r'class="c f s[01]', answer.text)) == len(found)
            mover = players[data["state"]["turn"]]
            x, y = covered(api(mover, game_id))[0]
            assert move(mover, game_id, x, y).status_code == 200
        end = api(alice, game_id)
        assert end["status"] == "won"
        shown = {y * 6 + x for y, row in enumerate(end["board"]) for x, symbol in enumerate(row) if symbol == "*"}
        assert shown == set(stored(database, game_id)["hidden"]["layout"]), "the end shows every mine"


def test_the_probability_overlay_is_practice_against_the_computer_only(server) -> None:
    url, _ = server
    with client(url) as alice:
        against_computer = create(alice, opponent="computer", level="easy")
        between_people = create(alice, opponent="screen")
        changed = alice.patch(f"/api/games/{against_computer}/options", json={"probabilities": True})
        assert changed.status_code == 200 and changed.json()["options"]["probabilities"] is True
        page = alice.get(f"/games/{against_computer}")
        assert re.search(r'class="c u p[0-5]', page.text), "covered cells coloured by their chance"
        refused = alice.patch(f"/api/games/{between_people}/options", json={"probabilities": True})
        assert refused.status_code == 409 and "practice against the computer" in refused.json()["detail"]
        assert not api(alice, between_people)["options"]["probabilities"]
        rules = alice.post(
            f"/games/{against_computer}/options", data={"probabilities": "on"}, headers=HTMX
        )  # the bomb left out
        assert rules.status_code == 409 and "set when it is made" in rules.text
        assert 'class="topbar flags-bar"' in rules.text, "a refusal keeps the page a Flags page"
        # The page's practice switch sends the rules as they are: only the overlay changes.
        form = alice.post(f"/games/{against_computer}/options", data={"bomb": "on"}, headers=HTMX)
        assert form.status_code == 200
        assert api(alice, against_computer)["options"] == {"bomb": True, "uncover_all": False, "probabilities": False}
        # The answer is still a Flags page: the scores above the board and whose turn it is, no classic
        # counters and no Undo (it swapped in the one-player bar until issue 24).
        practice = alice.post(
            f"/games/{against_computer}/options", data={"bomb": "on", "probabilities": "on"}, headers=HTMX
        )
        assert practice.status_code == 200 and 'class="topbar flags-bar"' in practice.text
        assert lines(practice.text)[0] == "Your turn (Blue)" and 'id="undo"' not in practice.text


@pytest.mark.server
@pytest.mark.parametrize("look", ["page", "stream", "poll", "api"])
def test_a_computer_turn_cut_short_by_a_restart_is_played_when_any_look_sees_it_due(tmp_path, look) -> None:
    """The page, its reconnected stream, its poll or a script's read: any look at the game starts the turn."""
    database = tmp_path / "games.sqlite3"
    # The first server would wait ten seconds before the computer's move; it stops before then.
    with live_server(database, deals=Deals(seed=3), computer_pause=10.0) as url, client(url) as alice:
        game_id = create(alice, opponent="computer", level="easy")
        game = play_until_the_computers_turn(alice, game_id)
        cookies = dict(alice.cookies)
    assert game["status"] == "playing" and game["two_players"]["turn"] == 1
    played = lambda: stored(database, game_id)["version"] > game["version"]  # noqa: E731  (read from the file: a look of its own would start it)
    with live_server(database, deals=Deals(seed=3), computer_pause=0.0) as url:
        with httpx.Client(base_url=url, cookies=cookies, timeout=httpx.Timeout(seconds(30), read=seconds(20))) as alice:
            if look == "page":
                assert alice.get(f"/games/{game_id}").status_code == 200
                wait_until(played, 30, "the computer did not take its turn after the restart")
            elif look == "stream":
                with alice.stream(
                    "GET", f"/games/{game_id}/events", params={"version": str(game["version"])}
                ) as stream:
                    assert stream.status_code == 200
                    wait_until(played, 30, "the computer did not move while its page's stream was open")
            elif look == "poll":
                answer = alice.get(f"/games/{game_id}/live", params={"version": str(game["version"]), "presence": "01"})
                assert answer.status_code in (200, 204)
                wait_until(played, 30, "the computer did not move after the page's poll")
            else:
                assert alice.get(f"/api/games/{game_id}").status_code == 200
                wait_until(played, 30, "the computer did not move after an API read")


def invite(alice: httpx.Client) -> tuple[str, str]:
    """A Flags game Alice made with an invitation; its id and the link."""
    game_id = create(alice, opponent="invite")
    return game_id, re.search(
        r'id="invite-link" type="text" readonly value="([^"]+)"', alice.get(f"/games/{game_id}").text
    ).group(1)


def test_the_inviter_frees_the_seat_of_someone_who_took_it_and_never_moved(server) -> None:
    url, database = server
    with client(url) as alice, client(url) as mallory, client(url) as bob:
        game_id, link = invite(alice)
        assert 'class="free-seat"' not in alice.get(f"/games/{game_id}").text, "nobody to free yet"
        assert mallory.post(link).headers["location"] == f"/games/{game_id}"
        page = alice.get(f"/games/{game_id}").text
        assert 'class="free-seat"' in page and "Red has not moved yet" in page
        refused = mallory.post(f"/games/{game_id}/free-seat")
        assert refused.status_code == 409 and "Only the player who sent an invitation" in refused.text
        freed = alice.post(f"/games/{game_id}/free-seat")
        assert freed.status_code == 303 and freed.headers["location"] == f"/games/{game_id}"
        page = alice.get(f"/games/{game_id}").text
        new_link = re.search(r'id="invite-link" type="text" readonly value="([^"]+)"', page).group(1)
        assert new_link != link and "Red has not joined yet" in page
        # Whoever held the seat or the old link is out.
        assert mallory.get(f"/games/{game_id}").status_code == 404 and mallory.get(link).status_code == 404
        assert mallory.post(link).status_code == 404
        assert "player" not in stored(database, game_id)["seats"][1], "the seat is open again"
        assert bob.post(new_link).headers["location"] == f"/games/{game_id}"
        # Once Red has moved, the seat is theirs.
        game = api(alice, game_id)
        while game["status"] == "playing" and game["two_players"]["turn"] == 0:
            x, y = covered(game)[0]
            assert move(alice, game_id, x, y).status_code == 200
            game = api(alice, game_id)
        assert game["status"] == "playing", "the seeded 6x6 board hands the turn to Red"
        x, y = covered(game)[0]
        assert move(bob, game_id, x, y).status_code == 200
        assert 'class="free-seat"' not in alice.get(f"/games/{game_id}").text
        late = alice.post(f"/games/{game_id}/free-seat")
        assert late.status_code == 409 and "Red has moved" in late.text
        assert api(bob, game_id)["version"] == api(alice, game_id)["version"]


# The players' New game: a game like this one against the same opponent.
NEW_GAME = 'title="A new game of the same size against the same opponent"'


def test_the_end_says_the_result_once_invites_nobody_and_only_the_players_have_a_new_game(server) -> None:
    url, database = server
    with client(url) as alice, client(url) as bob, client(url) as visitor, client(url) as carol:
        game_id, link = invite(alice)
        # Whoever opened the link and has not taken the seat watches, with no game of their own to start.
        seen = visitor.get(link, follow_redirects=True).text
        assert join_form(seen) is not None and NEW_GAME not in seen
        assert bob.post(join_form(seen)).status_code == 303
        watching = carol.get(link, follow_redirects=True).text
        assert "You are watching" in watching and NEW_GAME not in watching
        assert NEW_GAME in alice.get(f"/games/{game_id}").text and NEW_GAME in bob.get(f"/games/{game_id}").text
        assert 'id="invite-link"' in alice.get(f"/games/{game_id}").text
        # Three mines along the top row: two of them and Blue has won.
        put_position(database, game_id, ["...", "...", "..."], mines=3, hidden={"layout": [0, 1, 2]})
        assert move(alice, game_id, 0, 0).status_code == 200
        ended = move(alice, game_id, 1, 0)
        assert ended.status_code == 200 and api(alice, game_id)["status"] == "won"
        assert ended.text.count("Blue wins, 2–0.") == 1 and "You win: Blue wins, 2–0." in ended.text
        page = alice.get(f"/games/{game_id}").text
        assert page.count("Blue wins, 2–0.") == 1
        assert 'id="invite-link"' not in page and 'data-copy="invite-link"' not in page and NEW_GAME in page
        assert NEW_GAME not in carol.get(f"/games/{game_id}/watch/{link.rsplit('/', 1)[1]}").text


def test_only_the_maker_deletes_a_game_of_two_and_anyone_else_leaves_it(server) -> None:
    url, database = server
    with client(url) as alice, client(url) as bob:
        game_id, link = invite(alice)
        assert bob.post(link).status_code == 303
        assert "Leave this game" in bob.get("/").text and "Delete this game" in alice.get("/").text
        assert bob.delete(f"/api/games/{game_id}").status_code == 204
        assert game_id not in [listed["id"] for listed in bob.get("/api/games").json()], "gone from Red's list"
        assert game_id in [listed["id"] for listed in alice.get("/api/games").json()], "still Alice's"
        # Red's seat stays as played: the game goes on for both, and a later save does not list it again for Red.
        game = api(alice, game_id)
        x, y = covered(game)[0]
        assert move(alice, game_id, x, y).status_code == 200
        assert api(bob, game_id)["version"] == game["version"] + 1
        assert game_id not in [listed["id"] for listed in bob.get("/api/games").json()]
        assert "player" in stored(database, game_id)["seats"][1], "Red keeps the seat"
        # The page's form leaves too, for a player who is not the maker.
        assert bob.post(f"/games/{game_id}/delete").status_code == 303 and api(alice, game_id)["id"] == game_id
        # The maker deletes it for everyone.
        assert alice.delete(f"/api/games/{game_id}").status_code == 204
        assert (
            alice.get(f"/api/games/{game_id}").status_code == 404
            and bob.get(f"/api/games/{game_id}").status_code == 404
        )


@pytest.mark.parametrize("opponent", ["screen", "invite", "computer"])
def test_between_two_people_no_route_shows_one_seat_the_chances_or_the_proofs(server, opponent: str) -> None:
    url, _ = server
    with client(url) as alice, client(url) as bob:
        if opponent == "invite":
            game_id, link = invite(alice)
            assert bob.post(link).status_code == 303
            seats = [alice, bob]
        else:
            game_id = create(alice, opponent=opponent, **({"level": "easy"} if opponent == "computer" else {}))
            seats = [alice]
        x, y = covered(api(alice, game_id))[0]
        assert move(alice, game_id, x, y).status_code == 200
        for player in seats:
            analysis = player.get(f"/api/games/{game_id}/analysis")
            assert analysis.status_code == 409 and "no debug overlay" in analysis.json()["detail"]
            chances = player.get(f"/api/games/{game_id}/probabilities")
            if opponent == "computer":
                assert chances.status_code == 200, "the practice overlay against the computer, as the page allows"
            else:
                assert chances.status_code == 409 and "practice against the computer" in chances.json()["detail"]
