"""Classic Minesweeper (DESIGN.md §1.2): one layout, dealt at the first click, and never told to the player
before the end. Each test reads as the rule it checks."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from app.core.game import Game, Refused
from app.modes import ClassicOptions, game_from_json, get_mode, hint, new_game
from app.web.schemas.games import game_out
from app.web.views.game import Look
from solver import Analyzer
from tests.boards import classic_from, play
from tests.stats import assert_follows

CLASSIC = get_mode("classic")


def fresh(seed: int, width: int = 9, height: int = 9, mines: int = 10, **options) -> Game:
    return new_game(width, height, mines, "classic", ClassicOptions(**options), rng=random.Random(seed))


def test_the_first_click_opens_an_area():
    for seed in range(30):
        game = play(fresh(seed), "reveal", 4, 4)
        assert game.status == "playing" and game.cells[game.index(4, 4)] == "0"
        assert all(game.cells[n] != "." for n in game.neighbours(game.index(4, 4)))


def test_first_click_safe_only_spares_the_cell_alone():
    opened_more = 0
    for seed in range(30):
        game = play(fresh(seed, first_click_safe_only=True), "reveal", 4, 4)
        assert game.status == "playing" and game.index(4, 4) not in game.hidden["mines"]
        opened_more += game.cells[game.index(4, 4)] != "0"
    assert opened_more > 0  # some deals put a mine beside the first click, as old Windows did


@pytest.mark.parametrize("safe_only", [False, True], ids=["opening", "safe cell only"])
def test_the_layout_is_uniform_given_the_first_click(safe_only):
    # 4x3 with 2 mines, first click in a corner: the spared cells are the corner (and its 3 neighbours).
    spared = {0} if safe_only else {0, 1, 4, 5}
    layouts = Counter(tuple(pair) for pair in combinations([i for i in range(12) if i not in spared], 2))
    seen: Counter = Counter()
    for seed in range(3000):
        game = play(fresh(seed, 4, 3, 2, first_click_safe_only=safe_only), "reveal", 0, 0)
        seen[tuple(game.hidden["mines"])] += 1
    assert_follows(seen, layouts)


def test_the_same_first_click_deals_the_same_board_after_undo():
    game = fresh(7)
    first = play(game, "reveal", 2, 3)
    again = play(play(first, "undo"), "reveal", 2, 3)
    assert again.hidden["mines"] == first.hidden["mines"] and again.cells == first.cells
    # Another first click deals a board that spares it.
    other = play(play(first, "undo"), "reveal", 8, 8)
    assert other.status == "playing" and other.index(8, 8) not in other.hidden["mines"]


def test_a_mine_loses_shows_every_mine_and_crosses_out_wrong_flags():
    game = classic_from(["o.*", "oF.", "oM*"])
    lost = play(game, "reveal", 2, 0)
    assert lost.status == "lost" and lost.exploded == lost.index(2, 0)
    assert lost.shown_mines == game.hidden["mines"]
    look = Look(lost, None)
    assert look.cell(lost.index(2, 0))[0] == "c x"  # the mine clicked
    assert look.cell(lost.index(2, 2))[0] == "c m"  # another mine, shown
    assert look.cell(lost.index(1, 2))[0] == "c f"  # a right flag stays
    assert look.cell(lost.index(1, 1))[:2] == ("c f w", "wrong flag")


def test_undo_after_a_loss_counts_a_death_and_keeps_the_layout():
    game = classic_from(["o.*", "o..", "o.*"])
    lost = play(game, "reveal", 2, 0)
    back = play(lost, "undo")
    assert back.status == "playing" and back.deaths == 1 and back.hidden == game.hidden
    assert play(back, "reveal", 2, 0).status == "lost"  # the layout is fixed: the same cell is still a mine
    assert "1 death" in CLASSIC.result_text(play(back, "reveal", 2, 0), "0:10")


def test_a_chord_over_a_wrong_flag_loses():
    # The 1 at (1, 1) has its one flag, on the wrong cell: the chord opens the mine at (2, 2).
    game = classic_from(["ooF", "oo.", "..*"])
    assert game.cells[game.index(1, 1)] == "1"
    assert play(game, "chord", 1, 1).status == "lost"


def test_clearing_every_safe_cell_wins_and_flags_every_mine():
    game = classic_from(["oo.", "ooo", "*oo"])
    won = play(game, "reveal", 2, 0)
    assert won.status == "won" and won.marks == {won.index(0, 2): "F"} and won.flags() == won.mines


def test_hints_and_the_overlay_come_from_what_the_player_sees_never_from_the_layout():
    # The 1 in the corner has two covered neighbours; the layouts behind it differ, the position not.
    first = classic_from(["o*", ".."])
    second = classic_from(["o.", "*."])
    assert first.cells == second.cells and first.hidden["mines"] != second.hidden["mines"]
    # Nothing is provable here (either neighbour of the 1 may be the mine): "I don't know", for both.
    for game in (first, second):
        advice = hint(game, Analyzer(game.position()))
        assert advice.kind == "guess" and str(advice.message).startswith("I don't know")
    assert Analyzer(first.position()).classify() == Analyzer(second.position()).classify()
    public = [game_out("id", game, 0.0) for game in (first, second)]
    assert public[0] == public[1]
    # A proven-safe cell is named with its proof, from the numbers alone.
    game = classic_from(["oo.", "o*."])
    advice = hint(game, Analyzer(game.position()))
    assert advice.kind == "safe" and advice.cell in {(2, 0), (2, 1)} and advice.proof


def test_no_hints_after_the_end():
    lost = play(classic_from(["o.*", "o..", "o.*"]), "reveal", 2, 0)
    with pytest.raises(Refused):
        hint(lost, Analyzer(lost.position()))


def test_a_classic_game_survives_json_and_a_damaged_layout_is_refused():
    game = play(fresh(3), "reveal", 4, 4)
    back = game_from_json(game.to_json(), [])
    assert back.hidden == game.hidden and back.cells == game.cells
    for damage in (
        game.hidden["mines"][:-1],
        [*game.hidden["mines"][:-1], game.hidden["mines"][0]],
        [81, *game.hidden["mines"][1:]],
    ):
        data = game.to_json()
        data["hidden"] = {**data["hidden"], "mines": damage}
        with pytest.raises(ValueError):
            game_from_json(data, [])


# ----- board ids -------------------------------------------------------------------------------

KEY = b"the server's key"


def first_click(game: Game, x: int, y: int) -> Game:
    return play(game, "reveal", x, y)


def test_a_board_id_deals_the_same_layout_for_anyone_and_marks_its_first_click():

    original = first_click(new_game(30, 16, 99, "classic", ClassicOptions(), rng=random.Random(4), secret=KEY), 5, 7)
    board_id = CLASSIC.public_state(original)["board_id"]
    assert board_id == f"30x16-99-o-6.8-{original.state['board_seed']}"
    shared = CLASSIC.from_board(board_id, ClassicOptions(), KEY)
    assert shared.hidden["mines"] is None and shared.state["start"] == shared.index(5, 7)
    assert str(CLASSIC.first_click_hint(shared)) == "Start at column 6, row 8: this board's first click"
    assert first_click(shared, 5, 7).hidden["mines"] == original.hidden["mines"]
    # The id's settings deal it, not the game's; a first click anywhere but the marked cell is refused, saying
    # where the board opens (elsewhere it could be a mine: the layout is the id's).
    shared.options.no_guess = True
    assert first_click(shared, 5, 7).hidden["mines"] == original.hidden["mines"]
    x, y = next(
        original.cell(i) for i, s in enumerate(original.cells) if s == "." and i not in original.hidden["mines"]
    )
    with pytest.raises(Refused, match="opens at its outlined cell, column 6, row 8"):
        first_click(shared, x, y)
    assert shared.started_at is None and shared.hidden["mines"] is None


def test_a_board_id_tells_nothing_of_its_layout_without_the_servers_key():
    from app.modes.classic import BoardId

    original = first_click(new_game(16, 16, 40, "classic", ClassicOptions(), rng=random.Random(5), secret=KEY), 8, 8)
    board = BoardId.parse(CLASSIC.public_state(original)["board_id"])
    elsewhere = CLASSIC.from_board(str(board), ClassicOptions(), b"another server's key")
    assert first_click(elsewhere, 8, 8).hidden["mines"] != original.hidden["mines"]


def test_no_guess_and_safe_only_boards_keep_their_kind_in_the_id(deal_seed):
    from app.modes.classic import BoardId

    options = ClassicOptions(no_guess=True, first_click_safe_only=True)
    original = first_click(new_game(9, 9, 10, "classic", options, rng=random.Random(deal_seed), secret=KEY), 2, 3)
    board = BoardId.parse(CLASSIC.public_state(original)["board_id"])
    assert board.safe_only and board.no_guess and board.first == (2, 3)
    again = first_click(CLASSIC.from_board(str(board), ClassicOptions(), KEY), 2, 3)
    assert again.options.no_guess and again.hidden["mines"] == original.hidden["mines"]


@pytest.mark.parametrize(
    "text, words",
    [
        ("hello", "is not a board id"),
        ("9x9-10-o-10.1-0123456789abcdef", "off the 9x9 board"),
        ("9x9-81-o-1.1-0123456789abcdef", "between 1 and 80"),
        ("200x9-10-o-1.1-0123456789abcdef", "between 2 and 100"),
        ("9x9-10-x-1.1-0123456789abcdef", "is not a board id"),
    ],
)
def test_a_malformed_board_id_is_refused_with_what_is_wrong(text, words):
    from app.modes.classic import BoardId

    with pytest.raises(Refused, match=words):
        BoardId.parse(text)
