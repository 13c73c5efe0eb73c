"""`kaboom bot`: classic games played by a strategy through the game's rules, and its win rate."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from app.bot import PRESET_SIZES, Board, GameResult, play, wilson_interval
from app.cli.errors import BadInput
from app.game import Invalid, board_size
from solver.strategy import STRATEGIES


def size_argument(text: str) -> tuple[int, int, int]:
    if text in PRESET_SIZES:
        return PRESET_SIZES[text]
    try:
        dimensions, mines = text.split("/")
        width, height = dimensions.lower().split("x")
        return board_size(int(width), int(height), int(mines))
    except (ValueError, Invalid) as error:
        detail = error.message if isinstance(error, Invalid) else f"expected {', '.join(PRESET_SIZES)} or WxH/K"
        raise argparse.ArgumentTypeError(f"{text!r}: {detail}") from None


def positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return number


def first_argument(text: str) -> str:
    if text in ("corner", "center"):
        return text
    parts = text.split(",")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"expected corner, center or X,Y (0-based column and row), got {text!r}")
    return text


def first_cell(text: str, width: int, height: int) -> tuple[int, int]:
    if text == "corner":
        return 0, 0
    if text == "center":
        return width // 2, height // 2
    x, y = (int(part) for part in text.split(","))
    if not (0 <= x < width and 0 <= y < height):
        raise BadInput(f"the first click {x},{y} is off the {width}x{height} board (0-based column and row)")
    return x, y


def read_layouts(path: Path, first: str | None, opening: bool) -> list[Board]:
    """One layout a line: `W H K` and the K mines as x,y (0-based), separated by spaces."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"cannot read {path}: {error}") from None
    boards = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        fields = line.split()
        try:
            width, height, mines = board_size(int(fields[0]), int(fields[1]), int(fields[2]))
            cells = [tuple(int(part) for part in field.split(",")) for field in fields[3:]]
        except (ValueError, IndexError, Invalid) as error:
            raise BadInput(f"{where}: expected 'W H K' and K mines as x,y ({getattr(error, 'message', error)})") from None
        if len(cells) != mines or any(len(cell) != 2 or not (0 <= cell[0] < width and 0 <= cell[1] < height) for cell in cells):
            raise BadInput(f"{where}: {mines} mines on the {width}x{height} board expected, as x,y with 0-based column and row")
        layout = frozenset(y * width + x for x, y in cells)
        if len(layout) != mines:
            raise BadInput(f"{where}: a mine is listed twice")
        start = first_cell(first or "corner", width, height)
        if start[1] * width + start[0] in layout:
            raise BadInput(f"{where}: the first click {start[0]},{start[1]} is a mine in this layout")
        boards.append(Board(width, height, mines, start, opening, layout))
    if not boards:
        raise BadInput(f"{path} has no layouts")
    return boards


def _play(job: tuple[Board, str, int]) -> GameResult:
    return play(*job)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def bot(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    if args.layouts is not None:
        boards = read_layouts(args.layouts, args.first, args.opening)
    else:
        width, height, mines = args.size
        boards = [Board(width, height, mines, first_cell(args.first or "corner", width, height), args.opening)] * args.games
    jobs = [(board, args.strategy, args.seed * 1_000_003 + number) for number, board in enumerate(boards)]
    results: list[GameResult] = []
    console = Console(file=sys.stderr)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(f"{args.strategy}", total=len(jobs), rate="")
        with ProcessPoolExecutor(max_workers=args.jobs) if args.jobs > 1 else _InProcess() as pool:
            # In order: --layouts promises each game's result in the file's order.
            for result in pool.map(_play, jobs, chunksize=max(1, min(50, len(jobs) // (4 * args.jobs) or 1))):
                results.append(result)
                wins = sum(r.won for r in results)
                progress.update(task, advance=1, rate=f"won {wins}/{len(results)} = {100 * wins / len(results):.1f} %")
    wins = sum(result.won for result in results)
    low, high = wilson_interval(wins, len(results))
    moves = [seconds for result in results for seconds in result.move_seconds]
    seconds = [result.seconds for result in results]
    if args.json:
        json.dump(
            {
                "games": [result.as_json() for result in results], "wins": wins, "played": len(results),
                "win_rate": wins / len(results), "interval": [low, high], "strategy": args.strategy,
                "guesses_per_game": statistics.mean(result.guesses for result in results),
            },
            stdout,
        )
        stdout.write("\n")
        return
    stdout.write(
        f"{args.strategy}: won {wins} of {len(results)} = {100 * wins / len(results):.1f} % "
        f"(95 % interval {100 * low:.1f} to {100 * high:.1f} %)\n"
        f"guesses per game: {statistics.mean(r.guesses for r in results):.2f}\n"
        f"seconds per game: median {statistics.median(seconds):.3f}, p95 {percentile(seconds, 0.95):.3f}, max {max(seconds):.3f}\n"
        f"seconds per move: median {statistics.median(moves) if moves else 0:.4f}, p95 {percentile(moves, 0.95):.4f}, max {max(moves, default=0):.4f}\n"
    )


class _InProcess:
    """One process: the same map, without starting others (and without pickling)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @staticmethod
    def map(function, jobs, chunksize=1):
        return map(function, jobs)


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "bot",
        help="play classic games with a strategy and print its win rate",
        description="Plays classic games through the game's own rules and prints the win rate with its 95 % interval.",
    )
    parser.add_argument("--size", type=size_argument, default=PRESET_SIZES["expert"], metavar="SIZE", help="expert (default), intermediate, beginner or WxH/K")
    parser.add_argument("--games", type=positive, default=100, help="games to play (default %(default)s)")
    parser.add_argument("--first", type=first_argument, help="the first click: corner (default), center or X,Y (0-based)")
    parser.add_argument("--opening", action="store_true", help="the first click opens an area (modern); otherwise only the cell is safe (classic)")
    parser.add_argument("--seed", type=int, default=0, help="the same seed plays the same games (default %(default)s)")
    parser.add_argument("--jobs", type=positive, default=1, help="processes (default %(default)s)")
    parser.add_argument("--layouts", type=Path, metavar="FILE", help="play these layouts, one a line: W H K and the K mines as x,y (0-based)")
    parser.add_argument("--strategy", choices=list(STRATEGIES), default="exact")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout, with each game's result in order")
    parser.set_defaults(handler=bot)
