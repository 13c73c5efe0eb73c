"""Exact counting of layouts: probabilities and uniform sampling.

Each independent component of the frontier is counted by mine count with a
dynamic programme over its cells in a fixed order; the state is the residual
count of every constraint that has cells on both sides of the cut. Components
are then combined by convolution, each frontier total t weighted by
C(outside, mines_left - t), the number of ways to put the rest outside. All
counts are Python integers: nothing overflows and no rounding ever makes an
unknown cell look certain. The only floats are the final quotients.

Counting can blow up on artificial positions (scattered numbers forming one
huge component), so every table is built under a Budget.
"""

from __future__ import annotations

import random
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import add, mul
from typing import Any, Generic

from solver.sat import C, Constraint

Poly = list[int]  # index k -> number of layouts with k mines
State = tuple[int, ...]  # the dynamic programme's state: the residual of each open constraint


class BudgetExceeded(Exception):
    """The counting work went past its budget; statuses are still available from SAT."""


@dataclass
class Budget:
    """How much counting work one question may take.

    `steps` is deterministic (units of DP work, about 0.1-0.3 microseconds
    each), so what counting decides does not depend on the machine or its
    load; `deadline` (time.monotonic() seconds) is the request's last guard.
    """

    steps: int = 10_000_000
    deadline: float | None = None
    used: int = 0

    def start(self) -> Budget:
        self.used = 0
        return self

    def spend(self, steps: int) -> None:
        self.used += steps
        if self.used > self.steps:
            raise BudgetExceeded(f"counting needed more than {self.steps} steps")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise BudgetExceeded("counting ran out of time")


def _add_shifted(target: Poly, source: Poly, shift: int) -> None:
    # The tables add up millions of these on a big board: slices and map keep the loop out of Python.
    if not target:
        target.extend([0] * shift)
        target.extend(source)
        return
    end = shift + len(source)
    if len(target) < end:
        target.extend([0] * (end - len(target)))
    target[shift:end] = map(add, target[shift:end], source)


def convolve(left: Poly, right: Poly) -> Poly:
    # Looped over the shorter side, with the longer one's products made by map: a board's combined mine
    # counts are long, and most components have only one to three.
    if len(left) < len(right):
        left, right = right, left
    result = [0] * (len(left) + len(right) - 1)
    width = len(left)
    for i, b in enumerate(right):
        if b:
            result[i : i + width] = map(add, result[i : i + width], map(b.__mul__, left))
    return result


def _correlate(weights: Poly, counts: Poly, length: int) -> Poly:
    """result[d] = sum over e of counts[e] * weights[d + e], for d below `length` (len(weights) is at
    least length + len(counts) - 1): the weight of what follows, given d mines before."""
    if length <= len(counts):
        return [sum(map(mul, counts, weights[d : d + len(counts)])) for d in range(length)]
    result = [0] * length
    for e, count in enumerate(counts):
        if count:
            result = list(map(add, result, map(count.__mul__, weights[e : e + length])))
    return result


def chance(mines: int, layouts: int) -> float:
    """A tally's quotient as a float (exactly what float(Fraction(mines, layouts)) gives, without the
    gcd): 0.0 only where no layout has a mine."""
    return mines / layouts if mines else 0.0


def _choose(rng: random.Random, weights: Sequence[int]) -> int:
    """An index drawn with probability proportional to its (big integer) weight."""
    pick = rng.randrange(sum(weights))
    for index, weight in enumerate(weights):
        if pick < weight:
            return index
        pick -= weight
    raise AssertionError("weights changed while choosing")


def _membership(cells: Sequence[C], constraints: Sequence[Constraint[C]]) -> dict[C, list[int]]:
    member_of: dict[C, list[int]] = {cell: [] for cell in cells}
    for index, constraint in enumerate(constraints):
        for cell in constraint.cells:
            member_of[cell].append(index)
    return member_of


def _cell_order(cells: Sequence[C], constraints: Sequence[Constraint[C]], budget: Budget) -> list[C]:
    """Greedy order that keeps few constraints open at once (the DP state is their residuals)."""
    member_of = _membership(cells, constraints)
    unplaced_in = [len(constraint.cells) for constraint in constraints]
    opened: set[int] = set()
    # Unplaced cells of open constraints: the next cell comes from here, so
    # that the order sweeps the component instead of jumping around.
    touching: set[C] = set()
    remaining = set(cells)
    # Each cell's constraints not yet opened, and those it would close (its last unplaced cell), kept up to
    # date as cells are placed: a big component's order weighs thousands of candidates.
    new = {cell: len(member_of[cell]) for cell in cells}
    closing = dict.fromkeys(cells, 0)
    for index, constraint in enumerate(constraints):
        if unplaced_in[index] == 1:
            for cell in constraint.cells:
                closing[cell] += 1
    names = {cell: repr(cell) for cell in cells}

    def cost(cell: C) -> tuple[int, int, str]:
        return (new[cell] - closing[cell], new[cell], names[cell])

    order = []
    while remaining:
        candidates = touching or remaining
        budget.spend(len(candidates))
        cell = min(candidates, key=cost)
        order.append(cell)
        remaining.discard(cell)
        touching.discard(cell)
        for index in member_of[cell]:
            if index not in opened:
                opened.add(index)
                touching.update(c for c in constraints[index].cells if c in remaining)
                for member in constraints[index].cells:
                    new[member] -= 1
            unplaced_in[index] -= 1
            if unplaced_in[index] == 1:
                for member in constraints[index].cells:
                    if member in remaining:
                        closing[member] += 1
    return order


class _Step:
    """How the state changes when the DP decides one cell.

    closing: constraints whose last cell this is, as (index in the state before
    or None when opened here, initial residual); they must reach exactly zero.
    following: the constraints open after this cell, as (index in the state
    before or None, initial residual, contains this cell, cells still to come).
    """

    __slots__ = ("closing", "following", "cost")

    def __init__(self, closing: list[tuple[int | None, int]], following: list[tuple[int | None, int, bool, int]]):
        self.closing = closing
        self.following = following
        # Budget units for one state: both values, each touching every open constraint.
        self.cost = 2 * (1 + len(closing) + len(following))

    def successors(self, state: State) -> tuple[State | None, State | None]:
        """apply(state, 0) and apply(state, 1) in one pass: the tables ask for both of every state."""
        empty: list[int] | None = []
        full: list[int] | None = []
        for source, initial in self.closing:
            residual = initial if source is None else state[source]
            if residual != 0:
                empty = None
            if residual != 1:
                full = None
        for source, initial, contains, still_to_come in self.following:
            if empty is None and full is None:
                break
            residual = initial if source is None else state[source]
            if empty is not None:
                if 0 <= residual <= still_to_come:
                    empty.append(residual)
                else:
                    empty = None
            if full is not None:
                if contains:
                    residual -= 1
                if 0 <= residual <= still_to_come:
                    full.append(residual)
                else:
                    full = None
        return (None if empty is None else tuple(empty)), (None if full is None else tuple(full))

    def apply(self, state: State, mine: int) -> State | None:
        for source, initial in self.closing:
            if (initial if source is None else state[source]) != mine:
                return None
        after = []
        for source, initial, contains, still_to_come in self.following:
            residual = (initial if source is None else state[source]) - (mine if contains else 0)
            if residual < 0 or residual > still_to_come:
                return None
            after.append(residual)
        return tuple(after)


def _plan(order: Sequence[C], constraints: Sequence[Constraint[C]]) -> list[_Step]:
    member_of = _membership(order, constraints)
    position = {cell: index for index, cell in enumerate(order)}
    last = [max(position[cell] for cell in constraint.cells) for constraint in constraints]
    still_to_come = [len(constraint.cells) for constraint in constraints]
    steps = []
    open_before: list[int] = []
    for t, cell in enumerate(order):
        slot = {index: place for place, index in enumerate(open_before)}
        touching = set(member_of[cell])
        for index in touching:
            still_to_come[index] -= 1
        closing = [(slot.get(index), constraints[index].mines) for index in touching if last[index] == t]
        open_after = sorted({index for index in open_before if last[index] > t} | {i for i in touching if last[i] > t})
        following = [
            (slot.get(index), constraints[index].mines, index in touching, still_to_come[index]) for index in open_after
        ]
        steps.append(_Step(closing, following))
        open_before = open_after
    return steps


def _spend_each(budget: Budget, charges: list[int]) -> None:
    """Charges these one by one, as a loop doing their work would: all at once when they fit (the time is
    looked at once), else one by one, so that the budget runs out at the same one."""
    if not charges:
        return
    total = sum(charges)
    if budget.used + total <= budget.steps:
        budget.spend(total)
        return
    for charge in charges:
        budget.spend(charge)


# One lock for every table's tallies: they are counted once, and rarely by two threads at once.
_TALLYING = threading.Lock()


class ComponentCounts(Generic[C]):
    """Layouts of one component counted by mine count, with per-cell mine counts."""

    def __init__(
        self, cells: Sequence[C], constraints: Sequence[Constraint[C]], budget: Budget, tally_later: bool = False
    ):
        constraints = list(constraints)
        self.order = _cell_order(cells, constraints, budget)
        self.steps = _plan(self.order, constraints)
        forward: list[dict[State, Poly]] = [{(): [1]}]
        # moves[t]: every state before cell t, its layouts so far, and where it leads when the cell is empty and
        # when it is a mine (None where it cannot), in forward[t]'s order.
        moves: list[list[tuple[State, Poly, State | None, State | None]]] = []
        for step in self.steps:
            layer: dict[State, Poly] = {}
            budget.spend(len(forward[-1]) * step.cost)
            leads = []
            for state, poly in forward[-1].items():
                empty, full = step.successors(state)
                if empty is not None:
                    _add_shifted(layer.setdefault(empty, []), poly, 0)
                if full is not None:
                    _add_shifted(layer.setdefault(full, []), poly, 1)
                leads.append((state, poly, empty, full))
            forward.append(layer)
            moves.append(leads)
        # backward[t][state]: completions of cells t.. by their number of mines.
        backward: list[dict[State, Poly]] = [{} for _ in forward]
        backward[-1] = {state: [1] for state in forward[-1]}
        can_be_empty = [False] * len(self.steps)  # cell t: some layout leaves it empty
        # What counting the per-cell tallies costs, cell by cell: charged with the whole count below.
        tally_charges: list[list[int]] = [[] for _ in self.steps]
        for t in range(len(self.steps) - 1, -1, -1):
            budget.spend(len(forward[t]) * self.steps[t].cost)
            layer, following, charges = backward[t], backward[t + 1], tally_charges[t]
            for state, before, empty, full in moves[t]:
                poly = []
                if empty is not None and empty in following:
                    _add_shifted(poly, following[empty], 0)
                    can_be_empty[t] = True
                if full is not None and full in following:
                    _add_shifted(poly, following[full], 1)
                    charges.append(len(before) * len(following[full]))
                if any(poly):
                    layer[state] = poly
        self._backward = backward
        total = backward[0].get((), [])
        self.low = next((k for k, count in enumerate(total) if count), 0)
        last = max((k for k, count in enumerate(total) if count), default=-1)
        # by_mines[e]: layouts with low+e mines.
        self.by_mines: Poly = total[self.low : last + 1]
        self.always_mines = [cell for cell, empty in zip(self.order, can_be_empty, strict=True) if not empty]
        # The per-cell tallies are charged now, as the whole count; with tally_later they are counted when first
        # asked for: looking ahead (solver.lookahead) asks mostly which cells are always mines.
        _spend_each(budget, [charge for charges in tally_charges for charge in charges])
        self._moves: list[list[tuple[State, Poly, State | None, State | None]]] | None = moves
        self._mine_by_mines: dict[C, Poly] | None = None
        if not tally_later:
            # A table kept (an analyzer's, which a server caches by its footprint) holds its tallies, not the
            # forward pass they are counted from: that would double what it holds.
            self._mine_by_mines = self._tally()
            self._moves = None

    @property
    def mine_by_mines(self) -> dict[C, Poly]:
        """Layouts with a mine on each cell, by mine count as by_mines."""
        if self._mine_by_mines is None:
            with _TALLYING:
                if self._mine_by_mines is None:
                    self._mine_by_mines = self._tally()
                    self._moves = None
        return self._mine_by_mines

    def relabelled(self, cells: dict[C, C]) -> ComponentCounts[C]:
        """The same tables over other cells, each of this one's mapped to the cell in its place: a component of
        the same shape (counted_by_shape)."""
        twin: ComponentCounts[C] = object.__new__(ComponentCounts)
        # The tables are never changed once built: the twin reads the same ones.
        twin.steps, twin._backward, twin.low, twin.by_mines = self.steps, self._backward, self.low, self.by_mines
        twin.order = [cells[cell] for cell in self.order]
        twin.always_mines = [cells[cell] for cell in self.always_mines]
        twin._moves = None
        twin._mine_by_mines = {cells[cell]: tally for cell, tally in self.mine_by_mines.items()}
        return twin

    def _tally(self) -> dict[C, Poly]:
        moves, backward = self._moves, self._backward
        assert moves is not None, "the tables were dropped before tallying"
        last = self.low + len(self.by_mines) - 1
        tallies: dict[C, Poly] = {}
        for t, cell in enumerate(self.order):
            poly: Poly = []
            following = backward[t + 1]
            for _, before, _, full in moves[t]:
                if full is not None and full in following:
                    _add_shifted(poly, convolve(before, following[full]), 1)
            poly = poly[self.low : last + 1]
            tallies[cell] = poly + [0] * (len(self.by_mines) - len(poly))
        return tallies

    @property
    def width(self) -> int:
        return len(self.by_mines) - 1

    def sample(self, rng: random.Random, mines: int) -> frozenset[C]:
        """A layout with exactly `mines` mines, uniform among those."""
        state: State | None = ()
        left = mines
        chosen = []
        for t, cell in enumerate(self.order):
            assert state is not None, "a step with no layout was chosen"
            options = []
            for mine in (0, 1):
                after = self.steps[t].apply(state, mine)
                completions = self._backward[t + 1].get(after, []) if after is not None else []
                weight = completions[left - mine] if 0 <= left - mine < len(completions) else 0
                options.append((weight, mine, after))
            weight, mine, state = options[_choose(rng, [option[0] for option in options])]
            if mine:
                chosen.append(cell)
                left -= 1
        return frozenset(chosen)

    def layouts(self, mines: int) -> Iterator[frozenset[C]]:
        """Every layout with exactly `mines` mines; the tables lead only into branches that complete."""
        chosen: list[C] = []

        def walk(t: int, state: State, left: int) -> Iterator[frozenset[C]]:
            if t == len(self.order):
                yield frozenset(chosen)
                return
            for mine in (0, 1):
                after = self.steps[t].apply(state, mine)
                if after is None:
                    continue
                completions = self._backward[t + 1].get(after, [])
                if 0 <= left - mine < len(completions) and completions[left - mine]:
                    if mine:
                        chosen.append(self.order[t])
                    yield from walk(t + 1, after, left - mine)
                    if mine:
                        chosen.pop()

        yield from walk(0, (), mines)


# Components up to this many cells are kept by their shape, and this many shapes at most (the least recently
# used goes first). Over 100 Expert games (`bench/probabilities.py`'s play) this keeps 2.2 MB per process and
# counts 0.25 components per probabilities() call instead of 0.56; keeping 4,096 shapes of up to 24 cells
# saved only 0.05 more, for 51 MB.
SHAPE_CELLS = 12
SHAPES_KEPT = 256
# shape -> (the tables, their cells as ranked, the budget their counting spent)
_SHAPES: OrderedDict[tuple[tuple[tuple[int, ...], int], ...], tuple[ComponentCounts[Any], list[Any], int]] = (
    OrderedDict()
)
_SHAPES_LOCK = threading.Lock()


def counted_by_shape(cells: Sequence[C], constraints: Sequence[Constraint[C]], budget: Budget) -> ComponentCounts[C]:
    """ComponentCounts(cells, constraints, budget), from the tables of a component of the same shape when one was
    counted before: the same counts, the same order of cells (so the same layouts drawn from the same seed) and
    the same budget spent, hence the same BudgetExceeded.

    The shape is the constraints over the cells ranked as _cell_order breaks its ties (by repr): two components
    of one shape are then ordered alike, cell for cell.
    """
    if len(cells) > SHAPE_CELLS:
        return ComponentCounts(cells, constraints, budget)
    ranked = sorted(cells, key=repr)
    rank = {cell: place for place, cell in enumerate(ranked)}
    shape = tuple(sorted((tuple(sorted(rank[cell] for cell in c.cells)), c.mines) for c in constraints))
    with _SHAPES_LOCK:
        kept = _SHAPES.get(shape)
        if kept is not None:
            _SHAPES.move_to_end(shape)
    if kept is not None:
        tables, their_cells, spent = kept
        budget.spend(spent)
        return tables.relabelled(dict(zip(their_cells, ranked, strict=True)))
    before = budget.used
    counts = ComponentCounts(cells, constraints, budget)
    with _SHAPES_LOCK:
        _SHAPES[shape] = (counts, ranked, budget.used - before)
        if len(_SHAPES) > SHAPES_KEPT:
            _SHAPES.popitem(last=False)
    return counts


def _outside_weights(low_total: int, span: int, mines_left: int, outside: int) -> list[int]:
    """weights[d] proportional to C(outside, mines_left - low_total - d), for d in 0..span.

    Built from the ratio of neighbouring binomials, so the integers carry about
    span*log2(outside) bits instead of log2 C(outside, mines_left) (thousands of
    bits on a 100x100 board).
    """
    first = max(0, mines_left - outside - low_total)
    last = min(span, mines_left - low_total)
    weights = [0] * (span + 1)
    if first > last:
        return weights
    # W(t)/W(t+1) = (outside - mines_left + t + 1) / (mines_left - t)
    rising = [1] * (last - first + 1)
    for d in range(first + 1, last + 1):
        rising[d - first] = rising[d - first - 1] * (mines_left - low_total - (d - 1))
    falling = [1] * (last - first + 1)
    for d in range(last - 1, first - 1, -1):
        falling[d - first] = falling[d - first + 1] * (outside - mines_left + low_total + d + 1)
    for d in range(first, last + 1):
        weights[d] = rising[d - first] * falling[d - first]
    return weights


class Combination(Generic[C]):
    """All components and the outside together, under the global mine count."""

    def __init__(self, components: Sequence[ComponentCounts[C]], mines_left: int, outside: int):
        self.components = list(components)
        self.mines_left = mines_left
        self.outside = outside
        self.low_total = sum(component.low for component in self.components)
        # Components whose mine count never varies only shift the total: their
        # weight is the same factor in every term and cancels.
        self.varying = [i for i, component in enumerate(self.components) if component.width > 0]
        span = sum(self.components[i].width for i in self.varying)
        self.weights = _outside_weights(self.low_total, span, mines_left, outside)
        # before[j]: mine counts of varying components 0..j-1 combined;
        # after[j][d]: weight of all layouts of varying components j.. and the
        # outside, given d extra mines in components before j.
        self.before: list[Poly] = [[1]]
        for i in self.varying:
            self.before.append(convolve(self.before[-1], self.components[i].by_mines))
        self.after: list[Poly] = [[] for _ in range(len(self.varying) + 1)]
        self.after[-1] = self.weights
        for j in range(len(self.varying) - 1, -1, -1):
            counts = self.components[self.varying[j]].by_mines
            self.after[j] = _correlate(self.after[j + 1], counts, len(self.before[j]))
        self.total = sum(count * weight for count, weight in zip(self.before[-1], self.weights, strict=True))
        if self.total == 0:
            raise ValueError("no layout puts the mines left on the covered cells")

    def _rest_weight(self, j: int) -> Poly:
        """rest[e]: weight of everything but varying component j, given it holds low+e mines."""
        before, after = self.before[j], self.after[j + 1]
        width = self.components[self.varying[j]].width
        return _correlate(after, before, width + 1)

    def tallies(self) -> tuple[dict[C, tuple[int, int]], tuple[int, int] | None]:
        """Every frontier cell's (layouts with a mine there, layouts), in units of its own, and the same for
        any one outside cell (None without one): the exact chances, before any quotient is taken."""
        tallies: dict[C, tuple[int, int]] = {}
        position = {i: j for j, i in enumerate(self.varying)}
        for i, component in enumerate(self.components):
            if i in position:
                rest = self._rest_weight(position[i])
                denominator = sum(map(mul, component.by_mines, rest))
                tallies.update(
                    (cell, (sum(map(mul, mines, rest)), denominator)) for cell, mines in component.mine_by_mines.items()
                )
            else:
                # Its mine count never varies: the rest of the board weighs the same in each of its layouts.
                layouts = component.by_mines[0]
                for cell, mines in component.mine_by_mines.items():
                    tallies[cell] = (mines[0], layouts)
        outside = None
        if self.outside:
            mines_outside = sum(
                count * weight * (self.mines_left - self.low_total - d)
                for d, (count, weight) in enumerate(zip(self.before[-1], self.weights, strict=True))
            )
            outside = (mines_outside, self.outside * self.total)
        return tallies, outside

    def probabilities(self) -> tuple[dict[C, Fraction], Fraction | None]:
        """Exact mine probability of every frontier cell, and of any one outside cell."""
        tallies, outside = self.tallies()
        exact = {cell: Fraction(mines, layouts) for cell, (mines, layouts) in tallies.items()}
        return exact, None if outside is None else Fraction(*outside)

    def chances(self) -> tuple[dict[C, float], float | None]:
        """The same as floats, for comparing many moves quickly; exactly 0.0 only for a cell that is
        safe in every layout (no Fraction is built)."""
        tallies, outside = self.tallies()
        return {cell: chance(*tally) for cell, tally in tallies.items()}, None if outside is None else chance(*outside)

    def sample(self, rng: random.Random) -> tuple[list[frozenset[C]], int]:
        """Mine sets for every component and the number of outside mines, uniform over layouts."""
        extra = {}
        taken = 0
        for j, i in enumerate(self.varying):
            counts = self.components[i].by_mines
            following = self.after[j + 1]
            e = _choose(rng, [count * following[taken + e] for e, count in enumerate(counts)])
            extra[i] = e
            taken += e
        layouts = [
            component.sample(rng, component.low + extra.get(i, 0)) for i, component in enumerate(self.components)
        ]
        return layouts, self.mines_left - self.low_total - taken
