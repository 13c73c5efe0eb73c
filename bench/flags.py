"""`kaboom move` benchmark: seconds per answer (median, p95, max) by level and board size, as a tournament
sees them (a process started afresh for each move), on positions of seeded Flags games after random reveals
(numbers scattered over the board: harder for the solver than a played game's). Run by hand:

    .venv/bin/python bench/flags.py                                  # 20x20, 20x100, 100x100; every level
    .venv/bin/python bench/flags.py --sizes 100x100 --levels hard --positions 20
    .venv/bin/python bench/flags.py --rules cruel --sizes 100x100 --levels hard,normal,easy   # cruel Flags' adviser
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from app.play.tournament import DENSITIES, RULES, parse_answer, sample_position  # noqa: E402

KABOOM = str(Path(sys.executable).with_name("kaboom"))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20x20,20x100,100x100")
    parser.add_argument("--rules", choices=list(RULES), default="dealt", help="the rules the adviser plays by")
    parser.add_argument("--levels", help="default: every player of the rules")
    parser.add_argument("--positions", type=int, default=12, help="positions per size (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [tuple(int(side) for side in size.split("x")) for size in args.sizes.split(",")]
    levels = args.levels.split(",") if args.levels else list(RULES[args.rules].players)
    rng = random.Random(args.seed)
    table = Table(title=f"kaboom move --rules {args.rules}: seconds per answer, process start included")
    for column in ("level", "size", "answers", "median", "p95", "max"):
        table.add_column(column, justify="right" if column not in ("level", "size") else "left")
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("answers", total=len(sizes) * len(levels) * args.positions)
        for width, height in sizes:
            positions = []
            for number in range(args.positions):
                density = rng.choice(DENSITIES)
                cells = width * height
                moves = rng.randint(0, cells // 3)
                positions.append(
                    sample_position(width, height, round(cells * density), moves, args.seed * 1000 + number)
                )
            for level in levels:
                times = []
                for position in positions:
                    started = time.monotonic()
                    done = subprocess.run(
                        [KABOOM, "move", "--rules", args.rules, "--level", level],
                        input=position.format(),
                        capture_output=True,
                        text=True,
                        timeout=60,
                    )
                    times.append(time.monotonic() - started)
                    if done.returncode != 0 or isinstance(parse_answer(done.stdout, position), str):
                        sys.exit(f"{level} on {width}x{height}: {done.stdout.strip()!r} {done.stderr.strip()}")
                    progress.advance(task)
                table.add_row(
                    level,
                    f"{width}x{height}",
                    str(len(times)),
                    f"{statistics.median(times):.2f}",
                    f"{percentile(times, 0.95):.2f}",
                    f"{max(times):.2f}",
                )
    Console().print(table)


if __name__ == "__main__":
    main()
