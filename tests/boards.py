"""Fixed-layout games drawn as text, for rule tests that read as the rule: classic and its kin."""

from __future__ import annotations

import random

from app.core.game import Game, Move
from app.modes import ClassicOptions, apply_move, new_game


def classic_from(rows: list[str], mode: str = "classic", **options) -> Game:
    """A classic game in play from its layout: '*' a covered mine, 'M' a flagged mine, '.' a covered safe
    cell, 'F' a flagged safe cell (a wrong flag), 'o' a revealed safe cell (it shows its number)."""
    width, height = len(rows[0]), len(rows)
    symbols = "".join(rows)
    mines = sorted(i for i, symbol in enumerate(symbols) if symbol in "*M")
    game = new_game(width, height, len(mines), mode, ClassicOptions(**options), rng=random.Random(0))
    game.hidden["mines"] = mines
    for index, symbol in enumerate(symbols):
        if symbol in "MF":
            game.marks[index] = "F"
        elif symbol == "o":
            game.cells[index] = str(game.board.mines_around(index, set(mines)))
    if "o" in symbols:
        game.started_at = 0.0
    return game


def play(game: Game, action: str, x: int | None = None, y: int | None = None) -> Game:
    after, _ = apply_move(game, Move(action, x, y), rng=random.Random(0), now=50.0)
    return after
