"""`kaboom analyze`: statuses, exact probabilities and proofs of positions read on stdin."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from app.cli.errors import BadInput
from solver import Analyzer, Budget, Inconsistent, PositionError, Status, describe, parse_positions


def cell_argument(text: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"expected X,Y (1-based column and row), got {text!r}")
    x, y = (int(part) for part in parts)
    if x < 1 or y < 1:
        raise argparse.ArgumentTypeError(f"columns and rows count from 1, got {text!r}")
    return x - 1, y - 1


def _explain(analyzer: Analyzer, cell: tuple[int, int]):
    if not (cell[0] < analyzer.width and cell[1] < analyzer.height):
        raise BadInput(f"cannot explain {describe(cell)}: the board is {analyzer.width}x{analyzer.height}")
    try:
        return analyzer.explain(cell)
    except ValueError as error:
        raise BadInput(f"cannot explain: {error}") from None


def _analyze_one(analyzer: Analyzer, args: argparse.Namespace) -> str:
    rows = analyzer.status_rows()
    explanation = _explain(analyzer, args.explain) if args.explain else None
    if not args.json:
        return "\n".join(rows + ([explanation.as_text()] if explanation else []))
    probabilities = analyzer.probabilities(Budget(steps=args.budget))
    answer: dict = {"status": rows}
    answer["probability"] = None if probabilities.floats is None else probabilities.floats.rows()
    answer["budget_exceeded"] = probabilities.budget_exceeded
    if explanation:
        answer["explanation"] = {
            "cell": [explanation.cell[0] + 1, explanation.cell[1] + 1],
            "status": "safe" if explanation.status is Status.SAFE else "mine",
            "numbers": [[x + 1, y + 1] for x, y in explanation.numbers],
            "uses_count": explanation.uses_count,
            "text": explanation.as_text(),
        }
    return json.dumps(answer)


def analyze(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    try:
        positions = parse_positions(stdin.read())
    except PositionError as error:
        raise BadInput(str(error)) from None
    separator = "\n" if args.json else "\n\n"
    for number, position in enumerate(positions, start=1):
        prefix = f"position {number}: " if len(positions) > 1 else ""
        try:
            answer = _analyze_one(Analyzer(position), args)
        except (Inconsistent, BadInput) as error:
            raise BadInput(prefix + str(error)) from None
        stdout.write(("" if number == 1 else separator) + answer)
        stdout.flush()
    stdout.write("\n")


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "analyze",
        help="classify every covered cell of positions read on stdin",
        description=(
            "Reads positions on stdin ('W H K', then H rows of '.', 'F', '*', '0'-'8'), separated by blank "
            "lines, and prints each grid with every covered cell replaced by s (safe), m (mine) or ? (unknown)."
        ),
    )
    parser.add_argument(
        "--json", action="store_true", help="print statuses and exact mine probabilities as JSON, one line per position"
    )
    parser.add_argument(
        "--explain",
        type=cell_argument,
        metavar="X,Y",
        help="print the numbers that prove the status of this cell (1-based column, row)",
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=Budget().steps,
        metavar="STEPS",
        help="counting work allowed for probabilities before giving up on them (default %(default)s)",
    )
    parser.set_defaults(handler=analyze)
