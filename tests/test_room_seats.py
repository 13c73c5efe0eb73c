"""A room's seats and streams as a hostile or careless client finds them (issue 41, points 8, 9 and 10): a member
who left moves no more until they come back, to the same seat; join and leave from throwaway cookies keep the
game's seats within the room's places and never fail; a room's event stream refuses before it starts."""

from __future__ import annotations

import logging

import pytest

from app.core.game import Game
from app.core.seats import left_by
from app.modes import get_mode
from app.modes.classic import BoardId
from app.service.kept import KEPT
from app.store import SQLiteStore
from tests import test_rooms
from tests.live import seconds
from tests.test_rooms import COUNTDOWN, client, join, move, new_room, ok

server = test_rooms.server  # the same live server for each test: rooms on a real uvicorn and SQLite


def stored(database, game_id: str) -> Game:
    """The game as the server's SQLite file holds it, secret and all."""
    store = SQLiteStore(database, kept=KEPT)
    try:
        game = store.peek([game_id])[game_id]
    finally:
        store.close()
    assert game is not None
    return game


def seats_of(database, game_id: str) -> list:
    return stored(database, game_id).seats


def a_mine(database, game_id: str) -> tuple[int, int]:
    """A mine of a race's board: its layout follows from the board's id and the server's key."""
    game = stored(database, game_id)
    rules = get_mode(game.mode)
    board = BoardId.parse(rules.board_id(game) or "")
    return game.cell(min(rules.layout(game, game.state["start"], board.safe_only, board.no_guess)))


@pytest.fixture
def database(tmp_path):
    return tmp_path / "games.sqlite3"  # where tests.test_rooms' server keeps its games


def test_a_member_who_left_moves_no_more_and_coming_back_takes_the_same_seat(server, database):
    ann, bob = client(server), client(server)
    room = new_room(ann, "coop", "Ann")
    join(bob, room, "Bob")
    game_id = room["game"]["id"]
    flagged = ok(bob.post(f"/api/games/{game_id}/moves", json={"action": "flag", "x": 0, "y": 0}))
    assert flagged["board"][0][0] == "F"
    assert bob.post(f"/api/rooms/{room['id']}/leave").status_code == 204
    for refused in (
        move(bob, game_id, "flag", 1, 0),
        bob.post(f"/api/games/{game_id}/moves", json={"action": "undo"}),
        bob.get(f"/api/games/{game_id}"),
    ):
        assert refused.status_code == 404, refused.text
    # His seat keeps the move he made from it, and whose it was; nobody sits in it.
    seats = seats_of(database, game_id)
    assert len(seats) == 2 and left_by(seats[1]) is not None
    ann_sees = ok(ann.get(f"/api/games/{game_id}"))
    assert ann_sees["board"][0][0] == "F"
    # Back by the link: the same seat, and his moves again.
    join(bob, room, "Bob")
    assert len(seats_of(database, game_id)) == 2
    assert ok(move(bob, game_id, "flag", 1, 0))["board"][0][1] == "F"


def test_join_and_leave_from_throwaway_cookies_keep_the_seats_within_the_places_and_never_fail(server, database):
    ann = client(server)
    room = new_room(ann, "coop", "Ann")
    game_id = room["game"]["id"]
    for number in range(63):
        visitor = client(server)
        joined = visitor.post(f"/api/rooms/{room['id']}/join", json={"invite": room["invite"], "name": f"V{number}"})
        assert joined.status_code == 200, joined.text
        assert visitor.post(f"/api/rooms/{room['id']}/leave").status_code == 204
    assert len(seats_of(database, game_id)) == 2, "one seat taken and given back, again and again"
    # Seven more fill the room's eight places; the next is refused, never a server error.
    for number in range(7):
        join(client(server), room, f"P{number}")
    assert len(seats_of(database, game_id)) == 8
    full = client(server).post(f"/api/rooms/{room['id']}/join", json={"invite": room["invite"], "name": "Late"})
    assert full.status_code == 409 and "full" in full.json()["detail"]
    assert ok(move(ann, game_id, "flag", 0, 0))["board"][0][0] == "F"


def test_a_racer_who_leaves_is_out_of_the_round_which_waits_on_them_no_more(server, database, clock):
    ann, bob, cy = client(server), client(server), client(server)
    race = new_room(ann, "race", "Ann", width=5, height=5, mines=1)
    join(bob, race, "Bob")
    join(cy, race, "Cy")
    started = ok(ann.post(f"/api/rooms/{race['id']}/start"))["game"]
    clock.advance(COUNTDOWN)
    cy_game = ok(cy.get(f"/api/rooms/{race['id']}"))["game"]
    assert cy.post(f"/api/rooms/{race['id']}/leave").status_code == 204
    assert move(cy, cy_game["id"], "reveal", *cy_game["start"]).status_code == 404
    # Ann's and Bob's boards end (the opening, then the mine, unless the opening cleared the board): the round is
    # over without Cy, and a rematch may start.
    bob_game = ok(bob.get(f"/api/rooms/{race['id']}"))["game"]
    for racer, game in ((ann, started), (bob, bob_game)):
        if ok(move(racer, game["id"], "reveal", *game["start"]))["status"] == "playing":
            assert ok(move(racer, game["id"], "reveal", *a_mine(database, game["id"])))["status"] == "lost"
    seen = ok(ann.get(f"/api/rooms/{race['id']}"))
    assert [player["name"] for player in seen["players"]] == ["Ann", "Bob"]
    assert seen["over"] and seen["may_start"]


@pytest.mark.parametrize("who", ["no cookie", "wrong key", "no such room"])
def test_a_rooms_event_stream_refuses_before_it_starts_and_logs_no_traceback(server, who, caplog):
    ann, stranger = client(server), client(server)
    room = new_room(ann, "coop", "Ann")
    path = {
        "no cookie": f"/rooms/{room['id']}/events",
        "wrong key": f"/rooms/{room['id']}/watch/{'x' * 22}/events",
        "no such room": "/rooms/nosuchroom/events",
    }[who]
    with caplog.at_level(logging.INFO):
        with stranger.stream("GET", path) as answer:
            assert answer.status_code == 404
            assert not answer.headers["content-type"].startswith("text/event-stream")
    assert not [record for record in caplog.records if record.exc_info], [r.getMessage() for r in caplog.records]
    # Its own member's stream still starts.
    with ann.stream("GET", f"/rooms/{room['id']}/events", timeout=seconds(10)) as answer:
        assert answer.status_code == 200
