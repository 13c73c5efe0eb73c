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
import time
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import StrictStr, StringConstraints
from typing_extensions import TypedDict

from app.game import Game, Hint, Options, Refused, Turn, setting
from app.modes.base import Mode
from app.stored import Layout, schema
from solver import Analyzer, Interrupted, Limits, Status
from solver.generate import NoGuessImpossible, first_click_layout, no_guess_layout
from solver.local import deduce
from solver.position import COVERED, FLAG


# What a no-guess deal may take however short the request's own limit: bench/generate.py measured
# a p95 of 0.45 s on 100x100 with 2,000 mines and 2.6 s at most with 2,500.
GENERATION_SECONDS = 10.0


@dataclass
class ClassicOptions(Options):
    first_click_safe_only: bool = setting("First click safe only (no opening)", order=1)
    no_guess: bool = setting("No guessing (boards solvable by deduction)", order=2)
    # Hoff's levels of automatic help; with both on, the stronger one does all.
    assist_local: bool = setting("Assist: resolve local rules", order=3)
    assist_all: bool = setting("Assist: resolve everything", order=4)


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
            game.hidden["mines"] = sorted(self.layout(game, index, turn.limits))
            game.started_at = turn.now
        mines = set(game.hidden["mines"])
        if index in mines:
            game.exploded = index
            game.finish("lost", turn.now, mines)
            return
        self.open_safe_cell(turn, index, mines)

    def layout(self, game: Game, first: int, limits: Limits | None = None) -> frozenset[int]:
        """The board a first click at `first` deals: a function of the game's seed, its size, its
        first-click and no-guess settings and the click. Refused when no board without guesses
        is found for the density (nothing changes: the player may turn the setting off)."""
        opening = not game.options.first_click_safe_only
        no_guess = game.options.no_guess
        key = (
            f"{game.hidden['layout_seed']}|{game.width}x{game.height}/{game.mines}|{'opening' if opening else 'safe'}"
            f"{'|no-guess' if no_guess else ''}|{first}"
        )
        rng = random.Random(hashlib.sha256(key.encode()).digest())
        if not no_guess:
            return first_click_layout(game.width, game.height, game.mines, first, rng, opening=opening)
        # The request's deadline may be short; a big board's search gets its own, as a guard only.
        deadline = time.monotonic() + max(GENERATION_SECONDS, (limits.left() or 0) if limits else 0)
        try:
            return no_guess_layout(game.width, game.height, game.mines, first, rng, opening=opening, deadline=deadline)
        except NoGuessImpossible as error:
            raise Refused(f"{str(error)[0].upper()}{str(error)[1:]}, or turn off No guessing.") from None

    def after_action(self, turn: Turn) -> None:
        """The assists: after each action, what the chosen level proves is done for the player."""
        options = turn.game.options
        if options.assist_all:
            self._resolve_everything(turn)
        elif options.assist_local:
            self._resolve_locally(turn)

    def _resolve_locally(self, turn: Turn) -> None:
        """The two local rules to a fixpoint (solver.local): flag what they prove a mine, open what they
        prove safe, and again from the numbers that opened, until nothing follows."""
        game = turn.game
        known: set[int] = set()
        start: set[int] | None = None  # every number at first: a flag taken off since is proven again
        offset = 0
        while game.status == "playing":
            found = deduce(game.width, game.height, game.cells, known, start)
            if not found:
                return
            known.update(found.mines)
            for index in found.mines:
                if game.marks.get(index) != FLAG:
                    turn.set_mark(index, FLAG)
                    turn.outcome.ripple.setdefault(index, offset + found.wave[index])
            opened_before = set(turn.outcome.changed)
            for index in found.safe:
                # A cell the player flagged stays shut: their flag, their mistake to see.
                if game.cells[index] == COVERED and game.marks.get(index) != FLAG and game.status == "playing":
                    self.reveal_cell(turn, index)
                    for opened in turn.outcome.changed - opened_before:
                        turn.outcome.ripple.setdefault(opened, offset + found.wave[index])
            offset += max(found.wave.values()) + 1
            new = turn.outcome.changed - opened_before
            start = {n for index in new for n in (index, *game.neighbours(index))}

    def _resolve_everything(self, turn: Turn) -> None:
        """Every cell the exact solver proves, opened or flagged, until only genuine guesses remain."""
        game = turn.game
        step = 0
        while game.status == "playing":
            try:
                with turn.analyzer.limits(turn.limits.timed()):
                    statuses = turn.analyzer.classify()
            except Interrupted:
                # Too complex to finish within the request: what the action did stands, the rest waits.
                turn.outcome.message = "The assist stopped: the position is too complex to resolve in time."
                return
            safe = [game.index(*cell) for cell, status in statuses.items() if status is Status.SAFE]
            for cell, status in statuses.items():
                index = game.index(*cell)
                if status is Status.MINE and game.marks.get(index) != FLAG:
                    turn.set_mark(index, FLAG)
                    turn.outcome.ripple.setdefault(index, step)
            safe = [index for index in safe if game.marks.get(index) != FLAG]
            if not safe:
                return
            before = set(turn.outcome.changed)
            for index in safe:
                if game.cells[index] == COVERED and game.status == "playing":
                    self.reveal_cell(turn, index)
            for index in turn.outcome.changed - before:
                turn.outcome.ripple.setdefault(index, step)
            step += 1

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        """A proven-safe cell with its proof, or, as the Pestov–Shalyto program answers, "I don't know"."""
        proven = self.proven_hint(game, analyzer)
        if proven is not None:
            return proven
        return Hint("guess", "I don't know: no cell can be proven safe, so you must guess")

    def public_state(self, game: Game) -> dict[str, Any]:
        return {}
