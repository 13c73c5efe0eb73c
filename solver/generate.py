"""Fixed layouts: the mines of a board dealt at its first click.

Cells are indices (y * width + x), as in `neighbour_table`. Every layout here
is drawn uniformly from those its rule allows, with the randomness the caller
gives (a game derives it from its secret seed and the first click, so the same
seed and click always deal the same board).
"""

from __future__ import annotations

import random

from solver.position import neighbour_table


def opening_layout(width: int, height: int, mines: int, first: int, rng: random.Random) -> frozenset[int] | None:
    """The mines anywhere but on `first` and its neighbours, so the first click opens an area;
    None when they do not fit outside the opening."""
    opening = {first, *neighbour_table(width, height)[first]}
    return _anywhere_but(width * height, mines, opening, rng)


def first_click_layout(width: int, height: int, mines: int, first: int, rng: random.Random, *, opening: bool = True) -> frozenset[int]:
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
