"""Choosing the next cell to reveal from what a position proves.

One place for the solver-guided choice that benchmarks, tests and (later)
the bot and the Flags computer make, so that they all play the same way.
`progress_cell` is the cruel-but-fair player: under those rules (DESIGN.md
§1.1) a proven-safe cell is safe, and when none exists a frontier guess is
safe, then the outside; the choice therefore never loses a cruel game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from solver.analysis import Analyzer, Status
from solver.counting import Budget
from solver.local import subtract_groups
from solver.position import COVERED, FLAG, Cell, neighbour_table


def safe_cells(analyzer: Analyzer) -> list[Cell]:
    """Every covered cell proven safe, in reading order (row by row)."""
    return _reading_order(analyzer.safe_cells())


def progress_cell(analyzer: Analyzer, rng: random.Random | None = None) -> Cell | None:
    """A proven-safe cell, else an unknown cell next to a number, else any unknown cell.

    With `rng` the cell is drawn at random from the best group; without, it
    is the first of that group in reading order, so callers that must be
    repeatable (tests) get the same cell for the same position. None when
    every covered cell is a proven mine.
    """
    statuses = analyzer.classify()
    safe = [cell for cell, status in statuses.items() if status is Status.SAFE]
    unknown = [cell for cell, status in statuses.items() if status is Status.UNKNOWN]
    frontier = [cell for cell in unknown if not analyzer.is_outside(cell)]
    for group in (safe, frontier, unknown):
        if group:
            return _pick(group, rng)
    return None


def _pick(cells: Sequence[Cell], rng: random.Random | None) -> Cell:
    ordered = _reading_order(cells)
    return rng.choice(ordered) if rng is not None else ordered[0]


def _reading_order(cells) -> list[Cell]:
    return sorted(cells, key=lambda cell: (cell[1], cell[0]))


# ----- the bot's strategies (DESIGN.md §1.4) -------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """What a strategy opens next: proven-safe cells (all of them at once), or one guess with the chance
    of a mine the strategy gave it (None when it could not count)."""

    cells: tuple[Cell, ...]
    guess: bool
    mine_probability: float | None = None


# Guesses this close to the safest count as equally safe; among them progress decides.
SAFETY_TOLERANCE = 0.005


def groups(width: int, height: int, symbols: Sequence[str], analyzer: Analyzer, rng: random.Random) -> Choice:
    """The seeds' Java bot: its group rules to their fixpoint (solver.local.subtract_groups), else a random
    covered cell that they do not prove a mine."""
    found = subtract_groups(width, height, symbols)
    if found.safe:
        return Choice(tuple(_reading_order((i % width, i // width) for i in found.safe)), guess=False)
    mines = set(found.mines)
    covered = [(i % width, i // width) for i, symbol in enumerate(symbols) if symbol in (COVERED, FLAG)]
    return Choice((rng.choice([cell for cell in covered if cell[1] * width + cell[0] not in mines] or covered),), guess=True)


def exact(width: int, height: int, symbols: Sequence[str], analyzer: Analyzer, rng: random.Random) -> Choice:
    """Every proven-safe cell (the exact solver's, count included); else the guess least likely to be a
    mine by exact probability, and among those nearly as safe, the one most likely to open an area."""
    safe = analyzer.safe_cells()
    if safe:
        return Choice(tuple(_reading_order(safe)), guess=False)
    counted = analyzer.probabilities(Budget())
    if counted.cells is None:
        cell = progress_cell(analyzer, rng)
        assert cell is not None
        return Choice((cell,), guess=True)
    chances = {cell: float(chance) for cell, chance in counted.cells.items() if chance < 1}
    safest = min(chances.values())
    near = [cell for cell, chance in chances.items() if chance <= safest + SAFETY_TOLERANCE]

    def opening_chance(cell: Cell) -> float:
        # The chance that the cell is safe and shows a zero, its neighbours taken as independent: a corner
        # away from the numbers opens more often than a cell in the middle.
        x, y = cell
        chance = 1 - chances[cell]
        for n in neighbour_table(width, height)[y * width + x]:
            if symbols[n] in (COVERED, FLAG):
                chance *= 1 - float(counted.cells[(n % width, n // width)])
        return chance

    best = max(near, key=lambda cell: (opening_chance(cell), -chances[cell], rng.random()))
    return Choice((best,), guess=True, mine_probability=chances[best])


STRATEGIES = {"groups": groups, "exact": exact}
