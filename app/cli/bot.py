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

from app.cli.errors import BadInput, positive
from app.core.game import Invalid, board_size
from app.play.bot import PRESET_SIZES, CalibrationBin, GameResult, GameSetup, calibration, play, wilson_interval
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


def read_layouts(path: Path, first: str | None, opening: bool) -> list[GameSetup]:
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
            raise BadInput(
                f"{where}: expected 'W H K' and K mines as x,y ({getattr(error, 'message', error)})"
            ) from None
        if len(cells) != mines or any(
            len(cell) != 2 or not (0 <= cell[0] < width and 0 <= cell[1] < height) for cell in cells
        ):
            raise BadInput(
                f"{where}: {mines} mines on the {width}x{height} board expected, as x,y with 0-based column and row"
            )
        layout = frozenset(y * width + x for x, y in cells)
        if len(layout) != mines:
            raise BadInput(f"{where}: a mine is listed twice")
        start = first_cell(first or "corner", width, height)
        if start[1] * width + start[0] in layout:
            raise BadInput(f"{where}: the first click {start[0]},{start[1]} is a mine in this layout")
        boards.append(GameSetup(width, height, mines, start, opening, layout))
    if not boards:
        raise BadInput(f"{path} has no layouts")
    return boards


def _play(job: tuple[GameSetup, str, int]) -> GameResult:
    return play(*job)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def bot(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    if args.mode == "cruel" and (args.layouts is not None or args.opening):
        raise BadInput(
            "--layouts and --opening are for classic games: cruel games have no fixed layout, "
            "and their first click always opens an area"
        )
    if args.calibration is not None and args.calibration.suffix.lower() != ".png":
        raise BadInput(f"--calibration writes a PNG file: {args.calibration} does not end in .png")
    if args.layouts is not None:
        boards = read_layouts(args.layouts, args.first, args.opening)
    else:
        width, height, mines = args.size
        boards = [
            GameSetup(
                width, height, mines, first_cell(args.first or "corner", width, height), args.opening, mode=args.mode
            )
        ] * args.games
    jobs = [(board, args.strategy, args.seed * 1_000_003 + number) for number, board in enumerate(boards)]
    results: list[GameResult] = []
    console = Console(file=sys.stderr)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
    )
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
    bins = calibration(results)
    if args.calibration is not None:
        draw_calibration(
            bins,
            args.calibration,
            f"{args.strategy} on {describe(boards[0])}: {sum(b.guesses for b in bins)} guesses in {len(results)} games",
        )
    if args.json:
        summary = {
            "games": [result.as_json() for result in results],
            "wins": wins,
            "played": len(results),
            "win_rate": wins / len(results),
            "interval": [low, high],
            "strategy": args.strategy,
            "mode": args.mode,
            "guesses_per_game": statistics.mean(result.guesses for result in results),
            "calibration": [entry.as_json() for entry in bins],
        }
        if args.mode == "cruel":
            summary["forced_guesses_per_game"] = statistics.mean(result.forced_guesses for result in results)
        json.dump(summary, stdout)
        stdout.write("\n")
        return
    stdout.write(
        f"{args.strategy}: won {wins} of {len(results)} = {100 * wins / len(results):.1f} % "
        f"(95 % interval {100 * low:.1f} to {100 * high:.1f} %)\n"
        f"guesses per game: {statistics.mean(r.guesses for r in results):.2f}\n"
    )
    if args.mode == "cruel":
        forced = [result.forced_guesses for result in results]
        stdout.write(
            f"forced guesses per game: mean {statistics.mean(forced):.2f}, median {statistics.median(forced):g}, "
            f"max {max(forced)}; games with none: {100 * forced.count(0) / len(forced):.1f} %\n"
        )
    stdout.write(
        f"seconds per game: median {statistics.median(seconds):.3f}, p95 {percentile(seconds, 0.95):.3f}, "
        f"max {max(seconds):.3f}\n"
        f"seconds per move: median {statistics.median(moves) if moves else 0:.4f}, "
        f"p95 {percentile(moves, 0.95):.4f}, max {max(moves, default=0):.4f}\n"
    )
    if args.calibration is not None:
        stdout.write(calibration_table(bins))
        stdout.write(f"calibration plot: {args.calibration}\n")


def describe(board: GameSetup) -> str:
    start = "opening" if board.opening else "first click safe"
    return f"{board.mode} {board.width}x{board.height}/{board.mines}, {start} at {board.first[0]},{board.first[1]}"


def calibration_table(bins: list[CalibrationBin]) -> str:
    lines = ["predicted mine chance  guesses  mean predicted  observed  95 % interval"]
    for entry in bins:
        lines.append(
            f"{100 * entry.low:4.0f} to {100 * entry.high:3.0f} %     {entry.guesses:8d}"
            f"  {100 * entry.predicted:13.1f} %"
            f"  {100 * entry.observed:6.1f} %  {100 * entry.interval[0]:.1f} to {100 * entry.interval[1]:.1f} %"
        )
    return "\n".join(lines) + "\n"


def draw_calibration(bins: list[CalibrationBin], path: Path, title: str) -> None:
    """Observed mine rate against the predicted chance, each bin with its interval, beside the diagonal
    a perfectly calibrated player would follow."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: a file only
        from matplotlib import pyplot
    except ImportError:
        raise BadInput("--calibration needs matplotlib: pip install 'kaboom[plot]' (make test installs it)") from None
    figure, axes = pyplot.subplots(figsize=(6.4, 5.2), dpi=120)
    # Room above the highest bar and point, so that neither touches the frame.
    top = min(1.0, 1.06 * max([0.5] + [entry.interval[1] for entry in bins] + [entry.predicted for entry in bins]))
    axes.plot([0, top], [0, top], color="0.6", linestyle="--", label="calibrated")
    axes.errorbar(
        [entry.predicted for entry in bins],
        [entry.observed for entry in bins],
        yerr=[
            [entry.observed - entry.interval[0] for entry in bins],
            [entry.interval[1] - entry.observed for entry in bins],
        ],
        fmt="o",
        color="#1f5fa8",
        ecolor="#1f5fa8",
        capsize=3,
        label="observed (95 % interval)",
    )
    for entry in bins:
        axes.annotate(
            f"{entry.guesses}",
            (entry.predicted, entry.observed),
            textcoords="offset points",
            xytext=(6, -10),
            fontsize=7,
            color="0.35",
        )
    axes.set(
        xlim=(0, top), ylim=(0, top), xlabel="predicted chance of a mine", ylabel="share that were mines", title=title
    )
    axes.title.set_fontsize(9)
    axes.legend(loc="upper left", fontsize=8)
    axes.grid(alpha=0.3)
    try:
        figure.savefig(path)
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error}") from None
    finally:
        pyplot.close(figure)


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
        help="play games with a strategy and print its win rate",
        description=(
            "Plays games through the game's own rules (classic, or cruel with --mode cruel) "
            "and prints the win rate with its 95 % interval."
        ),
    )
    parser.add_argument(
        "--size",
        type=size_argument,
        default=PRESET_SIZES["expert"],
        metavar="SIZE",
        help="expert (default), intermediate, beginner or WxH/K",
    )
    parser.add_argument("--games", type=positive, default=100, help="games to play (default %(default)s)")
    parser.add_argument(
        "--first", type=first_argument, help="the first click: corner (default), center or X,Y (0-based)"
    )
    parser.add_argument(
        "--opening",
        action="store_true",
        help="the first click opens an area (modern); otherwise only the cell is safe (classic)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the same seed plays the same games (default %(default)s)")
    parser.add_argument("--jobs", type=positive, default=1, help="processes (default %(default)s)")
    parser.add_argument(
        "--layouts",
        type=Path,
        metavar="FILE",
        help="play these layouts, one a line: W H K and the K mines as x,y (0-based)",
    )
    parser.add_argument(
        "--strategy",
        choices=list(STRATEGIES),
        default="exact",
        help="exact (default: the solver, look-ahead and endgame), groups or groups+prob (the Java bot's)",
    )
    parser.add_argument(
        "--mode",
        choices=["classic", "cruel"],
        default="classic",
        help="classic (default), or cruel: no fixed layout, forced guesses counted",
    )
    parser.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE.png",
        help="plot each guess's predicted chance of a mine against what happened, and print the table",
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object on stdout, with each game's result in order"
    )
    parser.set_defaults(handler=bot)
