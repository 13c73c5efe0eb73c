"""Brute-force answers, independent of the solver, to check it against.

Every assignment of the cells next to numbers is tried (with pruning that only
skips assignments already breaking a number); the outside cells are counted
with binomials. Exact fractions throughout.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

from solver.position import COVERED, FLAG, MINE, Position


@dataclass
class Truth:
    consistent: bool
    probability: dict  # covered cell -> Fraction
    layouts: list  # (frozenset of frontier mines, weight)
    frontier: list
    outside: list
    mines_left: int


def visible_constraints(position: Position) -> dict:
    """number cell -> (covered neighbours, mines still to find among them)."""
    result = {}
    for cell in position.cells():
        symbol = position[cell]
        if symbol in (COVERED, FLAG, MINE):
            continue
        covered = frozenset(n for n in position.neighbours(cell) if position.is_covered(n))
        shown = sum(1 for n in position.neighbours(cell) if position[n] == MINE)
        result[cell] = (covered, int(symbol) - shown)
    return result


def assignments(constraints, cells):
    """Every mine set over `cells` that satisfies every constraint (cells, mines)."""
    cells = list(cells)
    by_cell = {cell: [i for i, (scope, _) in enumerate(constraints) if cell in scope] for cell in cells}
    placed = [0] * len(constraints)
    unassigned = [len(scope) for scope, _ in constraints]
    chosen = []

    def walk(index):
        if index == len(cells):
            if all(p == mines for p, (_, mines) in zip(placed, constraints, strict=True)):
                yield frozenset(chosen)
            return
        cell = cells[index]
        for mine in (0, 1):
            ok = True
            for i in by_cell[cell]:
                placed[i] += mine
                unassigned[i] -= 1
            for i in by_cell[cell]:
                if placed[i] > constraints[i][1] or placed[i] + unassigned[i] < constraints[i][1]:
                    ok = False
            if ok:
                if mine:
                    chosen.append(cell)
                yield from walk(index + 1)
                if mine:
                    chosen.pop()
            for i in by_cell[cell]:
                placed[i] -= mine
                unassigned[i] += 1

    yield from walk(0)


def truth(position: Position) -> Truth:
    constraints = list(visible_constraints(position).values())
    frontier = sorted(set().union(*(scope for scope, _ in constraints)))
    covered = [cell for cell in position.cells() if position.is_covered(cell)]
    outside = [cell for cell in covered if cell not in set(frontier)]
    mines_left = position.mines - sum(1 for cell in position.cells() if position[cell] == MINE)
    layouts = []
    for mines in assignments(constraints, frontier):
        rest = mines_left - len(mines)
        weight = comb(len(outside), rest) if 0 <= rest <= len(outside) else 0
        if weight:
            layouts.append((mines, weight))
    total = sum(weight for _, weight in layouts)
    if total == 0:
        return Truth(False, {}, [], frontier, outside, mines_left)
    probability = {}
    for cell in frontier:
        probability[cell] = Fraction(sum(w for mines, w in layouts if cell in mines), total)
    if outside:
        share = Fraction(sum(w * (mines_left - len(mines)) for mines, w in layouts), total * len(outside))
        for cell in outside:
            probability[cell] = share
    return Truth(True, probability, layouts, frontier, outside, mines_left)


def proves(position: Position, numbers, uses_count: bool, cell, is_mine: bool) -> bool:
    """Whether these numbers (and the count, if used) alone rule out the opposite of `is_mine` at `cell`."""
    everything = visible_constraints(position)
    constraints = [everything[n] for n in numbers] + [(frozenset([cell]), 0 if is_mine else 1)]
    scope = sorted(set().union(*(s for s, _ in constraints)))
    covered = [c for c in position.cells() if position.is_covered(c)]
    away = len(covered) - len(scope)
    mines_left = position.mines - sum(1 for c in position.cells() if position[c] == MINE)
    for mines in assignments(constraints, scope):
        if not uses_count or 0 <= mines_left - len(mines) <= away:
            return False
    return True
