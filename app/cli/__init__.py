"""The `kaboom` command: one module per subcommand, each adding its own parser."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from app.cli import admin, analyze, bot, generate, move, serve, tournament
from app.cli.errors import EXIT_BAD_INPUT
from app.core.errors import KaboomError

COMMANDS = (admin, analyze, bot, generate, move, serve, tournament)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kaboom", description="Kaboom: Minesweeper where a SAT solver decides.")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.handler(args, stdin or sys.stdin, stdout or sys.stdout)
    except KaboomError as error:
        # Bad input, or anything the game or the store refuses: one line, never a traceback.
        print(f"kaboom {args.command}: {error.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
