"""A mode with a secret, for tests of the mode interface: a layout dealt when the game is made.

The smallest fixed-layout game (no opening, no assists): what classic
Minesweeper will keep hidden, so that the tests that no answer shows
hidden state before the end have something to find.
"""

from __future__ import annotations

import random

from typing_extensions import TypedDict

from app.core.game import Game, Hint, Turn
from app.core.stored import Cell, schema
from app.modes import MODES
from app.modes.base import Mode
from solver import Analyzer
from solver.position import COVERED, FLAG


@schema
class FixedHidden(TypedDict):
    mines: list[Cell]


class FixedLayout(Mode):
    name = "test-fixed"
    title = "Fixed layout (tests only)"
    hidden_schema = FixedHidden

    def deal(self, game: Game, rng: random.Random, secret: bytes = b"") -> None:
        game.hidden = {"mines": sorted(rng.sample(range(game.width * game.height), game.mines))}

    def reveal_cell(self, turn: Turn, index: int) -> None:
        game = turn.game
        mines = set(game.hidden["mines"])
        if game.started_at is None:
            game.started_at = turn.now
        if index in mines:
            game.exploded = index
            game.finish("lost", turn.now, mines)
            return
        board = game.board
        turn.open_cells(
            board.flood(
                index,
                number_at=lambda i: board.mines_around(i, mines),
                opens=lambda i: game.cells[i] == COVERED and game.marks.get(i) != FLAG,
            )
        )
        if game.covered == game.mines:
            game.finish("won", turn.now, mines)

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        return Hint("guess", "Nothing to say")


def registered(monkeypatch) -> str:
    """Register the mode for one test (the registry is read at every request)."""
    monkeypatch.setitem(MODES, FixedLayout.name, FixedLayout())
    return FixedLayout.name
