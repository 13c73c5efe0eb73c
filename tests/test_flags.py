"""Minesweeper Flags rules (app/modes/flags.py) on hand-made layouts: points, turns, the end, the bomb."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations

import pytest

from app.core import stored
from app.core.game import Invalid, Move, Refused
from app.core.seats import Computer
from app.modes import MODES as REGISTRY
from app.modes.flags import BOMB_SIDE, Flags, FlagsOptions

FLAGS = Flags()
MODES = {"flags": FLAGS}


def layout(*rows: str) -> tuple[int, int, set[int]]:
    """A board drawn as rows, '*' a mine: (width, height, mines)."""
    width = len(rows[0])
    return (
        width,
        len(rows),
        {y * width + x for y, row in enumerate(rows) for x, symbol in enumerate(row) if symbol == "*"},
    )


def game_of(*rows: str, **options: bool):
    width, height, mines = layout(*rows)
    return FLAGS.from_layout(width, height, mines, FlagsOptions(**options))


def move(game, action: str, x: int, y: int, seat: int | None = None):
    return FLAGS.apply(game, Move(action, x, y, seat=seat), rng=random.Random(0), now=100.0)


def test_a_mine_scores_for_the_mover_who_moves_again() -> None:
    game = game_of(
        "*..",
        "...",
        "..*",
    )
    after, outcome = move(game, "reveal", 0, 0, seat=0)
    assert after.cells[0] == "*"
    assert after.state["scores"] == [1, 0] and after.state["found"] == [[0], []]
    assert after.state["turn"] == 0, "a mine is another move"
    assert "moves again" in str(outcome.message)
    assert game.state["scores"] == [0, 0], "the game moved on is a copy"


def test_a_number_ends_the_turn() -> None:
    game = game_of(
        "*..",
        "...",
        "..*",
    )
    after, _ = move(game, "reveal", 1, 1)
    assert after.cells[4] == "2"
    assert after.state["turn"] == 1 and after.state["scores"] == [0, 0]
    assert after.state["last"] == [4] and after.state["last_seat"] == 0


def test_a_zero_floods_and_ends_the_turn() -> None:
    game = game_of(
        "....",
        "....",
        "...*",
    )
    after, outcome = move(game, "reveal", 0, 0)
    assert after.board_rows() == ["0000", "0011", "001."]
    assert after.state["turn"] == 1
    assert sorted(outcome.changed) == after.state["last"] and len(after.state["last"]) == 11


def test_the_game_ends_once_a_player_cannot_be_caught() -> None:
    # Three mines: the second found by one player is more than half.
    game = game_of(
        "*.*",
        "...",
        "*..",
    )
    game, _ = move(game, "reveal", 0, 0)
    assert game.status == "playing"
    game, outcome = move(game, "reveal", 2, 0)
    assert game.status == "won" and game.state["winner"] == 0
    assert game.shown_mines == [0, 2, 6], "the end shows every mine"
    assert str(outcome.message) == "Blue wins, 2–0."
    with pytest.raises(Refused, match="over"):
        move(game, "reveal", 1, 1)


def test_under_the_komal_rule_the_game_goes_on_until_every_mine_is_found() -> None:
    game = game_of(
        "*.*",
        "...",
        "*..",
        uncover_all=True,
    )
    game, _ = move(game, "reveal", 0, 0)
    game, _ = move(game, "reveal", 2, 0)
    assert game.status == "playing" and game.state["scores"] == [2, 0]
    game, _ = move(game, "reveal", 1, 1)  # a number: Red's turn
    game, _ = move(game, "reveal", 0, 2, seat=1)
    assert game.status == "won" and game.state["scores"] == [2, 1] and game.state["winner"] == 0


def test_an_even_count_split_evenly_is_a_draw() -> None:
    game = game_of(
        "*..*",
        "....",
    )
    game, _ = move(game, "reveal", 0, 0)  # Blue 1
    game, _ = move(game, "reveal", 1, 0)  # a 1: Red's turn
    game, outcome = move(game, "reveal", 3, 0, seat=1)  # Red 1, and every mine is found
    assert game.status == "won" and game.state["winner"] is None
    assert str(outcome.message) == "A draw, 1–1."


def test_a_move_out_of_turn_is_refused_and_changes_nothing() -> None:
    game = game_of(
        "*..",
        "...",
        "..*",
    )
    with pytest.raises(Refused, match="Blue's turn"):
        move(game, "reveal", 1, 1, seat=1)
    game, _ = move(game, "reveal", 1, 1, seat=0)
    with pytest.raises(Refused, match="Red's turn"):
        move(game, "reveal", 0, 0, seat=0)
    assert game.state["turn"] == 1 and game.version == 1


@pytest.mark.parametrize("action", ["flag", "chord", "undo", "help"])
def test_only_reveals_and_the_bomb_are_moves(action: str) -> None:
    with pytest.raises(Invalid, match="expected one of reveal, bomb"):
        move(game_of("*..", "..."), action, 1, 0)


def test_a_revealed_cell_cannot_be_revealed_again() -> None:
    game, _ = move(game_of("*..", "..."), "reveal", 2, 1)
    with pytest.raises(Refused, match="already revealed"):
        move(game, "reveal", 2, 1)


BOMB_BOARD = (
    "*.......",
    "........",
    "..*.....",
    "........",
    "....*..*",
    ".......*",
    "........",
    "**...***",
)


def red_ahead():
    """Blue found nothing and Red one mine: Red is ahead, Blue to move."""
    game = game_of(*BOMB_BOARD)
    game, _ = move(game, "reveal", 1, 1)  # a 2: Red's turn
    game, _ = move(game, "reveal", 7, 5, seat=1)  # Red scores
    game, _ = move(game, "reveal", 5, 0, seat=1)  # a 0 floods: Blue's turn
    assert game.state["scores"] == [0, 1] and game.state["turn"] == 0
    return game


def test_the_bomb_uncovers_a_5x5_square_scores_for_the_bomber_and_ends_the_turn() -> None:
    game = red_ahead()
    bombed, outcome = move(game, "bomb", 2, 2, seat=0)
    square = {y * 8 + x for y in range(5) for x in range(5)}
    assert all(bombed.cells[index] != "." for index in square)
    assert bombed.state["scores"] == [3, 1], "the mines at (0,0), (2,2) and (4,4)"
    assert sorted(bombed.state["found"][0]) == [0, 18, 36]
    assert bombed.state["bombs"] == [True, False]
    assert bombed.state["turn"] == 1, "the bomb ends the turn, mines or not"
    assert str(outcome.message) == "Blue dropped the bomb: 3 mines."


def test_the_bomb_is_moved_inside_the_board_at_an_edge() -> None:
    game = red_ahead()
    bombed, _ = move(game, "bomb", 0, 0, seat=0)  # centred on the corner: the square starts there
    square = {y * 8 + x for y in range(BOMB_SIDE) for x in range(BOMB_SIDE)}
    assert all(bombed.cells[index] != "." for index in square)
    assert Flags.bomb_corner(8, 7) == 3 and Flags.bomb_corner(6, 5) == 1 and Flags.bomb_corner(3, 1) == 0


def test_the_bomb_is_for_the_player_behind_once_and_only_when_turned_on() -> None:
    game = game_of(*BOMB_BOARD)
    with pytest.raises(Refused, match="behind: Blue has 0, Red 0"):
        move(game, "bomb", 2, 2)
    game = red_ahead()
    with pytest.raises(Refused, match="turned off"):
        move(FLAGS.from_layout(8, 6, set(game.hidden["layout"]), FlagsOptions(bomb=False)), "bomb", 2, 2)
    # Moved back to columns 4-8, rows 2-6: the mines at (5,5) and (8,5); (8,6) was Red's already.
    bombed, _ = move(game, "bomb", 6, 3, seat=0)
    assert bombed.state["scores"] == [2, 1]
    # Red (behind now) bombs; then Blue, behind again, may not bomb twice.
    bombed, _ = move(bombed, "bomb", 2, 2, seat=1)
    assert bombed.state["scores"] == [2, 3] and bombed.state["turn"] == 0
    with pytest.raises(Refused, match="once a game"):
        move(bombed, "bomb", 2, 2, seat=0)


def test_a_bomb_with_nothing_covered_in_its_square_is_refused() -> None:
    game = game_of(
        "*.....",
        "......",
        "......",
        "......",
        "......",
        ".....*",
    )
    game, _ = move(game, "reveal", 5, 5)  # Blue scores
    game, _ = move(game, "reveal", 2, 2)  # a zero floods all but (0,0): Red's turn, Red behind
    with pytest.raises(Refused, match="nothing is covered"):
        move(game, "bomb", 5, 5, seat=1)


def test_a_game_is_stored_and_read_back_whole_and_a_damaged_state_is_refused() -> None:
    game, _ = move(game_of("*..", "...", "..*"), "reveal", 0, 0)
    back = stored.read_state(stored.dump(game, MODES), MODES)
    assert back.state == game.state and back.hidden == game.hidden and back.options == game.options
    data = game.to_json()
    data["state"] = {**data["state"], "scores": [1, 0, 0]}
    with pytest.raises(ValueError, match="state.scores"):
        stored.read_state(data, MODES)
    data = game.to_json()
    data["options"] = {**data["options"], "undo": True}
    with pytest.raises(ValueError, match="not a setting of flags games"):
        stored.read_state(data, MODES)


def test_a_stored_game_without_its_layout_is_damaged_not_played() -> None:
    """A Flags (or classic) game keeps its layout from the start: one stored without it is damaged, where it
    used to load and fail at its first move."""
    game = FLAGS.new_game(8, 8, 10, rng=random.Random(1))
    FLAGS.seat(game, "alice")
    data = json.loads(stored.dump(game, MODES))
    data["hidden"] = None
    with pytest.raises(ValueError, match="hidden: a flags game keeps a secret"):
        stored.read_state(data, MODES)
    classic = REGISTRY["classic"].new_game(9, 9, 10, rng=random.Random(1))
    data = {**classic.to_json(), "hidden": None}
    with pytest.raises(ValueError, match="hidden: a classic game keeps a secret"):
        stored.read_state(data, REGISTRY)


def test_what_the_seats_see_holds_no_layout() -> None:
    game = FLAGS.new_game(8, 8, 10, rng=random.Random(1))
    assert set(FLAGS.public_state(game)) == {
        "turn",
        "scores",
        "found",
        "bombs",
        "last",
        "last_seat",
        "winner",
    }
    assert "layout" not in str(FLAGS.public_state(game)) and game.shown_mines is None


def test_the_layout_is_dealt_uniformly_at_creation() -> None:
    # Every layout of 2 mines on a 2x2 board, about equally often over seeded deals.
    dealt = Counter(tuple(FLAGS.new_game(2, 2, 2, rng=random.Random(seed)).hidden["layout"]) for seed in range(6000))
    assert set(dealt) == set(combinations(range(4), 2))
    assert all(850 <= count <= 1150 for count in dealt.values()), dealt


def test_hints_and_undo_are_off() -> None:
    game = game_of("*..", "...")
    with pytest.raises(Refused, match="no hints"):
        FLAGS.hint(game, None)
    assert (
        not game.options.undo
        and not game.options.probabilities
        and FlagsOptions.names() == ("bomb", "uncover_all", "probabilities")
    )


def test_the_hard_computer_drops_its_bomb_when_behind_and_a_square_is_worth_it() -> None:
    from solver import Limits

    width, height = 8, 8
    safe = {(4, 4), (3, 3), (4, 3), (5, 3), (3, 4), (7, 7), (6, 7)}
    mines = {y * width + x for y in range(height) for x in range(width) if (x, y) not in safe}  # 57: a dense board
    game = FLAGS.from_layout(width, height, mines)
    FLAGS.seat(game, "alice", "computer", "hard")
    game, _ = move(game, "reveal", 0, 0)
    game, _ = move(game, "reveal", 1, 0)
    game, _ = move(
        game, "reveal", 4, 4
    )  # a 4 among 8 covered cells, which proves none: the computer's turn, 0-2 behind
    assert game.state["turn"] == 1 and game.state["scores"] == [2, 0] and FLAGS.computer_to_move(game)
    bomb = FLAGS.computer_move(game, random.Random(0), Limits())
    assert bomb.action == "bomb" and bomb.seat == 1
    bombed, _ = FLAGS.apply(game, bomb, rng=random.Random(0), now=1.0)
    assert bombed.state["bombs"] == [False, True] and bombed.state["scores"][1] >= 3
    # Level with Blue, or at another level, it reveals.
    level = game.copy()
    level.state["scores"] = [2, 2]
    assert FLAGS.computer_move(level, random.Random(0), Limits()).action == "reveal"
    game.seats[1] = Computer("normal")
    assert FLAGS.computer_move(game, random.Random(0), Limits()).action == "reveal"
