"""Cruel Flags' bomb (solver.fewest) against brute force on small boards."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver import Allowance, Analyzer, Budget, Inconsistent, Layout, Position
from solver.fewest import fewest_mines_layout
from solver.position import MINE
from tests.reference import truth, visible_constraints
from tests.strategies import number_at, positions, tampered_positions

# The standard normal's upper 1e-6 quantile: a fair sampler fails the chi-square test once in a million seeds.
Z_ONE_IN_A_MILLION = 4.753424


def brute_force_fewest(position: Position, cells: frozenset) -> int | None:
    """The fewest mines on `cells` over every layout, or None when there is none.

    Every layout of the frontier is enumerated (tests/reference.py); given one,
    the outside cells are interchangeable, so its fewest on `cells` puts the
    outside's mines away from `cells` until those are full.
    """
    expected = truth(position)
    if not expected.consistent:
        return None
    away = [cell for cell in expected.outside if cell not in cells]
    return min(
        len(mines & cells) + max(0, expected.mines_left - len(mines) - len(away)) for mines, _ in expected.layouts
    )


def every_layout(position: Position) -> list[frozenset]:
    """Every full layout that fits the position, by trying every placement of the mines left (tiny boards only)."""
    covered = [cell for cell in position.cells() if position.is_covered(cell)]
    shown = frozenset(cell for cell in position.cells() if position[cell] == MINE)
    numbers = list(visible_constraints(position).values())
    layouts = []
    for placed in combinations(covered, position.mines - len(shown)):
        mines = frozenset(placed)
        if all(len(scope & mines) == count for scope, count in numbers):
            layouts.append(mines | shown)
    return layouts


def assert_fits(position: Position, mines: frozenset) -> None:
    assert len(mines) == position.mines
    for cell in position.cells():
        symbol = position[cell]
        if symbol == MINE:
            assert cell in mines
        elif symbol.isdigit():
            assert cell not in mines
            assert number_at(cell, mines, position.width, position.height) == symbol, cell


def covered_subsets(position: Position):
    covered = [cell for cell in position.cells() if position.is_covered(cell)]
    return st.sets(st.sampled_from(covered)) if covered else st.just(set())


# Exact counting; counting over budget; the analyzer's limits reached before any SAT call.
WAYS = [(None, None), (Budget(steps=0), None), (None, Allowance(work=0))]


@given(st.one_of(positions(max_side=5), tampered_positions(max_side=5)), st.integers(0, 2**32), st.data())
def test_the_fewest_and_its_layout_match_brute_force(position, seed, data):
    """The brute-force minimum and a layout that fits with exactly that many there, or Inconsistent when no
    layout fits at all: exactly counted, over the counting budget, and past the analyzer's limits."""
    cells = frozenset(data.draw(covered_subsets(position)))
    expected = brute_force_fewest(position, cells)
    for budget, allowance in WAYS:
        analyzer = Analyzer(position)
        with analyzer.limits(allowance):
            if expected is None:
                with pytest.raises(Inconsistent, match="^inconsistent: "):
                    fewest_mines_layout(analyzer, cells, random.Random(seed), budget)
                continue
            fewest, layout = fewest_mines_layout(analyzer, cells, random.Random(seed), budget)
        assert fewest == expected
        assert_fits(position, layout.mines)
        assert len(layout.mines & cells) == fewest
        if budget is None and allowance is None:
            assert layout.uniform


def test_only_the_count_rules_the_position_out_and_sat_finds_it_past_the_limits():
    # The 1 takes one of its two neighbours, so three mines cannot fit.
    position = Position(4, 1, 3, ("..1.",))
    for allowance in (None, Allowance(work=0)):
        analyzer = Analyzer(position)
        with analyzer.limits(allowance), pytest.raises(Inconsistent, match="^inconsistent: "):
            fewest_mines_layout(analyzer, [(0, 0)], random.Random(0))


def test_proven_mines_count_and_the_count_can_push_mines_into_the_cells():
    # The 1 has a single covered neighbour, a mine in every layout; the other mine goes where it can.
    position = Position(4, 1, 2, ("1...",))
    analyzer = Analyzer(position)
    assert fewest_mines_layout(analyzer, [(1, 0), (2, 0)], random.Random(0)) == (
        1,
        Layout(frozenset({(1, 0), (3, 0)}), uniform=True),
    )
    # With every covered cell asked for, the second mine has nowhere else to go.
    assert fewest_mines_layout(analyzer, [(1, 0), (2, 0), (3, 0)], random.Random(0))[0] == 2
    assert fewest_mines_layout(analyzer, [], random.Random(0))[0] == 0


@pytest.mark.parametrize(
    "cell, message",
    [
        ((0, 0), "column 1, row 1 is not covered"),
        ((1, 0), "column 2, row 1 is not covered"),
        ((4, 0), "column 5, row 1 is not on the 4x1 board"),
        ((0, -1), "column 1, row 0 is not on the 4x1 board"),
    ],
)
def test_a_cell_that_is_not_covered_is_refused(cell, message):
    analyzer = Analyzer(Position(4, 1, 2, ("1*..",)))
    with pytest.raises(ValueError, match=message):
        fewest_mines_layout(analyzer, [(3, 0), cell], random.Random(0))


def square(position: Position, left: int, top: int, side: int = 3) -> frozenset:
    return frozenset(
        (x, y)
        for x in range(left, min(left + side, position.width))
        for y in range(top, min(top + side, position.height))
        if position.is_covered((x, y))
    )


def chi_square_limit(degrees: int) -> float:
    """The chi-square statistic a fair sampler exceeds once in a million (Wilson-Hilferty: scipy is not a
    dependency, and the approximation is well within a percent at these degrees of freedom)."""
    scale = 2 / (9 * degrees)
    return degrees * (1 - scale + Z_ONE_IN_A_MILLION * scale**0.5) ** 3


@pytest.mark.parametrize(
    "rows, mines, corner",
    [
        # The count leaves room for only 4 mines away from the square: 3 must go in, some on its outside cells.
        ((".1..1.", "......", "......"), 7, (0, 0)),
        # The square cuts through two components and holds outside cells; a third component lies away from it.
        (("1...", "...1", "....", "....", ".32."), 6, (0, 2)),
    ],
)
def test_every_layout_with_the_fewest_mines_is_equally_likely(rows, mines, corner):
    position = Position(len(rows[0]), len(rows), mines, rows)
    cells = square(position, *corner)
    layouts = every_layout(position)
    fewest = min(len(layout & cells) for layout in layouts)
    drawn = {layout: 0 for layout in layouts if len(layout & cells) == fewest}
    analyzer = Analyzer(position)
    rng = random.Random(20261126)
    samples = 20 * len(drawn)
    for _ in range(samples):
        count, layout = fewest_mines_layout(analyzer, cells, rng)
        assert count == fewest and layout.uniform
        drawn[layout.mines] += 1
    mean = samples / len(drawn)
    chi_square = sum((count - mean) ** 2 / mean for count in drawn.values())
    assert chi_square < chi_square_limit(len(drawn) - 1)
