"""The cruel-but-fair rules of DESIGN.md §1.1, on hand-made positions."""

from __future__ import annotations

import random
import time
from collections import Counter
from itertools import combinations

import pytest

from app.core.game import Game, Invalid, Move, Refused, board_size, set_options
from app.modes import CruelOptions, apply_move, game_from_json, get_mode, hint, new_game
from solver import Analyzer, Limits, OutOfWork, Status
from solver.strategy import progress_cell
from tests.stats import assert_follows


def game_from(rows: list[str], mines: int, **options) -> Game:
    """'.' covered, 'F' flagged, '0'-'8' revealed."""
    width, height = len(rows[0]), len(rows)
    game = new_game(width, height, mines, options=CruelOptions(**options), rng=random.Random(0))
    for y, row in enumerate(rows):
        for x, symbol in enumerate(row):
            index = y * width + x
            if symbol == "F":
                game.marks[index] = "F"
            elif symbol != ".":
                game.cells[index] = symbol
    if any(symbol not in ".F" for row in rows for symbol in row):
        game.started_at = 0.0
    return game


def dealt_with(game: Game, seed: int) -> Game:
    """The game as if dealt with `seed`: its deals (all derived from its secret seed) follow it."""
    game = game.copy()
    game.hidden = {"deal_seed": f"{random.Random(seed).getrandbits(128):032x}"}
    return game


def play(game: Game, action: str, x: int | None = None, y: int | None = None, seed: int = 1, **extra):
    """A move; `seed` picks the deal."""
    return apply_move(dealt_with(game, seed), Move(action, x, y, **extra), rng=random.Random(seed), now=100.0)


def test_the_first_click_is_always_safe():
    for seed in range(40):
        game, _ = play(new_game(5, 5, 24, rng=random.Random(0)), "reveal", seed % 5, seed // 5 % 5, seed=seed)
        assert game.status == "won"  # 24 mines on 25 cells: the one safe cell is the click
        game, _ = play(new_game(9, 9, 40, rng=random.Random(0)), "reveal", 4, 4, seed=seed)
        assert game.status == "playing" and game.cells[4 * 9 + 4] != "."


def test_the_first_click_opens_an_area_unless_the_setting_asks_for_a_safe_cell_only():
    for seed in range(30):
        x, y = seed % 9, seed // 9 % 9
        opened, _ = play(game_from(["." * 9] * 9, 10), "reveal", x, y, seed=seed)
        index = opened.index(x, y)
        assert opened.cells[index] == "0"
        assert all(opened.cells[n] != "." for n in opened.neighbours(index))
    # Safe only: a dense board then shows numbers under the first click.
    numbers = set()
    for seed in range(30):
        safe, _ = play(game_from(["." * 9] * 9, 40, first_click_safe_only=True), "reveal", 4, 4, seed=seed)
        assert safe.status == "playing" and safe.cells[40] != "."
        numbers.add(safe.cells[40])
    assert numbers - {"0"}
    # Too many mines to leave an opening free: the first cell alone is safe.
    crowded, _ = play(game_from(["....."] * 5, 20), "reveal", 2, 2)
    assert crowded.cells[12] != "." and crowded.status == "playing"


def test_the_first_click_deals_uniformly_among_layouts_that_leave_its_area_empty():
    # 4x3 with 2 mines, first click in a corner: the opening is 4 cells, the mines are any 2 of the other 8.
    width, height, first = 4, 3, (0, 0)
    game = game_from(["." * width] * height, 2)
    opening = {0, 1, 4, 5}
    expected: Counter = Counter()
    for mines in combinations([i for i in range(12) if i not in opening], 2):
        board = game.board
        shown = board.flood(
            0, number_at=lambda i, board=board, mines=mines: board.mines_around(i, set(mines)), opens=lambda i: True
        )
        expected["".join(str(shown[i]) if i in shown else "." for i in range(12))] += 1
    samples = 3000
    seen: Counter = Counter()
    for seed in range(samples):
        after, _ = play(game, "reveal", *first, seed=seed)
        seen["".join(after.cells)] += 1
    assert_follows(seen, expected)


def test_a_provably_safe_frontier_cell_is_safe():
    # The lower 1s put the mine at (1, 1), so the top 1 leaves (1, 0) safe.
    game = game_from(["1....", "1....", "11..."], 3)
    after, outcome = play(game, "reveal", 1, 0)
    assert after.status == "playing" and after.cells[1] == "1"
    assert not outcome.forced_guess


# Both mines next to the 2: the count proves the right column safe.
SAFE_OUTSIDE = ["2..", "..."]
# One mine by the 1, so the other two fill the left column: nothing is safe.
NOTHING_SAFE = ["...", "..1"]
# A 1 in the corner of a board with two mines: everything unknown.
ALL_UNKNOWN = ["1..", "..."]
# Both 2s need both middle cells: the frontier is all mines.
FRONTIER_FULL = ["..2", "..2"]


def test_a_risky_frontier_cell_is_a_mine_while_a_safe_cell_exists():
    game = game_from(SAFE_OUTSIDE, 2)
    after, outcome = play(game, "reveal", 1, 0)
    assert after.status == "lost" and after.exploded == 1
    assert 1 in after.shown_mines and len(after.shown_mines) == 2
    # Announced once, by the result line.
    assert not outcome.message and "was a mine" in get_mode("cruel").result_text(after, "0:01")


def test_a_forced_guess_on_the_frontier_is_made_safe():
    game = game_from(NOTHING_SAFE, 3)
    for seed in range(10):
        after, outcome = play(game, "reveal", 1, 0, seed=seed)
        assert after.status == "playing" and outcome.forced_guess and after.state["forced_guesses"] == 1


def test_outside_cells_follow_the_strict_rule_unless_guessing_anywhere_is_allowed():
    strict, _ = play(game_from(ALL_UNKNOWN, 2), "reveal", 2, 1)
    assert strict.status == "lost"
    relaxed, outcome = play(game_from(ALL_UNKNOWN, 2, allow_outside=True), "reveal", 2, 1)
    assert relaxed.status == "playing" and outcome.forced_guess


def test_an_outside_cell_proven_safe_is_safe():
    after, outcome = play(game_from(SAFE_OUTSIDE, 2), "reveal", 2, 1)
    assert after.status == "playing" and not outcome.forced_guess


def test_when_every_frontier_cell_is_a_mine_the_outside_is_the_way_on():
    game = game_from(FRONTIER_FULL, 3)
    assert Analyzer(game.position()).every_frontier_cell_is_a_mine()
    after, outcome = play(game, "reveal", 0, 0)
    assert after.status != "lost" and outcome.forced_guess


def test_a_chord_over_a_wrong_flag_can_kill():
    # The flags may be wrong: the mines could be at (1, 0) and (1, 1).
    game = game_from(["2F.", "F.."], 2)
    after, _ = play(game, "chord", 0, 0)
    assert after.status == "lost" and after.exploded == 4


def test_a_chord_opens_the_neighbours_of_a_satisfied_number():
    game = game_from(["1....", "1....", "11..."], 3)
    flagged, _ = play(game, "flag", 1, 1)  # the proven mine
    after, _ = play(flagged, "chord", 1, 2)
    assert after.status == "playing"
    assert after.cells[2 * 5 + 2] != "." and after.cells[1 * 5 + 2] != "."
    assert len(after.history) == len(flagged.history) + 1  # one action for undo


def test_refused_chords_and_reveals_change_nothing():
    game = game_from(["1..", "...", "..."], 1)
    with pytest.raises(Refused, match="has 0 flags"):
        play(game, "chord", 0, 0)
    flagged, _ = play(game, "flag", 2, 2)
    with pytest.raises(Refused, match="flagged"):
        play(flagged, "reveal", 2, 2)
    with pytest.raises(Refused, match="already revealed"):
        play(game, "reveal", 0, 0)
    with pytest.raises(Invalid, match="off the 3x3 board"):
        play(game, "reveal", 3, 0)
    with pytest.raises(Invalid, match="unknown action"):
        play(game, "explode", 0, 0)
    assert game.cells[0] == "1" and game.version == 0


def test_undo_after_a_loss_restores_the_game_before_it():
    game = game_from(SAFE_OUTSIDE, 2)
    lost, _ = play(game, "reveal", 1, 0)
    back, _ = play(lost, "undo")
    assert back.status == "playing" and back.cells == game.cells and back.shown_mines is None and back.exploded is None
    with pytest.raises(Refused, match="nothing to undo"):
        play(back, "undo")
    off = set_options(lost, {"undo": False})
    with pytest.raises(Refused, match="turned off"):
        play(off, "undo")


def test_undo_then_the_same_click_deals_the_same():
    """Undo is no re-roll: the same position and click give the same answer, whatever randomness
    the server hands the move; only the game's own seed (different games) deals differently."""
    for seed in range(6):
        game = dealt_with(game_from(["........."] * 9, 10, undo=True), seed)
        rng = random.Random(seed)
        cell = (4, 4)
        for _ in range(4):
            first, _ = apply_move(game, Move("reveal", *cell), rng=rng, now=1.0)
            back, _ = apply_move(first, Move("undo"), rng=rng, now=2.0)
            assert back.cells == game.cells
            again, _ = apply_move(back, Move("reveal", *cell), rng=random.Random(rng.random()), now=3.0)
            assert (again.cells, again.status, again.shown_mines) == (first.cells, first.status, first.shown_mines)
            if first.status != "playing":
                break
            game = first
            # The next click: a cell this answer shows covered and the solver does not call a mine.
            cell = progress_cell(Analyzer(game.position()))
    # Games with different seeds deal the first click differently (20 seeds, more than one board).
    firsts = {"".join(play(game_from(["........."] * 9, 10), "reveal", 0, 0, seed=seed)[0].cells) for seed in range(20)}
    assert len(firsts) > 1


def test_an_undone_loss_counts_a_death_and_the_result_says_so():
    game = game_from(SAFE_OUTSIDE, 2, undo=True)
    lost, _ = play(game, "reveal", 1, 0)
    assert lost.status == "lost" and lost.deaths == 0
    back, outcome = play(lost, "undo")
    assert back.deaths == 1 and "death" in str(outcome.message)
    # Undoing other moves takes nothing back from the count; a second loss undone is the second death.
    lost_again, _ = play(back, "reveal", 1, 0)
    again, _ = play(lost_again, "undo")
    assert again.deaths == 2
    won, _ = play(again, "reveal", 2, 1)
    while won.status == "playing":
        won, _ = play(won, "reveal", *progress_cell(Analyzer(won.position())))
    assert won.status == "won" and won.deaths == 2
    assert "2 deaths" in get_mode("cruel").result_text(won, "0:05")
    assert game_from_json(won.to_json(), won.history).deaths == 2


def test_a_win_is_not_undone_and_undo_cannot_be_turned_on_after_the_end():
    game = game_from(SAFE_OUTSIDE, 2, undo=True)
    won, _ = play(game, "reveal", 2, 1)
    while won.status == "playing":
        won, _ = play(won, "reveal", *progress_cell(Analyzer(won.position())))
    with pytest.raises(Refused, match="win is not undone"):
        play(won, "undo")
    lost, _ = play(game_from(SAFE_OUTSIDE, 2, undo=False), "reveal", 1, 0)
    with pytest.raises(Refused, match="cannot be turned on after the end"):
        set_options(lost, {"undo": True})
    # Turned off after the end, or on while playing, is allowed.
    set_options(game, {"undo": False})
    set_options(game_from(SAFE_OUTSIDE, 2), {"undo": True})


def test_flags_cycle_and_can_be_set():
    game = new_game(3, 3, 1, rng=random.Random(0))
    marks = []
    for _ in range(3):
        game, _ = play(game, "flag", 0, 0)
        marks.append(game.marks.get(0, ""))
    assert marks == ["F", "?", ""]
    game, _ = play(game, "flag", 0, 0, mark="question")
    assert game.marks[0] == "?"
    # Without question marks the cycle is flag, nothing.
    plain = set_options(new_game(3, 3, 1, rng=random.Random(0)), {"question_marks": False})
    cycle = []
    for _ in range(2):
        plain, _ = play(plain, "flag", 0, 0)
        cycle.append(plain.marks.get(0, ""))
    assert cycle == ["F", ""]
    with pytest.raises(Refused, match="question marks are turned off"):
        play(plain, "flag", 0, 0, mark="question")


def test_a_win_flags_every_mine():
    game = game_from(["2..", "..."], 2)
    won, _ = play(game, "reveal", 2, 1)
    while won.status == "playing":
        won, _ = play(won, "reveal", *progress_cell(Analyzer(won.position())))
    assert won.status == "won"
    assert sorted(index for index, mark in won.marks.items() if mark == "F") == won.shown_mines
    assert won.mines - won.flags() == 0


def test_winning_shows_every_mine():
    game = new_game(4, 4, 3, rng=random.Random(0))
    rng = random.Random(5)
    while game.status == "playing":
        cell = progress_cell(Analyzer(game.position()))
        game, _ = apply_move(game, Move("reveal", *cell), rng=rng, now=1.0)
    assert game.status == "won"
    assert sum(row.count("*") for row in game.board_rows()) == 3


def test_reveals_follow_the_uniform_law():
    # After a corner 1 on a 3x3 board with 2 mines, guessing (2, 2) anywhere is
    # allowed; its number must follow the distribution over all layouts with
    # (2, 2) empty, each layout of the board equally likely.
    game = game_from(["1..", "...", "..."], 2, allow_outside=True)
    covered = [i for i in range(9) if game.cells[i] == "."]
    expected: Counter = Counter()
    for mines in combinations(covered, 2):
        if 8 in mines or sum(1 for m in mines if m in (1, 3, 4)) != 1:
            continue
        expected[str(sum(1 for m in mines if m in (4, 5, 7)))] += 1
    samples = 3000
    seen: Counter = Counter()
    for seed in range(samples):
        # One game's deal is fixed by its seed: the law is over games, one per seed.
        after, _ = play(game, "reveal", 2, 2, seed=seed)
        seen[after.cells[8]] += 1
    assert_follows(seen, expected)


def test_hints_say_what_the_player_could_know():
    game = game_from(["1....", "1....", "11..."], 3)
    advice = hint(game, Analyzer(game.position()))
    assert advice.kind == "safe" and str(advice.message) == "There are safe cells"
    assert advice.cell == (1, 0) and advice.proof == [(0, 0), (0, 2)] and not advice.uses_count
    counted = game_from(SAFE_OUTSIDE, 2)
    advice = hint(counted, Analyzer(counted.position()))
    assert advice.cell in {(2, 0), (2, 1)} and advice.proof == [(0, 0)] and advice.uses_count
    guess = game_from(NOTHING_SAFE, 3)
    # The hint says where a guess is allowed: under the strict rule, next to a number.
    assert (
        str(hint(guess, Analyzer(guess.position())).message)
        == "No safe cells: guess next to a number, or turn on Allow guessing anywhere"
    )
    anywhere = game_from(NOTHING_SAFE, 3, allow_outside=True)
    assert str(hint(anywhere, Analyzer(anywhere.position())).message) == "No safe cells: you may guess, anywhere"
    outside = game_from(FRONTIER_FULL, 3)
    assert str(hint(outside, Analyzer(outside.position())).message) == "Every frontier cell is a mine: play outside"
    flagged = game_from(["2.F", "..."], 2)
    advice = hint(flagged, Analyzer(flagged.position()))
    assert str(advice.message) == "You flagged a cell that could be empty" and advice.cell == (2, 0)


@pytest.mark.parametrize(
    "args, message",
    [
        ((1, 5, 2), "between 2 and 100"),
        ((101, 5, 2), "between 2 and 100"),
        ((5, 5, 25), "between 1 and 24"),
        ((5, 5, 0), "between 1 and 24"),
    ],
)
def test_board_sizes_are_validated(args, message):
    with pytest.raises(Invalid, match=message):
        board_size(*args)


def test_the_frontier_counts_covered_cells_next_to_numbers():
    from app.core.board import Board

    rows = [
        "....",
        ".1..",
        "..00",
        "....",
    ]
    cells = [symbol for row in rows for symbol in row]
    # Around the 1: eight cells, one of them a zero; a zero is no number, so its own neighbours do not count.
    assert Board(4, 4).frontier_size(cells) == 7
    assert Board(4, 4).frontier_size(["."] * 16) == 0


def test_mines_as_a_percentage():
    assert board_size(10, 10, percent=15) == (10, 10, 15)
    with pytest.raises(Invalid, match="percentage"):
        board_size(10, 10, percent=100)


def test_games_survive_json():
    game, _ = play(new_game(9, 9, 10, rng=random.Random(0)), "reveal", 4, 4)
    game, _ = play(game, "flag", 0, 0)
    again = game_from_json(game.to_json(), game.history)
    assert again == game
    broken = game.to_json()
    broken["cells"] = broken["cells"][:-1]
    with pytest.raises(ValueError, match="malformed"):
        game_from_json(broken, game.history)
    with pytest.raises(ValueError, match="undo record"):
        game_from_json(game.to_json(), [{"cells": {}}])


def scattered_game(seed: int = 1, side: int = 60, mines: int = 720, shown: int = 1000) -> tuple[Game, set[int]]:
    """A board with a third of its safe cells revealed at random: huge components, the
    slowest kind of position (classic mode's random clicking builds them). 60x60 needs
    about 3 M work units to analyse, 100x100 with 3,000 mines and 2,100 shown about 30 M."""
    rng = random.Random(seed)
    game = new_game(side, side, mines, rng=random.Random(seed))
    layout = set(rng.sample(range(side * side), mines))
    for index in rng.sample([i for i in range(side * side) if i not in layout], shown):
        game.cells[index] = str(game.board.mines_around(index, layout))
    game.started_at = 0.0
    mines = layout
    return game, mines


SMALL_WORK = 200_000  # units: a small part of what scattered_game's position needs


def unproven_cells(game: Game, analyzer: Analyzer) -> list[int]:
    return [
        i for i, symbol in enumerate(game.cells) if symbol == "." and analyzer.proven(game.cell(i)) is Status.UNKNOWN
    ]


def test_a_click_past_the_work_allowance_is_a_guess():
    game, mines = scattered_game()
    partial = Analyzer(game.position())
    with partial.limits(Limits(work=SMALL_WORK).metered()), pytest.raises(OutOfWork):
        partial.classify()
    # A cell the allowed work did not decide, and that the real layout leaves empty: it can be safe.
    index = next(i for i in unproven_cells(game, partial) if i not in mines)
    after, outcome = apply_move(
        game, Move("reveal", *game.cell(index)), rng=random.Random(1), now=1.0, limits=Limits(work=SMALL_WORK)
    )
    assert "too complex" in str(outcome.message)
    # The fair reading: no safe cell is known, so a cell that can be safe is safe.
    assert after.status == "playing" and outcome.forced_guess and after.state["forced_guesses"] == 1
    assert after.cells[index] != "."


def test_the_verdict_does_not_depend_on_what_the_analyzer_cache_kept():
    """A cached analyzer that finished this position on earlier requests must not judge
    more harshly than a fresh one within the same work: the verdict is the fresh one's."""
    game, mines = scattered_game()
    partial = Analyzer(game.position())
    with partial.limits(Limits(work=SMALL_WORK).metered()), pytest.raises(OutOfWork):
        partial.classify()
    complete = Analyzer(game.position())
    complete.classify()
    assert complete.safe_cell_exists()
    # Unknown within the allowance, but a losing click for a player who could know everything.
    index = next(i for i in unproven_cells(game, partial) if complete.status(game.cell(i)) is not Status.SAFE)
    move = Move("reveal", *game.cell(index))
    limits = Limits(work=SMALL_WORK)
    cold, _ = apply_move(game, move, rng=random.Random(1), now=1.0, limits=limits)
    warm, _ = apply_move(game, move, rng=random.Random(1), now=1.0, analyzer=complete, limits=limits)
    assert cold.status == warm.status == "playing"
    assert cold.cells == warm.cells
    # With work enough to finish, the same click loses, cached or not.
    assert apply_move(game, move, rng=random.Random(1), now=1.0)[0].status == "lost"


def test_the_wall_clock_guard_is_logged(caplog):
    game, mines = scattered_game()
    index = next(i for i, symbol in enumerate(game.cells) if symbol == "." and i not in mines)
    past = Limits(deadline=time.monotonic() - 1)
    with caplog.at_level("WARNING", logger="kaboom.solver"):
        after, outcome = apply_move(game, Move("reveal", *game.cell(index)), rng=random.Random(1), now=1.0, limits=past)
    assert after.status == "playing" and "too complex" in str(outcome.message)
    assert any("wall-clock" in record.message for record in caplog.records)
