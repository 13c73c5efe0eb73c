"""Puzzle mining benchmark: seconds to find the puzzles of finished games (app.results.puzzles), per 100 games.

Each game is one `kaboom bot` plays (app.play.bot.play: the exact strategy, the first click in the middle opening
an area, game seeds as `kaboom bot --seed S` numbers them). The games are played first, then mined together, as
`kaboom puzzles build` will: every position before a move, settled with the game's layout as far as one fact at a
time goes, then looked at for a puzzle (solver.puzzles), each kept once up to turns and mirrors. Printed: the
seconds (wall clock and this process's processor time) per 100 games, the puzzles found per 100 games, and how
many have each theme, each size of key proof and each region. Run by hand:

    .venv/bin/python bench/puzzles.py                    # 100 Expert games
    .venv/bin/python bench/puzzles.py --games 200 --size 16x16/40
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from app.cli.bot import first_cell, size_argument  # noqa: E402
from app.play.bot import PRESET_SIZES, GameSetup, play  # noqa: E402
from app.results.puzzles import puzzles_of  # noqa: E402
from solver.puzzles import themes  # noqa: E402

# The work a position may take, in the solver's units: far beyond what an Expert position needs.
WORK = 2_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="games (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="as kaboom bot's --seed (default %(default)s)")
    parser.add_argument(
        "--size", type=size_argument, default=PRESET_SIZES["expert"], metavar="SIZE", help="expert (default) or WxH/M"
    )
    args = parser.parse_args()
    width, height, mines = args.size
    board = GameSetup(width, height, mines, first_cell("center", width, height), opening=True)
    games = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("playing", total=args.games)
        for number in range(args.games):
            game = play(board, "exact", args.seed * 1_000_003 + number).game
            assert game is not None
            games.append(game)
            progress.advance(task)
    started, started_cpu = time.perf_counter(), time.process_time()
    found = puzzles_of(games, work=WORK)
    seconds, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    per_100 = 100 / args.games
    table = Table(title=f"Mining puzzles: {args.games} games of {width}x{height}/{mines}")
    table.add_column("")
    table.add_column("per 100 games", justify="right")
    table.add_row("seconds", f"{seconds * per_100:.1f}")
    table.add_row("processor seconds", f"{cpu * per_100:.1f}")
    table.add_row("puzzles", f"{len(found) * per_100:.0f}")
    Console().print(table)
    for title, counts in (
        ("Themes", Counter(theme for puzzle in found.values() for theme in themes(puzzle))),
        ("Size of the key proof", Counter(str(puzzle.key.size) for puzzle in found.values())),
        ("Region of the key cell", Counter(puzzle.region for puzzle in found.values())),
    ):
        kinds = Table(title=title)
        kinds.add_column("")
        kinds.add_column("puzzles", justify="right")
        for name, count in sorted(counts.items(), key=lambda item: -item[1]):
            kinds.add_row(name, str(count))
        Console().print(kinds)


if __name__ == "__main__":
    main()
