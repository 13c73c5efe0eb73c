"""Puzzles: positions where a covered cell is proven (safe or a mine) and no single number proves any: what a
trainer asks a player to see. A puzzle keeps its solution (every proven cell) and the smallest proof the solver
finds of each; it is kept once whatever its rotation or reflection (its canonical form).

Flags are no knowledge here, as everywhere in the solver: a puzzle's position has none.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.analysis import Analyzer, Inconsistent, Status
from solver.limits import Allowance
from solver.local import deduce, subtract_groups
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


def settled(position: Position, mines: frozenset[Cell]) -> Position:
    """The position once a player has done all that one fact at a time gives, with the layout `mines` it was
    dealt from: the local rules (solver.local) to a fixpoint, each cell they prove opened (its number from the
    layout) or, a mine, known ('*'), and the mines left when they settle everything; again until nothing is left.
    What it still proves is what needs thought."""
    width = position.width
    symbols = [symbol.replace(FLAG, COVERED) for row in position.rows for symbol in row]
    neighbours = neighbour_table(width, position.height)
    layout = {y * width + x for x, y in mines}
    start: list[int] | None = None
    while True:
        found = deduce(width, position.height, symbols, start=start)
        safe, known = set(found.safe), set(found.mines)
        covered = [index for index, symbol in enumerate(symbols) if symbol == COVERED]
        left = position.mines - symbols.count(MINE) - len(known)
        rest = [index for index in covered if index not in safe and index not in known]
        if rest and left in (0, len(rest)):
            (known if left else safe).update(rest)
        if not safe and not known:
            return Position(width, position.height, position.mines, _rows(symbols, width))
        for index in known:
            symbols[index] = MINE
        for index in safe:
            symbols[index] = str(sum(neighbour in layout for neighbour in neighbours[index]))
        # The rules go on from the numbers the changes touch: the new ones, and those beside a new mine.
        start = sorted({*safe, *(n for index in known | safe for n in neighbours[index] if symbols[n] in NUMBERS)})


def _rows(symbols: list[str], width: int) -> tuple[str, ...]:
    return tuple("".join(symbols[start : start + width]) for start in range(0, len(symbols), width))


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


def puzzle_in(position: Position, allowance: Allowance | None = None) -> Puzzle | None:
    """The puzzle a position holds, in its canonical form, or None: when it is inconsistent, proves no covered cell,
    or one fact (a single number, or the mines left) proves a covered cell by itself, so that the trainer would have
    an answer needing no thought. Reasoning stops at `allowance` (solver.limits), raising Interrupted.

    The canonical form is reasoned about, not the form given: every turn and mirror of a position finds the same
    puzzle, proofs and all (a cell may have several smallest proofs, and the solver finds one by the board's order)."""
    position, _ = canonical(unflagged(position))
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


def themes(puzzle: Puzzle) -> frozenset[str]:
    """What the puzzle's key proof asks of a player, as a trainer practises it:

    - "1-1", "1-2": two numbers side by side, one's covered cells inside the other's, missing one mine each (the
      other's cells beyond are safe), or one and two with one cell beyond (it is a mine); "subset" for any other
      such pair, "overlap" for two numbers that share cells without one inside the other;
    - "chain": three numbers or more that the pair rules (solver.local.subtract_groups) still reach one pair at
      a time; "cases": a proof those rules never reach, to be reasoned through case by case;
    - "count": the mines left are part of the proof.

    Computed from the canonical form (puzzle_in's), so the same whatever the turn or mirror it was found in."""
    position, key = puzzle.position, puzzle.key
    width = position.width
    groups = _groups(position)
    found: set[str] = set()
    if key.uses_count:
        found.add("count")
    numbers = key.numbers
    if len(numbers) == 2 and not key.uses_count:
        found.add(_pair(groups[numbers[0]], groups[numbers[1]], _side_by_side(*numbers)))
    symbols = [symbol for row in position.rows for symbol in row]
    reached = subtract_groups(width, position.height, symbols)
    index = key.cell[1] * width + key.cell[0]
    if not key.uses_count and index not in {*reached.safe, *reached.mines}:
        found.add("cases")
    elif len(numbers) >= 3 and not key.uses_count:
        found.add("chain")
    return frozenset(found)


def _groups(position: Position) -> dict[Cell, tuple[frozenset[Cell], int]]:
    """Each revealed number's covered neighbours, and the mines it still misses among them."""
    found = {}
    for cell in position.cells():
        if position[cell] in NUMBERS:
            around = list(position.neighbours(cell))
            covered = frozenset(n for n in around if position.is_covered(n))
            found[cell] = (covered, int(position[cell]) - sum(position[n] == MINE for n in around))
    return found


def _pair(first: tuple[frozenset[Cell], int], second: tuple[frozenset[Cell], int], side_by_side: bool) -> str:
    """A pair's theme; the names players give are for numbers side by side."""
    (small, a), (big, b) = sorted((first, second), key=lambda group: (len(group[0]), group[1]))
    if small <= big:
        if side_by_side and a == b == 1:
            return "1-1"
        if side_by_side and (a, b) == (1, 2) and len(big - small) == 1:
            return "1-2"
        return "subset"
    return "overlap"


def _side_by_side(first: Cell, second: Cell) -> bool:
    return abs(first[0] - second[0]) + abs(first[1] - second[1]) == 1
