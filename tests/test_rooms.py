"""Rooms through the server (httpx on a real uvicorn and SQLite): a co-op room's one shared game, a race's
games of one board started together, joining by the link, watching, the limits, and that no answer shows a
racer still playing what another racer's board holds."""

from __future__ import annotations

import threading

import httpx
import pytest

from app.service import Deals
from solver import Analyzer
from solver.position import Position
from tests.clock import FakeClock
from tests.live import live_server

COUNTDOWN = 3.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def server(tmp_path, deal_seed, clock):
    settings = {"race_countdown": COUNTDOWN, "rooms_per_player": 3}
    with live_server(tmp_path / "games.sqlite3", deals=Deals(seed=deal_seed), clock=clock, **settings) as url:
        yield url


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30)


def ok(response: httpx.Response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def new_room(player: httpx.Client, kind: str, name: str, **board) -> dict:
    size = {"mode": "classic", "width": 9, "height": 9, "mines": 10, **board}
    return ok(player.post("/api/rooms", json={"kind": kind, "name": name, **size}), 201)


def join(player: httpx.Client, room: dict, name: str) -> dict:
    return ok(player.post(f"/api/rooms/{room['id']}/join", json={"invite": room["invite"], "name": name}))


def move(player: httpx.Client, game_id: str, action: str, x: int, y: int) -> httpx.Response:
    return player.post(f"/api/games/{game_id}/moves", json={"action": action, "x": x, "y": y})


def safe_cell(game: dict) -> tuple[int, int] | None:
    """A covered cell the numbers the game shows prove safe (never the layout); None when none is."""
    analyzer = Analyzer(Position(game["width"], game["height"], game["mines"], tuple(game["board"])))
    safe = sorted(analyzer.safe_cells(), key=lambda cell: (cell[1], cell[0]))
    return safe[0] if safe else None


def play_safely(player: httpx.Client, game: dict, moves: int) -> dict:
    """Open proven-safe cells, `moves` of them at most, each from the answer before."""
    for _ in range(moves):
        cell = safe_cell(game)
        if cell is None or game["status"] != "playing":
            break
        game = ok(move(player, game["id"], "reveal", *cell))
    return game


def test_a_coop_room_seats_every_member_in_one_game_that_anyone_moves_and_strangers_never_see(server):
    ann, bob, stranger, watcher = client(server), client(server), client(server), client(server)
    room = new_room(ann, "coop", "Ann")
    assert [player["name"] for player in room["players"]] == ["Ann"]
    game = room["game"]
    assert game is not None and game["status"] == "playing"

    joined = join(bob, room, "Bob")
    assert [(player["name"], player["you"]) for player in joined["players"]] == [("Ann", False), ("Bob", True)]
    assert joined["game"]["id"] == game["id"]
    assert {player["colour"] for player in joined["players"]} == {0, 1}
    assert joined["invite"] == room["invite"]  # a member may pass the link on

    # The first click is an opening, whoever makes it; then each member moves on the cells the last answer showed.
    opened = ok(move(bob, game["id"], "reveal", 4, 4))
    assert opened["board"][4][4] == "0"
    after_ann = play_safely(ann, opened, 2)
    assert ok(bob.get(f"/api/games/{game['id']}"))["version"] == after_ann["version"]

    # Nobody outside the room finds it or its game; whoever holds the link watches and cannot move.
    assert stranger.get(f"/api/rooms/{room['id']}").status_code == 404
    assert stranger.get(f"/api/games/{game['id']}").status_code == 404
    watched = ok(watcher.get(f"/api/rooms/{room['id']}", params={"invite": room["invite"]}))
    assert watched["watching"] and watched["invite"] is None and watched["game"]["board"] == after_ann["board"]
    cell = next((x, y) for y, row in enumerate(after_ann["board"]) for x, symbol in enumerate(row) if symbol == ".")
    assert move(watcher, game["id"], "flag", *cell).status_code == 404
    assert watcher.get(f"/api/rooms/{room['id']}", params={"invite": "x" * 22}).status_code == 404
    assert watcher.post(f"/api/rooms/{room['id']}/join", json={"invite": "x" * 22, "name": "Eve"}).status_code == 404


def test_a_coop_room_says_who_took_a_move_back_or_asked_for_a_hint_and_its_game_is_nobodys_record(server):
    ann, bob = client(server), client(server)
    # A board that needs no guess: played to its end from what the numbers prove, whatever the deal.
    room = new_room(ann, "coop", "Ann", width=8, height=8, mines=10, no_guess=True)
    join(bob, room, "Bob")
    game = ok(move(ann, room["game"]["id"], "reveal", 2, 2))
    ok(bob.post(f"/api/games/{game['id']}/hint"))
    ok(move(ann, game["id"], "undo", 0, 0))
    log = ok(bob.get(f"/api/rooms/{room['id']}"))["log"]
    assert [(event["name"], event["what"]) for event in log] == [("Bob", "joined"), ("Bob", "hint"), ("Ann", "undo")]

    game = ok(move(bob, game["id"], "reveal", 2, 2))
    game = play_safely(ann, game, 64)
    assert game["status"] == "won"
    assert ok(ann.get("/api/records")) == [] and ok(bob.get("/api/records")) == []


def test_a_race_deals_one_board_to_every_racer_opens_it_for_all_at_once_and_ranks_the_first_to_clear(server, clock):
    ann, bob, cy = client(server), client(server), client(server)
    race = new_room(ann, "race", "Ann")
    assert race["settings"] == {"no_guess": True} and race["phase"] == "lobby" and race["game"] is None
    join(bob, race, "Bob")
    assert bob.post(f"/api/rooms/{race['id']}/start").status_code == 409  # the maker starts it
    started = ok(ann.post(f"/api/rooms/{race['id']}/start"))
    assert started["phase"] == "racing" and started["starts_at"] == pytest.approx(clock() + COUNTDOWN)
    mine = started["game"]
    theirs = ok(bob.get(f"/api/rooms/{race['id']}"))["game"]
    assert mine["id"] != theirs["id"]

    # Nobody moves before the board opens; then the same clicks open the same cells on both boards.
    start = mine["start"]
    assert start is not None and theirs["start"] == start  # where the board's opening is, the same for all
    early = move(ann, mine["id"], "reveal", *start)
    assert early.status_code == 409 and "opens in 3 s" in early.json()["detail"]
    clock.advance(COUNTDOWN)
    first = ok(move(ann, mine["id"], "reveal", *start))
    assert ok(move(bob, theirs["id"], "reveal", *start))["board"] == first["board"]

    # A late joiner watches this round.
    late = join(cy, race, "Cy")
    assert late["game"] is None and [player["racing"] for player in late["players"]] == [True, True, False]

    # While Bob plays, no answer gives him Ann's game; once Ann has cleared, hers can change no more and she
    # may look at Bob's.
    won = play_safely(ann, first, 200)
    assert won["status"] == "won"
    for answer in (ok(bob.get(f"/api/rooms/{race['id']}")), join(bob, race, "Bob")):
        assert all(player["game"] is None for player in answer["players"])
        assert mine["id"] not in bob.get(f"/rooms/{race['id']}", follow_redirects=True).text
    seen = ok(ann.get(f"/api/rooms/{race['id']}"))
    by_name = {player["name"]: player for player in seen["players"]}
    assert by_name["Ann"]["rank"] == 1 and by_name["Ann"]["progress"] == 1.0 and by_name["Ann"]["seconds"] is not None
    assert by_name["Bob"]["game"] == theirs["id"] and by_name["Bob"]["rank"] is None
    assert seen["may_start"]  # a rematch, once someone has cleared the board

    # The race counts in the winner's records, with the rank.
    (record,) = ok(ann.get("/api/records"))
    assert record["games"] == 1 and record["wins"] == 1


def test_a_rematch_deals_a_new_board_to_the_same_racers(server, clock):
    ann, bob = client(server), client(server)
    race = new_room(ann, "race", "Ann", width=5, height=5, mines=1)
    join(bob, race, "Bob")
    first = ok(ann.post(f"/api/rooms/{race['id']}/start"))["game"]
    assert bob.post(f"/api/rooms/{race['id']}/start").status_code == 409  # the race is on: no rematch yet
    clock.advance(COUNTDOWN)
    game = ok(move(ann, first["id"], "reveal", *first["start"]))
    assert play_safely(ann, game, 30)["status"] == "won"
    again = ok(bob.post(f"/api/rooms/{race['id']}/start"))
    assert again["round"] == 2 and again["game"]["id"] != first["id"]
    assert ok(ann.get(f"/api/rooms/{race['id']}"))["game"]["id"] not in (first["id"], again["game"]["id"])


def test_a_room_has_eight_places_and_a_player_so_many_rooms(server):
    maker = client(server)
    room = new_room(maker, "coop", "Maker")
    for number in range(7):
        join(client(server), room, f"P{number}")
    full = client(server).post(f"/api/rooms/{room['id']}/join", json={"invite": room["invite"], "name": "Late"})
    assert full.status_code == 409 and "full" in full.json()["detail"]
    new_room(maker, "race", "Maker")
    new_room(maker, "race", "Maker")
    refused = maker.post("/api/rooms", json={"kind": "coop", "mode": "classic", "width": 9, "height": 9, "mines": 10})
    assert refused.status_code == 429 and "rooms already" in refused.json()["detail"]
    assert maker.post(f"/api/rooms/{room['id']}/leave").status_code == 204
    new_room(maker, "coop", "Maker")  # leaving one freed a place


def test_rooms_refuse_what_they_cannot_play(server):
    ann = client(server)
    for body, words in (
        ({"kind": "coop", "mode": "flags"}, "one-player modes"),
        ({"kind": "duel"}, "unknown kind"),
        ({"kind": "race", "assist": "all"}, "without assist"),
        ({"kind": "coop", "name": " "}, "name"),
    ):
        size = {"mode": "classic", "width": 9, "height": 9, "mines": 10}
        answer = ann.post("/api/rooms", json={**size, **body})
        assert answer.status_code == 422, answer.text
        assert words in answer.text.lower(), answer.text
    race = new_room(ann, "race", "Ann")
    join(client(server), race, "Bob")
    game = ok(ann.post(f"/api/rooms/{race['id']}/start"))["game"]
    assert ann.post(f"/api/games/{game['id']}/hint").status_code == 409
    assert ann.get(f"/api/games/{game['id']}/probabilities").status_code == 409
    assert ann.patch(f"/api/games/{game['id']}/options", json={"debug_overlay": True}).status_code == 409


def test_two_players_moving_on_one_coop_board_at_once_lose_no_move_and_double_none(server):
    ann, bob = client(server), client(server)
    room = new_room(ann, "coop", "Ann", mode="cruel", width=30, height=16, mines=99)
    join(bob, room, "Bob")
    game_id = room["game"]["id"]
    start = ok(ann.get(f"/api/games/{game_id}"))["version"]
    cells = [(x, y) for y in range(16) for x in range(30)]
    halves = {ann: cells[:150], bob: cells[150:300]}
    failures: list[str] = []

    def flag_all(player: httpx.Client) -> None:
        for cell in halves[player]:
            answer = move(player, game_id, "flag", *cell)
            if answer.status_code != 200:
                failures.append(answer.text)

    threads = [threading.Thread(target=flag_all, args=(player,)) for player in halves]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures
    game = ok(ann.get(f"/api/games/{game_id}"))
    assert game["version"] == start + 300
    assert game["flags"] == 300
    assert sum(row.count("F") for row in game["board"]) == 300
