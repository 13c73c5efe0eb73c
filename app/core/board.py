"""The app-side grid: cells by index, their (x, y), neighbours, floods and flags around a number.

Games keep their cells in one list indexed y * width + x; the neighbour
table is the solver's (solver.position.neighbour_table), so the rules, the
view and the solver read one geometry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from solver.position import COVERED, FLAG, MINE, neighbour_table


@dataclass(frozen=True)
class Board:
    width: int
    height: int

    def contains(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def index(self, x: int, y: int) -> int:
        return y * self.width + x

    def cell(self, index: int) -> tuple[int, int]:
        return index % self.width, index // self.width

    def neighbours(self, index: int) -> tuple[int, ...]:
        return neighbour_table(self.width, self.height)[index]

    def row(self, y: int) -> range:
        return range(y * self.width, (y + 1) * self.width)

    def flood(self, start: int, number_at: Callable[[int], int], opens: Callable[[int], bool]) -> dict[int, int]:
        """The cells a reveal of `start` opens, with their numbers: zeros spread to their neighbours.

        `opens(index)` says whether the flood may open a cell (covered, not flagged).
        """
        opened: dict[int, int] = {}
        queue = [start]
        while queue:
            current = queue.pop()
            if current in opened or not opens(current):
                continue
            opened[current] = number = number_at(current)
            if number == 0:
                queue.extend(self.neighbours(current))
        return opened

    def mines_around(self, index: int, mines: set[int] | frozenset[int]) -> int:
        return sum(1 for neighbour in self.neighbours(index) if neighbour in mines)

    def flags_around(self, index: int, cells: list[str], marks: Mapping[int, str]) -> int:
        """Flags around a number, and mines shown there without a loss: what a chord counts."""
        return sum(
            1 for n in self.neighbours(index) if (cells[n] == COVERED and marks.get(n) == FLAG) or cells[n] == MINE
        )

    def covered_around(
        self, index: int, cells: list[str], marks: Mapping[int, str], flagged: bool = False
    ) -> list[int]:
        """Covered neighbours: without flags, or only the flagged ones."""
        return [n for n in self.neighbours(index) if cells[n] == COVERED and (marks.get(n) == FLAG) == flagged]

    def frontier_size(self, cells: list[str]) -> int:
        """How many covered cells touch a revealed number: what a fresh analysis of the position reasons about."""
        shown = [symbol not in (COVERED, "0") for symbol in cells]
        return sum(
            1
            for index, symbol in enumerate(cells)
            if symbol == COVERED and any(shown[n] for n in self.neighbours(index))
        )

    def rows(self, symbols: Iterable[str]) -> list[str]:
        text = "".join(symbols)
        return [text[y * self.width : (y + 1) * self.width] for y in range(self.height)]
