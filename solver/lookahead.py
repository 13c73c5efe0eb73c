"""Reasoning about moves not yet made: what a reveal could show, and what it would leave.

A Frontier is what the counting knows of one position (its components with
their tables, the outside, the mines left), taken from an Analyzer. `reveal`
builds the frontier after a hypothetical reveal without touching SAT: the
cell's component and the components its neighbours touch are merged and
counted again, every other table is reused. Weights are absolute layout
counts, so the chance of each value a cell could show is a quotient of two
of them, and the endgame search can enumerate the layouts themselves.
"""

from __future__ import annotations

import itertools
import threading
from bisect import bisect_left
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from math import comb

from solver.counting import Budget, Combination, ComponentCounts, convolve
from solver.position import COVERED, FLAG, MINE, NUMBERS, neighbour_table
from solver.sat import Constraint


@dataclass(frozen=True)
class FrontierPart:
    """One component: undetermined cells tied together by numbers, and its counting table."""

    cells: frozenset[int]
    constraints: tuple[Constraint[int], ...]
    counts: ComponentCounts[int]


@dataclass(frozen=True)
class Frontier:
    width: int
    height: int
    symbols: tuple[str, ...]  # what is revealed, by index (y * width + x)
    mines: frozenset[int]  # covered cells proven mines
    safe: frozenset[int]  # covered cells proven safe
    parts: tuple[FrontierPart, ...]
    outside: tuple[int, ...]  # undetermined cells next to no number, in increasing order
    mines_left: int  # mines among the undetermined cells

    # ----- counting -------------------------------------------------------

    @cached_property
    def _by_mines(self) -> tuple[list[int], int]:
        return _by_mines([part.counts for part in self.parts])

    @cached_property
    def _outside_cells(self) -> frozenset[int]:
        # A 100x100 board's outside has thousands of cells; the cells a question fixes are a handful.
        return frozenset(self.outside)

    @cached_property
    def layouts(self) -> int:
        """How many layouts agree with everything shown (an exact integer)."""
        return _with_outside(*self._by_mines, len(self.outside), self.mines_left)

    def layouts_given(self, mines: frozenset[int], safe: frozenset[int], budget: Budget) -> int:
        """How many layouts agree with everything shown and have a mine on each cell of `mines` and none
        on `safe` (cells proven either way are taken as they are). Only the components these cells
        belong to are counted again.

        Raises BudgetExceeded when such a component cannot be counted within `budget`.
        """
        proven_mine = self.mines.union(index for index in mines | safe if self.symbols[index] == MINE)
        if mines & self.safe or safe & proven_mine or any(self.symbols[index] in NUMBERS for index in mines | safe):
            return 0
        mines, safe = mines - proven_mine - self.safe, safe - proven_mine - self.safe
        fixed = mines | safe
        mines_left = self.mines_left - len(mines)
        outside = len(self.outside) - len(fixed & self._outside_cells)
        if not any(part.cells & fixed for part in self.parts):  # the outside only: no component to count again
            return _with_outside(*self._by_mines, outside, mines_left) if mines_left >= 0 else 0
        counts = []
        for part in self.parts:
            if not part.cells & fixed:
                counts.append(part.counts)
                continue
            constraints = set()
            for constraint in part.constraints:
                cells, needed = constraint.cells - fixed, constraint.mines - len(constraint.cells & mines)
                if not 0 <= needed <= len(cells):
                    return 0
                if cells:
                    constraints.add(Constraint(cells, needed))
            rest = part.cells - fixed
            if rest:
                ordered = sorted(constraints, key=_constraint_order)
                recounted = ComponentCounts(sorted(rest), ordered, budget, tally_later=True)
                if not recounted.by_mines:
                    return 0
                counts.append(recounted)
        return _with_outside(*_by_mines(counts), outside, mines_left) if mines_left >= 0 else 0

    def chances(self) -> dict[int, float]:
        """The mine chance of every undetermined cell (0.0 exactly when it is safe in every layout)."""
        combination = Combination([part.counts for part in self.parts], self.mines_left, len(self.outside))
        chances, outside = combination.chances()
        if outside is not None:  # None only when there is no outside cell
            for index in self.outside:
                chances[index] = outside
        return chances

    def undetermined(self) -> list[int]:
        return sorted(itertools.chain(self.outside, *(part.cells for part in self.parts)))

    # ----- what a reveal would show --------------------------------------

    def around(self, index: int) -> tuple[int, frozenset[int]]:
        """Mines known next to a cell, and its undetermined neighbours."""
        known, open_cells = 0, []
        for neighbour in neighbour_table(self.width, self.height)[index]:
            if self.symbols[neighbour] == MINE or neighbour in self.mines:
                known += 1
            elif self.symbols[neighbour] in (COVERED, FLAG) and neighbour not in self.safe:
                open_cells.append(neighbour)
        return known, frozenset(open_cells)

    def values(self, index: int) -> range:
        """The numbers the covered cell could show, were it safe."""
        known, open_cells = self.around(index)
        return range(known, known + len(open_cells) + 1)

    def outcomes(self, index: int, budget: Budget) -> list[tuple[int, Frontier]]:
        """Every number the cell could show with the frontier it would leave; a single one means the
        cell is dead: revealing it would teach nothing."""
        found = []
        for value in self.values(index):
            after = self.reveal(index, value, budget)
            if after is not None:
                found.append((value, after))
        return found

    def reveal(self, index: int, value: int, budget: Budget) -> Frontier | None:
        """The frontier once the undetermined cell `index` shows `value`; None when no layout allows it.

        Raises BudgetExceeded when the merged component cannot be counted within `budget`.
        """
        known, open_cells = self.around(index)
        needed = value - known
        if not 0 <= needed <= len(open_cells):
            return None
        touched = open_cells | {index}
        merged = [part for part in self.parts if part.cells & touched]
        kept = tuple(part for part in self.parts if not part.cells & touched)
        constraints = set()
        for constraint in itertools.chain(
            (c for part in merged for c in part.constraints), [Constraint(open_cells, needed)]
        ):
            if constraint.cells and index not in constraint.cells:  # most of a big component's: kept, not copied
                constraints.add(constraint)
                continue
            cells = constraint.cells - {index}
            if cells:
                constraints.add(Constraint(cells, constraint.mines))
            elif constraint.mines:
                return None
        cells = frozenset().union(*(part.cells for part in merged), open_cells) - {index}
        parts = kept
        if cells:
            ordered = sorted(constraints, key=_constraint_order)
            counts = ComponentCounts(sorted(cells), ordered, budget, tally_later=True)
            if not counts.by_mines:
                return None
            parts = kept + (FrontierPart(cells, tuple(ordered), counts),)
        after = Frontier(
            self.width,
            self.height,
            self.symbols[:index] + (str(value),) + self.symbols[index + 1 :],
            self.mines,
            self.safe,
            parts,
            _without(self.outside, touched),
            self.mines_left,
        )
        return after if after.layouts else None

    # ----- every layout, for the endgame ----------------------------------

    def all_layouts(self, limit: int) -> list[frozenset[int]] | None:
        """Every layout as its set of mines among the undetermined cells; None when there are more than `limit`."""
        if self.layouts > limit:
            return None
        by_part = [
            {
                mines: list(part.counts.layouts(mines))
                for mines in range(part.counts.low, part.counts.low + len(part.counts.by_mines))
                if part.counts.by_mines[mines - part.counts.low]
            }
            for part in self.parts
        ]
        found: list[frozenset[int]] = []
        for split in itertools.product(*(sorted(options) for options in by_part)):
            rest = self.mines_left - sum(split)
            if not 0 <= rest <= len(self.outside):
                continue
            for pieces in itertools.product(*(options[mines] for options, mines in zip(by_part, split, strict=True))):
                frontier_mines = frozenset().union(*pieces)
                for outside_mines in itertools.combinations(self.outside, rest):
                    found.append(frontier_mines.union(outside_mines))
        return found


def _constraint_order(constraint: Constraint[int]) -> tuple[list[int], int]:
    return sorted(constraint.cells), constraint.mines


def _without(cells: tuple[int, ...], removed: frozenset[int]) -> tuple[int, ...]:
    """`cells` (in increasing order) less `removed`; `cells` itself when none of them is there. A 100x100
    board's outside has thousands of cells and a reveal takes a handful at most, often none."""
    places = []
    for cell in removed:
        place = bisect_left(cells, cell)
        if place < len(cells) and cells[place] == cell:
            places.append(place)
    if not places:
        return cells
    kept: list[int] = []
    start = 0
    for place in sorted(places):
        kept.extend(cells[start:place])
        start = place + 1
    kept.extend(cells[start:])
    return tuple(kept)


def _by_mines(counts: list[ComponentCounts[int]]) -> tuple[list[int], int]:
    """Layouts of these components together by their number of mines: counts from the least, and the least."""
    poly, low = [1], 0
    for part in counts:
        poly = convolve(poly, part.by_mines)
        low += part.low
    return poly, low


# ----- binomials, near each other -------------------------------------------------------------------------


class _Binomials:
    """C(n, k) for the outside, exactly. On a 100x100 board one has thousands of digits and math.comb takes
    about half a millisecond; a move asks for a few hundred, each next to one asked before (the outside less
    a few cells, the mines left less a few), and a neighbour is one multiplication and one division away."""

    NEAR_K = 64  # how far along the row a neighbour is looked for
    NEAR_N = 16  # and how many rows up or down, at the same k

    def __init__(self, limit: int):
        self.limit = limit
        self._known: OrderedDict[tuple[int, int], int] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, n: int, k: int) -> int:
        with self._lock:
            value = self._known.get((n, k))
            if value is None:
                value = self._from_neighbour(n, k)
                self._known[(n, k)] = value
                if len(self._known) > self.limit:
                    self._known.popitem(last=False)
        return value

    def _from_neighbour(self, n: int, k: int) -> int:
        if not 0 <= k <= n:
            return comb(n, k)
        known = self._known
        for distance in range(1, self.NEAR_K + 1):
            for start in (k - distance, k + distance):
                value = known.get((n, start))
                if value is not None:
                    # C(n, j + 1) = C(n, j) (n - j) / (j + 1), and back.
                    for j in range(start, k):
                        value = value * (n - j) // (j + 1)
                    for j in range(start, k, -1):
                        value = value * j // (n - j + 1)
                    return value
        for distance in range(1, self.NEAR_N + 1):
            for row in (n - distance, n + distance):
                value = known.get((row, k))
                if value is not None and k <= min(row, n):
                    # C(m + 1, k) = C(m, k) (m + 1) / (m + 1 - k), and back.
                    for m in range(row, n):
                        value = value * (m + 1) // (m + 1 - k)
                    for m in range(row, n, -1):
                        value = value * (m - k) // m
                    return value
        return comb(n, k)


_binomial = _Binomials(8192)


def _with_outside(poly: list[int], low: int, outside: int, mines_left: int) -> int:
    """Layouts of the components (`poly` from `low` mines) and `outside` free cells, `mines_left` mines in all."""
    return sum(
        count * _binomial(outside, mines_left - low - extra)
        for extra, count in enumerate(poly)
        if count and 0 <= mines_left - low - extra <= outside
    )
