"""The board-level front end: what a position proves, kept up to date click by click.

An Analyzer turns a Position into constraints and keeps what it has learned:
a covered cell once proven safe or a mine stays so (more numbers only remove
layouts), every component that did not change keeps its phase-1 answer and its
counting tables, and only the components a reveal touched are worked on again.
Undo is a fresh Analyzer.
"""

from __future__ import annotations

import contextlib
import functools
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import TypeVar, cast

from solver import sat
from solver.counting import Budget, BudgetExceeded, Combination, ComponentCounts, chance, counted_by_shape
from solver.limits import CELL_UNITS, Allowance, Interrupted
from solver.lookahead import Frontier, FrontierPart
from solver.position import COVERED, FLAG, MINE, NUMBERS, Cell, Position, describe, neighbour_table
from solver.sat import Constraint, CountQuestions, Unsatisfiable

REVEALED = frozenset(MINE + NUMBERS)


class Status(Enum):
    SAFE = "s"
    MINE = "m"
    UNKNOWN = "?"


class Inconsistent(ValueError):
    """No layout is consistent with the position; the message names the first contradiction found."""

    def __init__(self, message: str, cells: Iterable[Cell] = ()):
        super().__init__(message)
        self.cells = sorted(cells, key=lambda cell: (cell[1], cell[0]))


Value = TypeVar("Value", Fraction, float)


class Chances(Mapping[Cell, Value]):
    """Every covered cell's chance of a mine, as exact fractions or as floats.

    A read-only mapping worked out cell by cell when read: a 100x100 board has
    thousands of covered cells that are proven or share the outside's chance,
    and most callers read few of them (or only show them as percentages).
    """

    __slots__ = ("_width", "_symbols", "_known", "_frontier", "_value", "_certain", "_outside")
    _width: int
    _symbols: list[str]
    _known: dict[int, bool]
    _frontier: dict[int, tuple[int, int]]
    _value: Callable[[int, int], Value]
    _certain: tuple[Value, Value]
    _outside: Value | None

    def __init__(
        self,
        width: int,
        symbols: list[str],
        known: dict[int, bool],
        frontier: dict[int, tuple[int, int]],
        outside: tuple[int, int] | None,
        value: Callable[[int, int], Value],
    ):
        """What one count found, kept apart from the analyzer (which goes on to later positions): the covered
        cells, the proven ones, each frontier cell's (layouts with a mine there, layouts), the one such tally
        every outside cell shares; and `value`, which makes a chance of a tally."""
        self._width, self._symbols, self._known, self._frontier = width, symbols, known, frontier
        self._value = value
        self._certain = (value(0, 1), value(1, 1))
        self._outside = None if outside is None else value(*outside)

    def _index(self, cell: object) -> int | None:
        """The covered cell's index, or None for anything else."""
        try:
            x, y = cast(Cell, cell)
            # A comparison with what is not a number, or a list index that is not an int, raises TypeError.
            if 0 <= x < self._width and 0 <= y:
                index = y * self._width + x
                if index < len(self._symbols) and self._symbols[index] == COVERED:
                    return index
        except (TypeError, ValueError):
            pass
        return None

    def _of(self, index: int) -> Value:
        known = self._known.get(index)
        if known is not None:
            return self._certain[known]
        tally = self._frontier.get(index)
        if tally is not None:
            return self._value(*tally)
        assert self._outside is not None, "a covered cell neither proven nor on the frontier is outside"
        return self._outside

    def __getitem__(self, cell: Cell) -> Value:
        index = self._index(cell)
        if index is None:
            raise KeyError(cell)
        return self._of(index)

    def __contains__(self, cell: object) -> bool:
        return self._index(cell) is not None

    def __iter__(self) -> Iterator[Cell]:
        width = self._width
        return ((index % width, index // width) for index in self._covered())

    def __len__(self) -> int:
        return self._symbols.count(COVERED)

    def _covered(self) -> Iterator[int]:
        return (index for index, symbol in enumerate(self._symbols) if symbol == COVERED)

    def items(self) -> Iterator[tuple[Cell, Value]]:  # type: ignore[override]
        width = self._width
        return (((index % width, index // width), self._of(index)) for index in self._covered())

    def values(self) -> Iterator[Value]:  # type: ignore[override]
        return (self._of(index) for index in self._covered())

    def rows(self) -> list[list[Value | None]]:
        """The chances row by row as the board shows them, None where a cell is revealed."""
        symbols, width = self._symbols, self._width
        chances = [self._of(index) if symbol == COVERED else None for index, symbol in enumerate(symbols)]
        return [chances[start : start + width] for start in range(0, len(symbols), width)]


@dataclass(frozen=True)
class Probabilities:
    """Exact mine probabilities of covered cells, or why there are none."""

    cells: Chances[Fraction] | None  # every covered cell; None when the budget ran out
    budget_exceeded: bool = False
    # The same chances as floats, never through a Fraction: what an overlay shows as percentages.
    floats: Chances[float] | None = None

    def __getitem__(self, cell: Cell) -> Fraction:
        if self.cells is None:
            raise KeyError("probabilities were not computed: the counting budget ran out")
        return self.cells[cell]


@dataclass(frozen=True)
class Layout:
    """Where every mine is: a full board consistent with the position."""

    mines: frozenset[Cell]
    uniform: bool  # False when exact sampling was over budget and SAT gave a valid layout


@dataclass(frozen=True)
class UndecidedPart:
    """One independent component of what a position leaves open: its cells and constraints, by cell index."""

    cells: frozenset[int]
    constraints: tuple[Constraint[int], ...]
    # Its counting tables, kept by the analyzer for its own questions; raises BudgetExceeded.
    counts: Callable[[Budget], ComponentCounts[int]]


@dataclass(frozen=True)
class Undecided:
    """What a position leaves open once every proven cell is set aside, by cell index (y * width + x): for
    questions about layouts that the Analyzer does not ask itself (solver.fewest)."""

    parts: tuple[UndecidedPart, ...]  # in the order of their first cells, however the position was reached
    outside: tuple[int, ...]  # covered cells next to no number and not proven, in order
    mines_left: int  # the mines the parts and the outside hold together
    proven: Mapping[int, bool]  # covered cell -> proven a mine
    revealed_mines: frozenset[int]
    # False when the analyzer's limits stopped its reasoning: the parts are sound but not reduced as far as
    # they go, and, as sample_layout does, nothing should be counted exactly on them.
    complete: bool


@dataclass(frozen=True)
class Explanation:
    cell: Cell
    status: Status
    numbers: tuple[Cell, ...]  # revealed numbers that, together, prove the status
    uses_count: bool  # whether the global mine count is part of the proof

    def as_text(self) -> str:
        what = "safe" if self.status is Status.SAFE else "a mine"
        noun = "number" if len(self.numbers) == 1 else "numbers"
        parts = [f"the {noun} at " + "; ".join(map(describe, self.numbers))] if self.numbers else []
        if self.uses_count:
            parts.append("the number of mines left")
        return f"{describe(self.cell)} is {what}, proven by " + " and ".join(parts)


class _Component:
    """Constraints connected through shared cells, with what phase 1 learned of them."""

    __slots__ = ("numbers", "cells", "constraints", "witnesses", "counts")

    def __init__(self, numbers: set[int], cells: set[int], constraints: list[Constraint[int]]):
        self.numbers = numbers
        self.cells = cells
        self.constraints = constraints
        # Models found so far, as mine sets over `cells`; None until phase 1 ran.
        self.witnesses: list[frozenset[int]] | None = None
        self.counts: ComponentCounts[int] | BudgetExceeded | None = None

    def models(self) -> list[frozenset[int]]:
        """The models phase 1 found (phase 2 and what comes after it run once phase 1 did)."""
        assert self.witnesses is not None, "phase 1 has not run on this component"
        return self.witnesses


class Analyzer:
    def __init__(self, position: Position):
        self.width = position.width
        self.height = position.height
        self.total_mines = position.mines
        size = self.width * self.height
        self._neighbours = neighbour_table(self.width, self.height)
        self._symbol = [COVERED] * size
        self._known: dict[int, bool] = {}  # covered cell -> proven mine
        self._residual: dict[int, int] = {}  # revealed number -> mines still to place among its open cells
        self._open: dict[int, set[int]] = {}  # revealed number -> covered neighbours not proven
        self._outside: set[int] = set(range(size))  # covered cells next to no revealed number
        self._revealed_mines = 0
        self._known_mines = 0
        self._known_safe = 0
        self._component_of: dict[int, _Component] = {}  # active number -> its component
        # A dict as an ordered set: the same position is worked through in the
        # same order every time, so work allowances and seeded deals repeat.
        self._components: dict[_Component, None] = {}
        self._dirty: set[int] = set()  # numbers whose constraint changed since the last settle
        # Once phase 2 proves the outside block, all of it is known, and the
        # outside only shrinks afterwards: no outside cell is undetermined again.
        self._outside_decided = False
        self._settled = False
        self._broken: Inconsistent | None = None
        # While set, reasoning past it raises Interrupted and leaves everything
        # proven so far in place; see limits().
        self.allowance: Allowance | None = None
        # Whether any reasoning has happened since the position was read: until
        # then this object reasons exactly as a fresh one would.
        self.pristine = True
        # Whether the last reasoning stopped short: this position is a heavy one.
        self.interrupted = False
        changes = {cell: symbol for cell in position.cells() if (symbol := position[cell]) not in (COVERED, FLAG)}
        self.reveal(changes)

    # ----- the position -------------------------------------------------

    def _cell(self, index: int) -> Cell:
        return (index % self.width, index // self.width)

    def _index(self, cell: Cell) -> int:
        x, y = cell
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"{describe(cell)} is not on the {self.width}x{self.height} board")
        return y * self.width + x

    @property
    def position(self) -> Position:
        rows = ("".join(self._symbol[y * self.width : (y + 1) * self.width]) for y in range(self.height))
        return Position(self.width, self.height, self.total_mines, tuple(rows))

    def reveal(self, changes: Mapping[Cell, str]) -> None:
        """Add revealed cells ('*' or '0'-'8'). Refuses, changing nothing, a cell already shown differently."""
        indexed = {}
        for cell, symbol in changes.items():
            index = self._index(cell)
            if symbol not in REVEALED:
                raise ValueError(f"{describe(cell)}: a revealed cell is '*' or '0'-'8', not {symbol!r}")
            current = self._symbol[index]
            if current != COVERED and current != symbol:
                raise ValueError(f"{describe(cell)} is already revealed as {current!r}")
            known = self._known.get(index)
            if current == COVERED and known is not None and known != (symbol == MINE):
                raise Inconsistent(f"inconsistent: {describe(cell)} is proven {'a mine' if known else 'safe'}", [cell])
            if current == COVERED:
                indexed[index] = symbol
        for index, symbol in indexed.items():
            self._uncover(index, symbol)

    def _uncover(self, index: int, symbol: str) -> None:
        self._symbol[index] = symbol
        self._outside.discard(index)
        mine = symbol == MINE
        if index in self._known:
            # A proven cell already counts in its neighbours' residuals.
            if self._known.pop(index):
                self._known_mines -= 1
            else:
                self._known_safe -= 1
        else:
            self._remove_from_numbers(index, mine)
        if mine:
            self._revealed_mines += 1
            return
        open_cells = set()
        residual = int(symbol)
        for neighbour in self._neighbours[index]:
            self._outside.discard(neighbour)
            if self._symbol[neighbour] == MINE or self._known.get(neighbour):
                residual -= 1
            elif self._symbol[neighbour] == COVERED and neighbour not in self._known:
                open_cells.add(neighbour)
        self._residual[index] = residual
        self._open[index] = open_cells
        self._dirty.add(index)
        self._settled = False

    def _remove_from_numbers(self, index: int, mine: bool) -> None:
        for neighbour in self._neighbours[index]:
            open_cells = self._open.get(neighbour)
            if open_cells is not None and index in open_cells:
                open_cells.discard(index)
                if mine:
                    self._residual[neighbour] -= 1
                self._dirty.add(neighbour)
        self._settled = False

    def _decide(self, index: int, mine: bool) -> None:
        self._known[index] = mine
        if mine:
            self._known_mines += 1
        else:
            self._known_safe += 1
        self._remove_from_numbers(index, mine)

    # ----- classification -----------------------------------------------

    def _mines_left(self) -> int:
        """Mines not yet shown or proven: they lie on undetermined covered cells."""
        return self.total_mines - self._revealed_mines - self._known_mines

    def _undetermined_outside(self) -> list[int]:
        return [] if self._outside_decided else sorted(self._outside)

    def _outside_size(self) -> int:
        return 0 if self._outside_decided else len(self._outside)

    def _propagate(self) -> None:
        """The two trivial rules: a number with all its mines placed, or all its open cells needed."""
        work = list(self._dirty)
        while work:
            number = work.pop()
            open_cells, residual = self._open[number], self._residual[number]
            if residual < 0 or residual > len(open_cells):
                raise self._contradiction(number)
            if open_cells and residual in (0, len(open_cells)):
                for cell in list(open_cells):
                    if cell not in self._known:
                        self._decide(cell, residual > 0)
                        work.extend(n for n in self._neighbours[cell] if n in self._open)

    def _rebuild_components(self, witnesses: list[tuple[set[int], frozenset[int]]] | None = None) -> list[_Component]:
        """Recompute the components that contain dirty numbers; returns the new ones.

        With `witnesses`, (cells, mines) models that agree with every proven
        cell, the new components are marked settled: they only lost proven
        cells, which leaves nothing new to prove. A model helps a new component
        only if it covers all of the component's cells.
        """
        stale = {self._component_of[n] for n in self._dirty if n in self._component_of}
        seeds = set(self._dirty).union(*(component.numbers for component in stale))
        self._dirty.clear()
        built: list[_Component] = []
        reached: set[int] = set()
        for seed in seeds:
            if seed in reached or not self._open.get(seed):
                continue
            numbers, cells, queue = {seed}, set(), [seed]
            while queue:
                number = queue.pop()
                for cell in self._open[number]:
                    if cell in cells:
                        continue
                    cells.add(cell)
                    for other in self._neighbours[cell]:
                        if other not in numbers and cell in self._open.get(other, ()):
                            numbers.add(other)
                            queue.append(other)
            reached |= numbers
            # A new number may have merged untouched components into this one.
            stale.update(self._component_of[n] for n in numbers if n in self._component_of)
            constraints = list({Constraint(frozenset(self._open[n]), self._residual[n]) for n in numbers})
            component = _Component(numbers, cells, constraints)
            if witnesses is not None:
                component.witnesses = list({mines & cells for domain, mines in witnesses if cells <= domain})
            built.append(component)
        for component in stale:
            self._components.pop(component, None)
            for number in component.numbers:
                if self._component_of.get(number) is component:
                    del self._component_of[number]
        for component in built:
            self._components[component] = None
            for number in component.numbers:
                self._component_of[number] = component
        return built

    def _component_containing(self, index: int) -> _Component | None:
        for number in self._neighbours[index]:
            if index in self._open.get(number, ()):
                return self._component_of[number]
        return None

    @contextlib.contextmanager
    def limits(self, allowance: Allowance | None) -> Iterator[Allowance | None]:
        """Within this block, reasoning past `allowance` raises OutOfWork or OutOfTime.

        What was proven before stays proven, and the next call goes on from
        there; only sample_layout never raises them (it falls back to a SAT layout).
        """
        previous = self.allowance
        self.allowance = allowance
        try:
            yield allowance
        finally:
            self.allowance = previous

    def footprint(self) -> int:
        """About how many bytes this object holds (within about 12 % from 30x16 up: bench/memory.py checks it).

        A fit over positions from 9x9 to 100x100: the board's tables, a set and
        a residual per revealed number, the components and the models they keep.
        """
        component_cells = sum(len(component.cells) for component in self._components)
        model_cells = sum(len(model) + 1 for component in self._components for model in component.witnesses or ())
        size = self.width * self.height
        return max(
            0, 262 * size + 384 * len(self._open) - 169 * len(self._outside) + 280 * model_cells + 437 * component_cells
        )

    def proven(self, cell: Cell) -> Status:
        """What is proven of a covered cell so far, without reasoning any further."""
        return self._status_of(self._index(cell))

    def _settle(self) -> None:
        if self._broken is not None:
            raise self._broken
        if self._settled:
            return
        self.pristine = False
        try:
            self._settle_frontier()
            self._settle_count()
        except Inconsistent as error:
            # Half-applied reasoning is not worth keeping: this object is done.
            self._broken = error
            raise
        except Interrupted:
            self.interrupted = True
            raise
        self._settled = True
        self.interrupted = False

    def _settle_frontier(self) -> None:
        """Phase 1 on every component that changed since the last call."""
        self._propagate()
        self._rebuild_components()
        # Components left unsettled by a call that ran out of time come first.
        pending = [component for component in self._components if component.witnesses is None]
        while pending:
            component = pending.pop()
            if component.witnesses is not None:
                continue
            cells = sorted(component.cells)
            try:
                decided, models = sat.settle_component(cells, component.constraints, self.allowance)
            except Unsatisfiable:
                raise self._contradiction(min(component.numbers)) from None
            for cell, mine in decided.items():
                self._decide(cell, mine)
            if decided:
                self._propagate()
                self._rebuild_components([(component.cells, model) for model in models])
            else:
                component.witnesses = list(set(models))

    def _settle_count(self) -> None:
        """Phase 2: what the global count adds, asked only where the known models leave a question open."""
        components = list(self._components)
        mines_left = self._mines_left()
        outside = self._outside_size()
        if self.allowance is not None:
            # Matching every known model against every cell is Python work that grows with both.
            self.allowance.charge(sum(len(c.models()) * len(c.cells) for c in components) * CELL_UNITS)
        questions = _unwitnessed(components, mines_left, outside)
        if questions is None:
            return
        cells = sorted(cell for component in components for cell in component.cells)
        constraints = [constraint for component in components for constraint in component.constraints]
        try:
            answers = sat.settle_with_count(cells, constraints, mines_left, outside, questions, self.allowance)
        except Unsatisfiable:
            raise self._contradiction(cells[0] if cells else 0) from None
        for cell, mine in answers.decided.items():
            self._decide(cell, mine)
        if answers.outside_can_be_mine is False or answers.outside_can_be_safe is False:
            for cell in self._outside:
                self._decide(cell, answers.outside_can_be_mine is not False)
            self._outside_decided = True
        if answers.decided:
            # Old models stay useful where they agree with what the count proved.
            still_valid = [
                (component.cells, witness)
                for component in components
                for witness in component.models()
                if all((cell in witness) == answers.decided[cell] for cell in component.cells & answers.decided.keys())
            ]
            every_cell = set(cells)
            self._propagate()
            self._rebuild_components(still_valid + [(every_cell, model) for model in answers.models])

    def _contradiction(self, near: int) -> Inconsistent:
        """A minimal set of numbers (and the count) that no layout satisfies, as a message."""
        if self._revealed_mines > self.total_mines:
            return Inconsistent(
                f"inconsistent: {self._revealed_mines} mines are revealed but the board has {self.total_mines}"
            )
        covered = self._symbol.count(COVERED)
        if self.total_mines > self._revealed_mines + covered:
            return Inconsistent(
                f"inconsistent: {self.total_mines} mines do not fit on {covered} covered cells"
                + (f" and {self._revealed_mines} revealed mines" if self._revealed_mines else "")
            )
        proof = self._minimal_proof(self._cell(near), {})
        if proof is None:
            raise AssertionError("a contradiction was derived that the revealed cells do not prove")
        culprits, uses_count = proof
        if len(culprits) == 1 and not uses_count:
            (cell,) = culprits
            index = self._index(cell)
            covered = sum(1 for n in self._neighbours[index] if self._symbol[n] == COVERED)
            shown = sum(1 for n in self._neighbours[index] if self._symbol[n] == MINE)
            value = int(self._symbol[index])
            if value < shown:
                detail = f"touches {shown} revealed mines"
            else:
                detail = f"has only {covered} covered neighbour{'s' * (covered != 1)}" + (
                    f" besides {shown} revealed mines" if shown else ""
                )
            return Inconsistent(f"inconsistent: the {value} at {describe(cell)} {detail}", culprits)
        parts = [f"the {self._symbol[self._index(cell)]} at {describe(cell)}" for cell in culprits]
        if uses_count:
            parts.append(f"a total of {self.total_mines} mine{'s' * (self.total_mines != 1)}")
        listed = "; ".join(parts[:-1]) + " and " + parts[-1]
        return Inconsistent(f"inconsistent: {listed} cannot all hold", culprits)

    def _minimal_proof(self, focus: Cell, assumed: dict[Cell, bool]) -> tuple[list[Cell], bool] | None:
        """A minimal set of revealed numbers (and the count, only if needed) contradicting `assumed`.

        Over what the player sees, never over what was derived. Numbers far
        from `focus` are tried for removal first, so the proof stays local.
        """
        x, y = focus
        seen = {n: self._seen_constraint(n) for n, symbol in enumerate(self._symbol) if symbol not in (COVERED, MINE)}
        # A number with nothing left to say (no covered neighbour, all its mines shown) proves nothing.
        numbers = [n for n, constraint in seen.items() if constraint.cells or constraint.mines]
        numbers.sort(key=lambda n: -max(abs(n % self.width - x), abs(n // self.width - y)))
        groups = [seen[n] for n in numbers]
        uses_count = False
        core = sat.minimal_unsatisfiable_subset(groups, None, assumed)
        if core is None:
            covered = sum(1 for symbol in self._symbol if symbol == COVERED)
            frontier = set(assumed).union(*(group.cells for group in groups))
            left = self.total_mines - self._revealed_mines
            away = covered - len(frontier)
            core = sat.minimal_unsatisfiable_subset(groups, (left - away, left), assumed)
            if core is None:
                return None
            uses_count = len(groups) in core
        cells = sorted((self._cell(numbers[i]) for i in core if i < len(groups)), key=lambda c: (c[1], c[0]))
        return cells, uses_count

    def _seen_constraint(self, number: int) -> Constraint[Cell]:
        covered = frozenset(self._cell(n) for n in self._neighbours[number] if self._symbol[n] == COVERED)
        shown = sum(1 for n in self._neighbours[number] if self._symbol[n] == MINE)
        return Constraint(covered, int(self._symbol[number]) - shown)

    def check(self) -> None:
        """Raise Inconsistent unless some layout fits the position."""
        self._settle()

    def is_outside(self, cell: Cell) -> bool:
        """Whether a covered cell is next to no revealed number."""
        return self._index(cell) in self._outside

    def frontier_exists(self) -> bool:
        """Whether some covered cell is next to a revealed number."""
        self._settle()
        return any(index not in self._outside for index in self._known) or bool(self._components)

    def safe_cell_exists(self) -> bool:
        """Whether some covered cell, outside included, is proven safe."""
        self._settle()
        return self._known_safe > 0

    def every_frontier_cell_is_a_mine(self) -> bool:
        """Whether the player has nowhere to go next to the numbers: every frontier cell is proven a mine."""
        if not self.frontier_exists() or self._components:
            return False
        return all(mine for index, mine in self._known.items() if index not in self._outside)

    def status(self, cell: Cell) -> Status:
        """Safe, mine or unknown for one covered cell."""
        index = self._index(cell)
        if self._symbol[index] != COVERED:
            raise ValueError(f"{describe(cell)} is not covered")
        self._settle()
        return self._status_of(index)

    def _status_of(self, index: int) -> Status:
        known = self._known.get(index)
        if known is None:
            # Phase 2 proves the outside block either way or not at all, so an
            # undetermined outside cell is unknown like the rest of the block.
            return Status.UNKNOWN
        return Status.MINE if known else Status.SAFE

    def classify(self) -> dict[Cell, Status]:
        """Safe, mine or unknown for every covered cell (flagged ones included)."""
        self._settle()
        return self.proven_statuses()

    def safe_cells(self) -> list[Cell]:
        """Every covered cell proven safe, without a status for every other covered cell (a big board has many)."""
        self._settle()
        return [self._cell(index) for index, mine in self._known.items() if not mine]

    def proven_statuses(self) -> dict[Cell, Status]:
        """Every covered cell's status as far as reasoning has gone, without reasoning further (classify() once
        settled)."""
        return {self._cell(i): self._status_of(i) for i, symbol in enumerate(self._symbol) if symbol == COVERED}

    def status_rows(self) -> list[str]:
        """The grid as `kaboom analyze` prints it: covered cells replaced by s, m or ?."""
        statuses = self.classify()
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                status = statuses.get((x, y))
                row.append(status.value if status else self._symbol[y * self.width + x])
            rows.append("".join(row))
        return rows

    # ----- counting -------------------------------------------------------

    def _counts(self, component: _Component, budget: Budget) -> ComponentCounts[int]:
        if component.counts is None or (isinstance(component.counts, BudgetExceeded) and budget.steps > 0):
            try:
                component.counts = counted_by_shape(sorted(component.cells), component.constraints, budget)
            except BudgetExceeded as exceeded:
                component.counts = exceeded
                raise
        if isinstance(component.counts, BudgetExceeded):
            raise component.counts
        return component.counts

    def probabilities(self, budget: Budget | None = None) -> Probabilities:
        """Exact mine probability of every covered cell; statuses stay available if the budget runs out."""
        self._settle()
        budget = (budget or Budget()).start()
        components = list(self._components)
        try:
            counts = [self._counts(component, budget) for component in components]
        except BudgetExceeded:
            return Probabilities(None, budget_exceeded=True)
        combination = Combination(counts, self._mines_left(), self._outside_size())
        frontier, outside = combination.tallies()
        parts = (self.width, self._symbol.copy(), self._known.copy(), frontier, outside)
        return Probabilities(Chances(*parts, Fraction), floats=Chances(*parts, chance))

    def frontier(self, budget: Budget | None = None) -> Frontier:
        """What the counting knows, for reasoning about moves not yet made (solver.lookahead).

        Raises BudgetExceeded when a component cannot be counted within `budget`.
        """
        self._settle()
        budget = (budget or Budget()).start()
        parts = tuple(
            FrontierPart(frozenset(component.cells), tuple(component.constraints), self._counts(component, budget))
            for component in self._components
        )
        return Frontier(
            width=self.width,
            height=self.height,
            symbols=tuple(self._symbol),
            mines=frozenset(index for index, mine in self._known.items() if mine),
            safe=frozenset(index for index, mine in self._known.items() if not mine),
            parts=parts,
            outside=tuple(self._undetermined_outside()),
            mines_left=self._mines_left(),
        )

    def sample_layout(
        self, rng: random.Random, force: tuple[Cell, bool] | None = None, budget: Budget | None = None
    ) -> Layout:
        """A full layout consistent with the position, uniform over all of them.

        `force` = (cell, True) asks for a mine there, (cell, False) for a safe
        cell; it raises Inconsistent when no layout allows that. Over the
        counting budget, or past the time limit, a valid SAT layout comes back
        with uniform=False.
        """
        forced_index, mine = None, False
        if force is not None:
            cell, mine = force
            forced_index = self._index(cell)
            if self._symbol[forced_index] != COVERED:
                raise ValueError(f"{describe(cell)} is not covered")
        interrupted = not self._settle_within_limits()
        if forced_index is not None:
            # Asked after settling: a cell the settling proves is in no component and not outside.
            known = self._known.get(forced_index)
            if known is not None and known != mine:
                raise Inconsistent(f"{describe(cell)} is proven {'a mine' if known else 'safe'}", [cell])
            if known is not None:
                forced_index = None  # nothing left to force
        if interrupted:
            return self._layout(self._sat_layout(forced_index, mine, rng), forced_index, mine, uniform=False)
        budget = (budget or Budget()).start()
        outside = self._undetermined_outside()
        mines_left = self._mines_left()
        forced_component = self._component_containing(forced_index) if forced_index is not None else None
        if forced_index is not None and forced_component is None:
            outside.remove(forced_index)
            mines_left -= int(mine)
        try:
            counts: list[ComponentCounts[int]] = []
            # In the order of their first cells, not of their making: the same position and
            # the same rng then draw the same layout, whatever moves led to the position.
            for component in sorted(self._components, key=lambda component: min(component.cells)):
                if component is forced_component and forced_index is not None:
                    extra = Constraint(frozenset([forced_index]), int(mine))
                    counts.append(ComponentCounts(sorted(component.cells), component.constraints + [extra], budget))
                else:
                    counts.append(self._counts(component, budget))
        except BudgetExceeded:
            return self._layout(self._sat_layout(forced_index, mine, rng), forced_index, mine, uniform=False)
        # An undetermined cell takes either value in some layout, so the
        # forced value leaves layouts to draw from.
        layouts, outside_mines = Combination(counts, mines_left, len(outside)).sample(rng)
        mines = set().union(*layouts)
        mines.update(rng.sample(outside, outside_mines))
        return self._layout(mines, forced_index, mine, uniform=True)

    def _settle_within_limits(self) -> bool:
        """Settle as far as the limits allow; False when they cut it short (whatever was proven stays, and
        the rest is one SAT call away)."""
        try:
            self._settle()
            return True
        except Interrupted:
            self._propagate()
            self._rebuild_components()
            return False

    def _layout(self, mines: set[int], forced: int | None, mine: bool, uniform: bool) -> Layout:
        """Mines of the undetermined cells, plus the forced, proven and revealed ones, as a Layout."""
        if forced is not None and mine and forced in self._outside:
            mines.add(forced)
        mines.update(index for index, known in self._known.items() if known)
        mines.update(index for index, symbol in enumerate(self._symbol) if symbol == MINE)
        return Layout(frozenset(self._cell(index) for index in mines), uniform)

    def _sat_layout(self, forced: int | None, mine: bool, rng: random.Random) -> set[int]:
        """A valid layout of the undetermined cells from one SAT call (not uniform); a forced outside cell is left
        out."""
        cells = sorted(cell for component in self._components for cell in component.cells)
        constraints = [constraint for component in self._components for constraint in component.constraints]
        outside = self._undetermined_outside()
        mines_left = self._mines_left()
        if forced is not None and forced in self._outside:
            outside.remove(forced)
            mines_left -= int(mine)
        elif forced is not None:
            constraints.append(Constraint(frozenset([forced]), int(mine)))
        try:
            chosen = set(sat.model_with_count(cells, constraints, mines_left - len(outside), mines_left))
        except Unsatisfiable:
            where = describe(self._cell(forced)) if forced is not None else "any cell"
            raise Inconsistent(f"no layout has {'a mine' if mine else 'no mine'} at {where}") from None
        chosen.update(rng.sample(outside, mines_left - len(chosen)))
        return chosen

    # ----- explanations -----------------------------------------------------

    def explain(self, cell: Cell) -> Explanation:
        """A minimal set of revealed numbers (and the count, if needed) that proves a cell's status."""
        status = self.status(cell)
        if status is Status.UNKNOWN:
            raise ValueError(f"{describe(cell)} is not proven safe or a mine")
        proof = self._minimal_proof(cell, {cell: status is Status.SAFE})
        if proof is None:
            raise AssertionError(f"{describe(cell)} is {status.name.lower()} but no proof was found")
        numbers, uses_count = proof
        return Explanation(cell, status, tuple(numbers), uses_count)

    # ----- a hook for questions asked elsewhere (solver.fewest) ----------------

    def undecided(self) -> Undecided:
        """Reason as far as the limits allow, as sample_layout does, and hand over what is left open.

        Never raises Interrupted: what was proven by then stays proven, and
        the rest comes back as parts with complete=False. Raises Inconsistent
        when the reasoning finds that no layout fits.
        """
        complete = self._settle_within_limits()
        components = sorted(self._components, key=lambda component: min(component.cells))
        return Undecided(
            parts=tuple(
                UndecidedPart(
                    frozenset(component.cells),
                    tuple(component.constraints),
                    functools.partial(self._counts, component),
                )
                for component in components
            ),
            outside=tuple(self._undetermined_outside()),
            mines_left=self._mines_left(),
            proven=dict(self._known),
            revealed_mines=frozenset(index for index, symbol in enumerate(self._symbol) if symbol == MINE),
            complete=complete,
        )


def _unwitnessed(components: list[_Component], mines_left: int, outside: int) -> CountQuestions[int] | None:
    """The questions phase 2 must ask SAT, or None when the known models answer them all.

    A pick of one known model per component whose total lies in [low, high]
    is a real layout of the whole board; totals reachable that way are a
    bitset (a Python int), so each question is a few shifts and masks.
    """
    low, high = mines_left - outside, mines_left
    counts = [sorted({len(w) for w in component.models()}) for component in components]
    reach = [1]
    for options in counts:
        reach.append(_sumset(reach[-1], options))
    total_reach = reach[-1]

    def hits(bits: int, first: int, last: int) -> bool:
        first = max(first, 0)
        return last >= first and bits >> first & ((1 << (last - first + 1)) - 1) != 0

    outside_mine = outside > 0 and not hits(total_reach, low, min(high, mines_left - 1))
    outside_safe = outside > 0 and not hits(total_reach, max(low, mines_left - outside + 1), high)
    cells: dict[int, set[bool]] = {}
    frontier = sum(len(component.cells) for component in components)
    if not (low <= 0 and high >= frontier):
        suffix = [1] * (len(components) + 1)
        for i in range(len(components) - 1, -1, -1):
            suffix[i] = _sumset(suffix[i + 1], counts[i])
        for i, component in enumerate(components):
            others = sumset_bits(reach[i], suffix[i + 1])
            by_value: dict[tuple[int, bool], set[int]] = {}
            for witness in component.models():
                size = len(witness)
                for cell in component.cells:
                    by_value.setdefault((cell, cell in witness), set()).add(size)
            for cell in component.cells:
                missing = {
                    value
                    for value in (True, False)
                    if not any(hits(others, low - size, high - size) for size in by_value.get((cell, value), ()))
                }
                if missing:
                    cells[cell] = missing
    if not cells and not outside_mine and not outside_safe:
        if not hits(total_reach, low, high):
            # No known pick fits the count: let SAT decide whether any does.
            return CountQuestions({}, outside > 0, outside > 0)
        return None
    return CountQuestions(cells, outside_mine, outside_safe)


def _sumset(bits: int, options: list[int]) -> int:
    result = 0
    for option in options:
        result |= bits << option
    return result


def sumset_bits(left: int, right: int) -> int:
    """Totals reachable as one from each of two sets of whole numbers, each set held as the bits of an int."""
    result, shift = 0, 0
    while right:
        if right & 1:
            result |= left << shift
        right >>= 1
        shift += 1
    return result
