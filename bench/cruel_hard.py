"""Cruel Flags' hard level (solver/cruel_flags.py's cruel_hard): milliseconds per move on big boards. Run by hand:

    .venv/bin/python bench/cruel_hard.py                                   # 20x100 and 100x100, three densities
    .venv/bin/python bench/cruel_hard.py --sizes 100x100 --densities 47.5 --positions 20 --every 100

The positions are those of seeded cruel Flags games that greedy plays against itself (it does not depend on
the machine, so every run, before and after a change, times hard on the same positions): every `--every`
moves from the `--start`th, `--run` positions two moves apart each time (what hard sees from one seat, its
last moves' work at hand). Hard answers each as `kaboom tournament` asks it (in process, with the
tournament's deadline), once. Prints the median and the worst, over every position and over those where hard
had to think (no proven mine to take).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from app.core.game import Move  # noqa: E402
from app.play.tournament import RULES, ScheduledBoard  # noqa: E402
from solver.cruel_flags import cruel_greedy, cruel_hard  # noqa: E402
from solver.flags import FLAGS_SECONDS, FlagsView  # noqa: E402
from solver.position import Position  # noqa: E402

CRUEL = RULES["cruel"]
TAKEN = "a proven mine"


def greedy_positions(
    width: int, height: int, density: Fraction, seed: int, start: int, every: int, run: int, count: int
) -> list[Position]:
    """Positions of a seeded cruel Flags game greedy plays against itself: before moves start, start + 2, ...
    (`run` of them), start + every, start + every + 2, ..."""
    board = ScheduledBoard(width, height, round(width * height * density), seed)
    game = CRUEL.new_game(board, seed, False)
    rng = random.Random(0)
    analyzer = None
    positions: list[Position] = []
    moves = 0
    while game.status == "playing" and len(positions) < count:
        position = Position(game.width, game.height, game.mines, tuple(game.board_rows()))
        if moves >= start and (moves - start) % every in range(0, 2 * run, 2):
            positions.append(position)
        choice = cruel_greedy(FlagsView.of(position), random.Random(position.format()))
        move = Move("reveal", *choice.cell, seat=game.state["turn"])
        game, outcome = CRUEL.mode.apply(game, move, rng=rng, now=0.0, analyzer=analyzer)
        analyzer = outcome.analyzer
        moves += 1
    return positions


def timed_hard(position: Position) -> tuple[float, bool]:
    """Seconds hard takes on the position as the tournament asks it, and whether it had to think."""
    started = time.monotonic()
    choice = cruel_hard(FlagsView.of(position, started + FLAGS_SECONDS), random.Random(position.format()))
    return time.monotonic() - started, choice.reason != TAKEN


def milliseconds(times: list[float]) -> str:
    return f"{1000 * statistics.median(times):.0f} / {1000 * max(times):.0f}" if times else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20x100,100x100")
    parser.add_argument("--densities", default="15,30,47.5", help="mines, per cent of the cells")
    parser.add_argument("--positions", type=int, default=18, help="positions per game (default %(default)s)")
    parser.add_argument("--start", type=int, default=20, help="the first position's move (default %(default)s)")
    parser.add_argument("--every", type=int, default=60, help="moves between runs (default %(default)s)")
    parser.add_argument("--run", type=int, default=3, help="positions in a run (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [tuple(int(side) for side in size.split("x")) for size in args.sizes.split(",")]
    densities = [Fraction(density) / 100 for density in args.densities.split(",")]
    table = Table(title="cruel_hard: ms per move (median / max), on positions of greedy's games")
    for column in ("size", "mines", "positions", "every move", "thinking", "moves thought"):
        table.add_column(column, justify="left" if column == "size" else "right")
    every_time: list[float] = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("games", total=len(sizes) * len(densities))
        for number, ((width, height), density) in enumerate((size, d) for size in sizes for d in densities):
            positions = greedy_positions(
                width, height, density, args.seed * 1000 + number, args.start, args.every, args.run, args.positions
            )
            times, thinking = [], []
            for position in positions:
                seconds, thought = timed_hard(position)
                times.append(seconds)
                if thought:
                    thinking.append(seconds)
            every_time.extend(times)
            table.add_row(
                f"{width}x{height}",
                f"{float(density) * 100:g} %",
                str(len(times)),
                milliseconds(times),
                milliseconds(thinking),
                str(len(thinking)),
            )
            progress.advance(task)
    table.add_row("all", "", str(len(every_time)), milliseconds(every_time), "", "")
    Console().print(table)


if __name__ == "__main__":
    main()
