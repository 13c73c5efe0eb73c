"""The two local rules (solver/local.py): each rule on a hand-made position, the fixpoint and its waves,
and, on positions drawn from real layouts, that whatever they prove holds in every layout (brute force)."""

from __future__ import annotations

from hypothesis import given, settings

from solver.local import deduce, subtract_groups
from tests.reference import truth
from tests.strategies import examples, positions


def local(rows: list[str], known_mines=()):
    width = len(rows[0])
    return deduce(width, len(rows), "".join(rows), known_mines)


def cells(width: int, indices) -> set[tuple[int, int]]:
    return {(index % width, index // width) for index in indices}


def test_a_number_whose_covered_neighbours_are_its_missing_mines_makes_them_mines():
    found = local(["1.", "11"])
    assert cells(2, found.mines) == {(1, 0)} and not found.safe


def test_a_number_whose_mines_are_known_makes_the_rest_safe():
    # The 1 at the left already touches the known mine at (0, 1): its other covered neighbour is safe.
    found = local(["1.", ".1"], known_mines=[2])
    assert cells(2, found.safe) == {(1, 0)} and cells(2, found.mines) == set()


def test_a_flag_is_not_knowledge():
    # The same position with the (0, 1) cell only flagged, not known: nothing follows locally.
    assert not local(["1.", "F1"])


def test_the_rules_run_to_a_fixpoint_in_waves_from_where_they_start():
    # The 0 clears the two cells under it; then the 1 beside it has one cell left for its mine, the next 1
    # is satisfied by that mine, and the 2 needs the last cell: each step needs the one before.
    found = local(["12110", "....."])
    assert cells(5, found.safe) == {(3, 1), (4, 1), (1, 1)} and cells(5, found.mines) == {(2, 1), (0, 1)}
    assert [found.wave[index] for index in (8, 9, 7, 6, 5)] == [0, 0, 1, 2, 3]


def test_the_rules_never_use_the_mine_count():
    # Two covered cells and one mine left in all: the count decides both only for the exact solver.
    assert not local(["1.", ".."])


def test_only_numbers_near_the_start_are_read():
    rows = ["1.", "11"]
    assert not deduce(2, 2, "".join(rows), start=[])
    assert deduce(2, 2, "".join(rows), start=[0])


@settings(max_examples=examples(300), deadline=None)
@given(positions(max_side=5))
def test_whatever_the_local_rules_prove_holds_in_every_layout(position):
    facts = truth(position)
    symbols = "".join(position.rows)
    found = deduce(position.width, position.height, symbols)
    if not facts.consistent:
        return
    width = position.width
    for index in found.safe:
        assert facts.probability[(index % width, index // width)] == 0
    for index in found.mines:
        assert facts.probability[(index % width, index // width)] == 1


def test_group_subtraction_reads_two_numbers_at_once_where_the_local_rules_stop():
    # The 1-1 against a wall: the corner 1's two cells hold its mine, so the next 1's third cell is safe.
    rows = ["1111", "...."]
    assert not local(rows)
    found = subtract_groups(4, 2, "".join(rows))
    assert cells(4, found.safe) == {(1, 1), (2, 1)} and cells(4, found.mines) == {(0, 1), (3, 1)}


@settings(max_examples=examples(300), deadline=None)
@given(positions(max_side=5))
def test_whatever_group_subtraction_proves_holds_in_every_layout(position):
    facts = truth(position)
    if not facts.consistent:
        return
    found = subtract_groups(position.width, position.height, "".join(position.rows))
    width = position.width
    for index in found.safe:
        assert facts.probability[(index % width, index // width)] == 0
    for index in found.mines:
        assert facts.probability[(index % width, index // width)] == 1
