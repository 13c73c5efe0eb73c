"""Cruel Flags against cruel but fair: what one click costs on the same position (issue 27). Run by hand:

    .venv/bin/python bench/cruel_flags.py                          # 100x100, 2000 mines, 8 positions
    .venv/bin/python bench/cruel_flags.py --size 30x16 --mines 99 --positions 20

Each position is that of a seeded Flags game after random reveals (a third of the board's cells, so numbers
are scattered over it: harder for the solver than a played game; bench/flags.py's positions). The same
position is then clicked as a cruel Flags game and as a one-player cruel game (the same cells, its mines
found shown as a help game shows them), on the same cells: a proven-safe cell when there is one, a cell next
to a number that may hold a mine, and a cell away from the numbers. Each click is timed as the mode's move
(the solver's verdict, the deal and the flood; what the server adds to it is the same for both) under the
server's default limits, twice: with a fresh analyzer of the position (a server that has not seen the game
since it started) and with an analyzer that has classified it (the server's cache, as a game in play has
it). Prints milliseconds, the median and the worst, per kind of cell.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.core.game import Game, Move  # noqa: E402
from app.modes import get_mode  # noqa: E402
from app.play.tournament import sample_position  # noqa: E402
from solver import Analyzer, Limits, Status  # noqa: E402

CRUEL_FLAGS = get_mode("cruel-flags")
CRUEL = get_mode("cruel")
SETTINGS = Settings()


def position_game(width: int, height: int, mines: int, reveals: int, seed: int) -> Game:
    """A cruel Flags game in the position of a seeded Flags game after `reveals` random reveals (a position
    some layout fits, with numbers scattered over the board; made quickly, with the dealt layout's flood)."""
    position = sample_position(width, height, mines, reveals, seed)
    game = CRUEL_FLAGS.new_game(width, height, mines, rng=random.Random(seed))
    game.cells = [symbol for row in position.rows for symbol in row]
    game.started_at = 0.0
    return game


def one_player_twin(game: Game) -> Game:
    """The same position as a cruel but fair game in play."""
    twin = CRUEL.new_game(game.width, game.height, game.mines, rng=random.Random(1))
    twin.cells = list(game.cells)
    twin.started_at = 0.0
    return twin


def cells_to_click(analyzer: Analyzer, rng: random.Random) -> dict[str, tuple[int, int]]:
    statuses = analyzer.classify()
    kinds: dict[str, list[tuple[int, int]]] = {"proven safe": [], "frontier, unknown": [], "outside": []}
    for cell, status in statuses.items():
        if status is Status.SAFE:
            kinds["proven safe"].append(cell)
        elif status is Status.UNKNOWN:
            kinds["outside" if analyzer.is_outside(cell) else "frontier, unknown"].append(cell)
    return {kind: rng.choice(sorted(cells)) for kind, cells in kinds.items() if cells}


def timed(mode, game: Game, cell: tuple[int, int], analyzer: Analyzer | None) -> float:
    seat = game.state.get("turn")
    move = Move("reveal", *cell, seat=seat) if seat is not None else Move("reveal", *cell)
    started = time.perf_counter()
    limits = Limits.starting_now(SETTINGS.solver_seconds, SETTINGS.solver_work)  # the server's, by default
    mode.apply(game, move, rng=random.Random(0), now=2.0, analyzer=analyzer, limits=limits)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100x100")
    parser.add_argument("--mines", type=int, default=2000)
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    width, height = (int(side) for side in args.size.split("x"))
    rng = random.Random(args.seed)
    times: dict[tuple[str, str, str], list[float]] = {}
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("positions", total=args.positions)
        for number in range(args.positions):
            game = position_game(width, height, args.mines, width * height // 3, args.seed * 1000 + number)
            twin = one_player_twin(game)
            for kind, cell in cells_to_click(Analyzer(game.position()), rng).items():
                for mode, played in ((CRUEL_FLAGS, game), (CRUEL, twin)):
                    for cache in ("fresh", "cached"):
                        # Each click gets an analyzer of its own: a click changes the one it is given.
                        analyzer = None if cache == "fresh" else Analyzer(played.position())
                        if analyzer is not None:
                            analyzer.classify()  # as the previous move's verdicts left it
                        times.setdefault((kind, cache, mode.name), []).append(timed(mode, played, cell, analyzer))
            progress.advance(task)
    table = Table(
        title=f"One click on {args.size} with {args.mines} mines: ms (median / max), {args.positions} positions"
    )
    for column in ("cell clicked", "analyzer", "cruel Flags", "cruel but fair", "ratio of medians"):
        table.add_column(column, justify="left" if column in ("cell clicked", "analyzer") else "right")
    for kind in ("proven safe", "frontier, unknown", "outside"):
        for cache in ("fresh", "cached"):
            flags, cruel = times.get((kind, cache, "cruel-flags")), times.get((kind, cache, "cruel"))
            if not flags or not cruel:
                continue
            table.add_row(
                kind,
                cache,
                f"{1000 * statistics.median(flags):.1f} / {1000 * max(flags):.1f}",
                f"{1000 * statistics.median(cruel):.1f} / {1000 * max(cruel):.1f}",
                f"{statistics.median(flags) / statistics.median(cruel):.2f}",
            )
    Console().print(table)


if __name__ == "__main__":
    main()
