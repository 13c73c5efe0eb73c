"""Fixed layouts: the mines of a board dealt at its first click.

Cells are indices (y * width + x), as in `neighbour_table`. Every layout here
is drawn uniformly from those its rule allows, with the randomness the caller
gives (a game derives it from its secret seed and the first click, so the same
seed and click always deal the same board).
"""

from __future__ import annotations

import random

from solver.analysis import Analyzer, Status
from solver.limits import Allowance
from solver.position import COVERED, Neighbours, Position, neighbour_table


def opening_layout(width: int, height: int, mines: int, first: int, rng: random.Random) -> frozenset[int] | None:
    """The mines anywhere but on `first` and its neighbours, so the first click opens an area;
    None when they do not fit outside the opening."""
    opening = {first, *neighbour_table(width, height)[first]}
    return _anywhere_but(width * height, mines, opening, rng)


def first_click_layout(
    width: int, height: int, mines: int, first: int, rng: random.Random, *, opening: bool = True
) -> frozenset[int]:
    """A layout that spares the first click: an opening when asked for and the mines fit around one,
    otherwise the clicked cell alone (old Windows' "first click safe")."""
    layout = opening_layout(width, height, mines, first, rng) if opening else None
    if layout is None:
        layout = _anywhere_but(width * height, mines, {first}, rng)
    if layout is None:
        raise ValueError(f"{mines} mines do not fit on {width * height - 1} cells")
    return layout


def _anywhere_but(cells: int, mines: int, spared: set[int], rng: random.Random) -> frozenset[int] | None:
    # In index order, so that a seed deals the same layout on every Python.
    elsewhere = [index for index in range(cells) if index not in spared]
    if len(elsewhere) < mines:
        return None
    return frozenset(rng.sample(elsewhere, mines))


# ----- no-guess layouts (Tatham's "Ensure solubility") ------------------------------------------

# How many perturbations a no-guess layout may take before the generator gives up: counted, not
# timed, so that a seed deals the same board on every machine (a board id must always deal the
# same layout). bench/generate.py measured at most 131 on Expert at 30 % and 37 on 100x100 at 25 %.
PERTURBATIONS = 400
# What the search's Python side costs in the solver's work units (solver/limits.py; its SAT calls charge
# themselves), so that an allowance stops a search at the same point on every machine: each cell read
# into an analyzer, each cell of the board once per play from the start, and each round of asking for
# the proven-safe cells. Fitted to the processor time of boards from 9x9 to 100x100 (bench/generate.py
# --work): a unit came to 0.036-0.060 microseconds on a 2-core machine, as the solver's own do.
REVEAL_UNITS = 128
PASS_UNITS = 16
ROUND_UNITS = 550
# Below both, the slowest search measured (sizes from 16x16 to 40x40 at densities from 10 % to 80 %,
# bench/generate.py --sizes 28x28 30x30 --densities 38 55 --no-play and the like) took 0.29 s of processor
# time (28x28 with 298 mines; Expert at most 0.15 s at any density); at or above either, searches took
# 0.3-1.6 s (30x30 with 495 mines, 35x35 with 551, 40x40 with 960) and dense 100x100 boards their whole
# allowance.
SLOW_SEARCH_CELLS = 1000
SLOW_SEARCH_MINES = 300


def slow_search(width: int, height: int, mines: int) -> bool:
    """Whether a no-guess search for this board may take long enough to keep it away from cheap work:
    decided by size and mines alone, before it starts, so the same board always goes the same way."""
    return width * height >= SLOW_SEARCH_CELLS or mines >= SLOW_SEARCH_MINES


class NoGuessImpossible(ValueError):
    """No no-guess layout was found within the budget: the density is too high for this size."""


def no_guess_layout(
    width: int,
    height: int,
    mines: int,
    first: int,
    rng: random.Random,
    *,
    opening: bool = True,
    budget: int = PERTURBATIONS,
    allowance: Allowance | None = None,
) -> frozenset[int]:
    """A layout that a player can clear from the first click at `first` by deduction alone.

    "Deduction" is the exact solver's: every cell proven safe by the numbers
    and the total mine count together (solver.Analyzer), so no guess is ever
    needed. Tatham's method: deal, play the board as a player who opens only
    proven-safe cells, and where that player is stuck move a mine into or out
    of the stuck region; repeat until a play from the first click needs no
    change. `budget` counts perturbations; past it, NoGuessImpossible.
    `allowance` bounds the search's work and time: past its work OutOfWork,
    at the same point for the same seed on any machine; past its deadline
    OutOfTime. Neither changes which layout is dealt, only whether one is.
    """
    layout = set(first_click_layout(width, height, mines, first, rng, opening=opening))
    # The first click's promise (an opening, or the cell alone) holds for every change.
    spared = {first} | (
        set(neighbour_table(width, height)[first])
        if opening and not layout & set(neighbour_table(width, height)[first])
        else set()
    )
    spent = 0
    opened: set[int] | None = None  # where the last stuck play stood, to go on from after a change
    while True:
        # Go on from where the last play was stuck (the layout changed only among covered cells);
        # once such a play clears the board, the board must also be cleared from the first click alone.
        stuck = _deduce_all(width, height, mines, layout, first, opened, allowance)
        if stuck is None and opened is not None:
            opened = None
            stuck = _deduce_all(width, height, mines, layout, first, None, allowance)
        if stuck is None:
            return frozenset(layout)
        spent += 1
        if spent > budget:
            raise NoGuessImpossible(
                f"no {width}x{height} board with {mines} mines that can be solved without guessing was found "
                f"within {budget} changes: try fewer mines"
            )
        _perturb(width, height, layout, stuck, spared, rng)
        opened = stuck.opened


class _Stuck:
    """Where a player who opens only proven-safe cells has to stop: what is open, and what is undetermined."""

    def __init__(self, opened: set[int], frontier: list[int], outside: list[int], frontier_mines: list[int]):
        self.opened = opened
        self.frontier = frontier  # undetermined covered cells next to an open number
        self.outside = outside  # undetermined covered cells next to none
        self.frontier_mines = frontier_mines  # proven mines next to an open number


def _deduce_all(
    width: int,
    height: int,
    mines: int,
    layout: set[int],
    first: int,
    opened: set[int] | None,
    allowance: Allowance | None = None,
) -> _Stuck | None:
    """Play `layout` opening every proven-safe cell, from `opened` (or the first click's flood); None once
    every safe cell is open, else where the play stopped. Each step is paid for before it is taken."""
    neighbours = neighbour_table(width, height)
    charge = allowance.charge if allowance is not None else lambda units: None
    charge(PASS_UNITS * width * height)

    def number(index: int) -> str:
        return str(sum(1 for n in neighbours[index] if n in layout))

    symbols = [COVERED] * (width * height)
    opened = set(opened) if opened is not None else set(_flood(neighbours, layout, [first], set()))
    charge(REVEAL_UNITS * len(opened))
    for index in opened:
        symbols[index] = number(index)
    analyzer = Analyzer(
        Position(width, height, mines, tuple("".join(symbols[y * width : (y + 1) * width]) for y in range(height)))
    )
    safe_left = width * height - mines - len(opened)
    with analyzer.limits(allowance):
        while safe_left:
            charge(ROUND_UNITS)
            safe = [y * width + x for x, y in analyzer.safe_cells()]
            if not safe:
                statuses = analyzer.classify()
                frontier: list[int] = []
                outside: list[int] = []
                frontier_mines: list[int] = []
                for (x, y), status in sorted(statuses.items(), key=lambda item: item[0][::-1]):
                    index = y * width + x
                    if status is Status.UNKNOWN:
                        (outside if analyzer.is_outside((x, y)) else frontier).append(index)
                    elif status is Status.MINE and not analyzer.is_outside((x, y)):
                        frontier_mines.append(index)
                return _Stuck(opened, frontier, outside, frontier_mines)
            new = _flood(neighbours, layout, safe, opened)
            charge(REVEAL_UNITS * len(new))
            opened.update(new)
            safe_left -= len(new)
            analyzer.reveal({(index % width, index // width): number(index) for index in new})
    return None


def _flood(neighbours: Neighbours, layout: set[int], starts: list[int], opened: set[int]) -> list[int]:
    """The cells that opening `starts` shows, zeros spreading, none of them already in `opened`."""
    shown: list[int] = []
    seen = set(opened)
    queue = [start for start in starts if start not in seen]
    seen.update(queue)
    while queue:
        index = queue.pop()
        shown.append(index)
        if not any(n in layout for n in neighbours[index]):
            for n in neighbours[index]:
                if n not in seen and n not in layout:
                    seen.add(n)
                    queue.append(n)
    return shown


def _perturb(width: int, height: int, layout: set[int], stuck: _Stuck, spared: set[int], rng: random.Random) -> None:
    """Change one cell of each stuck region (a mine out of it, or into it), moving a mine to or from
    another cell so that the count stays. Every region at once: each change means playing on from a
    fresh analysis, which on a big board costs more than the change."""
    neighbours = neighbour_table(width, height)
    regions = _regions(neighbours, stuck.frontier) or [stuck.frontier_mines]
    # Where the other side of a change goes: unknown cells away from the numbers first (the
    # numbers seen do not change); else a proven mine, or an open cell (the play goes on without
    # it). Never another stuck cell: two 50/50s that swap a mine are still two 50/50s.
    opened = sorted(stuck.opened - spared)
    for region in regions:
        if not region:
            continue
        # Clearing a stuck region opens ground, so a mine comes out while the cells away from the
        # numbers have room for it; a change either way at random would wander (a first click that
        # shows a 3 would rarely reach the 0 that opens the board).
        mines_in_region = [index for index in region if index in layout]
        room_outside = any(index not in layout for index in stuck.outside)
        cell = rng.choice(mines_in_region if mines_in_region and room_outside else region)
        mine = cell in layout
        for pool in (stuck.outside, stuck.frontier_mines, opened):
            partners = [other for other in pool if (other in layout) != mine]
            if partners:
                partner = rng.choice(partners)
                layout.symmetric_difference_update((cell, partner))
                stuck.opened.discard(partner)
                break


def _regions(neighbours: Neighbours, cells: list[int]) -> list[list[int]]:
    """`cells` in groups that touch (through each other or through a shared number's reach)."""
    remaining = set(cells)
    regions = []
    for start in cells:
        if start not in remaining:
            continue
        remaining.discard(start)
        region, queue = [start], [start]
        while queue:
            index = queue.pop()
            for n in neighbours[index]:
                for m in (n, *neighbours[n]):
                    if m in remaining:
                        remaining.discard(m)
                        region.append(m)
                        queue.append(m)
        regions.append(region)
    return regions


def bbbv(width: int, height: int, mines: frozenset[int] | set[int]) -> int:
    """The board's 3BV (Bechtel's Board Benchmark Value): the fewest clicks that clear it without flags.
    Each opening (a connected patch of zeros, with its border of numbers) is one click; each number
    no opening reaches is one more."""
    neighbours = neighbour_table(width, height)
    zero = [index not in mines and not any(n in mines for n in neighbours[index]) for index in range(width * height)]
    reached = [False] * (width * height)
    clicks = 0
    for start in range(width * height):
        if not zero[start] or reached[start]:
            continue
        clicks += 1
        reached[start] = True
        queue = [start]
        while queue:
            index = queue.pop()
            for n in neighbours[index]:
                if not reached[n]:
                    reached[n] = True
                    if zero[n]:
                        queue.append(n)
    return clicks + sum(1 for index in range(width * height) if index not in mines and not reached[index])
