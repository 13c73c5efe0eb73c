"""The `kaboom` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from solver import Analyzer, Budget, Inconsistent, PositionError, Status, describe, parse_positions

EXIT_BAD_INPUT = 2


class BadInput(Exception):
    """Input the command cannot answer: printed as one line, exit status 2."""


def _cell_argument(text: str) -> tuple[int, int]:
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
    if probabilities.cells is None:
        answer["probability"] = None
    else:
        answer["probability"] = [
            [
                float(probabilities.cells[(x, y)]) if (x, y) in probabilities.cells else None
                for x in range(analyzer.width)
            ]
            for y in range(analyzer.height)
        ]
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


def serve(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    import os

    import uvicorn
    from pydantic import ValidationError

    from app.config import ConfigurationError, Settings
    from app.web import create_app

    # Workers are separate processes that read their settings from the
    # environment, so command-line overrides travel there too.
    for name in ("host", "port", "database", "workers"):
        if (value := getattr(args, name)) is not None:
            os.environ[f"KABOOM_{name.upper()}"] = str(value)
    try:
        settings = Settings()
        # Opening the store here, once, makes a bad setting (an unwritable
        # database, a missing secret) stop the server with its message.
        create_app(settings).state.games.store.close()
    except ValidationError as error:
        problems = "; ".join(f"KABOOM_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in error.errors())
        raise BadInput(f"bad setting: {problems}") from None
    except ConfigurationError as error:
        raise BadInput(str(error)) from None
    where = settings.store or settings.database
    print(f"Kaboom on http://{settings.host}:{settings.port}, {settings.workers} worker(s), games in {where}", file=sys.stderr)
    uvicorn.run(
        "app.web:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        proxy_headers=True,
        # Limits count per client address: behind a proxy that address comes from it.
        forwarded_allow_ips=settings.forwarded_allow_ips,
        log_level="info",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kaboom", description="Kaboom: Minesweeper where a SAT solver decides.")
    commands = parser.add_subparsers(dest="command", required=True)
    analyze_parser = commands.add_parser(
        "analyze",
        help="classify every covered cell of positions read on stdin",
        description=(
            "Reads positions on stdin ('W H K', then H rows of '.', 'F', '*', '0'-'8'), separated by blank "
            "lines, and prints each grid with every covered cell replaced by s (safe), m (mine) or ? (unknown)."
        ),
    )
    analyze_parser.add_argument("--json", action="store_true", help="print statuses and exact mine probabilities as JSON, one line per position")
    analyze_parser.add_argument("--explain", type=_cell_argument, metavar="X,Y", help="print the numbers that prove the status of this cell (1-based column, row)")
    analyze_parser.add_argument(
        "--budget",
        type=int,
        default=Budget().steps,
        metavar="STEPS",
        help="counting work allowed for probabilities before giving up on them (default %(default)s)",
    )
    analyze_parser.set_defaults(handler=analyze)
    serve_parser = commands.add_parser(
        "serve",
        help="start the web server",
        description="Starts the game server. Settings come from KABOOM_ environment variables; these options override them.",
    )
    serve_parser.add_argument("--host", help="address to listen on (KABOOM_HOST, default 127.0.0.1)")
    serve_parser.add_argument("--port", type=int, help="port to listen on (KABOOM_PORT, default 8000)")
    serve_parser.add_argument("--database", type=Path, help="SQLite file for the games (KABOOM_DATABASE, default data/kaboom.sqlite3)")
    serve_parser.add_argument("--workers", type=int, help="server processes sharing the games (KABOOM_WORKERS, default 1)")
    serve_parser.set_defaults(handler=serve)
    return parser


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.handler(args, stdin or sys.stdin, stdout or sys.stdout)
    except BadInput as error:
        print(f"kaboom {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
