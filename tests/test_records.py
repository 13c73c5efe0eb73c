"""Records (issue 10 #8): 3BV on hand-made boards, and what a player's results add up to."""

from __future__ import annotations

import json
import random

from app.game import Move
from app.modes import apply_move
from app.records import BEST_TIMES, fixed_layout_figures, records_of, result_of
from solver.generate import bbbv
from tests.boards import classic_from, play


def layout(rows: list[str]) -> tuple[int, int, frozenset[int]]:
    width = len(rows[0])
    return width, len(rows), frozenset(i for i, symbol in enumerate("".join(rows)) if symbol == "*")


def test_bbbv_counts_each_opening_once_and_each_number_no_opening_reaches():
    assert bbbv(*layout(["*..", "...", "..."])) == 1  # one opening reaches every number
    assert bbbv(*layout(["*.*", "...", "*.*"])) == 5  # no zero at all: every safe cell is a click
    assert bbbv(*layout(["....", "....", "....", "...."])) == 1
    assert bbbv(*layout([".*..", "**..", "....", "...."])) == 2  # the opening, and the corner cell it cannot reach


def test_a_won_classic_game_has_its_3bv_its_rate_and_its_clicks():
    game = classic_from(["o.", ".*"])
    after = play(game, "flag", 1, 1)
    after = play(after, "reveal", 1, 0)
    won, _ = apply_move(after, Move("reveal", 0, 1), rng=random.Random(0), now=50.0)
    assert won.status == "won"
    value, rate, clicks = fixed_layout_figures(won)
    # No zero on the board: each of the three safe cells is a click of its own.
    assert value == 3 and clicks == 3
    assert rate == 3 / 50.0


def result(won: bool, seconds: float, at: float, mode: str = "classic", size=(9, 9, 10)) -> str:
    width, height, mines = size
    return json.dumps({
        "mode": mode, "width": width, "height": height, "mines": mines, "won": won, "seconds": seconds,
        "finished_at": at, "deaths": 0, "hints": 0, "bbbv": 20 if won else None, "clicks": 30 if won else None,
    })


def test_records_add_up_games_wins_streaks_and_the_best_times_per_mode_and_size():
    stored = [result(True, 30.0, 1), result(True, 20.0, 2), result(False, 5.0, 3), result(True, 40.0, 4),
              result(True, 10.0, 5, mode="cruel"), result(False, 9.0, 6, size=(30, 16, 99))]
    records = records_of(list(reversed(stored)))  # the store's order does not matter: the end times do
    classic, cruel, expert = records.records
    assert (classic.mode, classic.size) == ("classic", "Beginner (9×9, 10 mines)")
    assert (classic.games, classic.wins, classic.streak, classic.best_streak) == (4, 3, 1, 2)
    assert classic.win_rate == 0.75 and [best.seconds for best in classic.best] == [20.0, 30.0, 40.0]
    assert classic.best[0].bbbv_per_second == 1.0
    assert (cruel.mode, cruel.games, cruel.wins) == ("cruel", 1, 1)
    assert (expert.size, expert.games, expert.wins, expert.streak) == ("Expert (30×16, 99 mines)", 1, 0, 0)


def test_only_the_ten_best_times_are_kept():
    records = records_of([result(True, float(seconds), seconds) for seconds in range(30, 0, -1)])
    assert [best.seconds for best in records.records[0].best] == [float(s) for s in range(1, BEST_TIMES + 1)]


def test_a_stored_result_that_does_not_read_is_left_out_and_counted():
    records = records_of([result(True, 30.0, 1), "not JSON", json.dumps({"won": "yes"}), result(False, 1.0, 2).replace('"seconds": 1.0', '"seconds": -1')])
    assert records.unreadable == 3 and records.records[0].games == 1


def test_a_result_is_what_the_game_ended_with():
    game = classic_from(["o*", "o."])
    lost = play(game, "reveal", 1, 0)
    kept = result_of(lost)
    assert kept["won"] is False and kept["mode"] == "classic" and kept["bbbv"] is None and kept["clicks"] is None


def test_no_guess_boards_are_kept_apart_from_dealt_ones_by_the_board_as_dealt():
    """Issue 22 #13: a no-guess board's record is its own, read from the board's id (the setting may have
    changed since the deal); results kept before kinds read as the mode's usual boards."""
    game = classic_from(["o.", ".*"])
    game.state["board_id"] = "2x2-1-on-1.1-0123456789abcdef"
    won = play(play(game, "reveal", 1, 0), "reveal", 0, 1)
    assert won.status == "won" and result_of(won)["kind"] == "no guessing"
    game.state["board_id"] = "2x2-1-o-1.1-0123456789abcdef"
    game.options.no_guess = True  # ticked after the deal: the board is still a dealt one
    assert result_of(play(play(game, "reveal", 1, 0), "reveal", 0, 1))["kind"] == ""
    no_guess = json.loads(result(True, 12.0, 3))
    no_guess["kind"] = "no guessing"
    records = records_of([result(True, 30.0, 1), result(True, 20.0, 2), json.dumps(no_guess)])
    dealt, solvable = records.records
    assert (dealt.kind, dealt.games, solvable.kind, solvable.games) == ("", 2, "no guessing", 1)
    assert solvable.size == "Beginner (9×9, 10 mines), no guessing" and dealt.size == "Beginner (9×9, 10 mines)"
