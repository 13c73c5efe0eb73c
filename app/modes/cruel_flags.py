"""Cruel Flags (DESIGN.md §1.7): Flags for two with no fixed layout, every click decided against its mover.

The board has K mines but no places for them. A click on a cell that some
layout consistent with everything shown leaves empty is empty: its number (and
a zero's flood) is dealt uniformly among those layouts, and the turn passes. A
cell that is a mine in every consistent layout is a mine: a point, and the
mover moves again. So a point is won by proof alone, and a player without a
proven mine must open an empty cell, choosing the one that tells the opponent
least. The bomb's 5×5 square holds as few mines as any consistent layout allows.
A finished game shows a layout consistent with everything played.

Like cruel-but-fair, the game keeps only the seed its deals are drawn from
(SeededDeals): the same position and the same click deal the same cells.
Everything else is Flags': the seats, the turns, the scores, the end.
"""

from __future__ import annotations

from typing import ClassVar

from app.core.game import Turn
from app.core.languages import N_, Text, lazy_gettext
from app.modes.cruel import SeededDeals
from app.modes.flags import Flags
from solver import Inconsistent
from solver.cruel_flags import CRUEL_FLAGS_LEVELS, cruel_flags_bomb
from solver.fewest import fewest_mines_layout
from solver.flags import FlagsView


class CruelFlags(SeededDeals, Flags):
    name = "cruel-flags"
    title = N_("Cruel Flags (two players)")
    summary = N_("Flags where mines have no places: a point only for a proven mine, any other click is empty.")
    computer_levels = CRUEL_FLAGS_LEVELS
    computer_bomb_worth = 2  # mines the square is sure to hold: proof, not expectation
    turn_rule = N_("A proven mine is a point and another move; any other cell is empty and ends the turn.")
    variant_of = "flags"
    variant_word = N_("None: only proof scores")
    level_notes: ClassVar[dict[str, str]] = {
        "easy": N_("takes the mines a single number shows plainly, otherwise opens a cell at random"),
        "normal": N_(
            "takes every proven mine, otherwise opens the safest-looking cell, the one with the fewest "
            "covered neighbours where that ties"
        ),
        "hard": N_(
            "takes every proven mine, otherwise opens the cell that tells you least (what each number it could "
            "show would prove for you, less what your best reply would give back) and, near the end, plays the "
            "game out so that you are the one left to open the last empty cell"
        ),
    }

    def reveal(self, turn: Turn, index: int, seat: int) -> int:
        """A cell some consistent layout leaves empty is empty, with its number dealt uniformly among those
        layouts; a cell every consistent layout fills is a mine, and a point."""
        game = turn.game
        cell = game.cell(index)
        try:
            with turn.analyzer.limits(turn.limits.for_deal(False)):
                layout = turn.analyzer.sample_layout(turn.rng, force=(cell, False), budget=turn.budget)
        except Inconsistent:
            return self.uncover(turn, [index], seat, frozenset([index]))
        return self.uncover(turn, [index], seat, frozenset(game.board.index(x, y) for x, y in layout.mines))

    @staticmethod
    def _news(seat: int, action: str, scored: int) -> str | Text:
        # An empty cell is this mode's whole surprise: say why the click scored nothing.
        if action == "reveal" and not scored:
            return lazy_gettext("Empty: only a proven mine scores, and the turn passes.")
        return Flags._news(seat, action, scored)

    def drop_bomb(self, turn: Turn, cells: list[int], seat: int) -> int:
        """The square holds as few mines as any consistent layout allows, placed as one such layout, drawn
        uniformly, places them."""
        game = turn.game
        with turn.analyzer.limits(turn.limits.for_deal(False)):
            _, layout = fewest_mines_layout(turn.analyzer, [game.cell(index) for index in cells], turn.rng, turn.budget)
        return self.uncover(turn, cells, seat, frozenset(game.board.index(x, y) for x, y in layout.mines))

    def final_layout(self, turn: Turn) -> list[int]:
        """A layout consistent with everything played, drawn uniformly (the mines found are in every one)."""
        game = turn.game
        with turn.analyzer.limits(turn.limits.for_deal(False)):
            layout = turn.analyzer.sample_layout(turn.rng, budget=turn.budget)
        return sorted(game.board.index(x, y) for x, y in layout.mines)

    def computer_bomb(self, view: FlagsView, side: int) -> tuple[tuple[int, int], float] | None:
        return cruel_flags_bomb(view, side)
