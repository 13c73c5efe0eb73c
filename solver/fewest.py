"""Cruel Flags' bomb: the fewest mines a square can hold, and a layout with exactly that many there.

In cruel Flags no layout is fixed: every answer must fit some layout of the
board's mines consistent with what is revealed, and the bomb's square holds as
few mines as any of them allows. The minimum comes from SAT, since exact
counting can blow up where SAT does not (SOLVER-NOTES.md); the layout is drawn
uniformly by the analyzer's counting with the minimum as one more constraint,
and only when that is over budget, or the analyzer's limits stopped its
reasoning, is it the SAT model that reached the minimum.

The covered cells next to no number are interchangeable as far as the numbers
go, so SAT never sees them: given the frontier's mines, the fewest the square's
outside cells can take is what the outside away from the square has no room
for. Left to SAT as free cells, they made proofs of the minimum exponential.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pysat.card import CardEnc, EncType
from pysat.formula import CNF
from pysat.solvers import Minisat22

from solver.analysis import Analyzer, Inconsistent, Layout, Undecided
from solver.counting import Budget, BudgetExceeded, Combination, ComponentCounts
from solver.position import Cell, describe
from solver.sat import Constraint, Unsatisfiable, direct_clauses


def fewest_mines_layout(
    analyzer: Analyzer, cells: Iterable[Cell], rng: random.Random, budget: Budget | None = None
) -> tuple[int, Layout]:
    """The fewest mines any layout consistent with the analyzer's position puts on `cells` (covered cells; revealed
    ones are refused with ValueError), and a full layout (solver.analysis.Layout, as Analyzer.sample_layout returns)
    with exactly that many there: drawn uniformly among all consistent layouts with that many mines on `cells`
    (Layout.uniform=True), or, over the counting budget or past the analyzer's limits (Interrupted), a valid one
    from SAT (uniform=False). Inconsistent when the position has no layout at all."""
    square = _covered_indices(analyzer, cells)
    problem = analyzer.undecided()
    proven_in_square = sum(1 for index in square if problem.proven.get(index))
    part_of = {cell: number for number, part in enumerate(problem.parts) for cell in part.cells}
    square_frontier = [index for index in square if index in part_of]
    square_outside = [index for index in square if index not in part_of and index not in problem.proven]
    away = sorted(set(problem.outside) - set(square_outside))
    count = _Count(
        low=problem.mines_left - len(problem.outside),
        high=problem.mines_left,
        mines_left=problem.mines_left,
        away=len(away),
    )
    try:
        floor = _fewest_without_the_count(problem, part_of, square_frontier)
        fewest, model = _fewest(
            sorted(part_of),
            [constraint for part in problem.parts for constraint in part.constraints],
            square_frontier,
            count,
            floor,
        )
    except Unsatisfiable:
        raise Inconsistent("inconsistent: no layout fits the position") from None
    if problem.complete:
        try:
            mines = _uniform_mines(problem, part_of, square_frontier + square_outside, away, fewest, rng, budget)
            return proven_in_square + fewest, _as_layout(analyzer, problem, mines, uniform=True)
        except BudgetExceeded:
            pass
    mines = set(model)
    outside_mines = problem.mines_left - len(model)
    pushed = max(0, outside_mines - len(away))
    mines.update(rng.sample(square_outside, pushed))
    mines.update(rng.sample(away, outside_mines - pushed))
    return proven_in_square + fewest, _as_layout(analyzer, problem, mines, uniform=False)


def _covered_indices(analyzer: Analyzer, cells: Iterable[Cell]) -> list[int]:
    """The cells by index, each once; refused before any reasoning when one is off the board or not covered."""
    position = analyzer.position
    indices = set()
    for cell in cells:
        x, y = cell
        if not (0 <= x < analyzer.width and 0 <= y < analyzer.height):
            raise ValueError(f"{describe(cell)} is not on the {analyzer.width}x{analyzer.height} board")
        if not position.is_covered(cell):
            raise ValueError(f"{describe(cell)} is not covered: only covered cells can hold the fewest mines")
        indices.add(y * analyzer.width + x)
    return sorted(indices)


@dataclass(frozen=True)
class _Count:
    """The global count as it bears on the frontier: between `low` and `high` mines there, and of the
    `mines_left` in all, what the frontier does not take goes outside, `away` of whose cells lie off the square."""

    low: int
    high: int
    mines_left: int
    away: int


def _fewest_without_the_count(problem: Undecided, part_of: dict[int, int], square_frontier: list[int]) -> int:
    """A lower bound on the minimum: each part the square touches on its own, without the global count.

    Usually the minimum itself, and knowing it spares the search with the
    count its last call, the one that proves nothing fewer is possible.
    """
    in_square: dict[int, list[int]] = {}
    for cell in square_frontier:
        in_square.setdefault(part_of[cell], []).append(cell)
    return sum(
        _fewest(sorted(problem.parts[number].cells), problem.parts[number].constraints, cells, None, 0)[0]
        for number, cells in in_square.items()
    )


def _fewest(
    cells: Sequence[int],
    constraints: Iterable[Constraint[int]],
    square: Sequence[int],
    count: _Count | None,
    floor: int,
) -> tuple[int, frozenset[int]]:
    """The fewest mines a model puts on the square, and such a model (its mines on `cells`); Unsatisfiable if none.

    With the count, a model's mines on the square include those the outside
    away from the square has no room for: max(mines on `square`, mines_left -
    away - mines on the rest of `cells`). Each model found bounds the next
    search strictly below it; the search stops at `floor`, known unbeatable.
    """
    with _Search(cells, constraints, square, count) as search:
        best = search.model(None)
        if best is None:
            raise Unsatisfiable
        fewest = search.value(best)
        while fewest > floor:
            better = search.model(fewest - 1)
            if better is None:
                break
            best, fewest = better, search.value(better)
    return fewest, best


class _Search:
    """Models of the numbers' constraints under bounds on how many mines lie where, found by one SAT solver.

    The bounds are added only once a model breaks one: far from the count's
    limits (a big board, most of the time) none is ever encoded, and when one
    is, its encoding (a k-modulo totalizer) stays compact over thousands of
    cells and lets the solver count: the proofs that the count decides the
    minimum take milliseconds where Minicard's native constraints took
    exponential time. Every bound is added for good: the search only ever
    asks for fewer mines on the square, so a bound only ever tightens.
    """

    def __init__(
        self, cells: Sequence[int], constraints: Iterable[Constraint[int]], square: Sequence[int], count: _Count | None
    ):
        self.cells = cells
        self.count = count
        self.variable = {cell: number for number, cell in enumerate(cells, start=1)}
        in_square = set(square)
        self.literals = list(self.variable.values())
        self.square = [self.variable[cell] for cell in square]
        self.rest = [self.variable[cell] for cell in cells if cell not in in_square]
        self.top = len(cells)
        self.solver = Minisat22()
        for constraint in constraints:
            self.solver.append_formula(
                direct_clauses([self.variable[cell] for cell in constraint.cells], constraint.mines)
            )
        # Safe first on the square: the first model lands near the minimum, which spares most of the descent.
        self.solver.set_phases([-literal for literal in self.square])

    def __enter__(self) -> _Search:
        return self

    def __exit__(self, *exception: object) -> None:
        self.solver.delete()

    def value(self, mines: frozenset[int]) -> int:
        on_square = sum(1 for literal in self.square if self.cells[literal - 1] in mines)
        if self.count is None:
            return on_square
        return max(on_square, self.count.mines_left - self.count.away - (len(mines) - on_square))

    def _bounds(self, target: int | None) -> list[_Bound]:
        """What a model of value at most `target` (None: any value) must also satisfy."""
        bounds = []
        if self.count is not None:
            bounds.append(_Bound(self.literals, self.count.low, self.count.high))
        if target is not None:
            bounds.append(_Bound(self.square, 0, target))
            if self.count is not None:
                # mines_left - away - (mines on the rest) <= target: the rest must take what the outside cannot.
                bounds.append(_Bound(self.rest, self.count.mines_left - self.count.away - target, len(self.rest)))
        return bounds

    def model(self, target: int | None) -> frozenset[int] | None:
        """A model (its mines) of value at most `target`, any model for None; None when there is none."""
        while True:
            if not self.solver.solve():
                return None
            model = self.solver.get_model()
            assert model is not None, "a satisfiable formula has a model"
            broken = False
            for bound in self._bounds(target):
                true = sum(1 for literal in bound.literals if model[literal - 1] > 0)
                if true < bound.fewest:
                    self._add(
                        CardEnc.atleast, bound.literals, bound.fewest, possible=bound.fewest <= len(bound.literals)
                    )
                    broken = True
                elif true > bound.most:
                    self._add(CardEnc.atmost, bound.literals, bound.most, possible=bound.most >= 0)
                    broken = True
            if not broken:
                return frozenset(cell for cell in self.cells if model[self.variable[cell] - 1] > 0)

    def _add(self, encode: Callable[..., CNF], literals: list[int], bound: int, possible: bool) -> None:
        if not possible:
            self.solver.add_clause([])
            return
        encoded = encode(lits=literals, bound=bound, top_id=self.top, encoding=EncType.kmtotalizer)
        self.solver.append_formula(encoded.clauses)
        self.top = max(self.top, encoded.nv)


class _Bound(NamedTuple):
    """Between `fewest` and `most` of `literals` true."""

    literals: list[int]
    fewest: int
    most: int


def _uniform_mines(
    problem: Undecided,
    part_of: dict[int, int],
    open_square: Sequence[int],
    away: Sequence[int],
    fewest: int,
    rng: random.Random,
    budget: Budget | None,
) -> set[int]:
    """The undecided cells' mines, uniform over layouts with `fewest` mines on the square's undecided cells;
    BudgetExceeded when counting would take more than the budget.

    The square's constraint ties together every part it touches and its own
    outside cells, so they are counted as one component; the parts it does
    not touch keep the analyzer's tables, and the outside away from the
    square is weighed with binomials as usual.
    """
    budget = (budget or Budget()).start()
    touched = {part_of[cell] for cell in open_square if cell in part_of}
    merged_cells = {cell for cell in open_square if cell not in part_of}
    merged_constraints = [Constraint(frozenset(open_square), fewest)] if open_square else []
    counts: list[ComponentCounts[int]] = []
    for number, part in enumerate(problem.parts):
        if number in touched:
            merged_cells |= part.cells
            merged_constraints.extend(part.constraints)
        else:
            counts.append(part.counts(budget))
    if merged_cells:
        merged = ComponentCounts(sorted(merged_cells), merged_constraints, budget)
        # Combination takes every component to have a layout; SAT found one with `fewest` there.
        assert any(merged.by_mines), "no layout has the fewest mines SAT found"
        counts.append(merged)
    layouts, away_mines = Combination(counts, problem.mines_left, len(away)).sample(rng)
    mines: set[int] = set().union(*layouts)
    mines.update(rng.sample(away, away_mines))
    return mines


def _as_layout(analyzer: Analyzer, problem: Undecided, mines: set[int], uniform: bool) -> Layout:
    """The undecided cells' mines with the proven and revealed ones, as cells."""
    every_mine = mines | problem.revealed_mines | {index for index, mine in problem.proven.items() if mine}
    width = analyzer.width
    return Layout(frozenset((index % width, index // width) for index in every_mine), uniform)
