"""Hypothesis strategies for positions: drawn from a real layout, or tampered with."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

from solver.position import Position, neighbour_table


def examples(count: int) -> int:
    """A test's own number of examples, cut as the profile cuts the others' (make check's "check" runs a quarter);
    never raised: a test that sets its number keeps it under make explore."""
    return max(1, min(count, count * settings.default.max_examples // 400))


def number_at(cell, mines, width, height) -> str:
    x, y = cell
    return str(sum((n % width, n // width) in mines for n in neighbour_table(width, height)[y * width + x]))


def render(width, height, total, mines, revealed, flags, show_mines=True) -> Position:
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            cell = (x, y)
            if cell in revealed and cell in mines and show_mines:
                row.append("*")
            elif cell in revealed and cell not in mines:
                row.append(number_at(cell, mines, width, height))
            elif cell in flags:
                row.append("F")
            else:
                row.append(".")
        rows.append("".join(row))
    return Position(width, height, total, tuple(rows))


@st.composite
def boards(draw, max_side=6):
    width = draw(st.integers(1, max_side))
    height = draw(st.integers(1, max_side))
    cells = [(x, y) for y in range(height) for x in range(width)]
    density = draw(st.sampled_from([0.1, 0.2, 0.3, 0.5, 0.8]))
    mines = frozenset(draw(st.sets(st.sampled_from(cells), max_size=max(1, int(len(cells) * density)))))
    return width, height, cells, mines


@st.composite
def positions(draw, max_side=6):
    """A position some real layout produced: always consistent."""
    width, height, cells, mines = draw(boards(max_side))
    revealed = draw(st.sets(st.sampled_from(cells)))
    flags = draw(st.sets(st.sampled_from(cells), max_size=4))
    show_mines = draw(st.booleans())
    return render(width, height, len(mines), mines, revealed, flags, show_mines)


@st.composite
def tampered_positions(draw, max_side=6):
    """A real position with its mine count or one number changed: often inconsistent."""
    position = draw(positions(max_side))
    if draw(st.booleans()):
        total = draw(st.integers(0, position.width * position.height))
        return Position(position.width, position.height, total, position.rows)
    numbers = [cell for cell in position.cells() if position[cell].isdigit()]
    if not numbers:
        return position
    cell = draw(st.sampled_from(numbers))
    return position.with_cells({cell: str(draw(st.integers(0, 8)))})
