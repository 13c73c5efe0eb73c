"""Rooms through the server (httpx on a real uvicorn and SQLite): a co-op room's one shared game, a race's
games of one board started together, joining by the link, watching, the limits, and that no answer shows a
racer still playing what another racer's board holds."""

from __future__ import annotations

import asyncio
import random
import re
import threading

import httpx
import pytest

from app import modes
from app.core import seats as seating
from app.core import stored
from app.core.config import Settings
from app.core.game import Move, set_options
from app.modes import MODES
from app.modes.classic import ClassicOptions
from app.rooms import get_kind
from app.service import Deals, GameService
from app.service.context import PRESENCE_SECONDS
from solver import Analyzer
from solver.position import Position
from tests.live import kaboom_process, live_server, seconds

COUNTDOWN = 3.0
# A covered cell labelled with what the debug overlay says of it: after an opening some covered cell borders
# a number, and every deal gives it one of the three (none need be proven safe).
OVERLAID = re.compile(r'aria-label="covered, (proven safe|proven mine|unknown)')


@pytest.fixture
def server(tmp_path, deal_seed, clock):
    settings = {"race_countdown": COUNTDOWN, "rooms_per_player": 3}
    with live_server(tmp_path / "games.sqlite3", deals=Deals(seed=deal_seed), clock=clock, **settings) as url:
        yield url


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=seconds(30))


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
    # Each member finds the room on their home page, with who is in it.
    home = bob.get("/").text
    assert f'href="/rooms/{room["id"]}"' in home and "Your rooms" in home and "Ann" in home
    assert "Your rooms" not in stranger.get("/").text
    # The room's game is the room's: its maker too only leaves it.
    anns_home = ann.get("/").text
    assert "Leave this game: " in anns_home and "Delete this game" not in anns_home

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


def test_each_coop_player_chooses_their_own_overlays_and_the_games_rules_stay_shared(server):
    ann, bob = client(server), client(server)
    room = new_room(ann, "coop", "Ann")
    join(bob, room, "Bob")
    game_id = room["game"]["id"]
    ok(move(ann, game_id, "reveal", 4, 4))
    mine = ok(ann.patch(f"/api/games/{game_id}/options", json={"debug_overlay": True, "countdown": True}))
    assert mine["options"]["debug_overlay"] and mine["options"]["countdown"]
    assert not any(ok(bob.get(f"/api/games/{game_id}"))["options"][name] for name in ("debug_overlay", "countdown"))
    # The overlay is drawn on Ann's board, not on Bob's, and each page's settings say what its player chose.
    anns_page = ann.get(f"/games/{game_id}").text
    assert OVERLAID.search(anns_page) and 'name="debug_overlay" checked' in anns_page
    bobs_page = bob.get(f"/games/{game_id}").text
    assert not OVERLAID.search(bobs_page) and 'name="debug_overlay" checked' not in bobs_page
    # The room dealt the board: its page offers no setting that shapes a deal, and its form keeps them as they are.
    assert 'name="no_guess"' not in bobs_page and 'name="first_click_safe_only"' not in bobs_page
    no_guess = new_room(ann, "coop", "Ann", no_guess=True)["game"]["id"]
    form = {"countdown": "on", "undo": "on", "question_marks": "on", "no_guess": "on"}
    assert ann.post(f"/games/{no_guess}/options", data=form, headers={"HX-Request": "true"}).status_code == 200
    kept = ok(ann.get(f"/api/games/{no_guess}"))["options"]
    assert kept["no_guess"] and kept["countdown"]
    assert 'type="hidden" name="no_guess" value="on"' in ann.get(f"/games/{no_guess}").text
    # A rule of the game is the room's: Bob turning undo off turns it off for Ann too.
    ok(bob.patch(f"/api/games/{game_id}/options", json={"undo": False}))
    seen = ok(ann.get(f"/api/games/{game_id}"))["options"]
    assert not seen["undo"] and seen["debug_overlay"]


def test_a_move_refused_on_a_board_another_player_moved_on_is_answered_with_the_board_as_it_is(server):
    ann, bob = client(server), client(server)
    room = new_room(ann, "coop", "Ann")
    join(bob, room, "Bob")
    game_id = room["game"]["id"]
    page_version = ok(bob.get(f"/api/games/{game_id}"))["version"]
    opened = ok(move(ann, game_id, "reveal", 4, 4))
    # Bob's page still shows the covered board, and he flags a cell Ann's opening has revealed meanwhile.
    cell = next((x, y) for y, row in enumerate(opened["board"]) for x, symbol in enumerate(row) if symbol != ".")
    form = {"action": "flag", "x": cell[0], "y": cell[1], "version": page_version}
    refused = bob.post(f"/games/{game_id}/moves", data=form, headers={"HX-Request": "true"})
    assert refused.status_code == 409 and 'id="grid"' in refused.text and 'class="message refused"' in refused.text
    assert f'name="version" value="{opened["version"]}"' in refused.text
    # A page that was not behind gets the refusal alone: its board is the game's.
    form["version"] = opened["version"]
    again = bob.post(f"/games/{game_id}/moves", data=form, headers={"HX-Request": "true"})
    assert again.status_code == 409 and 'id="grid"' not in again.text


def test_a_seats_own_settings_are_kept_apart_stored_and_checked_when_read() -> None:
    game = modes.get_mode("classic").new_game(9, 9, 10, ClassicOptions(safe_mode=True), rng=random.Random(1))
    game.seats = [seating.Player("ann"), seating.Player("bob")]
    game = set_options(game, {"probabilities": True, "question_marks": False}, seat=1)
    assert game.views == {1: {"probabilities": True}} and not game.options.question_marks
    assert game.seen_by("bob").options.probabilities and not game.seen_by("ann").options.probabilities
    assert game.seen_by("bob").options.safe_mode  # what a seat has not chosen is the game's
    assert stored.read_state(game.to_json(), MODES).views == game.views
    for views, words in (({"1": {"undo": True}}, "views.1.undo"), ({"2": {"countdown": True}}, "views.2")):
        with pytest.raises(ValueError, match=words):
            stored.read_state({**game.to_json(), "views": views}, MODES)


def test_a_race_deals_one_board_to_every_racer_opens_it_for_all_at_once_and_ranks_the_first_to_clear(server, clock):
    ann, bob, cy = client(server), client(server), client(server)
    race = new_room(ann, "race", "Ann")
    assert race["settings"] == {"no_guess": True, "undo": False} and race["phase"] == "lobby" and race["game"] is None
    assert "Send the link: you can start once someone has joined." in ann.get(f"/rooms/{race['id']}").text
    join(bob, race, "Bob")
    assert "Waiting for <bdi>Ann</bdi> to start the race." in bob.get(f"/rooms/{race['id']}").text
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
    # The page says what a mine costs: the race is played without undo.
    race_page = ann.get(f"/games/{mine['id']}").text
    assert "A mine ends your run: a race has no undo." in race_page and 'id="undo"' in race_page
    assert ">Deaths<" not in race_page

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
    assert (record["games"], record["wins"], record["races"], record["firsts"]) == (1, 1, 1, 1)
    assert '<dd class="record-firsts">1</dd>' in ann.get("/records").text


MINE_SHOWN = ('class="c m', 'class="c x', 'aria-label="mine', 'aria-label="exploded')


def first_event(player: httpx.Client, path: str, **params) -> str:
    """The first event a live stream sends (it sends one at once to a page that shows nothing yet)."""
    with player.stream("GET", path, params=params, timeout=httpx.Timeout(seconds(10), read=seconds(10))) as stream:
        assert stream.status_code == 200, stream.read()
        said: list[str] = []
        for line in stream.iter_lines():
            if not line and said:
                return "\n".join(said)
            if line and not line.startswith(":"):
                said.append(line)
    raise AssertionError(f"{path}: the stream ended without an event")


def test_no_answer_shows_a_racer_still_playing_another_racers_board_nor_anyone_a_mine_of_a_board_in_play(server, clock):
    ann, bob, link_holder = client(server), client(server), client(server)
    race = new_room(ann, "race", "Ann")
    join(bob, race, "Bob")
    room_id, key = race["id"], race["invite"]
    anns = ok(ann.post(f"/api/rooms/{room_id}/start"))["game"]
    bobs = ok(bob.get(f"/api/rooms/{room_id}"))["game"]
    clock.advance(COUNTDOWN)
    won = play_safely(ann, ok(move(ann, anns["id"], "reveal", *anns["start"])), 200)
    assert won["status"] == "won"
    ok(move(bob, bobs["id"], "reveal", *bobs["start"]))

    # Everything Bob's pages and scripts are answered while he plays, and everything whoever holds the link
    # (Bob in a private window, say) is answered: Ann's cleared board, which is Bob's layout, is never in it.
    answers = {
        "room page": bob.get(f"/rooms/{room_id}", follow_redirects=True).text,
        "game page": bob.get(f"/games/{bobs['id']}").text,
        "game poll": bob.get(f"/games/{bobs['id']}/live", params={"version": 0}).text,
        "game stream": first_event(bob, f"/games/{bobs['id']}/events", version=0),
        "room stream": first_event(bob, f"/rooms/{room_id}/events"),
        "room api": bob.get(f"/api/rooms/{room_id}").text,
        "game api": bob.get(f"/api/games/{bobs['id']}").text,
        "link page": link_holder.get(f"/rooms/{room_id}/watch/{key}", follow_redirects=True).text,
        "link poll": link_holder.get(f"/rooms/{room_id}/watch/{key}/live").text,
        "link stream": first_event(link_holder, f"/rooms/{room_id}/watch/{key}/events"),
        "link api": link_holder.get(f"/api/rooms/{room_id}", params={"invite": key}).text,
    }
    for what, answer in answers.items():
        assert anns["id"] not in answer, what
        assert not any(shown in answer for shown in MINE_SHOWN), what
    assert "Ann" in answers["link page"] and "100" in answers["link page"]  # the scoreboard, though: Ann cleared it
    # Nor does the link open Ann's board to someone who learnt its id, Bob included, while the race is on.
    for path in ("", "/live", "/events"):
        for holder in (link_holder, bob):
            assert holder.get(f"/games/{anns['id']}/watch/{key}{path}").status_code == 404, path
    # Once Bob's board can change no more (lost with undo off, or cleared), he may look at Ann's.
    ok(bob.patch(f"/api/games/{bobs['id']}/options", json={"undo": False}))
    game = ok(bob.get(f"/api/games/{bobs['id']}"))
    while game["status"] == "playing":
        covered = next((x, y) for y, row in enumerate(game["board"]) for x, symbol in enumerate(row) if symbol == ".")
        game = ok(move(bob, bobs["id"], "reveal", *covered))
    assert anns["id"] in bob.get(f"/api/rooms/{room_id}").text
    assert bob.get(f"/games/{anns['id']}/watch/{key}").status_code == 200
    assert link_holder.get(f"/games/{anns['id']}/watch/{key}").status_code == 200  # the race is over


def test_a_coop_boards_watchers_and_players_see_no_mine_while_it_is_played(server):
    ann, bob, link_holder = client(server), client(server), client(server)
    room = new_room(ann, "coop", "Ann")
    join(bob, room, "Bob")
    room_id, game_id, key = room["id"], room["game"]["id"], room["invite"]
    opened = ok(move(ann, game_id, "reveal", 4, 4))
    assert opened["status"] == "playing"  # an opening never loses
    answers = {
        "member page": bob.get(f"/games/{game_id}").text,
        "member poll": bob.get(f"/games/{game_id}/live", params={"version": 0}).text,
        "member stream": first_event(bob, f"/games/{game_id}/events", version=0),
        "link page": link_holder.get(f"/rooms/{room_id}/watch/{key}", follow_redirects=True).text,
        "link game poll": link_holder.get(f"/games/{game_id}/watch/{key}/live", params={"version": 0}).text,
        "link game stream": first_event(link_holder, f"/games/{game_id}/watch/{key}/events", version=0),
        "link api": link_holder.get(f"/api/rooms/{room_id}", params={"invite": key}).text,
    }
    for what, answer in answers.items():
        assert not any(shown in answer for shown in MINE_SHOWN), what
    assert 'id="grid"' in answers["link page"] and 'class="c u' in answers["link page"]  # the board, covered


def test_a_player_whose_connection_dropped_keeps_their_seat_and_comes_back_by_the_link(server, clock):
    ann, bob = client(server), client(server)
    room = new_room(ann, "coop", "Ann")
    join(bob, room, "Bob")
    game_id = room["game"]["id"]
    bob.get(f"/games/{game_id}/live", params={"version": 0})  # his page is open: it polls

    def bob_as_ann_sees_him() -> dict:
        return next(player for player in ok(ann.get(f"/api/rooms/{room['id']}"))["players"] if player["name"] == "Bob")

    assert bob_as_ann_sees_him()["present"]
    clock.advance(PRESENCE_SECONDS + 1)  # his page went quiet: the network dropped, the phone slept
    assert not bob_as_ann_sees_him()["present"]
    back = bob.get(f"/rooms/{room['id']}/join/{room['invite']}", follow_redirects=True)
    assert back.status_code == 200 and str(back.url).endswith(f"/games/{game_id}")
    assert bob_as_ann_sees_him()["present"]
    assert ok(move(bob, game_id, "reveal", 4, 4))["board"][4][4] == "0"  # his seat, as he left it


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


def at_once(work: dict[str, list[tuple[int, int]]], flag) -> list[str]:
    """Each player flags their cells, one after another, all players at the same time; what went wrong."""
    failures: list[str] = []

    def flag_all(player: str) -> None:
        for cell in work[player]:
            try:
                flag(player, cell)
            except Exception as error:  # noqa: BLE001 -- every failure is reported, not just the first
                failures.append(f"{player} {cell}: {error!r}")

    threads = [threading.Thread(target=flag_all, args=(player,)) for player in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds(120))
    assert not any(thread.is_alive() for thread in threads), "the moves did not end within 120 s"
    return failures


CELLS = [(x, y) for y in range(16) for x in range(30)]


@pytest.mark.subprocess
def test_two_players_moving_on_one_coop_board_through_two_workers_lose_no_move_and_double_none(tmp_path):
    """Two `kaboom serve` processes on one SQLite file: each player's moves go to their own worker."""
    database = tmp_path / "games.sqlite3"
    with (
        kaboom_process(KABOOM_DATABASE=str(database)) as (_, first),
        kaboom_process(KABOOM_DATABASE=str(database)) as (_, second),
    ):
        players = {"ann": client(first), "bob": client(second)}
        room = new_room(players["ann"], "coop", "Ann", mode="cruel", width=30, height=16, mines=99)
        join(players["bob"], room, "Bob")
        game_id = room["game"]["id"]
        start = ok(players["ann"].get(f"/api/games/{game_id}"))["version"]

        def flag(player: str, cell: tuple[int, int]) -> None:
            ok(move(players[player], game_id, "flag", *cell))

        assert not at_once({"ann": CELLS[:150], "bob": CELLS[150:300]}, flag)
        game = ok(players["bob"].get(f"/api/games/{game_id}"))
    assert game["version"] == start + 300 and game["flags"] == 300
    assert sum(row.count("F") for row in game["board"]) == 300


def test_two_players_moving_on_one_coop_board_at_once_through_every_store_lose_no_move_and_double_none(
    backend, tmp_path
):
    """Each player's moves go through a service of their own, as on two workers or two hosts of one store:
    the store's lease and version check keep every move, once."""
    settings = Settings(database=tmp_path / "games.sqlite3")  # its key is made there, not in the working tree
    services = {"ann": GameService(backend.store, settings), "bob": GameService(backend.reopened(), settings)}
    room_id, room = asyncio.run(services["ann"].rooms.create_room("ann", "a", "coop", "cruel", 30, 16, 99, {}, "Ann"))
    asyncio.run(services["bob"].rooms.join_room(room_id, room.invite, "bob", "Bob"))
    game_id = get_kind("coop").game_for(room, "ann")
    assert game_id is not None
    start = backend.store.load(game_id, "ann").version

    def flag(player: str, cell: tuple[int, int]) -> None:
        asyncio.run(services[player].games.move(game_id, player, Move("flag", *cell)))

    assert not at_once({"ann": CELLS[:100], "bob": CELLS[100:200]}, flag)
    game = backend.reopened().load(game_id, "bob")
    assert game.version == start + 200 and sorted(game.marks) == sorted(game.index(*cell) for cell in CELLS[:200])
    assert set(game.marks.values()) == {"F"}
