"""Cruel Flags through the server (httpx on a real uvicorn) and the command line: chosen on the form by its
luck, played through an invitation and against the computer to the end with nothing secret shown before it,
and the adviser and the referee under its rules. What is asserted holds for every deal."""

from __future__ import annotations

import io
import json
import re

import pytest

from app import cli
from app.core.game import Game
from app.play.tournament import RULES, ScheduledBoard, check_program, play
from tests.live import wait_until
from tests.test_flags_web import api, client, covered, create, move, stored

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"computer_pause": 0.0}


def fits(board: list[str], mines: int) -> bool:
    """Whether a finished game's board shows `mines` mines that every number counts."""
    shown = {(x, y) for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol == "*"}
    numbers = [(x, y, int(symbol)) for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol.isdigit()]
    around = lambda x, y: sum((x + dx, y + dy) in shown for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)  # noqa: E731
    return len(shown) == mines and all(around(x, y) == number for x, y, number in numbers)


def test_the_forms_luck_choice_makes_a_cruel_flags_game_and_refuses_a_mode_that_is_not_a_variant(server) -> None:
    url = server
    with client(url) as alice:
        made = alice.post("/games", data={"choice": "flags msn", "variant-flags": "cruel-flags", "opponent": "screen"})
        assert made.status_code == 303, made.text
        game = api(alice, made.headers["location"].rsplit("/", 1)[1])
        assert (game["mode"], game["width"], game["height"], game["mines"]) == ("cruel-flags", 16, 16, 51)
        dealt = alice.post("/games", data={"choice": "flags msn", "variant-flags": "flags", "opponent": "screen"})
        assert api(alice, dealt.headers["location"].rsplit("/", 1)[1])["mode"] == "flags"
        before = alice.get("/api/games").json()
        refused = alice.post("/games", data={"choice": "flags msn", "variant-flags": "classic"})
        assert refused.status_code == 422 and "Classic is not a variant of Flags" in refused.text
        assert alice.get("/api/games").json() == before, "a refused form makes no game"
        # The page of a cruel Flags game says its rule, and the rules page explains the mode and its computer.
        page = alice.get(made.headers["location"]).text
        assert "A proven mine is a point and another move; any other cell is empty" in page
        rules = alice.get("/rules").text
        assert 'id="cruel-flags"' in rules and "left to open the last empty cell" in rules


def test_its_page_names_the_rules_and_an_empty_click_says_why_it_scored_nothing(server) -> None:
    with client(server) as alice:
        game_id = create(alice, mode="cruel-flags", opponent="screen")
        page = alice.get(f"/games/{game_id}").text
        assert re.search(r"<title>Kaboom · Cruel Flags[^<]*</title>", page)
        rules = page.split('id="rules-title"', 1)[1].split("</section>", 1)[0]
        assert rules.startswith(' class="legend">This game: Cruel Flags') and 'href="/rules#cruel-flags"' in rules
        # Nothing is proven on a board nobody has opened: the first click finds an empty cell.
        x, y = covered(api(alice, game_id))[0]
        answer = move(alice, game_id, x, y)
        assert answer.status_code == 200 and "Empty: only a proven mine scores, and the turn passes." in answer.text


def test_through_an_invitation_no_answer_shows_the_deal_seed_or_an_unfound_mine_and_the_end_fits(
    server, database
) -> None:
    url = server
    with client(url) as alice, client(url) as bob, client(url) as carol:
        game_id = create(alice, mode="cruel-flags", opponent="invite")
        link = re.search(
            r'id="invite-link" type="text" readonly value="([^"]+)"', alice.get(f"/games/{game_id}").text
        ).group(1)
        key = link.rsplit("/", 1)[1]
        assert bob.post(link).status_code == 303
        players = (alice, bob)
        for _ in range(40):
            data = stored(database, game_id)
            if data["status"] != "playing":
                break
            assert set(data["hidden"]) == {"deal_seed"}
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
                assert data["hidden"]["deal_seed"] not in answer.text
                if answer.headers["content-type"].startswith("application/json"):
                    board = answer.json()["board"]
                    assert {y * 6 + x for y, row in enumerate(board) for x, s in enumerate(row) if s == "*"} == found
                else:
                    assert 'class="c m"' not in answer.text
            mover = players[data["state"]["turn"]]
            x, y = covered(api(mover, game_id))[0]
            assert move(mover, game_id, x, y).status_code == 200
        end = api(alice, game_id)
        assert end["status"] == "won" and fits(end["board"], 9)
        assert sum(end["two_players"]["scores"]) <= 9


def test_against_the_hard_computer_a_game_is_played_to_the_end(server) -> None:
    url = server
    with client(url) as alice:
        game_id = create(alice, mode="cruel-flags", opponent="computer", level="hard")
        assert "The computer (hard) takes every proven mine" in alice.get(f"/games/{game_id}").text
        for _ in range(40):
            game = api(alice, game_id)
            if game["status"] != "playing":
                break
            x, y = covered(game)[0]
            assert move(alice, game_id, x, y).status_code == 200

            def my_turn_again() -> bool:
                now = api(alice, game_id)
                return now["status"] != "playing" or now["two_players"]["turn"] == 0

            wait_until(my_turn_again, 30, "the computer did not move within 30 s")
        game = api(alice, game_id)
        assert game["status"] == "won" and fits(game["board"], 9)


def test_the_adviser_takes_a_proven_mine_under_the_cruel_rules_and_refuses_an_unknown_level(capsys) -> None:
    out = io.StringIO()
    assert cli.main(["move", "--rules", "cruel"], stdin=io.StringIO("3 1 1\n1..\n"), stdout=out) == 0
    assert out.getvalue() == "2 1\n"
    for level in ("easy", "normal", "greedy", "random"):
        out = io.StringIO()
        position = io.StringIO("4 2 2\n1...\n....\n")
        assert cli.main(["move", "--rules", "cruel", "--level", level], stdin=position, stdout=out) == 0
        x, y = (int(field) for field in out.getvalue().split())
        assert (x, y) != (1, 1) and 1 <= x <= 4 and 1 <= y <= 2
    scorer = ["move", "--rules", "cruel", "--level", "scorer"]
    assert cli.main(scorer, stdin=io.StringIO("3 1 1\n1..\n"), stdout=io.StringIO()) == 2
    assert "no level 'scorer' for the cruel rules" in capsys.readouterr().err


def test_the_referee_plays_by_the_cruel_rules_the_same_deals_for_both_starts() -> None:
    board = ScheduledBoard(8, 8, 14, 0)
    programs = (check_program("builtin:normal", RULES["cruel"]), check_program("builtin:random", RULES["cruel"]))
    games = [play(board, programs, first, seed=3, rules=RULES["cruel"]) for first in (0, 1)]
    for record in games:
        assert not record.fault, record.fault
        assert sum(record.scores) <= 14 and record.winner in (0, 1, None)
    # The board's deals come from the schedule: the same game for both starts.
    first: Game = RULES["cruel"].new_game(board, 3, uncover_all=False)
    assert first.hidden == RULES["cruel"].new_game(board, 3, uncover_all=False).hidden
    assert json.dumps(first.hidden) != json.dumps(RULES["cruel"].new_game(board, 4, uncover_all=False).hidden)
    try:
        check_program("builtin:scorer", RULES["cruel"])
    except ValueError as error:
        assert "unknown built-in player 'scorer' for the cruel rules" in str(error)
    else:
        raise AssertionError("a player the rules do not know is refused")
