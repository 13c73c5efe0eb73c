"""Solver benchmark: seeded games played the way the server uses the solver.

Each game: the first click is a zero opening; then every click opens one
proven-safe cell (a random safe cell of the hidden layout when none is proven),
with zero floods, and the incremental Analyzer is asked again after it. Timed
per click: classification, exact probabilities, and a uniform layout with a
forced mine (what a losing click needs), and the classification's work
units (solver/limits.py), to see what a work allowance means in time.
Scattered positions (numbers revealed at random, one huge component: the
slowest the solver meets) are timed from a fresh Analyzer. Run by hand:

    .venv/bin/python bench/solver.py                 # every size
    .venv/bin/python bench/solver.py --sizes 30x16/99 --games 20
    .venv/bin/python bench/solver.py --sizes scattered
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from solver import Allowance, Analyzer, Position, Status  # noqa: E402
from solver.counting import Budget  # noqa: E402
from solver.strategy import safe_cells  # noqa: E402

# (width, height, mines, games by default)
SIZES = {
    "9x9/10": (9, 9, 10, 200),
    "16x16/40": (16, 16, 40, 50),
    "30x16/99": (30, 16, 99, 30),
    "50x50/500": (50, 50, 500, 4),
    "100x100/2000": (100, 100, 2000, 1),
}
# 100x100 with 3,000 mines and this share of its safe cells revealed at random.
SCATTERED = (0.2, 0.3, 0.4)


@dataclass
class Timings:
    classify: list[float] = field(default_factory=list)
    probabilities: list[float] = field(default_factory=list)
    layout: list[float] = field(default_factory=list)
    work: list[int] = field(default_factory=list)
    clicks: int = 0
    over_budget: int = 0


class HiddenBoard:
    def __init__(self, width: int, height: int, mines: int, rng: random.Random):
        self.width, self.height = width, height
        self.first = (rng.randrange(width), rng.randrange(height))
        empty = Position.empty(width, height, mines)
        opening = set(empty.neighbours(self.first)) | {self.first}
        self.mines = frozenset(rng.sample([c for c in empty.cells() if c not in opening], mines))
        self.empty = empty
        self.revealed: set = set()

    def number(self, cell) -> str:
        return str(sum(n in self.mines for n in self.empty.neighbours(cell)))

    def open(self, cell) -> dict:
        """The cells a click reveals, zero floods included."""
        batch, queue = {}, [cell]
        while queue:
            current = queue.pop()
            if current in batch or current in self.revealed:
                continue
            batch[current] = self.number(current)
            if batch[current] == "0":
                queue.extend(self.empty.neighbours(current))
        self.revealed.update(batch)
        return batch

    def safe_left(self) -> list:
        return [c for c in self.empty.cells() if c not in self.mines and c not in self.revealed]

    def next_click(self, analyzer: Analyzer, rng: random.Random):
        """Where the player clicks next: a proven-safe cell, else a random safe cell of the layout; None once
        every safe cell is open."""
        safe = safe_cells(analyzer)
        if safe:
            return rng.choice(safe)
        left = self.safe_left()
        return rng.choice(left) if left else None


def play(width: int, height: int, mines: int, seed: int, timings: Timings, every: int, budget: Budget) -> None:
    rng = random.Random(seed)
    board = HiddenBoard(width, height, mines, rng)
    analyzer = Analyzer(Position.empty(width, height, mines))
    cell = board.first
    while True:
        analyzer.reveal(board.open(cell))
        start = time.perf_counter()
        with analyzer.limits(Allowance()) as allowance:
            statuses = analyzer.classify()
        timings.classify.append(time.perf_counter() - start)
        timings.work.append(allowance.spent)
        timings.clicks += 1
        if timings.clicks % every == 0:
            start = time.perf_counter()
            probabilities = analyzer.probabilities(budget)
            timings.probabilities.append(time.perf_counter() - start)
            timings.over_budget += probabilities.budget_exceeded
            risky = [c for c, status in statuses.items() if status is not Status.SAFE]
            if risky:
                start = time.perf_counter()
                analyzer.sample_layout(rng, force=(rng.choice(risky), True), budget=budget)
                timings.layout.append(time.perf_counter() - start)
        cell = board.next_click(analyzer, rng)
        if cell is None:
            return


def scattered(share: float, seed: int) -> Position:
    """Numbers revealed at random over a 100x100 board with 3,000 mines."""
    rng = random.Random(seed)
    empty = Position.empty(100, 100, 3000)
    board = HiddenBoard(100, 100, 3000, rng)
    safe = [cell for cell in empty.cells() if cell not in board.mines]
    shown = {cell: board.number(cell) for cell in rng.sample(safe, int(len(safe) * share))}
    return empty.with_cells(shown)


def play_scattered(seed: int, timings: Timings) -> None:
    for share in SCATTERED:
        analyzer = Analyzer(scattered(share, seed))
        start = time.perf_counter()
        with analyzer.limits(Allowance()) as allowance:
            analyzer.classify()
        timings.classify.append(time.perf_counter() - start)
        timings.work.append(allowance.spent)
        timings.clicks += 1


def summary(values: list[float], scale: float = 1000, digits: int = 2) -> str:
    if not values:
        return "-"
    scaled = sorted(v * scale for v in values)
    p95 = scaled[min(len(scaled) - 1, int(0.95 * len(scaled)))]
    return f"{statistics.median(scaled):.{digits}f} / {p95:.{digits}f} / {scaled[-1]:.{digits}f}"


def per_unit(timings: Timings) -> str:
    """Microseconds per work unit, over the clicks that did real work."""
    pairs = [(t, w) for t, w in zip(timings.classify, timings.work, strict=True) if w >= 10_000]
    if not pairs:
        return "-"
    return f"{sum(t for t, _ in pairs) / sum(w for _, w in pairs) * 1e6:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--sizes", default=",".join(SIZES), help="comma-separated, from: " + ", ".join(SIZES) + ", scattered"
    )
    parser.add_argument("--games", type=int, help="games per size (default: per size)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=1, help="time probabilities and layouts every N clicks")
    args = parser.parse_args()
    budget = Budget()
    table = Table(title="Solver, ms per click: median / p95 / max")
    columns = (
        "size",
        "games",
        "clicks",
        "classify",
        "probabilities",
        "forced-mine layout",
        "over budget",
        "work (k units)",
        "us/unit",
    )
    for column in columns:
        table.add_column(column)
    console = Console(stderr=True)
    with Progress(console=console, transient=True) as progress:
        for name in args.sizes.split(","):
            width, height, mines, games = SIZES.get(name, (100, 100, 3000, 2))
            games = args.games or games
            timings = Timings()
            task = progress.add_task(name, total=games)
            for game in range(games):
                if name == "scattered":
                    play_scattered(args.seed * 100_003 + game, timings)
                else:
                    play(width, height, mines, args.seed * 100_003 + game, timings, args.every, budget)
                progress.advance(task)
            table.add_row(
                name,
                str(games),
                str(timings.clicks),
                summary(timings.classify),
                summary(timings.probabilities),
                summary(timings.layout),
                str(timings.over_budget),
                summary(timings.work, scale=1 / 1000, digits=0),
                per_unit(timings),
            )
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
