"""The two local rules, to a fixpoint: what a player sees at a glance, one number at a time.

- A number whose covered neighbours, not known safe, are exactly its missing
  mines: they are all mines.
- A number whose known mines equal it: its other covered neighbours are safe.

This is the one implementation of them: the assists, the no-guess checks
and the bot read it. It knows nothing the player does not: it starts from the
numbers shown and the mines the caller says are known (revealed or derived),
and every cell it names follows from those alone. It never uses the total
mine count, nor two numbers at once: that is the exact solver's (analysis.py).
`subtract_groups` adds the seeds' Java bot's group rules (two numbers at once)
for the bot's `groups` strategy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from solver.position import COVERED, FLAG, MINE, NUMBERS, neighbour_table


@dataclass
class Deductions:
    """What the local rules proved, in the order they proved it (a ripple outward from where they started)."""

    mines: list[int] = field(default_factory=list)
    safe: list[int] = field(default_factory=list)
    # For each cell proved, how many rule applications lay between it and a starting number: 0 next to one.
    wave: dict[int, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.mines or self.safe)


def deduce(
    width: int,
    height: int,
    symbols: Sequence[str],
    known_mines: Iterable[int] = (),
    start: Iterable[int] | None = None,
) -> Deductions:
    """The local rules to a fixpoint on a position given as one symbol per cell (y * width + x).

    Covered cells are '.' or 'F' (a flag is not knowledge: pass the mines that
    are known as `known_mines`); '*' is a revealed mine. Only numbers in
    `start` (every number when None) and, as the rules reach them, their
    neighbours' numbers are examined, so the rules spread from where the
    player acted. Safe cells found are not opened: the caller opens them and
    calls again with the new numbers.
    """
    neighbours = neighbour_table(width, height)
    mine = {index for index, symbol in enumerate(symbols) if symbol == MINE}
    mine.update(known_mines)
    safe: set[int] = set()
    result = Deductions()
    numbers = (
        [index for index, symbol in enumerate(symbols) if symbol in NUMBERS]
        if start is None
        else [index for index in start if symbols[index] in NUMBERS]
    )
    # Breadth first, so that `wave` is the distance from where the rules started.
    frontier = list(dict.fromkeys(numbers))
    queued = set(frontier)
    wave = 0
    while frontier:
        following: list[int] = []
        for number in frontier:
            queued.discard(number)
            open_cells = []
            missing = int(symbols[number])
            for neighbour in neighbours[number]:
                if neighbour in mine:
                    missing -= 1
                elif symbols[neighbour] in (COVERED, FLAG) and neighbour not in safe:
                    open_cells.append(neighbour)
            if not open_cells or missing not in (0, len(open_cells)):
                continue
            is_mine = missing > 0
            for cell in open_cells:
                (mine if is_mine else safe).add(cell)
                (result.mines if is_mine else result.safe).append(cell)
                result.wave[cell] = wave
                # The cells just proved change what their numbers still need.
                for touched in neighbours[cell]:
                    if symbols[touched] in NUMBERS and touched not in queued:
                        queued.add(touched)
                        following.append(touched)
        frontier = following
        wave += 1
    return result


def subtract_groups(width: int, height: int, symbols: Sequence[str], known_mines: Iterable[int] = ()) -> Deductions:
    """The seeds' Java bot's group rules, to a fixpoint: each number is a group (its covered neighbours
    not known, and the mines they still hold); for two groups A and B, when A's mines outside B are
    all the mines A can have beyond B's (a - b = |A - B|), A - B is all mines and B - A all safe
    (A inside B is the case A - B empty). With the two local rules, they are all the reasoning the
    `groups` strategy does: still no mine count, and never more than two numbers at once."""
    neighbours = neighbour_table(width, height)
    mine = {index for index, symbol in enumerate(symbols) if symbol == MINE}
    mine.update(known_mines)
    safe: set[int] = set()
    result = Deductions()
    numbers = [index for index, symbol in enumerate(symbols) if symbol in NUMBERS]

    def decide(cells: Iterable[int], is_mine: bool) -> bool:
        changed = False
        for cell in cells:
            if cell not in mine and cell not in safe:
                (mine if is_mine else safe).add(cell)
                (result.mines if is_mine else result.safe).append(cell)
                result.wave[cell] = 0
                changed = True
        return changed

    changed = True
    while changed:
        changed = False
        groups = {}
        for number in numbers:
            cells = frozenset(
                n for n in neighbours[number] if symbols[n] in (COVERED, FLAG) and n not in mine and n not in safe
            )
            if cells:
                groups[number] = (cells, int(symbols[number]) - sum(1 for n in neighbours[number] if n in mine))
        for cells, count in groups.values():
            if count == 0:
                changed |= decide(cells, False)
            elif count == len(cells):
                changed |= decide(cells, True)
        if changed:
            continue
        for number, (a_cells, a) in groups.items():
            # Only numbers within two cells share covered neighbours.
            x, y = number % width, number // width
            for other in (
                (oy * width + ox)
                for oy in range(max(0, y - 2), min(height, y + 3))
                for ox in range(max(0, x - 2), min(width, x + 3))
            ):
                if other == number or other not in groups:
                    continue
                b_cells, b = groups[other]
                only_a, only_b = a_cells - b_cells, b_cells - a_cells
                if a_cells & b_cells and a - b == len(only_a):
                    changed |= decide(only_a, True) | decide(only_b, False)
    return result
