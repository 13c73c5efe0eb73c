"""Exact mine probabilities side by side: Kaboom's Analyzer against JSMinesweeper's ProbabilityEngine under Node.

Positions come from seeded games played as bench/solver.py plays them (its HiddenBoard: a zero opening
first, then each click opens a proven-safe cell, or a random safe cell of the hidden layout when none is
proven, with zero floods); every --every'th click's position is timed (by default about 2,000 Expert
positions from 100 games and 200 from one 100x100 game). Each side runs every position --repeats times
and keeps its best time; the tables give the median and p95 of those bests, in ms per position.

Kaboom, with time.perf_counter around the calls only:
  incremental  one Analyzer kept over the game, revealed click by click, and asked for probabilities after
               every click (timed or not, so a sample is a sample of what every click costs); each repeat
               runs on a deep copy of the game's Analyzer as the click left it (the copy is not timed):
               classify() is timed first (the settling a reveal leaves for later: propagation, SAT), then
               probabilities() (the counting only), and "classify + probabilities" is their sum.
  fresh        Analyzer(position) then probabilities(), timed together: reading the position, the settling
               and the counting from nothing.
  The counting tables of small components are kept by shape (solver.counting.counted_by_shape) across
  positions and games, as in a server, so earlier clicks warm them; every repeat starts from them as the
  earlier clicks left them, never from what an earlier repeat of the same position counted.
  Each timing ends after every distinct value of the answer has been read once (each cell next to a number,
  one outside cell), since the answer may be a mapping that works its values out as they are read. Counting
  runs with an unlimited Budget, so every position gets its probabilities. A further column is one line in
  COLUMNS (a function of the game's Analyzer or of the Position, returning counted(...)).

JSMinesweeper (bench/jsminesweeper_engine.cjs, with process.hrtime.bigint() around the calls): its source
files are read from the checkout given with --jsminesweeper (nothing of it is in this repository) and run
with vm.runInThisContext, all in the harness's own context (a vm context of their own would slow every
global they read about tenfold); all positions of a size go to Node at once, the first --warmup of them run
once untimed, then each runs --repeats times. Its timed columns:
  engine       new ProbabilityEngine(board, witnesses, witnessed, squaresLeft, minesLeft, options) and
               process(), options {playStyle: PLAY_STYLE_FLAGS, fullProbability: true, verbose: false} as its
               analysis mode passes them (fullProbability: every box gets a probability, no stopping at the
               first certain clear). The engine's dead-tile candidates and isolated-edge set-up have no
               option to switch them off and are timed with it.
  whole        a Board from the rows, the solver's preparation for a position (resetForAnalysis(false,
               true): cells that all their numbers call mines are set aside as found mines; then the
               witnesses, the witnessed cells, the mines and squares left, as its doSolve collects them) and
               the engine: the counterpart of Kaboom's fresh column.
Positions with no mines left, or only mines left, are answered without the engine, as its solver does.

Agreement: every covered cell of every timed position, for every Kaboom column, against JSMinesweeper's
answer. The engine counts in BigInt but reports a safety of 1 minus the mine probability rounded down to 8
decimals, so its mine probability may sit up to 1e-8 below the exact one: values more than 1e-8 apart (plus
1e-15 for float rounding) fail the run. The harness also hands back floor(10^18 * tally / solutions) from the engine's
BigInt tallies, and exact (Fraction) Kaboom values must match those 18 decimals. Disagreement exits non-zero
and lists the first positions that differ.

Node runs the harness (tested with v20). A JSMinesweeper checkout, at the commit the harness was written against:

    git clone https://github.com/DavidNHill/JSMinesweeper
    git -C JSMinesweeper checkout d8ff392543623c77e72b34e437ff30d68ca7178a

Run by hand:

    .venv/bin/python bench/probabilities.py --jsminesweeper ../JSMinesweeper
    .venv/bin/python bench/probabilities.py --jsminesweeper ../JSMinesweeper --sizes 30x16/99 --games 30
    .venv/bin/python bench/probabilities.py --jsminesweeper ../JSMinesweeper --sizes 100x100/2000 --every 20

A run of both sizes with the defaults takes about five minutes on one core, most of it the 100x100 game.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from bench.solver import HiddenBoard  # noqa: E402
from solver import Analyzer, Budget, Cell, Position, counting, describe  # noqa: E402
from solver.position import COVERED  # noqa: E402

HARNESS = Path(__file__).resolve().with_name("jsminesweeper_engine.cjs")
ENGINE_SOURCE = Path("Minesweeper/client/solver_probability_engine.js")
# (width, height, mines, games, every: the click stride of the timed positions), by default.
SIZES = {
    "30x16/99": (30, 16, 99, 100, 10),
    "100x100/2000": (100, 100, 2000, 1, 20),
}
TOLERANCE = 1e-8  # JSMinesweeper rounds its safety down to 8 decimals
ROUNDING = 1e-15  # float rounding on top of that
DIGITS = 10**18  # the exact comparison: floor(10^18 * probability)
BUDGET = Budget(steps=sys.maxsize)  # no position goes uncounted
LISTED = 5  # differing positions shown when the check fails

Value = Fraction | float
# A column's answer: the mine probability of every covered cell.
Answer = Mapping[Cell, Value]
Compact = tuple[int | None, float]


def counted(cells: Answer | None) -> Answer:
    """A Probabilities' chances, which the unlimited budget always counts."""
    if cells is None:
        raise RuntimeError("Kaboom gave no probabilities: the counting budget ran out")
    return cells


@dataclass(frozen=True)
class Column:
    incremental: bool  # run on the game's Analyzer (a copy of it), after classify(); else on the Position
    run: Callable[[Any], Answer]


COLUMNS: dict[str, Column] = {
    "probabilities": Column(True, lambda analyzer: counted(analyzer.probabilities(BUDGET).cells)),
    "probabilities as floats": Column(True, lambda analyzer: counted(analyzer.probabilities(BUDGET).floats)),
    "fresh Analyzer + probabilities": Column(
        False, lambda position: counted(Analyzer(position).probabilities(BUDGET).cells)
    ),
}

CLASSIFY = "classify"
JS_ENGINE = "JSMinesweeper engine (constructor + process)"
JS_WHOLE = "JSMinesweeper whole (board, solver's preparation, engine)"


def rows() -> list[str]:
    """The table's rows, in order: classify, Kaboom's incremental columns (each also with classify), its fresh
    ones, then JSMinesweeper's."""
    names = [CLASSIFY]
    for name, column in COLUMNS.items():
        if column.incremental:
            names += [f"incremental: {name}", f"incremental: classify + {name}"]
    names += [name for name, column in COLUMNS.items() if not column.incremental]
    return [*names, JS_ENGINE, JS_WHOLE]


@dataclass
class Sample:
    """One timed position: its best times by row, and each Kaboom column's answer in compact form."""

    position: Position
    game: int
    click: int
    outside_cells: int = 0  # covered cells next to no revealed number
    seconds: dict[str, float] = field(default_factory=dict)
    # column -> each cell's (floor(10^18 p), or None for a float p; float p) by index, for the cells next to
    # a number; and the same for every outside cell (None when there is none)
    answers: dict[str, tuple[dict[int, Compact], Compact | None]] = field(default_factory=dict)


def compact(position: Position, edge: set[Cell], cells: Answer) -> tuple[dict[int, Compact], Compact | None]:
    """A column's answer for every covered cell, the outside collapsed to one value (checked to be one)."""
    # By the value's id, the value kept alive with it: a mapping may build its values as they are read.
    memo: dict[int, tuple[Value, Compact]] = {}

    def entry(value: Value) -> Compact:
        key = id(value)
        if key not in memo:
            if isinstance(value, Fraction):
                memo[key] = (value, (value.numerator * DIGITS // value.denominator, float(value)))
            else:
                memo[key] = (value, (None, float(value)))
        return memo[key][1]

    frontier: dict[int, Compact] = {}
    outside: Compact | None = None
    for cell in position.cells():
        if not position.is_covered(cell):
            continue
        value = cells.get(cell)
        if value is None:
            raise RuntimeError(f"a Kaboom column gave no probability for {cell}")
        index = cell[1] * position.width + cell[0]
        if cell in edge:
            frontier[index] = entry(value)
        elif outside is None:
            outside = entry(value)
        elif entry(value) != outside:
            raise RuntimeError(f"a Kaboom column gave two outside cells different probabilities, at {cell}")
    return frontier, outside


def edge_cells(position: Position) -> set[Cell]:
    """Covered cells next to a revealed number (Kaboom's frontier and proven cells, JSMinesweeper's witnessed)."""
    return {
        cell
        for cell in position.cells()
        if position.is_covered(cell) and any(not position.is_covered(n) for n in position.neighbours(cell))
    }


def time_kaboom(analyzer: Analyzer, sample: Sample, repeats: int) -> None:
    """Every Kaboom column on the position the game's Analyzer has just been given (a reveal, not settled)."""
    position = sample.position
    edge = edge_cells(position)
    sample.outside_cells = sum(row.count(COVERED) for row in position.rows) - len(edge)
    probe = distinct_cells(position, edge)
    keep = {id(analyzer._neighbours): analyzer._neighbours}  # the shared geometry table is not state
    # The tables kept by shape are as the game's earlier clicks left them, for every repeat: a repeat must not
    # find the shapes its predecessor counted on this very position.
    shapes = counting._SHAPES.copy()
    # What this script holds (every sample so far, their answers) is moved out of the collector's sight: a full
    # collection during a timing would otherwise scan the benchmark's own heap, which a server does not have.
    gc.freeze()
    for name, column in COLUMNS.items():
        classify: list[float] = []
        together: list[float] = []
        alone: list[float] = []
        result: Answer | None = None
        for _ in range(repeats):
            counting._SHAPES.clear()
            counting._SHAPES.update(shapes)
            if column.incremental:
                work = copy.deepcopy(analyzer, dict(keep))
                start = time.perf_counter()
                work.classify()
                middle = time.perf_counter()
                result = column.run(work)
                read(result, probe)
                end = time.perf_counter()
                classify.append(middle - start)
                together.append(end - start)
            else:
                start = middle = time.perf_counter()
                result = column.run(position)
                read(result, probe)
                end = time.perf_counter()
            alone.append(end - middle)
        assert result is not None
        if column.incremental:
            sample.seconds.setdefault(CLASSIFY, min(classify))  # the first incremental column's
            sample.seconds[f"incremental: {name}"] = min(alone)
            sample.seconds[f"incremental: classify + {name}"] = min(together)
        else:
            sample.seconds[name] = min(alone)
        sample.answers[name] = compact(position, edge, result)


def distinct_cells(position: Position, edge: set[Cell]) -> list[Cell]:
    """The cells whose values are every value an answer holds: each cell next to a number, one outside cell."""
    outside = next((c for c in position.cells() if position.is_covered(c) and c not in edge), None)
    return sorted(edge) + ([] if outside is None else [outside])


def read(cells: Answer, probe: list[Cell]) -> None:
    """Each distinct value of an answer read once, in the timing: a mapping may work its values out only when
    they are read (JSMinesweeper's engine has a float for every box and the off-edge cells when it returns)."""
    for cell in probe:
        cells[cell]


def advance(analyzer: Analyzer) -> None:
    """What a click asks of the game's Analyzer when it is not timed: the same calls, so its caches are as
    they would be had every click been timed."""
    analyzer.classify()
    for column in COLUMNS.values():
        if column.incremental:
            column.run(analyzer)


def play(width: int, height: int, mines: int, seed: int) -> Iterator[tuple[int, Analyzer]]:
    """The game's Analyzer after each click's reveal (not yet settled), as bench/solver.py plays a game."""
    rng = random.Random(seed)
    board = HiddenBoard(width, height, mines, rng)
    analyzer = Analyzer(Position.empty(width, height, mines))
    cell = board.first
    click = 0
    while True:
        analyzer.reveal(board.open(cell))
        yield click, analyzer
        click += 1
        cell = board.next_click(analyzer, rng)
        if cell is None:
            return


def run_node(node: str, checkout: Path, samples: list[Sample], repeats: int, warmup: int) -> dict[str, Any]:
    request = {
        "repeats": repeats,
        "warmup": warmup,
        "positions": [
            {"width": s.position.width, "height": s.position.height, "mines": s.position.mines, "rows": s.position.rows}
            for s in samples
        ],
    }
    completed = subprocess.run(
        [node, str(HARNESS), str(checkout)], input=json.dumps(request), capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        sys.stderr.write(completed.stderr)
        sys.exit(f"the JSMinesweeper harness failed (exit {completed.returncode})")
    sys.stderr.write(completed.stderr)
    reply: dict[str, Any] = json.loads(completed.stdout)
    for sample, result in zip(samples, reply["results"], strict=True):
        sample.seconds[JS_ENGINE] = result["engine_ns"] / 1e9
        sample.seconds[JS_WHOLE] = result["whole_ns"] / 1e9
    return reply


@dataclass
class Agreement:
    compared: int = 0
    exact_compared: int = 0
    largest: float = 0.0
    differing: list[str] = field(default_factory=list)


def decimals(scaled: int) -> str:
    """floor(10^18 p) written as p to 18 decimals."""
    return f"{scaled // DIGITS}.{scaled % DIGITS:018d}"


def check(samples: list[Sample], results: list[dict[str, Any]], agreement: Agreement) -> None:
    """Every Kaboom column against JSMinesweeper, covered cell by covered cell."""
    for sample, result in zip(samples, results, strict=True):
        width = sample.position.width
        theirs = {index: (int(digits), p) for index, p, digits in result["cells"]}
        their_outside = None if result["outside"] is None else (int(result["outside"][1]), result["outside"][0])
        problems: list[str] = []
        for name, (frontier, outside) in sample.answers.items():
            pairs: list[tuple[str, int, Compact | None, tuple[int, float] | None]] = [
                (describe((i % width, i // width)), 1, ours, theirs.get(i)) for i, ours in frontier.items()
            ]
            if sample.outside_cells:
                pairs.append(
                    (f"the {sample.outside_cells} outside cells", sample.outside_cells, outside, their_outside)
                )
            for where, count, ours, other in pairs:
                if ours is None or other is None:
                    problems.append(f"{name}: {where}: no probability from {'JSMinesweeper' if ours else 'Kaboom'}")
                    continue
                difference = abs(ours[1] - other[1])
                agreement.compared += count
                agreement.largest = max(agreement.largest, difference)
                if difference > TOLERANCE + ROUNDING:
                    problems.append(f"{name}: {where}: Kaboom {ours[1]!r}, JSMinesweeper {other[1]!r}")
                if ours[0] is not None:
                    agreement.exact_compared += count
                    if ours[0] != other[0]:
                        problems.append(
                            f"{name}: {where}: to 18 decimals Kaboom {decimals(ours[0])}, "
                            f"JSMinesweeper {decimals(other[0])}"
                        )
        if problems:
            agreement.differing.append(
                f"game {sample.game}, click {sample.click}:\n    "
                + "\n    ".join(problems[:LISTED])
                + "\n"
                + sample.position.format()
            )


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def table(title: str, samples: list[Sample]) -> Table:
    result = Table(title=title)
    for heading in ("", "median ms", "p95 ms", "JS engine / this: median, p95", "JS whole / this: median, p95"):
        result.add_column(heading, justify="left" if not heading else "right")
    figures = {
        name: (statistics.median(values), p95(values))
        for name in rows()
        if (values := [s.seconds[name] for s in samples if name in s.seconds])
    }
    for name, (median, high) in figures.items():
        ratios = []
        for reference in (JS_ENGINE, JS_WHOLE):
            if name in (JS_ENGINE, JS_WHOLE) or reference not in figures:
                ratios.append("-")
            else:
                ratios.append(f"{figures[reference][0] / median:.2f}, {figures[reference][1] / high:.2f}")
        result.add_row(name, f"{median * 1000:.3f}", f"{high * 1000:.3f}", *ratios)
    return result


def checkout_commit(checkout: Path) -> str:
    """The commit a JSMinesweeper checkout is at, or why that is not known."""
    git = shutil.which("git")
    if git is None:
        return "commit not known (no git)"

    def ask(*args: str) -> str | None:
        done = subprocess.run([git, "-C", str(checkout), *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    top = ask("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != checkout.resolve():
        return "commit not known (not the top of a git checkout)"
    commit = ask("rev-parse", "HEAD")
    changed = ask("status", "--porcelain", "--untracked-files=no")
    return f"commit {commit}" + (" with local changes" if changed else "")


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jsminesweeper", type=Path, required=True, help="a JSMinesweeper checkout (a work tree)")
    parser.add_argument("--sizes", default=",".join(SIZES), help="comma-separated, from: " + ", ".join(SIZES))
    parser.add_argument("--games", type=int, help="games per size (default: per size)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, help="time every N'th click's position (default: per size)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per position on each side; the best counts")
    parser.add_argument("--warmup", type=int, default=20, help="positions Node runs once, untimed, first")
    parser.add_argument("--node", default=shutil.which("node") or "node")
    args = parser.parse_args()
    sizes = args.sizes.split(",")
    for name in sizes:
        if name not in SIZES:
            parser.error(f"unknown size {name!r}: one of {', '.join(SIZES)}")
    if not (args.jsminesweeper / ENGINE_SOURCE).is_file():
        parser.error(f"{args.jsminesweeper} has no {ENGINE_SOURCE}: give the top of a JSMinesweeper work tree")
    console = Console(width=160)
    node_version = subprocess.run([args.node, "--version"], capture_output=True, text=True, check=True).stdout
    console.print(f"JSMinesweeper at {args.jsminesweeper.resolve()}: {checkout_commit(args.jsminesweeper)}")
    console.print(
        f"{platform.python_implementation()} {platform.python_version()}, Node {node_version.strip()}; "
        f"best of {args.repeats} per position on both sides; load average at the start {load()}"
    )
    agreement = Agreement()
    tables = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        for name in sizes:
            width, height, mines, games, every = SIZES[name]
            games, every = args.games or games, args.every or every
            samples: list[Sample] = []
            task = progress.add_task(f"{name}: Kaboom", total=games)
            for game in range(games):
                seed = args.seed * 100_003 + game
                for click, analyzer in play(width, height, mines, seed):
                    if click % every == 0:
                        sample = Sample(analyzer.position, game, click)
                        time_kaboom(analyzer, sample, args.repeats)
                        samples.append(sample)
                    advance(analyzer)
                progress.advance(task)
            progress.update(task, description=f"{name}: JSMinesweeper, {len(samples)} positions")
            reply = run_node(args.node, args.jsminesweeper, samples, args.repeats, args.warmup)
            check(samples, reply["results"], agreement)
            progress.remove_task(task)
            title = f"{name}: {games} game{'s' * (games != 1)}, {len(samples)} positions (one click in {every})"
            tables.append(table(title, samples))
    for result in tables:
        console.print(result)
    console.print(f"load average at the end {load()}")
    console.print(
        f"{agreement.compared} probabilities compared: largest difference {agreement.largest:.4g} "
        f"(JSMinesweeper rounds to 8 decimals); {agreement.exact_compared} exact ones also to 18 decimals"
    )
    if agreement.differing:
        console.print(f"[bold red]{len(agreement.differing)} positions disagree[/], the first:")
        for text in agreement.differing[:LISTED]:
            console.print(text, markup=False, highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
