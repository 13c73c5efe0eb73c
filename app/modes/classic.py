"""Classic Minesweeper (DESIGN.md §1.2): one layout, dealt at the first click, kept secret until the end.

The layout comes from the game's secret seed and the first click (Tatham's
deferred generation), so undoing the first click and clicking the same cell
deals the same board. Everything the player is told — hints, *Show me*, the
overlay, the review of a loss — comes from what they have seen, never from the
layout (Mode.proven_hint and the service's analyzer read the visible position).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import StrictStr, StringConstraints
from typing_extensions import TypedDict

from app.game import Game, Hint, Options, Turn, setting
from app.modes.base import Mode
from app.stored import Layout, schema
from solver import Analyzer
from solver.generate import first_click_layout


@dataclass
class ClassicOptions(Options):
    first_click_safe_only: bool = setting("First click safe only (no opening)", order=1)


@schema
class ClassicSecret(TypedDict):
    # 128 bits the layout is derived from, with the first click; never shown.
    layout_seed: Annotated[StrictStr, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
    mines: Layout | None  # the layout, once the first click has dealt it


class Classic(Mode):
    name = "classic"
    title = "Classic"
    options_class = ClassicOptions
    hidden_schema = ClassicSecret

    def deal(self, game: Game, rng: random.Random) -> None:
        # Only the seed: the layout waits for the first click, which it must spare.
        game.hidden = {"layout_seed": f"{rng.getrandbits(128):032x}", "mines": None}

    def reveal_cell(self, turn: Turn, index: int) -> None:
        game = turn.game
        if game.started_at is None:
            # The first click (again, after undoing it: the same click deals the same layout).
            game.started_at = turn.now
            game.hidden["mines"] = sorted(self.layout(game, index))
        mines = set(game.hidden["mines"])
        if index in mines:
            game.exploded = index
            game.finish("lost", turn.now, mines)
            return
        self.open_safe_cell(turn, index, mines)

    def layout(self, game: Game, first: int) -> frozenset[int]:
        """The board a first click at `first` deals: a function of the game's seed, its size, its
        first-click setting and the click."""
        opening = not game.options.first_click_safe_only
        key = f"{game.hidden['layout_seed']}|{game.width}x{game.height}/{game.mines}|{'opening' if opening else 'safe'}|{first}"
        rng = random.Random(hashlib.sha256(key.encode()).digest())
        return first_click_layout(game.width, game.height, game.mines, first, rng, opening=opening)

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        """A proven-safe cell with its proof, or, as the Pestov–Shalyto program answers, "I don't know"."""
        proven = self.proven_hint(game, analyzer)
        if proven is not None:
            return proven
        return Hint("guess", "I don't know: no cell can be proven safe, so you must guess")

    def public_state(self, game: Game) -> dict[str, Any]:
        return {}
