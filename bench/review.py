"""Review benchmark: seconds to grade a finished game (app.results.review), as the server grades one.

Each game is one `kaboom bot` plays (app.play.bot.play: the exact strategy, the first click in the middle opening
an area, game seeds as `kaboom bot --seed S` numbers them); its whole story is then graded with
review(game, Limits.starting_now(solver_seconds, solver_work)) at the server's default settings
(app.core.config.Settings), timed per game. Printed: the seconds per game (wall clock, what the deadline
counts, and this process's processor time, which other load does not inflate), the moves per game, the games past
what the move that ends a game may spend on grading it (app.service.REVIEW_AT_END_SECONDS) and the games
cut short (graded too complex for want of time), then every grade kind counted over all games. With
--flags the player also flags: after each of the bot's moves, every covered cell proven a mine is flagged
(the bot's game played again from its layout), so the story is more like a human's. Run by hand:

    .venv/bin/python bench/review.py                      # 200 Expert games
    .venv/bin/python bench/review.py --games 50 --flags
    .venv/bin/python bench/review.py --size 16x16/40 --seed 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from app.cli.bot import first_cell, percentile, size_argument  # noqa: E402
from app.core.config import Settings  # noqa: E402
from app.core.game import FLAG, Game, Move  # noqa: E402
from app.modes import Classic, ClassicOptions, apply_move, get_mode  # noqa: E402
from app.play.bot import PRESET_SIZES, GameSetup, play  # noqa: E402
from app.results.review import KINDS, review  # noqa: E402
from app.service.reviews import REVIEW_AT_END_SECONDS  # noqa: E402
from solver import Analyzer, Limits, Status  # noqa: E402

# The server's defaults (KABOOM_SOLVER_SECONDS, KABOOM_SOLVER_WORK), not this machine's environment.
SOLVER_SECONDS: float = Settings.model_fields["solver_seconds"].default
SOLVER_WORK: int = Settings.model_fields["solver_work"].default


def with_flags(game: Game, board: GameSetup) -> Game:
    """The bot's game played again from its layout, with every covered cell proven a mine flagged after each
    of its moves, as a player who flags would."""
    classic = get_mode("classic")
    assert isinstance(classic, Classic)
    options = ClassicOptions(first_click_safe_only=not board.opening)
    layout = frozenset(game.mode_secret()["mines"])
    again = classic.from_layout(game.width, game.height, layout, board.first, options)
    rng = random.Random(0)  # a layout given whole draws nothing from it
    for record in game.history:
        again, outcome = apply_move(again, Move.from_record(record["move"]), rng=rng, now=0.0)
        if again.status != "playing":
            break
        analyzer = outcome.analyzer or Analyzer(again.position())
        for cell, status in analyzer.classify().items():
            if status is Status.MINE and again.marks.get(again.index(*cell)) != FLAG:
                again, _ = apply_move(again, Move("flag", *cell, mark="flag"), rng=rng, now=0.0)
    assert (again.cells, again.status) == (game.cells, game.status), "the game played again ended otherwise"
    return again


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="as kaboom bot's --seed (default %(default)s)")
    parser.add_argument(
        "--size",
        type=size_argument,
        default=PRESET_SIZES["expert"],
        metavar="SIZE",
        help="expert (default), intermediate, beginner or WxH/M",
    )
    parser.add_argument("--flags", action="store_true", help="flag every proven mine after each of the bot's moves")
    args = parser.parse_args()
    width, height, mines = args.size
    board = GameSetup(width, height, mines, first_cell("center", width, height), opening=True)
    seconds: list[float] = []
    cpu: list[float] = []
    moves: list[int] = []
    kinds: Counter[str] = Counter()
    won = slow = cut = 0
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("games", total=args.games)
        for number in range(args.games):
            result = play(board, "exact", args.seed * 1_000_003 + number)
            assert result.game is not None
            game = with_flags(result.game, board) if args.flags else result.game
            started, started_cpu = time.perf_counter(), time.process_time()
            reviewed = review(game, Limits.starting_now(SOLVER_SECONDS, SOLVER_WORK))
            seconds.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
            moves.append(len(reviewed.moves))
            kinds.update(graded.kind for _, graded in reviewed.moves)
            won += result.won
            slow += seconds[-1] > REVIEW_AT_END_SECONDS
            cut += reviewed.cut
            progress.advance(task)
    flagged = ", proven mines flagged" if args.flags else ""
    table = Table(
        title=f"Grading a game: {width}x{height}/{mines}{flagged}",
        caption=f"solver_seconds {SOLVER_SECONDS:g}, solver_work {SOLVER_WORK:,}",
    )
    for column in ("", "median", "p95", "max"):
        table.add_column(column, justify="right")
    table.add_row("seconds per game", *(f"{value:.3f}" for value in summary(seconds)))
    table.add_row("processor seconds per game", *(f"{value:.3f}" for value in summary(cpu)))
    table.add_row("moves per game", *(f"{value:.0f}" for value in summary([float(count) for count in moves])))
    counts = Table(title="Grades over all games")
    for column in ("games", "won", "moves"):
        counts.add_column(column, justify="right")
    counts.add_column(f"over {REVIEW_AT_END_SECONDS:g} s", justify="right")
    counts.add_column("cut", justify="right")
    for kind in KINDS:
        counts.add_column(kind, justify="right")
    figures = (args.games, won, sum(moves), slow, cut, *(kinds[kind] for kind in KINDS))
    counts.add_row(*(str(figure) for figure in figures))
    console = Console(width=160)
    console.print(table)
    console.print(counts)


def summary(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), percentile(values, 0.95), max(values)


if __name__ == "__main__":
    main()
