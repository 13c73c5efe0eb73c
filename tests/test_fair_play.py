"""Fair play across games (issue 41, points 1, 2, 3, 5 and 6): nobody learns a race's board or a board of the
day from another game of it, a race's death buys nothing, one game of a board of the day at a time, and a
ladder entry's replay stays where the ladder links it. Each rule on every store, as two hosts of one store
(two services on one memory store, two workers of one SQLite file, two hosts of one Redis), and through the
JSON API as a client that tries would ask."""

from __future__ import annotations

import asyncio
import datetime
import threading
import uuid
from collections.abc import Iterator

import httpx
import pytest

from app.core.config import Settings
from app.core.game import Game, Invalid, Move, Refused
from app.core.seats import replay_watcher
from app.modes import get_mode
from app.modes.classic import BoardId
from app.results.daily import DailyBoard
from app.service import Deals, GameService
from app.service.kept import KEPT
from app.store import MemoryStore, SQLiteStore
from app.store.redis import RedisStore
from solver import Analyzer, Status
from tests.clock import FakeClock
from tests.live import live_server, seconds
from tests.test_daily import KEY, MIDNIGHT, a_mine_of, cruel_win, played_out

COUNTDOWN = 3.0
TODAY = datetime.date(2026, 11, 26)
# How long the threads of a burst may take at most: far beyond what any needs, so only a hang fails.
DEADLINE = seconds(60)


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def hosts(request, tmp_path) -> Iterator[tuple[GameService, GameService]]:
    """Two services on one store, sharing the server's key and a FakeClock."""
    clock = FakeClock(MIDNIGHT + 3600)
    path = tmp_path / "games.sqlite3"
    if request.param == "memory":
        one = MemoryStore(clock, kept=KEPT)
        stores = [one, one]
    elif request.param == "sqlite":
        stores = [SQLiteStore(path, clock, kept=KEPT), SQLiteStore(path, clock, kept=KEPT)]
    else:
        url, prefix = request.getfixturevalue("redis_url"), f"fair-{uuid.uuid4().hex}"
        stores = [RedisStore(url, prefix=prefix, clock=clock, kept=KEPT) for _ in range(2)]
    settings = Settings(database=path, secret_key=KEY, race_countdown=COUNTDOWN, create_limit=1000)
    services = tuple(
        GameService(store, settings, Deals(seed=number), clock=clock) for number, store in enumerate(stores)
    )
    yield services  # type: ignore[misc]
    for service in services:
        service.close()


def run(work):
    return asyncio.run(work)


def layout_of(service: GameService, game_id: str, player: str) -> tuple[Game, frozenset[int]]:
    """A fixed-layout game as stored, and its mines: the test holds the server's key, which deals them."""
    game = service.store.load(game_id, player)
    rules = get_mode(game.mode)
    board = BoardId.parse(rules.board_id(game) or "")
    return game, rules.layout(game, game.state["start"], board.safe_only, board.no_guess)


def lose(service: GameService, game_id: str, player: str) -> Game:
    """Open the board at its marked cell, then a mine of its layout."""
    game, mines = layout_of(service, game_id, player)
    if game.started_at is None:
        game = run(service.games.move(game_id, player, Move("reveal", *game.cell(game.state["start"])))).after
    lost = run(service.games.move(game_id, player, Move("reveal", *game.cell(min(mines))))).after
    assert lost.status == "lost"
    return lost


def lose_cruel(service: GameService, game_id: str, player: str) -> Game:
    """Open a cruel board's marked start, then a cell its numbers prove a mine (cruel rules deal it so)."""
    game = run(service.games.load(game_id, player))
    game = run(service.games.move(game_id, player, Move("reveal", *game.cell(game.state["start"])))).after
    analyzer = Analyzer(game.position())
    mine = next(cell for cell, status in analyzer.classify().items() if status == Status.MINE)
    lost = run(service.games.move(game_id, player, Move("reveal", *mine))).after
    assert lost.status == "lost"
    return lost


def started_race(one: GameService, other: GameService) -> tuple[str, dict[str, str]]:
    """A classic race of Ann (on one host) and Bob (on the other), its boards open: its id and the racers' games."""
    room_id, room = run(one.rooms.create_room("ann", "c1", "race", "classic", 9, 9, 10, {}, "Ann"))
    run(other.rooms.join_room(room_id, room.invite, "bob", "Bob"))
    run(one.rooms.start_room(room_id, "ann"))
    one.clock.advance(COUNTDOWN)  # type: ignore[attr-defined]
    views = {player: run(host.rooms.room_view(room_id, player)) for host, player in ((one, "ann"), (other, "bob"))}
    return room_id, {player: view.game for player, view in views.items() if view.game is not None}


# ----- 1. a race's board ----------------------------------------------------------------------------------


def test_a_races_board_is_shown_nowhere_and_made_nowhere_else_while_the_race_is_on(hosts):
    one, other = hosts
    room_id, games = started_race(one, other)
    board_ids = set()
    for host, player in ((one, "ann"), (other, "bob")):
        game = run(host.games.load(games[player], player))
        assert get_mode(game.mode).public_state(game)["board_id"] is None, "no answer shows the id"
        board_ids.add(get_mode(game.mode).board_id(game))
        run(host.games.move(games[player], player, Move("reveal", *game.cell(game.state["start"]))))
    (board_id,) = board_ids
    # Not by a racer, nor by anyone they pass the id to, on either host, by any route that makes a game.
    for host, player in ((one, "ann"), (other, "bob"), (one, "carol"), (other, "carol")):
        with pytest.raises(Refused, match="being raced"):
            run(host.games.create(player, "c", "classic", None, None, None, {}, board_id))
    for host, player in ((other, "ann"), (one, "bob")):
        with pytest.raises(Refused, match="being raced"):
            run(host.games.restart(games[player], player, "c"))
    # One racer is out: the race is still on for the other.
    lose(one, games["ann"], "ann")
    with pytest.raises(Refused, match="being raced"):
        run(other.games.create("carol", "c", "classic", None, None, None, {}, board_id))
    # Once every racer is out, the board is anyone's to practise, and a finished game names it.
    lost = lose(other, games["bob"], "bob")
    assert get_mode(lost.mode).public_state(lost)["board_id"] == board_id
    _, practice = run(one.games.create("carol", "c", "classic", None, None, None, {}, board_id))
    assert get_mode(practice.mode).board_id(practice) == board_id
    run(one.games.restart(games["ann"], "ann", "c"))


@pytest.mark.server
def test_through_the_api_a_racer_never_sees_the_races_board_id_and_it_plays_nowhere_else(tmp_path):
    clock = FakeClock(MIDNIGHT + 3600)
    database = tmp_path / "games.sqlite3"
    with live_server(database, deals=Deals(seed=0), clock=clock, race_countdown=COUNTDOWN) as url:
        ann, bob, carol = (httpx.Client(base_url=url, timeout=seconds(30)) for _ in range(3))
        made = ann.post(
            "/api/rooms", json={"kind": "race", "name": "Ann", "mode": "classic", "width": 9, "height": 9, "mines": 10}
        )
        room = made.json()
        assert bob.post(f"/api/rooms/{room['id']}/join", json={"invite": room["invite"], "name": "Bob"}).is_success
        started = ann.post(f"/api/rooms/{room['id']}/start").json()
        game_id = started["game"]["id"]
        seen = [
            started["game"],
            ann.get(f"/api/rooms/{room['id']}").json()["game"],
            bob.get(f"/api/rooms/{room['id']}").json()["game"],
            ann.get(f"/api/games/{game_id}").json(),
        ]
        assert [game["board_id"] for game in seen] == [None] * 4
        stored = SQLiteStore(database, clock, kept=KEPT)
        board_id = get_mode("classic").board_id(stored.peek([game_id])[game_id])
        stored.close()
        assert board_id is not None
        for asker, answer in (
            (ann, ann.post("/api/games", json={"mode": "classic", "board_id": board_id})),
            (carol, carol.post("/api/games", json={"mode": "classic", "board_id": board_id})),
            (ann, ann.post(f"/api/games/{game_id}/restart")),
            (carol, carol.get(f"/play/{board_id}")),
        ):
            assert answer.status_code == 409 and "being raced" in answer.text, answer.text
            assert asker.get("/api/games").json() == [] or all(
                listed["id"] in (game_id, seen[2]["id"]) for listed in asker.get("/api/games").json()
            ), "nothing was made"


# ----- 2. a race's deliberate death -------------------------------------------------------------------------


def test_a_race_is_played_without_undo_a_mine_ends_the_racers_run(hosts):
    one, other = hosts
    with pytest.raises(Invalid, match="without undo"):
        run(one.rooms.create_room("ann", "c1", "race", "classic", 9, 9, 10, {"undo": True}, "Ann"))
    room_id, games = started_race(one, other)
    lost = lose(one, games["ann"], "ann")
    assert not lost.options.undo
    with pytest.raises(Refused, match="undo is turned off"):
        run(other.games.move(games["ann"], "ann", Move("undo")))
    with pytest.raises(Refused, match="without undo: a mine ends a racer's run"):
        run(one.games.set_options(games["bob"], "bob", {"undo": True}))
    view = run(other.rooms.room_view(room_id, "bob"))
    ann = next(row for row in view.standings if row.name == "Ann")
    assert ann.status == "lost" and ann.rank is None and ann.deaths == 0
    # Her board can change no more: she may watch Bob's.
    assert any(row.game == games["bob"] for row in run(one.rooms.room_view(room_id, "ann")).standings)


# ----- 3. the board of the day practised from its id ----------------------------------------------------------


def test_a_board_of_the_day_is_made_from_nowhere_but_the_day_until_the_players_entry_is_in(hosts, small_dailies):
    one, other = hosts
    board = DailyBoard(TODAY, "classic")
    board_id = get_mode("classic").board_id(board.game(one.context.board_secret))
    assert board_id is not None
    # Before the player's game of the day: no practice copy, on either host.
    for host in (one, other):
        with pytest.raises(Refused, match="board of the day"):
            run(host.games.create("ann", "c", "classic", None, None, None, {}, board_id))
    game_id, daily = run(one.daily.play_daily("ann", "c", board.key))
    assert get_mode(daily.mode).public_state(daily)["board_id"] is None, "the game of the day shows no id"
    daily = run(other.games.move(game_id, "ann", Move("reveal", *daily.cell(daily.state["start"])))).after
    # While it is played: no copy from its id, nor a restart of it.
    with pytest.raises(Refused, match="board of the day"):
        run(other.games.create("ann", "c", "classic", None, None, None, {}, board_id))
    with pytest.raises(Refused, match="board of the day"):
        run(one.games.restart(game_id, "ann", "c"))
    won = played_out(one, game_id, "ann", daily)
    assert won.status == "won"
    # The entry is in: later games of the board are practice.
    run(other.games.create("ann", "c", "classic", None, None, None, {}, board_id))
    _, (_, classic) = run(other.daily.ladders(TODAY.isoformat(), "carol"))
    assert classic.counts == (1, 0, 0) and classic.lines[0].entry["clean"]


def test_a_game_of_the_day_left_unfinished_and_deleted_makes_the_next_one_practice_of_what_it_showed(
    hosts, small_dailies
):
    one, other = hosts
    board = DailyBoard(TODAY, "classic")
    game_id, game = run(one.daily.play_daily("ann", "c", board.key))
    run(one.games.move(game_id, "ann", Move("reveal", *game.cell(game.state["start"]))))
    assert run(other.games.delete(game_id, "ann"))
    again_id, again = run(other.daily.play_daily("ann", "c", board.key))
    assert again_id != game_id and again.aids == ["layout_seen"]
    won = played_out(
        one,
        again_id,
        "ann",
        run(one.games.move(again_id, "ann", Move("reveal", *again.cell(again.state["start"])))).after,
    )
    assert won.status == "won"
    _, (_, classic) = run(one.daily.ladders(TODAY.isoformat(), "carol"))
    assert classic.counts == (0, 1, 0) and classic.lines[0].entry["aids"] == ["layout_seen"]


# ----- 5. one game of a board of the day at a time ------------------------------------------------------------


def test_many_requests_for_a_board_of_the_day_at_once_make_one_game(hosts, small_dailies):
    one, other = hosts
    for key in (f"{TODAY.isoformat()}/classic", f"{TODAY.isoformat()}/cruel"):
        barrier = threading.Barrier(8, timeout=DEADLINE)
        answers: list[str] = []
        errors: list[BaseException] = []

        def ask(host: GameService, key: str, barrier: threading.Barrier, answers: list, errors: list) -> None:
            try:
                barrier.wait()
                answers.append(run(host.daily.play_daily("ann", "c", key))[0])
            except BaseException as error:  # handed to the test's thread
                errors.append(error)

        threads = [
            threading.Thread(target=ask, args=(host, key, barrier, answers, errors)) for host in (one, other) * 4
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(DEADLINE)
        assert not errors and not any(thread.is_alive() for thread in threads), errors
        assert len(set(answers)) == 1 and len(answers) == 8, answers
    listed = [listing.game for listing in one.store.games_of("ann")]
    assert sorted(game.daily for game in listed if game is not None) == [
        f"{TODAY.isoformat()}/classic",
        f"{TODAY.isoformat()}/cruel",
    ]


# ----- 6. a ladder entry's replay link -----------------------------------------------------------------------


@pytest.mark.server
def test_a_lost_entry_cannot_be_undone_and_its_replay_stays_where_the_ladder_links_it(tmp_path, small_dailies):
    clock = FakeClock(MIDNIGHT + 3600)
    database = tmp_path / "games.sqlite3"
    with live_server(database, deals=Deals(seed=0), clock=clock, secret_key=KEY) as url:
        ann, bob = httpx.Client(base_url=url, timeout=seconds(30)), httpx.Client(base_url=url, timeout=seconds(30))
        game = ann.post(f"/api/daily/{TODAY.isoformat()}/classic/games").json()
        start = game["start"]
        assert ann.post(
            f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": start[0], "y": start[1]}
        ).is_success
        x, y = a_mine_of(DailyBoard(TODAY, "classic"), clock)
        lost = ann.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": x, "y": y}).json()
        assert lost["status"] == "lost" and lost["can_undo"] is False and lost["options"]["undo"] is False
        undone = ann.post(f"/api/games/{game['id']}/moves", json={"action": "undo"})
        assert undone.status_code == 409 and "undo is turned off" in undone.json()["detail"]
        own = ann.get(f"/api/daily/{TODAY.isoformat()}/ladder").json()["boards"][1]["own"]
        assert ann.get(own["replay"]).status_code == 200
        # Bob has not played the board: the replay waits for him (a replay would show him its mines).
        assert bob.get(own["replay"]).status_code == 409
        assert ann.post(f"/api/daily/{TODAY.isoformat()}/classic/games").json()["id"] != game["id"]  # practice


# ----- replays of boards still contested -------------------------------------------------------------------


def test_a_replay_of_a_board_of_the_day_opens_to_others_once_their_own_game_of_it_ended_or_the_day_did(
    hosts, small_dailies
):
    one, other = hosts
    board = DailyBoard(TODAY, "cruel")
    ann_id, _ = cruel_win(one, "ann", board.key)
    shared = run(one.games.load(ann_id, "ann")).share
    assert shared is not None  # a board of the day is played in public: its ladder links the replay
    for host, asker in ((other, "bob"), (one, None)):
        with pytest.raises(Refused, match="opens to you once your own game of that board has ended"):
            run(host.reviews.review(ann_id, replay_watcher(shared), asker))
        with pytest.raises(Refused, match="opens to you"):
            run(host.reviews.replay_overlay(ann_id, replay_watcher(shared), 1, asker))
    assert run(other.reviews.review(ann_id, "ann"))[0].status == "won"  # her own, always
    bob_id, _ = run(other.daily.play_daily("bob", "c", board.key))
    lose_cruel(other, bob_id, "bob")
    assert run(one.reviews.review(ann_id, replay_watcher(shared), "bob"))[0].status == "won"
    # The next day the board is nobody's to play for the ladder: its replays are open to all.
    one.clock.advance(86400)  # type: ignore[attr-defined]
    assert run(other.reviews.review(ann_id, replay_watcher(shared), None))[0].status == "won"


def test_a_race_games_replay_opens_to_others_once_the_race_is_over(hosts):
    one, other = hosts
    room_id, games = started_race(one, other)
    lose(one, games["ann"], "ann")
    shared = run(one.reviews.share(games["ann"], "ann", True)).share
    assert shared is not None
    with pytest.raises(Refused, match="race is still on"):
        run(other.reviews.review(games["ann"], replay_watcher(shared), "bob"))
    lose(other, games["bob"], "bob")
    assert run(other.reviews.review(games["ann"], replay_watcher(shared), "bob"))[0].status == "lost"
