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

from solver.analysis import Analyzer, Status
from solver.position import Cell


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
