"""`kaboom move`: the Flags move adviser (KöMaL S.27): a position on stdin, the cell to reveal on stdout."""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from typing import TextIO

from app.cli.errors import BadInput
from app.play.tournament import RULES
from solver import Allowance, Analyzer, Inconsistent, Interrupted, PositionError, parse_position
from solver.flags import FLAGS_LEVELS, FLAGS_SECONDS, FlagsView, flags_random
from solver.position import MINE, Position

# The protocol's limit: an answer later than this loses the game.
ANSWER_SECONDS = 10.0
# What the adviser may think at most, leaving the rest of the limit for starting up and the fallback.
MOST_THINKING_SECONDS = 7.0


def read_flags_position(text: str, deadline: float) -> Position:
    """A Flags position: well formed, with a covered cell to reveal, and not impossible as far as the
    solver can tell by the deadline (BadInput otherwise)."""
    try:
        position = parse_position(text)
    except PositionError as error:
        raise BadInput(str(error)) from None
    symbols = "".join(position.rows)
    found = symbols.count(MINE)
    covered = len(symbols) - found - sum(symbol.isdigit() for symbol in symbols)
    if found > position.mines:
        raise BadInput(f"impossible position: {found} mines uncovered on a board of {position.mines}")
    if not covered:
        raise BadInput("no covered cell left: the game is over, there is no move to make")
    if covered < position.mines - found:
        raise BadInput(f"impossible position: {position.mines - found} mines left but only {covered} covered cells")
    analyzer = Analyzer(position)
    try:
        with analyzer.limits(Allowance(deadline=deadline)):
            analyzer.check()
    except Inconsistent as error:
        raise BadInput(f"impossible position: {error}") from None
    except Interrupted:
        pass  # too big to settle in the time: the adviser's fallback still answers soundly
    return position


def move(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    started = time.monotonic()
    deadline = started + args.seconds
    position = read_flags_position(stdin.read(), deadline)
    view = FlagsView.of(position, deadline)
    rng = random.Random(args.seed)
    players = RULES[args.rules].players
    if args.level not in players:
        raise BadInput(f"no level {args.level!r} for the {args.rules} rules: expected one of {', '.join(players)}")
    try:
        choice = players[args.level](view, rng)
    except Inconsistent as error:
        raise BadInput(f"impossible position: {error}") from None
    except Exception:
        # A program that fails loses its game: a failing level still answers, with a cell at random,
        # and says why on stderr, so that the failure is seen and fixed.
        traceback.print_exc(file=sys.stderr)
        choice = flags_random(view, rng)
    x, y = choice.cell
    stdout.write(f"{x + 1} {y + 1}\n")


def thinking_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0.1 <= seconds <= MOST_THINKING_SECONDS:
        raise argparse.ArgumentTypeError(
            f"thinking time must be between 0.1 and {MOST_THINKING_SECONDS:g} seconds, got {text}"
        )
    return seconds


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "move",
        help="the Flags move adviser: print the cell to reveal in a position read on stdin",
        description=(
            "Reads a Minesweeper Flags position on stdin in the KöMaL S.27 format ('N M K': columns, rows, mines; then "
            "M rows of N characters: '.' covered, '*' an uncovered mine, '0'-'8' a number; 'F' is read as covered) and "
            "prints 'X Y', the 1-based column and row of the covered cell the player to move should reveal, within "
            f"{ANSWER_SECONDS:g} seconds on boards up to 100x100. A malformed or impossible position: exit status 2."
        ),
    )
    levels = ", ".join(FLAGS_LEVELS)
    partners = {
        rules.name: ", ".join(name for name in rules.players if name not in FLAGS_LEVELS) for rules in RULES.values()
    }
    parser.add_argument(
        "--level",
        choices=sorted({name for rules in RULES.values() for name in rules.players}),
        default="hard",
        help=(
            f"the computer's levels ({levels}; default %(default)s, the strongest) or a sparring partner "
            f"({'; '.join(f'{rules}: {names}' for rules, names in partners.items())})"
        ),
    )
    parser.add_argument(
        "--rules",
        choices=list(RULES),
        default="dealt",
        help="dealt: Flags' own rules, the mines placed at the start (default); cruel: cruel Flags, where only a "
        "proven mine scores and any other cell is empty",
    )
    parser.add_argument(
        "--seconds",
        type=thinking_seconds,
        default=FLAGS_SECONDS,
        help="thinking time before the fallback answers (default %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="breaks ties; the same seed gives the same answer (default %(default)s)"
    )
    parser.set_defaults(handler=move)
