"""Ask for help and the assists (DESIGN.md §1.2), on hand-made boards: each test reads as the rule.

Boards are drawn as in tests/boards.py: '*' a mine, 'o' a revealed safe cell, '.' a covered safe
cell, 'M' a flagged mine, 'F' a flagged safe cell. Every position a test builds on is checked first."""

from __future__ import annotations

import random

import pytest

from app.core.game import Move, Refused
from app.modes import ClassicOptions, apply_move, get_mode, new_game
from app.web.schemas.games import game_out
from solver import Analyzer, Status
from solver.local import deduce
from tests.boards import classic_from, play

# Two covered cells, one mine: no cell can be proven safe, count included.
FIFTY_FIFTY = ["oo", "*."]
# The 0 at the top right proves the cells under it safe.
SAFE_ABOUT = ["ooo", "*..", "..."]


def proven_safe(game) -> list[tuple[int, int]]:
    return sorted(Analyzer(game.position()).safe_cells())


def test_help_is_granted_when_no_cell_can_be_proven_safe():
    game = classic_from(FIFTY_FIFTY, mode="help")
    assert proven_safe(game) == []
    helped = play(game, "help")
    assert helped.status == "playing"
    assert helped.state["help_granted"] == 1 and helped.state["help_pending"] and helped.state["help_used"] == 0


def test_granted_help_turns_a_mine_opened_next_into_a_flag_and_the_game_goes_on():
    helped = play(classic_from(FIFTY_FIFTY, mode="help"), "help")
    after = play(helped, "reveal", 0, 1)
    assert after.status == "playing" and after.exploded is None
    assert after.board_rows() == ["11", "*."] and game_out("g", after, 0)["board"] == ["11", "*."]
    assert after.state["help_used"] == 1 and not after.state["help_pending"]
    # The player now knows the mine: the last cell is proven safe, and opening it wins.
    assert proven_safe(after) == [(1, 1)]
    won = play(after, "reveal", 1, 1)
    assert won.status == "won"


def test_granted_help_spent_on_a_safe_cell_opens_it_as_usual():
    helped = play(classic_from(FIFTY_FIFTY, mode="help"), "help")
    after = play(helped, "reveal", 1, 1)
    assert after.status == "won" and after.state["help_used"] == 1


def test_help_asked_while_a_cell_can_be_proven_safe_loses_at_once_and_shows_the_missed_cells():
    game = classic_from(SAFE_ABOUT, mode="help")
    safe = proven_safe(game)
    assert (1, 1) in safe and (2, 1) in safe
    lost = play(game, "help")
    assert lost.status == "lost" and lost.exploded is None
    assert [lost.cell(index) for index in lost.state["missed"]] == sorted(safe, key=lambda c: (c[1], c[0]))
    assert lost.shown_mines == game.hidden["mines"]
    # Undo takes the loss back as a death, as after any loss.
    back = play(lost, "undo")
    assert back.status == "playing" and back.deaths == 1 and back.state["missed"] == []


def test_help_before_the_first_click_is_granted_and_spent_by_it():
    game = classic_from(["....", "....", "...*"], mode="help")
    game.started_at = None
    helped = play(game, "help")
    assert helped.state["help_granted"] == 1
    started = play(helped, "reveal", 0, 0)
    assert started.status in ("playing", "won") and started.state["help_used"] == 1


def test_help_is_spent_by_a_chord_that_opens_a_mine():
    # The flag sits on the safe cell of the 50/50; the 1 at the top left then chords onto the mine.
    game = classic_from(["oo", "*F"], mode="help")
    helped = play(game, "help")
    after = play(helped, "chord", 0, 0)
    assert after.status == "playing" and after.cells[after.index(0, 1)] == "*" and after.state["help_used"] == 1


def test_help_twice_without_opening_a_cell_is_refused():
    helped = play(classic_from(FIFTY_FIFTY, mode="help"), "help")
    with pytest.raises(Refused, match="already granted"):
        play(helped, "help")


def test_the_help_action_is_refused_in_other_modes():
    with pytest.raises(Refused, match="unknown action 'help'"):
        play(classic_from(FIFTY_FIFTY), "help")


def test_the_result_says_how_often_help_was_used():
    helped = play(classic_from(FIFTY_FIFTY, mode="help"), "help")
    won = play(play(helped, "reveal", 0, 1), "reveal", 1, 1)
    assert get_mode("help").result_text(won, "0:01") == "You won in 0:01 with help 1 time."


# ----- assists -------------------------------------------------------------------------------

# The 0 at the right opens the corner; then the 1 beside it has one cell left (a mine), the next 1
# is satisfied by it, and the 2 needs the last cell: each step follows from the one before.
CHAIN = ["oooo.", "*.*.."]


def test_without_an_assist_the_click_opens_only_its_flood():
    after = play(classic_from(CHAIN), "reveal", 4, 0)
    assert after.status == "playing" and after.cells[after.index(1, 1)] == "." and not after.marks


def test_the_local_assist_runs_the_two_rules_to_a_fixpoint_as_a_ripple_from_the_action():
    game = classic_from(CHAIN, assist_local=True)
    after, outcome = apply_move(game, Move("reveal", 4, 0), rng=random.Random(0), now=1.0)
    assert after.status == "won"
    index = after.index
    assert outcome.ripple[index(2, 1)] == 0 and outcome.ripple[index(1, 1)] == 1 and outcome.ripple[index(0, 1)] == 2


def test_the_local_assist_stops_where_the_local_rules_do():
    # Only the mine count proves the cells left: two numbers at once, beyond the local rules.
    rows = [".o..", ".*oo", "*o.*"]
    game = classic_from(rows, assist_local=True)
    after = play(game, "reveal", 0, 0)
    assert not deduce(after.width, after.height, after.cells, [i for i, m in after.marks.items() if m == "F"])
    assert proven_safe(after), "the exact solver still finds safe cells here"
    assert after.status == "playing"


def test_the_everything_assist_opens_every_proven_safe_cell_and_flags_every_proven_mine():
    rows = [".o..", ".*oo", "*o.*"]
    after = play(classic_from(rows, assist_all=True), "reveal", 0, 0)
    assert after.status == "won"


def test_the_everything_assist_leaves_only_genuine_guesses(deal_seed):
    for board in range(5):
        game = new_game(
            16, 16, 40, "classic", ClassicOptions(assist_all=True), rng=random.Random(deal_seed * 100 + board)
        )
        after = play(game, "reveal", 8, 8)
        assert after.status in ("playing", "won")
        if after.status == "playing":
            statuses = Analyzer(after.position()).classify()
            assert Status.SAFE not in statuses.values()
            assert all(
                after.marks.get(after.index(*cell)) == "F" for cell, status in statuses.items() if status is Status.MINE
            )


def test_an_assist_opening_a_cell_spends_granted_help_and_goes_on_from_the_mine_it_found():
    helped = play(classic_from(FIFTY_FIFTY, mode="help", assist_local=True), "help")
    after = play(helped, "reveal", 0, 1)
    # Help showed the mine; the local rules then open the last cell and the game is won.
    assert after.status == "won" and after.state["help_used"] == 1


def test_one_undo_takes_back_the_action_and_everything_the_assist_did(deal_seed):
    game = new_game(16, 16, 40, "classic", ClassicOptions(assist_local=True), rng=random.Random(deal_seed))
    first = play(game, "reveal", 8, 8)
    if first.status != "playing":
        return  # the assist cleared the board: nothing to undo (a win is not undone)
    # A cell still covered and not flagged, read from the answer: a mine or a safe cell, either way an action.
    cell = next(first.cell(i) for i, symbol in enumerate(first.cells) if symbol == "." and i not in first.marks)
    after = play(first, "reveal", *cell)
    back = play(after, "undo") if after.status != "won" else first
    assert back.cells == first.cells and back.marks == first.marks
