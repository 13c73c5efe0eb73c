"""Positions: what a player can see of a board, and its text format.

The format is the KöMaL S.27 input with 'F' for flags:

    W H K
    <H rows of W characters>

'.' covered, 'F' flagged (still covered), '*' revealed mine, '0'-'8' revealed
number. Cells are addressed (x, y), 0-based, x the column; only messages meant
for people say "column x+1, row y+1", because the text format counts from 1.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

COVERED = "."
FLAG = "F"
MINE = "*"
NUMBERS = "012345678"
ALPHABET = COVERED + FLAG + MINE + NUMBERS

# Bigger boards are not a Minesweeper game any more, and a single stdin line
# claiming a billion cells should fail fast instead of allocating.
MAX_POSITION_SIDE = 1000

Cell = tuple[int, int]
# Each cell's neighbours, by index (y * width + x): what neighbour_table answers.
Neighbours = tuple[tuple[int, ...], ...]


class PositionError(ValueError):
    """Malformed text: names the line and column (1-based) and what was expected."""

    def __init__(self, line: int, column: int | None, message: str):
        self.line = line
        self.column = column
        where = f"line {line}" if column is None else f"line {line}, column {column}"
        super().__init__(f"{where}: {message}")


def reading_order(cells: Iterable[Cell]) -> list[Cell]:
    """Cells as a page is read: row by row from the top, each row from the left."""
    return sorted(cells, key=lambda cell: (cell[1], cell[0]))


@functools.lru_cache(maxsize=16)
def neighbour_table(width: int, height: int) -> Neighbours:
    """Neighbours of every cell of a width x height grid, by index (y * width + x).

    The one grid geometry: positions, the Analyzer and the game rules all read
    it, and every board of one size shares the same table.
    """
    return tuple(
        tuple(
            ny * width + nx
            for ny in range(max(0, y - 1), min(height, y + 2))
            for nx in range(max(0, x - 1), min(width, x + 2))
            if (nx, ny) != (x, y)
        )
        for y in range(height)
        for x in range(width)
    )


def describe(cell: Cell) -> str:
    x, y = cell
    return f"column {x + 1}, row {y + 1}"


@dataclass(frozen=True)
class Position:
    width: int
    height: int
    mines: int
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        # Positions built in code get the same checks as parsed ones, so that
        # nothing downstream has to second-guess the shape.
        if not (1 <= self.width <= MAX_POSITION_SIDE and 1 <= self.height <= MAX_POSITION_SIDE):
            raise ValueError(
                f"board must be between 1x1 and {MAX_POSITION_SIDE}x{MAX_POSITION_SIDE}, not {self.width}x{self.height}"
            )
        if self.mines < 0:
            raise ValueError(f"mine count must not be negative, not {self.mines}")
        if len(self.rows) != self.height or any(len(row) != self.width for row in self.rows):
            raise ValueError("rows do not match the board size")
        for row in self.rows:
            if row.strip(ALPHABET):
                raise ValueError(f"unexpected character in row {row!r}")

    @classmethod
    def empty(cls, width: int, height: int, mines: int) -> Position:
        return cls(width, height, mines, tuple(COVERED * width for _ in range(height)))

    def __getitem__(self, cell: Cell) -> str:
        x, y = cell
        return self.rows[y][x]

    def cells(self) -> Iterator[Cell]:
        for y in range(self.height):
            for x in range(self.width):
                yield (x, y)

    def neighbours(self, cell: Cell) -> Iterator[Cell]:
        x, y = cell
        for index in neighbour_table(self.width, self.height)[y * self.width + x]:
            yield (index % self.width, index // self.width)

    def is_covered(self, cell: Cell) -> bool:
        return self[cell] in (COVERED, FLAG)

    def with_cells(self, changes: dict[Cell, str]) -> Position:
        rows = [list(row) for row in self.rows]
        for (x, y), symbol in changes.items():
            rows[y][x] = symbol
        return Position(self.width, self.height, self.mines, tuple("".join(row) for row in rows))

    def format(self) -> str:
        return "\n".join([f"{self.width} {self.height} {self.mines}", *self.rows]) + "\n"


def parse_position(text: str, first_line: int = 1) -> Position:
    """Parse one position; `first_line` is the line number of its header in a larger input."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    if not lines or not lines[0].strip():
        raise PositionError(first_line, None, "expected a header 'W H K' (width, height, mines)")
    fields = lines[0].split()
    if len(fields) != 3:
        raise PositionError(first_line, None, f"expected a header 'W H K' (width, height, mines), got {lines[0]!r}")
    numbers = []
    column = 1
    for name, field in zip(("width", "height", "mine count"), fields, strict=True):
        column = lines[0].index(field, column - 1) + 1
        if not field.isascii() or not field.isdigit():
            raise PositionError(first_line, column, f"expected the {name} as a whole number, got {field!r}")
        numbers.append(int(field))
        column += len(field)
    width, height, mines = numbers
    for name, value in (("width", width), ("height", height)):
        if not 1 <= value <= MAX_POSITION_SIDE:
            raise PositionError(first_line, None, f"{name} must be between 1 and {MAX_POSITION_SIDE}, got {value}")
    if mines > width * height:
        raise PositionError(first_line, None, f"{mines} mines do not fit on a {width}x{height} board")
    rows = lines[1:]
    for index, row in enumerate(rows[:height]):
        line = first_line + 1 + index
        for column, symbol in enumerate(row[:width], start=1):
            if symbol not in ALPHABET:
                raise PositionError(line, column, f"expected one of '.', 'F', '*', '0'-'8', got {symbol!r}")
        if len(row) != width:
            raise PositionError(line, min(len(row), width) + 1, f"expected a row of {width} cells, got {len(row)}")
    if len(rows) < height:
        raise PositionError(first_line + 1 + len(rows), None, f"expected {height} rows, got {len(rows)}")
    if len(rows) > height:
        raise PositionError(first_line + 1 + height, None, f"expected {height} rows, got more")
    return Position(width, height, mines, tuple(rows))


def parse_positions(text: str) -> list[Position]:
    """Parse positions separated by blank lines, with line numbers of the whole input."""
    positions = []
    block: list[str] = []
    block_start = 1
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not block:
                block_start = number
            block.append(line)
        elif block:
            positions.append(parse_position("\n".join(block), block_start))
            block = []
    if block:
        positions.append(parse_position("\n".join(block), block_start))
    if not positions:
        raise PositionError(1, None, "expected a position, got empty input")
    return positions
