"""Puzzles found in positions (solver/puzzles.py, issue 46 #2), checked against brute force on small boards: a
position holds a puzzle exactly when it is consistent, proves some covered cell, and no single number proves one;
the solution is every proven cell; each proof is sufficient on its own and has nothing to spare; a puzzle is the
same whatever its rotation or reflection, and so are the themes its proof is given."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from app.cli.bot import first_cell
from app.play.bot import GameSetup, play
from app.results.puzzles import puzzles_of
from solver.position import Position
from solver.puzzles import (
    SYMMETRIES,
    canonical,
    moved_cell,
    proven_at_a_glance,
    puzzle_in,
    settled,
    themes,
    transformed,
    unflagged,
)
from tests.reference import proves, truth, visible_constraints
from tests.strategies import boards, examples, positions, render


def brute_force_proven(position: Position) -> dict:
    """Every covered cell all layouts agree on: whether it is a mine; None for an inconsistent position."""
    found = truth(position)
    if not found.consistent:
        return None
    return {cell: chance == 1 for cell, chance in found.probability.items() if chance in (0, 1)}


def one_fact_proves(position: Position, cell, mine: bool) -> bool:
    """Whether one number alone, or the mines left alone, proves the cell."""
    return proves(position, [], True, cell, mine) or any(
        cell in scope and proves(position, [number], False, cell, mine)
        for number, (scope, _) in visible_constraints(position).items()
    )


@settings(max_examples=examples(300), deadline=None)
@given(positions(max_side=5))
def test_a_position_holds_a_puzzle_exactly_when_brute_force_says_it_needs_thought(position):
    checked_against_brute_force(position)


def test_positions_of_real_layouts_half_revealed_hold_puzzles_that_brute_force_confirms():
    # Seeded, so that a run always meets puzzles: drawn as the hypothesis positions are, about one in seven holds one.
    chance = random.Random(46)
    found = 0
    for _ in range(300):
        width, height = chance.randint(2, 5), chance.randint(2, 5)
        cells = [(x, y) for y in range(height) for x in range(width)]
        mines = frozenset(chance.sample(cells, chance.randint(1, max(1, len(cells) // 3))))
        revealed = {cell for cell in cells if cell not in mines and chance.random() < 0.5}
        found += checked_against_brute_force(render(width, height, len(mines), mines, revealed, set()))
    assert found >= 20


def checked_against_brute_force(position: Position) -> bool:
    """The checks of one position against brute force; whether it holds a puzzle. A puzzle is found in the
    position's canonical form: it is checked on that."""
    position = canonical(unflagged(position))[0]
    proven = brute_force_proven(position)
    puzzle = puzzle_in(position)
    trivial = proven is not None and any(one_fact_proves(position, cell, mine) for cell, mine in proven.items())
    assert (puzzle is not None) == bool(proven and not trivial)
    assert (
        proven_at_a_glance(position)
        == {cell for cell, mine in (proven or {}).items() if one_fact_proves(position, cell, mine)}
        or proven is None
    )
    if puzzle is None:
        return False
    assert puzzle.solution == proven
    for cell, proof in puzzle.proofs.items():
        assert proof.size >= 2, "no single fact proves a cell of a puzzle"
        assert proves(position, proof.numbers, proof.uses_count, cell, proof.mine), "the proof is sufficient"
        for left_out in proof.numbers:
            rest = [number for number in proof.numbers if number != left_out]
            assert not proves(position, rest, proof.uses_count, cell, proof.mine), "no number to spare"
        if proof.uses_count:
            assert not proves(position, proof.numbers, False, cell, proof.mine), "the count is needed"
    assert puzzle.key.size == min(proof.size for proof in puzzle.proofs.values())
    return True


@settings(max_examples=examples(200), deadline=None)
@given(positions(max_side=5), st.sampled_from(list(SYMMETRIES)))
def test_a_puzzle_is_the_same_turned_or_mirrored(position, symmetry):
    position = unflagged(position)
    turned = transformed(position, symmetry)
    assert canonical(turned)[0] == canonical(position)[0]
    # Proofs and all: every form is reasoned about as the one kept.
    assert puzzle_in(turned) == puzzle_in(position)
    puzzle = puzzle_in(position)
    if puzzle is not None:
        # A puzzle turned with its board is the same puzzle there: its proofs still prove its cells.
        moved = puzzle.moved(symmetry)
        for cell, proof in moved.proofs.items():
            assert proves(moved.position, proof.numbers, proof.uses_count, cell, proof.mine)


def test_the_eight_forms_of_a_board_are_its_turns_and_mirrors():
    width, height = 4, 3
    cells = [(x, y) for y in range(height) for x in range(width)]
    forms = set()
    for symmetry in SYMMETRIES:
        moved = [moved_cell(cell, width, height, symmetry) for cell in cells]
        new_width, new_height = (height, width) if symmetry % 2 else (width, height)
        assert sorted(moved) == sorted((x, y) for y in range(new_height) for x in range(new_width)), "a bijection"
        forms.add(tuple(moved))
    assert len(forms) == 8
    # Neighbours stay neighbours: a turn or a mirror keeps the board's numbers true.
    for symmetry, a, b in itertools.product(SYMMETRIES, cells, cells):
        near = max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1
        ma, mb = moved_cell(a, width, height, symmetry), moved_cell(b, width, height, symmetry)
        assert near == (max(abs(ma[0] - mb[0]), abs(ma[1] - mb[1])) == 1)


def test_the_one_one_against_a_wall_is_a_puzzle_and_its_proof_names_both_numbers():
    # The 1-1 at a wall: the first 1's mine is among the two cells the second 1 sees too, so the second 1's other
    # cells are safe; the rest of the board holds the other mine.
    puzzle = puzzle_in(Position(4, 2, 2, ("....", "11..")))
    # Kept turned: the form whose text comes first.
    assert puzzle is not None and puzzle.position.rows == ("..", "..", ".1", ".1")
    assert puzzle.solution == {(0, 1): False, (1, 1): False}
    assert puzzle.key.numbers == ((1, 2), (1, 3)) and not puzzle.key.uses_count and puzzle.key.cell == (0, 1)
    assert puzzle.region == "edge"


def test_a_position_with_an_answer_one_number_gives_holds_no_puzzle():
    # The corner 1 has one covered neighbour: it is a mine, by that number alone.
    assert puzzle_in(Position(2, 2, 1, ("1.", ".."))) is None
    assert puzzle_in(Position(2, 2, 5, ("1.", ".."))) is None, "inconsistent: more mines than cells"
    assert puzzle_in(Position(2, 2, 1, ("..", ".."))) is None, "nothing proven"


# ----- themes ---------------------------------------------------------------------------------------------------

# A small board of each theme, kept as found (canonical), with its key proof's themes.
THEMED = [
    (Position(2, 3, 1, (".1", ".1", ".1")), {"1-1"}),
    (Position(2, 3, 2, (".1", ".2", ".1")), {"1-2"}),
    (Position(2, 3, 1, (".1", "1.", ".1")), {"subset"}),
    (Position(2, 3, 2, (".1", "..", "2.")), {"overlap"}),
    (Position(2, 3, 1, (".1", "..", "1.")), {"count"}),
    (Position(3, 3, 3, ("..2", "2..", "1.2")), {"chain"}),
    (Position(3, 3, 3, ("..2", "2..", "..2")), {"cases"}),
    (Position(4, 4, 4, ("....", "..1.", ".22.", "1.1.")), {"cases"}),
]


def test_each_theme_on_a_board_of_its_own_turned_every_way():
    for position, expected in THEMED:
        for symmetry in SYMMETRIES:
            puzzle = puzzle_in(transformed(position, symmetry))
            assert puzzle is not None and themes(puzzle) == expected, (position.rows, symmetry)


@settings(max_examples=examples(200), deadline=None)
@given(positions(max_side=5))
def test_a_proof_by_cases_is_one_no_two_numbers_give(position):
    puzzle = puzzle_in(position)
    if puzzle is None:
        return
    found = themes(puzzle)
    key, board = puzzle.key, puzzle.position
    numbers = list(visible_constraints(board))
    by_pairs = any(proves(board, [a, b], False, key.cell, key.mine) for a, b in itertools.combinations(numbers, 2))
    if "cases" in found:
        assert not by_pairs, "a proof by cases needs more than two numbers at once"
    if found & {"1-1", "1-2", "subset", "overlap"}:
        assert by_pairs and len(key.numbers) == 2
    assert ("count" in found) == key.uses_count


# ----- settling a position, and puzzles from games ---------------------------------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(boards(max_side=6), st.data())
def test_a_settled_position_leaves_nothing_one_fact_gives_and_keeps_to_its_layout(board, data):
    width, height, cells, mines = board
    revealed = data.draw(st.sets(st.sampled_from(cells)))
    position = render(width, height, len(mines), mines, {cell for cell in revealed if cell not in mines}, set())
    after = settled(position, mines)
    assert proven_at_a_glance(after) == set()
    for cell in position.cells():
        if not position.is_covered(cell):
            assert after[cell] == position[cell], "what was shown stays as it was"
        elif after[cell] == "*":
            assert cell in mines
        elif after[cell] != ".":
            assert cell not in mines and after[cell] == render(width, height, len(mines), mines, {cell}, set())[cell]
    # What one fact gave at first is settled; what settling opened after it, the numbers it opened gave.
    assert all(not after.is_covered(cell) for cell in proven_at_a_glance(position))


def test_bot_games_pass_through_puzzles_each_kept_once_in_its_canonical_form():
    board = GameSetup(9, 9, 10, first_cell("center", 9, 9), opening=True)
    games = [game for number in range(12) if (game := play(board, "exact", number).game) is not None]
    found = puzzles_of(games, work=200_000)
    assert found, "a dozen Beginner games pass through some puzzles"
    for position, puzzle in found.items():
        assert puzzle_in(position) == puzzle and position == canonical(position)[0]
        assert puzzle.key.size >= 2
    assert puzzles_of([*games, *games], work=200_000) == found, "each kept once, whichever game it came from"
