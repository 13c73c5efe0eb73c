"""Cruel but fair (DESIGN.md §1.1): no mine has a place until a click forces one.

A game keeps only what the player has seen; every reveal asks the solver
what the player could have known and deals a layout uniformly among those
consistent with the decision. No layout is kept: the next one does not exist
until the next click. The game's only secret is the seed its deals are drawn
from, so that undoing and clicking again deals the same.
"""

from __future__ import annotations

import hashlib
import logging
import random
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, NotRequired

from pydantic import StrictStr, StringConstraints
from typing_extensions import TypedDict

from app.core.game import Game, Hint, Move, Options, Switches, Turn, setting
from app.core.languages import N_, gettext, lazy_gettext, ngettext
from app.core.stored import Cell, Count, schema
from app.modes.base import FIRST_CLICK, Mode, options_of
from solver import Analyzer, Inconsistent, Interrupted, OutOfTime, OutOfWork, Status, describe
from solver.generate import opening_layout

log = logging.getLogger("kaboom.solver")


@dataclass
class CruelOptions(Options):
    allow_outside: bool = setting("Allow guessing anywhere", order=0, asked="cruel mode: allow guessing anywhere")
    first_click_safe_only: bool = setting(
        "First click safe only (no opening)", order=1, at_deal=True, asked='the older name of "first_click": "safe"'
    )


@schema
class CruelState(TypedDict):
    forced_guesses: Count
    # A board several play alike (a race's, the day's): a first click that deals everyone the same opening.
    start: NotRequired[Cell]


@schema
class CruelSecret(TypedDict):
    # 128 bits every deal of the game is derived from (see Cruel.move_rng); never shown.
    deal_seed: Annotated[StrictStr, StringConstraints(pattern=r"^[0-9a-f]{32}$")]


class SeededDeals(Mode):
    """A mode without a layout: its only secret is the seed its deals are drawn from."""

    hidden_schema: ClassVar[type | None] = CruelSecret
    luck_free = True

    def deal(self, game: Game, rng: random.Random, secret: bytes = b"") -> None:
        # No layout: only the seed of the deals to come.
        game.hidden = {"deal_seed": f"{rng.getrandbits(128):032x}"}

    def move_rng(self, game: Game, move: Move, rng: random.Random) -> random.Random:
        """The same position and the same click deal the same, however often the player undoes and
        clicks again: the deal comes from the game's secret seed, what the player sees and the move.
        Marks are left out, or toggling a flag would deal afresh."""
        if game.hidden is None:
            self.deal(game, rng)  # a game stored before deals were derived: seeded from now on
        key = f"{game.mode_secret()['deal_seed']}|{move.action}|{move.x}|{move.y}|{''.join(game.cells)}"
        return random.Random(hashlib.sha256(key.encode()).digest())


class Cruel(SeededDeals):
    name = "cruel"
    title = N_("Cruel but fair")
    summary = N_("Mines have no places: a guess you did not have to make is a mine; a forced one is safe.")
    options_class = CruelOptions
    choices = {"first_click": FIRST_CLICK}
    state_schema = CruelState
    secret_optional = True  # games from before deals were derived from a seed (move_rng seeds them)

    daily: ClassVar[dict[str, bool] | None] = {}
    daily_title: ClassVar[str] = N_("Cruel Expert")

    def new_state(self) -> dict[str, Any]:
        return {"forced_guesses": 0}

    def shared_board(
        self, width: int, height: int, mines: int, options: Switches, *, rng: random.Random, secret: bytes = b""
    ) -> Game:
        """The deals' seed shared, and a first click marked: the same clicks deal the same cells, and players
        who start on the mark start alike (any first click is safe, but each deals its own opening)."""
        game = self.new_game(width, height, mines, options, rng=rng, secret=secret)
        game.state["start"] = game.index(rng.randrange(game.width), rng.randrange(game.height))
        return game

    def reveal_cell(self, turn: Turn, index: int) -> None:
        game = turn.game
        cell = game.cell(index)
        first = game.started_at is None
        safe, forced, hurried = verdict(game, turn, cell)
        analyzer = turn.analyzer  # the verdict may have put the analyzer that judged it in its place
        if hurried:
            turn.outcome.message = lazy_gettext(
                "The position was too complex to judge in full: this click counted as a guess."
            )
        if first:
            game.started_at = turn.now
        if not safe:
            self._explode(turn, index)
            return
        board = game.board
        mines = _opening_layout(game, index, turn.rng) if first else None
        if mines is None:
            try:
                with analyzer.limits(turn.limits.for_deal(hurried)):
                    layout = analyzer.sample_layout(turn.rng, force=(cell, False), budget=turn.budget)
            except Inconsistent:
                if not hurried:
                    raise
                # In a hurry the cell turned out to be a mine in every layout.
                self._explode(turn, index)
                return
            mines = {board.index(x, y) for x, y in layout.mines}
        if forced:
            game.state["forced_guesses"] += 1
            turn.outcome.forced_guess = True
        self.open_safe_cell(turn, index, mines)

    def _explode(self, turn: Turn, index: int) -> None:
        game = turn.game
        cell = game.cell(index)
        with turn.analyzer.limits(turn.limits.metered()):
            layout = turn.analyzer.sample_layout(turn.rng, force=(cell, True), budget=turn.budget)
        game.exploded = index
        game.finish("lost", turn.now, (game.board.index(x, y) for x, y in layout.mines))
        # No message: the result line announces the loss, once.

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        """What the player could know now: the messages of DESIGN.md §1.1, and one proven-safe cell with its proof."""
        proven = self.proven_hint(game, analyzer)
        if proven is not None:
            return proven
        if analyzer.every_frontier_cell_is_a_mine():
            return Hint("outside", lazy_gettext("Every frontier cell is a mine: play outside"))
        if options_of(game, CruelOptions).allow_outside:
            return Hint("guess", lazy_gettext("No safe cells: you may guess, anywhere"))
        # Under the strict rule a cell away from the numbers is a mine while the frontier has room:
        # the player must know that before paying for it (the rules are on the page too).
        return Hint("guess", lazy_gettext("No safe cells: guess next to a number, or turn on Allow guessing anywhere"))

    def counters(self, game: Game) -> list[tuple[str, str, int, str]]:
        return [
            (
                "forced",
                gettext("Forced guesses"),
                game.state["forced_guesses"],
                gettext("Guesses the rules allowed because no safe cell existed"),
            )
        ]

    def result_counts(self, game: Game) -> list[str]:
        forced = game.state["forced_guesses"]
        guesses = ngettext("%(num)s forced guess", "%(num)s forced guesses", forced) if forced else ""
        return [guesses, *super().result_counts(game)]

    def forced_guesses(self, game: Game) -> int:
        return game.state["forced_guesses"]

    def start_cell(self, game: Game) -> int | None:
        return game.state.get("start")


def _opening_layout(game: Game, index: int, rng: random.Random) -> set[int] | None:
    """The first click's layout when it opens an area (nothing is revealed yet, so every layout with the
    area empty is consistent). None when the setting asks for a safe cell only, or when the mines do not
    fit around an opening: then the analyzer deals with the cell alone safe."""
    if options_of(game, CruelOptions).first_click_safe_only or game.covered != len(game.cells):
        return None
    layout = opening_layout(game.width, game.height, game.mines, index, rng)
    return set(layout) if layout is not None else None


def verdict(game: Game, turn: Turn, cell: tuple[int, int]) -> tuple[bool, bool, bool]:
    """(safe, forced guess, hurried) for a click: the rules' answer within the turn's work allowance.

    The answer must not depend on the machine, its load, or what the analyzer
    cache happened to keep, so it is the answer a fresh analysis of this
    position gives within the work allowance, which counts solver work, not
    time. When that work runs out the click is judged as a guess ("hurried"):
    safe unless what was proven within it makes the cell a mine. The cached
    analyzer is asked first because it is usually done at once; whatever it
    says safe a fresh analysis says safe too (exactly or as a guess), so only a
    loss, or a cached analyzer out of work, is checked on a fresh one.
    """
    analyzer = turn.analyzer
    pristine = analyzer.pristine
    # A cached analyzer that stopped short before will stop short again: only the fresh answer counts.
    if pristine or not analyzer.interrupted:
        try:
            with analyzer.limits(turn.limits.metered()):
                safe, forced = judge(game, analyzer, cell)
            if safe or pristine:
                return safe, forced, False
        except OutOfWork:
            if pristine:
                return _guess(analyzer, cell)
        except OutOfTime:
            return _out_of_time(game, analyzer, cell)
    fresh = Analyzer(game.position())
    try:
        with fresh.limits(turn.limits.metered()):
            return (*judge(game, fresh, cell), False)
    except Interrupted as stopped:
        # A hurried verdict deals from the analyzer that judged it: the cached one knows more and
        # would deal another layout, and the same click must get the same answer, cached or not.
        turn.analyzer = fresh
        if isinstance(stopped, OutOfTime):
            return _out_of_time(game, fresh, cell)
        return _guess(fresh, cell)


def _guess(analyzer: Analyzer, cell: tuple[int, int]) -> tuple[bool, bool, bool]:
    """A click the solver could not judge in full: a guess, lost only where what it proved says mine."""
    proven = analyzer.proven(cell)
    return proven is not Status.MINE, proven is Status.UNKNOWN, True


def _out_of_time(game: Game, analyzer: Analyzer, cell: tuple[int, int]) -> tuple[bool, bool, bool]:
    # The wall clock is the last guard: where it stops depends on the machine's
    # load, which a verdict should not, so every time it decides one is logged.
    log.warning(
        "wall-clock limit reached judging a click at %s on a %dx%d board with %d mines: judged as a guess",
        describe(cell),
        game.width,
        game.height,
        game.mines,
    )
    return _guess(analyzer, cell)


def judge(game: Game, analyzer: Analyzer, cell: tuple[int, int]) -> tuple[bool, bool]:
    """(safe, forced guess) for a click on a covered cell, by the rules of DESIGN.md §1.1."""
    status = analyzer.status(cell)
    if status is Status.SAFE:
        return True, False
    if status is Status.MINE:
        return False, False
    if not analyzer.frontier_exists():
        # Rule 1: nothing to reason from, so nothing to punish.
        return True, game.started_at is not None
    if not analyzer.is_outside(cell):
        # Rule 2: a risky frontier cell is safe only when no safe cell exists anywhere.
        safe = not analyzer.safe_cell_exists()
        return safe, safe
    if analyzer.every_frontier_cell_is_a_mine():
        # Rule 3: the player has nowhere else to go.
        return True, True
    # Rule 3 (strict) refuses the guess; rule 4 allows it when no safe cell exists.
    safe = options_of(game, CruelOptions).allow_outside and not analyzer.safe_cell_exists()
    return safe, safe
