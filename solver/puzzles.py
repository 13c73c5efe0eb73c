"""Puzzles: positions where a covered cell is proven (safe or a mine) and no single number proves any: what a
trainer asks a player to see. A puzzle keeps its solution (every proven cell) and the smallest proof the solver
finds of each; it is kept once whatever its rotation or reflection (its canonical form).

Flags are no knowledge here, as everywhere in the solver: a puzzle's position has none.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.analysis import Analyzer, Inconsistent, Status
from solver.limits import Allowance
from solver.position import COVERED, FLAG, MINE, NUMBERS, Cell, Position, neighbour_table, reading_order

# The eight ways a board can be turned or mirrored onto itself (for a square board; a rectangle's quarter turns
# swap its sides): each maps (x, y) on a width x height board to its new place.
SYMMETRIES = range(8)


def moved_cell(cell: Cell, width: int, height: int, symmetry: int) -> Cell:
    """Where `cell` goes under `symmetry` (0 leaves it; 1-3 quarter turns; 4-7 the same after a mirror)."""
    x, y = cell
    if symmetry >= 4:
        x = width - 1 - x
    turns = symmetry % 4
    for _ in range(turns):
        x, y, width, height = height - 1 - y, x, height, width
    return x, y


def moved_size(width: int, height: int, symmetry: int) -> tuple[int, int]:
    return (height, width) if symmetry % 2 else (width, height)


def transformed(position: Position, symmetry: int) -> Position:
    """The position turned or mirrored as `symmetry` says."""
    width, height = moved_size(position.width, position.height, symmetry)
    rows = [[COVERED] * width for _ in range(height)]
    for cell in position.cells():
        x, y = moved_cell(cell, position.width, position.height, symmetry)
        rows[y][x] = position[cell]
    return Position(width, height, position.mines, tuple("".join(row) for row in rows))


def canonical(position: Position) -> tuple[Position, int]:
    """The one of the position's eight forms a puzzle is kept as (the least by its text), and which symmetry
    makes it."""
    forms = [(transformed(position, symmetry).format(), symmetry) for symmetry in SYMMETRIES]
    text, symmetry = min(forms)
    return transformed(position, symmetry), symmetry


def unflagged(position: Position) -> Position:
    return Position(
        position.width, position.height, position.mines, tuple(row.replace(FLAG, COVERED) for row in position.rows)
    )


def proven_at_a_glance(position: Position) -> set[Cell]:
    """The covered cells one fact proves on its own: a revealed number whose missing mines are none (its covered
    neighbours are safe) or all of them (they are mines), or the mines left, none or as many as the covered cells."""
    neighbours = neighbour_table(position.width, position.height)
    symbols = [symbol for row in position.rows for symbol in row]
    covered_cells = [index for index, symbol in enumerate(symbols) if symbol in (COVERED, FLAG)]
    left = position.mines - symbols.count(MINE)
    found: set[Cell] = set()
    if covered_cells and left in (0, len(covered_cells)):
        found.update((n % position.width, n // position.width) for n in covered_cells)
    for index, symbol in enumerate(symbols):
        if symbol not in NUMBERS:
            continue
        around = neighbours[index]
        covered = [n for n in around if symbols[n] in (COVERED, FLAG)]
        missing = int(symbol) - sum(symbols[n] == MINE for n in around)
        if covered and missing in (0, len(covered)):
            found.update((n % position.width, n // position.width) for n in covered)
    return found


@dataclass(frozen=True)
class Proof:
    cell: Cell
    mine: bool  # what the cell is: a mine, or safe
    numbers: tuple[Cell, ...]  # the revealed numbers that, together, prove it
    uses_count: bool  # whether the mines left on the board are part of the proof

    @property
    def size(self) -> int:
        """How much a player must hold in mind at once: its numbers, and the count as one more."""
        return len(self.numbers) + self.uses_count


@dataclass(frozen=True)
class Puzzle:
    position: Position  # no flags
    proofs: dict[Cell, Proof]  # every proven covered cell, in reading order: the solution, each with its proof

    @property
    def solution(self) -> dict[Cell, bool]:
        """Every proven covered cell: whether it is a mine."""
        return {cell: proof.mine for cell, proof in self.proofs.items()}

    @property
    def key(self) -> Proof:
        """The proof a player is shown first: the smallest, the first in reading order among equals."""
        order = {cell: place for place, cell in enumerate(reading_order(self.proofs))}
        return min(self.proofs.values(), key=lambda proof: (proof.size, order[proof.cell]))

    @property
    def region(self) -> str:
        """Where the key cell is: in a corner, along an edge, or in the open."""
        x, y = self.key.cell
        walls = (x in (0, self.position.width - 1)) + (y in (0, self.position.height - 1))
        return ("open", "edge", "corner")[walls]

    def moved(self, symmetry: int) -> Puzzle:
        """The same puzzle turned or mirrored: its cells where the position's went."""
        width, height = self.position.width, self.position.height

        def place(cell: Cell) -> Cell:
            return moved_cell(cell, width, height, symmetry)

        proofs = {
            place(cell): Proof(
                place(cell), proof.mine, tuple(reading_order(map(place, proof.numbers))), proof.uses_count
            )
            for cell, proof in self.proofs.items()
        }
        return Puzzle(transformed(self.position, symmetry), {cell: proofs[cell] for cell in reading_order(proofs)})

    def canonical(self) -> Puzzle:
        """The puzzle in the form it is kept in, whichever of its eight it was found in."""
        return self.moved(canonical(self.position)[1])


def puzzle_in(position: Position, allowance: Allowance | None = None) -> Puzzle | None:
    """The puzzle a position holds, or None: when it is inconsistent, proves no covered cell, or one fact (a single
    number, or the mines left) proves a covered cell by itself, so that the trainer would have an answer needing no
    thought. Reasoning stops at `allowance` (solver.limits), raising Interrupted."""
    position = unflagged(position)
    try:
        analyzer = Analyzer(position)
        with analyzer.limits(allowance):
            proven = {cell: status for cell, status in analyzer.classify().items() if status is not Status.UNKNOWN}
            if not proven or proven.keys() & proven_at_a_glance(position):
                return None
            explained = {cell: analyzer.explain(cell) for cell in reading_order(proven)}
    except Inconsistent:
        return None
    proofs = {
        cell: Proof(cell, found.status is Status.MINE, tuple(reading_order(found.numbers)), found.uses_count)
        for cell, found in explained.items()
    }
    return Puzzle(position, proofs)
