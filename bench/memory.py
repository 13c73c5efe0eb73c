"""Memory: what an Analyzer really holds (tracemalloc) against its footprint() estimate.

The server's analyzer cache is bounded by footprint(), so the estimate must
follow the real size; this prints both over self-played games (every proven-
safe cell opened, a random safe cell when none is), after a classification
and a deal, as the server leaves them. Run by hand:

    .venv/bin/python bench/memory.py
    .venv/bin/python bench/memory.py --sizes 100x100/2000
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from solver import Analyzer, Budget, Position  # noqa: E402
from solver.strategy import safe_cells  # noqa: E402

SIZES = {
    "9x9/10": (9, 9, 10, 5),
    "30x16/99": (30, 16, 99, 5),
    "50x50/500": (50, 50, 500, 2),
    "100x100/2000": (100, 100, 2000, 1),
}
SAMPLES_PER_GAME = 12


def positions(width: int, height: int, mines: int, seed: int):
    """Positions along one self-played game."""
    rng = random.Random(seed)
    empty = Position.empty(width, height, mines)
    first = (rng.randrange(width), rng.randrange(height))
    opening = {first, *empty.neighbours(first)}
    layout = set(rng.sample([c for c in empty.cells() if c not in opening], mines))
    shown: dict = {}
    analyzer = Analyzer(empty)
    cell, played = first, []
    while True:
        queue, batch = [cell], {}
        while queue:
            current = queue.pop()
            if current in shown or current in batch:
                continue
            batch[current] = str(sum(n in layout for n in empty.neighbours(current)))
            if batch[current] == "0":
                queue.extend(empty.neighbours(current))
        shown.update(batch)
        analyzer.reveal(batch)
        analyzer.classify()
        played.append(empty.with_cells(dict(shown)))
        safe = safe_cells(analyzer)
        left = [c for c in empty.cells() if c not in layout and c not in shown]
        if not left:
            break
        cell = rng.choice(safe) if safe else rng.choice(left)
    step = max(1, len(played) // SAMPLES_PER_GAME)
    return played[::step]


def measured(position: Position) -> tuple[int, int]:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    analyzer = Analyzer(position)
    analyzer.classify()
    analyzer.sample_layout(random.Random(1), budget=Budget())
    gc.collect()
    real = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return real, analyzer.footprint()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(SIZES), help="comma-separated, from: " + ", ".join(SIZES))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    table = Table(title="Analyzer memory, KiB: real (tracemalloc) and footprint()")
    for column in ("size", "positions", "real median / max", "estimate error median / max"):
        table.add_column(column)
    console = Console(stderr=True)
    for name in args.sizes.split(","):
        width, height, mines, games = SIZES[name]
        real, errors = [], []
        with console.status(name):
            for game in range(games):
                for position in positions(width, height, mines, args.seed * 1000 + game):
                    size, estimate = measured(position)
                    real.append(size)
                    errors.append(abs(estimate - size) / size)
        table.add_row(
            name,
            str(len(real)),
            f"{statistics.median(real) / 1024:.0f} / {max(real) / 1024:.0f}",
            f"{statistics.median(errors):.1%} / {max(errors):.1%}",
        )
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
