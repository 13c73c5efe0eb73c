"""`kaboom generate`: a fixed layout for a size, mine count, seed and first click, as a position."""

from __future__ import annotations

import argparse
import random
import secrets
from typing import TextIO

from app.cli.analyze import cell_argument
from app.cli.errors import BadInput
from app.core.game import Invalid, board_size
from solver.generate import NoGuessImpossible, first_click_layout, no_guess_layout
from solver.position import COVERED, MINE, Position


def generate(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    try:
        width, height, mines = board_size(args.width, args.height, args.mines)
    except Invalid as error:
        raise BadInput(error.message) from None
    x, y = args.first if args.first is not None else (width // 2, height // 2)
    if x >= width or y >= height:
        raise BadInput(f"the first click at column {x + 1}, row {y + 1} is off the {width}x{height} board")
    first = y * width + x
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    # The seed and every parameter together: the same command prints the same layout, anywhere.
    rng = random.Random(
        f"{seed}|{width}x{height}/{mines}|{args.first_click}|{'no-guess' if args.no_guess else 'any'}|{first}"
    )
    opening = args.first_click == "opening"
    try:
        if args.no_guess:
            layout = no_guess_layout(width, height, mines, first, rng, opening=opening)
        else:
            layout = first_click_layout(width, height, mines, first, rng, opening=opening)
    except (NoGuessImpossible, ValueError) as error:
        raise BadInput(str(error)) from None
    symbols = "".join(MINE if index in layout else COVERED for index in range(width * height))
    rows = tuple(symbols[row * width : (row + 1) * width] for row in range(height))
    stdout.write(Position(width, height, mines, rows).format())


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "generate",
        help="print a layout for a size, mine count, seed and first click",
        description=(
            "Prints a layout as a position ('W H K', then H rows: '*' a mine, '.' a safe cell) that spares the first "
            "click: an opening (the cell and its neighbours empty) unless --first-click safe. With --no-guess the "
            "layout can be cleared from the first click by deduction alone, the mine count included."
        ),
    )
    parser.add_argument("width", type=int, help="columns, 2 to 100")
    parser.add_argument("height", type=int, help="rows, 2 to 100")
    parser.add_argument("mines", type=int, help="mines, at least 1 and fewer than the cells")
    parser.add_argument("--seed", type=int, help="the same seed and parameters print the same layout (default: random)")
    parser.add_argument(
        "--first",
        type=cell_argument,
        metavar="X,Y",
        help="the first click, 1-based column and row (default: the centre)",
    )
    parser.add_argument(
        "--first-click",
        choices=("opening", "safe"),
        default="opening",
        help="what the first click promises (default: %(default)s)",
    )
    parser.add_argument("--no-guess", action="store_true", help="a layout that needs no guess from the first click")
    parser.set_defaults(handler=generate)
