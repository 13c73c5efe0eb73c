"""No-guess generation benchmark: time per board by size and density, and the share of boards won by
a player who only ever opens proven-safe cells, playing through the game's own rules (it must be 100 %).

Each board: a classic game with No guessing, the first click at a cell drawn from the seed, then every
cell the exact solver proves safe opened until none is left. Run by hand:

    .venv/bin/python bench/generate.py                        # every size, 10 % to 25 %
    .venv/bin/python bench/generate.py --sizes 30x16 --densities 20.6 --boards 200
    .venv/bin/python bench/generate.py --sizes 100x100 28x28 --densities 20 38 --no-play --work
    .venv/bin/python bench/generate.py --sizes 100x100 --densities 20 25 --no-play --solver-work 4000000

--work counts each search's work units (solver/limits.py, what an allowance is spent in) and prints
them beside the processor time per unit; --solver-work N gives each search the allowance a server with
KABOOM_SOLVER_WORK=N gives a first click, and counts the boards refused for it (out of work). Any
WxH is a size (10 boards unless --boards).
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

from app.core.game import Move  # noqa: E402
from app.modes import ClassicOptions, apply_move, new_game  # noqa: E402
from solver import Allowance, Limits, OutOfWork  # noqa: E402
from solver.generate import NoGuessImpossible, no_guess_layout  # noqa: E402

# (width, height, boards by default); Expert's 99 mines are 20.6 %.
SIZES = {
    "9x9": (9, 9, 100),
    "16x16": (16, 16, 100),
    "30x16": (30, 16, 100),
    "50x50": (50, 50, 20),
    "100x100": (100, 100, 10),
}
DENSITIES = (10.0, 15.0, 20.0, 20.6, 25.0)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def won_without_guessing(width: int, height: int, mines: int, seed: int) -> bool:
    """Play the board the seed deals as a classic no-guess game, opening proven-safe cells only."""
    rng = random.Random(seed)
    game = new_game(width, height, mines, "classic", ClassicOptions(no_guess=True), rng=rng)
    game, outcome = apply_move(game, Move("reveal", rng.randrange(width), rng.randrange(height)), rng=rng, now=0.0)
    analyzer = outcome.analyzer
    while game.status == "playing" and (safe := analyzer.safe_cells()):
        for cell in safe:
            if game.cells[game.index(*cell)] == ".":
                game, outcome = apply_move(game, Move("reveal", *cell), rng=rng, now=0.0, analyzer=analyzer)
                analyzer = outcome.analyzer
    return game.status == "won"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="*", default=list(SIZES), help=f"from {', '.join(SIZES)}, or any WxH")
    parser.add_argument("--densities", nargs="*", type=float, default=list(DENSITIES))
    parser.add_argument("--boards", type=int, help="boards per size and density (default: per size)")
    parser.add_argument("--no-play", action="store_true", help="time generation only")
    parser.add_argument("--work", action="store_true", help="count each search's work units too")
    parser.add_argument("--solver-work", type=int, help="the allowance of a server with this KABOOM_SOLVER_WORK")
    args = parser.parse_args()
    console = Console(stderr=True)
    table = Table(title="No-guess generation (ms per board; won = boards a never-guessing player clears)")
    columns = ["size", "mines", "density", "boards", "median", "p95", "max", "refused"]
    columns += ["out of work"] if args.solver_work else []
    columns += ["work (M units) median / max", "us/unit"] if args.work else []
    for column in columns + ["won"]:
        table.add_column(column, justify="right")
    with Progress(console=console, transient=True) as progress:
        for name in args.sizes:
            width, height = map(int, name.split("x"))
            boards = args.boards or SIZES.get(name, (0, 0, 10))[2]
            for density in args.densities:
                mines = round(width * height * density / 100)
                task = progress.add_task(f"{name}/{mines}", total=boards)
                times, refused, out_of_work, won, work, cpu = [], 0, 0, 0, [], []
                for seed in range(boards):
                    rng = random.Random(seed)
                    first = rng.randrange(width * height)
                    allowance = Limits(work=args.solver_work).generating() if args.solver_work else Allowance()
                    started, started_cpu = time.perf_counter(), time.process_time()
                    try:
                        no_guess_layout(width, height, mines, first, rng, allowance=allowance)
                    except NoGuessImpossible:
                        refused += 1
                    except OutOfWork:
                        out_of_work += 1
                    times.append((time.perf_counter() - started) * 1000)
                    cpu.append(time.process_time() - started_cpu)
                    work.append(allowance.spent)
                    if not args.no_play:
                        won += won_without_guessing(width, height, mines, seed)
                    progress.advance(task)
                progress.remove_task(task)
                made = boards - refused - out_of_work
                row = [
                    name,
                    str(mines),
                    f"{density:g} %",
                    str(boards),
                    f"{statistics.median(times):.0f}",
                    f"{percentile(times, 0.95):.0f}",
                    f"{max(times):.0f}",
                    str(refused),
                ]
                row += [str(out_of_work)] if args.solver_work else []
                if args.work:
                    row += [
                        f"{statistics.median(work) / 1e6:.1f} / {max(work) / 1e6:.1f}",
                        f"{sum(cpu) / max(1, sum(work)) * 1e6:.3f}",
                    ]
                row += ["-" if args.no_play else f"{100 * won / made:.0f} %" if made else "-"]
                table.add_row(*row)
    Console(width=180).print(table)


if __name__ == "__main__":
    main()
